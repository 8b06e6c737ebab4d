// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

func TestSClientSServer(t *testing.T) {
	ca := moduleTestdata(t, "tlcp", "ca.pem")
	tests := []struct {
		name       string
		server     []string // extra s_server flags
		client     []string // extra s_client flags
		stdin      string
		wantClient []string
		wantServer []string
	}{
		{
			name:       "ECC default, data from standard input",
			stdin:      "hello TLCP\nsecond line\n",
			wantClient: []string{"CONNECTED ", "Cipher    : ECC_SM4_GCM_SM3 (0xE053)", "Resumed   : false", "Server certificates (2):", "[sign]", "[enc]", "Verification: OK", "hello TLCP\nsecond line\n"},
			wantServer: []string{"--- connection 1 from", "No client certificate", "echoed 23 bytes"},
		},
		{
			name:       "TLS 1.3, default groups: the hybrid",
			client:     []string{"-tls1_3"},
			stdin:      "pq",
			wantClient: []string{"Protocol  : TLSv1.3 (0x0304)", "Cipher    : TLS_SM4_GCM_SM3 (0x00C6)", "Group     : curveSM2MLKEM768 (0x11EE)", "pq"},
			wantServer: []string{"Protocol  : TLSv1.3 (0x0304)", "Group     : curveSM2MLKEM768 (0x11EE)"},
		},
		{
			name:       "TLS 1.3 by suite name, -groups curveSM2",
			client:     []string{"-ciphersuites", "TLS_SM4_CCM_SM3", "-groups", "curveSM2"},
			wantClient: []string{"Protocol  : TLSv1.3 (0x0304)", "Cipher    : TLS_SM4_CCM_SM3 (0x00C7)", "Group     : curveSM2 (0x0029)"},
		},
		{
			name:       "TLS 1.3, HelloRetryRequest to the hybrid (GmSSL's group name, a code point)",
			client:     []string{"-tls1_3", "-groups", "sm2p256v1:4590", "-trace"},
			server:     []string{"-groups", "curveSM2MLKEM768"},
			wantClient: []string{"key_share curveSM2 (65 bytes)", "key_share HelloRetryRequest for curveSM2MLKEM768", "key_share curveSM2MLKEM768 (1249 bytes)", "key_share curveSM2MLKEM768 (1153 bytes)", "Group     : curveSM2MLKEM768 (0x11EE)"},
		},
		{
			name:       "TLCP ECC has no group",
			client:     []string{"-tlcp"},
			wantClient: []string{"Protocol  : TLCP (0x0101)", "Cipher    : ECC_SM4_GCM_SM3"},
		},
		{
			name:       "ECC CBC chosen by the client",
			client:     []string{"-cipher", "ECC_SM4_CBC_SM3"},
			stdin:      "x",
			wantClient: []string{"Cipher    : ECC_SM4_CBC_SM3 (0xE013)", "---\nx"},
			wantServer: []string{"Cipher    : ECC_SM4_CBC_SM3"},
		},
		{
			name:       "suite by hex and GM/T 0024 alias",
			server:     []string{"-cipher", "ECC_SM4_SM3"},
			client:     []string{"-cipher", "0xe053,0xE013"},
			wantClient: []string{"Cipher    : ECC_SM4_CBC_SM3 (0xE013)"},
		},
		{
			name:       "Tongsuo's suite names, colon-separated",
			server:     []string{"-cipher", "ECC-SM2-SM4-CBC-SM3:ECC-SM2-SM4-GCM-SM3"},
			client:     []string{"-cipher", "ECC-SM2-SM4-GCM-SM3:ECC-SM2-WITH-SM4-SM3"},
			wantClient: []string{"Cipher    : ECC_SM4_CBC_SM3 (0xE013)"},
		},
		{
			name:       "GmSSL's suite names, one per flag",
			client:     []string{"-cipher_suite", "TLS_ECC_SM4_CBC_SM3", "-cipher_suite", "TLS_ECC_SM4_GCM_SM3"},
			wantClient: []string{"Cipher    : ECC_SM4_GCM_SM3 (0xE053)"},
		},
		{
			name:       "ECDHE GCM",
			client:     append([]string{"-cipher", "ECDHE-SM2-SM4-GCM-SM3"}, clientCerts(t)...),
			stdin:      "ecdhe",
			wantClient: []string{"Cipher    : ECDHE_SM4_GCM_SM3 (0xE051)", "ecdhe"},
			// ECDHE always carries the client's double certificate.
			wantServer: []string{"Client certificates (2):", "shangmi test client", "[sign]", "[enc]"},
		},
		{
			name:       "ECDHE CBC, 71-byte framing, client required and verified (Tongsuo's -Verify)",
			server:     []string{"-Verify", "1", "-verify_return_error", "-CAfile", ca},
			client:     append([]string{"-cipher", "ECDHE_SM4_CBC_SM3", "-ecdhe71"}, clientCerts(t)...),
			wantClient: []string{"Cipher    : ECDHE_SM4_CBC_SM3 (0xE011)"},
			wantServer: []string{"Client certificates (2):", `Verification: OK (chain: "shangmi test client" <- "shangmi Test Root CA")`},
		},
		{
			name:       "ECC client auth, the policy by name",
			server:     []string{"-verify", "require-verify", "-CAfile", ca},
			client:     append([]string{"-cipher", "ECC_SM4_GCM_SM3"}, clientCerts(t)...),
			wantServer: []string{"Client certificates (1):", "shangmi test client", "Verification: OK"},
		},
		{
			name:       "ECC client auth with the encryption certificate (-peer tongsuo)",
			server:     []string{"-verify", "1", "-CAfile", ca},
			client:     append([]string{"-peer", "tongsuo", "-alpn", "h2,http/1.1"}, clientCerts(t)...),
			wantClient: []string{"Peer      : tongsuo", "Cipher    : ECC_SM4_GCM_SM3"},
			wantServer: []string{"Client certificates (2):", "[enc]", "Verification: OK"},
		},
		{
			name:       "GmSSL 3.2 forms on both sides (-peer gmssl)",
			server:     []string{"-Verify", "1", "-peer", "gmssl"},
			client:     append([]string{"-peer", "gmssl", "-cipher", "ECDHE_SM4_GCM_SM3"}, clientCerts(t)...),
			wantClient: []string{"Peer      : gmssl: raw-transcript CertificateVerify, 71-byte ECDHE ClientKeyExchange, no SNI"},
			wantServer: []string{"Peer      : gmssl", "Client certificates (2):", "Verification: not done (no -CAfile)"},
		},
		{
			name:       "-www page",
			server:     []string{"-www"},
			stdin:      "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n",
			wantClient: []string{"HTTP/1.0 200 OK", "Content-Type: text/plain", "Cipher    : ECC_SM4_GCM_SM3"},
		},
		{
			name:       "-rev",
			server:     []string{"-rev"},
			stdin:      "abc\n汉字\n",
			wantClient: []string{"cba\n字汉\n"},
		},
		{
			name:       "ALPN",
			server:     []string{"-alpn", "http/1.1"},
			client:     []string{"-alpn", "h2", "-alpn", "http/1.1"},
			wantClient: []string{"ALPN      : http/1.1"},
			wantServer: []string{"ALPN      : http/1.1"},
		},
		{
			name:       "-quiet: only the data",
			client:     []string{"-quiet"},
			stdin:      "just this\n",
			wantClient: []string{"just this\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, append([]string{"-naccept", "1"}, tt.server...)...)
			code, out, errOut := smtoolIn(tt.stdin, clientArgs(t, srv.addr, tt.client...)...)
			if code != 0 {
				t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
			}
			if errOut != "" {
				t.Errorf("s_client stderr: %s", errOut)
			}
			mustContain(t, "s_client output", out, tt.wantClient...)
			scode, sout := srv.wait(t)
			if scode != 0 {
				t.Fatalf("s_server exit %d: %s", scode, sout)
			}
			mustContain(t, "s_server output", sout, tt.wantServer...)
			if strings.Contains(strings.Join(tt.client, " "), "-quiet") && out != tt.stdin {
				t.Errorf("-quiet printed more than the data: %q", out)
			}
		})
	}
}

