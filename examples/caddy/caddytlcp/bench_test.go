// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// TestBenchCaddy compares requests per CPU second through Caddy's
// reverse proxy over TLCP and TLS 1.3-SM with the same over Caddy's own
// TLS (crypto/tls TLS 1.3, HTTP/1.1 like the ShangMi side), on the same
// route, in turns. It runs only when CADDYTLCP_BENCH is set to the
// seconds each protocol gets:
//
//	CADDYTLCP_BENCH=6 go test -run BenchCaddy -v ./caddytlcp
func TestBenchCaddy(t *testing.T) {
	secs, _ := strconv.Atoi(os.Getenv("CADDYTLCP_BENCH"))
	if secs <= 0 {
		t.Skip("set CADDYTLCP_BENCH=<seconds per protocol> to run")
	}
	// The full route is TestCaddy's (tlcp_vars, log_append, header_up
	// with placeholders, a JSON access log); the bare one has
	// reverse_proxy alone, and so measures the protocols.
	bare := testCaddyfile[:strings.Index(testCaddyfile, "\ttlcp_vars\n")] + "\treverse_proxy {BACKEND}\n}\n"
	for _, route := range []struct{ name, tmpl string }{{"full", testCaddyfile}, {"bare", bare}} {
		t.Run(route.name, func(t *testing.T) { benchRoute(t, route.tmpl, secs) })
	}
}

func benchRoute(t *testing.T, tmpl string, secs int) {
	dir := t.TempDir()
	installServerPair(t, "tlcp", dir)
	stdRoots := writeECDSA(t, dir)
	port := freePort(t)
	startCaddyWith(t, tmpl, dir, port, backend(t).URL)
	url := "https://127.0.0.1:" + port + "/bench"
	roots := smRoots(t, "tlcp")

	type proto struct {
		name   string
		client *http.Client
		n      int64
		cpu    time.Duration
	}
	std := &proto{name: "Caddy's TLS (crypto/tls TLS 1.3)", client: &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: stdRoots}, MaxIdleConnsPerHost: 64,
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1, as over TLCP
	}}}
	protos := []*proto{
		{name: "TLCP ECC_SM4_GCM_SM3", client: smClient(t, ciphersuite.ECC_SM4_GCM_SM3, roots)},
		{name: "TLCP ECDHE_SM4_GCM_SM3", client: smClient(t, ciphersuite.ECDHE_SM4_GCM_SM3, roots)},
		{name: "TLS 1.3-SM TLS_SM4_GCM_SM3", client: smClient(t, ciphersuite.TLS_SM4_GCM_SM3, roots)},
		std,
	}
	const workers = 8
	get := func(c *http.Client) {
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for _, p := range protos {
		p.client.Transport.(*http.Transport).MaxIdleConnsPerHost = workers
		for range 2 * workers {
			get(p.client)
		}
	}
	const rounds = 6
	per := time.Duration(secs) * time.Second / rounds
	for range rounds {
		for _, p := range protos {
			ctx, cancel := context.WithTimeout(context.Background(), per)
			var n atomic.Int64
			var wg sync.WaitGroup
			cpu0 := processCPU()
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for ctx.Err() == nil {
						get(p.client)
						n.Add(1)
					}
				}()
			}
			wg.Wait()
			p.cpu += processCPU() - cpu0
			p.n += n.Load()
			cancel()
		}
	}
	stdRate := float64(std.n) / std.cpu.Seconds()
	t.Logf("GET through Caddy's reverse_proxy, %d workers, keep-alive, %d rounds of %v each, interleaved; CPU = whole process (client, Caddy, backend)", workers, rounds, per)
	for _, p := range protos {
		rate := float64(p.n) / p.cpu.Seconds()
		t.Logf("%-34s %8d requests %7.2f CPU s %8.0f req/CPU-s  ratio %.3f", p.name, p.n, p.cpu.Seconds(), rate, rate/stdRate)
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
