package main

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

// smtool runs the tool in-process and returns exit status, stdout, stderr.
func smtool(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func testdataDir(t *testing.T, elem ...string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir, "testdata"}, elem...)...)
		}
		dir = filepath.Dir(dir)
		if dir == "/" {
			t.Fatal("go.mod not found")
		}
	}
}

func TestCertGenShowVerify(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := smtool("cert", "gen", "-out", dir, "-hosts", "localhost,127.0.0.1,::1")
	if code != 0 {
		t.Fatalf("gen: %d %s", code, errOut)
	}
	for _, name := range []string{"ca", "server_sign", "server_enc", "client_sign", "client_enc"} {
		for _, ext := range []string{".pem", ".key"} {
			if !strings.Contains(out, filepath.Join(dir, name+ext)) {
				t.Errorf("gen did not report %s%s", name, ext)
			}
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "server_sign.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode: %v %v", fi.Mode(), err)
	}

	code, out, _ = smtool("cert", "show", filepath.Join(dir, "server_enc.pem"))
	if code != 0 || !strings.Contains(out, "TLCP role: encryption certificate") ||
		!strings.Contains(out, "Key Encipherment") || !strings.Contains(out, "DNS:localhost") ||
		!strings.Contains(out, "IP Address:::1") || !strings.Contains(out, "SM2-SM3") {
		t.Errorf("show server_enc:\n%s", out)
	}
	code, out, _ = smtool("cert", "show", filepath.Join(dir, "server_sign.key"))
	if code != 0 || !strings.Contains(out, "SM2") {
		t.Errorf("show key: %s", out)
	}

	ca := filepath.Join(dir, "ca.pem")
	for _, name := range []string{"server_sign", "server_enc"} {
		code, out, errOut = smtool("cert", "verify", "--roots", ca, filepath.Join(dir, name+".pem"), "--host", "localhost", "--purpose", "server")
		if code != 0 || !strings.Contains(out, "OK") {
			t.Errorf("verify %s: %d %s %s", name, code, out, errOut)
		}
	}
	code, _, errOut = smtool("cert", "verify", "--roots", ca, filepath.Join(dir, "client_sign.pem"), "--purpose", "server")
	if code != 1 || !strings.Contains(errOut, "incompatible key usage") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("client cert for server purpose: %d %q", code, errOut)
	}
	code, _, errOut = smtool("cert", "verify", "--roots", ca, filepath.Join(dir, "server_sign.pem"), "--host", "example.org")
	if code != 1 || !strings.Contains(errOut, "not example.org") {
		t.Errorf("wrong host: %d %q", code, errOut)
	}
	code, _, errOut = smtool("cert", "verify", "--roots", ca, filepath.Join(dir, "server_sign.pem"), "--at", "2050-01-01")
	if code != 1 || !strings.Contains(errOut, "expired") {
		t.Errorf("expired: %d %q", code, errOut)
	}
	// Wrong root.
	code, _, errOut = smtool("cert", "verify", "--roots", testdataDir(t, "openssl", "ca.pem"), filepath.Join(dir, "server_sign.pem"))
	if code != 1 || !strings.Contains(errOut, "unknown authority") {
		t.Errorf("wrong root: %d %q", code, errOut)
	}
}

func TestCertShowForeignFiles(t *testing.T) {
	for file, want := range map[string]string{
		testdataDir(t, "openssl", "server_sign.pem"): "TLCP role: signing certificate",
		testdataDir(t, "openssl", "server_sign.csr"): "Self-signature: ok",
		testdataDir(t, "openssl", "ca.crl"):          "Reason Code: 1",
		testdataDir(t, "openssl", "noid_leaf.pem"):   "empty-ID leaf",
	} {
		code, out, errOut := smtool("cert", "show", file)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: %d %q\n%s", file, code, errOut, out)
		}
	}

	enc := testdataDir(t, "tlcp", "server_sign_encrypted.key")
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
	if code != 0 || !strings.Contains(out, "ECDSA-SHA256") || !strings.Contains(out, "P-256") || !strings.Contains(out, "DNS:a.example") {
		t.Errorf("DER ECDSA:\n%s", out)
	}
	// PEM of the same.
	os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	if code, _, _ := smtool("cert", "show", path); code != 0 {
		t.Error("PEM ECDSA failed")
	}
}

