// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package smx509

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/x509"
)

func envelopedFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "x509", "testdata", "envelopedkey", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUnwrapSM2EnvelopedKey(t *testing.T) {
	sk, err := x509.ParsePrivateKeyPEM(envelopedFixture(t, "sign.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := x509.ParsePrivateKeyPEM(envelopedFixture(t, "enc.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	signKey, encKey := sk.(*sm2.PrivateKey), ek.(*sm2.PrivateKey)
	signCert, err := ParseCertificatePEM(envelopedFixture(t, "sign.pem"))
	if err != nil {
		t.Fatal(err)
	}
	encCert, err := ParseCertificatePEM(envelopedFixture(t, "enc.pem"))
	if err != nil {
		t.Fatal(err)
	}
	der := envelopedFixture(t, "gmsm_enveloped_1.der")
	got, err := UnwrapSM2EnvelopedKey(der, signKey, signCert, encCert)
	if err != nil || !got.Equal(encKey) {
		t.Fatalf("gmsm vector: %v", err)
	}
	if _, err := UnwrapSM2EnvelopedKey(der, signKey, nil, encCert); err != nil {
		t.Errorf("without the signing certificate: %v", err)
	}
	for _, tc := range []struct {
		name              string
		signCert, encCert *Certificate
		want              string
	}{
		{"enc cert is the sign cert", nil, signCert, "public key differs"},
		{"sign cert is the enc cert", encCert, encCert, "signing key is not"},
		{"no enc cert", nil, nil, "needs the encryption certificate"},
	} {
		if _, err := UnwrapSM2EnvelopedKey(der, signKey, tc.signCert, tc.encCert); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// An enc certificate whose key usage is signing only.
	noEnc := *encCert
	noEnc.KeyUsage = KeyUsageDigitalSignature
	if _, err := UnwrapSM2EnvelopedKey(der, signKey, nil, &noEnc); err == nil || !strings.Contains(err.Error(), "key usage") {
		t.Errorf("signing-only enc certificate: %v", err)
	}
	// The envelope to another signing key.
	other, _ := sm2.GenerateKey(rand.Reader)
	if _, err := UnwrapSM2EnvelopedKey(der, other, nil, encCert); err == nil {
		t.Error("unwrapped with another signing key")
	}
}

func TestCheckPrivateKey(t *testing.T) {
	k, _ := sm2.GenerateKey(rand.Reader)
	c := &Certificate{PublicKey: k.PublicKey()}
	if err := c.CheckPrivateKey(k); err != nil {
		t.Error(err)
	}
	o, _ := sm2.GenerateKey(rand.Reader)
	if c.CheckPrivateKey(o) == nil || c.CheckPrivateKey(nil) == nil || (*Certificate)(nil).CheckPrivateKey(k) == nil {
		t.Error("a mismatch was accepted")
	}
}
