// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// One port for TLCP, TLS 1.3 with the ShangMi suites and ordinary TLS
// (TLS13.md §8).

// ClientHelloTimeout bounds how long a connection accepted by an
// AutoListener may take to send its ClientHello; one that says nothing
// for that long is closed without being returned by Accept.
const ClientHelloTimeout = 10 * time.Second

// maxPeek bounds what an AutoListener reads to classify a connection: a
// ClientHello of the largest size a server accepts, in records.
const maxPeek = maxOtherMsg + 4 + 16*recordHeaderLen

// Which server a connection goes to.
const (
	routeShangMi = iota // this package: TLCP or TLS 1.3-SM
	routeStdTLS         // crypto/tls
)

// NewAutoListener returns a listener that serves, on the connections of
// inner, each client in the protocol it speaks: TLCP and TLS 1.3 with the
// RFC 8998 suites through config, and, if tlsConfig is not nil, ordinary
// TLS 1.2 and 1.3 (ECDSA or RSA certificates, for browsers) through
// crypto/tls. Accept returns a *Conn for the first two and a *tls.Conn for
// the third, both server connections whose handshake runs on first use,
// as with NewListener and tls.NewListener.
//
// The choice is made from the ClientHello, which each accepted connection
// must send within ClientHelloTimeout (the reading happens in a goroutine
// of its own, so a slow client delays nobody's Accept): a record of
// version 0x0101 is TLCP; a TLS ClientHello that offers TLS 1.3, a suite
// of RFC 8998 and sm2sig_sm3 goes to this package when config enables TLS
// 1.3; anything else, including a ClientHello that offers the ShangMi
// suites beside others config cannot use, goes to crypto/tls, or to this
// package if tlsConfig is nil. A connection that closes or sends nothing
// before it is classified is closed.
//
// Under net/http, pass the listener to ServeHTTP: connections for
// crypto/tls reach net/http as *tls.Conn, which serves them itself (HTTP/2
// too, if tlsConfig.NextProtos offers "h2"), and the others as ServeHTTP's
// own.
func NewAutoListener(inner net.Listener, config *Config, tlsConfig *tls.Config) net.Listener {
	return &autoListener{
		inner:     inner,
		config:    config,
		tlsConfig: tlsConfig,
		conns:     make(chan net.Conn),
		errs:      make(chan error),
		done:      make(chan struct{}),
	}
}

// ListenAuto listens on laddr and returns an AutoListener; see
// NewAutoListener.
func ListenAuto(network, laddr string, config *Config, tlsConfig *tls.Config) (net.Listener, error) {
	if config == nil || (len(config.Certificates) == 0 && config.GetCertificate == nil) {
		return nil, errors.New("tlcp: a server needs a CertificatePair in Config.Certificates or Config.GetCertificate")
	}
	l, err := net.Listen(network, laddr)
	if err != nil {
		return nil, err
	}
	return NewAutoListener(l, config, tlsConfig), nil
}

type autoListener struct {
	inner     net.Listener
	config    *Config
	tlsConfig *tls.Config

	start     sync.Once
	conns     chan net.Conn
	errs      chan error
	done      chan struct{}
	closeOnce sync.Once
}

func (l *autoListener) Accept() (net.Conn, error) {
	l.start.Do(func() { go l.acceptLoop() })
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// acceptLoop accepts connections and hands each to a classifier. Errors go
// to Accept's caller; after the listener is closed the loop ends.
func (l *autoListener) acceptLoop() {
	for {
		c, err := l.inner.Accept()
		if err != nil {
			select {
			case l.errs <- err:
			case <-l.done:
				return
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		go l.classify(c)
	}
}

// classify reads the start of a connection, wraps it for its server and
// hands it to Accept.
func (l *autoListener) classify(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(ClientHelloTimeout))
	peeked, route, err := l.peek(c)
	c.SetReadDeadline(time.Time{})
	if err != nil && len(peeked) == 0 {
		c.Close()
		return
	}
	pc := &peekedConn{Conn: c, peeked: peeked}
	var out net.Conn
	if route == routeStdTLS {
		out = tls.Server(pc, l.tlsConfig)
	} else {
		out = Server(pc, l.config)
	}
	select {
	case l.conns <- out:
	case <-l.done:
		c.Close()
	}
}

// peek reads records until it has the first handshake message, or can
// tell without it, and returns what it read and where it goes. An error
// leaves the choice to the default, whose server will report it.
func (l *autoListener) peek(c net.Conn) ([]byte, int, error) {
	fallback := routeShangMi
	if l.tlsConfig != nil {
		fallback = routeStdTLS
	}
	var raw, msg []byte
	hdr := make([]byte, recordHeaderLen)
	for len(raw) < maxPeek {
		if n, err := io.ReadFull(c, hdr); err != nil {
			return append(raw, hdr[:n]...), fallback, err
		}
		raw = append(raw, hdr...)
		if hdr[0] != byte(recordTypeHandshake) {
			return raw, fallback, nil
		}
		if hdr[1] == VersionTLCP>>8 {
			return raw, routeShangMi, nil // only TLCP has record version 0x01xx
		}
		if hdr[1] != 3 {
			return raw, fallback, nil
		}
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if n, err := io.ReadFull(c, body); err != nil {
			return append(raw, body[:n]...), fallback, err
		}
		raw = append(raw, body...)
		msg = append(msg, body...)
		if len(msg) >= 4 {
			n := int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3])
			if msg[0] != typeClientHello || n > maxOtherMsg {
				return raw, fallback, nil
			}
			if len(msg) >= 4+n {
				break
			}
		}
	}
	if len(msg) < 4 {
		return raw, fallback, nil
	}
	n := int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3])
	var hello clientHelloMsg
	if len(msg) < 4+n || !hello.unmarshal(bytes.Clone(msg[:4+n])) {
		return raw, fallback, nil
	}
	if l.wantsShangMiTLS13(&hello) {
		return raw, routeShangMi, nil
	}
	return raw, fallback, nil
}

// wantsShangMiTLS13 reports whether a TLS ClientHello asks for TLS 1.3 with
// the ShangMi suites that this side can give it.
func (l *autoListener) wantsShangMiTLS13(h *clientHelloMsg) bool {
	if !h.tls13.offersTLS13() || !l.config.versionEnabled(VersionTLS13, false) ||
		!slices.Contains(h.tls13.signatureAlgorithms, signatureSM2SM3) {
		return false
	}
	for _, id := range h.cipherSuites {
		if ciphersuite.LookupTLS13(id) != nil && slices.Contains(l.config.tls13CipherSuites(), id) {
			return true
		}
	}
	return false
}

// Close stops accepting. Connections already returned are not affected;
// ones still being classified are closed.
func (l *autoListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.inner.Close()
}

func (l *autoListener) Addr() net.Addr { return l.inner.Addr() }

// peekedConn replays the bytes read to classify a connection before
// reading on.
type peekedConn struct {
	net.Conn
	peeked []byte
}

func (c *peekedConn) Read(b []byte) (int, error) {
	if len(c.peeked) > 0 {
		n := copy(b, c.peeked)
		c.peeked = c.peeked[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}
