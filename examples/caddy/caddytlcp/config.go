// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"fmt"
	"os"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// Config is the ShangMi side of a port, as JSON:
//
//	{
//	  "certificates": [{"sign_cert": "sign.pem", "sign_key": "sign.key",
//	                    "enc_cert": "enc.pem", "enc_key": "enc.key"}],
//	  "client_auth": {"mode": "require_and_verify", "trusted_ca_cert_files": ["ca.pem"]},
//	  "cipher_suites": ["ECC_SM4_GCM_SM3", "ECDHE_SM4_GCM_SM3", "TLS_SM4_GCM_SM3"],
//	  "protocols": ["tlcp", "tls1.3"],
//	  "alpn": ["http/1.1"],
//	  "handshake_timeout": "10s"
//	}
type Config struct {
	// Certificates are the server's double certificates, PEM files. A
	// client's SNI chooses the first pair whose signing certificate is
	// valid for it; without SNI, or with a name none is valid for, the
	// first pair is used. TLS 1.3-SM uses a pair's signing half. A file
	// may hold both halves (GmSSL's layout): name it for both.
	Certificates []CertificatePair `json:"certificates,omitempty"`
	// ClientAuth asks clients for certificates.
	ClientAuth *ClientAuth `json:"client_auth,omitempty"`
	// CipherSuites lists the suites of both protocols by name, in order of
	// preference; empty means tlcp's defaults (the four SM2 suites of GB/T
	// 38636 and both RFC 8998 suites).
	CipherSuites []string `json:"cipher_suites,omitempty"`
	// Protocols are "tlcp" and "tls1.3" (TLS 1.3 with the SM suites);
	// empty means both.
	Protocols []string `json:"protocols,omitempty"`
	// ALPN are the protocols offered to clients that ask; empty means
	// "http/1.1".
	ALPN []string `json:"alpn,omitempty"`
	// HandshakeTimeout bounds each handshake; 0 means 10 s.
	HandshakeTimeout caddy.Duration `json:"handshake_timeout,omitempty"`
}

// CertificatePair names the PEM files of a signing and an encryption
// certificate and their keys. KeyPassword, if set, decrypts both keys;
// it may be a placeholder such as {env.SM_KEY_PASSWORD}.
type CertificatePair struct {
	SignCert    string `json:"sign_cert"`
	SignKey     string `json:"sign_key"`
	EncCert     string `json:"enc_cert"`
	EncKey      string `json:"enc_key"`
	KeyPassword string `json:"key_password,omitempty"`
}

// ClientAuth is the client certificate policy. Mode is "request",
// "require", "verify_if_given" or "require_and_verify" (the default when
// trusted CAs are given), as in Caddy's own client_auth. The ECDHE suites
// always require the client's double certificate.
type ClientAuth struct {
	Mode               string   `json:"mode,omitempty"`
	TrustedCACertFiles []string `json:"trusted_ca_cert_files,omitempty"`
}

var clientAuthModes = map[string]tlcp.ClientAuthType{
	"":                   tlcp.NoClientCert,
	"request":            tlcp.RequestClientCert,
	"require":            tlcp.RequireAnyClientCert,
	"verify_if_given":    tlcp.VerifyClientCertIfGiven,
	"require_and_verify": tlcp.RequireAndVerifyClientCert,
}

// suiteIDs maps every suite name tlcp knows to its code point.
func suiteIDs() map[string]uint16 {
	m := map[string]uint16{}
	for _, s := range tlcp.CipherSuites() {
		m[s.Name] = s.ID
	}
	for _, s := range ciphersuite.TLS13Suites() {
		m[s.Name] = s.ID
	}
	return m
}

// build makes the tlcp.Config, reading the files now.
func (c *Config) build(repl *caddy.Replacer) (*tlcp.Config, error) {
	if len(c.Certificates) == 0 {
		return nil, fmt.Errorf("tlcp: no certificates: a TLCP server needs a signing and an encryption certificate")
	}
	cfg := &tlcp.Config{NextProtos: c.ALPN}
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	for i, p := range c.Certificates {
		pw := repl.ReplaceAll(p.KeyPassword, "")
		var password []byte
		if pw != "" {
			password = []byte(pw)
		}
		pair, err := tlcp.LoadCertificatePairWithPassword(p.SignCert, p.SignKey, p.EncCert, p.EncKey, password)
		if err != nil {
			return nil, fmt.Errorf("tlcp: certificate pair %d: %w", i, err)
		}
		cfg.Certificates = append(cfg.Certificates, pair)
	}
	if len(cfg.Certificates) > 1 {
		get, err := bySNI(cfg.Certificates)
		if err != nil {
			return nil, err
		}
		cfg.GetCertificate = get
	}
	if ca := c.ClientAuth; ca != nil {
		mode, ok := clientAuthModes[ca.Mode]
		if !ok {
			return nil, fmt.Errorf("tlcp: client_auth mode %q: want request, require, verify_if_given or require_and_verify", ca.Mode)
		}
		if len(ca.TrustedCACertFiles) > 0 {
			pool := smx509.NewCertPool()
			for _, f := range ca.TrustedCACertFiles {
				b, err := os.ReadFile(f)
				if err != nil {
					return nil, fmt.Errorf("tlcp: client_auth: %w", err)
				}
				if !pool.AppendCertsFromPEM(b) {
					return nil, fmt.Errorf("tlcp: client_auth: %s holds no PEM certificate", f)
				}
			}
			cfg.ClientCAs = pool
			if ca.Mode == "" {
				mode = tlcp.RequireAndVerifyClientCert
			}
		}
		cfg.ClientAuth = mode
	}
	if len(c.CipherSuites) > 0 {
		ids := suiteIDs()
		for _, name := range c.CipherSuites {
			id, ok := ids[strings.ToUpper(name)]
			if !ok {
				return nil, fmt.Errorf("tlcp: unknown cipher suite %q", name)
			}
			cfg.CipherSuites = append(cfg.CipherSuites, id)
		}
	}
	var doTLCP, doTLS13 bool
	for _, p := range c.Protocols {
		switch strings.ToLower(p) {
		case "tlcp":
			doTLCP = true
		case "tls1.3", "tls1.3-sm":
			doTLS13 = true
		default:
			return nil, fmt.Errorf("tlcp: unknown protocol %q: want tlcp or tls1.3", p)
		}
	}
	switch {
	case doTLCP && !doTLS13:
		cfg.MaxVersion = tlcp.VersionTLCP
	case doTLS13 && !doTLCP:
		cfg.MinVersion = tlcp.VersionTLS13
	}
	return cfg, nil
}

