// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509/pkcs12"
	smx "github.com/shangmi-go/shangmi/x509"
)

// TestPKCS12 writes PFX files with every option and reads them back, with
// smtool at both ends and the package in between.
func TestPKCS12(t *testing.T) {
	dir := t.TempDir()
	p12 := filepath.Join(dir, "out.p12")
	for _, opts := range [][]string{
		nil,
		{"-keypbe", "AES-256-CBC", "-certpbe", "AES-256-CBC", "-macalg", "SHA256", "-prf", "sha256"},
		{"-keypbe", "SM4-CBC", "-certpbe", "NONE", "-macalg", "SHA1", "-prf", "sm3-gmssl", "-iter", "10"},
		{"-nomac", "-name", "server"},
	} {
		args := append([]string{"pkcs12", "-export", "-inkey", "testdata/sign.key", "-in", "testdata/sign.pem",
			"-certfile", "testdata/ca.pem", "-passout", "pass:pw", "-out", p12}, opts...)
		if code, _, errOut := smtool(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", opts, code, errOut)
		}
		data, _ := os.ReadFile(p12)
		if _, _, ca, err := pkcs12.DecodeChain(data, "pw"); err != nil || len(ca) != 1 {
			t.Fatalf("%v: %v", opts, err)
		}
		code, out, errOut := smtool("pkcs12", "-in", p12, "-passin", "pass:pw", "-info")
		if code != 0 {
			t.Fatalf("%v: read: %s", opts, errOut)
		}
		mustContain(t, "pkcs12 read", out, "BEGIN CERTIFICATE", "BEGIN PRIVATE KEY", "localKeyID:")
		mustContain(t, "pkcs12 -info", errOut, "Shrouded key bag: PBES2")
		if code, out, _ := smtool("pkcs12", "-in", p12, "-passin", "pass:pw", "-nokeys", "-cacerts"); code != 0 ||
			strings.Contains(out, "PRIVATE KEY") || strings.Count(out, "BEGIN CERTIFICATE") != 1 || !strings.Contains(out, "subject=CN") {
			t.Errorf("%v: -nokeys -cacerts:\n%s", opts, out)
		}
		if code, _, errOut := smtool("pkcs12", "-in", p12, "-passin", "pass:wrong"); code != 1 || !strings.Contains(errOut, "wrong password") {
			t.Errorf("%v: wrong password: exit %d, %s", opts, code, errOut)
		}
	}
	// Key and certificate in one -in file, as `openssl pkcs12 -export -in`
	// takes them.
	combined := filepath.Join(dir, "combined.pem")
	os.WriteFile(combined, append(mustRead(t, "testdata/sign.key"), mustRead(t, "testdata/sign.pem")...), 0o600)
	if code, _, errOut := smtool("pkcs12", "-export", "-in", combined, "-passout", "pass:pw", "-out", p12); code != 0 {
		t.Fatalf("-in with key and certificate: %s", errOut)
	}
	if _, _, err := pkcs12.Decode(mustRead(t, p12), "pw"); err != nil {
		t.Fatal(err)
	}

	// The keys written encrypted with -passout.
	code, out, _ := smtool("pkcs12", "-in", p12, "-passin", "pass:pw", "-nocerts", "-passout", "pass:k")
	if code != 0 || !strings.Contains(out, "ENCRYPTED PRIVATE KEY") {
		t.Fatalf("-passout: %s", out)
	}
	if _, err := smx.ParsePrivateKeyPEM([]byte(out[strings.Index(out, "-----BEGIN"):]), []byte("k")); err != nil {
		t.Error(err)
	}

	// Usage errors.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-export", "-inkey", "testdata/sign.key", "-in", "testdata/sign.pem", "-keypbe", "PBE-SHA1-3DES"}, "never written"},
		{[]string{"-export", "-inkey", "testdata/enc.key", "-in", "testdata/sign.pem"}, "no certificate matches"},
		{[]string{"-export", "-inkey", "testdata/sign.key", "-in", "testdata/sign.pem", "-macalg", "MD5"}, "-macalg"},
		{[]string{"-export", "-inkey", "testdata/sign.key", "-in", "testdata/sign.pem", "-enc_in", "testdata/enc.pem"}, "both -enc_in and -enc_inkey"},
	} {
		if code, _, errOut := smtool(append([]string{"pkcs12", "-passout", "pass:x"}, tc.args...)...); code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, errOut)
		}
	}
}

