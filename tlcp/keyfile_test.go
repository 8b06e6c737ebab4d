// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crypto/x509/pkix"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	smx "github.com/shangmi-go/shangmi/x509"
)

// The openssl-made TLCP server credentials of testdata/openssl (see
// testdata/README.md): sign and enc certificates of "shangmi openssl
// server" and their root CA.
const opensslDir = "../testdata/openssl"

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(opensslDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// gmsslFiles returns the server credentials in GmSSL 3's layout
// (tools/tlcp_help.h): one file of the signing certificate, the encryption
// certificate and the CA certificate; one file of the signing and the
// encryption key, both encrypted with password in GmSSL's PBES2 form
// (SM4-CBC, PBKDF2-HMAC-SM3).
func gmsslFiles(t testing.TB, password []byte) (certs, keys []byte) {
	t.Helper()
	certs = concat(readTestdata(t, "server_sign.pem"), readTestdata(t, "server_enc.pem"), readTestdata(t, "ca.pem"))
	for _, name := range []string{"server_sign.key", "server_enc.key"} {
		k, err := smx.ParsePrivateKeyPEM(readTestdata(t, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, k, password, &smx.PBES2Options{Iterations: 1000})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, enc...)
	}
	return certs, keys
}

func firstDER(t testing.TB, pemData []byte) []byte {
	t.Helper()
	b, _ := pem.Decode(pemData)
	if b == nil {
		t.Fatal("no PEM block")
	}
	return b.Bytes
}

// TestGmSSLCombinedFiles: GmSSL's certificate chain file and two-key file
// load as a pair when each is given for both halves, and each half gets its
// own leaf with the CA behind it; the pair then serves a handshake.
func TestGmSSLCombinedFiles(t *testing.T) {
	pw := []byte("P@ssw0rd")
	certs, keys := gmsslFiles(t, pw)
	pair, err := tlcp.X509CertificatePairWithPassword(certs, keys, certs, keys, pw)
	if err != nil {
		t.Fatal(err)
	}
	sign, enc, ca := firstDER(t, readTestdata(t, "server_sign.pem")), firstDER(t, readTestdata(t, "server_enc.pem")), firstDER(t, readTestdata(t, "ca.pem"))
	if len(pair.Sign.Certificate) != 2 || !bytes.Equal(pair.Sign.Certificate[0], sign) || !bytes.Equal(pair.Sign.Certificate[1], ca) {
		t.Fatal("signing half: wrong chain")
	}
	if len(pair.Enc.Certificate) != 2 || !bytes.Equal(pair.Enc.Certificate[0], enc) || !bytes.Equal(pair.Enc.Certificate[1], ca) {
		t.Fatal("encryption half: wrong chain")
	}

	// The same through the file API.
	dir := t.TempDir()
	cf, kf := filepath.Join(dir, "certs.pem"), filepath.Join(dir, "keys.pem")
	must(t, os.WriteFile(cf, certs, 0o600))
	must(t, os.WriteFile(kf, keys, 0o600))
	if _, err := tlcp.LoadCertificatePairWithPassword(cf, kf, cf, kf, pw); err != nil {
		t.Fatal(err)
	}
	// Without the password the error says which function takes one.
	if _, err := tlcp.LoadCertificatePair(cf, kf, cf, kf); !errors.Is(err, smx.ErrPasswordRequired) || !strings.Contains(err.Error(), "LoadCertificatePairWithPassword") {
		t.Fatalf("no password: %v", err)
	}
	if _, err := tlcp.LoadCertificatePairWithPassword(cf, kf, cf, kf, []byte("wrong")); !errors.Is(err, smx.ErrIncorrectPassword) {
		t.Fatalf("wrong password: %v", err)
	}

	handshake(t, pair, readTestdata(t, "ca.pem"))
}

// handshake runs one TLCP handshake with pair as the server's credentials
// and a client that trusts rootPEM.
func handshake(t *testing.T, pair tlcp.CertificatePair, rootPEM []byte) {
	t.Helper()
	roots := smx509.NewCertPool()
	if !roots.AppendCertsFromPEM(rootPEM) {
		t.Fatal("no CA")
	}
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	server := tlcp.Server(c1, &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	client := tlcp.Client(c2, &tlcp.Config{RootCAs: roots, ServerName: "localhost"})
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	_ = c2.SetDeadline(time.Now().Add(10 * time.Second))
	if err := client.Handshake(); err != nil {
		t.Fatalf("client: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("server: %v", err)
	}
}

// TestGmSSLGeneratedFiles (with SHANGMI_GMSSL set to a gmssl 3 binary):
// the server credentials made exactly as GmSSL's tlcp_server help shows
// (a root CA, a TLCP sub-CA, sign and enc certificates, `cat` into one
// certificate and one key file) load as a pair and serve a handshake.
func TestGmSSLGeneratedFiles(t *testing.T) {
	path := os.Getenv("SHANGMI_GMSSL")
	if path == "" {
		t.Skip("SHANGMI_GMSSL is not set")
	}
	dir := t.TempDir()
	prefix := filepath.Dir(filepath.Dir(path))
	gmssl := func(args ...string) {
		t.Helper()
		cmd := exec.Command(path, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Join(prefix, "lib"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gmssl %s: %v\n%s", args[0], err, out)
		}
	}
	const pw = "P@ssw0rd"
	subj := []string{"-C", "CN", "-ST", "Beijing", "-L", "Haidian", "-O", "GmSSL", "-OU", "Test"}
	gmssl("sm2keygen", "-pass", pw, "-out", "root_key.pem")
	gmssl(append(append([]string{"certgen"}, subj...), "-CN", "Root CA", "-days", "3650", "-key", "root_key.pem", "-pass", pw,
		"-out", "root.pem", "-key_usage", "keyCertSign", "-key_usage", "cRLSign", "-ca")...)
	gmssl("sm2keygen", "-pass", pw, "-out", "ca_key.pem")
	gmssl(append(append([]string{"reqgen"}, subj...), "-CN", "TLCP CA", "-key", "ca_key.pem", "-pass", pw, "-out", "ca_req.pem")...)
	gmssl("reqsign", "-in", "ca_req.pem", "-days", "1825", "-key_usage", "keyCertSign", "-key_usage", "cRLSign", "-path_len_constraint", "0",
		"-cacert", "root.pem", "-key", "root_key.pem", "-pass", pw, "-out", "ca.pem", "-ca")
	var certs, keys []byte
	for _, role := range []string{"sign", "enc"} {
		ku := map[string]string{"sign": "digitalSignature", "enc": "keyEncipherment"}[role]
		gmssl("sm2keygen", "-pass", pw, "-out", role+"_key.pem")
		gmssl(append(append([]string{"reqgen"}, subj...), "-CN", "TLCP Server", "-key", role+"_key.pem", "-pass", pw, "-out", role+"_req.pem")...)
		gmssl("reqsign", "-in", role+"_req.pem", "-days", "365", "-key_usage", ku, "-ext_key_usage", "serverAuth", "-subject_dns_name", "localhost",
			"-cacert", "ca.pem", "-key", "ca_key.pem", "-pass", pw, "-out", role+".pem")
		certs = append(certs, readFile(t, filepath.Join(dir, role+".pem"))...)
		keys = append(keys, readFile(t, filepath.Join(dir, role+"_key.pem"))...)
	}
	certs = append(certs, readFile(t, filepath.Join(dir, "ca.pem"))...)
	pair, err := tlcp.X509CertificatePairWithPassword(certs, keys, certs, keys, []byte(pw))
	if err != nil {
		t.Fatal(err)
	}
	if len(pair.Sign.Certificate) != 2 || len(pair.Enc.Certificate) != 2 {
		t.Fatal("chains do not hold the sub-CA")
	}
	handshake(t, pair, readFile(t, filepath.Join(dir, "root.pem")))
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	must(t, err)
	return b
}

// TestGmSSLFilesAsOneCertificate: with one key, a combined certificate
// file yields that key's certificate; with both keys, X509KeyPair refuses
// and says what the files hold and what to call instead.
func TestGmSSLFilesAsOneCertificate(t *testing.T) {
	pw := []byte("pw")
	certs, keys := gmsslFiles(t, pw)
	for _, c := range []struct{ key, leaf string }{{"server_sign.key", "server_sign.pem"}, {"server_enc.key", "server_enc.pem"}} {
		cert, err := tlcp.X509KeyPair(certs, readTestdata(t, c.key))
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		if !bytes.Equal(cert.Certificate[0], firstDER(t, readTestdata(t, c.leaf))) || len(cert.Certificate) != 2 {
			t.Fatalf("%s: wrong leaf or chain", c.key)
		}
	}
	_, err := tlcp.X509KeyPairWithPassword(certs, keys, pw)
	want := `the certificate file holds 3 certificates: 2 SM2 end-entity certificates (sign "shangmi openssl server", enc "shangmi openssl server") and 1 CA certificate ("shangmi openssl Root CA"); the key file holds 2 private keys (SM2, SM2)`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "LoadCertificatePair(certFile, keyFile, certFile, keyFile)") {
		t.Fatalf("got %v\nwant it to contain %s", err, want)
	}
}

// newCert issues a certificate for key (self-signed if parent is nil).
func newCert(t testing.TB, cn string, ku smx509.KeyUsage, isCA bool, key *sm2.PrivateKey, parent *smx509.Certificate, parentKey *sm2.PrivateKey) *smx509.Certificate {
	t.Helper()
	tmpl := &smx509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              ku,
		BasicConstraintsValid: true,
		IsCA:                  isCA,
		DNSNames:              []string{"localhost"},
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	must(t, err)
	c, err := smx509.ParseCertificate(der)
	must(t, err)
	return c
}

func certPEMOf(certs ...*smx509.Certificate) []byte {
	var out []byte
	for _, c := range certs {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	return out
}

func keyPEMOf(t testing.TB, keys ...*sm2.PrivateKey) []byte {
	var out []byte
	for _, k := range keys {
		p, err := smx.MarshalPrivateKeyPEM(k)
		must(t, err)
		out = append(out, p...)
	}
	return out
}

func mustKey(t testing.TB) *sm2.PrivateKey {
	k, err := sm2.GenerateKey(rand.Reader)
	must(t, err)
	return k
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCombinedFileRoles: key usage decides the roles, wherever the
// certificates are in the file; without key usages GmSSL's order (sign,
// enc first) decides, and if that order is not there either the loader
// refuses rather than guess.
func TestCombinedFileRoles(t *testing.T) {
	caKey, k1, k2 := mustKey(t), mustKey(t), mustKey(t)
	ca := newCert(t, "CA", smx509.KeyUsageCertSign, true, caKey, nil, nil)
	sign := newCert(t, "s", smx509.KeyUsageDigitalSignature, false, k1, ca, caKey)
	enc := newCert(t, "e", smx509.KeyUsageKeyEncipherment, false, k2, ca, caKey)
	keys := keyPEMOf(t, k2, k1) // in the "wrong" order
	for name, certs := range map[string][]byte{
		"enc, CA, sign": certPEMOf(enc, ca, sign),
		"CA, sign, enc": certPEMOf(ca, sign, enc),
	} {
		p, err := tlcp.X509CertificatePair(certs, keys, certs, keys)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !p.Sign.Leaf.Equal(sign) || !p.Enc.Leaf.Equal(enc) {
			t.Fatalf("%s: roles swapped", name)
		}
	}
	// No key usage: the order decides, only in GmSSL's layout.
	a := newCert(t, "a", 0, false, k1, ca, caKey)
	b := newCert(t, "b", 0, false, k2, ca, caKey)
	certs := certPEMOf(a, b, ca)
	p, err := tlcp.X509CertificatePair(certs, keys, certs, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Sign.Leaf.Equal(a) || !p.Enc.Leaf.Equal(b) {
		t.Fatal("GmSSL order not followed")
	}
	certs = certPEMOf(ca, a, b)
	if _, err := tlcp.X509CertificatePair(certs, keys, certs, keys); err == nil || !strings.Contains(err.Error(), "cannot tell which certificate is the signing certificate") {
		t.Fatalf("ambiguous roles: %v", err)
	}
	// A certificate and a key pasted twice are still one certificate.
	c, err := tlcp.X509KeyPair(certPEMOf(sign, ca, sign), keyPEMOf(t, k1, k1))
	if err != nil || len(c.Certificate) != 2 {
		t.Fatalf("duplicates: %v", err)
	}
	// One certificate given for both halves.
	one := certPEMOf(sign, ca)
	k1PEM := keyPEMOf(t, k1)
	if _, err := tlcp.X509CertificatePair(one, k1PEM, one, k1PEM); err == nil || !strings.Contains(err.Error(), "same certificate") {
		t.Fatalf("one certificate for both roles: %v", err)
	}
}

// TestKeyFileErrors: each loader error says what the files hold when they
// are not what was expected.
func TestKeyFileErrors(t *testing.T) {
	cert := readTestdata(t, "server_sign.pem")
	key := readTestdata(t, "server_sign.key")
	otherKey := readTestdata(t, "client_sign.key")
	rsaKey, err := os.ReadFile("../testdata/keys/rsa_pkcs1.pem")
	must(t, err)
	encKey, err := smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, mustSigner(t, key), []byte("pw"), smx.PBES2OptionsForOpenSSL())
	must(t, err)
	for name, c := range map[string]struct {
		cert, key []byte
		msg       string
	}{
		"swapped arguments":  {key, cert, "the certificate file holds no certificate; it holds 1 SM2 private key (PKCS #8) (are the certificate and key arguments swapped?)"},
		"certificate as key": {cert, cert, "key file: x509: no private key found in PEM data; it holds 1 certificate"},
		"RSA key":            {cert, rsaKey, "the key file holds an RSA-2048 private key; TLCP needs SM2"},
		"other key":          {cert, otherKey, "private key does not match the certificate's public key"},
		"encrypted key":      {cert, encKey, "the key file holds an encrypted private key; pass its password with X509KeyPairWithPassword or LoadX509KeyPairWithPassword: x509: the private key is encrypted and no password was given (PKCS #8, PBES2: PBKDF2-HMAC-SHA256, 100000 iterations, AES-256-CBC)"},
		"DER certificate":    {firstDER(t, cert), key, "the certificate file holds no certificate; it holds no PEM data (DER data: a certificate"},
		"empty key file":     {cert, nil, "key file: x509: no private key found in PEM data; it holds nothing (it is empty)"},
		"two unrelated keys": {cert, concat(otherKey, readTestdata(t, "client_enc.key")), `no private key matches an SM2 end-entity certificate: the certificate file holds 1 certificate: 1 SM2 end-entity certificate (sign "shangmi openssl server"); the key file holds 2 private keys (SM2, SM2)`},
		"key in cert file":   {concat(cert, otherKey), otherKey, `the certificate file holds 1 certificate: 1 SM2 end-entity certificate (sign "shangmi openssl server"), and also 1 SM2 private key (PKCS #8); the key file holds 1 private key (SM2)`},
	} {
		_, err := tlcp.X509KeyPair(c.cert, c.key)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n got %v\nwant %s", name, err, c.msg)
		}
	}
	// A certificate with a non-SM2 key.
	ec := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: nonSM2Cert(t)})
	if _, err := tlcp.X509KeyPair(ec, key); err == nil || !strings.Contains(err.Error(), "public key; TLCP needs SM2") {
		t.Errorf("ECDSA certificate: %v", err)
	}
}

func mustSigner(t testing.TB, keyPEM []byte) *sm2.PrivateKey {
	k, err := smx.ParsePrivateKeyPEM(keyPEM, nil)
	must(t, err)
	return k.(*sm2.PrivateKey)
}

// nonSM2Cert returns a self-signed ECDSA P-256 certificate made by openssl,
// or skips.
func nonSM2Cert(t *testing.T) []byte {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	out, err := exec.Command("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
		"-nodes", "-keyout", filepath.Join(t.TempDir(), "k.pem"), "-subj", "/CN=ecdsa", "-days", "1").Output()
	must(t, err)
	return firstDER(t, out)
}

// TestKeyFormatsThroughLoaders: the SEC 1 "SM2 PRIVATE KEY" of `openssl ec`
// and its legacy-encrypted forms load with LoadX509KeyPairWithPassword.
func TestKeyFormatsThroughLoaders(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	dir := t.TempDir()
	certFile := filepath.Join(opensslDir, "server_sign.pem")
	for name, args := range map[string][]string{
		"openssl ec":         {"ec"},
		"openssl ec -sm4":    {"ec", "-sm4", "-passout", "pass:pw"},
		"openssl ec -aes256": {"ec", "-aes256", "-passout", "pass:pw"},
		"openssl ec -des3":   {"ec", "-des3", "-passout", "pass:pw"},
		"openssl pkcs8 sm4":  {"pkcs8", "-topk8", "-v2", "sm4-cbc", "-passout", "pass:pw"},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".pem")
		args = append(args, "-in", filepath.Join(opensslDir, "server_sign.key"), "-out", out)
		if b, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		c, err := tlcp.LoadX509KeyPairWithPassword(certFile, out, []byte("pw"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, ok := c.PrivateKey.(*sm2.PrivateKey); !ok {
			t.Errorf("%s: %T", name, c.PrivateKey)
		}
	}
}

// FuzzX509KeyPair feeds arbitrary certificate and key files to both
// loaders (keys unencrypted or refused for want of a password, so no key
// derivation runs).
func FuzzX509KeyPair(f *testing.F) {
	certs, keys := gmsslFiles(f, []byte("pw"))
	f.Add(certs, keys)
	for _, n := range []string{"server_sign", "server_enc"} {
		f.Add(readTestdata(f, n+".pem"), readTestdata(f, n+".key"))
	}
	f.Add(concat(readTestdata(f, "server_sign.pem"), readTestdata(f, "server_enc.pem")), concat(readTestdata(f, "server_sign.key"), readTestdata(f, "server_enc.key")))
	f.Fuzz(func(t *testing.T, certPEM, keyPEM []byte) {
		if c, err := tlcp.X509KeyPair(certPEM, keyPEM); err == nil {
			if len(c.Certificate) == 0 || c.PrivateKey == nil || c.Leaf == nil {
				t.Fatal("incomplete certificate without an error")
			}
			// A pair is only ever a key with its own certificate.
			signer, ok := c.PrivateKey.(crypto.Signer)
			pub, ok2 := c.Leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
			if !ok || !ok2 || !pub.Equal(signer.Public()) {
				t.Fatalf("key %T accepted for a certificate of key %T that it does not match", c.PrivateKey, c.Leaf.PublicKey)
			}
		}
		if p, err := tlcp.X509CertificatePair(certPEM, keyPEM, certPEM, keyPEM); err == nil && (p.Sign.Leaf == nil || p.Enc.Leaf == nil) {
			t.Fatal("incomplete pair without an error")
		}
	})
}

// GmSSL 3 writes a TLCP server's credentials as two files: the signing,
// encryption and CA certificates in one, the signing and encryption keys
// (encrypted with one password) in the other. Each is given for both
// halves of the pair.
func ExampleLoadCertificatePairWithPassword() {
	dir, _ := os.MkdirTemp("", "gmssl")
	defer os.RemoveAll(dir)
	// Build the two files from testdata, as `cat` does in GmSSL's docs.
	var certs, keys []byte
	for _, name := range []string{"server_sign.pem", "server_enc.pem", "ca.pem"} {
		b, _ := os.ReadFile(filepath.Join("../testdata/openssl", name))
		certs = append(certs, b...)
	}
	for _, name := range []string{"server_sign.key", "server_enc.key"} {
		b, _ := os.ReadFile(filepath.Join("../testdata/openssl", name))
		k, _ := smx.ParsePrivateKeyPEM(b, nil)
		enc, _ := smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, k, []byte("P@ssw0rd"), &smx.PBES2Options{Iterations: 1000})
		keys = append(keys, enc...)
	}
	certFile, keyFile := filepath.Join(dir, "certs.pem"), filepath.Join(dir, "keys.pem")
	os.WriteFile(certFile, certs, 0o600)
	os.WriteFile(keyFile, keys, 0o600)

	pair, err := tlcp.LoadCertificatePairWithPassword(certFile, keyFile, certFile, keyFile, []byte("P@ssw0rd"))
	if err != nil {
		panic(err)
	}
	fmt.Println("sign:", pair.Sign.Leaf.Subject.CommonName, pair.Sign.Leaf.KeyUsage&smx509.KeyUsageDigitalSignature != 0, len(pair.Sign.Certificate))
	fmt.Println("enc: ", pair.Enc.Leaf.Subject.CommonName, pair.Enc.Leaf.KeyUsage&smx509.KeyUsageKeyEncipherment != 0, len(pair.Enc.Certificate))

	// The same files read as a single certificate: refused, with a
	// description of what they hold.
	_, err = tlcp.LoadX509KeyPairWithPassword(certFile, keyFile, []byte("P@ssw0rd"))
	fmt.Println(strings.SplitAfter(err.Error(), "(SM2, SM2)")[0])
	// Output:
	// sign: shangmi openssl server true 2
	// enc:  shangmi openssl server true 2
	// tlcp: the certificate file holds 3 certificates: 2 SM2 end-entity certificates (sign "shangmi openssl server", enc "shangmi openssl server") and 1 CA certificate ("shangmi openssl Root CA"); the key file holds 2 private keys (SM2, SM2)
}
