// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	smx "github.com/shangmi-go/shangmi/x509"
)

func TestCertGenShowVerify(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	code, out, errOut := smtool("cert", "gen", "-out", dir, "-hosts", "localhost,127.0.0.1,::1,*.example.cn", "-cn", "www.example.cn", "-days", "30")
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
	if code != 0 {
		t.Errorf("cert show server_enc: exit %d", code)
	}
	mustContain(t, "show server_enc", out, "TLCP role: encryption certificate", "Key Encipherment", "DNS:localhost",
		"DNS:*.example.cn", "IP Address:::1", "SM2-SM3", "Subject: C=CN, O=shangmi, CN=www.example.cn")
	_, out, _ = smtool("cert", "show", "-dates", filepath.Join(dir, "ca.pem"))
	nb, na := time.Now().UTC(), time.Now().UTC().AddDate(0, 0, 30)
	mustContain(t, "-days 30", out, "notBefore="+opensslTime(nb)[:11], "notAfter="+opensslTime(na)[:11])

	ca := filepath.Join(dir, "ca.pem")
	for _, name := range []string{"server_sign", "server_enc"} {
		code, out, errOut = smtool("cert", "verify", "--roots", ca, filepath.Join(dir, name+".pem"), "--host", "localhost", "--purpose", "server")
		if code != 0 || !strings.Contains(out, "OK") {
			t.Errorf("verify %s: %d %s %s", name, code, out, errOut)
		}
	}
	code, _, errOut = smtool("cert", "verify", "-CAfile", ca, filepath.Join(dir, "client_sign.pem"), "-purpose", "server")
	if code != 1 || !strings.Contains(errOut, "incompatible key usage") {
		t.Errorf("client cert for server purpose: %d %q", code, errOut)
	}
	oneLineError(t, errOut, "cert verify", "verification failed")
	code, _, errOut = smtool("cert", "verify", "-CAfile", ca, filepath.Join(dir, "server_sign.pem"), "-host", "example.org")
	if code != 1 || !strings.Contains(errOut, "not example.org") {
		t.Errorf("wrong host: %d %q", code, errOut)
	}
	code, _, errOut = smtool("cert", "verify", "-CAfile", ca, filepath.Join(dir, "server_sign.pem"), "-at", "2050-01-01")
	if code != 1 || !strings.Contains(errOut, "expired") {
		t.Errorf("expired: %d %q", code, errOut)
	}
	code, _, errOut = smtool("cert", "verify", "-CAfile", moduleTestdata(t, "openssl", "ca.pem"), filepath.Join(dir, "server_sign.pem"))
	if code != 1 || !strings.Contains(errOut, "unknown authority") {
		t.Errorf("wrong root: %d %q", code, errOut)
	}

	// No silent overwrite: refused, then allowed with -force.
	code, _, errOut = smtool("cert", "gen", "-out", dir)
	if code != 1 {
		t.Errorf("gen into a full folder: exit %d", code)
	}
	oneLineError(t, errOut, "cert gen", "give -force")
	if code, _, errOut := smtool("cert", "gen", "-out", dir, "-force"); code != 0 {
		t.Errorf("gen -force: %s", errOut)
	}
	if code, _, errOut := smtool("cert", "gen", "-out", t.TempDir()); code != 0 {
		t.Errorf("gen into an empty existing folder: %s", errOut)
	}
}

