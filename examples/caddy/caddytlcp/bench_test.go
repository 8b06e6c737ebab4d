// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
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
//
// Every client presents a certificate, and every one of them carries the
// same subject and issuer names, so that what the routes put into headers
// and the access log is as long on each protocol; the backend answers the
// same bytes to all. Three routes:
//
//   - bare: reverse_proxy alone, which measures the protocols;
//   - caddy: headers and access-log fields from Caddy's own
//     {http.request.tls.*} placeholders, which every protocol fills the
//     same way (Caddy's code, from r.TLS): the same work on both sides;
//   - full: TestCaddy's route, whose {tlcp.*} placeholders only TLCP and
//     TLS 1.3-SM connections fill (they are empty on Caddy's own TLS), so
//     that our connections do work there that the others do not.
func TestBenchCaddy(t *testing.T) {
	secs, _ := strconv.Atoi(os.Getenv("CADDYTLCP_BENCH"))
	if secs <= 0 {
		t.Skip("set CADDYTLCP_BENCH=<seconds per protocol> to run")
	}
	// Caddy matches its TLS connection policies (the one with client_auth
	// here) by SNI, which clients that dial an IP address do not send: the
	// crypto/tls client names the site localhost, which the site also
	// answers to. Caddy turns strict_sni_host on where client_auth is
	// set; SNI localhost and Host 127.0.0.1 need it off.
	testCaddyfile := strings.NewReplacer(
		"\t\tlistener_wrappers {", "\t\tstrict_sni_host insecure_off\n\t\tlistener_wrappers {",
		"https://127.0.0.1:{PORT} {", "https://127.0.0.1:{PORT}, https://localhost:{PORT} {",
	).Replace(testCaddyfile)
	global := testCaddyfile[:strings.Index(testCaddyfile, "https://")]
	site := "https://127.0.0.1:{PORT}, https://localhost:{PORT} {\n\tbind 127.0.0.1\n" + benchStdTLS
	full := strings.Replace(testCaddyfile, "\ttls {DIR}/std.pem {DIR}/std.key\n", benchStdTLS, 1)
	for _, route := range []struct{ name, tmpl string }{
		{"bare", global + site + "\treverse_proxy {BACKEND}\n}\n"},
		{"caddy", global + site + benchCaddyRoute},
		{"full", full},
	} {
		t.Run(route.name, func(t *testing.T) { benchRoute(t, route.tmpl, secs) })
	}
}

// benchStdTLS is Caddy's own TLS on the bench's site, asking for a client
// certificate as the TLCP listener does (verify_if_given).
const benchStdTLS = `	tls {DIR}/std.pem {DIR}/std.key {
		client_auth {
			mode verify_if_given
			trust_pool file {DIR}/stdca.pem
		}
	}
`

// benchCaddyRoute fills the same headers and log fields as the full route,
// from Caddy's placeholders.
const benchCaddyRoute = `	log {
		output file {DIR}/access.log
		format json
	}
	log_append tls_version {http.request.tls.version}
	log_append tls_suite {http.request.tls.cipher_suite}
	log_append tls_client {http.request.tls.client.subject}
	log_append tls_client_issuer {http.request.tls.client.issuer}
	reverse_proxy {BACKEND} {
		header_up X-Tls-Version {http.request.tls.version}
		header_up X-Tls-Suite {http.request.tls.cipher_suite}
		header_up X-Tls-Client-Subject {http.request.tls.client.subject}
		header_up X-Tls-Client-Issuer {http.request.tls.client.issuer}
		header_up X-Tls-Resumed {http.request.tls.resumed}
		header_up X-Tls-Client-Serial {http.request.tls.client.serial}
		header_up X-Tls-Client-Fingerprint {http.request.tls.client.fingerprint}
	}
}
`

// benchBackend answers every request with the same 256 bytes, whatever
// headers the route added (TestCaddy's backend echoes them, which would
// make the answers to TLCP longer).
func benchBackend(t testing.TB) string {
	body := strings.Repeat("shangmi caddy bench\n", 13)[:256]
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	}))
	t.Cleanup(b.Close)
	return b.URL
}

// stdClientCert writes, for Caddy's own TLS, an ECDSA CA (stdca.pem) and
// returns a client certificate it issued that carries the subject and
// issuer names of the TLCP client's signing certificate.
func stdClientCert(t testing.TB, dir string) tls.Certificate {
	sm := clientPair(t).Sign.Leaf
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), RawSubject: sm.RawIssuer,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: sm.SerialNumber, RawSubject: sm.RawSubject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "stdca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func benchRoute(t *testing.T, tmpl string, secs int) {
	dir := t.TempDir()
	installServerPair(t, "tlcp", dir)
	stdRoots := writeECDSA(t, dir)
	stdCert := stdClientCert(t, dir)
	port := freePort(t)
	startCaddyWith(t, tmpl, dir, port, benchBackend(t))
	url := "https://127.0.0.1:" + port + "/bench"
	roots := smRoots(t, "tlcp")

	type proto struct {
		name   string
		client *http.Client
		n      int64
		cpu    time.Duration
	}
	std := &proto{name: "Caddy's TLS (crypto/tls TLS 1.3)", client: &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: stdRoots, Certificates: []tls.Certificate{stdCert}, ServerName: "localhost"},
		TLSNextProto:    map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1, as over TLCP
	}}}
	protos := []*proto{
		{name: "TLCP ECC_SM4_GCM_SM3", client: smClient(t, ciphersuite.ECC_SM4_GCM_SM3, roots)},
		{name: "TLCP ECDHE_SM4_GCM_SM3", client: smClient(t, ciphersuite.ECDHE_SM4_GCM_SM3, roots)},
		{name: "TLS 1.3-SM TLS_SM4_GCM_SM3", client: smClient(t, ciphersuite.TLS_SM4_GCM_SM3, roots)},
		std,
	}
	const workers = 8
	sizes := map[string]int64{} // protocol name → response body length, from the warm-up
	get := func(p *proto) int64 {
		resp, err := p.client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %s", p.name, resp.Status)
		}
		return n
	}
	for _, p := range protos {
		p.client.Transport.(*http.Transport).MaxIdleConnsPerHost = workers
		for range 2 * workers {
			sizes[p.name] = get(p)
		}
	}
	const rounds = 6
	per := time.Duration(secs) * time.Second / rounds
	for r := range rounds {
		// Each round starts with the next protocol, and the garbage of the
		// slot before is collected untimed: otherwise the protocol that
		// follows the fastest one (crypto/tls's) would always pay for
		// collecting its garbage, which the first runs showed as ECC's
		// ratio, the first, coming out lowest.
		for i := range protos {
			p := protos[(r+i)%len(protos)]
			runtime.GC()
			ctx, cancel := context.WithTimeout(context.Background(), per)
			var n atomic.Int64
			var wg sync.WaitGroup
			cpu0 := processCPU()
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for ctx.Err() == nil {
						get(p)
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
		size := sizes[p.name]
		t.Logf("%-34s %8d requests %7.2f CPU s %8.0f req/CPU-s  ratio %.3f  (body %v B)", p.name, p.n, p.cpu.Seconds(), rate, rate/stdRate, size)
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
