// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// Server returns a server-side TLCP connection over conn. config must hold
// at least one CertificatePair (or set GetCertificate or GetConfigForClient).
func Server(conn net.Conn, config *Config) *Conn {
	return newConn(conn, config, false)
}

// Client returns a client-side TLCP connection over conn. config must set
// ServerName or InsecureSkipVerify.
func Client(conn net.Conn, config *Config) *Conn {
	return newConn(conn, config, true)
}

// newConn wraps conn; the handshake runs on first use.
func newConn(conn net.Conn, config *Config, client bool) *Conn {
	c := &Conn{conn: conn, config: config, isClient: client}
	if client {
		c.handshakeFn = c.clientHandshake
	} else {
		c.handshakeFn = c.serverHandshake
	}
	return c
}

// serverListener hands out each accepted connection as a server Conn.
type serverListener struct {
	net.Listener
	config *Config
}

func (l serverListener) Accept() (net.Conn, error) {
	raw, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newConn(raw, l.config, false), nil
}

// NewListener returns a listener whose connections are TLCP server
// connections over those of inner. The handshake runs on first use, with
// no time limit unless the caller sets one (see "Handshake timeouts" in
// the package documentation); for HTTP, use ServeHTTP.
func NewListener(inner net.Listener, config *Config) net.Listener {
	return serverListener{inner, config}
}

// Listen listens on laddr and returns a TLCP listener, whose Accept
// returns *Conn values. To serve HTTP on it use ServeHTTP rather than
// http.Serve: net/http fills in Request.TLS only for connections it knows,
// so under http.Serve a handler cannot see what was negotiated.
func Listen(network, laddr string, config *Config) (net.Listener, error) {
	if config == nil || (len(config.Certificates) == 0 && config.GetCertificate == nil && config.GetConfigForClient == nil) {
		return nil, errors.New("tlcp: a server needs a CertificatePair in Config.Certificates, or Config.GetCertificate or GetConfigForClient")
	}
	l, err := net.Listen(network, laddr)
	if err != nil {
		return nil, err
	}
	return NewListener(l, config), nil
}

// Dialer dials TLCP connections, like crypto/tls.Dialer, optionally
// through an HTTP CONNECT proxy.
type Dialer struct {
	// NetDialer dials the transport; nil means a zero net.Dialer. Its
	// Timeout and Deadline bound the whole dial, handshake included.
	NetDialer *net.Dialer
	// Config is the client configuration; nil means the zero Config.
	Config *Config
	// Proxy, if set, chooses an HTTP CONNECT proxy for each address, as
	// http.Transport.Proxy does: it is called with a GET request for
	// https://addr/ and returns the proxy's URL (http:// or https://), or
	// nil to connect directly. http.ProxyFromEnvironment and
	// http.ProxyURL fit.
	Proxy func(*http.Request) (*url.URL, error)
	// HandshakeTimeout, if positive, bounds the TLCP handshake alone; its
	// expiry is an error that says "tlcp handshake timeout" and is a
	// net.Error whose Timeout method reports true.
	HandshakeTimeout time.Duration
}

// Dial connects and runs the handshake.
func (d *Dialer) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}

// DialContext connects and runs the handshake, both bounded by ctx. The
// returned net.Conn is a *Conn.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.dial(ctx, network, addr, nil)
	if err != nil {
		return nil, err // not a non-nil interface holding a nil *Conn
	}
	return c, nil
}

func (d *Dialer) netDialer() *net.Dialer {
	if d.NetDialer != nil {
		return d.NetDialer
	}
	return new(net.Dialer)
}

// dial connects to addr, through d.Proxy's choice if any (sending
// proxyHeader with the CONNECT), and runs the handshake. The net.Dialer's
// Timeout and Deadline bound the whole of it, HandshakeTimeout the
// handshake alone.
func (d *Dialer) dial(ctx context.Context, network, addr string, proxyHeader http.Header) (*Conn, error) {
	nd := d.netDialer()
	ctx, cancel := withDialerLimits(ctx, nd)
	defer cancel()
	config := configFor(d.Config, addr)
	conn, err := d.handshake(ctx, nd, network, addr, proxyHeader, config, interopForms{})
	if err == nil {
		return conn, nil
	}
	var retry interopForms
	if qe := (*quirkError)(nil); errors.As(err, &qe) {
		retry = qe.retry
	}
	// A handshake that started from a remembered hint and that the server
	// refused in a way that names no other form may have met a server
	// that changed since: the hint is forgotten and the retry goes
	// without it.
	_, remote, closed := refusal(err)
	stale := conn != nil && conn.quirks.hinted && retry == (interopForms{}) && (remote || closed)
	if !config.adaptive() || retry == (interopForms{}) && !stale || ctx.Err() != nil {
		return nil, err
	}
	if stale {
		interopHints.remove(conn.quirks.cacheKey)
	}
	// The server refused a form in a way that names the other: one retry
	// on a new connection with it, the same Config otherwise (adapt.go).
	// If that fails too, the hint did not help: it is forgotten, and the
	// first error, which names the switch, is the one returned.
	var retryErr error
	conn, retryErr = d.handshake(ctx, nd, network, addr, proxyHeader, config, retry)
	if retryErr != nil {
		if conn != nil && conn.quirks.cacheKey != "" {
			interopHints.remove(conn.quirks.cacheKey)
		}
		return nil, err
	}
	return conn, nil
}

