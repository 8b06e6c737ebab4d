// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// connectProxy is an HTTP CONNECT proxy for the tests: it records each
// CONNECT and tunnels to the target, with host names mapped to 127.0.0.1
// (so that a client may ask for tlcp.test), unless refuse is set.
type connectProxy struct {
	ln     net.Listener
	refuse string // a status line to answer every CONNECT with

	mu       sync.Mutex
	connects []string // "target auth"
}

func startConnectProxy(t *testing.T) *connectProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *connectProxy) url(userinfo string) *url.URL {
	u := &url.URL{Scheme: "http", Host: p.ln.Addr().String()}
	if userinfo != "" {
		user, pass, _ := strings.Cut(userinfo, ":")
		u.User = url.UserPassword(user, pass)
	}
	return u
}

func (p *connectProxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.connects...)
}

func (p *connectProxy) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.connects = append(p.connects, req.Method+" "+req.Host+" "+req.Header.Get("Proxy-Authorization"))
	p.mu.Unlock()
	if req.Method != "CONNECT" {
		io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		return
	}
	if p.refuse != "" {
		io.WriteString(c, "HTTP/1.1 "+p.refuse+"\r\nContent-Length: 0\r\n\r\n")
		return
	}
	_, port, _ := net.SplitHostPort(req.Host)
	target, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	defer target.Close()
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	done := make(chan struct{})
	go func() { io.Copy(target, br); target.(*net.TCPConn).CloseWrite(); close(done) }()
	io.Copy(c, target)
	<-done
}

// logBuffer is an ErrorLog destination that the test may read while the
// server writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor returns the log once it contains want, or fails the test.
func (b *logBuffer) waitFor(t *testing.T, want string) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if s := b.String(); strings.Contains(s, want) {
			return s
		}
	}
	t.Fatalf("the server's ErrorLog does not say %q; it says:\n%s", want, b.String())
	return ""
}

// startHTTPServer runs ServeHTTP with scfg and handler on 127.0.0.1; its
// ErrorLog goes to the returned buffer.
func startHTTPServer(t *testing.T, scfg *Config, handler http.Handler, tweak func(*http.Server)) (addr string, errLog *logBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errLog = new(logBuffer)
	srv := &http.Server{Handler: handler, ErrorLog: log.New(errLog, "", 0)}
	if tweak != nil {
		tweak(srv)
	}
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(srv, ln, scfg) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeHTTP returned %v", err)
		}
	})
	return ln.Addr().String(), errLog
}

// describeRequest is a handler that reports what it sees of TLCP.
var describeRequest = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.TLS == nil {
		fmt.Fprint(w, "r.TLS is nil")
		return
	}
	st, ok := ConnectionStateFromRequest(r)
	who := "nobody"
	if ok && st.PeerSignCertificate != nil {
		who = st.PeerSignCertificate.Subject.CommonName
	}
	if ok && st.PeerEncCertificate != nil {
		who += "+" + st.PeerEncCertificate.Subject.CommonName
	}
	fmt.Fprintf(w, "complete=%v version=%#04x suite=%s resumed=%v sni=%q alpn=%q client=%s",
		r.TLS.HandshakeComplete, r.TLS.Version, CipherSuiteName(r.TLS.CipherSuite), r.TLS.DidResume,
		r.TLS.ServerName, r.TLS.NegotiatedProtocol, who)
})

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestHTTPThroughConnectProxy: net/http server and client with client
// authentication, the client reaching the server through a CONNECT proxy
// with credentials; handlers see r.TLS and the full ConnectionState; a
// client without a certificate is refused and the server's ErrorLog says
// why and from where.
func TestHTTPThroughConnectProxy(t *testing.T) {
	scfg := testServerConfig(t)
	scfg.ClientAuth = RequireAndVerifyClientCert
	scfg.NextProtos = []string{"http/1.1"}
	addr, errLog := startHTTPServer(t, scfg, describeRequest, nil)
	_, port, _ := net.SplitHostPort(addr)
	proxy := startConnectProxy(t)

	// An ECC client sends its signing certificate, an ECDHE one both.
	clients := map[uint16]string{ciphersuite.ECC_SM4_GCM_SM3: "client.test", ciphersuite.ECDHE_SM4_CBC_SM3: "client.test+client.test"}
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3} {
		ccfg := testClientConfig(t)
		ccfg.CipherSuites = []uint16{suite}
		ccfg.NextProtos = []string{"http/1.1"}
		ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
		tr := newHTTPTransport(ccfg, http.ProxyURL(proxy.url("user:secret")))
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		url := "https://tlcp.test:" + port + "/"
		want := fmt.Sprintf(`complete=true version=0x0101 suite=%s resumed=false sni="tlcp.test" alpn="http/1.1" client=%s`, CipherSuiteName(suite), clients[suite])
		if got := get(t, client, url); got != want {
			t.Fatalf("%s: handler saw\n%s\nwant\n%s", CipherSuiteName(suite), got, want)
		}
		get(t, client, url) // kept alive: no second CONNECT
		tr.CloseIdleConnections()
		if got := get(t, client, url); !strings.Contains(got, "resumed=true") {
			t.Fatalf("%s: handler saw %s, want a resumed session", CipherSuiteName(suite), got)
		}
		tr.CloseIdleConnections()
	}
	seen := proxy.seen()
	if len(seen) != 4 || seen[0] != "CONNECT tlcp.test:"+port+" Basic dXNlcjpzZWNyZXQ=" {
		t.Fatalf("the proxy saw %q, want 4 authenticated CONNECTs to tlcp.test:%s", seen, port)
	}
	if s := errLog.String(); s != "" {
		t.Fatalf("ErrorLog says %q after good handshakes", s)
	}

	// No client certificate where one is required.
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ccfg := testClientConfig(t)
	ccfg.Certificates = nil
	ccfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
	err = Client(raw, ccfg).Handshake()
	wantAlert(t, err, alertBadCertificate)
	errLog.waitFor(t, "http: TLCP handshake error from "+raw.LocalAddr().String()+": tlcp: the client sent no certificate, and one is required\n")
}

