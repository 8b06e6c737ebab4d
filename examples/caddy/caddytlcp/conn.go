// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// Conn is a TLCP or TLS 1.3-SM server connection as Caddy's HTTP server
// sees it. Its first Read, Write or ConnectionState runs the handshake,
// in the connection's own goroutine and within the listener's handshake
// timeout, as net/http does for TLS; a failure is logged at debug level,
// as Caddy logs TLS handshake errors.
type Conn struct {
	*tlcp.Conn
	timeout time.Duration
	logger  *zap.Logger
	// joined is set by tlcp_after_tls.
	joined bool

	once  sync.Once
	err   error
	state tlcp.ConnectionState
	std   tls.ConnectionState
	vars  sync.Map // placeholder name → value, filled by tlcp_vars (vars.go)

	// registered says the connection is in conns; closed that Close has
	// run. Close may run in another goroutine than the handshake.
	registered, closed atomic.Bool
}

func (c *Conn) handshake() error {
	c.once.Do(func() {
		if !c.joined {
			c.err = errNotJoined
			c.logger.Error("refusing connection", zap.Error(c.err))
			c.Conn.Close()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		defer cancel()
		if c.err = c.Conn.HandshakeContext(ctx); c.err != nil {
			c.logger.Debug("TLCP handshake error", zap.String("remote", c.RemoteAddr().String()), zap.Error(c.err))
			c.Conn.Close()
			return
		}
		c.state = c.Conn.ConnectionState()
		c.std = stdState(&c.state)
		conns.Store(c.key(), c)
		c.registered.Store(true)
		if c.closed.Load() {
			conns.CompareAndDelete(c.key(), c)
		}
	})
	return c.err
}

func (c *Conn) Read(b []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

func (c *Conn) Write(b []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

func (c *Conn) Close() error {
	c.closed.Store(true)
	if c.registered.Load() {
		conns.CompareAndDelete(c.key(), c)
	}
	return c.Conn.Close()
}

func (c *Conn) key() string { return connKey(c.LocalAddr().String(), c.RemoteAddr().String()) }

// ConnectionState describes the connection to net/http and Caddy, which
// fill r.TLS with it: see stdState.
func (c *Conn) ConnectionState() tls.ConnectionState {
	c.handshake()
	return c.std
}

// TLCPState returns the full state of the connection, once its handshake
// is done.
func (c *Conn) TLCPState() tlcp.ConnectionState {
	c.handshake()
	return c.state
}

// stdState is what a tls.ConnectionState can say of a TLCP or TLS 1.3-SM
// connection: version (0x0101 or 0x0304), suite code point, ALPN, SNI and
// resumption, and the peer's certificates (for TLCP the signing one
// first, then as received) as crypto/x509 values. crypto/x509 cannot
// parse SM2 certificates, so these are descriptive copies made from
// smx509's parse — subject, issuer, serial, validity, names, key usage,
// raw DER — with no public key; they serve Caddy's placeholders and log
// fields, not verification, which tlcp has done.
func stdState(s *tlcp.ConnectionState) tls.ConnectionState {
	st := tls.ConnectionState{
		Version:            s.Version,
		HandshakeComplete:  s.HandshakeComplete,
		DidResume:          s.DidResume,
		CipherSuite:        s.CipherSuite,
		NegotiatedProtocol: s.NegotiatedProtocol,
		ServerName:         s.ServerName,
	}
	if s.PeerSignCertificate != nil {
		st.PeerCertificates = append(st.PeerCertificates, describe(s.PeerSignCertificate))
	}
	for _, c := range s.PeerCertificates {
		if c != s.PeerSignCertificate {
			st.PeerCertificates = append(st.PeerCertificates, describe(c))
		}
	}
	for _, chain := range s.VerifiedChains {
		var out []*x509.Certificate
		for _, c := range chain {
			out = append(out, describe(c))
		}
		st.VerifiedChains = append(st.VerifiedChains, out)
	}
	return st
}

func describe(c *smx509.Certificate) *x509.Certificate {
	return &x509.Certificate{
		Raw:                     c.Raw,
		RawTBSCertificate:       c.RawTBSCertificate,
		RawSubjectPublicKeyInfo: c.RawSubjectPublicKeyInfo,
		RawSubject:              c.RawSubject,
		RawIssuer:               c.RawIssuer,
		Signature:               c.Signature,
		Version:                 c.Version,
		SerialNumber:            c.SerialNumber,
		Issuer:                  c.Issuer,
		Subject:                 c.Subject,
		NotBefore:               c.NotBefore,
		NotAfter:                c.NotAfter,
		KeyUsage:                x509.KeyUsage(c.KeyUsage),
		Extensions:              c.Extensions,
		BasicConstraintsValid:   c.BasicConstraintsValid,
		IsCA:                    c.IsCA,
		SubjectKeyId:            c.SubjectKeyId,
		AuthorityKeyId:          c.AuthorityKeyId,
		DNSNames:                c.DNSNames,
		EmailAddresses:          c.EmailAddresses,
		IPAddresses:             c.IPAddresses,
		URIs:                    c.URIs,
	}
}

// conns finds a request's connection for tlcp_vars, by the connection's
// two addresses (unique among open TCP connections).
var conns sync.Map // connKey → *Conn

func connKey(local, remote string) string { return local + " " + remote }
