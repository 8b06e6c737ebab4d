// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/tls"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

// A stack is one library in one configuration, for the groups that open
// many connections (memory, scaling): it makes the server and client ends
// of a connection over any net.Conn.
type stack struct {
	name string
	mk   func() (*side, error)
}

// connStacks are the stacks of the memory and scaling groups. gotlcp.go
// (build tag gotlcp) appends gotlcp's.
var connStacks = []stack{
	{"TLCP ECC_SM4_GCM_SM3 (ours)", func() (*side, error) { return concurrentTLCP(ciphersuite.ECC_SM4_GCM_SM3, false) }},
	{"TLCP ECDHE_SM4_GCM_SM3 (ours)", func() (*side, error) { return concurrentTLCP(ciphersuite.ECDHE_SM4_GCM_SM3, false) }},
	{"TLS 1.3 TLS_SM4_GCM_SM3 curveSM2 (ours)", func() (*side, error) { return concurrentTLS13Ours(ciphersuite.TLS_SM4_GCM_SM3) }},
	{"crypto/tls TLS 1.3 AES-128-GCM P-256", concurrentTLS13Std},
	{"crypto/tls TLS 1.2 ECDHE-ECDSA-AES128-GCM P-256", func() (*side, error) {
		return concurrentTLS(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, false)
	}},
}

// concurrentTLS13Ours is concurrentTLCP for a TLS 1.3 suite on curveSM2,
// no tickets.
func concurrentTLS13Ours(suite uint16) (*side, error) {
	srv, cli, err := tls13Configs(suite, false)
	if err != nil {
		return nil, err
	}
	return tlcpSide(srv, []*tlcp.Config{cli}), nil
}

// concurrentTLS13Std is crypto/tls TLS 1.3 on P-256, no tickets.
func concurrentTLS13Std() (*side, error) {
	srv, cli, err := stdTLS13Configs(false)
	if err != nil {
		return nil, err
	}
	return tlsSide(srv, []*tls.Config{cli}), nil
}
