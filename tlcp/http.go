// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
)

// HTTP over TLCP: the server side.
//
// net/http runs the handshake itself, logs its failures and fills in
// Request.TLS only for a *tls.Conn. For any other connection it fills in
// Request.TLS from a ConnectionState method returning a
// tls.ConnectionState (Go 1.20 and later), which it calls before reading
// the first request. ServeHTTP therefore hands net/http an httpConn: its
// first use (that call, a Read or a Write) runs the TLCP handshake within
// a time limit, and a failure is logged to the server's ErrorLog the way
// net/http logs TLS handshake failures.

// DefaultHTTPHandshakeTimeout bounds the handshake of ServeHTTP's
// connections when the http.Server sets none of ReadHeaderTimeout,
// ReadTimeout and WriteTimeout.
const DefaultHTTPHandshakeTimeout = 10 * time.Second

// ListenAndServe serves HTTP over TLCP on the TCP address addr with
// handler (http.DefaultServeMux if nil), as http.ListenAndServeTLS does
// over TLS. It returns only with an error. See ServeHTTP.
func ListenAndServe(addr string, config *Config, handler http.Handler) error {
	return ServeHTTP(&http.Server{Addr: addr, Handler: handler}, nil, config)
}

// ServeHTTP serves srv over TLCP on ln, as srv.ServeTLS does over TLS; if
// ln is nil it listens on srv.Addr (":https" if empty). config is the
// server's TLCP configuration and must hold a certificate pair (or set
// GetCertificate or GetConfigForClient). It returns http.ErrServerClosed after srv.Shutdown or
// srv.Close, like srv.Serve.
//
// Each connection's handshake runs in the connection's own goroutine
// before its first request is read, bounded by the least of srv's
// positive ReadHeaderTimeout, ReadTimeout and WriteTimeout, or by
// DefaultHTTPHandshakeTimeout if none is set, so that clients that connect
// and say nothing cannot hold connections open. A failed handshake is
// logged to srv.ErrorLog (the log package's standard logger if nil) as
//
//	http: TLCP handshake error from ADDR: REASON
//
// and a client that sends plain HTTP is answered with 400 Bad Request.
//
// Handlers see a non-nil Request.TLS holding what a tls.ConnectionState
// can say about TLCP: HandshakeComplete, Version (VersionTLCP, 0x0101),
// CipherSuite (a TLCP suite; see CipherSuiteName), ServerName,
// NegotiatedProtocol and DidResume. Its PeerCertificates is empty, because
// SM2 certificates are not crypto/x509 certificates; ConnectionStateFromRequest
// returns the full ConnectionState, with both of the client's certificates.
//
// ServeHTTP wraps srv.ConnContext (keeping any function already set) to
// record each request's connection for ConnectionStateFromRequest, so it
// must be called before srv serves on any other listener. Only HTTP/1.x
// is served over TLCP and TLS 1.3-SM.
//
// With ln from NewAutoListener, one port serves TLCP, TLS 1.3-SM and
// ordinary TLS: connections that the listener hands to crypto/tls reach
// net/http as *tls.Conn, and net/http serves them as it does for
// srv.ServeTLS (handshake timeouts, r.TLS, HTTP/2 if the tls.Config offers
// "h2"; ConnectionStateFromRequest describes them from r.TLS).
func ServeHTTP(srv *http.Server, ln net.Listener, config *Config) error {
	if config == nil || (len(config.Certificates) == 0 && config.GetCertificate == nil && config.GetConfigForClient == nil) {
		return errors.New("tlcp: a server needs a CertificatePair in Config.Certificates, or Config.GetCertificate or GetConfigForClient")
	}
	if slices.Contains(config.NextProtos, "h2") {
		// net/http speaks HTTP/2 only on a *tls.Conn.
		return errors.New(`tlcp: ServeHTTP serves HTTP/1.x only, but Config.NextProtos offers "h2"`)
	}
	if ln == nil {
		addr := srv.Addr
		if addr == "" {
			addr = ":https"
		}
		var err error
		if ln, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	httpServersMu.Lock()
	inner := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if inner != nil {
			ctx = inner(ctx, c)
		}
		if hc, ok := c.(*httpConn); ok {
			ctx = context.WithValue(ctx, httpConnKey{}, hc.Conn)
		}
		return context.WithValue(ctx, httpServedKey{}, true)
	}
	httpServersMu.Unlock()
	return srv.Serve(&httpListener{Listener: ln, config: config, srv: srv})
}

