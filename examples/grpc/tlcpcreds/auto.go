// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcpcreds

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/shangmi-go/shangmi/tlcp"
)

// autoCreds serves TLCP, TLS 1.3-SM and ordinary TLS on one port.
type autoCreds struct {
	creds
	tlsConfig *tls.Config
}

// NewAutoServer returns server credentials that answer each client in the
// protocol its ClientHello asks for: TLCP and TLS 1.3 with the ShangMi
// suites through config, as NewServer does, and anything else through
// crypto/tls with tlsConfig (ECDSA or RSA certificates), as grpc's
// credentials.NewTLS does, with "h2" added to NextProtos and TLS 1.2 at
// least. The choice is tlcp.NewAutoListener's.
//
// Connections served by crypto/tls carry a credentials.TLSInfo, the others
// an AuthInfo. Info() names all three protocols.
func NewAutoServer(config *tlcp.Config, tlsConfig *tls.Config, opts ...Option) credentials.TransportCredentials {
	if tlsConfig == nil {
		tlsConfig = &tls.Config{}
	}
	t := tlsConfig.Clone()
	if !slices.Contains(t.NextProtos, alpnH2) {
		t.NextProtos = append(slices.Clone(t.NextProtos), alpnH2)
	}
	if t.MinVersion == 0 {
		t.MinVersion = tls.VersionTLS12 // RFC 7540 §9.2
	}
	return &autoCreds{creds: newCreds(config, false, opts), tlsConfig: t}
}

func (c *autoCreds) ServerHandshake(rawConn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, err := classify(rawConn, c.config, c.tlsConfig)
	if err != nil {
		rawConn.Close()
		return nil, nil, err
	}
	switch conn := conn.(type) {
	case *tlcp.Conn:
		return c.serverHandshake(conn)
	case *tls.Conn:
		if err := conn.Handshake(); err != nil {
			conn.Close()
			return nil, nil, err
		}
		st := conn.ConnectionState()
		if err := c.checkALPN(st.NegotiatedProtocol); err != nil {
			conn.Close()
			return nil, nil, err
		}
		return conn, credentials.TLSInfo{
			State:          st,
			CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity},
		}, nil
	}
	conn.Close()
	return nil, nil, fmt.Errorf("tlcpcreds: internal error: the listener returned a %T", conn)
}

func (c *autoCreds) Info() credentials.ProtocolInfo {
	info := protocolInfo(c.config, false)
	info.SecurityProtocol += ",tls"
	return info
}

func (c *autoCreds) Clone() credentials.TransportCredentials {
	return &autoCreds{creds: creds{config: c.config.Clone(), allowNoALPN: c.allowNoALPN}, tlsConfig: c.tlsConfig.Clone()}
}

// classify hands rawConn to a tlcp.NewAutoListener of its own and returns
// what that listener makes of it: a *tlcp.Conn or a *tls.Conn, handshake
// not yet run. A listener per connection costs two goroutines for the
// length of the ClientHello, and lets the tlcp package alone decide what
// a ClientHello asks for.
func classify(rawConn net.Conn, config *tlcp.Config, tlsConfig *tls.Config) (net.Conn, error) {
	held := &heldConn{Conn: rawConn, closed: make(chan struct{})}
	held.hold.Store(true)
	one := &oneConnListener{conn: held, done: make(chan struct{})}
	ln := tlcp.NewAutoListener(one, config, tlsConfig)
	defer ln.Close()
	// The listener closes a connection it cannot classify (it closed, or
	// sent no handshake record) without returning it: stop waiting then.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-held.closed:
			ln.Close()
		case <-stop:
		}
	}()
	conn, err := ln.Accept()
	if err != nil {
		return nil, errors.New("tlcpcreds: the connection ended before its ClientHello")
	}
	held.hold.Store(false)
	return conn, nil
}

// heldConn keeps the deadline grpc.Server set on a new connection while
// the listener reads its ClientHello (the listener sets a read deadline of
// its own and clears it afterwards), and reports its closing.
type heldConn struct {
	net.Conn
	hold      atomic.Bool
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *heldConn) SetReadDeadline(t time.Time) error {
	if c.hold.Load() {
		return nil
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *heldConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// oneConnListener accepts one connection, then waits for Close.
type oneConnListener struct {
	mu       sync.Mutex
	conn     net.Conn
	done     chan struct{}
	doneOnce sync.Once
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

// Close stops Accept; the connection, once accepted, is its taker's.
func (l *oneConnListener) Close() error {
	l.doneOnce.Do(func() { close(l.done) })
	return nil
}

func (l *oneConnListener) Addr() net.Addr {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		return l.conn.LocalAddr()
	}
	return &net.TCPAddr{}
}
