// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/tls"
	"errors"
	"net"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

// The tls13 group: TLS 1.3 with the RFC 8998 suites. Handshakes are
// compared with crypto/tls TLS 1.3 on P-256 (ECDSA certificates, P-256 key
// share, AES-128-GCM), bulk transfer with this project's own TLCP GCM suite
// (issue 18's goals: handshakes ≥ 1.0× crypto/tls, bulk within 10% of TLCP
// GCM) and, for scale, with crypto/tls TLS 1.3 AES-128-GCM.

func init() {
	register(&group{
		name:  "tls13",
		cols:  []string{"ours", "baseline", "crypto/tls"},
		ratio: "ours/baseline",
		note: "baseline: crypto/tls TLS 1.3 (ECDSA P-256 certificate + intermediate, P-256 key share, TLS_AES_128_GCM_SHA256) for the handshake rows;\n" +
			"TLCP ECC_SM4_GCM_SM3 over package tlcp for the bulk rows, whose third column is crypto/tls TLS 1.3 AES-128-GCM. Client and server in this process\n" +
			"over net.Pipe (both ends' CPU counted), the client verifies chain and name, no client certificate; full handshakes send no tickets on either\n" +
			"side; resumed: one ticket, PSK with (EC)DHE (psk_dhe_ke) on both sides. bulk: 64 MiB client→server on one connection in 256 KiB writes.\n" +
			"crypto/tls as a user would set it for this comparison: tls.Config{MinVersion: VersionTLS13, CurvePreferences: []CurveID{CurveP256}}, an ECDSA\n" +
			"P-256 certificate; it then negotiates TLS_AES_128_GCM_SHA256 (TLS 1.3 suites are not configurable), ECDSA-P256-SHA256 signatures. With no\n" +
			"CurvePreferences it would choose X25519MLKEM768 (the pq group). Connections are closed by closing the transport (no close_notify) on both sides.\n" +
			"A/A: crypto/tls against itself, two separate configurations: its ratio range is the noise of a handshake row on this machine.",
		rows: []*row{
			{name: "full handshake TLS_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{tls13Handshake(ciphersuite.TLS_SM4_GCM_SM3, false), stdTLS13Handshake(false)}},
			{name: "full handshake TLS_SM4_CCM_SM3", unit: opsPerSec,
				impls: []setupFunc{tls13Handshake(ciphersuite.TLS_SM4_CCM_SM3, false), stdTLS13Handshake(false)}},
			{name: "resumed handshake TLS_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{tls13Handshake(ciphersuite.TLS_SM4_GCM_SM3, true), stdTLS13Handshake(true)}},
			{name: "A/A: full handshake, crypto/tls TLS 1.3 in both columns", unit: opsPerSec,
				impls: []setupFunc{stdTLS13Handshake(false), stdTLS13Handshake(false)}},
			{name: "bulk 64 MiB TLS_SM4_GCM_SM3", unit: mbPerSec, bytes: bulkLen,
				impls: []setupFunc{tls13Bulk(ciphersuite.TLS_SM4_GCM_SM3), tlcpBulk(ciphersuite.ECC_SM4_GCM_SM3), stdTLS13Bulk()}},
			{name: "bulk 64 MiB TLS_SM4_CCM_SM3", unit: mbPerSec, bytes: bulkLen,
				impls: []setupFunc{tls13Bulk(ciphersuite.TLS_SM4_CCM_SM3), tlcpBulk(ciphersuite.ECC_SM4_GCM_SM3), stdTLS13Bulk()}},
		},
	})
}

// tls13Configs are tlcpConfigs for a TLS 1.3 suite: naming it is enough
// for the client to speak TLS 1.3. Full handshakes send no tickets. The
// tls13 rows keep to curveSM2, which their crypto/tls baseline (P-256)
// matches; the pq group's rows set the hybrid.
func tls13Configs(suite uint16, resume bool) (srv, cli *tlcp.Config, err error) {
	return tls13GroupConfigs(suite, []tlcp.CurveID{tlcp.CurveSM2}, resume)
}

// tls13GroupConfigs is tls13Configs with groups as both sides'
// CurvePreferences (nil: the defaults).
func tls13GroupConfigs(suite uint16, groups []tlcp.CurveID, resume bool) (srv, cli *tlcp.Config, err error) {
	srv, cli, err = tlcpConfigs(suite, resume)
	if err != nil {
		return nil, nil, err
	}
	srv.SessionTicketsDisabled = !resume
	cli.MinVersion, cli.MaxVersion = tlcp.VersionTLS13, tlcp.VersionTLS13
	srv.CurvePreferences, cli.CurvePreferences = groups, groups
	return srv, cli, nil
}

func tls13Handshake(suite uint16, resume bool) setupFunc {
	return tls13GroupHandshake(suite, []tlcp.CurveID{tlcp.CurveSM2}, tlcp.CurveSM2, resume)
}

// tls13GroupHandshake measures handshakes with groups as both sides'
// CurvePreferences, checking that they agree on group.
func tls13GroupHandshake(suite uint16, groups []tlcp.CurveID, group tlcp.CurveID, resume bool) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := tls13GroupConfigs(suite, groups, resume)
		if err != nil {
			return nil, err
		}
		once := func() (bool, error) {
			cc, sc, err := tlcpPipe(srv, cli)
			if err != nil {
				return false, err
			}
			st := cc.ConnectionState()
			if st.Version != tlcp.VersionTLS13 || st.CipherSuite != suite || st.CurveID != group {
				return false, errors.New("negotiated " + tlcp.CipherSuiteName(st.CipherSuite) + " on " + st.CurveID.String())
			}
			if resume {
				// Take in the ticket, sent after the server's Finished.
				go sc.Write([]byte{0})
				if _, err := cc.Read(make([]byte, 1)); err != nil {
					return false, err
				}
			}
			cc.NetConn().Close()
			sc.NetConn().Close()
			return st.DidResume, nil
		}
		if resumed, err := once(); err != nil {
			return nil, err
		} else if resumed {
			return nil, errors.New("first handshake resumed")
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				resumed, err := once()
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

func tls13Bulk(suite uint16) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := tls13Configs(suite, false)
		if err != nil {
			return nil, err
		}
		cc, sc, err := tlcpPipe(srv, cli)
		if err != nil {
			return nil, err
		}
		if st := cc.ConnectionState(); st.Version != tlcp.VersionTLS13 || st.CipherSuite != suite {
			return nil, errors.New("negotiated " + tlcp.CipherSuiteName(st.CipherSuite))
		}
		// The connection lives for the rest of the process.
		return bulkBench(cc, sc), nil
	}
}

// stdTLS13Configs is stdTLSConfigs for TLS 1.3 (on P-256).
func stdTLS13Configs(resume bool) (srv, cli *tls.Config, err error) {
	return stdTLS13GroupConfigs([]tls.CurveID{tls.CurveP256}, resume)
}

// stdTLS13GroupConfigs is stdTLS13Configs with groups as both sides'
// CurvePreferences (nil: crypto/tls's defaults, X25519MLKEM768 first).
func stdTLS13GroupConfigs(groups []tls.CurveID, resume bool) (srv, cli *tls.Config, err error) {
	srv, cli, err = stdTLSConfigs(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, resume)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range []*tls.Config{srv, cli} {
		c.MinVersion, c.MaxVersion = tls.VersionTLS13, tls.VersionTLS13
		c.CipherSuites = nil // not configurable in TLS 1.3
		c.CurvePreferences = groups
	}
	return srv, cli, nil
}

func stdTLS13Handshake(resume bool) setupFunc {
	return stdTLS13GroupHandshake([]tls.CurveID{tls.CurveP256}, tls.CurveP256, resume)
}

// stdTLS13GroupHandshake is tls13GroupHandshake for crypto/tls.
func stdTLS13GroupHandshake(groups []tls.CurveID, group tls.CurveID, resume bool) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := stdTLS13GroupConfigs(groups, resume)
		if err != nil {
			return nil, err
		}
		once := func() (bool, error) {
			cc, sc, err := stdPipe(srv, cli)
			if err != nil {
				return false, err
			}
			// Close the transports, as the tlcp harness does: tls.Conn.Close
			// would send close_notify, a write that net.Pipe holds until the
			// peer reads it, and nobody reads here, so Close would sit out
			// its five-second write deadline (each handshake then took 5 s
			// of wall time and the CPU clock saw one handshake a run).
			defer cc.NetConn().Close()
			defer sc.NetConn().Close()
			if g := cc.ConnectionState().CurveID; g != group {
				return false, errors.New("crypto/tls negotiated " + g.String())
			}
			if resume {
				// A TLS 1.3 client takes in the ticket when it reads,
				// in crypto/tls as in ours.
				go sc.Write([]byte{0})
				if _, err := cc.Read(make([]byte, 1)); err != nil {
					return false, err
				}
			}
			return cc.ConnectionState().DidResume, nil
		}
		if resumed, err := once(); err != nil {
			return nil, err
		} else if resumed {
			return nil, errors.New("first handshake resumed")
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				resumed, err := once()
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

// stdPipe connects a crypto/tls client and server over net.Pipe and
// handshakes.
func stdPipe(srv, cli *tls.Config) (cc, sc *tls.Conn, err error) {
	c, s := net.Pipe()
	sc, cc = tls.Server(s, srv), tls.Client(c, cli)
	done := make(chan error, 1)
	go func() { done <- sc.Handshake() }()
	cerr := cc.Handshake()
	if cerr != nil {
		c.Close()
	}
	serr := <-done
	if cerr == nil {
		cerr = serr
	}
	if cerr != nil {
		c.Close()
		s.Close()
		return nil, nil, cerr
	}
	return cc, sc, nil
}

func stdTLS13Bulk() setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := stdTLS13Configs(false)
		if err != nil {
			return nil, err
		}
		cc, sc, err := stdPipe(srv, cli)
		if err != nil {
			return nil, err
		}
		if st := cc.ConnectionState(); st.CipherSuite != tls.TLS_AES_128_GCM_SHA256 {
			return nil, errors.New("crypto/tls negotiated " + tls.CipherSuiteName(st.CipherSuite))
		}
		return bulkBench(cc, sc), nil
	}
}
