// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Interop with real peers, for manual runs: SHANGMI_TONGSUO names a
// Tongsuo `tongsuo` (or `openssl`) binary, SHANGMI_GMSSL a GmSSL 3
// `gmssl` binary; without them these tests skip (neither tool is packaged
// for the CI machine). Loopback only.

// peer runs a GmSSL or Tongsuo binary with its libraries found.
type peer struct {
	t    *testing.T
	path string
}

func peerFromEnv(t *testing.T, env string) *peer {
	path := os.Getenv(env)
	if path == "" {
		t.Skip(env + " is not set")
	}
	return &peer{t, path}
}

func (p *peer) cmd(dir string, args ...string) *exec.Cmd {
	prefix := filepath.Dir(filepath.Dir(p.path))
	cmd := exec.Command(p.path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Join(prefix, "lib")+":"+filepath.Join(prefix, "lib64"))
	return cmd
}

// run runs a command to its end and fails the test if it fails.
func (p *peer) run(dir string, args ...string) string {
	p.t.Helper()
	out, err := p.cmd(dir, args...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("%s %q: %v\n%s", filepath.Base(p.path), args, err, out)
	}
	return string(out)
}

// server starts a long-running peer server and waits until port accepts.
// Its standard input stays open until the test ends.
func (p *peer) server(dir, port string, args ...string) *bytes.Buffer {
	p.t.Helper()
	cmd := p.cmd(dir, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			// The probe was the peer's connection: give it a moment to
			// be done with it (GmSSL serves one at a time).
			time.Sleep(200 * time.Millisecond)
			return &out
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s did not listen on %s: %s", filepath.Base(p.path), port, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// client runs a peer client with stdin to its end.
func (p *peer) client(dir, stdin string, args ...string) (string, error) {
	cmd := p.cmd(dir, args...)
	cmd.Stdin = strings.NewReader(stdin)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	return string(out), err
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// TestTongsuoInterop: Tongsuo's s_server and s_client (-enable_ntls)
// against ours, with commands as Tongsuo's documentation spells them.
func TestTongsuoInterop(t *testing.T) {
	ts := peerFromEnv(t, "SHANGMI_TONGSUO")
	dir := moduleTestdata(t, "tlcp")
	serverArgs := []string{"-enable_ntls", "-sign_cert", "server_sign.pem", "-sign_key", "server_sign.key",
		"-enc_cert", "server_enc.pem", "-enc_key", "server_enc.key"}
	clientPair := []string{"-sign_cert", "client_sign.pem", "-sign_key", "client_sign.key", "-enc_cert", "client_enc.pem", "-enc_key", "client_enc.key"}
	abs := func(args []string) []string {
		out := slices.Clone(args)
		for i, a := range out {
			if strings.HasSuffix(a, ".pem") || strings.HasSuffix(a, ".key") {
				out[i] = filepath.Join(dir, a)
			}
		}
		return out
	}

	t.Run("tongsuo s_server, smtool s_client", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			server []string
			client []string
			fails  string // hint expected when it fails
		}{
			{"ECC GCM", nil, []string{"-cipher", "ECC-SM2-SM4-GCM-SM3"}, ""},
			{"ECC CBC", nil, []string{"-cipher", "ECC-SM2-SM4-CBC-SM3"}, ""},
			{"ECDHE GCM", []string{"-Verify", "1", "-CAfile", "ca.pem"}, append([]string{"-cipher", "ECDHE-SM2-SM4-GCM-SM3"}, clientPair...), ""},
			{"ECDHE CBC", []string{"-Verify", "1", "-CAfile", "ca.pem"}, append([]string{"-cipher", "ECDHE-SM2-SM4-CBC-SM3"}, clientPair...), ""},
			{"ECC client auth, -peer tongsuo", []string{"-Verify", "1", "-CAfile", "ca.pem"}, append([]string{"-cipher", "ECC-SM2-SM4-GCM-SM3", "-peer", "tongsuo"}, clientPair...), ""},
			// The default client sends SIGN, ENC because Tongsuo's
			// CertificateRequest lists rsa_sign (tlcp/INTEROP.md §12.2).
			{"ECC client auth, no switch", []string{"-Verify", "1", "-CAfile", "ca.pem"}, append([]string{"-cipher", "ECC-SM2-SM4-GCM-SM3"}, clientPair...), ""},
			{"ECC CBC client auth, no switch", []string{"-Verify", "1", "-CAfile", "ca.pem"}, append([]string{"-cipher", "ECC-SM2-SM4-CBC-SM3"}, clientPair...), ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				port := freePort(t)
				ts.server(dir, port, append(append([]string{"s_server", "-accept", "127.0.0.1:" + port, "-quiet", "-rev"}, serverArgs...), tc.server...)...)
				code, out, errOut := smtoolIn("hello tongsuo\n", append([]string{"s_client", "-connect", "localhost:" + port,
					"-CAfile", filepath.Join(dir, "ca.pem"), "-enable_ntls", "-ntls", "-verify_return_error"}, abs(tc.client)...)...)
				if tc.fails != "" {
					if code != 1 || !strings.Contains(errOut, tc.fails) {
						t.Errorf("exit %d, stderr %q, want the hint %q", code, errOut, tc.fails)
					}
					return
				}
				if code != 0 || !strings.HasSuffix(out, "ousgnot olleh\n") {
					t.Errorf("exit %d: %s\n%s", code, errOut, out)
				}
			})
		}
	})

	t.Run("smtool s_server, tongsuo s_client", func(t *testing.T) {
		for _, tc := range []struct{ name, cipher string }{
			{"ECC GCM", "ECC-SM2-SM4-GCM-SM3"}, {"ECC CBC", "ECC-SM2-SM4-CBC-SM3"},
			{"ECDHE GCM", "ECDHE-SM2-SM4-GCM-SM3"}, {"ECDHE CBC", "ECDHE-SM2-SM4-CBC-SM3"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				srv := startServerWith(t, strings.NewReader(""), false, append([]string{"-naccept", "1", "-Verify", "1",
					"-CAfile", filepath.Join(dir, "ca.pem")}, abs(serverArgs)...)...)
				_, port, _ := net.SplitHostPort(srv.addr)
				out, err := ts.client(dir, "hello from tongsuo\n", append([]string{"s_client", "-connect", "127.0.0.1:" + port,
					"-enable_ntls", "-ntls", "-CAfile", "ca.pem", "-cipher", tc.cipher}, clientPair...)...)
				if err != nil {
					t.Errorf("tongsuo s_client: %v\n%s", err, out)
				}
				code, sout := srv.wait(t)
				if code != 0 || !strings.Contains(sout, "echoed 19 bytes") || !strings.Contains(sout, "Verification: OK") {
					t.Errorf("s_server exit %d:\n%s", code, sout)
				}
			})
		}
	})

	t.Run("smtool -sess_out resumed by tongsuo -sess_in", func(t *testing.T) {
		srv := startServerWith(t, strings.NewReader(""), false, append([]string{"-naccept", "2"}, abs(serverArgs[1:])...)...)
		_, port, _ := net.SplitHostPort(srv.addr)
		sess := filepath.Join(t.TempDir(), "sess.pem")
		if code, _, errOut := smtool("s_client", "-connect", "localhost:"+port, "-CAfile", filepath.Join(dir, "ca.pem"), "-sess_out", sess, "-quiet"); code != 0 {
			t.Fatal(errOut)
		}
		text := ts.run(dir, "sess_id", "-in", sess, "-noout", "-text")
		if !strings.Contains(text, "Protocol  : NTLSv1.1") || !strings.Contains(text, "Cipher    : ECC-SM2-SM4-GCM-SM3") {
			t.Errorf("tongsuo sess_id:\n%s", text)
		}
		out, _ := ts.client(dir, "", "s_client", "-connect", "127.0.0.1:"+port, "-servername", "localhost",
			"-enable_ntls", "-ntls", "-CAfile", "ca.pem", "-sess_in", sess)
		if !strings.Contains(out, "Reused, NTLSv1.1") {
			t.Errorf("tongsuo did not resume our session:\n%s", out)
		}
		srv.wait(t)
	})
}

