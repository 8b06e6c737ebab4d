// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// The main module's certificate material: tlcp/ made by smtool, openssl/
// by the openssl CLI, each a root and double certificates for a server
// and a client valid for localhost and 127.0.0.1.
var testdata = filepath.Join("..", "..", "..", "testdata")

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// installServerPair copies set's server double certificate to dir.
func installServerPair(t testing.TB, set, dir string) {
	for _, n := range []string{"server_sign.pem", "server_sign.key", "server_enc.pem", "server_enc.key"} {
		copyFile(t, filepath.Join(testdata, set, n), filepath.Join(dir, n))
	}
}

func smRoots(t testing.TB, sets ...string) *smx509.CertPool {
	p := smx509.NewCertPool()
	for _, s := range sets {
		b, err := os.ReadFile(filepath.Join(testdata, s, "ca.pem"))
		if err != nil {
			t.Fatal(err)
		}
		p.AppendCertsFromPEM(b)
	}
	return p
}

func clientPair(t testing.TB) tlcp.CertificatePair {
	f := func(n string) string { return filepath.Join(testdata, "tlcp", "client_"+n) }
	p, err := tlcp.LoadCertificatePair(f("sign.pem"), f("sign.key"), f("enc.pem"), f("enc.key"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeECDSA writes a self-signed ECDSA certificate for 127.0.0.1, for
// Caddy's own TLS, and returns the pool that trusts it.
func writeECDSA(t testing.TB, dir string) *x509.CertPool {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "caddy's own tls"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	os.WriteFile(filepath.Join(dir, "std.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(filepath.Join(dir, "std.key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// caddyfile is what a user writes (README.md shows the same), with the
// paths and ports of the test.
const testCaddyfile = `{
	admin off
	auto_https off
	log {
		level ERROR
	}
	servers {
		listener_wrappers {
			tlcp {
				sign {DIR}/server_sign.pem {DIR}/server_sign.key
				enc {DIR}/server_enc.pem {DIR}/server_enc.key
				client_auth verify_if_given {CA}
			}
			tls
			tlcp_after_tls
		}
	}
}

https://127.0.0.1:{PORT} {
	bind 127.0.0.1
	tls {DIR}/std.pem {DIR}/std.key
	tlcp_vars
	log {
		output file {DIR}/access.log
		format json
	}
	log_append tlcp_protocol {tlcp.protocol}
	log_append tlcp_suite {tlcp.cipher_suite}
	log_append tlcp_client_sign {tlcp.client.sign.common_name}
	log_append tlcp_client_enc {tlcp.client.enc.common_name}
	reverse_proxy {BACKEND} {
		header_up X-Tlcp-Protocol {tlcp.protocol}
		header_up X-Tlcp-Suite {tlcp.cipher_suite}
		header_up X-Tlcp-Client-Sign {tlcp.client.sign.subject}
		header_up X-Tlcp-Client-Enc {tlcp.client.enc.subject}
		header_up X-Tlcp-Resumed {tlcp.resumed}
		header_up X-Tls-Version {http.request.tls.version}
		header_up X-Tls-Client-Subject {http.request.tls.client.subject}
	}
}
`

// backend answers with the headers Caddy added.
func backend(t testing.TB) *httptest.Server {
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, h := range []string{"X-Tlcp-Protocol", "X-Tlcp-Suite", "X-Tlcp-Client-Sign", "X-Tlcp-Client-Enc", "X-Tlcp-Resumed", "X-Tls-Version", "X-Tls-Client-Subject"} {
			fmt.Fprintf(w, "%s=%s\n", h, r.Header.Get(h))
		}
		fmt.Fprintf(w, "Path=%s\n", r.URL.Path)
	}))
	t.Cleanup(b.Close)
	return b
}

func freePort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

// startCaddy adapts the Caddyfile and runs Caddy in this process until
// the test ends; it returns the JSON config, for reloading.
func startCaddy(t testing.TB, dir, port, backendURL string) []byte {
	return startCaddyWith(t, testCaddyfile, dir, port, backendURL)
}

func startCaddyWith(t testing.TB, tmpl, dir, port, backendURL string) []byte {
	t.Helper()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	src := strings.NewReplacer("{DIR}", dir, "{PORT}", port, "{BACKEND}", backendURL,
		"{CA}", filepath.Join(testdata, "tlcp", "ca.pem")).Replace(tmpl)
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(src), nil)
	if err != nil {
		t.Fatalf("adapting the Caddyfile: %v", err)
	}
	for _, w := range warnings {
		t.Logf("Caddyfile: %s", w.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("caddy.Load: %v", err)
	}
	t.Cleanup(func() { caddy.Stop() })
	return cfg
}

func smClient(t testing.TB, suite uint16, roots *smx509.CertPool) *http.Client {
	return &http.Client{Transport: tlcp.NewHTTPTransport(&tlcp.Config{
		RootCAs:              roots,
		Certificates:         []tlcp.CertificatePair{clientPair(t)},
		ClientCertIncludeEnc: true,
		CipherSuites:         []uint16{suite},
		ClientSessionCache:   tlcp.NewLRUClientSessionCache(4),
	}), Timeout: 10 * time.Second}
}

func fetch(t testing.TB, c *http.Client, url string) (map[string]string, *http.Response) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s, %q, %v", url, resp.Status, body, err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		out[k] = v
	}
	return out, resp
}

func want(t testing.TB, got map[string]string, kv ...string) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		if got[kv[i]] != kv[i+1] {
			t.Errorf("%s = %q, want %q", kv[i], got[kv[i]], kv[i+1])
		}
	}
}

