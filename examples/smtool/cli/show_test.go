// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShowGolden: cert show and crl show print the fixtures of testdata/
// exactly as the golden files say.
func TestShowGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"show_cert", []string{"cert", "show", local("sign.pem")}},
		{"show_ca", []string{"cert", "show", local("ca.pem")}},
		{"show_req", []string{"cert", "show", local("req.csr")}},
		{"show_crl", []string{"cert", "show", local("ca.crl")}},
		{"show_keys", []string{"cert", "show", local("enc_sec1.key"), local("sign_encrypted.key")}},
		{"show_key_password", []string{"cert", "show", "-passin", "pass:smtool-test", local("sign_encrypted.key")}},
		{"show_fields", []string{"cert", "show", "-subject", "-issuer", "-serial", "-dates", "-fingerprint", "-sm3",
			"-role", "-ext", "subjectAltName,keyUsage,extendedKeyUsage,basicConstraints", local("sign.pem")}},
		{"show_fields_sha1", []string{"cert", "show", "-noout", "-fingerprint", "-pubkey", local("enc.pem")}},
		{"show_gmssl_pair", []string{"cert", "show", "-subject", "-role", local("gmssl_certs.pem")}},
		{"show_gmssl_keys", []string{"cert", "show", "-pass", "P@ssw0rd", local("gmssl_keys.pem")}},
		{"crl_show", []string{"crl", "show", local("ca.crl")}},
		{"crl_show_fields", []string{"crl", "show", "-CAfile", local("ca.pem"), "-noout", "-issuer", "-lastupdate", "-nextupdate", "-crlnumber", "-fingerprint", "-sm3", local("ca.crl")}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, out, errOut := smtool(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tc.golden, out)
		})
	}
}

// TestShowOutform: -outform converts, and what it writes reads back the same.
func TestShowOutform(t *testing.T) {
	dir := t.TempDir()
	der := filepath.Join(dir, "sign.der")
	if code, _, errOut := smtool("cert", "show", "-outform", "der", "-out", der, local("sign.pem")); code != 0 {
		t.Fatal(errOut)
	}
	pemData, _ := os.ReadFile(local("sign.pem"))
	block, _ := pem.Decode(pemData)
	if got, _ := os.ReadFile(der); !bytes.Equal(got, block.Bytes) {
		t.Fatal("-outform der did not write the certificate's DER")
	}
	_, fromPEM, _ := smtool("cert", "show", local("sign.pem"))
	_, fromDER, _ := smtool("cert", "show", der)
	if fromPEM != fromDER {
		t.Error("the DER file shows differently from the PEM one")
	}
	// Back to PEM, on standard output; several certificates stay PEM.
	if _, out, _ := smtool("cert", "show", "-outform", "pem", der); out != string(pemData) {
		t.Errorf("-outform pem of the DER:\n%s", out)
	}
	code, out, _ := smtool("cert", "show", "-outform", "PEM", local("gmssl_certs.pem"))
	if code != 0 || strings.Count(out, "BEGIN CERTIFICATE") != 3 {
		t.Errorf("-outform pem of three certificates: %d\n%s", code, out)
	}
	code, _, errOut := smtool("cert", "show", "-outform", "der", local("gmssl_certs.pem"))
	if code != 1 || !strings.Contains(errOut, "use -outform pem") {
		t.Errorf("-outform der of three certificates: %d %q", code, errOut)
	}
	// CRLs convert too.
	crlDER := filepath.Join(dir, "ca.crl.der")
	if code, _, errOut := smtool("crl", "show", "-outform", "der", "-out", crlDER, local("ca.crl")); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, _ := smtool("crl", "show", "-noout", "-crlnumber", crlDER); code != 0 || out != "crlNumber=0x2A\n" {
		t.Errorf("DER CRL: %d %q", code, out)
	}
}

// TestShowForeignFiles: files written by the openssl CLI, and non-SM2
// certificates made by crypto/x509, show too.
func TestShowForeignFiles(t *testing.T) {
	for file, want := range map[string]string{
		moduleTestdata(t, "openssl", "server_sign.pem"): "TLCP role: signing certificate",
		moduleTestdata(t, "openssl", "server_sign.csr"): "Self-signature: ok",
		moduleTestdata(t, "openssl", "ca.crl"):          "keyCompromise (1)",
		moduleTestdata(t, "openssl", "noid_leaf.pem"):   "empty-ID leaf",
		moduleTestdata(t, "keys", "sec1_sm2.pem"):       "SM2 (sm2p256v1, 256 bit)",
		moduleTestdata(t, "keys", "legacy_sm4.pem"):     "give -passin",
	} {
		code, out, errOut := smtool("cert", "show", file)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: %d %q\n%s", file, code, errOut, out)
		}
	}
	enc := moduleTestdata(t, "tlcp", "server_sign_encrypted.key")
	if code, out, _ := smtool("cert", "show", "-password", "shangmi-test", enc); code != 0 || !strings.Contains(out, "SM2") {
		t.Errorf("encrypted key with password: %d %s", code, out)
	}
	if code, _, errOut := smtool("cert", "show", "-password", "nope", enc); code != 1 || !strings.Contains(errOut, "password incorrect") {
		t.Errorf("encrypted key with wrong password: %d %s", code, errOut)
	}

	// A DER ECDSA certificate made by crypto/x509.
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(5), Subject: pkix.Name{CommonName: "ecdsa der"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"a.example"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, k.Public(), k)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.der")
	os.WriteFile(path, der, 0o644)
	code, out, _ := smtool("cert", "show", path)
	if code != 0 || !strings.Contains(out, "ECDSA-SHA256") || !strings.Contains(out, "P-256") ||
		!strings.Contains(out, "DNS:a.example") || !strings.Contains(out, "TLCP role: none (not an SM2 key)") {
		t.Errorf("DER ECDSA:\n%s", out)
	}
}