// TestGmSSLInterop: GmSSL 3's tlcp_server and tlcp_client against ours,
// with the PKI made by GmSSL's own commands (its tlcp_server -help
// example) and commands spelled as GmSSL's help spells them.
func TestGmSSLInterop(t *testing.T) {
	gm := peerFromEnv(t, "SHANGMI_GMSSL")
	dir := t.TempDir()
	pw := "P@ssw0rd"
	dn := []string{"-C", "CN", "-ST", "Beijing", "-L", "Haidian", "-O", "GmSSL", "-OU", "Test"}
	gm.run(dir, "sm2keygen", "-pass", pw, "-out", "ca_key.pem")
	gm.run(dir, append(append([]string{"certgen"}, dn...), "-CN", "GmSSL Root", "-days", "3650", "-key", "ca_key.pem", "-pass", pw,
		"-out", "ca.pem", "-key_usage", "keyCertSign", "-key_usage", "cRLSign", "-ca")...)
	for _, leaf := range []struct{ name, cn, ku, eku string }{
		{"sign", "GmSSL TLCP Server", "digitalSignature", "serverAuth"},
		{"enc", "GmSSL TLCP Server", "keyEncipherment", "serverAuth"},
		{"client", "GmSSL TLS Client", "digitalSignature", "clientAuth"},
	} {
		gm.run(dir, "sm2keygen", "-pass", pw, "-out", leaf.name+"_key.pem")
		gm.run(dir, append(append([]string{"reqgen"}, dn...), "-CN", leaf.cn, "-key", leaf.name+"_key.pem", "-pass", pw, "-out", leaf.name+"_req.pem")...)
		gm.run(dir, "reqsign", "-in", leaf.name+"_req.pem", "-days", "365", "-key_usage", leaf.ku, "-ext_key_usage", leaf.eku,
			"-subject_dns_name", "localhost", "-cacert", "ca.pem", "-key", "ca_key.pem", "-pass", pw, "-out", leaf.name+"_cert.pem")
	}
	cat := func(out string, files ...string) {
		var b []byte
		for _, f := range files {
			d, _ := os.ReadFile(filepath.Join(dir, f))
			b = append(b, d...)
		}
		os.WriteFile(filepath.Join(dir, out), b, 0o644)
	}
	cat("server_certs.pem", "sign_cert.pem", "enc_cert.pem")
	cat("server_keys.pem", "sign_key.pem", "enc_key.pem")
	// A client double certificate for ECDHE, issued by smtool from GmSSL's
	// CA with its encrypted key.
	if code, _, errOut := smtool("cert", "gen", "-out", filepath.Join(dir, "ours"), "-CA", filepath.Join(dir, "ca.pem"),
		"-CAkey", filepath.Join(dir, "ca_key.pem"), "-CApass", pw, "-hosts", "localhost", "-days", "300", "-passout", pw); code != 0 {
		t.Fatal(errOut)
	}
	cat("client_pair_certs.pem", "ours/client_sign.pem", "ours/client_enc.pem")
	cat("client_pair_keys.pem", "ours/client_sign.key", "ours/client_enc.key")
	os.WriteFile(filepath.Join(dir, "message.txt"), []byte("hello tlcp\n"), 0o644)
	f := func(n string) string { return filepath.Join(dir, n) }

	t.Run("gmssl tlcp_server, smtool s_client", func(t *testing.T) {
		for _, tc := range []struct {
			name, suite string
			server      []string
			client      []string
			hint        string
		}{
			{"ECC CBC", "TLS_ECC_SM4_CBC_SM3", nil, nil, ""},
			{"ECC GCM, client auth, -peer gmssl", "TLS_ECC_SM4_GCM_SM3", []string{"-cacert", "ca.pem", "-cert_request"},
				[]string{"-peer", "gmssl", "-cert", f("client_cert.pem"), "-key", f("client_key.pem"), "-pass", pw}, ""},
			// The default client takes GmSSL's form from its flight
			// (tlcp/INTEROP.md §12.2): no switch is needed.
			{"ECC GCM, client auth, no switch", "TLS_ECC_SM4_GCM_SM3", []string{"-cacert", "ca.pem", "-cert_request"},
				[]string{"-cert", f("client_cert.pem"), "-key", f("client_key.pem"), "-pass", pw}, ""},
			{"ECC CBC, client double certificate, no switch", "TLS_ECC_SM4_CBC_SM3", []string{"-cacert", "ca.pem", "-cert_request"},
				[]string{"-cert", f("client_pair_certs.pem"), "-key", f("client_pair_keys.pem"), "-pass", pw}, ""},
			{"ECDHE GCM, -peer gmssl", "TLS_ECDHE_SM4_GCM_SM3", []string{"-cacert", "ca.pem"},
				[]string{"-peer", "gmssl", "-cert", f("client_pair_certs.pem"), "-key", f("client_pair_keys.pem"), "-pass", pw}, ""},
			{"ECDHE CBC, no switch", "TLS_ECDHE_SM4_CBC_SM3", []string{"-cacert", "ca.pem"},
				[]string{"-cert", f("client_pair_certs.pem"), "-key", f("client_pair_keys.pem"), "-pass", pw}, ""},
			{"ECDHE GCM, no switch", "TLS_ECDHE_SM4_GCM_SM3", []string{"-cacert", "ca.pem"},
				[]string{"-cert", f("client_pair_certs.pem"), "-key", f("client_pair_keys.pem"), "-pass", pw}, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				port := freePort(t)
				gm.server(dir, port, append([]string{"tlcp_server", "-port", port, "-cert", "server_certs.pem", "-key", "server_keys.pem",
					"-pass", pw, "-cipher_suite", tc.suite}, tc.server...)...)
				// The command of GmSSL's tlcp_client example, run by smtool.
				code, out, errOut := smtool(append([]string{"s_client", "-host", "127.0.0.1", "-port", port, "-server_name", "localhost",
					"-cacert", f("ca.pem"), "-cipher_suite", tc.suite, "-in", f("message.txt"), "-verify_return_error"}, tc.client...)...)
				if tc.hint != "" {
					if code != 1 || !strings.Contains(errOut, tc.hint) {
						t.Errorf("exit %d, stderr %q, want the hint %q", code, errOut, tc.hint)
					}
					return
				}
				if code != 0 || !strings.HasSuffix(out, "---\nhello tlcp\n") || !strings.Contains(out, "Session-ID: none") {
					t.Errorf("exit %d: %s\n%s", code, errOut, out)
				}
			})
		}
	})

	t.Run("smtool s_server, gmssl tlcp_client", func(t *testing.T) {
		for _, tc := range []struct {
			name, suite string
			server      []string
			client      []string
			ok          bool
		}{
			{"ECC CBC", "TLS_ECC_SM4_CBC_SM3", nil, nil, true},
			{"ECC GCM, client auth, -peer gmssl", "TLS_ECC_SM4_GCM_SM3", []string{"-cacert", f("ca.pem"), "-cert_request", "-peer", "gmssl"},
				[]string{"-cert", "client_cert.pem", "-key", "client_key.pem", "-pass", pw}, true},
			// Servers accept GmSSL's raw-transcript CertificateVerify
			// without being told.
			{"ECC GCM, client auth without -peer gmssl", "TLS_ECC_SM4_GCM_SM3", []string{"-cacert", f("ca.pem"), "-cert_request"},
				[]string{"-cert", "client_cert.pem", "-key", "client_key.pem", "-pass", pw}, true},
			{"ECDHE CBC, -peer gmssl", "TLS_ECDHE_SM4_CBC_SM3", []string{"-cacert", f("ca.pem"), "-peer", "gmssl"},
				[]string{"-cert", "client_pair_certs.pem", "-key", "client_pair_keys.pem", "-pass", pw}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// The command of GmSSL's tlcp_server example, run by smtool.
				srv := startServerWith(t, strings.NewReader(""), false, append([]string{"-naccept", "1", "-cert", f("server_certs.pem"),
					"-key", f("server_keys.pem"), "-pass", pw, "-cipher_suite", tc.suite}, tc.server...)...)
				_, port, _ := net.SplitHostPort(srv.addr)
				out, err := gm.client(dir, "", append([]string{"tlcp_client", "-host", "127.0.0.1", "-port", port, "-server_name", "localhost",
					"-cacert", "ca.pem", "-cipher_suite", tc.suite, "-in", "message.txt"}, tc.client...)...)
				_, sout := srv.wait(t)
				if tc.ok != (err == nil && strings.Contains(out, "hello tlcp")) {
					t.Errorf("tlcp_client: %v\n%s\ns_server:\n%s", err, out, sout)
				}
			})
		}
	})

	t.Run("cert verify names what GmSSL refuses", func(t *testing.T) {
		code, out, _ := smtool("cert", "verify", "-CAfile", moduleTestdata(t, "tlcp", "ca.pem"), moduleTestdata(t, "tlcp", "server_sign.pem"))
		if code != 0 {
			t.Fatal(out)
		}
		if strings.Contains(out, "GmSSL 3 refuses") {
			// And GmSSL indeed refuses it.
			port := freePort(t)
			tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
			srv := startServerWith(t, strings.NewReader(""), false, "-accept", "127.0.0.1:"+port, "-naccept", "1",
				"-sign_cert", tl("server_sign.pem"), "-sign_key", tl("server_sign.key"), "-enc_cert", tl("server_enc.pem"), "-enc_key", tl("server_enc.key"))
			if _, err := gm.client(dir, "", "tlcp_client", "-host", "127.0.0.1", "-port", port, "-server_name", "localhost",
				"-cacert", tl("ca.pem"), "-cipher_suite", "TLS_ECC_SM4_GCM_SM3", "-in", "message.txt"); err == nil {
				t.Error("GmSSL accepted a certificate cert verify said it refuses")
			}
			srv.wait(t)
		}
	})
}
