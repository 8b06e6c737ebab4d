// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTLS13Trace: -trace on a TLS 1.3 connection decodes every message
// (no "(malformed)", no "type 8") and names the TLS 1.3 extensions, on
// both sides.
func TestTLS13Trace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "server.trace")
	srv := startServer(t, "-naccept", "1", "-trace", "-msgfile", trace, "-Verify", "1", "-CAfile", moduleTestdata(t, "tlcp", "ca.pem"))
	code, out, errOut := smtoolIn("ping\n", clientArgs(t, srv.addr, append([]string{"-tls1_3", "-trace"}, clientCerts(t)...)...)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	srv.wait(t)
	serverTrace, _ := os.ReadFile(trace)
	for side, text := range map[string]string{"client": out, "server": string(serverTrace)} {
		mustContain(t, side+" -trace", text, ">>> TLSv1.3 Handshake", "<<< TLSv1.3 Handshake",
			"EncryptedExtensions", "supported_versions TLSv1.3", "signature_algorithms sm2sig_sm3", "key_share curveSM2MLKEM768",
			"psk_key_exchange_modes psk_dhe_ke", "0: s:C=CN, O=shangmi, CN=shangmi test server [signing certificate]",
			"sm2sig_sm3 signature (", "CertificateRequest", "extensions: signature_algorithms sm2sig_sm3")
		mustNotContain(t, side+" -trace", text, "(malformed)", "type 8", "extension 43", "extension 51", "TLCP Handshake")
	}
	mustContain(t, "client -trace", out, "NewSessionTicket", "lifetime ", "0: s:C=CN, O=shangmi, CN=shangmi test client [signing certificate]")
	mustNotContain(t, "client output", out, "Session-ID:") // TLS 1.3's is the legacy echo
}

