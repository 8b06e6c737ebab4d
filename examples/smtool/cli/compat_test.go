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
)

// TestSerialLeadingZero: a serial whose hex starts with 0 keeps the zero
// in cert show -serial, crl show and the revocation error, as openssl
// x509 -serial prints it (checked against openssl when it is installed).
func TestSerialLeadingZero(t *testing.T) {
	dir := t.TempDir()
	f := func(n string) string { return filepath.Join(dir, n) }
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := smtool(args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		return out
	}
	ca, caKey := local("ca.pem"), local("ca.key")
	run("req", "-newkey", "sm2", "-keyout", f("k.key"), "-subj", "/CN=zero.example.cn", "-out", f("k.csr"))
	run("ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("k.csr"), "-role", "sign", "-set_serial", "0ABCDE", "-days", "30", "-out", f("k.pem"))
	out := run("cert", "show", "-noout", "-serial", f("k.pem"))
	if out != "serial=0ABCDE\n" {
		t.Errorf("cert show -serial: %q, want serial=0ABCDE", out)
	}
	if openssl, err := exec.LookPath("openssl"); err == nil {
		if want, err := exec.Command(openssl, "x509", "-noout", "-serial", "-in", f("k.pem")).Output(); err == nil && string(want) != out {
			t.Errorf("cert show -serial %q, openssl x509 -serial %q", out, want)
		}
	}
	run("crl", "gen", "-CA", ca, "-CAkey", caKey, "-revoke", f("k.pem"), "-out", f("ca.crl"))
	mustContain(t, "crl show", run("crl", "show", f("ca.crl")), "Serial Number: 0ABCDE")
	code, vout, verr := smtool("cert", "verify", "-CAfile", ca, "-crl", f("ca.crl"), f("k.pem"))
	if code != 1 || !strings.Contains(vout+verr, "(serial 0ABCDE)") {
		t.Errorf("revoked: exit %d, %q %q", code, vout, verr)
	}
	for _, n := range []struct {
		hex, want string
	}{{"7F", "7F"}, {"80", "80"}, {"0100", "0100"}} {
		run("ca", "sign", "-CA", ca, "-CAkey", caKey, "-in", f("k.csr"), "-role", "sign", "-set_serial", n.hex, "-days", "30", "-out", f("n.pem"))
		if got := run("cert", "show", "-noout", "-serial", f("n.pem")); got != "serial="+n.want+"\n" {
			t.Errorf("serial %s printed %q, want %s", n.hex, got, n.want)
		}
	}
}

// TestVersionFirstLine: smtool version names itself, not speed.
func TestVersionFirstLine(t *testing.T) {
	_, out, _ := smtool("version")
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "smtool ") || strings.Contains(first, "speed") || !strings.Contains(first, "CPUs") {
		t.Errorf("first line %q", first)
	}
	mustContain(t, "version", out, "CPU features:", "cipher suites:")
}

// TestHelpSpeaksTLS13: no help text says smtool speaks TLCP only.
func TestHelpSpeaksTLS13(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"s_client", "-h"}, {"s_server", "-h"}} {
		_, out, errOut := smtool(args...)
		all := out + errOut
		mustNotContain(t, strings.Join(args, " "), all, "speaks TLCP only", "NTLS, only")
		mustContain(t, strings.Join(args, " "), all, "TLS 1.3")
	}
}

// TestREADMEPKIExample runs the README's cert gen, req and ca sign lines:
// the certificate does not outlive its CA, and it is a server certificate.
func TestREADMEPKIExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(moduleTestdata(t)), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var ran []string
	for _, line := range strings.Split(string(readme), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		fields := strings.Fields(strings.ReplaceAll(cmd, "/tmp/", dir+"/"))
		if len(fields) < 4 || fields[0] != "go" || fields[2] != "./examples/smtool" {
			continue
		}
		args := fields[3:]
		if name := strings.Join(args[:min(2, len(args))], " "); name != "cert gen" && name != "ca sign" && args[0] != "req" {
			continue
		}
		code, _, errOut := smtool(args...)
		if code != 0 || errOut != "" {
			t.Errorf("README: smtool %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
		ran = append(ran, args[0])
	}
	if len(ran) != 3 {
		t.Fatalf("ran %q from the README, want cert gen, req, ca sign", ran)
	}
	_, out, _ := smtool("cert", "show", "-noout", "-ext", "extendedKeyUsage", filepath.Join(dir, "k.pem"))
	mustContain(t, "README's certificate", out, "TLS Web Server Authentication")
}