func TestCertErrors(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "junk")
	os.WriteFile(junk, []byte("not a certificate"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, ""},
		{[]string{"nope"}, 2, "unknown command"},
		{[]string{"cert"}, 2, "missing subcommand"},
		{[]string{"cert", "frob"}, 2, "unknown subcommand"},
		{[]string{"cert", "gen"}, 2, "-out DIR is required"},
		{[]string{"cert", "gen", "-out", "x", "-not-before", "yesterday"}, 2, "cannot parse time"},
		{[]string{"cert", "gen", "-bogus"}, 2, "flag provided but not defined"},
		{[]string{"cert", "show"}, 2, "missing FILE"},
		{[]string{"cert", "show", junk}, 1, "not a PEM file"},
		{[]string{"cert", "show", "/does/not/exist"}, 1, "no such file"},
		{[]string{"cert", "verify", junk}, 2, "-roots FILE is required"},
		{[]string{"cert", "verify", "-roots", junk, junk}, 1, "junk"},
		{[]string{"cert", "verify", "-roots", testdataDir(t, "tlcp", "ca.pem"), testdataDir(t, "tlcp", "server_sign.pem"), "-purpose", "x"}, 2, "unknown -purpose"},
	} {
		code, _, errOut := smtool(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") > 1 {
			t.Errorf("smtool %q: exit %d (want %d), stderr %q (want %q)", tc.args, code, tc.code, errOut, tc.want)
		}
	}
	if code, out, _ := smtool("help"); code != 0 || !strings.Contains(out, "cert") {
		t.Errorf("help: %d %s", code, out)
	}
}

func TestGenerateTLCPProperties(t *testing.T) {
	set, err := generateTLCP(genConfig{
		Hosts:     []string{"localhost", "127.0.0.1"},
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:  time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !set.CA.Cert.IsCA || set.ServerSign.Cert.IsCA {
		t.Error("CA flags wrong")
	}
	for _, m := range []issued{set.ServerSign, set.ClientSign} {
		if !m.Cert.IsTLCPSignCert() || m.Cert.IsTLCPEncCert() {
			t.Errorf("%s: wrong role", m.Name)
		}
	}
	for _, m := range []issued{set.ServerEnc, set.ClientEnc} {
		if m.Cert.IsTLCPSignCert() || !m.Cert.IsTLCPEncCert() {
			t.Errorf("%s: wrong role", m.Name)
		}
	}
	if set.ServerSign.Cert.Subject.String() != set.ServerEnc.Cert.Subject.String() {
		t.Error("server sign and enc subjects differ")
	}
	if !set.ServerEnc.Key.PublicKey().Equal(set.ServerEnc.Cert.PublicKey) {
		t.Error("key does not match certificate")
	}
}

func TestCertGenFromExistingCA(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	if code, _, errOut := smtool("cert", "gen", "-out", first); code != 0 {
		t.Fatal(errOut)
	}
	ca, caKey := filepath.Join(first, "ca.pem"), filepath.Join(first, "ca.key")
	code, out, errOut := smtool("cert", "gen", "-out", second, "-ca-cert", ca, "-ca-key", caKey, "-hosts", "other.example")
	if code != 0 || strings.Contains(out, "ca.pem") {
		t.Fatalf("gen from CA: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := smtool("cert", "verify", "-roots", ca, "-host", "other.example", filepath.Join(second, "server_enc.pem")); code != 0 {
		t.Fatalf("leaf from reused CA does not verify: %s", errOut)
	}
	// Key of another CA, a leaf as CA, and half the flags are refused.
	for _, args := range [][]string{
		{"-ca-cert", ca, "-ca-key", filepath.Join(first, "server_sign.key")},
		{"-ca-cert", filepath.Join(first, "server_sign.pem"), "-ca-key", filepath.Join(first, "server_sign.key")},
		{"-ca-cert", ca},
	} {
		code, _, errOut := smtool(append([]string{"cert", "gen", "-out", t.TempDir()}, args...)...)
		if code == 0 || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
}
