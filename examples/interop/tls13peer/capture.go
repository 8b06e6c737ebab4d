// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// A capture records one connection for ../../../tlcp's golden tests
// (testdata/tls13/*.capture): the key log lines, then every chunk of
// bytes in the order it crossed the wire, "> " for what this side sent,
// "< " for what it received, in hex. With the key log the test decrypts
// the handshake and checks the peer's messages against this package's
// parsers and key schedule, without the peer.
type capture struct {
	mu   sync.Mutex
	w    io.Writer
	done bool // the recorded connection is closed: later key log lines are not its
}

func (c *capture) line(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, format+"\n", args...)
}

// Write takes key log lines.
func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done {
		return len(b), nil
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		c.line("KEYLOG %s", l)
	}
	return len(b), nil
}

type capturedConn struct {
	net.Conn
	c *capture
}

func (cc *capturedConn) Read(b []byte) (int, error) {
	n, err := cc.Conn.Read(b)
	if n > 0 {
		cc.c.line("< %s", hex.EncodeToString(b[:n]))
	}
	return n, err
}

func (cc *capturedConn) Close() error {
	cc.c.mu.Lock()
	cc.c.done = true
	cc.c.mu.Unlock()
	return cc.Conn.Close()
}

func (cc *capturedConn) Write(b []byte) (int, error) {
	n, err := cc.Conn.Write(b)
	if n > 0 {
		cc.c.line("> %s", hex.EncodeToString(b[:n]))
	}
	return n, err
}
