// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// TestClientCertificateSelection: with several pairs, the client answers a
// CertificateRequest with the first pair issued by a CA the server names,
// among the pairs the suite can use, and falls back to the first pair.
func TestClientCertificateSelection(t *testing.T) {
	p := getPKI(t)
	otherClient := makePair(t, "client2.test", smx509.ExtKeyUsageClientAuth, p.ca2, p.ca2Key)
	poolOf := func(certs ...*smx509.Certificate) *smx509.CertPool {
		pool := smx509.NewCertPool()
		for _, c := range certs {
			pool.AddCert(c)
		}
		return pool
	}
	tests := []struct {
		name      string
		suite     uint16
		pairs     []CertificatePair
		clientCAs *smx509.CertPool // the names the server sends
		auth      ClientAuthType
		want      *CertificatePair
	}{
		{"ECC second pair matches", ciphersuite.ECC_SM4_GCM_SM3, []CertificatePair{otherClient, p.client}, poolOf(p.ca), RequireAndVerifyClientCert, &p.client},
		{"ECC first pair matches", ciphersuite.ECC_SM4_GCM_SM3, []CertificatePair{otherClient, p.client}, poolOf(p.ca2), RequireAndVerifyClientCert, &otherClient},
		{"ECDHE second pair matches", ciphersuite.ECDHE_SM4_GCM_SM3, []CertificatePair{otherClient, p.client}, poolOf(p.ca), RequireAndVerifyClientCert, &p.client},
		// The sign-only pair matches the CA but cannot do ECDHE.
		{"ECDHE skips a pair without encryption key", ciphersuite.ECDHE_SM4_CBC_SM3, []CertificatePair{p.signOnly, p.client}, poolOf(p.ca), RequireAndVerifyClientCert, &p.client},
		{"ECDHE fallback skips a pair without encryption key", ciphersuite.ECDHE_SM4_CBC_SM3, []CertificatePair{p.signOnly, otherClient, p.client}, poolOf(p.ca2, p.ca), RequireAnyClientCert, &otherClient},
		{"ECC sign-only pair matches", ciphersuite.ECC_SM4_CBC_SM3, []CertificatePair{otherClient, p.signOnly}, poolOf(p.ca), RequireAndVerifyClientCert, &p.signOnly},
		// No CA names at all: the first pair.
		{"no names", ciphersuite.ECC_SM4_GCM_SM3, []CertificatePair{otherClient, p.client}, nil, RequireAnyClientCert, &otherClient},
		// Names that match nothing: the first pair, which the server
		// then judges itself.
		{"no match falls back to the first", ciphersuite.ECC_SM4_GCM_SM3, []CertificatePair{otherClient, p.signOnly}, poolOf(p.intermediate), RequestClientCert, &otherClient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scfg := testServerConfig(t)
			scfg.ClientCAs = tt.clientCAs
			scfg.ClientAuth = tt.auth
			ccfg := testClientConfig(t)
			ccfg.CipherSuites = []uint16{tt.suite}
			ccfg.Certificates = tt.pairs
			client, server, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			got := server.ConnectionState().PeerSignCertificate
			if got == nil || !got.Equal(tt.want.Sign.Leaf) {
				t.Fatalf("server received %v, want %v", got.Subject, tt.want.Sign.Leaf.Subject)
			}
			exchange(t, client, server, 10)
		})
	}
}

// TestSupportsCertificate covers the chain rules: a pair matches a CA that
// issued any certificate of its signing chain, or that the chain contains.
func TestSupportsCertificate(t *testing.T) {
	p := getPKI(t)
	inter := p.serverViaInter // leaf ← intermediate ← ca; chain holds both
	leafOnly := CertificatePair{Sign: Certificate{Certificate: inter.Sign.Certificate[:1], PrivateKey: inter.Sign.PrivateKey}}
	tests := []struct {
		name  string
		pair  *CertificatePair
		names [][]byte
		suite uint16
		ok    bool
	}{
		{"leaf issuer", &inter, [][]byte{p.intermediate.RawSubject}, ciphersuite.ECC_SM4_GCM_SM3, true},
		{"intermediate issuer", &inter, [][]byte{p.ca.RawSubject}, ciphersuite.ECC_SM4_GCM_SM3, true},
		{"leaf only, unparsed, issued by the intermediate", &leafOnly, [][]byte{p.intermediate.RawSubject}, ciphersuite.ECC_SM4_GCM_SM3, true},
		{"leaf only, root not in chain", &leafOnly, [][]byte{p.ca.RawSubject}, ciphersuite.ECC_SM4_GCM_SM3, false},
		{"other CA", &inter, [][]byte{p.ca2.RawSubject}, ciphersuite.ECC_SM4_GCM_SM3, false},
		{"any CA", &inter, nil, ciphersuite.ECDHE_SM4_GCM_SM3, true},
		{"ECDHE without encryption key", &p.signOnly, nil, ciphersuite.ECDHE_SM4_GCM_SM3, false},
		{"ECC without encryption key", &p.signOnly, [][]byte{p.ca.RawSubject}, ciphersuite.ECC_SM4_GCM_SM3, true},
		{"empty pair", &CertificatePair{}, nil, ciphersuite.ECC_SM4_GCM_SM3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := &CertificateRequestInfo{AcceptableCAs: tt.names, CipherSuite: tt.suite}
			if err := info.SupportsCertificate(tt.pair); (err == nil) != tt.ok {
				t.Fatalf("SupportsCertificate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// TestClientOffersECDHEWithLaterEncPair: ECDHE suites are offered when any
// pair, not only the first, has an encryption key.
func TestClientOffersECDHEWithLaterEncPair(t *testing.T) {
	p := getPKI(t)
	ccfg := testClientConfig(t)
	ccfg.Certificates = []CertificatePair{p.signOnly, p.client}
	ccfg.CipherSuites = []uint16{ciphersuite.ECDHE_SM4_GCM_SM3}
	client, server, cerr, serr := handshakePair(t, ccfg, testServerConfig(t))
	if cerr != nil || serr != nil {
		t.Fatalf("client %v, server %v", cerr, serr)
	}
	if got := server.ConnectionState().PeerEncCertificate; got == nil || !got.Equal(p.client.Enc.Leaf) {
		t.Fatal("server did not get the second pair's encryption certificate")
	}
	exchange(t, client, server, 10)
}