// recordsOf splits a TLCP byte stream into records.
func recordsOf(t *testing.T, b []byte) (types []byte, bodies [][]byte) {
	t.Helper()
	for len(b) > 0 {
		if len(b) < 5 || b[1] != 1 || b[2] != 1 {
			t.Fatalf("not a TLCP record stream at % x", b[:min(len(b), 8)])
		}
		n := int(b[3])<<8 | int(b[4])
		types = append(types, b[0])
		bodies = append(bodies, b[5:5+n])
		b = b[5+n:]
	}
	return types, bodies
}

// proxy relays one connection to target and records both directions.
type proxy struct {
	addr     string
	c2s, s2c syncBuffer
	done     chan struct{}
}

func startProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			return
		}
		var wg sync.WaitGroup
		pipe := func(dst, src net.Conn, rec *syncBuffer) {
			defer wg.Done()
			io.Copy(io.MultiWriter(dst, rec), src)
			dst.(*net.TCPConn).CloseWrite()
		}
		wg.Add(2)
		go pipe(s, c, &p.c2s)
		go pipe(c, s, &p.s2c)
		wg.Wait()
		c.Close()
		s.Close()
	}()
	return p
}

// TestMsgAndKeyLog: the real round trip a person debugging runs:
// s_client -msg -keylogfile against s_server -msg, through a recording
// proxy. The trace lists every message both ways, the Finished messages
// included, and the key log decrypts the recorded records: the client's
// Finished (equal to what -msg printed), its data and its close_notify.
func TestMsgAndKeyLog(t *testing.T) {
	for _, suite := range []string{"ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3"} {
		t.Run(suite, func(t *testing.T) {
			srv := startServer(t, "-naccept", "1", "-msg")
			p := startProxy(t, srv.addr)
			keylog := filepath.Join(t.TempDir(), "keys.log")
			args := clientArgs(t, p.addr, "-msg", "-keylogfile", keylog, "-cipher", suite)
			if strings.HasPrefix(suite, "ECDHE") {
				args = append(args, clientCerts(t)...)
			}
			code, out, errOut := smtoolIn("hello TLCP\n", args...)
			if code != 0 {
				t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
			}
			_, sout := srv.wait(t)
			<-p.done

			// The trace, both sides.
			client := []string{">>> TLCP Handshake [length", "], ClientHello", "], ServerHello",
				"], Certificate", "], ServerKeyExchange", "<<< TLCP Handshake [length 0004], ServerHelloDone", "], ClientKeyExchange",
				">>> TLCP ChangeCipherSpec [length 0001]", ">>> TLCP Handshake [length 0010], Finished",
				"<<< TLCP ChangeCipherSpec [length 0001]", "<<< TLCP Handshake [length 0010], Finished",
				">>> TLCP Alert [length 0002], warning close_notify", "<<< TLCP Alert [length 0002], warning close_notify"}
			mustContain(t, "s_client -msg", out, client...)
			mustContain(t, "s_server -msg", sout, "<<< TLCP Handshake [length", "], ClientHello", ">>> TLCP Handshake [length 0010], Finished",
				": <<< TLCP Alert [length 0002], warning close_notify")
			if strings.HasPrefix(suite, "ECDHE") {
				mustContain(t, "s_client -msg", out, "], CertificateRequest", ">>> TLCP Handshake [length", "], CertificateVerify")
			}

			// The key log line, and the records it opens.
			kl, err := os.ReadFile(keylog)
			if err != nil {
				t.Fatal(err)
			}
			// The secret's line, then a comment naming what it came from.
			lines := strings.Split(strings.TrimSuffix(string(kl), "\n"), "\n")
			f := strings.Fields(lines[0])
			if len(lines) != 2 || len(f) != 3 || f[0] != "CLIENT_RANDOM" {
				t.Fatalf("key log %q", kl)
			}
			wantGroup := "no key exchange group"
			if strings.HasPrefix(suite, "ECDHE") {
				wantGroup = "group curveSM2"
			}
			if want := "# " + f[1] + " TLCP " + suite + ", " + wantGroup; !strings.HasPrefix(lines[1], want) {
				t.Errorf("key log comment %q, want %q", lines[1], want)
			}
			clientRandom, _ := hex.DecodeString(f[1])
			master, _ := hex.DecodeString(f[2])
			ctypes, cbodies := recordsOf(t, []byte(p.c2s.String()))
			stypes, sbodies := recordsOf(t, []byte(p.s2c.String()))
			if ctypes[0] != 22 || !bytes.Equal(cbodies[0][6:38], clientRandom) {
				t.Fatal("the key log's client random is not the ClientHello's")
			}
			sh := sbodies[0]
			if stypes[0] != 22 || sh[0] != 2 {
				t.Fatal("the first server record is not ServerHello")
			}
			serverRandom := sh[6:38]
			sid := int(sh[38])
			id := uint16(sh[39+sid])<<8 | uint16(sh[40+sid])
			s := ciphersuite.Lookup(id)
			if s == nil || s.Name != suite {
				t.Fatalf("ServerHello chose %#04x, want %s", id, suite)
			}
			ck, sk := s.KeyBlock(master, clientRandom, serverRandom)
			open := func(k ciphersuite.Keys, types []byte, bodies [][]byte) (pt [][]byte, pty []byte) {
				rp, err := s.NewRecordProtection(k)
				if err != nil {
					t.Fatal(err)
				}
				ccs := slices.Index(types, 20)
				for i := ccs + 1; i < len(types); i++ {
					_, data, err := rp.Open(types[i], slices.Clone(bodies[i]))
					if err != nil {
						t.Fatalf("record %d (type %d) does not open with the logged keys: %v", i, types[i], err)
					}
					pt, pty = append(pt, data), append(pty, types[i])
				}
				return pt, pty
			}
			cpt, cty := open(ck, ctypes, cbodies)
			spt, sty := open(sk, stypes, sbodies)
			if len(cty) < 3 || cty[0] != 22 || cty[1] != 23 || cty[len(cty)-1] != 21 {
				t.Fatalf("client's protected records: types %v", cty)
			}
			if string(cpt[1]) != "hello TLCP\n" || !bytes.Equal(cpt[len(cpt)-1], []byte{1, 0}) {
				t.Errorf("decrypted client data %q, last %x", cpt[1], cpt[len(cpt)-1])
			}
			// The Finished the trace printed is the one on the wire.
			m := regexp.MustCompile(`>>> TLCP Handshake \[length 0010\], Finished\n    ((?:[0-9a-f]{2} ?)+)\n`).FindStringSubmatch(out)
			if m == nil {
				t.Fatal("no hex dump of the client's Finished in the trace")
			}
			traced, _ := hex.DecodeString(strings.ReplaceAll(m[1], " ", ""))
			if !bytes.Equal(traced, cpt[0]) {
				t.Errorf("traced Finished % x, decrypted % x", traced, cpt[0])
			}
			if sty[0] != 22 || spt[0][0] != 20 || string(spt[1]) != "hello TLCP\n" {
				t.Errorf("server's protected records: types %v, data %q", sty, spt[1])
			}
		})
	}
}

