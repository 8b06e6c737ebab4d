// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"net"
	"sync/atomic"
)

// wireCount counts what a server's connections carry at the transport:
// bytes in both directions (every record, headers and tags included) and
// the transport reads and writes, so that the table can say how many bytes
// each RPC seals and opens (each byte is sealed by one end and opened by
// the other) and how many system calls the server makes for it.
type wireCount struct {
	bytes, writes, reads atomic.Int64
}

type countingListener struct {
	net.Listener
	n *wireCount
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.n}, nil
}

type countingConn struct {
	net.Conn
	n *wireCount
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.bytes.Add(int64(n))
	c.n.reads.Add(1)
	return n, err
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.bytes.Add(int64(n))
	c.n.writes.Add(1)
	return n, err
}
