// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// testPKI is a CA with double certificates for a server and a client, made
// once per test binary.
type testPKI struct {
	ca, ca2         *smx509.Certificate
	caKey, ca2Key   *sm2.PrivateKey
	roots           *smx509.CertPool
	server, client  CertificatePair
	serverOtherCA   CertificatePair // issued by ca2
	signOnly        CertificatePair // client with no encryption pair
	intermediate    *smx509.Certificate
	serverViaInter  CertificatePair // issued by an intermediate under ca
	intermediateKey *sm2.PrivateKey
}

var (
	pkiOnce sync.Once
	pki     *testPKI
)

var serial int64

func mustIssue(t testing.TB, tmpl *smx509.Certificate, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey) {
	t.Helper()
	key, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = time.Now().Add(-time.Hour)
		tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := smx509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func makeCA(t testing.TB, name string) (*smx509.Certificate, *sm2.PrivateKey) {
	return mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: name},
		KeyUsage:              smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, nil, nil)
}

// makePair issues a signing and an encryption certificate for one entity.
func makePair(t testing.TB, cn string, eku smx509.ExtKeyUsage, ca *smx509.Certificate, caKey *sm2.PrivateKey, chain ...*smx509.Certificate) CertificatePair {
	leaf := func(ku smx509.KeyUsage) Certificate {
		cert, key := mustIssue(t, &smx509.Certificate{
			Subject:               pkix.Name{CommonName: cn},
			DNSNames:              []string{cn},
			IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
			KeyUsage:              ku,
			ExtKeyUsage:           []smx509.ExtKeyUsage{eku},
			BasicConstraintsValid: true,
		}, ca, caKey)
		c := Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
		for _, ch := range chain {
			c.Certificate = append(c.Certificate, ch.Raw)
		}
		return c
	}
	return CertificatePair{
		Sign: leaf(smx509.KeyUsageDigitalSignature),
		Enc:  leaf(smx509.KeyUsageKeyEncipherment | smx509.KeyUsageKeyAgreement | smx509.KeyUsageDataEncipherment),
	}
}

func getPKI(t testing.TB) *testPKI {
	t.Helper()
	pkiOnce.Do(func() {
		p := new(testPKI)
		p.ca, p.caKey = makeCA(t, "TLCP Test Root")
		p.ca2, p.ca2Key = makeCA(t, "Other Root")
		p.roots = smx509.NewCertPool()
		p.roots.AddCert(p.ca)
		p.server = makePair(t, "tlcp.test", smx509.ExtKeyUsageServerAuth, p.ca, p.caKey)
		p.client = makePair(t, "client.test", smx509.ExtKeyUsageClientAuth, p.ca, p.caKey)
		p.serverOtherCA = makePair(t, "tlcp.test", smx509.ExtKeyUsageServerAuth, p.ca2, p.ca2Key)
		p.signOnly = CertificatePair{Sign: makePair(t, "signonly.test", smx509.ExtKeyUsageClientAuth, p.ca, p.caKey).Sign}
		p.intermediate, p.intermediateKey = mustIssue(t, &smx509.Certificate{
			Subject:               pkix.Name{CommonName: "TLCP Test Intermediate"},
			KeyUsage:              smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign,
			BasicConstraintsValid: true,
			IsCA:                  true,
		}, p.ca, p.caKey)
		// The chain includes the root: it must never be sent.
		p.serverViaInter = makePair(t, "tlcp.test", smx509.ExtKeyUsageServerAuth, p.intermediate, p.intermediateKey, p.intermediate, p.ca)
		pki = p
	})
	if pki == nil {
		t.Fatal("test PKI setup failed")
	}
	return pki
}

func testServerConfig(t testing.TB) *Config {
	p := getPKI(t)
	return &Config{
		Certificates: []CertificatePair{p.server},
		ClientCAs:    p.roots,
	}
}

func testClientConfig(t testing.TB) *Config {
	p := getPKI(t)
	return &Config{
		Certificates: []CertificatePair{p.client},
		RootCAs:      p.roots,
		ServerName:   "tlcp.test",
	}
}