func TestPKCS12TLCPAndCFCA(t *testing.T) {
	dir := t.TempDir()
	p12 := filepath.Join(dir, "tlcp.p12")
	if code, _, errOut := smtool("pkcs12", "-export", "-inkey", "testdata/sign.key", "-in", "testdata/sign.pem",
		"-enc_inkey", "testdata/enc.key", "-enc_in", "testdata/enc.pem", "-certfile", "testdata/ca.pem",
		"-passout", "pass:pw", "-out", p12); code != 0 {
		t.Fatal(errOut)
	}
	data, _ := os.ReadFile(p12)
	pair, err := pkcs12.DecodeTLCP(data, "pw")
	if err != nil || len(pair.CACerts) != 1 {
		t.Fatal(err)
	}
	code, out, _ := smtool("pkcs12", "-in", p12, "-passin", "pass:pw", "-clcerts")
	if code != 0 || strings.Count(out, "BEGIN CERTIFICATE") != 2 || strings.Count(out, "BEGIN PRIVATE KEY") != 2 ||
		!strings.Contains(out, "friendlyName: enc") {
		t.Errorf("-clcerts of a TLCP pair:\n%s", out)
	}

	cf := filepath.Join(dir, "sign.sm2")
	if code, _, errOut := smtool("pkcs12", "-export", "-cfca", "-inkey", "testdata/sign.key", "-in", "testdata/sign.pem", "-passout", "pass:pw", "-out", cf); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, errOut := smtool("pkcs12", "-in", cf, "-passin", "pass:pw", "-info"); code != 0 || !strings.Contains(errOut, "CFCA") || !strings.Contains(out, "PRIVATE KEY") {
		t.Errorf("CFCA read: %s %s", out, errOut)
	}
}

func TestKeyImportEnveloped(t *testing.T) {
	dir := t.TempDir()
	signKey, err := smx.ParsePrivateKeyPEM(mustRead(t, "testdata/sign.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	encKey, err := smx.ParsePrivateKeyPEM(mustRead(t, "testdata/enc.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	der, err := smx.MarshalSM2EnvelopedKey(rand.Reader, signKey.(*sm2.PrivateKey).PublicKey(), encKey.(*sm2.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(dir, "env.der")
	os.WriteFile(env, der, 0o600)
	out := filepath.Join(dir, "enc.key")
	if code, _, errOut := smtool("key", "import-enveloped", "-sign_key", "testdata/sign.key", "-sign_cert", "testdata/sign.pem",
		"-in", env, "-enc_cert", "testdata/enc.pem", "-out", out); code != 0 {
		t.Fatal(errOut)
	}
	got, err := smx.ParsePrivateKeyPEM(mustRead(t, out), nil)
	if err != nil || !got.(*sm2.PrivateKey).Equal(encKey) {
		t.Fatalf("imported key: %v", err)
	}
	// Base64 input, no certificate: a warning.
	b64 := filepath.Join(dir, "env.b64")
	os.WriteFile(b64, []byte(encodeBase64Lines(der)), 0o600)
	if code, _, errOut := smtool("key", "import-enveloped", "-sign_key", "testdata/sign.key", b64, "-out", out); code != 0 || !strings.Contains(errOut, "warning") {
		t.Errorf("base64: exit %d: %s", code, errOut)
	}
	// The envelope opened with the wrong key, or checked against the wrong certificate.
	if code, _, errOut := smtool("key", "import-enveloped", "-sign_key", "testdata/enc.key", "-in", env, "-out", out); code != 1 || errOut == "" {
		t.Errorf("wrong signing key: exit %d", code)
	}
	if code, _, errOut := smtool("key", "import-enveloped", "-sign_key", "testdata/sign.key", "-in", env, "-enc_cert", "testdata/sign.pem", "-out", out); code != 1 || !strings.Contains(errOut, "public key differs") {
		t.Errorf("wrong encryption certificate: exit %d %s", code, errOut)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodeBase64Lines(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var out strings.Builder
	for len(s) > 64 {
		out.WriteString(s[:64] + "\n")
		s = s[64:]
	}
	return out.String() + s + "\n"
}
