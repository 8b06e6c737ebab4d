// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bytes"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is an output buffer that s_server may write to from several
// goroutines while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer is an in-process "smtool s_server" on 127.0.0.1 port 0.
type testServer struct {
	addr string
	out  *syncBuffer
	done chan int // exit status, once run returns
}

var acceptLine = regexp.MustCompile(`ACCEPT (\S+)\n`)

// startServer runs s_server with the test server certificates, the given
// extra flags and "-accept 127.0.0.1:0", and waits for its address.
func startServer(t *testing.T, extra ...string) *testServer {
	t.Helper()
	dir := testdataDir(t, "tlcp")
	args := []string{"s_server", "-accept", "127.0.0.1:0",
		"-sign-cert", filepath.Join(dir, "server_sign.pem"), "-sign-key", filepath.Join(dir, "server_sign.key"),
		"-enc-cert", filepath.Join(dir, "server_enc.pem"), "-enc-key", filepath.Join(dir, "server_enc.key")}
	args = append(args, extra...)
	s := &testServer{out: new(syncBuffer), done: make(chan int, 1)}
	var stderr syncBuffer
	go func() { s.done <- run(args, s.out, &stderr) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if m := acceptLine.FindStringSubmatch(s.out.String()); m != nil {
			s.addr = m[1]
			return s
		}
		select {
		case code := <-s.done:
			t.Fatalf("s_server exited with %d before listening: %s%s", code, s.out, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("s_server did not report its address: %s", s.out)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// wait returns s_server's exit status and output once it has served its
// -naccept connections.
func (s *testServer) wait(t *testing.T) (int, string) {
	t.Helper()
	select {
	case code := <-s.done:
		return code, s.out.String()
	case <-time.After(10 * time.Second):
		t.Fatalf("s_server did not exit: %s", s.out)
		return 0, ""
	}
}

// clientArgs are s_client arguments that trust the test CA.
func clientArgs(t *testing.T, addr string, extra ...string) []string {
	dir := testdataDir(t, "tlcp")
	return append([]string{"s_client", "-connect", addr, "-CAfile", filepath.Join(dir, "ca.pem"), "-timeout", "5s"}, extra...)
}

// clientCerts are the flags that give s_client its double certificate.
func clientCerts(t *testing.T) []string {
	dir := testdataDir(t, "tlcp")
	return []string{
		"-sign-cert", filepath.Join(dir, "client_sign.pem"), "-sign-key", filepath.Join(dir, "client_sign.key"),
		"-enc-cert", filepath.Join(dir, "client_enc.pem"), "-enc-key", filepath.Join(dir, "client_enc.key"),
	}
}

func mustContain(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, out)
		}
	}
}

// oneLineError checks that stderr is one "smtool <cmd>: ..." line that
// contains want.
func oneLineError(t *testing.T, stderr, cmd, want string) {
	t.Helper()
	if !strings.HasPrefix(stderr, "smtool "+cmd+": ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stderr %q: want one line from %s containing %q", stderr, cmd, want)
	}
}

