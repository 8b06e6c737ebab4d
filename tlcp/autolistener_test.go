// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// ecdsaTLSConfigs returns a crypto/tls server config with an ECDSA P-256
// certificate for tlcp.test and a client config that trusts it.
func ecdsaTLSConfigs(t testing.TB) (srv, cli *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tlcp.test"},
		DNSNames:              []string{"tlcp.test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	cli = &tls.Config{RootCAs: pool, ServerName: "tlcp.test"}
	return srv, cli
}

// TestAutoListener serves a crypto/tls client, a TLCP client, a TLS 1.3-SM
// client and one that offers TLCP and TLS 1.3 on one port.
func TestAutoListener(t *testing.T) {
	stdSrv, stdCli := ecdsaTLSConfigs(t)
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := NewAutoListener(inner, testServerConfig(t), stdSrv)
	defer ln.Close()
	addr := ln.Addr().String()

	type result struct {
		kind    string
		version uint16
		suite   uint16
	}
	results := make(chan result, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				buf := make([]byte, 5)
				if _, err := io.ReadFull(c, buf); err != nil {
					results <- result{kind: "error: " + err.Error()}
					return
				}
				c.Write(bytes.ToUpper(buf))
				switch c := c.(type) {
				case *tls.Conn:
					st := c.ConnectionState()
					results <- result{"crypto/tls", st.Version, st.CipherSuite}
				case *Conn:
					st := c.ConnectionState()
					results <- result{"tlcp", st.Version, st.CipherSuite}
				default:
					results <- result{kind: fmt.Sprintf("%T", c)}
				}
			}()
		}
	}()

	talk := func(c net.Conn) {
		t.Helper()
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 5)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "HELLO" {
			t.Fatalf("read %q, %v", buf, err)
		}
	}
	check := func(want result) {
		t.Helper()
		if got := <-results; got != want {
			t.Fatalf("server side: %+v, want %+v", got, want)
		}
	}

	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		cfg := stdCli.Clone()
		cfg.MaxVersion = v
		c, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			t.Fatalf("crypto/tls %x: %v", v, err)
		}
		talk(c)
		st := c.ConnectionState()
		check(result{"crypto/tls", v, st.CipherSuite})
	}

	c, err := Dial("tcp", addr, testClientConfig(t))
	if err != nil {
		t.Fatalf("TLCP: %v", err)
	}
	talk(c)
	check(result{"tlcp", VersionTLCP, ciphersuite.ECC_SM4_GCM_SM3})

	c, err = Dial("tcp", addr, tls13ClientConfig(t))
	if err != nil {
		t.Fatalf("TLS 1.3-SM: %v", err)
	}
	talk(c)
	check(result{"tlcp", VersionTLS13, ciphersuite.TLS_SM4_GCM_SM3})

	both := testClientConfig(t)
	both.MaxVersion = VersionTLS13
	c, err = Dial("tcp", addr, both)
	if err != nil {
		t.Fatalf("TLCP + TLS 1.3: %v", err)
	}
	talk(c)
	check(result{"tlcp", VersionTLS13, ciphersuite.TLS_SM4_GCM_SM3})
}

// TestAutoListenerRouting checks where ClientHellos go, and that slow or
// silent clients do not hold up Accept.
func TestAutoListenerRouting(t *testing.T) {
	stdSrv, _ := ecdsaTLSConfigs(t)
	l := &autoListener{config: testServerConfig(t), tlsConfig: stdSrv}
	route := func(data []byte) int {
		c, s := net.Pipe()
		go func() { c.Write(data); c.Close() }()
		_, r, _ := l.peek(s)
		return r
	}
	sm := rawTLS13Hello(t)
	smBytes, _ := sm.marshal()
	rec := func(vers uint16, b []byte) []byte {
		return append([]byte{22, byte(vers >> 8), byte(vers), byte(len(b) >> 8), byte(len(b))}, b...)
	}
	if r := route(rec(0x0301, smBytes)); r != routeShangMi {
		t.Error("a TLS 1.3-SM ClientHello went to crypto/tls")
	}
	// The same hello in two records.
	if r := route(append(rec(0x0301, smBytes[:10]), rec(0x0301, smBytes[10:])...)); r != routeShangMi {
		t.Error("a fragmented TLS 1.3-SM ClientHello went to crypto/tls")
	}
	if r := route(rec(0x0101, []byte{1, 0, 0})); r != routeShangMi {
		t.Error("a TLCP record went to crypto/tls")
	}
	// Without sm2sig_sm3, or with only other suites: crypto/tls.
	other := rawTLS13Hello(t)
	other.tls13.signatureAlgorithms = []uint16{0x0403}
	other.original = nil
	b, _ := other.marshal()
	if r := route(rec(0x0301, b)); r != routeStdTLS {
		t.Error("a hello without sm2sig_sm3 went to the SM server")
	}
	other = rawTLS13Hello(t)
	other.cipherSuites = []uint16{0x1301, 0x1302}
	other.original = nil
	b, _ = other.marshal()
	if r := route(rec(0x0301, b)); r != routeStdTLS {
		t.Error("a hello with only AES suites went to the SM server")
	}
	for _, junk := range [][]byte{[]byte("GET / HTTP/1.1\r\n\r\n"), {22, 3, 1, 0, 4, 2, 0, 0, 0}, {22, 3}} {
		if r := route(junk); r != routeStdTLS {
			t.Errorf("%q went to the SM server", junk)
		}
	}
	// An SM server whose TLS 1.3 is off hands TLS 1.3-SM to crypto/tls,
	// which will refuse it.
	l.config = testServerConfig(t)
	l.config.MaxVersion = VersionTLCP
	if r := route(rec(0x0301, smBytes)); r != routeStdTLS {
		t.Error("TLS 1.3-SM went to a TLCP-only server")
	}
	// No tls.Config: everything is ours.
	l.tlsConfig = nil
	if r := route([]byte("GET / HTTP/1.1\r\n\r\n")); r != routeShangMi {
		t.Error("without a tls.Config, HTTP went to crypto/tls")
	}

	// A silent client does not block the next one.
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := NewAutoListener(inner, testServerConfig(t), stdSrv)
	defer ln.Close()
	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		c, err := Dial("tcp", ln.Addr().String(), tls13ClientConfig(t))
		if err == nil {
			c.Close()
		}
	}()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	select {
	case c := <-accepted:
		if _, ok := c.(*Conn); !ok {
			t.Errorf("accepted %T", c)
		}
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("a silent client held up Accept")
	}
	ln.Close()
	if _, err := ln.Accept(); err == nil {
		t.Error("Accept after Close")
	}
}

