// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build gotlcp

// gotlcp (gitee.com/Trisia/gotlcp) is not served by the Go module proxy,
// so it cannot be in this module's go.mod, which CI builds from the
// registries. gotlcp.sh builds the bench with this file (build tag
// gotlcp) against a gotlcp checkout, through a replace in a copy of
// go.mod: gotlcp then joins the memory and scaling groups.

package main

import (
	"io"
	"net"
	"time"

	gotlcp "gitee.com/Trisia/gotlcp/tlcp"
	gmsm2 "github.com/emmansun/gmsm/sm2"
	gmx509 "github.com/emmansun/gmsm/smx509"
)

func init() {
	connStacks = append(connStacks, stack{"gotlcp TLCP ECC_SM4_GCM_SM3", gotlcpSide})
}

// gotlcpSide is gotlcp in the configuration of concurrentTLCP for
// ECC_SM4_GCM_SM3: the same SM2 PKI, no client certificate, no session
// cache.
func gotlcpSide() (*side, error) {
	ch, err := sm2Chain()
	if err != nil {
		return nil, err
	}
	cert := func(leaf, key []byte) (gotlcp.Certificate, error) {
		k, err := gmsm2.NewPrivateKey(key)
		if err != nil {
			return gotlcp.Certificate{}, err
		}
		return gotlcp.Certificate{Certificate: [][]byte{leaf, ch.inter}, PrivateKey: k}, nil
	}
	sign, err := cert(ch.leaf, ch.leafKey)
	if err != nil {
		return nil, err
	}
	enc, err := cert(ch.serverEnc, ch.serverEncKey)
	if err != nil {
		return nil, err
	}
	root, err := gmx509.ParseCertificate(ch.root)
	if err != nil {
		return nil, err
	}
	pool := gmx509.NewCertPool()
	pool.AddCert(root)
	now := func() time.Time { return certTime }
	srv := &gotlcp.Config{
		Certificates: []gotlcp.Certificate{sign, enc},
		CipherSuites: []uint16{gotlcp.ECC_SM4_GCM_SM3},
		Time:         now,
	}
	cli := &gotlcp.Config{
		RootCAs:      pool,
		ServerName:   certDNSName,
		CipherSuites: []uint16{gotlcp.ECC_SM4_GCM_SM3},
		Time:         now,
	}
	return &side{
		server: func(c net.Conn) interface {
			Handshake() error
			io.ReadWriteCloser
		} {
			return gotlcp.Server(c, srv)
		},
		client: func(_ int, c net.Conn) interface {
			Handshake() error
			io.ReadWriteCloser
			didResume() bool
		} {
			return gotlcpClientConn{gotlcp.Client(c, cli)}
		},
	}, nil
}

type gotlcpClientConn struct{ *gotlcp.Conn }

func (c gotlcpClientConn) didResume() bool { return c.ConnectionState().DidResume }
