// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package smx509

import (
	"crypto"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// v1Certificate returns a version 1 certificate (no extensions, so no
// basicConstraints) for key, issued and correctly signed by parent: what
// CheckSignatureFrom accepts as an issuer, as crypto/x509 does, and only the
// chain builder's rule that intermediates are CAs refuses.
func v1Certificate(t *testing.T, cn string, key crypto.Signer, parent *Certificate, parentKey crypto.Signer) *Certificate {
	t.Helper()
	// The subject and public key encodings of a certificate made the
	// ordinary way.
	tmpl := caTemplate(cn)
	model := issue(t, tmpl, tmpl, key.Public(), key)
	sigAlg := func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier([]int{1, 2, 156, 10197, 1, 501}) // SM2 with SM3
		})
	}
	var tb cryptobyte.Builder
	tb.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		// No [0] version: v1.
		b.AddASN1BigInt(nextSerial())
		sigAlg(b)
		b.AddBytes(parent.RawSubject)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1UTCTime(testTime.AddDate(-1, 0, 0))
			b.AddASN1UTCTime(testTime.AddDate(1, 0, 0))
		})
		b.AddBytes(model.RawSubject)
		b.AddBytes(model.RawSubjectPublicKeyInfo)
	})
	tbs := tb.BytesOrPanic()
	sig, err := sm2.SignASN1(rand.Reader, parentKey.(*sm2.PrivateKey), tbs, nil)
	must(t, err)
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(tbs)
		sigAlg(b)
		b.AddASN1BitString(sig)
	})
	cert, err := ParseCertificate(b.BytesOrPanic())
	must(t, err)
	if cert.Version != 1 || cert.BasicConstraintsValid {
		t.Fatalf("made a version %d certificate, basicConstraints %v", cert.Version, cert.BasicConstraintsValid)
	}
	must(t, cert.CheckSignatureFrom(parent))
	return cert
}

// TestCheckSignatureFromNeedsCA: CheckSignatureFrom refuses, with
// ConstraintViolationError, a correctly signed certificate whose parent is
// not a CA (basicConstraints cA false, or a version 3 certificate with no
// basicConstraints) or has key usage without keyCertSign (RFC 5280
// §4.2.1.9, §4.2.1.3), each issuer allowed in every other respect.
func TestCheckSignatureFromNeedsCA(t *testing.T) {
	rootKey := testKey(t, kindSM2, "ca-rule-root")
	rt := caTemplate("CA Rule Root")
	root := issue(t, rt, rt, rootKey.Public(), rootKey)
	parentKey := testKey(t, kindSM2, "ca-rule-parent")
	for _, tc := range []struct {
		name string
		mod  func(*Certificate)
		ok   bool
	}{
		{"CA", func(*Certificate) {}, true},
		{"cA false", func(c *Certificate) { c.IsCA = false; c.MaxPathLen = 0 }, false},
		{"no basicConstraints", func(c *Certificate) { c.BasicConstraintsValid, c.IsCA, c.MaxPathLen = false, false, 0 }, false},
		{"CA without keyCertSign", func(c *Certificate) { c.KeyUsage = KeyUsageDigitalSignature | KeyUsageCRLSign }, false},
		{"CA without key usage", func(c *Certificate) { c.KeyUsage = 0 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt := caTemplate("CA Rule Parent " + tc.name)
			tc.mod(pt)
			parent := issue(t, pt, root, parentKey.Public(), rootKey)
			child := issue(t, leafTemplate("ca rule child", KeyUsageDigitalSignature), parent, testKey(t, kindSM2, "ca-rule-child").Public(), parentKey)
			err := child.CheckSignatureFrom(parent)
			if tc.ok {
				must(t, err)
				return
			}
			if !errors.As(err, new(ConstraintViolationError)) {
				t.Fatalf("CheckSignatureFrom = %v, want ConstraintViolationError", err)
			}
		})
	}
}

// TestVerifyNeedsCAIssuers: Verify builds no chain through an intermediate
// that is not a CA: a version 1 certificate, which CheckSignatureFrom
// accepts and only the chain builder refuses (NotAuthorizedToSign), and a
// version 3 certificate with keyCertSign but cA false or no
// basicConstraints. The same hierarchy with a CA intermediate verifies.
func TestVerifyNeedsCAIssuers(t *testing.T) {
	rootKey := testKey(t, kindSM2, "ca-rule-root")
	interKey := testKey(t, kindSM2, "ca-rule-inter")
	rt := caTemplate("CA Rule Root")
	root := issue(t, rt, rt, rootKey.Public(), rootKey)
	roots := NewCertPool()
	roots.AddCert(root)
	v3 := func(mod func(*Certificate)) *Certificate {
		it := caTemplate("CA Rule Intermediate")
		mod(it)
		return issue(t, it, root, interKey.Public(), rootKey)
	}
	verify := func(inter *Certificate) error {
		leaf := issue(t, leafTemplate("ca rule leaf", KeyUsageDigitalSignature), inter, testKey(t, kindSM2, "ca-rule-leaf").Public(), interKey)
		must(t, inter.CheckSignature(leaf.SignatureAlgorithm, leaf.RawTBSCertificate, leaf.Signature)) // signed by inter, whatever it is
		inters := NewCertPool()
		inters.AddCert(inter)
		_, err := leaf.Verify(VerifyOptions{Roots: roots, Intermediates: inters, CurrentTime: testTime})
		return err
	}

	must(t, verify(v3(func(*Certificate) {})))

	v1 := v1Certificate(t, "CA Rule Intermediate", interKey, root, rootKey)
	wantReason(t, verify(v1), NotAuthorizedToSign)

	for name, mod := range map[string]func(*Certificate){
		"cA false":            func(c *Certificate) { c.IsCA = false; c.MaxPathLen = 0 },
		"no basicConstraints": func(c *Certificate) { c.BasicConstraintsValid, c.IsCA, c.MaxPathLen = false, false, 0 },
	} {
		err := verify(v3(mod))
		if !errors.As(err, new(UnknownAuthorityError)) {
			t.Errorf("%s: Verify = %v, want UnknownAuthorityError", name, err)
		}
	}
}
