// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bytes"
	"testing"

	"github.com/emmansun/gmsm/pkcs"
	gmpkcs7 "github.com/emmansun/gmsm/pkcs7"
	gmx509 "github.com/emmansun/gmsm/smx509"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/pkcs7"
	"github.com/shangmi-go/shangmi/x509"
)

// TestCMSWithGmsm checks that the messages the cms rows time are read by
// the other library: gmsm's signatures and envelopes (SM4-CBC and SM4-GCM)
// by ours, ours (both identifier families) by gmsm.
func TestCMSWithGmsm(t *testing.T) {
	p, err := newCMSPKI()
	if err != nil {
		t.Fatal(err)
	}
	content := []byte("between shangmi and gmsm")
	roots := smx509.NewCertPool()
	roots.AddCert(p.root)
	opts := pkcs7.VerifyOptions{Roots: roots, CurrentTime: certTime}
	gmRoots := gmx509.NewCertPool()
	gmRoots.AddCert(p.gmRoot)
	at := certTime

	theirs, err := p.gmsmSign(content, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := pkcs7.Parse(theirs)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Signed.Verify(opts); err != nil {
		t.Errorf("gmsm's SignedData: %v", err)
	}

	for _, f := range []pkcs7.Family{pkcs7.GMT0010, pkcs7.PKCS7} {
		// gmsm reads the signature algorithm sm2-1 only.
		ours, err := pkcs7.Sign(content, p.oursSigner(), &pkcs7.SignOptions{Family: f, Certificates: []*smx509.Certificate{p.inter},
			SignatureAlgorithm: x509.OIDSM2Signing})
		if err != nil {
			t.Fatal(err)
		}
		p7, err := gmpkcs7.Parse(ours)
		if err != nil {
			t.Fatalf("%v: gmsm cannot parse our SignedData: %v", f, err)
		}
		if err := p7.VerifyWithChainAtTime(gmRoots, &at); err != nil {
			t.Errorf("%v: gmsm does not verify our SignedData: %v", f, err)
		}

		for _, c := range []pkcs7.Cipher{pkcs7.SM4CBC, pkcs7.SM4GCM} {
			env, err := pkcs7.Encrypt(content, []pkcs7.Recipient{{Certificate: p.enc}}, &pkcs7.EncryptOptions{Family: f, Cipher: c})
			if err != nil {
				t.Fatal(err)
			}
			p7, err := gmpkcs7.Parse(env)
			if err != nil {
				t.Fatalf("%v cipher %d: gmsm cannot parse our EnvelopedData: %v", f, c, err)
			}
			if got, err := p7.Decrypt(p.gmEnc, p.gmEncKey); err != nil || !bytes.Equal(got, content) {
				t.Errorf("%v cipher %d: gmsm decrypts our EnvelopedData to %q, %v", f, c, got, err)
			}
		}
	}

	for _, c := range []pkcs.Cipher{pkcs.SM4CBC, pkcs.SM4GCM} {
		env, err := gmpkcs7.EncryptSM(c, content, []*gmx509.Certificate{p.gmEnc})
		if err != nil {
			t.Fatal(err)
		}
		m, err := pkcs7.Parse(env)
		if err != nil {
			t.Fatalf("gmsm's EnvelopedData (%T): %v", c, err)
		}
		if got, err := m.Enveloped.Decrypt(p.enc, p.encKey); err != nil || !bytes.Equal(got, content) {
			t.Errorf("gmsm's EnvelopedData (%T) decrypts to %q, %v", c, got, err)
		}
	}
}
