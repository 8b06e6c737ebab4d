// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package caddytlcp is a Caddy v2 plugin that lets a Caddy HTTPS port
// answer TLCP (GB/T 38636-2020) and TLS 1.3 with the ShangMi suites of RFC
// 8998 beside Caddy's own TLS, through this project's tlcp package.
//
// It is two listener wrappers and a handler:
//
//   - caddy.listeners.tlcp goes before Caddy's "tls" placeholder wrapper.
//     It reads each connection's ClientHello (tlcp.NewAutoListener's
//     choice): TLCP and TLS 1.3-SM connections are taken in hand with its
//     own double certificates; every other connection goes on to Caddy's
//     TLS untouched, bytes replayed.
//   - caddy.listeners.tlcp_after_tls goes after "tls" and hands the
//     ShangMi connections to the HTTP server past Caddy's crypto/tls
//     listener, which wraps every connection it is given.
//   - http.handlers.tlcp_vars sets the {tlcp.*} placeholders (protocol,
//     suite, the client's signing and encryption certificates) for the
//     handlers after it and for the access log (log_append).
//
// ShangMi connections also fill the request's TLS state (r.TLS: version
// 0x0101 or 0x0304, suite, ALPN, SNI, resumption, and a descriptive copy
// of the client's certificates), so Caddy's own {http.request.tls.*}
// placeholders and the access log's "tls" object describe them too.
package caddytlcp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/shangmi-go/shangmi/tlcp"
)

func init() {
	caddy.RegisterModule(Listener{})
	caddy.RegisterModule(AfterTLS{})
}

// Listener is the listener wrapper caddy.listeners.tlcp: it serves TLCP
// and TLS 1.3-SM on the port it wraps and passes every other connection
// on. It must come before the "tls" wrapper, with tlcp_after_tls after it:
//
//	"listener_wrappers": [
//	  {"wrapper": "tlcp", "certificates": [{"sign_cert": "...", ...}]},
//	  {"wrapper": "tls"},
//	  {"wrapper": "tlcp_after_tls"}
//	]
type Listener struct {
	Config

	config *tlcp.Config
	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Listener) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.tlcp",
		New: func() caddy.Module { return new(Listener) },
	}
}

// Provision loads the certificates and builds the tlcp.Config. Caddy
// provisions a new Listener on every config load, so a reload reads the
// certificate and key files afresh.
func (l *Listener) Provision(ctx caddy.Context) error {
	l.logger = ctx.Logger()
	cfg, err := l.Config.build(caddy.NewReplacer())
	if err != nil {
		return err
	}
	l.config = cfg
	return nil
}

// WrapListener returns a listener that takes TLCP and TLS 1.3-SM
// connections in hand and returns every other connection as it came, for
// Caddy's TLS to serve.
func (l *Listener) WrapListener(ln net.Listener) net.Listener {
	// crypto/tls's half of the AutoListener is never used: its
	// connections are unwrapped (tls.Conn.NetConn) before any handshake,
	// and reach Caddy's own TLS listener with their bytes replayed.
	return &splitListener{
		Listener: tlcp.NewAutoListener(ln, l.config, &tls.Config{}),
		timeout:  l.handshakeTimeout(),
		logger:   l.logger,
	}
}

func (l *Listener) handshakeTimeout() time.Duration {
	if l.HandshakeTimeout > 0 {
		return time.Duration(l.HandshakeTimeout)
	}
	return 10 * time.Second
}

type splitListener struct {
	net.Listener
	timeout time.Duration
	logger  *zap.Logger
}

func (l *splitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	switch c := c.(type) {
	case *tls.Conn:
		// Ordinary TLS: the connection, ClientHello replayed, for
		// Caddy's TLS listener.
		return c.NetConn(), nil
	case *tlcp.Conn:
		return &Conn{Conn: c, timeout: l.timeout, logger: l.logger}, nil
	}
	c.Close()
	return nil, fmt.Errorf("caddytlcp: internal error: the listener returned a %T", c)
}

// AfterTLS is the listener wrapper caddy.listeners.tlcp_after_tls, which
// goes after "tls": Caddy's TLS listener wraps every connection in a
// tls.Conn, and AfterTLS unwraps the ShangMi ones before any TLS
// handshake runs, so that they reach the HTTP server as themselves.
type AfterTLS struct{}

// CaddyModule returns the Caddy module information.
func (AfterTLS) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.tlcp_after_tls",
		New: func() caddy.Module { return new(AfterTLS) },
	}
}

// WrapListener returns a listener that unwraps the ShangMi connections.
func (AfterTLS) WrapListener(ln net.Listener) net.Listener { return joinListener{ln} }

type joinListener struct{ net.Listener }

func (l joinListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	sc, ok := c.(*Conn)
	if tc, isTLS := c.(*tls.Conn); isTLS {
		sc, ok = tc.NetConn().(*Conn)
	}
	if ok {
		sc.joined = true
		return sc, nil
	}
	return c, nil
}

// errNotJoined is what a ShangMi connection says if it reaches crypto/tls:
// the configuration lacks tlcp_after_tls.
var errNotJoined = errors.New(`caddytlcp: a TLCP connection reached Caddy's TLS listener: put the "tlcp_after_tls" listener wrapper after "tls"`)

var (
	_ caddy.Provisioner     = (*Listener)(nil)
	_ caddy.ListenerWrapper = (*Listener)(nil)
	_ caddy.ListenerWrapper = AfterTLS{}
)