// httpServersMu serialises ServeHTTP's change to http.Server.ConnContext.
var httpServersMu sync.Mutex

// httpConnKey is the request-context key of the *Conn a request came on.
type httpConnKey struct{}

// ConnectionStateFromRequest returns the ConnectionState of the connection
// r arrived on through ServeHTTP, and whether it did. For TLCP and TLS
// 1.3-SM it is the full state, with both of the client's certificates
// (Request.TLS holds only what a tls.ConnectionState can carry); for
// ordinary TLS that an AutoListener handed to crypto/tls it is built from
// r.TLS, with Protocol ProtocolTLS, the client's certificates parsed as
// smx509 certificates and crypto/tls's exporter. It reports false for a
// request that did not come through ServeHTTP.
//
// http.Serve on a listener from Listen works, but net/http cannot see
// what a *Conn negotiated: Request.TLS is nil and this function reports
// false there. Use ServeHTTP (or ListenAndServe) instead.
func ConnectionStateFromRequest(r *http.Request) (ConnectionState, bool) {
	if c, ok := r.Context().Value(httpConnKey{}).(*Conn); ok {
		return c.ConnectionState(), true
	}
	if r.TLS == nil || r.Context().Value(httpServedKey{}) == nil {
		return ConnectionState{}, false
	}
	return stateFromTLS(r.TLS), true
}

// httpServedKey marks the request contexts of ServeHTTP's connections, so
// that ConnectionStateFromRequest answers only for them.
type httpServedKey struct{}

// stateFromTLS describes a crypto/tls connection as a ConnectionState.
func stateFromTLS(t *tls.ConnectionState) ConnectionState {
	s := ConnectionState{
		Version:            t.Version,
		HandshakeComplete:  t.HandshakeComplete,
		DidResume:          t.DidResume,
		CipherSuite:        t.CipherSuite,
		NegotiatedProtocol: t.NegotiatedProtocol,
		ServerName:         t.ServerName,
		CurveID:            CurveID(t.CurveID),
		Protocol:           ProtocolTLS,
		ekm:                t.ExportKeyingMaterial,
	}
	for _, c := range t.PeerCertificates {
		if sc, err := smx509.ParseCertificate(c.Raw); err == nil {
			s.PeerCertificates = append(s.PeerCertificates, sc)
		}
	}
	if len(s.PeerCertificates) > 0 {
		s.PeerSignCertificate = s.PeerCertificates[0]
	}
	for _, chain := range t.VerifiedChains {
		var sc []*smx509.Certificate
		for _, c := range chain {
			if p, err := smx509.ParseCertificate(c.Raw); err == nil {
				sc = append(sc, p)
			}
		}
		s.VerifiedChains = append(s.VerifiedChains, sc)
	}
	return s
}

// httpListener wraps accepted connections for ServeHTTP.
type httpListener struct {
	net.Listener
	config *Config
	srv    *http.Server
}

func (l *httpListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	switch c := c.(type) {
	case *tls.Conn:
		// Ordinary TLS from an AutoListener: net/http serves it itself.
		return c, nil
	case *Conn:
		// TLCP or TLS 1.3-SM from an AutoListener.
		return &httpConn{Conn: c, srv: l.srv}, nil
	}
	return &httpConn{Conn: Server(c, l.config), srv: l.srv}, nil
}

// httpConn is a server Conn that handshakes on first use within the
// server's time limit, logs a failure, and describes itself to net/http as
// a tls.ConnectionState.
type httpConn struct {
	*Conn
	srv  *http.Server
	once sync.Once
	err  error
}

// handshake runs the handshake once; later calls return its result.
func (c *httpConn) handshake() error {
	c.once.Do(func() { c.err = c.runHandshake() })
	return c.err
}