// TestTraceDecodes: -trace prints the fields instead of the hex dump.
func TestTraceDecodes(t *testing.T) {
	srv := startServer(t, "-naccept", "1", "-peer", "gmssl", "-trace", "-msgfile", filepath.Join(t.TempDir(), "server.trace"))
	code, out, errOut := smtool(clientArgs(t, srv.addr, append([]string{"-trace", "-cipher", "ECDHE_SM4_GCM_SM3,ECDHE_SM4_CBC_SM3", "-alpn", "h2", "-peer", "gmssl"}, clientCerts(t)...)...)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	srv.wait(t)
	mustContain(t, "-trace", out, "cipher suites: ECDHE_SM4_GCM_SM3 (0xE051), ECDHE_SM4_CBC_SM3 (0xE011)",
		"extensions: application_layer_protocol_negotiation h2", "cipher suite: ECDHE_SM4_GCM_SM3 (0xE051)",
		"0: s:C=CN, O=shangmi, CN=shangmi test server [signing certificate]", "1: s:C=CN, O=shangmi, CN=shangmi test server [encryption certificate]",
		"ECDHE parameters: named curve 41", "certificate types: 64", "ECDHE: the 71-byte u16-prefixed parameters (GmSSL form)", "verify_data ")
	mustNotContain(t, "-trace", out, "    01 00 00")
	mustNotContain(t, "s_server with -msgfile", srv.out.String(), "ClientHello")
}

// TestSClientReconnect: -reconnect N resumes N times; -sess_out writes the
// session as OpenSSL's SSL_SESSION with the logged master secret, and a
// later s_client -sess_in resumes it.
func TestSClientReconnect(t *testing.T) {
	for _, suite := range []string{"ECC_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"} {
		t.Run(suite, func(t *testing.T) {
			srv := startServer(t, "-naccept", "4")
			dir := t.TempDir()
			sess, keylog := filepath.Join(dir, "sess.pem"), filepath.Join(dir, "keys.log")
			code, out, errOut := smtoolIn("hi\n", clientArgs(t, srv.addr, append([]string{"-reconnect", "2", "-cipher", suite,
				"-sess_out", sess, "-keylogfile", keylog}, clientCerts(t)...)...)...)
			if code != 0 {
				t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
			}
			if strings.Count(out, "CONNECTED") != 3 || strings.Count(out, "--- reconnect") != 2 || !strings.HasSuffix(out, "---\nhi\n") {
				t.Fatalf("want three connections, the data on the last:\n%s", out)
			}
			if strings.Count(out, "Resumed   : false") != 1 || strings.Count(out, "Resumed   : true") != 2 || errOut != "" {
				t.Errorf("want one full and two resumed handshakes:\n%s%s", out, errOut)
			}
			// A new s_client process resumes the saved session.
			code, out2, errOut := smtoolIn("again\n", clientArgs(t, srv.addr, append([]string{"-cipher", suite,
				"-sess_in", sess}, clientCerts(t)...)...)...)
			if code != 0 || !strings.Contains(out2, "Resumed   : true") || errOut != "" {
				t.Fatalf("s_client -sess_in exit %d, want a resumed handshake: %s\n%s", code, errOut, out2)
			}
			scode, sout := srv.wait(t)
			if scode != 0 || strings.Count(sout, "Resumed   : true") != 3 {
				t.Fatalf("s_server exit %d:\n%s", scode, sout)
			}
			// The session file: version 1, TLCP, the suite, the ID the
			// trace showed, the master secret of the key log.
			data, _ := os.ReadFile(sess)
			block, _ := pem.Decode(data)
			if block == nil || block.Type != "SSL SESSION PARAMETERS" {
				t.Fatalf("session file %q", data)
			}
			in := cryptobyte.String(block.Bytes)
			var seq, cipher, id, master cryptobyte.String
			var version, sslVersion int64
			if !in.ReadASN1(&seq, cbasn1.SEQUENCE) || !seq.ReadASN1Integer(&version) || !seq.ReadASN1Integer(&sslVersion) ||
				!seq.ReadASN1(&cipher, cbasn1.OCTET_STRING) || !seq.ReadASN1(&id, cbasn1.OCTET_STRING) || !seq.ReadASN1(&master, cbasn1.OCTET_STRING) {
				t.Fatal("session file does not parse")
			}
			s := ciphersuite.Lookup(uint16(cipher[0])<<8 | uint16(cipher[1]))
			if version != 1 || sslVersion != 0x0101 || s == nil || s.Name != suite || len(id) != 32 {
				t.Errorf("session: version %d, ssl version %#x, suite %v, ID %x", version, sslVersion, s, id)
			}
			if !strings.Contains(out, "Session-ID: "+strings.ToUpper(hex.EncodeToString(id))) {
				t.Errorf("session ID %X not the one printed", []byte(id))
			}
			kl, _ := os.ReadFile(keylog)
			// Each connection's secret line is followed by a comment
			// naming its suite and group.
			var lines, comments []string
			for _, l := range strings.Split(strings.TrimSpace(string(kl)), "\n") {
				if strings.HasPrefix(l, "# ") {
					comments = append(comments, l)
				} else {
					lines = append(lines, l)
				}
			}
			if len(lines) != 3 || len(comments) != 3 || !strings.HasSuffix(lines[2], hex.EncodeToString(master)) ||
				!strings.HasSuffix(comments[2], "no key exchange group (ECC suite or resumed TLCP session)") {
				t.Errorf("the session's master secret is not the key log's:\n%s", kl)
			}
		})
	}
}

// TestSClientLoad: -n N makes N handshakes and prints rate and percentiles.
func TestSClientLoad(t *testing.T) {
	srv := startServer(t, "-naccept", "12", "-quiet")
	code, out, errOut := smtool(clientArgs(t, srv.addr, "-n", "12", "-c", "3", "-cipher", "ECC_SM4_CBC_SM3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !regexp.MustCompile(`^12 handshakes with 127\.0\.0\.1:\d+ \(ECC_SM4_CBC_SM3\), 3 at a time: [\d.]+/s in \S+\nlatency: p50 \S+  p90 \S+  p99 \S+  max \S+\n$`).MatchString(out) {
		t.Errorf("-n output:\n%s", out)
	}
	if scode, sout := srv.wait(t); scode != 0 || strings.Contains(sout, "failed") {
		t.Errorf("s_server: %d\n%s", scode, sout)
	}
}

// TestVerificationResult: a failed verification is printed and the
// connection goes on, as openssl's; -verify_return_error stops it; CRLs
// are checked.
func TestVerificationResult(t *testing.T) {
	dir := t.TempDir()
	crl := filepath.Join(dir, "ca.crl")
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	if code, _, errOut := smtool("crl", "gen", "-CA", tl("ca.pem"), "-CAkey", tl("ca.key"), "-revoke", tl("server_enc.pem"), "-out", crl); code != 0 {
		t.Fatal(errOut)
	}
	emptyCRL := filepath.Join(dir, "empty.crl")
	if code, _, errOut := smtool("crl", "gen", "-CA", tl("ca.pem"), "-CAkey", tl("ca.key"), "-out", emptyCRL); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		name     string
		client   []string
		noCA     bool
		code     int
		want     string // in stdout (code 0) or stderr (code 1)
		wantData bool
	}{
		{"wrong host goes on", []string{"-servername", "example.org"}, false, 0, "Verification error: signing certificate: x509: certificate is valid for localhost, not example.org (going on", true},
		{"wrong host stops with -verify_return_error", []string{"-servername", "example.org", "-verify_return_error"}, false, 1, "example.org", false},
		{"untrusted root goes on", []string{"-CAfile", moduleTestdata(t, "openssl", "ca.pem")}, false, 0, "Verification error: signing certificate: x509: certificate signed by unknown authority", true},
		{"no roots at all", nil, true, 0, "Verification error: no trusted roots to verify with: give -CAfile", true},
		{"revoked encryption certificate", []string{"-CRL", crl}, false, 0, "Verification error: encryption certificate: certificate revoked", true},
		{"revoked, strict", []string{"-CRL", crl, "-verify_return_error"}, false, 1, "certificate revoked", false},
		{"CRL without the certificate", []string{"-CRL", emptyCRL, "-verify_return_error"}, false, 0, "Verification: OK", true},
		{"-insecure", []string{"-insecure"}, true, 0, "Verification: skipped (-insecure)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, "-naccept", "1")
			var args []string
			if tc.noCA {
				args = append([]string{"s_client", "-connect", srv.addr}, tc.client...)
			} else {
				args = clientArgs(t, srv.addr, tc.client...)
			}
			code, out, errOut := smtoolIn("data\n", args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s\n%s", code, tc.code, errOut, out)
			}
			if tc.code == 0 {
				mustContain(t, "s_client output", out, tc.want)
			} else {
				oneLineError(t, errOut, "s_client", tc.want)
			}
			if got := strings.HasSuffix(out, "data\n"); got != tc.wantData {
				t.Errorf("data went through: %v, want %v\n%s", got, tc.wantData, out)
			}
			srv.wait(t)
		})
	}
}

