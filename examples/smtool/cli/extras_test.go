// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/smx509/ocsp"
)

// TestStapleAndKeymatFlags: s_server -status_file staples a response made
// by smtool ocsp's responder, s_client -status_require checks it, in TLS
// 1.3 and in both TLCP forms, and -keymatexport prints the same keying
// material on both sides.
func TestStapleAndKeymatFlags(t *testing.T) {
	dir := t.TempDir()
	td := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	cas, err := readCertificates(td("ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := readCertificates(td("server_sign.pem"))
	if err != nil {
		t.Fatal(err)
	}
	req, err := ocsp.CreateRequest(leaves[0], cas[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	reqFile, idx, resp := filepath.Join(dir, "req.der"), filepath.Join(dir, "index.txt"), filepath.Join(dir, "resp.der")
	os.WriteFile(reqFile, req, 0o600)
	os.WriteFile(idx, []byte(fmt.Sprintf("V\t361231000000Z\t\t%X\tunknown\t/CN=server\n", leaves[0].SerialNumber)), 0o600)
	if code, _, errOut := smtool("ocsp", "-index", idx, "-CA", td("ca.pem"), "-rsigner", td("ca.pem"), "-rkey", td("ca.key"),
		"-reqin", reqFile, "-respout", resp, "-ndays", "1"); code != 0 {
		t.Fatalf("smtool ocsp: %s", errOut)
	}
	keymat := regexp.MustCompile(`Keying material: ([0-9A-F]{32})\n`)
	for _, tc := range []struct{ name, proto, form string }{
		{"TLS 1.3", "-tls1_3", ""}, {"TLCP CertificateStatus", "-tlcp", ""}, {"TLCP ServerHello", "-tlcp", "-status_in_hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sargs := []string{"-naccept", "1", "-status_file", resp, "-keymatexport", "EXPERIMENTAL-test", "-keymatexportlen", "16"}
			if tc.form != "" {
				sargs = append(sargs, tc.form)
			}
			srv := startServer(t, sargs...)
			code, out, errOut := smtoolIn("x", clientArgs(t, srv.addr, tc.proto, "-status_require",
				"-keymatexport", "EXPERIMENTAL-test", "-keymatexportlen", "16")...)
			if code != 0 || !strings.Contains(out, "OCSP response: ") || !strings.Contains(out, "Label: 'EXPERIMENTAL-test'") {
				t.Fatalf("s_client: %d\n%s%s", code, out, errOut)
			}
			_, sout := srv.wait(t)
			c, s := keymat.FindStringSubmatch(out), keymat.FindStringSubmatch(sout)
			if c == nil || s == nil || c[1] != s[1] {
				t.Fatalf("keying material: client %q, server %q", c, s)
			}
		})
	}
	// A client that requires a staple from a server without one fails.
	srv := startServer(t, "-naccept", "1")
	if code, _, errOut := smtoolIn("x", clientArgs(t, srv.addr, "-status_require")...); code == 0 || !strings.Contains(errOut, "stapled no OCSP response") {
		t.Fatalf("no staple: %d %s", code, errOut)
	}
	srv.wait(t)
}