// TestTLS13Sessions: -sess_out writes the TLS 1.3 ticket once the
// connection ends, -sess_in resumes it in another run, -no_ticket on
// either side leaves no ticket, and -keylogfile has the TLS 1.3 secrets.
func TestTLS13Sessions(t *testing.T) {
	dir := t.TempDir()
	sess, keylog := filepath.Join(dir, "s13.pem"), filepath.Join(dir, "keys.log")
	srv := startServer(t, "-naccept", "5")
	code, _, errOut := smtoolIn("one\n", clientArgs(t, srv.addr, "-tls1_3", "-sess_out", sess, "-keylogfile", keylog)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	data, _ := os.ReadFile(sess)
	mustContain(t, "-sess_out file", string(data), "-----BEGIN SHANGMI TLCP SESSION-----")
	logged, _ := os.ReadFile(keylog)
	mustContain(t, "key log", string(logged), "CLIENT_HANDSHAKE_TRAFFIC_SECRET ", "SERVER_HANDSHAKE_TRAFFIC_SECRET ",
		"CLIENT_TRAFFIC_SECRET_0 ", "SERVER_TRAFFIC_SECRET_0 ", "EXPORTER_SECRET ", "TLSv1.3 TLS_SM4_GCM_SM3, group curveSM2MLKEM768")
	code, out, errOut := smtoolIn("two\n", clientArgs(t, srv.addr, "-tls1_3", "-sess_in", sess)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	mustContain(t, "-sess_in", out, "Protocol  : TLSv1.3 (0x0304)", "Resumed   : true", "two")

	// The client keeps no ticket with -no_ticket.
	code, _, errOut = smtoolIn("three\n", clientArgs(t, srv.addr, "-tls1_3", "-no_ticket", "-sess_out", filepath.Join(dir, "none.pem"))...)
	if code == 0 || !strings.Contains(errOut, "no TLS 1.3 session ticket") {
		t.Errorf("-no_ticket -sess_out: exit %d, %q", code, errOut)
	}
	// -reconnect does not resume with -no_ticket.
	code, out, errOut = smtoolIn("", clientArgs(t, srv.addr, "-tls1_3", "-no_ticket", "-reconnect", "1")...)
	if code != 0 || strings.Contains(out, "Resumed   : true") || !strings.Contains(errOut, "not resumed") {
		t.Errorf("-no_ticket -reconnect: exit %d, %s %s", code, out, errOut)
	}
	srv.wait(t)

	// A server with -no_ticket sends none.
	srv = startServer(t, "-naccept", "1", "-no_ticket")
	code, _, errOut = smtoolIn("four\n", clientArgs(t, srv.addr, "-tls1_3", "-sess_out", filepath.Join(dir, "none2.pem"))...)
	if code == 0 || !strings.Contains(errOut, "no TLS 1.3 session ticket") {
		t.Errorf("s_server -no_ticket: exit %d, %q", code, errOut)
	}
	srv.wait(t)
}

// TestTLS13Rate: -n/-c makes TLS 1.3 handshakes too, and says so.
func TestTLS13Rate(t *testing.T) {
	srv := startServer(t, "-naccept", "6")
	code, out, errOut := smtool(clientArgs(t, srv.addr, "-tls1_3", "-n", "4", "-c", "2")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	mustContain(t, "-n -tls1_3", out, "4 handshakes with", "(default TLS 1.3 suites), 2 at a time", "latency: p50")
	code, out, errOut = smtool(clientArgs(t, srv.addr, "-cipher", "TLS_SM4_CCM_SM3", "-n", "2")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	mustContain(t, "-n by suite name", out, "2 handshakes with", "(TLS_SM4_CCM_SM3)")
	srv.wait(t)
}

// TestBriefStateVerifyHostname: Tongsuo's -brief, -state and
// -verify_hostname.
func TestBriefStateVerifyHostname(t *testing.T) {
	srv := startServer(t, "-naccept", "4", "-brief")
	code, out, errOut := smtoolIn("x", clientArgs(t, srv.addr, "-tls1_3", "-brief")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	mustContain(t, "-brief", errOut, "CONNECTION ESTABLISHED", "Protocol version: TLSv1.3", "Ciphersuite: TLS_SM4_GCM_SM3",
		"Negotiated group: curveSM2MLKEM768", "Peer certificate: C=CN, O=shangmi, CN=shangmi test server", "Verification: OK")
	mustNotContain(t, "-brief stdout", out, "CONNECTED", "Cipher    :")

	_, out, _ = smtoolIn("x", clientArgs(t, srv.addr, "-tlcp", "-state", "-quiet")...)
	mustContain(t, "-state", out, "SSL_connect:SSLv3/TLS write client hello", "SSL_connect:SSLv3/TLS read server hello",
		"SSL_connect:SSLv3/TLS read server certificate", "SSL_connect:SSLv3/TLS read server done",
		"SSL_connect:SSLv3/TLS write client key exchange", "SSL_connect:SSLv3/TLS write finished", "SSL_connect:SSLv3/TLS read finished")
	mustNotContain(t, "-state", out, "Handshake [length")

	// The certificate names localhost and 127.0.0.1, not this name.
	code, _, errOut = smtoolIn("", clientArgs(t, srv.addr, "-verify_hostname", "www.example.cn", "-verify_return_error")...)
	if code == 0 || !strings.Contains(errOut, "www.example.cn") {
		t.Errorf("-verify_hostname of another name: exit %d, %q", code, errOut)
	}
	code, out, errOut = smtoolIn("", clientArgs(t, srv.addr, "-servername", "tlcp.test", "-verify_hostname", "localhost", "-verify_return_error")...)
	if code != 0 {
		t.Fatalf("-verify_hostname localhost: %s", errOut)
	}
	mustContain(t, "-verify_hostname localhost", out, `SNI       : sent "tlcp.test"`, `Verification: OK (chain: "shangmi test server" <- "shangmi Test Root CA")`)
	_, sout := srv.wait(t)
	_ = sout
}