func TestSClientSServer(t *testing.T) {
	tests := []struct {
		name       string
		server     []string // extra s_server flags
		client     []string // extra s_client flags
		wantClient []string
		wantServer []string
	}{
		{
			name:       "ECC default",
			client:     []string{"-msg", "hello TLCP"},
			wantClient: []string{"CONNECTED ", "Cipher    : ECC_SM4_GCM_SM3 (0xE053)", "Resumed   : false", "Server certificates (2):", "[sign]", "[enc]", "Verified  : yes", "reply (10 bytes): hello TLCP"},
			wantServer: []string{"--- connection from", "No client certificate", "echoed 10 bytes"},
		},
		{
			name:       "ECC CBC chosen by the client",
			client:     []string{"-cipher", "ECC_SM4_CBC_SM3", "-msg", "x"},
			wantClient: []string{"Cipher    : ECC_SM4_CBC_SM3 (0xE013)", "reply (1 bytes): x"},
			wantServer: []string{"Cipher    : ECC_SM4_CBC_SM3"},
		},
		{
			name:       "suite by hex and GM/T 0024 alias",
			server:     []string{"-cipher", "ECC_SM4_SM3"},
			client:     []string{"-cipher", "0xe053,0xE013"},
			wantClient: []string{"Cipher    : ECC_SM4_CBC_SM3 (0xE013)"},
		},
		{
			name:       "ECDHE GCM",
			client:     append([]string{"-cipher", "ECDHE_SM4_GCM_SM3", "-msg", "ecdhe"}, clientCerts(t)...),
			wantClient: []string{"Cipher    : ECDHE_SM4_GCM_SM3 (0xE051)", "reply (5 bytes): ecdhe"},
			// ECDHE always carries the client's double certificate.
			wantServer: []string{"Client certificates (2):", "shangmi test client", "[sign]", "[enc]"},
		},
		{
			name:       "ECDHE CBC, 71-byte framing, verified client",
			server:     []string{"-verify", "require-verify", "-CAfile", filepath.Join(testdataDir(t, "tlcp"), "ca.pem")},
			client:     append([]string{"-cipher", "ECDHE_SM4_CBC_SM3", "-ecdhe71"}, clientCerts(t)...),
			wantClient: []string{"Cipher    : ECDHE_SM4_CBC_SM3 (0xE011)"},
			wantServer: []string{"Client certificates (2):", "Verified  : yes"},
		},
		{
			name:       "ECC client auth",
			server:     []string{"-verify", "require-verify", "-CAfile", filepath.Join(testdataDir(t, "tlcp"), "ca.pem")},
			client:     append([]string{"-cipher", "ECC_SM4_GCM_SM3"}, clientCerts(t)...),
			wantServer: []string{"Client certificates (1):", "shangmi test client", "Verified  : yes"},
		},
		{
			name:       "ECC client auth with the encryption certificate (Tongsuo)",
			server:     []string{"-verify", "require-verify", "-CAfile", filepath.Join(testdataDir(t, "tlcp"), "ca.pem")},
			client:     append([]string{"-include-enc", "-alpn", "h2,http/1.1"}, clientCerts(t)...),
			wantServer: []string{"Client certificates (2):", "[enc]"},
			wantClient: []string{"Cipher    : ECC_SM4_GCM_SM3"},
		},
		{
			name:       "GmSSL 3.2 CertificateVerify form",
			server:     []string{"-verify", "require", "-raw-cv"},
			client:     append([]string{"-raw-cv"}, clientCerts(t)...),
			wantServer: []string{"Client certificates (1):", "Verified  : no"},
		},
		{
			name:       "-www page",
			server:     []string{"-www"},
			client:     []string{"-msg", "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n"},
			wantClient: []string{"HTTP/1.0 200 OK", "Content-Type: text/plain", "Cipher    : ECC_SM4_GCM_SM3"},
		},
		{
			name:       "ALPN",
			server:     []string{"-alpn", "http/1.1"},
			client:     []string{"-alpn", "h2,http/1.1"},
			wantClient: []string{"ALPN      : http/1.1"},
			wantServer: []string{"ALPN      : http/1.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, append([]string{"-naccept", "1"}, tt.server...)...)
			code, out, errOut := smtool(clientArgs(t, srv.addr, tt.client...)...)
			if code != 0 {
				t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
			}
			mustContain(t, "s_client output", out, tt.wantClient...)
			scode, sout := srv.wait(t)
			if scode != 0 {
				t.Fatalf("s_server exit %d: %s", scode, sout)
			}
			mustContain(t, "s_server output", sout, tt.wantServer...)
		})
	}
}

// TestSClientReconnect: -reconnect resumes the session on the second
// connection, on both sides.
func TestSClientReconnect(t *testing.T) {
	for _, suite := range []string{"ECC_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"} {
		t.Run(suite, func(t *testing.T) {
			srv := startServer(t, "-naccept", "2")
			code, out, errOut := smtool(clientArgs(t, srv.addr, append([]string{"-reconnect", "-cipher", suite, "-msg", "hi"}, clientCerts(t)...)...)...)
			if code != 0 {
				t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
			}
			if strings.Count(out, "CONNECTED") != 2 || strings.Count(out, "reply (2 bytes): hi") != 2 {
				t.Fatalf("want two connections with replies:\n%s", out)
			}
			first, second, _ := strings.Cut(out[strings.Index(out, "CONNECTED")+1:], "CONNECTED")
			mustContain(t, "first connection", first, "Resumed   : false")
			mustContain(t, "second connection", second, "Resumed   : true", "Cipher    : "+suite)
			scode, sout := srv.wait(t)
			if scode != 0 || strings.Count(sout, "Resumed   : false") != 1 || strings.Count(sout, "Resumed   : true") != 1 {
				t.Fatalf("s_server exit %d, want one full and one resumed handshake:\n%s", scode, sout)
			}
		})
	}
}