// TestAutoListenerHTTP serves HTTP on one port to crypto/tls (HTTP/2 and
// HTTP/1.1), TLCP and TLS 1.3-SM clients through ServeHTTP, and
// ConnectionStateFromRequest tells the handler the protocol and suite on
// every path, with an exporter that agrees with the client's.
func TestAutoListenerHTTP(t *testing.T) {
	stdSrv, stdCli := ecdsaTLSConfigs(t)
	stdSrv.NextProtos = []string{"h2", "http/1.1"}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	scfg := testServerConfig(t)
	ln := NewAutoListener(inner, scfg, stdSrv)
	var logBuf safeBuffer
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			st, ours := ConnectionStateFromRequest(r)
			ekm, err := st.ExportKeyingMaterial("EXPORTER-test", nil, 8)
			fmt.Fprintf(w, "%s tls=%x/%x ours=%v/%x %s %s %s ekm=%x %v", r.Proto, r.TLS.Version, r.TLS.CipherSuite, ours, st.Version,
				st.Protocol, VersionName(st.Version), CipherSuiteName(st.CipherSuite), ekm, err)
		}),
		ErrorLog:          log.New(&logBuf, "", 0),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go ServeHTTP(srv, ln, scfg)
	defer srv.Close()
	url := "https://" + ln.Addr().String() + "/"

	// get returns the handler's answer without the exporter's output,
	// which it checks against the client's own.
	var h1, h2 *http.Client
	get := func(c *http.Client) string {
		t.Helper()
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got, ekm, _ := strings.Cut(string(b), " ekm=")
		if c == h2 || c == h1 {
			// crypto/tls clients: the server's exporter is theirs.
			want, err := resp.TLS.ExportKeyingMaterial("EXPORTER-test", nil, 8)
			if err != nil || ekm != fmt.Sprintf("%x <nil>", want) {
				t.Errorf("%s: server's exporter %s, client's %x (%v)", got, ekm, want, err)
			}
		} else if len(ekm) != 16+len(" <nil>") {
			t.Errorf("%s: server's exporter %s", got, ekm)
		}
		return got
	}
	h2 = &http.Client{Transport: &http.Transport{TLSClientConfig: stdCli.Clone(), ForceAttemptHTTP2: true}}
	if got := get(h2); got != "HTTP/2.0 tls=304/1301 ours=true/304 TLS TLS 1.3 TLS_AES_128_GCM_SHA256" {
		t.Errorf("crypto/tls h2: %q", got)
	}
	h1cfg := stdCli.Clone()
	h1cfg.MaxVersion = tls.VersionTLS12
	h1cfg.NextProtos = nil // the h2 transport above may have added "h2" to stdCli
	h1 = &http.Client{Transport: &http.Transport{TLSClientConfig: h1cfg}}
	if got := get(h1); !strings.HasPrefix(got, "HTTP/1.1 tls=303/") || !strings.Contains(got, "ours=true/303 TLS TLS 1.2 TLS_ECDHE_") {
		t.Errorf("crypto/tls 1.2: %q", got)
	}
	tlcpClient := &http.Client{Transport: NewHTTPTransport(testClientConfig(t))}
	if got := get(tlcpClient); got != "HTTP/1.1 tls=101/e053 ours=true/101 TLCP TLCP ECC_SM4_GCM_SM3" {
		t.Errorf("TLCP: %q", got)
	}
	smClient := &http.Client{Transport: NewHTTPTransport(tls13ClientConfig(t))}
	if got := get(smClient); got != "HTTP/1.1 tls=304/c6 ours=true/304 TLS 1.3-SM TLS 1.3 TLS_SM4_GCM_SM3" {
		t.Errorf("TLS 1.3-SM: %q", got)
	}
	// A failed TLS 1.3-SM handshake is logged like the others.
	bad := tls13ClientConfig(t)
	bad.RootCAs = nil
	if _, err := (&http.Client{Transport: NewHTTPTransport(bad)}).Get(url); err == nil {
		t.Fatal("an unverifiable server was accepted")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logBuf.String(), "handshake error") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logBuf.String(), "http: TLCP handshake error from") {
		t.Errorf("server log: %q", logBuf.String())
	}
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