// TestSNI: SNI carries the -connect host when it is a name, and what is
// printed says whether it was sent.
func TestSNI(t *testing.T) {
	for _, tc := range []struct {
		name, host string
		client     []string
		want       string
		serverSees string
	}{
		{"name", "localhost", nil, `SNI       : sent "localhost"`, "ServerName: localhost"},
		{"IP address", "127.0.0.1", nil, "SNI       : not sent (127.0.0.1 is an IP address)", ""},
		{"-noservername", "localhost", []string{"-noservername"}, "SNI       : not sent (-noservername)", ""},
		{"-servername with an IP", "127.0.0.1", []string{"-servername", "localhost"}, `SNI       : sent "localhost"`, "ServerName: localhost"},
		{"-peer gmssl", "localhost", []string{"-peer", "gmssl"}, "SNI       : not sent (-peer gmssl: GmSSL 3.1 refuses any extension; give -servername to send it)", ""},
		{"-peer gmssl -servername", "localhost", []string{"-peer", "gmssl", "-servername", "localhost"}, `SNI       : sent "localhost"`, "ServerName: localhost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, "-naccept", "1")
			_, port, _ := net.SplitHostPort(srv.addr)
			code, out, errOut := smtool(clientArgs(t, net.JoinHostPort(tc.host, port), tc.client...)...)
			if code != 0 {
				t.Fatal(errOut)
			}
			mustContain(t, "s_client", out, tc.want, "Verification: OK")
			_, sout := srv.wait(t)
			if tc.serverSees != "" {
				mustContain(t, "s_server", sout, tc.serverSees)
			} else {
				mustNotContain(t, "s_server", sout, "ServerName:")
			}
		})
	}
}

