// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ instead of comparing")

// smtool runs the tool in-process with empty standard input and returns
// the exit status, stdout and stderr.
func smtool(args ...string) (int, string, string) { return smtoolIn("", args...) }

// smtoolIn is smtool with standard input.
func smtoolIn(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut})
	return code, out.String(), errOut.String()
}

// moduleTestdata returns a path under the module's testdata folder.
func moduleTestdata(t testing.TB, elem ...string) string {
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

// local returns a path under examples/smtool/cli/testdata.
func local(name string) string { return filepath.Join("testdata", name) }

// golden compares got with testdata/NAME.golden, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := local(name + ".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update if the change is intended):\n--- got\n%s\n--- want\n%s", path, got, want)
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

func mustNotContain(t *testing.T, what, out string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(out, w) {
			t.Errorf("%s contains %q:\n%s", what, w, out)
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
	addr        string
	out, stderr *syncBuffer
	done        chan int // exit status, once run returns
}

var acceptLine = regexp.MustCompile(`ACCEPT (\S+)\n`)

// serverCerts are the s_server flags of the module's test server pair.
func serverCerts(t testing.TB) []string {
	f := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	return []string{"-sign_cert", f("server_sign.pem"), "-sign_key", f("server_sign.key"),
		"-enc_cert", f("server_enc.pem"), "-enc_key", f("server_enc.key")}
}

// clientCerts are the flags that give s_client its double certificate.
func clientCerts(t testing.TB) []string {
	f := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	return []string{"-sign_cert", f("client_sign.pem"), "-sign_key", f("client_sign.key"),
		"-enc_cert", f("client_enc.pem"), "-enc_key", f("client_enc.key")}
}

// startServer runs s_server with "-accept 127.0.0.1:0", the given flags
// (the test server certificates unless certs is false) and stdin, and
// waits for its address.
func startServerWith(t *testing.T, stdin io.Reader, certs bool, extra ...string) *testServer {
	t.Helper()
	args := []string{"s_server", "-accept", "127.0.0.1:0"}
	if certs {
		args = append(args, serverCerts(t)...)
	}
	args = append(args, extra...)
	s := &testServer{out: new(syncBuffer), stderr: new(syncBuffer), done: make(chan int, 1)}
	go func() { s.done <- run(args, &env{stdin: stdin, stdout: s.out, stderr: s.stderr}) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := acceptLine.FindStringSubmatch(s.out.String()); m != nil {
			s.addr = m[1]
			return s
		}
		select {
		case code := <-s.done:
			t.Fatalf("s_server exited with %d before listening: %s%s", code, s.out, s.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("s_server did not report its address: %s", s.out)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func startServer(t *testing.T, extra ...string) *testServer {
	t.Helper()
	return startServerWith(t, strings.NewReader(""), true, extra...)
}

// wait returns s_server's exit status and output once it has served its
// -naccept connections.
func (s *testServer) wait(t *testing.T) (int, string) {
	t.Helper()
	select {
	case code := <-s.done:
		return code, s.out.String()
	case <-time.After(20 * time.Second):
		t.Fatalf("s_server did not exit: %s", s.out)
		return 0, ""
	}
}

// clientArgs are s_client arguments that trust the test CA.
func clientArgs(t testing.TB, addr string, extra ...string) []string {
	return append([]string{"s_client", "-connect", addr, "-CAfile", moduleTestdata(t, "tlcp", "ca.pem"), "-timeout", "10s"}, extra...)
}