// TestCertGenFlags: -subj, -client-subj, -ca-subj, validity dates,
// -passout, and the validation of -hosts.
func TestCertGenFlags(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := smtool("cert", "gen", "-out", dir, "-subj", "/C=CN/ST=Zhejiang/O=Acme \\/ Co/CN=acme.cn",
		"-client-subj", "/C=CN/O=Acme/CN=alice", "-ca-subj", "/C=CN/O=Acme/CN=Acme Root",
		"-not-before", "2026-02-01", "-not-after", "2027-02-01", "-passout", "pass:k3y", "-pbe", "openssl", "-hosts", "acme.cn")
	if code != 0 {
		t.Fatal(errOut)
	}
	_, out, _ := smtool("cert", "show", "-subject", "-issuer", "-dates", filepath.Join(dir, "server_sign.pem"), filepath.Join(dir, "client_enc.pem"))
	want := "subject=C=CN, ST=Zhejiang, O=Acme / Co, CN=acme.cn\nissuer=C=CN, O=Acme, CN=Acme Root\n" +
		"notBefore=Feb  1 00:00:00 2026 GMT\nnotAfter=Feb  1 00:00:00 2027 GMT\n" +
		"subject=C=CN, O=Acme, CN=alice\nissuer=C=CN, O=Acme, CN=Acme Root\n" +
		"notBefore=Feb  1 00:00:00 2026 GMT\nnotAfter=Feb  1 00:00:00 2027 GMT\n"
	if out != want {
		t.Errorf("fields:\n%s\nwant\n%s", out, want)
	}
	keyPEM, _ := os.ReadFile(filepath.Join(dir, "server_sign.key"))
	if _, err := smx.ParsePrivateKeyPEM(keyPEM, nil); err == nil {
		t.Error("-passout wrote an unencrypted key")
	}
	if _, err := smx.ParsePrivateKeyPEM(keyPEM, []byte("k3y")); err != nil {
		t.Errorf("-passout key: %v", err)
	}
	// An encrypted CA key issues with -CApass.
	second := t.TempDir()
	code, out, errOut = smtool("cert", "gen", "-out", second, "-CA", filepath.Join(dir, "ca.pem"), "-CAkey", filepath.Join(dir, "ca.key"), "-CApass", "pass:k3y")
	if code != 0 || strings.Contains(out, "ca.pem") {
		t.Fatalf("gen from an encrypted CA: %d %s %s", code, out, errOut)
	}
	code, _, errOut = smtool("cert", "gen", "-out", t.TempDir(), "-CA", filepath.Join(dir, "ca.pem"), "-CAkey", filepath.Join(dir, "ca.key"))
	if code != 1 || !strings.Contains(errOut, "give its password with -CApass") {
		t.Errorf("encrypted CA key without -CApass: %d %q", code, errOut)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-hosts", "a b,,*.x"}, `"a b" is not a valid DNS name`},
		{[]string{"-hosts", "a,,b"}, "empty name between commas"},
		{[]string{"-hosts", "*.cn"}, "a wildcard needs at least two labels"},
		{[]string{"-hosts", "a.*.cn"}, "a wildcard may only be the whole leftmost label"},
		{[]string{"-hosts", "-a.cn"}, "starts or ends with a hyphen"},
		{[]string{"-hosts", "email:x@y.cn"}, "neither a DNS name nor an IP address"},
		{[]string{"-san", "IP:300.1.1.1"}, "not an IP address"},
		{[]string{"-san", "foo:bar"}, "unknown name type"},
		{[]string{"-subj", "CN=x"}, "want /TYPE=value"},
		{[]string{"-subj", "/C=China/CN=x"}, "two-letter code"},
		{[]string{"-subj", "/XX=1"}, `unknown attribute type "XX"`},
		{[]string{"-subj", "/CN=x", "-cn", "y"}, "exclude each other"},
		{[]string{"-days", "0"}, "-days must be positive"},
		{[]string{"-days", "3", "-not-after", "2030-01-01"}, "exclude each other"},
		{[]string{"-not-before", "2030-01-01", "-not-after", "2029-01-01"}, "later than its start"},
		{[]string{"-not-before", "yesterday"}, "cannot parse time"},
		{[]string{"-pbe", "rot13"}, "unknown"},
		{[]string{"-CA", "x.pem"}, "-CA and -CAkey go together"},
	} {
		code, _, errOut := smtool(append([]string{"cert", "gen", "-out", t.TempDir()}, tc.args...)...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", tc.args, code)
		}
		oneLineError(t, errOut, "cert gen", tc.want)
	}
	// Key of another CA, a leaf as CA.
	for _, args := range [][]string{
		{"-CA", filepath.Join(dir, "ca.pem"), "-CAkey", filepath.Join(dir, "server_sign.key"), "-CApass", "pass:k3y"},
		{"-CA", filepath.Join(dir, "server_sign.pem"), "-CAkey", filepath.Join(dir, "server_sign.key"), "-CApass", "pass:k3y"},
	} {
		code, _, errOut := smtool(append([]string{"cert", "gen", "-out", t.TempDir()}, args...)...)
		if code != 1 || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
}

// TestKeyGenConvert: every output form reads back, the encrypted ones only
// with the password, and the openssl CLI reads what it should.
func TestKeyGenConvert(t *testing.T) {
	dir := t.TempDir()
	f := func(n string) string { return filepath.Join(dir, n) }
	cases := []struct {
		file, pemType string
		args          []string
		password      string
	}{
		{"p8.key", "PRIVATE KEY", nil, ""},
		{"sec1.key", "EC PRIVATE KEY", []string{"-format", "sec1"}, ""},
		{"gmssl.key", "ENCRYPTED PRIVATE KEY", []string{"-pass", "P@ssw0rd"}, "P@ssw0rd"},
		{"openssl.key", "ENCRYPTED PRIVATE KEY", []string{"-passout", "pass:secret", "-pbe", "openssl"}, "secret"},
		{"tongsuo.key", "ENCRYPTED PRIVATE KEY", []string{"-pass", "env:SMTOOL_TEST_PASS", "-pbe", "tongsuo"}, "from the environment"},
	}
	t.Setenv("SMTOOL_TEST_PASS", "from the environment")
	for _, c := range cases {
		code, _, errOut := smtool(append([]string{"key", "gen", "-out", f(c.file), "-pubout", f(c.file + ".pub")}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: %s", c.file, errOut)
		}
		data, _ := os.ReadFile(f(c.file))
		if !strings.HasPrefix(string(data), "-----BEGIN "+c.pemType+"-----") {
			t.Errorf("%s: %.40q, want a %s block", c.file, data, c.pemType)
		}
		if fi, _ := os.Stat(f(c.file)); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", c.file, fi.Mode())
		}
		var pw []byte
		if c.password != "" {
			pw = []byte(c.password)
			if _, err := smx.ParsePrivateKeyPEM(data, nil); err == nil {
				t.Errorf("%s: reads without a password", c.file)
			}
		}
		k, err := smx.ParsePrivateKeyPEM(data, pw)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if _, ok := k.(*sm2.PrivateKey); !ok {
			t.Errorf("%s: %T", c.file, k)
		}
		pubPEM, _ := os.ReadFile(f(c.file + ".pub"))
		pub, err := smx.ParsePublicKeyPEM(pubPEM)
		if err != nil || !k.(*sm2.PrivateKey).PublicKey().Equal(pub) {
			t.Errorf("%s: -pubout %v", c.file, err)
		}
		// Round trip through convert, to plain PKCS #8 on stdout.
		code, out, errOut := smtool("key", "convert", "-in", f(c.file), "-passin", "pass:"+c.password)
		if code != 0 || !strings.HasPrefix(out, "-----BEGIN PRIVATE KEY-----") {
			t.Errorf("convert %s: %d %s", c.file, code, errOut)
		}
	}
	if _, err := exec.LookPath("openssl"); err == nil {
		for _, c := range []struct{ file, pass string }{{"p8.key", ""}, {"sec1.key", ""}, {"openssl.key", "secret"}} {
			args := []string{"pkey", "-in", f(c.file), "-noout"}
			if c.pass != "" {
				args = append(args, "-passin", "pass:"+c.pass)
			}
			if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
				t.Errorf("openssl pkey %s: %v %s", c.file, err, out)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"key", "gen", "-format", "sec1", "-pass", "x"}, 2, "SEC 1 keys are written unencrypted only"},
		{[]string{"key", "gen", "-format", "der"}, 2, "unknown"},
		{[]string{"key", "gen", "-algorithm", "RSA"}, 2, "SM2 keys only"},
		{[]string{"key", "gen", "-pass", "env:SMTOOL_NO_SUCH_VARIABLE"}, 1, "not set"},
		{[]string{"key", "gen", "-pass", "file:/does/not/exist"}, 1, "no such file"},
		{[]string{"key", "convert"}, 2, "-in FILE is required"},
		{[]string{"key", "convert", f("gmssl.key")}, 1, "give its password with -passin"},
		{[]string{"key", "convert", f("gmssl.key"), "-passin", "wrong"}, 1, "wrong password"},
		{[]string{"key", "convert", local("gmssl_keys.pem"), "-passin", "P@ssw0rd"}, 1, "holds 2 private keys"},
		{[]string{"key", "convert", local("sign.pem")}, 1, "1 certificate"},
	} {
		code, _, errOut := smtool(tc.args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
		oneLineError(t, errOut, tc.args[0]+" "+tc.args[1], tc.want)
	}
}

// TestPasswordSources: pass:, env:, file:, stdin and a bare word.
func TestPasswordSources(t *testing.T) {
	e := &env{stdin: strings.NewReader("from stdin\nthe rest is data\n")}
	file := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(file, []byte("from a file\r\nsecond line\n"), 0o600)
	t.Setenv("SMTOOL_PW", "from env")
	for spec, want := range map[string]string{
		"pass:a:b": "a:b", "env:SMTOOL_PW": "from env", "file:" + file: "from a file", "stdin": "from stdin",
		"P@ssw0rd": "P@ssw0rd", "": "",
	} {
		got, err := e.password("pass", spec)
		if err != nil || string(got) != want {
			t.Errorf("%q: %q %v, want %q", spec, got, err, want)
		}
	}
	// stdin was read up to its first newline only.
	rest := make([]byte, 100)
	n, _ := e.stdin.Read(rest)
	if string(rest[:n]) != "the rest is data\n" {
		t.Errorf("stdin after the password: %q", rest[:n])
	}
	if _, err := e.password("pass", "fd:x"); err == nil {
		t.Error("fd:x accepted")
	}
}

// TestReqCASignCRL: a CSR from req, issued by ca sign in each role, revoked
// by crl gen, and checked by cert verify -crl and -pair; openssl reads the
// results when it is installed.
func TestReqCASignCRL(t *testing.T) {
	dir := t.TempDir()
	f := func(n string) string { return filepath.Join(dir, n) }
	ca, caKey := local("ca.pem"), local("ca.key")
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := smtool(args...)
		if code != 0 {
			t.Fatalf("%q: %d %s", args, code, errOut)
		}
		return out
	}
	run("req", "-newkey", "sm2", "-keyout", f("sign.key"), "-subj", "/C=CN/O=Example/CN=api.example.cn",
		"-hosts", "api.example.cn,10.1.2.3", "-san", "email:ops@example.cn", "-out", f("sign.csr"))
	run("req", "-newkey", "sm2", "-keyout", f("enc.key"), "-passout", "pass:x", "-C", "CN", "-O", "Example", "-CN", "api.example.cn",
		"-hosts", "api.example.cn,10.1.2.3", "-out", f("enc.csr"), "-outform", "der")
	out := run("cert", "show", f("sign.csr"))
	mustContain(t, "the CSR", out, "Subject: C=CN, O=Example, CN=api.example.cn", "DNS:api.example.cn, IP Address:10.1.2.3, email:ops@example.cn", "Self-signature: ok")
	run("ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.csr"), "-role", "sign", "-eku", "serverAuth", "-days", "90", "-out", f("sign.pem"))
	run("ca", "sign", "-cacert", ca, "-key_usage", "keyEncipherment,dataEncipherment", "-ext_key_usage", "serverAuth", "-CAkey", caKey, f("enc.csr"), "-out", f("enc.pem"), "-serial", "0x1234")
	out = run("cert", "show", "-serial", "-role", "-ext", "keyUsage,extendedKeyUsage,subjectAltName", f("sign.pem"), f("enc.pem"))
	mustContain(t, "issued certificates", out, "TLCP role=signing certificate", "TLCP role=encryption certificate", "serial=1234",
		"Key Encipherment, Data Encipherment", "TLS Web Server Authentication", "DNS:api.example.cn, IP Address:10.1.2.3")
	out = run("cert", "verify", "-CAfile", ca, "-host", "api.example.cn", "-purpose", "server", "-pair", f("sign.pem"), f("enc.pem"))
	mustContain(t, "pair", out, "sign.pem: OK", "enc.pem: OK", "pair: OK", "pair: warning: the subject alternative names differ")
	// A CA certificate from a request.
	run("req", "-newkey", "sm2", "-keyout", f("sub.key"), "-subj", "/C=CN/O=Example/CN=Example Sub CA", "-out", f("sub.csr"))
	run("ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sub.csr"), "-role", "ca", "-path_len", "0", "-out", f("sub.pem"))
	mustContain(t, "sub CA", run("cert", "show", "-ext", "basicConstraints,keyUsage", f("sub.pem")), "CA:TRUE, pathlen:0", "Certificate Sign, CRL Sign")
	// The sub CA issues a leaf; verify with -untrusted.
	run("req", "-key", f("sign.key"), "-subj", "/CN=leaf.example.cn", "-out", f("leaf.csr"))
	run("ca", "sign", "-CA", f("sub.pem"), "-CAkey", f("sub.key"), "-in", f("leaf.csr"), "-role", "sign", "-hosts", "leaf.example.cn", "-out", f("leaf.pem"))
	mustContain(t, "chain", run("cert", "verify", "-CAfile", ca, "-untrusted", f("sub.pem"), "-host", "leaf.example.cn", f("leaf.pem")),
		`OK (chain: "leaf.example.cn" <- "Example Sub CA" <- "shangmi Test Root CA")`)

	// Revocation: a CRL of the root revoking enc.pem (and another serial).
	run("crl", "gen", "-CA", ca, "-CAkey", caKey, "-revoke", f("enc.pem"), "-revoke", "ABCDEF", "-reason", "superseded", "-out", f("ca.crl"))
	out = run("crl", "show", "-CAfile", ca, f("ca.crl"))
	mustContain(t, "the CRL", out, "verify OK", "Serial Number: 1234", "superseded (4)", "Serial Number: ABCDEF", "X509v3 CRL Number:\n                1")
	code, out, _ := smtool("cert", "verify", "-CAfile", ca, "-crl", f("ca.crl"), f("sign.pem"), f("enc.pem"))
	if code != 1 {
		t.Errorf("verify with a CRL revoking one of two: exit %d", code)
	}
	mustContain(t, "revoked", out, "sign.pem: OK", "enc.pem: verification failed: certificate revoked", "reason superseded")
	// An older CRL extended: entries kept, number increased.
	run("crl", "gen", "-CA", ca, "-CAkey", caKey, "-in", f("ca.crl"), "-revoke", f("sign.pem"), "-out", f("ca2.crl"))
	out = run("crl", "show", "-noout", "-crlnumber", f("ca2.crl"))
	if out != "crlNumber=0x02\n" { // as openssl crl -crlnumber prints it
		t.Errorf("extended CRL number: %q", out)
	}
	mustContain(t, "extended CRL", run("crl", "show", f("ca2.crl")), "Serial Number: 1234", "Serial Number: ABCDEF", serialHexOf(t, f("sign.pem")))
	// A leaf without a CRL for its issuer: -crl requires one for the leaf.
	code, _, errOut := smtool("cert", "verify", "-CAfile", ca, "-untrusted", f("sub.pem"), "-crl", f("ca.crl"), f("leaf.pem"))
	if code != 1 || !strings.Contains(errOut, "unable to get the CRL") {
		t.Errorf("leaf without its CRL: %d %q", code, errOut)
	}
	// The intermediate's CRL alone suffices without -crl_check_all...
	run("crl", "gen", "-CA", f("sub.pem"), "-CAkey", f("sub.key"), "-out", f("sub.crl"))
	run("cert", "verify", "-CAfile", ca, "-untrusted", f("sub.pem"), "-crl", f("sub.crl"), f("leaf.pem"))
	// ...and with it the root's CRL is needed too.
	code, _, _ = smtool("cert", "verify", "-CAfile", ca, "-untrusted", f("sub.pem"), "-crl", f("sub.crl"), "-crl_check_all", f("leaf.pem"))
	if code != 1 {
		t.Errorf("-crl_check_all without the root's CRL: exit %d", code)
	}
	// An expired CRL is refused.
	code, _, errOut = smtool("cert", "verify", "-CAfile", ca, "-crl", f("ca.crl"), "-at", "2099-01-01", "-purpose", "any", f("sign.pem"))
	if code != 1 || !(strings.Contains(errOut, "has expired") || strings.Contains(errOut, "expired")) {
		t.Errorf("expired CRL: %d %q", code, errOut)
	}

	if _, err := exec.LookPath("openssl"); err == nil {
		for _, c := range [][]string{
			{"x509", "-in", f("sign.pem"), "-noout"},
			{"req", "-in", f("sign.csr"), "-noout", "-verify"},
			{"crl", "-in", f("ca.crl"), "-noout"},
			// OpenSSL 3.0 verifies with the empty SM2 ID unless told.
			{"verify", "-vfyopt", "distid:1234567812345678", "-CAfile", ca, f("sign.pem")},
		} {
			if out, err := exec.Command("openssl", c...).CombinedOutput(); err != nil {
				t.Errorf("openssl %q: %v %s", c, err, out)
			}
		}
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"req", "-subj", "/CN=x"}, 2, "give the key"},
		{[]string{"req", "-key", f("sign.key")}, 2, "-subj"},
		{[]string{"req", "-key", f("enc.key"), "-subj", "/CN=x"}, 1, "give its password with -passin"},
		{[]string{"req", "-newkey", "rsa:2048", "-keyout", f("x"), "-subj", "/CN=x"}, 2, "SM2 keys only"},
		{[]string{"req", "-key", f("sign.key"), "-subj", "/CN=x", "-hosts", "a_b c"}, 2, "not a valid DNS name"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.csr")}, 2, "-role sign|enc|ca"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.csr"), "-role", "both"}, 2, "unknown"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.csr"), "-role", "sign", "-key_usage", "keyEncipherment"}, 2, "exclude each other"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.csr"), "-key_usage", "signing"}, 2, "unknown"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.csr"), "-role", "sign", "-eku", "web"}, 2, "unknown"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.csr"), "-role", "sign", "-path_len", "1"}, 2, "CA certificates"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("sign.pem"), "-role", "sign"}, 1, "no CERTIFICATE REQUEST"},
		{[]string{"ca", "sign", "-CA", f("sign.pem"), "-CAkey", f("sign.key"), "-in", f("sign.csr"), "-role", "sign"}, 1, "not a CA certificate"},
		{[]string{"ca", "sign", "-CA", ca, "-CAkey", f("sign.key"), "-in", f("sign.csr"), "-role", "sign"}, 1, "does not belong"},
		{[]string{"ca", "sign", "-in", f("sign.csr"), "-role", "sign"}, 2, "-CA FILE and -CAkey FILE are required"},
		{[]string{"crl", "gen", "-CA", ca, "-CAkey", caKey, "-revoke", "xyz"}, 2, "neither a file nor a serial number"},
		{[]string{"crl", "gen", "-CA", ca, "-CAkey", caKey, "-reason", "boredom"}, 2, "unknown"},
		{[]string{"crl", "gen", "-CA", ca, "-CAkey", caKey, "-revoke", f("leaf.pem")}, 1, "not issued by this CA"},
		{[]string{"crl", "gen", "-CA", ca, "-CAkey", caKey, "-in", f("sub.crl")}, 1, "is not a CRL of"},
		{[]string{"cert", "verify", f("sign.pem")}, 2, "-CAfile FILE is required"},
		{[]string{"cert", "verify", "-CAfile", ca}, 2, "missing CERT"},
		{[]string{"cert", "verify", "-CAfile", ca, "-pair", f("sign.pem")}, 2, "-pair wants two"},
		{[]string{"cert", "verify", "-CAfile", ca, f("sign.pem"), "-purpose", "x"}, 2, "unknown -purpose"},
		{[]string{"crl", "show", "-CAfile", f("sub.pem"), f("ca.crl")}, 1, "verify failure"},
	} {
		code, _, errOut := smtool(tc.args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
		name := tc.args[0]
		if name != "req" {
			name += " " + tc.args[1]
		}
		oneLineError(t, errOut, name, tc.want)
	}
}