// TestHTTPHandshakeFailuresLogged: the cases of handshake failures
// that net/http cannot see, each logged with its real reason; a silent
// client is dropped when the handshake's time is up; an HTTP client gets a
// 400 in HTTP.
func TestHTTPHandshakeFailuresLogged(t *testing.T) {
	p := getPKI(t)
	t.Run("swapped server certificates", func(t *testing.T) {
		scfg := testServerConfig(t)
		scfg.Certificates = []CertificatePair{{Sign: p.server.Enc, Enc: p.server.Sign}}
		addr, errLog := startHTTPServer(t, scfg, describeRequest, nil)
		_, err := (&http.Client{Transport: NewHTTPTransport(testClientConfig(t))}).Get("https://" + addr + "/")
		if err == nil {
			t.Fatal("request succeeded")
		}
		errLog.waitFor(t, "are Sign and Enc swapped?")
	})
	t.Run("silent client", func(t *testing.T) {
		addr, errLog := startHTTPServer(t, testServerConfig(t), describeRequest, func(s *http.Server) {
			s.ReadHeaderTimeout = 200 * time.Millisecond
		})
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		errLog.waitFor(t, "http: TLCP handshake error from "+c.LocalAddr().String()+": no handshake within 200ms")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the silent client's connection was not closed: %v", err)
		}
	})
	t.Run("plain HTTP client", func(t *testing.T) {
		addr, errLog := startHTTPServer(t, testServerConfig(t), describeRequest, nil)
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTP request to a TLCP server") {
			t.Fatalf("%s: %q", resp.Status, body)
		}
		errLog.waitFor(t, ": client sent an HTTP request to a TLCP server\n")
	})
}

func TestHTTPHandshakeTimeoutRule(t *testing.T) {
	for _, tc := range []struct {
		srv  *http.Server
		want time.Duration
	}{
		{&http.Server{}, DefaultHTTPHandshakeTimeout},
		{&http.Server{ReadTimeout: time.Minute}, time.Minute},
		{&http.Server{ReadTimeout: time.Minute, WriteTimeout: 30 * time.Second, ReadHeaderTimeout: 2 * time.Minute}, 30 * time.Second},
	} {
		if got := httpHandshakeTimeout(tc.srv); got != tc.want {
			t.Errorf("%v, %v, %v: %v, want %v", tc.srv.ReadHeaderTimeout, tc.srv.ReadTimeout, tc.srv.WriteTimeout, got, tc.want)
		}
	}
}

