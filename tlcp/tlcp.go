// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"crypto"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

// Server returns a server-side TLCP connection over conn. config must hold
// at least one CertificatePair (or GetCertificate).
func Server(conn net.Conn, config *Config) *Conn {
	c := &Conn{conn: conn, config: config}
	c.handshakeFn = c.serverHandshake
	return c
}

// Client returns a client-side TLCP connection over conn. config must set
// ServerName or InsecureSkipVerify.
func Client(conn net.Conn, config *Config) *Conn {
	c := &Conn{conn: conn, config: config, isClient: true}
	c.handshakeFn = c.clientHandshake
	return c
}

// listener wraps accepted connections in Server.
type listener struct {
	net.Listener
	config *Config
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Server(c, l.config), nil
}

// NewListener returns a listener whose connections are TLCP server
// connections over those of inner. The handshake runs on first use, with
// no time limit unless the caller sets one (see "Handshake timeouts" in
// the package documentation); for HTTP, use ServeHTTP.
func NewListener(inner net.Listener, config *Config) net.Listener {
	return &listener{inner, config}
}

// Listen listens on laddr and returns a TLCP listener.
func Listen(network, laddr string, config *Config) (net.Listener, error) {
	if config == nil || (len(config.Certificates) == 0 && config.GetCertificate == nil) {
		return nil, errors.New("tlcp: a server needs a CertificatePair in Config.Certificates or Config.GetCertificate")
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
	raw, err := d.connect(ctx, nd, network, addr, proxyHeader)
	if err != nil {
		return nil, err
	}
	conn := Client(raw, configFor(d.Config, addr))
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
		return nil, err
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

// CipherSuites returns the suites this package can negotiate, default ones
// first. The private ZUC suites are included but are used only when listed
// in Config.CipherSuites.
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

// CipherSuiteName returns the name of a suite, e.g. "ECC_SM4_GCM_SM3", or
// its value in hexadecimal.
func CipherSuiteName(id uint16) string { return ciphersuite.Name(id) }

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
// their keys, the usual way TLCP credentials are delivered.
func LoadCertificatePair(signCertFile, signKeyFile, encCertFile, encKeyFile string) (CertificatePair, error) {
	sign, err := LoadX509KeyPair(signCertFile, signKeyFile)
	if err != nil {
		return CertificatePair{}, fmt.Errorf("tlcp: signing certificate: %w", err)
	}
	enc, err := LoadX509KeyPair(encCertFile, encKeyFile)
	if err != nil {
		return CertificatePair{}, fmt.Errorf("tlcp: encryption certificate: %w", err)
	}
	p := CertificatePair{Sign: sign, Enc: enc}
	if _, _, err := checkPair(&p, true); err != nil {
		return CertificatePair{}, err
	}
	return p, nil
}

// X509KeyPair parses a PEM certificate chain (leaf first) and a PEM private
// key (PKCS#8 or SEC1 "EC PRIVATE KEY") and checks that they match.
func X509KeyPair(certPEM, keyPEM []byte) (Certificate, error) {
	return X509KeyPairWithPassword(certPEM, keyPEM, nil)
}

// X509KeyPairWithPassword is X509KeyPair for a key that may be encrypted
// (PKCS#8 "ENCRYPTED PRIVATE KEY").
func X509KeyPairWithPassword(certPEM, keyPEM, password []byte) (Certificate, error) {
	var cert Certificate
	for {
		var block *pem.Block
		block, certPEM = pem.Decode(certPEM)
		if block == nil {
			break
		}
		if block.Type == "CERTIFICATE" {
			cert.Certificate = append(cert.Certificate, block.Bytes)
		}
	}
	if len(cert.Certificate) == 0 {
		return Certificate{}, errors.New("tlcp: no CERTIFICATE block in the certificate PEM")
	}
	leaf, err := smx509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return Certificate{}, fmt.Errorf("tlcp: parsing certificate: %w", err)
	}
	key, err := smx.ParsePrivateKeyPEM(keyPEM, password)
	if err != nil {
		return Certificate{}, fmt.Errorf("tlcp: parsing private key: %w", err)
	}
	if err := keyMatches(leaf, key); err != nil {
		return Certificate{}, err
	}
	cert.PrivateKey = key
	cert.Leaf = leaf
	return cert, nil
}

func keyMatches(leaf *smx509.Certificate, key crypto.Signer) error {
	pub, ok := leaf.PublicKey.(*sm2.PublicKey)
	if !ok {
		return fmt.Errorf("tlcp: certificate has a %T public key; TLCP needs SM2", leaf.PublicKey)
	}
	if !pub.Equal(key.Public()) {
		return errors.New("tlcp: private key does not match the certificate's public key")
	}
	return nil
}
