// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// TestBinary builds the module's xcaddy-style Caddy (cmd/caddy), checks
// that it lists the plugin's modules, runs it with the Caddyfile that
// TestCaddy uses, and fetches through it over TLCP. Building Caddy takes
// a while on a small machine: -short skips it.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Caddy")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "caddy")
	build := exec.Command(gobin, "build", "-o", bin, "../cmd/caddy")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/caddy: %v\n%s", err, out)
	}
	mods, err := exec.Command(bin, "list-modules").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"caddy.listeners.tlcp", "caddy.listeners.tlcp_after_tls", "http.handlers.tlcp_vars"} {
		if !bytes.Contains(mods, []byte(m+"\n")) {
			t.Errorf("caddy list-modules lacks %s", m)
		}
	}

	installServerPair(t, "tlcp", dir)
	writeECDSA(t, dir)
	port := freePort(t)
	src := strings.NewReplacer("{DIR}", dir, "{PORT}", port, "{BACKEND}", backend(t).URL,
		"{CA}", filepath.Join(testdata, "tlcp", "ca.pem")).Replace(testCaddyfile)
	conf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(conf, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run", "--config", conf, "--adapter", "caddyfile")
	run.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	var logs bytes.Buffer
	run.Stdout, run.Stderr = &logs, &logs
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		run.Wait()
		if t.Failed() {
			t.Logf("caddy's output:\n%s", logs.String())
		}
	}()
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatal("caddy did not start listening")
		}
	}
	got, _ := fetch(t, smClient(t, ciphersuite.ECDHE_SM4_GCM_SM3, smRoots(t, "tlcp")), "https://127.0.0.1:"+port+"/bin")
	want(t, got, "Path", "/bin", "X-Tlcp-Protocol", "TLCP", "X-Tlcp-Suite", "ECDHE_SM4_GCM_SM3", "X-Tlcp-Client-Enc", clientSubject)
}