// TestHTTPTransportDefaults: NewHTTPTransport has http.DefaultTransport's
// settings, and leaves Proxy to its dialer for HTTPS requests.
func TestHTTPTransportDefaults(t *testing.T) {
	tr := NewHTTPTransport(testClientConfig(t))
	def := http.DefaultTransport.(*http.Transport)
	if tr.MaxIdleConns != def.MaxIdleConns || tr.MaxIdleConnsPerHost != def.MaxIdleConnsPerHost ||
		tr.IdleConnTimeout != def.IdleConnTimeout || tr.TLSHandshakeTimeout != def.TLSHandshakeTimeout ||
		tr.ExpectContinueTimeout != def.ExpectContinueTimeout || tr.DialContext == nil || tr.DialTLSContext == nil {
		t.Fatalf("NewHTTPTransport differs from http.DefaultTransport: %+v", tr)
	}
	u, err := tr.Proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: "tlcp.test:443"}})
	if u != nil || err != nil {
		t.Fatalf("Proxy chose %v, %v for an HTTPS request; net/http would speak TLS through it", u, err)
	}
}

// TestHTTPTransportHandshakeTimeout: a server that accepts and says
// nothing makes the request fail after TLSHandshakeTimeout with "tlcp
// handshake timeout", a net.Error with Timeout.
func TestHTTPTransportHandshakeTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	tr := NewHTTPTransport(testClientConfig(t))
	tr.TLSHandshakeTimeout = 200 * time.Millisecond
	start := time.Now()
	_, err = (&http.Client{Transport: tr}).Get("https://" + ln.Addr().String() + "/")
	var ne net.Error
	if err == nil || !strings.Contains(err.Error(), "tlcp handshake timeout") || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the request took %v", d)
	}
}

// TestHTTPTransportProxyRefused: a proxy's refusal is reported with its
// status.
func TestHTTPTransportProxyRefused(t *testing.T) {
	proxy := startConnectProxy(t)
	proxy.refuse = "407 Proxy Authentication Required"
	tr := newHTTPTransport(testClientConfig(t), http.ProxyURL(proxy.url("")))
	_, err := (&http.Client{Transport: tr}).Get("https://tlcp.test:1/")
	if err == nil || !strings.Contains(err.Error(), "refused CONNECT tlcp.test:1: 407 Proxy Authentication Required") {
		t.Fatalf("error %v", err)
	}
	d := &Dialer{Config: testClientConfig(t), Proxy: http.ProxyURL(&url.URL{Scheme: "socks5", Host: "127.0.0.1:1"})}
	if _, err := d.DialContext(context.Background(), "tcp", "tlcp.test:1"); err == nil || !strings.Contains(err.Error(), `scheme "socks5" is not supported`) {
		t.Fatalf("socks5 proxy: %v", err)
	}
}

// TestHTTPTransportProxyFromEnvironment: by default the proxy comes from
// HTTPS_PROXY, as with http.DefaultTransport. The environment is read once
// per process, so the check runs in a child process that sets it first.
func TestHTTPTransportProxyFromEnvironment(t *testing.T) {
	if os.Getenv("TLCP_TEST_PROXY_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHTTPTransportProxyFromEnvironment$", "-test.v")
		cmd.Env = append(os.Environ(), "TLCP_TEST_PROXY_CHILD=1")
		out, err := cmd.CombinedOutput()
		if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) {
			// The binary cannot be run directly (qemu-user -exec).
			t.Skipf("cannot run the test binary as a child: %v", err)
		}
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	proxy := startConnectProxy(t)
	os.Setenv("HTTPS_PROXY", proxy.url("").String())
	os.Setenv("NO_PROXY", "")
	addr, _ := startHTTPServer(t, testServerConfig(t), describeRequest, nil)
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{Transport: NewHTTPTransport(testClientConfig(t))}
	if got := get(t, client, "https://tlcp.test:"+port+"/"); !strings.Contains(got, "complete=true") {
		t.Fatalf("handler saw %s", got)
	}
	if seen := proxy.seen(); len(seen) != 1 || !strings.HasPrefix(seen[0], "CONNECT tlcp.test:"+port) {
		t.Fatalf("the proxy saw %q", seen)
	}
}

func TestServeHTTPRefusesH2(t *testing.T) {
	scfg := testServerConfig(t)
	scfg.NextProtos = []string{"h2", "http/1.1"}
	if err := ServeHTTP(&http.Server{}, nil, scfg); err == nil || !strings.Contains(err.Error(), "HTTP/1.x only") {
		t.Fatalf("ServeHTTP with h2: %v", err)
	}
	if err := ListenAndServe("127.0.0.1:0", &Config{}, nil); err == nil || !strings.Contains(err.Error(), "needs a CertificatePair") {
		t.Fatalf("ListenAndServe without certificates: %v", err)
	}
}