// handshake connects and runs one handshake, starting from the forms of
// retry besides what config and the hint cache say. On a handshake
// failure it returns the failed Conn (closed) with the error.
func (d *Dialer) handshake(ctx context.Context, nd *net.Dialer, network, addr string, proxyHeader http.Header, config *Config, retry interopForms) (*Conn, error) {
	raw, err := d.connect(ctx, nd, network, addr, proxyHeader)
	if err != nil {
		return nil, err
	}
	conn := Client(raw, config)
	conn.quirks.retryForms = retry
	hctx, hcancel := ctx, context.CancelFunc(func() {})
	if d.HandshakeTimeout > 0 {
		hctx, hcancel = context.WithTimeout(ctx, d.HandshakeTimeout)
	}
	err = conn.HandshakeContext(hctx)
	timedOut := hctx.Err() != nil && ctx.Err() == nil
	hcancel()
	if err != nil {
		raw.Close()
		if timedOut {
			return nil, handshakeTimeoutError{d.HandshakeTimeout}
		}
		return conn, err
	}
	return conn, nil
}

// withDialerLimits narrows ctx to the net.Dialer's Timeout and Deadline.
func withDialerLimits(ctx context.Context, nd *net.Dialer) (context.Context, context.CancelFunc) {
	deadline := nd.Deadline
	if nd.Timeout != 0 {
		if t := time.Now().Add(nd.Timeout); deadline.IsZero() || t.Before(deadline) {
			deadline = t
		}
	}
	if deadline.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, deadline)
}

// connect opens the transport to addr, directly or through the proxy that
// d.Proxy names for it.
func (d *Dialer) connect(ctx context.Context, nd *net.Dialer, network, addr string, proxyHeader http.Header) (net.Conn, error) {
	if d.Proxy == nil {
		return nd.DialContext(ctx, network, addr)
	}
	probe := &http.Request{Method: "GET", URL: &url.URL{Scheme: "https", Host: addr}, Header: make(http.Header)}
	proxyURL, err := d.Proxy(probe)
	if err != nil {
		return nil, fmt.Errorf("tlcp: choosing a proxy for %s: %w", addr, err)
	}
	if proxyURL == nil {
		return nd.DialContext(ctx, network, addr)
	}
	return dialProxy(ctx, nd, network, proxyURL, addr, proxyHeader)
}

// configFor returns config (the zero Config if nil) with ServerName set
// to the host of addr if it is empty: a client verifies the host it
// dialled unless told another name, as with crypto/tls.
func configFor(config *Config, addr string) *Config {
	if config == nil {
		config = defaultConfig()
	}
	if config.ServerName != "" {
		return config
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr // no port
	}
	config = config.Clone()
	config.ServerName = host
	return config
}

// DialWithDialer connects with dialer and runs the handshake; dialer's
// Timeout and Deadline bound both.
func DialWithDialer(dialer *net.Dialer, network, addr string, config *Config) (*Conn, error) {
	return (&Dialer{NetDialer: dialer, Config: config}).dial(context.Background(), network, addr, nil)
}

// Dial connects to addr and runs the handshake.
func Dial(network, addr string, config *Config) (*Conn, error) {
	return DialWithDialer(new(net.Dialer), network, addr, config)
}

