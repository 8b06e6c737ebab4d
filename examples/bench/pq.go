// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bytes"
	"crypto/mlkem"
	"crypto/tls"
	"errors"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

// The pq group: TLS 1.3 handshakes on the post-quantum hybrids with both
// sides' default groups: ours (curveSM2MLKEM768, with a curveSM2 share
// beside it, TLS_SM4_GCM_SM3, SM2 certificates) against crypto/tls's
// (X25519MLKEM768 with X25519 beside it, TLS_AES_128_GCM_SHA256, ECDSA
// P-256 certificates), and against our own curveSM2-only handshake (issue
// 26's goals: ≥ 1.0× crypto/tls, ≥ 0.8× curveSM2, allocations ≤ 0.5×
// crypto/tls's). Two rows bound the second goal: the standard library's
// ML-KEM-768 work of one handshake against our curveSM2 handshake, and
// crypto/tls's own hybrid against its X25519.

func init() {
	sm2Only := []tlcp.CurveID{tlcp.CurveSM2}
	register(&group{
		name:  "pq",
		cols:  []string{"ours", "baseline"},
		ratio: "ours/baseline",
		note: "ours: TLS 1.3 TLS_SM4_GCM_SM3, both sides' default groups (curveSM2MLKEM768 chosen); baseline: what the row names, crypto/tls TLS 1.3 with its\n" +
			"defaults (ECDSA P-256 certificate + intermediate, X25519MLKEM768 chosen, TLS_AES_128_GCM_SHA256) or this package on curveSM2 alone. The tls13\n" +
			"group's harness: net.Pipe, both ends' CPU, the client verifies chain and name; full handshakes send no tickets; resumed: one ticket, psk_dhe_ke.\n" +
			"ML-KEM row: crypto/mlkem's work in one hybrid handshake (key from seed, parse + encapsulate, decapsulate) in ops/s, against the curveSM2 handshake;\n" +
			"with R its ratio, no hybrid handshake built on crypto/mlkem can exceed R/(1+R) of the curveSM2 one.",
		rows: []*row{
			{name: "full handshake / crypto/tls X25519MLKEM768", unit: opsPerSec,
				impls: []setupFunc{tls13GroupHandshake(ciphersuite.TLS_SM4_GCM_SM3, nil, tlcp.CurveSM2MLKEM768, false), stdTLS13GroupHandshake(nil, tls.X25519MLKEM768, false)}},
			{name: "full handshake / ours curveSM2", unit: opsPerSec,
				impls: []setupFunc{tls13GroupHandshake(ciphersuite.TLS_SM4_GCM_SM3, nil, tlcp.CurveSM2MLKEM768, false), tls13GroupHandshake(ciphersuite.TLS_SM4_GCM_SM3, sm2Only, tlcp.CurveSM2, false)}},
			{name: "resumed handshake / crypto/tls X25519MLKEM768", unit: opsPerSec,
				impls: []setupFunc{tls13GroupHandshake(ciphersuite.TLS_SM4_GCM_SM3, nil, tlcp.CurveSM2MLKEM768, true), stdTLS13GroupHandshake(nil, tls.X25519MLKEM768, true)}},
			{name: "ML-KEM-768 of a handshake / ours curveSM2 handshake", unit: opsPerSec,
				impls: []setupFunc{mlkemHandshakeWork, tls13GroupHandshake(ciphersuite.TLS_SM4_GCM_SM3, sm2Only, tlcp.CurveSM2, false)}},
			{name: "crypto/tls X25519MLKEM768 / crypto/tls X25519", unit: opsPerSec,
				impls: []setupFunc{stdTLS13GroupHandshake(nil, tls.X25519MLKEM768, false), stdTLS13GroupHandshake([]tls.CurveID{tls.X25519}, tls.X25519, false)}},
		},
	})
}

// mlkemHandshakeWork is the ML-KEM-768 part of one hybrid handshake, as
// package tlcp does it with crypto/mlkem: the client's key from a seed,
// the server's parse of the encapsulation key (with its modulus check)
// and encapsulation, the client's decapsulation.
func mlkemHandshakeWork() (benchFunc, error) {
	seed := make([]byte, mlkem.SeedSize)
	once := func() error {
		dk, err := mlkem.NewDecapsulationKey768(seed)
		if err != nil {
			return err
		}
		ek, err := mlkem.NewEncapsulationKey768(dk.EncapsulationKey().Bytes())
		if err != nil {
			return err
		}
		ss, ct := ek.Encapsulate()
		got, err := dk.Decapsulate(ct)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, ss) {
			return errors.New("ML-KEM-768: decapsulation disagrees")
		}
		return nil
	}
	if err := once(); err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			seed[0] = byte(i)
			if err := once(); err != nil {
				fail(b, err)
			}
		}
	}, nil
}