func serialHexOf(t *testing.T, path string) string {
	t.Helper()
	certs, err := readCertificates(path)
	if err != nil {
		t.Fatal(err)
	}
	return serialHex(certs[0].SerialNumber)
}

// TestVerifyPairs: -pair and GmSSL's combined file are checked as TLCP
// pairs, and the problems are named.
func TestVerifyPairs(t *testing.T) {
	ca := local("ca.pem")
	code, out, errOut := smtool("cert", "verify", "-CAfile", ca, local("gmssl_certs.pem"))
	if code != 0 {
		t.Fatalf("GmSSL combined file: %d %s %s", code, out, errOut)
	}
	mustContain(t, "combined file", out, "(first certificate): OK", "(second certificate): OK", "pair: OK")
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	for _, tc := range []struct {
		name      string
		sign, enc string
		roots     string
		want      []string
		code      int
		notWanted string
	}{
		{"swapped", local("enc.pem"), local("sign.pem"), ca, []string{"is not a TLCP signing certificate", "is not a TLCP encryption certificate"}, 1, ""},
		{"two parties", local("sign.pem"), local("client_sign.pem"), ca, []string{"the subjects differ", "not a TLCP encryption certificate"}, 1, ""},
		{"other issuer", local("sign.pem"), tl("server_enc.pem"), ca, []string{"the issuers have the same name but different keys"}, 1, ""},
		{"same certificate", local("sign.pem"), local("sign.pem"), ca, []string{"same public key"}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := smtool("cert", "verify", "-CAfile", tc.roots, "-pair", tc.sign, tc.enc)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
			mustContain(t, "output", out, tc.want...)
			mustContain(t, "output", out, "pair: NOT a TLCP pair")
		})
	}
	// The module's openssl-made pair is fine too (roots: its own CA).
	o := func(n string) string { return moduleTestdata(t, "openssl", n) }
	if code, out, _ := smtool("cert", "verify", "-CAfile", o("ca.pem"), "-pair", o("server_sign.pem"), o("server_enc.pem")); code != 0 {
		t.Errorf("openssl pair: %d\n%s", code, out)
	}
}