// UnmarshalCaddyfile reads
//
//	tlcp {
//		sign        <cert_file> <key_file>
//		enc         <cert_file> <key_file>
//		key_password <password>
//		client_auth [<mode>] [<trusted_ca_file>...]
//		cipher_suites <name>...
//		protocols   tlcp|tls1.3...
//		alpn        <proto>...
//		handshake_timeout <duration>
//	}
//
// sign and enc may be repeated, in pairs, for more certificate pairs.
func (l *Listener) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the wrapper's name
	if d.NextArg() {
		return d.ArgErr()
	}
	c := &l.Config
	pair := func() *CertificatePair {
		if n := len(c.Certificates); n > 0 && (c.Certificates[n-1].SignCert == "" || c.Certificates[n-1].EncCert == "") {
			return &c.Certificates[n-1]
		}
		c.Certificates = append(c.Certificates, CertificatePair{})
		return &c.Certificates[len(c.Certificates)-1]
	}
	var password string
	for d.NextBlock(0) {
		switch d.Val() {
		case "sign", "enc":
			which := d.Val()
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.Errf("%s needs a certificate file and a key file", which)
			}
			p := pair()
			if which == "sign" {
				if p.SignCert != "" {
					return d.Err("two sign certificates in a row: give each pair's enc before the next sign")
				}
				p.SignCert, p.SignKey = args[0], args[1]
			} else {
				if p.EncCert != "" {
					return d.Err("two enc certificates in a row: give each pair's sign before the next enc")
				}
				p.EncCert, p.EncKey = args[0], args[1]
			}
		case "key_password":
			if !d.NextArg() {
				return d.ArgErr()
			}
			password = d.Val()
		case "client_auth":
			ca := &ClientAuth{}
			args := d.RemainingArgs()
			if len(args) > 0 {
				if _, ok := clientAuthModes[args[0]]; ok {
					ca.Mode, args = args[0], args[1:]
				}
			}
			ca.TrustedCACertFiles = args
			c.ClientAuth = ca
		case "cipher_suites":
			c.CipherSuites = d.RemainingArgs()
			if len(c.CipherSuites) == 0 {
				return d.ArgErr()
			}
		case "protocols":
			c.Protocols = d.RemainingArgs()
			if len(c.Protocols) == 0 {
				return d.ArgErr()
			}
		case "alpn":
			c.ALPN = d.RemainingArgs()
		case "handshake_timeout":
			if !d.NextArg() {
				return d.ArgErr()
			}
			t, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("handshake_timeout: %v", err)
			}
			c.HandshakeTimeout = caddy.Duration(t)
		default:
			return d.Errf("unknown tlcp option %q", d.Val())
		}
	}
	for i := range c.Certificates {
		if c.Certificates[i].SignCert == "" || c.Certificates[i].EncCert == "" {
			return d.Err("each certificate pair needs both sign and enc")
		}
		c.Certificates[i].KeyPassword = password
	}
	return nil
}

// UnmarshalCaddyfile reads "tlcp_after_tls", which takes no options.
func (AfterTLS) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.Err("tlcp_after_tls takes no options")
	}
	return nil
}

var (
	_ caddyfile.Unmarshaler = (*Listener)(nil)
	_ caddyfile.Unmarshaler = (*AfterTLS)(nil)
)

// bySNI chooses among pairs by the name the client sent.
func bySNI(pairs []tlcp.CertificatePair) (func(*tlcp.ClientHelloInfo) (*tlcp.CertificatePair, error), error) {
	leaves := make([]*smx509.Certificate, len(pairs))
	for i := range pairs {
		leaf := pairs[i].Sign.Leaf
		if leaf == nil {
			var err error
			if leaf, err = smx509.ParseCertificate(pairs[i].Sign.Certificate[0]); err != nil {
				return nil, fmt.Errorf("tlcp: certificate pair %d: %w", i, err)
			}
		}
		leaves[i] = leaf
	}
	return func(hello *tlcp.ClientHelloInfo) (*tlcp.CertificatePair, error) {
		if hello.ServerName != "" {
			for i, leaf := range leaves {
				if leaf.VerifyHostname(hello.ServerName) == nil {
					return &pairs[i], nil
				}
			}
		}
		return &pairs[0], nil
	}, nil
}