func (c *httpConn) runHandshake() error {
	timeout := httpHandshakeTimeout(c.srv)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := c.Conn.HandshakeContext(ctx)
	if err == nil {
		return nil
	}
	reason := err.Error()
	switch {
	case errors.Is(err, errClientSpeaksHTTP):
		// As net/http answers HTTP on an HTTPS port.
		raw := c.Conn.NetConn()
		raw.SetWriteDeadline(time.Now().Add(time.Second))
		io.WriteString(raw, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to a TLCP server.\n")
		reason = "client sent an HTTP request to a TLCP server"
	case errors.Is(err, context.DeadlineExceeded):
		reason = fmt.Sprintf("no handshake within %v", timeout)
	}
	logger := log.Printf
	if c.srv.ErrorLog != nil {
		logger = c.srv.ErrorLog.Printf
	}
	logger("http: TLCP handshake error from %s: %s", c.RemoteAddr(), reason)
	c.Conn.Close()
	return err
}

// httpHandshakeTimeout is net/http's bound on a TLS handshake (the least
// positive of three timeouts), or DefaultHTTPHandshakeTimeout.
func httpHandshakeTimeout(srv *http.Server) time.Duration {
	var d time.Duration
	for _, t := range []time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout} {
		if t > 0 && (d == 0 || t < d) {
			d = t
		}
	}
	if d == 0 {
		d = DefaultHTTPHandshakeTimeout
	}
	return d
}

// Read reads after the handshake. After a failed handshake, already
// logged, it reports io.EOF: net/http then closes the connection without
// logging it again.
func (c *httpConn) Read(b []byte) (int, error) {
	if c.handshake() != nil {
		return 0, io.EOF
	}
	return c.Conn.Read(b)
}