const clientSubject = "CN=shangmi test client,O=shangmi,C=CN"

// TestCaddy runs a real Caddy, configured from a Caddyfile, that
// reverse-proxies to a backend, and fetches through it over TLCP (ECC
// and ECDHE) and TLS 1.3-SM with this project's client and over
// ordinary TLS (HTTP/1.1 and HTTP/2) with crypto/tls; checks the
// placeholders the backend and the access log receive; then changes the
// certificate files and reloads the config.
func TestCaddy(t *testing.T) {
	dir := t.TempDir()
	installServerPair(t, "tlcp", dir)
	stdRoots := writeECDSA(t, dir)
	port := freePort(t)
	cfg := startCaddy(t, dir, port, backend(t).URL)
	url := "https://127.0.0.1:" + port + "/hello"
	roots := smRoots(t, "tlcp", "openssl")

	// version is Caddy's {http.request.tls.version}: its name for TLS 1.3,
	// the number for TLCP, which Caddy does not know.
	for _, c := range []struct {
		suite   uint16
		version string
		proto   string
		enc     string
	}{
		{ciphersuite.ECC_SM4_GCM_SM3, "0x0101", "TLCP", clientSubject},
		{ciphersuite.ECDHE_SM4_GCM_SM3, "0x0101", "TLCP", clientSubject},
		{ciphersuite.ECC_SM4_CBC_SM3, "0x0101", "TLCP", clientSubject},
		{ciphersuite.TLS_SM4_GCM_SM3, "tls1.3", "TLS1.3-SM", ""},
	} {
		name := tlcp.CipherSuiteName(c.suite)
		client := smClient(t, c.suite, roots)
		got, resp := fetch(t, client, url)
		want(t, got, "Path", "/hello", "X-Tlcp-Protocol", c.proto, "X-Tlcp-Suite", name,
			"X-Tlcp-Client-Sign", clientSubject, "X-Tlcp-Client-Enc", c.enc,
			"X-Tls-Version", c.version, "X-Tls-Client-Subject", clientSubject)
		if resp.TLS != nil {
			t.Errorf("%s: the response says it came over crypto/tls", name)
		}
		// A second connection resumes (TLCP by session ID, TLS 1.3
		// by ticket).
		client.Transport.(*http.Transport).CloseIdleConnections()
		got, _ = fetch(t, client, url)
		want(t, got, "X-Tlcp-Resumed", "true", "X-Tlcp-Client-Sign", clientSubject)
		client.Transport.(*http.Transport).CloseIdleConnections()
	}

	for _, h2 := range []bool{false, true} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: stdRoots}, ForceAttemptHTTP2: h2}
		if !h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		got, resp := fetch(t, &http.Client{Transport: tr, Timeout: 10 * time.Second}, url)
		want(t, got, "Path", "/hello", "X-Tlcp-Protocol", "", "X-Tlcp-Suite", "", "X-Tls-Version", "tls1.3")
		if resp.TLS == nil || resp.TLS.PeerCertificates[0].Subject.CommonName != "caddy's own tls" || (resp.ProtoMajor == 2) != h2 {
			t.Errorf("crypto/tls client (h2 %v): %s, TLS %v", h2, resp.Proto, resp.TLS != nil)
		}
		tr.CloseIdleConnections()
	}

	// The access log has the placeholders (log_append) and Caddy's own
	// tls object, filled from the connection's state.
	entries := readAccessLog(t, filepath.Join(dir, "access.log"))
	var sawTLCP, sawTLS13, sawStd bool
	for _, e := range entries {
		tlsObj, _ := e["request"].(map[string]any)["tls"].(map[string]any)
		switch e["tlcp_protocol"] {
		case "TLCP":
			sawTLCP = true
			if e["tlcp_client_sign"] != "shangmi test client" || e["tlcp_client_enc"] != "shangmi test client" ||
				tlsObj["version"] != float64(tlcp.VersionTLCP) || tlsObj["client_common_name"] != "shangmi test client" {
				t.Errorf("TLCP access log entry: %v", e)
			}
		case "TLS1.3-SM":
			sawTLS13 = e["tlcp_suite"] == "TLS_SM4_GCM_SM3" && tlsObj["cipher_suite"] == float64(ciphersuite.TLS_SM4_GCM_SM3)
		case "":
			sawStd = tlsObj["version"] == float64(tls.VersionTLS13)
		}
	}
	if !sawTLCP || !sawTLS13 || !sawStd || len(entries) != 10 {
		t.Errorf("access log: %d entries; TLCP %v, TLS 1.3-SM %v, ordinary TLS %v", len(entries), sawTLCP, sawTLS13, sawStd)
	}

	// Reloading the config reads the certificate files again.
	serverIssuer := func() string {
		c, err := tlcp.Dial("tcp", "127.0.0.1:"+port, &tlcp.Config{RootCAs: roots})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.ConnectionState().PeerSignCertificate.Issuer.CommonName
	}
	if got := serverIssuer(); got != "shangmi Test Root CA" {
		t.Errorf("before the reload the server's issuer is %q", got)
	}
	installServerPair(t, "openssl", dir)
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if got := serverIssuer(); got != "shangmi openssl Root CA" {
		t.Errorf("after the reload the server's issuer is %q, want the new certificate's", got)
	}
}