// TestShowcertsOutcerts: the server's certificates, printed and saved.
func TestShowcertsOutcerts(t *testing.T) {
	srv := startServer(t, "-naccept", "1")
	dir := t.TempDir()
	all := filepath.Join(dir, "all.pem")
	code, out, errOut := smtool(clientArgs(t, srv.addr, "-showcerts", "-outcerts", filepath.Join(dir, "certs"), "-certout", all)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	srv.wait(t)
	if strings.Count(out, "-----BEGIN CERTIFICATE-----") != 2 {
		t.Errorf("-showcerts printed %d certificates", strings.Count(out, "-----BEGIN CERTIFICATE-----"))
	}
	for name, want := range map[string]string{"certs/sign.pem": "server_sign.pem", "certs/enc.pem": "server_enc.pem"} {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		exp, _ := os.ReadFile(moduleTestdata(t, "tlcp", want))
		if !bytes.Equal(got, exp) {
			t.Errorf("%s differs from %s", name, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "certs", "chain.pem")); err == nil {
		t.Error("chain.pem written without intermediates")
	}
	if data, _ := os.ReadFile(all); bytes.Count(data, []byte("BEGIN CERTIFICATE")) != 2 {
		t.Errorf("-certout: %s", data)
	}
}

// scriptedServer accepts one TLCP connection, runs the handshake, and hands
// it to behave.
func scriptedServer(t *testing.T, behave func(c *tlcp.Conn)) string {
	t.Helper()
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	pair, err := tlcp.LoadCertificatePair(tl("server_sign.pem"), tl("server_sign.key"), tl("server_enc.pem"), tl("server_enc.key"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		conn := c.(*tlcp.Conn)
		if conn.Handshake() == nil {
			behave(conn)
		}
	}()
	return ln.Addr().String()
}

// TestRelayEnds: how the data phase ends. Exit status 0 whenever the data
// went through; the server's way of closing only draws warnings.
func TestRelayEnds(t *testing.T) {
	readLine := func(c *tlcp.Conn) string {
		buf := make([]byte, 100)
		n, _ := c.Read(buf)
		return string(buf[:n])
	}
	for _, tc := range []struct {
		name       string
		behave     func(c *tlcp.Conn)
		client     []string
		stdin      string
		code       int
		wantOut    string
		wantStderr string
	}{
		{"close_notify both ways", func(c *tlcp.Conn) { io.Copy(c, c); c.Close() }, nil, "one\ntwo\n", 0, "one\ntwo\n", ""},
		{"server closes without close_notify", func(c *tlcp.Conn) {
			c.Write([]byte("bye\n"))
			c.NetConn().Close()
		}, []string{"-ign_eof"}, "", 0, "bye\n", "warning: the server closed the connection without close_notify"},
		{"server never answers our close_notify", func(c *tlcp.Conn) {
			c.Write([]byte(readLine(c)))
			time.Sleep(2 * time.Second)
			c.Close()
		}, []string{"-close_wait", "200ms"}, "ping\n", 0, "ping\n", "warning: no close_notify from the server within 200ms of ours"},
		{"server sends first and closes (-ign_eof)", func(c *tlcp.Conn) {
			c.Write([]byte("banner\n"))
			c.Close()
		}, []string{"-ign_eof"}, "", 0, "banner\n", ""},
		{"server aborts with an alert", func(c *tlcp.Conn) {
			readLine(c)
			c.NetConn().Write([]byte{21, 1, 1, 0, 2, 2, 40}) // unprotected: the client's record layer refuses it
			c.NetConn().Close()
		}, []string{"-close_wait", "5s"}, "x\n", 1, "", "receiving from the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := scriptedServer(t, tc.behave)
			code, out, errOut := smtoolIn(tc.stdin, clientArgs(t, addr, append([]string{"-quiet"}, tc.client...)...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %q %q", code, tc.code, out, errOut)
			}
			if out != tc.wantOut {
				t.Errorf("stdout %q, want %q", out, tc.wantOut)
			}
			if tc.wantStderr != "" && !strings.Contains(errOut, tc.wantStderr) {
				t.Errorf("stderr %q, want %q", errOut, tc.wantStderr)
			}
			if tc.wantStderr == "" && errOut != "" {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
	// -in sends a file, -crlf turns line ends into CRLF.
	addr := scriptedServer(t, func(c *tlcp.Conn) { io.Copy(c, c); c.Close() })
	file := filepath.Join(t.TempDir(), "req")
	os.WriteFile(file, []byte("GET / HTTP/1.0\n\n"), 0o644)
	code, out, errOut := smtool(clientArgs(t, addr, "-quiet", "-in", file, "-crlf")...)
	if code != 0 || out != "GET / HTTP/1.0\r\n\r\n" {
		t.Errorf("-in -crlf: %d %q %q", code, out, errOut)
	}
}

// TestSServerStdio: -stdio sends standard input to the client and prints
// what the client sends.
func TestSServerStdio(t *testing.T) {
	pr, pw := io.Pipe()
	srv := startServerWith(t, pr, true, "-stdio", "-quiet")
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := smtoolIn("from the client\n", clientArgs(t, srv.addr, "-quiet", "-ign_eof")...)
		done <- result{code, out, errOut}
	}()
	io.WriteString(pw, "from the server\n")
	// The server's standard input ends (closing the connection) once the
	// client's line is in.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(srv.out.String(), "from the client\n"); {
		if time.Now().After(deadline) {
			t.Fatalf("the client's line did not arrive: %s", srv.out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	pw.Close()
	r := <-done
	if r.code != 0 || r.out != "from the server\n" {
		t.Errorf("s_client: %d %q %q", r.code, r.out, r.err)
	}
	if scode, sout := srv.wait(t); scode != 0 {
		t.Errorf("s_server: %d\n%s", scode, sout)
	}
}

// TestSServerAccept: a bare port listens on localhost only; "*:PORT" on
// every interface.
func TestSServerAccept(t *testing.T) {
	for in, want := range map[string]string{"4433": "localhost:4433", "*:4433": ":4433", ":4433": ":4433",
		"0.0.0.0:8443": "0.0.0.0:8443", "[::1]:1": "[::1]:1"} {
		got, err := listenAddress(in, "", true)
		if err != nil || got != want {
			t.Errorf("-accept %s: %q %v, want %q", in, got, err, want)
		}
	}
	if got, _ := listenAddress("4433", "8443", false); got != "localhost:8443" {
		t.Errorf("-port 8443: %q", got)
	}
	if _, err := listenAddress("4433", "8443", true); err == nil {
		t.Error("-accept and -port together accepted")
	}
	srv := startServerWith(t, strings.NewReader(""), true, "-accept", "0", "-once")
	host, port, _ := net.SplitHostPort(srv.addr)
	if !net.ParseIP(host).IsLoopback() {
		t.Fatalf("a bare port listened on %s", host)
	}
	code, out, errOut := smtoolIn("once", clientArgs(t, "localhost:"+port)...)
	if code != 0 || !strings.HasSuffix(out, "once") {
		t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
	}
	if code, out := srv.wait(t); code != 0 {
		t.Fatalf("s_server exit %d: %s", code, out)
	}
}

// TestServerClientCertificates: Tongsuo's -verify/-Verify and GmSSL's
// -cert_request, leniently and with -verify_return_error.
func TestServerClientCertificates(t *testing.T) {
	ca := moduleTestdata(t, "tlcp", "ca.pem")
	o := func(n string) string { return moduleTestdata(t, "openssl", n) }
	foreign := []string{"-sign_cert", o("client_sign.pem"), "-sign_key", o("client_sign.key"),
		"-enc_cert", o("client_enc.pem"), "-enc_key", o("client_enc.key")}
	for _, tc := range []struct {
		name           string
		server, client []string
		clientOK       bool
		wantServer     string
	}{
		{"-verify 1, none sent", []string{"-verify", "1", "-CAfile", ca}, nil, true, "No client certificate"},
		{"-verify 1, a foreign one goes on", []string{"-verify", "1", "-CAfile", ca}, foreign, true, "Verification error: signing certificate: x509: certificate signed by unknown authority"},
		{"-verify 1 -verify_return_error refuses it", []string{"-verify", "1", "-CAfile", ca, "-verify_return_error"}, foreign, false, "handshake failed"},
		{"-Verify 1 without one", []string{"-Verify", "1", "-CAfile", ca}, nil, false, "the client sent no certificate"},
		{"-cert_request verifies", []string{"-cert_request", "-CAfile", ca}, foreign, false, "handshake failed"},
		{"-cert_request", []string{"-cert_request", "-CAfile", ca}, clientCerts(t), true, "Verification: OK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, append([]string{"-naccept", "1"}, tc.server...)...)
			code, _, errOut := smtool(clientArgs(t, srv.addr, append([]string{"-cipher", "ECC_SM4_GCM_SM3"}, tc.client...)...)...)
			if (code == 0) != tc.clientOK {
				t.Errorf("s_client exit %d (%s)", code, errOut)
			}
			_, sout := srv.wait(t)
			mustContain(t, "s_server", sout, tc.wantServer)
		})
	}
}

// TestCredentials: GmSSL's combined files, passwords per key, and the
// messages when files are not what was meant.
func TestCredentials(t *testing.T) {
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	lca := local("ca.pem")
	for _, tc := range []struct {
		name   string
		server []string
		ca     string
	}{
		{"GmSSL combined files (gmssl tlcp_server -cert -key -pass)", []string{"-cert", local("gmssl_certs.pem"), "-key", local("gmssl_keys.pem"), "-pass", "P@ssw0rd"}, lca},
		{"combined files as -sign_cert/-sign_key, pass: form", []string{"-sign_cert", local("gmssl_certs.pem"), "-sign_key", local("gmssl_keys.pem"), "-pass", "pass:P@ssw0rd"}, lca},
		{"combined certificates, separate keys", []string{"-sign_cert", local("gmssl_certs.pem"), "-sign_key", local("sign.key"), "-enc_cert", local("gmssl_certs.pem"), "-enc_key", local("enc_sec1.key")}, lca},
		{"a password for the signing key only", []string{"-sign_cert", tl("server_sign.pem"), "-sign_key", tl("server_sign_encrypted.key"), "-sign_pass", "pass:shangmi-test",
			"-enc_cert", tl("server_enc.pem"), "-enc_key", tl("server_enc.key")}, tl("ca.pem")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServerWith(t, strings.NewReader(""), false, append([]string{"-naccept", "1"}, tc.server...)...)
			code, out, errOut := smtool("s_client", "-connect", srv.addr, "-CAfile", tc.ca, "-servername", "localhost", "-verify_return_error")
			if code != 0 {
				t.Fatalf("s_client: %d %s\n%s", code, errOut, out)
			}
			mustContain(t, "s_client", out, "Verification: OK")
			srv.wait(t)
		})
	}
	// A client with its signing certificate only (ECC client auth).
	srv := startServer(t, "-naccept", "1", "-Verify", "1", "-CAfile", tl("ca.pem"))
	if code, _, errOut := smtool(clientArgs(t, srv.addr, "-cert", tl("client_sign.pem"), "-key", tl("client_sign.key"))...); code != 0 {
		t.Errorf("client with -cert/-key: %s", errOut)
	}
	_, sout := srv.wait(t)
	mustContain(t, "s_server", sout, "Client certificates (1):", "Verification: OK")

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"combined key file without its password", []string{"-cert", local("gmssl_certs.pem"), "-key", local("gmssl_keys.pem")}, 1, "the key is encrypted; give its password with -pass"},
		{"wrong password", []string{"-cert", local("gmssl_certs.pem"), "-key", local("gmssl_keys.pem"), "-pass", "nope"}, 1, "wrong password (-pass)"},
		{"one certificate for a server", []string{"-cert", local("sign.pem"), "-key", local("sign.key")}, 1, "a TLCP server needs an encryption certificate too"},
		{"certificate and key swapped", []string{"-sign_cert", local("sign.key"), "-sign_key", local("sign.pem"), "-enc_cert", local("enc.pem"), "-enc_key", local("enc.key")}, 1, "sign.pem"},
		{"key of the other half", []string{"-sign_cert", local("sign.pem"), "-sign_key", local("enc.key"), "-enc_cert", local("enc.pem"), "-enc_key", local("enc.key")}, 1, "signing certificate"},
		{"halves swapped", []string{"-sign_cert", local("enc.pem"), "-sign_key", local("enc.key"), "-enc_cert", local("sign.pem"), "-enc_key", local("sign.key")}, 1, "swapped"},
		{"the same half twice", []string{"-sign_cert", local("sign.pem"), "-sign_key", local("sign.key"), "-enc_cert", local("sign.pem"), "-enc_key", local("sign.key")}, 1, "the same certificate"},
		{"-enc_key alone", []string{"-sign_cert", local("sign.pem"), "-enc_key", local("enc.key")}, 2, "-enc_key without -enc_cert"},
		{"-sign_cert and -cert", []string{"-sign_cert", local("sign.pem"), "-cert", local("sign.pem")}, 2, "exclude each other"},
		{"no certificates", nil, 2, "a TLCP server needs its signing and encryption certificates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := smtool(append([]string{"s_server", "-accept", "127.0.0.1:0"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (%s)", code, tc.code, errOut)
			}
			oneLineError(t, errOut, "s_server", tc.want)
		})
	}
}

// TestSClientHandshakeFailures: a failed handshake is a one-line error and
// exit status 1 on the client, and a "handshake failed" line on the
// server, which carries on (and here, having served its one connection,
// exits 0).
func TestSClientHandshakeFailures(t *testing.T) {
	ca := moduleTestdata(t, "tlcp", "ca.pem")
	tests := []struct {
		name       string
		server     []string
		client     []string
		wantClient string
		wantServer string
	}{
		{"no suite in common", []string{"-cipher", "ECC_SM4_CBC_SM3"}, []string{"-cipher", "ECC_SM4_GCM_SM3"}, "handshake failure", "no cipher suite in common"},
		{"client certificate required but missing", []string{"-verify", "require-verify", "-CAfile", ca}, nil, "remote error: tlcp: bad certificate", "the client sent no certificate"},
		{"ECDHE without a client encryption certificate", nil, []string{"-cipher", "ECDHE_SM4_GCM_SM3"}, "no cipher suites to offer", "the client closed the connection during the handshake (before ClientHello)"},
		{"wrong host name, strictly", nil, []string{"-servername", "example.org", "-verify_return_error"}, "example.org", "handshake failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, append([]string{"-naccept", "1", "-msg"}, tt.server...)...)
			code, _, errOut := smtool(clientArgs(t, srv.addr, tt.client...)...)
			if code != 1 {
				t.Errorf("s_client exit %d, want 1", code)
			}
			oneLineError(t, errOut, "s_client", tt.wantClient)
			scode, sout := srv.wait(t)
			if scode != 0 {
				t.Errorf("s_server exit %d", scode)
			}
			mustContain(t, "s_server output", sout, "handshake failed", tt.wantServer)
		})
	}
	// The alert is in the server's trace.
	srv := startServer(t, "-naccept", "1", "-msg", "-cipher", "ECC_SM4_CBC_SM3")
	smtool(clientArgs(t, srv.addr, "-cipher", "ECC_SM4_GCM_SM3", "-msg")...)
	_, sout := srv.wait(t)
	mustContain(t, "s_server -msg", sout, "<<< TLCP Handshake [length", "], ClientHello", ">>> TLCP Alert [length 0002], fatal handshake_failure\n    02 28")
}