func (c *httpConn) Write(b []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

// ConnectionState is what net/http puts in Request.TLS. It completes the
// handshake first, since net/http calls it before reading.
func (c *httpConn) ConnectionState() tls.ConnectionState {
	c.handshake()
	return stdConnectionState(c.Conn.ConnectionState())
}

// stdConnectionState carries over the fields of a ConnectionState that
// mean the same in a tls.ConnectionState.
func stdConnectionState(s ConnectionState) tls.ConnectionState {
	cs := tls.ConnectionState{
		Version:            s.Version,
		HandshakeComplete:  s.HandshakeComplete,
		DidResume:          s.DidResume,
		CipherSuite:        s.CipherSuite,
		NegotiatedProtocol: s.NegotiatedProtocol,
		ServerName:         s.ServerName,
	}
	// crypto/tls sets this field on every connection (its doc: "always
	// true"), and code written against it still tests it before trusting
	// NegotiatedProtocol, as net/http's own Transport does; Request.TLS
	// says what crypto/tls would say.
	//lint:ignore SA1019 kept true, as crypto/tls keeps it, for readers of Request.TLS written against crypto/tls
	cs.NegotiatedProtocolIsMutual = true
	return cs
}

// HTTP over TLCP: the client side.

// NewHTTPTransport returns an *http.Transport that speaks HTTPS over TLCP:
//
//	client := &http.Client{Transport: tlcp.NewHTTPTransport(cfg)}
//
// It has the settings of http.DefaultTransport: proxies from the
// environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, as
// http.ProxyFromEnvironment reads them), connections made within 30 s with
// 30 s TCP keep-alives, up to 100 idle connections kept for 90 s, a 1 s
// Expect: 100-continue wait, and a handshake bound by TLSHandshakeTimeout
// (10 s), whose expiry is an error saying "tlcp handshake timeout".
//
// HTTPS requests reach a proxy with an HTTP CONNECT request (the proxy
// may be http:// or https://; user information in its URL becomes a
// Proxy-Authorization header, and ProxyConnectHeader is sent too) and run
// the TLCP handshake through the tunnel. The transport's Proxy field must
// stay nil for them, because net/http would speak crypto/tls through a
// proxy it chose itself; it is used for plain http:// requests only. To
// choose the proxy of HTTPS requests, set DialTLSContext to the
// DialContext of a Dialer whose Proxy says so.
func NewHTTPTransport(config *Config) *http.Transport {
	return newHTTPTransport(config, http.ProxyFromEnvironment)
}

func newHTTPTransport(config *Config, proxy func(*http.Request) (*url.URL, error)) *http.Transport {
	d := &Dialer{
		Config:    config,
		NetDialer: &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		Proxy:     proxy,
	}
	tr := &http.Transport{
		// Only for http:// requests; https:// ones are dialled below.
		Proxy: func(r *http.Request) (*url.URL, error) {
			if r.URL.Scheme == "https" {
				return nil, nil
			}
			return proxy(r)
		},
		DialContext:           d.netDialer().DialContext,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		// The transport's fields are read at each dial, as net/http
		// reads them, so that changes made after construction count.
		dd := *d
		dd.HandshakeTimeout = tr.TLSHandshakeTimeout
		return dd.dial(ctx, network, addr, tr.ProxyConnectHeader)
	}
	return tr
}

// handshakeTimeoutError is the error of a handshake that ran out of time,
// like net/http's "TLS handshake timeout".
type handshakeTimeoutError struct{ d time.Duration }

func (e handshakeTimeoutError) Error() string {
	return fmt.Sprintf("tlcp handshake timeout (no handshake within %v)", e.d)
}
func (handshakeTimeoutError) Timeout() bool   { return true }
func (handshakeTimeoutError) Temporary() bool { return true }
func (handshakeTimeoutError) Unwrap() error   { return context.DeadlineExceeded }

// dialProxy connects to addr through the HTTP CONNECT proxy at proxyURL
// and returns the tunnel.
func dialProxy(ctx context.Context, nd *net.Dialer, network string, proxyURL *url.URL, addr string, header http.Header) (net.Conn, error) {
	host := proxyURL.Host
	switch proxyURL.Scheme {
	case "http", "":
		if proxyURL.Port() == "" {
			host = net.JoinHostPort(proxyURL.Hostname(), "80")
		}
	case "https":
		if proxyURL.Port() == "" {
			host = net.JoinHostPort(proxyURL.Hostname(), "443")
		}
	default:
		return nil, fmt.Errorf("tlcp: proxy %s: scheme %q is not supported (use an http:// or https:// CONNECT proxy)", proxyURL.Redacted(), proxyURL.Scheme)
	}
	conn, err := nd.DialContext(ctx, network, host)
	if err != nil {
		return nil, fmt.Errorf("tlcp: connecting to proxy %s: %w", proxyURL.Redacted(), err)
	}
	if proxyURL.Scheme == "https" {
		// The proxy itself is an ordinary HTTPS server.
		tc := tls.Client(conn, &tls.Config{ServerName: proxyURL.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("tlcp: TLS handshake with proxy %s: %w", proxyURL.Redacted(), err)
		}
		conn = tc
	}
	tunnel, err := connectThrough(ctx, conn, proxyURL, addr, header)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return tunnel, nil
}

// connectThrough sends CONNECT addr on conn and reads the proxy's answer;
// ctx bounds both.
func connectThrough(ctx context.Context, conn net.Conn, proxyURL *url.URL, addr string, header http.Header) (net.Conn, error) {
	req := &http.Request{
		Method: "CONNECT",
		URL:    &url.URL{Opaque: addr},
		Host:   addr,
		Header: header.Clone(),
	}
	if req.Header == nil {
		req.Header = make(http.Header)
	}
	if u := proxyURL.User; u != nil {
		pass, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)))
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	br := bufio.NewReader(conn)
	err := req.Write(conn)
	var resp *http.Response
	if err == nil {
		resp, err = http.ReadResponse(br, req)
	}
	if !stop() {
		// ctx ended: the deadline above is why the exchange failed.
		return nil, fmt.Errorf("tlcp: CONNECT through proxy %s: %w", proxyURL.Redacted(), ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("tlcp: CONNECT through proxy %s: %w", proxyURL.Redacted(), err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("tlcp: proxy %s refused CONNECT %s: %s", proxyURL.Redacted(), addr, resp.Status)
	}
	if br.Buffered() > 0 {
		// Bytes the proxy sent after its answer belong to the tunnel.
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn is a Conn whose first bytes were already read into r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }
