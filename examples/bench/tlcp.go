// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/tls"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// The tlcp group: whole handshakes (client and server in this process over
// net.Pipe, both sides' work and allocations counted) and bulk transfer over
// one established connection, beside crypto/tls TLS 1.2 with P-256 ECDSA.

func init() {
	const (
		tlsGCM    = tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
		tlsCBC    = tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256
		tlsChaCha = tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
	)
	register(&group{
		name:  "tlcp",
		cols:  []string{"ours", "crypto/tls"},
		ratio: "ours/tls",
		note: "handshakes: client + server over net.Pipe in one process, server sends sign+enc certificates with the intermediate, client verifies the chain and name;\n" +
			"ECDHE_SM4_GCM_SM3 also sends the client's certificate pair (the SM2 key exchange needs it). crypto/tls: TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256, P-256,\n" +
			"no client certificate; resumed: TLCP session ID cache vs TLS 1.2 session tickets. bulk: 64 MiB client→server on one connection, in 256 KiB writes\n" +
			"(both ends run in this process, so each byte is sealed and opened: compare with the records group's seal+open, not with one of them);\n" +
			"crypto/tls suite for the CBC row: ECDHE-ECDSA-AES128-CBC-SHA256, for the ZUC row: ECDHE-ECDSA-CHACHA20-POLY1305 (the stream cipher analogue);\n" +
			"64 clients: one server on loopback TCP, 64 client goroutines (GOMAXPROCS = cores) dialling, handshaking and closing in a loop (resumed: each client its own session cache),\n" +
			"or 64 established connections all sending 1 MiB at once; crypto/tls in the same shape.\n" +
			"A/A: the same stack in both columns, two separate configurations: its ratio range is the noise of a handshake row on this machine.\n" +
			"Connections are closed by closing the transport on both ends (no close_notify), the same for every stack.",
		rows: []*row{
			{name: "full handshake ECC_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{tlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, false), stdTLSHandshake(tlsGCM, false)}},
			{name: "full handshake ECDHE_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{tlcpHandshake(ciphersuite.ECDHE_SM4_GCM_SM3, false), stdTLSHandshake(tlsGCM, false)}},
			{name: "resumed handshake ECC_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{tlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, true), stdTLSHandshake(tlsGCM, true)}},
			{name: "bulk 64 MiB ECC_SM4_GCM_SM3", unit: mbPerSec, bytes: bulkLen,
				impls: []setupFunc{tlcpBulk(ciphersuite.ECC_SM4_GCM_SM3), stdTLSBulk(tlsGCM)}},
			{name: "bulk 64 MiB ECDHE_SM4_GCM_SM3", unit: mbPerSec, bytes: bulkLen,
				impls: []setupFunc{tlcpBulk(ciphersuite.ECDHE_SM4_GCM_SM3), stdTLSBulk(tlsGCM)}},
			{name: "bulk 64 MiB ECC_SM4_CBC_SM3", unit: mbPerSec, bytes: bulkLen,
				impls: []setupFunc{tlcpBulk(ciphersuite.ECC_SM4_CBC_SM3), stdTLSBulk(tlsCBC)}},
			{name: "bulk 64 MiB ECC_ZUC128_SM3", unit: mbPerSec, bytes: bulkLen,
				impls: []setupFunc{tlcpBulk(ciphersuite.ECC_ZUC128_SM3), stdTLSBulk(tlsChaCha)}},
			{name: "A/A: full handshake ECC_SM4_GCM_SM3, ours in both columns", unit: opsPerSec,
				impls: []setupFunc{tlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, false), tlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, false)}},
			{name: "64 clients: full handshakes ECC_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{concurrentHandshakes(concurrentTLCP, ciphersuite.ECC_SM4_GCM_SM3, false), concurrentHandshakes(concurrentTLS, tlsGCM, false)}},
			{name: "64 clients: resumed handshakes ECC_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{concurrentHandshakes(concurrentTLCP, ciphersuite.ECC_SM4_GCM_SM3, true), concurrentHandshakes(concurrentTLS, tlsGCM, true)}},
			{name: "64 clients: bulk 64 x 1 MiB ECC_SM4_GCM_SM3", unit: mbPerSec, bytes: concurrentClients * concurrentBulk,
				impls: []setupFunc{concurrentBulkRow(concurrentTLCP, ciphersuite.ECC_SM4_GCM_SM3), concurrentBulkRow(concurrentTLS, tlsGCM)}},
		},
	})
}

// tlcpConfigs builds a server and a client config for one suite over the
// SM2 PKI of sm2Chain.
func tlcpConfigs(suite uint16, resume bool) (srv, cli *tlcp.Config, err error) {
	ch, err := sm2Chain()
	if err != nil {
		return nil, nil, err
	}
	half := func(leaf, key []byte) (tlcp.Certificate, error) {
		k, err := sm2.NewPrivateKey(key)
		if err != nil {
			return tlcp.Certificate{}, err
		}
		return tlcp.Certificate{Certificate: [][]byte{leaf, ch.inter}, PrivateKey: k}, nil
	}
	pair := func(signLeaf, signKey, encLeaf, encKey []byte) (tlcp.CertificatePair, error) {
		s, err := half(signLeaf, signKey)
		if err != nil {
			return tlcp.CertificatePair{}, err
		}
		e, err := half(encLeaf, encKey)
		return tlcp.CertificatePair{Sign: s, Enc: e}, err
	}
	serverPair, err := pair(ch.leaf, ch.leafKey, ch.serverEnc, ch.serverEncKey)
	if err != nil {
		return nil, nil, err
	}
	root, err := smx509.ParseCertificate(ch.root)
	if err != nil {
		return nil, nil, err
	}
	pool := smx509.NewCertPool()
	pool.AddCert(root)
	srv = &tlcp.Config{
		Certificates: []tlcp.CertificatePair{serverPair},
		CipherSuites: []uint16{suite},
		ClientCAs:    pool,
		Time:         func() time.Time { return certTime },
	}
	cli = &tlcp.Config{
		RootCAs:      pool,
		ServerName:   certDNSName,
		CipherSuites: []uint16{suite},
		Time:         func() time.Time { return certTime },
	}
	if !resume {
		srv.SessionCacheSize = -1
	} else {
		cli.ClientSessionCache = tlcp.NewLRUClientSessionCache(8)
	}
	if s := ciphersuite.Lookup(suite); s != nil && s.KeyExchange == ciphersuite.KeyExchangeECDHE {
		clientPair, err := pair(ch.clientSign, ch.clientSignKey, ch.clientEnc, ch.clientEncKey)
		if err != nil {
			return nil, nil, err
		}
		cli.Certificates = []tlcp.CertificatePair{clientPair}
	}
	return srv, cli, nil
}

// tlcpPipe connects a client and a server over net.Pipe and handshakes.
func tlcpPipe(srv, cli *tlcp.Config) (cc, sc *tlcp.Conn, err error) {
	c, s := net.Pipe()
	sc = tlcp.Server(s, srv)
	cc = tlcp.Client(c, cli)
	done := make(chan error, 1)
	go func() { done <- sc.Handshake() }()
	cerr := cc.Handshake()
	if cerr != nil {
		c.Close()
	}
	serr := <-done
	if cerr == nil && serr != nil {
		cerr = serr
	}
	if cerr != nil {
		c.Close()
		s.Close()
		return nil, nil, cerr
	}
	return cc, sc, nil
}

func tlcpHandshakeOnce(srv, cli *tlcp.Config) (resumed bool, err error) {
	cc, sc, err := tlcpPipe(srv, cli)
	if err != nil {
		return false, err
	}
	resumed = cc.ConnectionState().DidResume
	cc.NetConn().Close()
	sc.NetConn().Close()
	return resumed, nil
}

func tlcpHandshake(suite uint16, resume bool) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := tlcpConfigs(suite, resume)
		if err != nil {
			return nil, err
		}
		if resumed, err := tlcpHandshakeOnce(srv, cli); err != nil {
			return nil, err
		} else if resumed {
			return nil, errors.New("first handshake resumed")
		}
		if resume {
			if resumed, err := tlcpHandshakeOnce(srv, cli); err != nil {
				return nil, err
			} else if !resumed {
				return nil, errors.New("second handshake did not resume")
			}
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				resumed, err := tlcpHandshakeOnce(srv, cli)
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

func tlcpBulk(suite uint16) setupFunc {
	return func() (benchFunc, error) {
		if s, err := ciphersuite.Get(suite); err != nil {
			return nil, err
		} else if !s.Supported {
			return nil, errors.New(s.Name + " not supported")
		}
		srv, cli, err := tlcpConfigs(suite, false)
		if err != nil {
			return nil, err
		}
		cc, sc, err := tlcpPipe(srv, cli)
		if err != nil {
			return nil, err
		}
		if got := cc.ConnectionState().CipherSuite; got != suite {
			return nil, errors.New("negotiated " + ciphersuite.Name(got))
		}
		// The connection lives for the rest of the process.
		return bulkBench(cc, sc), nil
	}
}