// CipherSuites returns the TLCP suites this package can negotiate, default
// ones first. The private ZUC suites are included but are used only when
// listed in Config.CipherSuites. The TLS 1.3 suites are
// ciphersuite.TLS13Suites().
func CipherSuites() []*ciphersuite.Suite {
	var out []*ciphersuite.Suite
	for _, id := range ciphersuite.DefaultPreference() {
		out = append(out, ciphersuite.Lookup(id))
	}
	for _, s := range ciphersuite.All() {
		if s.Supported && (s.KeyExchange == ciphersuite.KeyExchangeECC || s.KeyExchange == ciphersuite.KeyExchangeECDHE) &&
			!containsSuite(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func containsSuite(list []*ciphersuite.Suite, s *ciphersuite.Suite) bool {
	for _, x := range list {
		if x.ID == s.ID {
			return true
		}
	}
	return false
}

// LoadX509KeyPair reads a certificate chain and its private key from PEM
// files; see X509KeyPair.
func LoadX509KeyPair(certFile, keyFile string) (Certificate, error) {
	return LoadX509KeyPairWithPassword(certFile, keyFile, nil)
}

// LoadX509KeyPairWithPassword is LoadX509KeyPair for an encrypted key.
func LoadX509KeyPairWithPassword(certFile, keyFile string, password []byte) (Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return Certificate{}, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return Certificate{}, err
	}
	return X509KeyPairWithPassword(certPEM, keyPEM, password)
}

// LoadCertificatePair loads a signing and an encryption certificate with
// their keys, the usual way TLCP credentials are delivered; see
// X509CertificatePair.
//
// GmSSL 3 delivers a TLCP server's credentials as one certificate file (the
// signing certificate, the encryption certificate, then the CA
// certificates) and one key file (the signing key, then the encryption
// key, encrypted with one password). Pass each file twice:
//
//	LoadCertificatePairWithPassword("certs.pem", "keys.pem", "certs.pem", "keys.pem", password)
func LoadCertificatePair(signCertFile, signKeyFile, encCertFile, encKeyFile string) (CertificatePair, error) {
	return LoadCertificatePairWithPassword(signCertFile, signKeyFile, encCertFile, encKeyFile, nil)
}

// LoadCertificatePairWithPassword is LoadCertificatePair for encrypted keys
// that share one password. Keys with different passwords are loaded one
// half at a time with LoadX509KeyPairWithPassword.
func LoadCertificatePairWithPassword(signCertFile, signKeyFile, encCertFile, encKeyFile string, password []byte) (CertificatePair, error) {
	var data [4][]byte
	for i, name := range []string{signCertFile, signKeyFile, encCertFile, encKeyFile} {
		var err error
		if data[i], err = os.ReadFile(name); err != nil {
			return CertificatePair{}, err
		}
	}
	return loadCertificatePair(data[0], data[1], data[2], data[3], password, "LoadCertificatePairWithPassword")
}

// X509CertificatePair parses the PEM files of a TLCP signing and encryption
// certificate and their keys, checks that each key matches its certificate
// and that the certificates' key usages fit their roles.
//
// Each half is read as by X509KeyPair, except that a file holding both
// halves, such as GmSSL's combined certificate and key files, may be given
// for both: the signing half is then the certificate whose key usage is
// digitalSignature, the encryption half the one whose key usage is
// keyEncipherment, dataEncipherment or keyAgreement, and where the key
// usages do not tell them apart GmSSL's order decides (signing certificate
// first). Each half's chain is its leaf followed by the file's CA
// certificates.
func X509CertificatePair(signCertPEM, signKeyPEM, encCertPEM, encKeyPEM []byte) (CertificatePair, error) {
	return loadCertificatePair(signCertPEM, signKeyPEM, encCertPEM, encKeyPEM, nil, "X509CertificatePairWithPassword")
}

// X509CertificatePairWithPassword is X509CertificatePair for encrypted keys
// that share one password.
func X509CertificatePairWithPassword(signCertPEM, signKeyPEM, encCertPEM, encKeyPEM, password []byte) (CertificatePair, error) {
	return loadCertificatePair(signCertPEM, signKeyPEM, encCertPEM, encKeyPEM, password, "X509CertificatePairWithPassword")
}

// X509KeyPair parses a PEM certificate chain and a PEM private key and checks
// that they match. The key may be PKCS #8, SEC 1 ("EC PRIVATE KEY" or "SM2
// PRIVATE KEY") or PKCS #1; see x509.ParsePrivateKeysPEM for every form.
//
// The leaf is the certificate the key belongs to, normally the first; the
// chain is the leaf followed by the file's CA certificates. A certificate
// file holding both certificates of a TLCP pair (GmSSL's layout) thus works
// with either key. Files that cannot be read as one certificate and its key
// give an error that says what they hold.
func X509KeyPair(certPEM, keyPEM []byte) (Certificate, error) {
	return loadKeyPair(certPEM, keyPEM, nil, roleAny, "X509KeyPairWithPassword or LoadX509KeyPairWithPassword")
}

// X509KeyPairWithPassword is X509KeyPair for a key that may be encrypted
// (PKCS #8 "ENCRYPTED PRIVATE KEY", or legacy "Proc-Type: 4,ENCRYPTED").
func X509KeyPairWithPassword(certPEM, keyPEM, password []byte) (Certificate, error) {
	return loadKeyPair(certPEM, keyPEM, password, roleAny, "X509KeyPairWithPassword or LoadX509KeyPairWithPassword")
}