// TestSClientSServerBadInput: bad files, flags and addresses fail at once
// with a one-line error: status 2 for a bad command line, 1 otherwise.
func TestSClientSServerBadInput(t *testing.T) {
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close()
	sc := serverCerts(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"server missing file", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0"}, sc[:len(sc)-1], []string{tl("nonexistent.key")}), 1, "nonexistent.key"},
		{"server encrypted key without password", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-sign_cert", tl("server_sign.pem"), "-sign_key", tl("server_sign_encrypted.key")}, sc[4:]), 1, "give its password with -pass"},
		{"server bad cipher", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-cipher", "AES128-SHA"}, sc), 2, `unknown cipher suite "AES128-SHA"`},
		{"server bad verify mode", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-verify", "maybe"}, sc), 2, `unknown mode "maybe"`},
		{"server bad -Verify", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-Verify", "x"}, sc), 2, "want a depth"},
		{"server verify without CAfile", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-verify", "require-verify"}, sc), 2, "needs -CAfile"},
		{"server CAfile missing", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-CAfile", tl("nonexistent.pem")}, sc), 1, "nonexistent.pem"},
		{"server CAfile without certificates", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-CAfile", tl("ca.key")}, sc), 1, "no certificates found; it holds 1 SM2 private key"},
		{"server negative naccept", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-naccept", "-1"}, sc), 2, "negative"},
		{"server two modes", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-www", "-rev"}, sc), 2, "exclude each other"},
		{"server bad address", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:99999"}, sc), 1, "99999"},
		{"server bad -accept", slices.Concat([]string{"s_server", "-accept", "nocolon"}, sc), 2, "want PORT or HOST:PORT"},
		{"server unknown flag", []string{"s_server", "-bogus"}, 2, "bogus"},
		{"server unknown group", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-groups", "X25519MLKEM768"}, sc), 2, `-groups: unknown or unsupported group "X25519MLKEM768"`},
		{"client empty groups", []string{"s_client", "-connect", deadAddr, "-groups", ":"}, 2, "-groups: no group given"},
		{"client -tls1_3 and -tlcp", []string{"s_client", "-connect", deadAddr, "-tls1_3", "-tlcp"}, 2, "exclude each other"},
		{"server stray argument", slices.Concat([]string{"s_server", "extra"}, sc), 2, "unexpected arguments"},
		{"server unknown peer", slices.Concat([]string{"s_server", "-peer", "openssl"}, sc), 2, "-peer: unknown"},
		{"server -msgfile without -msg", slices.Concat([]string{"s_server", "-accept", "127.0.0.1:0", "-msgfile", "x"}, sc), 2, "-msgfile goes with"},
		{"client bad connect", []string{"s_client", "-insecure", "-connect", "a:b:c"}, 2, "-connect"},
		{"client missing CAfile", []string{"s_client", "-connect", deadAddr, "-CAfile", tl("nonexistent.pem")}, 1, "nonexistent.pem"},
		{"client strict without CAfile", []string{"s_client", "-connect", deadAddr, "-verify_return_error"}, 2, "needs -CAfile"},
		{"client strict and insecure", []string{"s_client", "-connect", deadAddr, "-verify_return_error", "-insecure"}, 2, "contradict"},
		{"client missing key", []string{"s_client", "-insecure", "-connect", deadAddr, "-sign_cert", tl("client_sign.pem"), "-sign_key", tl("nonexistent.key")}, 1, "nonexistent.key"},
		{"client encryption certificate as signing", []string{"s_client", "-insecure", "-connect", deadAddr, "-sign_cert", tl("client_enc.pem"), "-sign_key", tl("client_enc.key")}, 1, "is not a TLCP signing certificate"},
		{"client bad cipher", []string{"s_client", "-insecure", "-connect", deadAddr, "-cipher", "ECC_SM4_GCM_SM3,nope"}, 2, `unknown cipher suite "nope"`},
		{"client bad timeout", []string{"s_client", "-insecure", "-connect", deadAddr, "-timeout", "soon"}, 2, "timeout"},
		{"client -sess_in", []string{"s_client", "-connect", deadAddr, "-sess_in", "x.pem"}, 1, "x.pem"},
		{"client -n with data", []string{"s_client", "-connect", deadAddr, "-n", "3", "-in", "x"}, 2, "-n makes bare handshakes"},
		{"client bad reconnect", []string{"s_client", "-connect", deadAddr, "-reconnect=x"}, 2, "want a count"},
		{"client unreachable", []string{"s_client", "-insecure", "-connect", deadAddr}, 1, "connection refused"},
		{"client two addresses", []string{"s_client", "-connect", deadAddr, "localhost:1"}, 2, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var code int
			var out, errOut string
			go func() {
				defer close(done)
				code, out, errOut = smtool(tt.args...)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("smtool did not fail promptly")
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d (stdout %q)", code, tt.code, out)
			}
			oneLineError(t, errOut, tt.args[0], tt.want)
		})
	}
}

// TestSClientDefaults: the address forms s_client takes.
func TestSClientDefaults(t *testing.T) {
	srv := startServer(t, "-naccept", "2")
	_, port, _ := net.SplitHostPort(srv.addr)
	ca := moduleTestdata(t, "tlcp", "ca.pem")
	// GmSSL's -host/-port, and a positional host:port as Tongsuo's.
	if code, out, errOut := smtool("s_client", "-host", "127.0.0.1", "-port", port, "-CAfile", ca); code != 0 || !strings.Contains(out, "Verification: OK") {
		t.Errorf("-host -port: %d %s %s", code, errOut, out)
	}
	if code, out, errOut := smtool("s_client", "localhost:"+port, "-CAfile", ca); code != 0 || !strings.Contains(out, "Verification: OK") {
		t.Errorf("positional host:port: %d %s %s", code, errOut, out)
	}
	srv.wait(t)
}

// TestSServerHandshakeTimeout: a client that connects and sends nothing
// is dropped once the handshake timeout passes, instead of holding its
// connection forever.
func TestSServerHandshakeTimeout(t *testing.T) {
	defer func(d time.Duration) { handshakeTimeout = d }(handshakeTimeout)
	handshakeTimeout = 200 * time.Millisecond
	srv := startServer(t, "-once")
	c, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	code, out := srv.wait(t)
	if code != 0 || !strings.Contains(out, "handshake failed: no handshake within 200ms") {
		t.Fatalf("s_server exit %d: %s", code, out)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("the silent client's connection is still open (read %d bytes)", n)
	}
}

// TestSuiteNames: every spelling maps to its code point.
func TestSuiteNames(t *testing.T) {
	for name, want := range map[string]uint16{
		"ECC_SM4_GCM_SM3": 0xE053, "ecc-sm4-gcm-sm3": 0xE053, "ECC-SM2-SM4-GCM-SM3": 0xE053, "TLS_ECC_SM4_GCM_SM3": 0xE053,
		"ECC_SM4_SM3": 0xE013, "ECC-SM2-WITH-SM4-SM3": 0xE013, "ECC-SM2-SM4-CBC-SM3": 0xE013, "0xE013": 0xE013, "e013": 0xE013,
		"ECDHE-SM2-SM4-GCM-SM3": 0xE051, "TLS_ECDHE_SM4_CBC_SM3": 0xE011, "ECDHE-SM2-WITH-SM4-SM3": 0xE011,
		"ECC_ZUC128_SM3": 0xFF13,
	} {
		if got, ok := suiteByName(name); !ok || got != want {
			t.Errorf("%s: %#04x %v, want %#04x", name, got, ok, want)
		}
	}
	for _, name := range []string{"RSA-SM4-GCM-SM3", "0xE0", "AES128-SHA", "0x1301", "IBC_SM4_CBC_SM3"} {
		if id, ok := suiteByName(name); ok {
			t.Errorf("%s accepted as %#04x", name, id)
		}
	}
}

// TestHints: a failed handshake names the interop switch that most likely
// fixes it, from what the trace saw.
func TestHints(t *testing.T) {
	plain := &tlcp.Config{}
	for _, tc := range []struct {
		name string
		seen handshakeSeen
		cfg  *tlcp.Config
		err  string
		want string
	}{
		{"no client certificate", handshakeSeen{suite: 0xE053, certRequest: true, sentCerts: 0}, plain, "remote error: tlcp: bad certificate", "give -sign_cert"},
		{"GmSSL ECDHE framing", handshakeSeen{suite: 0xE051, certRequest: true, sentCerts: 2, sentCKE: 69, sentCV: true}, plain, "remote error: tlcp: error decoding message", "try -peer gmssl"},
		{"Tongsuo ECC client auth", handshakeSeen{suite: 0xE053, certRequest: true, sentCerts: 1, sentCKE: 158, sentCV: true}, plain, "remote error: tlcp: handshake failure", "try -peer tongsuo"},
		{"GmSSL CertificateVerify", handshakeSeen{suite: 0xE053, certRequest: true, sentCerts: 1, sentCKE: 158, sentCV: true}, plain, "the server reset the connection", "raw transcript: try -peer gmssl"},
		{"raw CertificateVerify refused", handshakeSeen{suite: 0xE053, certRequest: true, sentCerts: 1, sentCKE: 158, sentCV: true}, &tlcp.Config{CertificateVerifyRawTranscript: true}, "remote error: tlcp: error decrypting message", "drop -peer gmssl"},
		{"after the server's Finished", handshakeSeen{suite: 0xE051, sentCKE: 69, serverFinished: true}, plain, "x", ""},
		{"no client authentication", handshakeSeen{suite: 0xE053, sentCerts: -1, sentCKE: 158}, plain, "remote error: tlcp: bad record MAC", ""},
	} {
		got := tc.seen.hint(tc.cfg, errors.New(tc.err))
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: hint %q, want %q", tc.name, got, tc.want)
		}
	}
	// End to end: our server accepts both CertificateVerify forms, so a
	// client that signs the raw transcript (GmSSL's form) gets through.
	srv := startServer(t, "-naccept", "1", "-verify", "require")
	if code, _, errOut := smtool(clientArgs(t, srv.addr, append([]string{"-raw-cv"}, clientCerts(t)...)...)...); code != 0 {
		t.Errorf("s_client -raw-cv: %d %q", code, errOut)
	}
	srv.wait(t)
}
