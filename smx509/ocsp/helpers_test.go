// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509/pkix"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// testTime is inside every test certificate's validity.
var testTime = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

// testPKI is a CA with a leaf and responders, for one key type.
type testPKI struct {
	ca, leaf          *smx509.Certificate
	caKey             crypto.Signer
	responder, noEKU  *smx509.Certificate // delegated; noEKU lacks id-kp-OCSPSigning
	responderKey      crypto.Signer
	expiredResponder  *smx509.Certificate // delegated, valid only before testTime
	other             *smx509.Certificate // an unrelated CA
	otherKey          crypto.Signer
	otherResponder    *smx509.Certificate // delegated by other, with the EKU
	otherResponderKey crypto.Signer
}

var (
	pkiOnce sync.Once
	pkis    map[string]*testPKI
)

func newKey(t testing.TB, kind string) crypto.Signer {
	var k crypto.Signer
	var err error
	switch kind {
	case "sm2":
		k, err = sm2.GenerateKey(rand.Reader)
	case "ecdsa":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "rsa":
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil || k == nil {
		t.Fatalf("generating a %s key: %v", kind, err)
	}
	return k
}

var serial int64 = 100

func issueCert(t testing.TB, tmpl, parent *smx509.Certificate, pub crypto.PublicKey, key crypto.Signer) *smx509.Certificate {
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = testTime.AddDate(-1, 0, 0)
		tmpl.NotAfter = testTime.AddDate(1, 0, 0)
	}
	if parent == nil {
		parent = tmpl
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, pub, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := smx509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func caTemplate(name string) *smx509.Certificate {
	return &smx509.Certificate{
		Subject: pkix.Name{CommonName: name}, KeyUsage: smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true,
	}
}

func responderTemplate(name string, eku bool) *smx509.Certificate {
	c := &smx509.Certificate{Subject: pkix.Name{CommonName: name}, KeyUsage: smx509.KeyUsageDigitalSignature}
	if eku {
		c.ExtKeyUsage = []smx509.ExtKeyUsage{smx509.ExtKeyUsageOCSPSigning}
	}
	return c
}

func makePKI(t testing.TB, kind string) *testPKI {
	p := &testPKI{caKey: newKey(t, kind), responderKey: newKey(t, kind), otherKey: newKey(t, kind), otherResponderKey: newKey(t, kind)}
	p.ca = issueCert(t, caTemplate(kind+" CA"), nil, p.caKey.Public(), p.caKey)
	p.leaf = issueCert(t, &smx509.Certificate{Subject: pkix.Name{CommonName: kind + " leaf"}, KeyUsage: smx509.KeyUsageDigitalSignature}, p.ca, newKey(t, kind).Public(), p.caKey)
	p.responder = issueCert(t, responderTemplate(kind+" OCSP responder", true), p.ca, p.responderKey.Public(), p.caKey)
	p.noEKU = issueCert(t, responderTemplate(kind+" responder without EKU", false), p.ca, p.responderKey.Public(), p.caKey)
	old := responderTemplate(kind+" expired responder", true)
	old.NotBefore, old.NotAfter = testTime.AddDate(-2, 0, 0), testTime.AddDate(0, 0, -1)
	p.expiredResponder = issueCert(t, old, p.ca, p.responderKey.Public(), p.caKey)
	// The other CA has the same name as the real one: only keys tell
	// them apart, as with a forged or rolled-over CA.
	p.other = issueCert(t, caTemplate(kind+" CA"), nil, p.otherKey.Public(), p.otherKey)
	p.otherResponder = issueCert(t, responderTemplate(kind+" OCSP responder", true), p.other, p.otherResponderKey.Public(), p.otherKey)
	return p
}

// pkiFor returns the shared test PKI of a key type: "sm2", "ecdsa", "rsa".
func pkiFor(t testing.TB, kind string) *testPKI {
	pkiOnce.Do(func() {
		pkis = map[string]*testPKI{}
		for _, k := range []string{"sm2", "ecdsa", "rsa"} {
			pkis[k] = makePKI(t, k)
		}
	})
	return pkis[kind]
}

// goodTemplate is a response template about p.leaf valid at testTime.
func goodTemplate(p *testPKI) Response {
	return Response{
		Status:       Good,
		SerialNumber: p.leaf.SerialNumber,
		ProducedAt:   testTime.Add(-time.Minute),
		ThisUpdate:   testTime.Add(-time.Hour),
		NextUpdate:   testTime.Add(time.Hour),
	}
}

func mustCreate(t testing.TB, issuer, responder *smx509.Certificate, tmpl Response, key crypto.Signer) []byte {
	t.Helper()
	der, err := CreateResponse(issuer, responder, tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func sm2VerifyDefaultID(c *smx509.Certificate, msg, sig []byte) bool {
	pub, ok := c.PublicKey.(*sm2.PublicKey)
	return ok && sm2.VerifyASN1(pub, msg, nil, sig)
}