// TestSClientHandshakeFailures: a failed handshake is a one-line error and
// exit status 1 on the client, and a "handshake failed" line on the server,
// which carries on (and here, having served its one connection, exits 0).
func TestSClientHandshakeFailures(t *testing.T) {
	ca := filepath.Join(testdataDir(t, "tlcp"), "ca.pem")
	tests := []struct {
		name       string
		server     []string
		client     []string
		wantClient string
		wantServer string
	}{
		{
			name:       "no suite in common",
			server:     []string{"-cipher", "ECC_SM4_CBC_SM3"},
			client:     []string{"-cipher", "ECC_SM4_GCM_SM3"},
			wantClient: "handshake failure",
			wantServer: "no cipher suite in common",
		},
		{
			name:       "client certificate required but missing",
			server:     []string{"-verify", "require-verify", "-CAfile", ca},
			wantClient: "remote error: tlcp: bad certificate",
			wantServer: "the client sent no certificate",
		},
		{
			// Found before the ClientHello is sent.
			name:       "ECDHE without a client encryption certificate",
			client:     []string{"-cipher", "ECDHE_SM4_GCM_SM3"},
			wantClient: "no cipher suites to offer",
			wantServer: "the client closed the connection during the handshake (before ClientHello)",
		},
		{
			name:       "wrong host name",
			client:     []string{"-servername", "example.org"},
			wantClient: "example.org",
			wantServer: "handshake failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, append([]string{"-naccept", "1"}, tt.server...)...)
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
}

// TestSClientSServerBadInput: bad files, flags and addresses fail at once
// with a one-line error: status 2 for a bad command line, 1 otherwise.
func TestSClientSServerBadInput(t *testing.T) {
	dir := testdataDir(t, "tlcp")
	f := func(name string) string { return filepath.Join(dir, name) }
	serverCerts := []string{"-sign-cert", f("server_sign.pem"), "-sign-key", f("server_sign.key"),
		"-enc-cert", f("server_enc.pem"), "-enc-key", f("server_enc.key")}
	// args joins argument lists into a fresh slice (no aliasing of
	// serverCerts between cases).
	args := func(lists ...[]string) []string { return slices.Concat(lists...) }

	// An address nobody listens on: bind a port, then free it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close()

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"server without certificates", []string{"s_server", "-accept", "127.0.0.1:0"}, 2, "are required"},
		{"server without enc", []string{"s_server", "-accept", "127.0.0.1:0", "-sign-cert", f("server_sign.pem"), "-sign-key", f("server_sign.key")}, 2, "-enc-cert"},
		{"server missing file", args([]string{"s_server", "-accept", "127.0.0.1:0"}, serverCerts[:len(serverCerts)-1], []string{f("nonexistent.key")}), 1, "nonexistent.key"},
		{"server key of another cert", []string{"s_server", "-accept", "127.0.0.1:0", "-sign-cert", f("server_sign.pem"), "-sign-key", f("server_enc.key"), "-enc-cert", f("server_enc.pem"), "-enc-key", f("server_enc.key")}, 1, "does not match"},
		{"server swapped certificates", []string{"s_server", "-accept", "127.0.0.1:0", "-sign-cert", f("server_enc.pem"), "-sign-key", f("server_enc.key"), "-enc-cert", f("server_sign.pem"), "-enc-key", f("server_sign.key")}, 1, "swapped"},
		{"server enc cert given twice", []string{"s_server", "-accept", "127.0.0.1:0", "-sign-cert", f("server_sign.pem"), "-sign-key", f("server_sign.key"), "-enc-cert", f("server_sign.pem"), "-enc-key", f("server_sign.key")}, 1, "not a TLCP encryption certificate"},
		{"server encrypted key without password", args([]string{"s_server", "-accept", "127.0.0.1:0", "-sign-cert", f("server_sign.pem"), "-sign-key", f("server_sign_encrypted.key")}, serverCerts[4:]), 1, "signing certificate"},
		{"server bad cipher", args([]string{"s_server", "-accept", "127.0.0.1:0", "-cipher", "AES128-SHA"}, serverCerts), 2, `unknown cipher suite "AES128-SHA"`},
		{"server bad verify mode", args([]string{"s_server", "-accept", "127.0.0.1:0", "-verify", "maybe"}, serverCerts), 2, `unknown mode "maybe"`},
		{"server verify without CAfile", args([]string{"s_server", "-accept", "127.0.0.1:0", "-verify", "require-verify"}, serverCerts), 2, "needs -CAfile"},
		{"server CAfile missing", args([]string{"s_server", "-accept", "127.0.0.1:0", "-CAfile", f("nonexistent.pem")}, serverCerts), 1, "nonexistent.pem"},
		{"server CAfile without certificates", args([]string{"s_server", "-accept", "127.0.0.1:0", "-CAfile", f("ca.key")}, serverCerts), 1, "no certificates found"},
		{"server negative naccept", args([]string{"s_server", "-accept", "127.0.0.1:0", "-naccept", "-1"}, serverCerts), 2, "negative"},
		{"server bad address", args([]string{"s_server", "-accept", "127.0.0.1:99999"}, serverCerts), 1, "99999"},
		{"server unknown flag", []string{"s_server", "-bogus"}, 2, "bogus"},
		{"server stray argument", args([]string{"s_server", "extra"}, serverCerts), 2, "unexpected arguments"},
		{"client without connect", []string{"s_client", "-insecure"}, 2, "-connect"},
		{"client without CAfile", []string{"s_client", "-connect", deadAddr}, 2, "-CAfile or -insecure"},
		{"client bad connect", []string{"s_client", "-insecure", "-connect", "nocolon"}, 2, "-connect"},
		{"client missing CAfile", []string{"s_client", "-connect", deadAddr, "-CAfile", f("nonexistent.pem")}, 1, "nonexistent.pem"},
		{"client missing key", []string{"s_client", "-insecure", "-connect", deadAddr, "-sign-cert", f("client_sign.pem"), "-sign-key", f("nonexistent.key")}, 1, "nonexistent.key"},
		{"client enc without key", []string{"s_client", "-insecure", "-connect", deadAddr, "-sign-cert", f("client_sign.pem"), "-sign-key", f("client_sign.key"), "-enc-cert", f("client_enc.pem")}, 2, "go together"},
		{"client bad cipher", []string{"s_client", "-insecure", "-connect", deadAddr, "-cipher", "ECC_SM4_GCM_SM3,nope"}, 2, `unknown cipher suite "nope"`},
		{"client bad timeout", []string{"s_client", "-insecure", "-connect", deadAddr, "-timeout", "soon"}, 2, "timeout"},
		{"client unreachable", []string{"s_client", "-insecure", "-connect", deadAddr}, 1, "connection refused"},
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
			case <-time.After(5 * time.Second):
				t.Fatal("smtool did not fail promptly")
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d (stdout %q)", code, tt.code, out)
			}
			oneLineError(t, errOut, tt.args[0], tt.want)
		})
	}
}