// TestGmSSLWarnings: cert verify names what GmSSL 3 refuses that others
// accept (the module's tlcp/ certificates have both problems), and what
// smtool issues has neither.
func TestGmSSLWarnings(t *testing.T) {
	_, out, _ := smtool("cert", "verify", "-CAfile", moduleTestdata(t, "tlcp", "ca.pem"), moduleTestdata(t, "tlcp", "server_sign.pem"))
	mustContain(t, "cert verify", out, `warning: "shangmi test server": it has an empty basicConstraints extension (CA:FALSE), which GmSSL 3 refuses`,
		`warning: "shangmi test server": it is valid for 7305 days; GmSSL 3 refuses more than 3653`)
	dir := t.TempDir()
	code, _, errOut := smtool("cert", "gen", "-out", dir, "-not-before", "2026-01-01", "-not-after", "2046-01-01")
	if code != 0 || !strings.Contains(errOut, "warning: valid for 7305 days: GmSSL 3 refuses certificates valid for more than 3653 days") {
		t.Errorf("cert gen of 20 years: %d %q", code, errOut)
	}
	if _, out, _ := smtool("cert", "verify", "-CAfile", local("ca.pem"), local("sign.pem"), local("enc.pem")); strings.Contains(out, "warning") {
		t.Errorf("smtool's own certificates draw warnings:\n%s", out)
	}
}
