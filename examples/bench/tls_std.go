// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// The crypto/tls side of the tlcp group: TLS 1.2 with P-256 ECDSA
// certificates (leaf + intermediate sent, root trusted by the client), the
// closest standard-library shape to a TLCP handshake.

const bulkLen = 64 << 20

// stdTLSConfigs returns a server and a client config for suite over the
// ECDSA chain. resume turns on session tickets and a client session cache.
func stdTLSConfigs(suite uint16, resume bool) (srv, cli *tls.Config, err error) {
	ch, err := ecdsaChain()
	if err != nil {
		return nil, nil, err
	}
	root, err := x509.ParseCertificate(ch.root)
	if err != nil {
		return nil, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(root)
	srv = &tls.Config{
		Certificates:           []tls.Certificate{{Certificate: [][]byte{ch.leaf, ch.inter}, PrivateKey: ch.leafKey}},
		MinVersion:             tls.VersionTLS12,
		MaxVersion:             tls.VersionTLS12,
		CipherSuites:           []uint16{suite},
		CurvePreferences:       []tls.CurveID{tls.CurveP256},
		SessionTicketsDisabled: !resume,
		Time:                   func() time.Time { return certTime },
	}
	cli = &tls.Config{
		RootCAs:          roots,
		ServerName:       certDNSName,
		MinVersion:       tls.VersionTLS12,
		MaxVersion:       tls.VersionTLS12,
		CipherSuites:     []uint16{suite},
		CurvePreferences: []tls.CurveID{tls.CurveP256},
		Time:             func() time.Time { return certTime },
	}
	if resume {
		cli.ClientSessionCache = tls.NewLRUClientSessionCache(8)
	}
	return srv, cli, nil
}

// pipeHandshake runs one client and one server handshake over net.Pipe and
// reports whether the client resumed.
func pipeHandshake(srv, cli *tls.Config) (resumed bool, err error) {
	c, s := net.Pipe()
	defer c.Close()
	defer s.Close()
	sc := tls.Server(s, srv)
	cc := tls.Client(c, cli)
	done := make(chan error, 1)
	go func() { done <- sc.Handshake() }()
	cerr := cc.Handshake()
	if cerr != nil {
		// Unblock the server before waiting for it.
		c.Close()
	}
	serr := <-done
	if cerr != nil {
		return false, cerr
	}
	if serr != nil {
		return false, serr
	}
	return cc.ConnectionState().DidResume, nil
}

func stdTLSHandshake(suite uint16, resume bool) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := stdTLSConfigs(suite, resume)
		if err != nil {
			return nil, err
		}
		if resumed, err := pipeHandshake(srv, cli); err != nil {
			return nil, err
		} else if resumed {
			return nil, errors.New("first handshake resumed")
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				resumed, err := pipeHandshake(srv, cli)
				if err != nil {
					fail(b, err)
				}
				if resumed != resume {
					failf(b, "resumed = %v, want %v", resumed, resume)
				}
			}
		}, nil
	}
}

// bulkBench sends bulkLen bytes per op from client to server over one
// connection established in setup; the server drains in a goroutine.
func bulkBench(client, server io.ReadWriter) benchFunc {
	chunk := make([]byte, 256*kib)
	rand.Read(chunk)
	return func(b *testing.B) {
		done := make(chan error, 1)
		go func() {
			var err error
			for i := 0; i < b.N && err == nil; i++ {
				_, err = io.CopyN(io.Discard, server, bulkLen)
			}
			done <- err
		}()
		for i := 0; i < b.N; i++ {
			for sent := 0; sent < bulkLen; sent += len(chunk) {
				if _, err := client.Write(chunk); err != nil {
					fail(b, err)
				}
			}
		}
		if err := <-done; err != nil {
			fail(b, err)
		}
	}
}

func stdTLSBulk(suite uint16) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := stdTLSConfigs(suite, false)
		if err != nil {
			return nil, err
		}
		c, s := net.Pipe()
		sc := tls.Server(s, srv)
		cc := tls.Client(c, cli)
		done := make(chan error, 1)
		go func() { done <- sc.Handshake() }()
		if err := cc.Handshake(); err != nil {
			c.Close()
			<-done
			return nil, err
		}
		if err := <-done; err != nil {
			return nil, err
		}
		// The connections live for the rest of the process.
		return bulkBench(cc, sc), nil
	}
}