func readAccessLog(t testing.TB, path string) []map[string]any {
	var out []map[string]any
	// The log is written when each request ends; give it a moment.
	for range 50 {
		f, err := os.Open(path)
		if err == nil {
			out = out[:0]
			s := bufio.NewScanner(f)
			s.Buffer(nil, 1<<20)
			for s.Scan() {
				var e map[string]any
				if err := json.Unmarshal(s.Bytes(), &e); err != nil {
					t.Fatalf("access log line %q: %v", s.Text(), err)
				}
				out = append(out, e)
			}
			f.Close()
			if len(out) >= 10 {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return out
}

// TestCaddyRefusals: a client without a certificate where one is
// required is refused in the handshake; a configuration without
// tlcp_after_tls refuses ShangMi connections with a reason in the log
// and still serves ordinary TLS.
func TestCaddyRefusals(t *testing.T) {
	dir := t.TempDir()
	installServerPair(t, "tlcp", dir)
	stdRoots := writeECDSA(t, dir)
	port := freePort(t)
	strict := strings.Replace(testCaddyfile, "client_auth verify_if_given", "client_auth require_and_verify", 1)
	startCaddyWith(t, strict, dir, port, backend(t).URL)
	url := "https://127.0.0.1:" + port + "/"
	_, err := (&http.Client{Transport: tlcp.NewHTTPTransport(&tlcp.Config{RootCAs: smRoots(t, "tlcp")})}).Get(url)
	if err == nil || !strings.Contains(err.Error(), "tlcp") {
		t.Errorf("client without a certificate: %v, want tlcp's refusal", err)
	}
	got, _ := fetch(t, smClient(t, ciphersuite.ECC_SM4_GCM_SM3, smRoots(t, "tlcp")), url)
	want(t, got, "X-Tlcp-Protocol", "TLCP")

	port = freePort(t)
	broken := strings.Replace(testCaddyfile, "\t\t\ttlcp_after_tls\n", "", 1)
	if broken == testCaddyfile {
		t.Fatal("the test's Caddyfile has changed")
	}
	startCaddyWith(t, broken, dir, port, backend(t).URL)
	url = "https://127.0.0.1:" + port + "/"
	if _, err := smClient(t, ciphersuite.ECC_SM4_GCM_SM3, smRoots(t, "tlcp")).Get(url); err == nil {
		t.Error("without tlcp_after_tls a TLCP request went through")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: stdRoots}}
	got, _ = fetch(t, &http.Client{Transport: tr}, url)
	want(t, got, "X-Tlcp-Protocol", "")
	tr.CloseIdleConnections()
}