// TestSServerOnceAndBarePort: "-accept PORT" listens on every interface,
// as openssl's does, and -once serves one connection.
func TestSServerOnceAndBarePort(t *testing.T) {
	srv := startServer(t, "-accept", "0", "-once")
	_, port, err := net.SplitHostPort(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	if host, _, _ := net.SplitHostPort(srv.addr); host == "127.0.0.1" {
		t.Fatalf("a bare port listened on %s only", host)
	}
	code, out, errOut := smtool(clientArgs(t, "127.0.0.1:"+port, "-msg", "once")...)
	if code != 0 || !strings.Contains(out, "reply (4 bytes): once") {
		t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
	}
	if code, out := srv.wait(t); code != 0 {
		t.Fatalf("s_server exit %d: %s", code, out)
	}
	code, _, errOut = smtool("s_server", "-once", "-naccept", "2")
	if code != 2 {
		t.Errorf("-once -naccept 2: exit %d, want 2", code)
	}
	oneLineError(t, errOut, "s_server", "contradict")
}

// TestSClientStdin: -stdin sends standard input, as a user piping a request
// into s_client expects, and refuses to combine with -msg or -reconnect.
func TestSClientStdin(t *testing.T) {
	defer func(r io.Reader) { stdin = r }(stdin)
	stdin = strings.NewReader("GET / HTTP/1.0\r\n\r\n")
	srv := startServer(t, "-naccept", "1")
	code, out, errOut := smtool(clientArgs(t, srv.addr, "-stdin")...)
	if code != 0 {
		t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
	}
	mustContain(t, "s_client output", out, "reply (18 bytes): GET / HTTP/1.0")
	srv.wait(t)

	for _, extra := range [][]string{{"-stdin", "-msg", "x"}, {"-stdin", "-reconnect"}} {
		stdin = strings.NewReader("x")
		code, _, errOut := smtool(clientArgs(t, "127.0.0.1:1", extra...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", extra, code)
		}
		oneLineError(t, errOut, "s_client", "exclude each other")
	}
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
