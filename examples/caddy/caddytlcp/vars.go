// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

func init() {
	caddy.RegisterModule(Vars{})
	httpcaddyfile.RegisterHandlerDirective("tlcp_vars", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		v := new(Vars)
		return v, v.UnmarshalCaddyfile(h.Dispenser)
	})
	// First, so that every handler after it, and the access log, sees the
	// placeholders.
	httpcaddyfile.RegisterDirectiveOrder("tlcp_vars", httpcaddyfile.Before, "map")
}

// Vars is the handler http.handlers.tlcp_vars (Caddyfile: tlcp_vars). It
// sets these placeholders for the request, empty on connections that are
// not TLCP or TLS 1.3-SM:
//
//	{tlcp.protocol}        TLCP or TLS1.3-SM
//	{tlcp.version}         0x0101 or 0x0304
//	{tlcp.cipher_suite}    e.g. ECC_SM4_GCM_SM3, TLS_SM4_GCM_SM3
//	{tlcp.resumed}         true or false
//	{tlcp.server_name}     the SNI the client sent
//	{tlcp.alpn}            the negotiated protocol
//	{tlcp.client.verified} true if the client's certificate was verified
//	{tlcp.client.sign.*}   the client's signing certificate
//	{tlcp.client.enc.*}    the client's encryption certificate (TLCP)
//
// where * is subject, common_name, issuer, serial, fingerprint (SHA-256 of
// the DER, hex), not_after (RFC 3339), dns_names (comma-separated),
// certificate_pem or certificate_der_base64.
type Vars struct{}

// CaddyModule returns the Caddy module information.
func (Vars) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.tlcp_vars",
		New: func() caddy.Module { return new(Vars) },
	}
}

// UnmarshalCaddyfile reads "tlcp_vars", which takes no options.
func (*Vars) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.Err("tlcp_vars takes no options")
	}
	return nil
}

func (Vars) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if ok {
		if c := requestConn(r); c != nil {
			repl.Map(c.placeholder)
		} else {
			repl.Map(func(key string) (any, bool) { return placeholder(nil, key) })
		}
	}
	return next.ServeHTTP(w, r)
}

// ConnectionStateFromRequest returns the full tlcp.ConnectionState of the
// connection r came on, both of the client's certificates included, and
// whether it came over TLCP or TLS 1.3-SM at all.
func ConnectionStateFromRequest(r *http.Request) (tlcp.ConnectionState, bool) {
	c := requestConn(r)
	if c == nil {
		return tlcp.ConnectionState{}, false
	}
	return c.TLCPState(), true
}

func requestConn(r *http.Request) *Conn {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || r.TLS == nil {
		return nil
	}
	c, ok := conns.Load(connKey(local.String(), r.RemoteAddr))
	if !ok {
		return nil
	}
	return c.(*Conn)
}

// placeholder is placeholder for c's state, computed once per name: the
// state does not change after the handshake, and a keep-alive connection
// serves many requests, each of which would otherwise format the client
// certificates' names again for its headers and access log.
func (c *Conn) placeholder(key string) (any, bool) {
	if !strings.HasPrefix(key, "tlcp.") {
		return nil, false // not ours: nothing to remember
	}
	if v, ok := c.vars.Load(key); ok {
		return v, true
	}
	st := c.TLCPState()
	v, ok := placeholder(&st, key)
	if ok {
		c.vars.Store(key, v) // the names are a fixed set: bounded
	}
	return v, ok
}

func placeholder(st *tlcp.ConnectionState, key string) (any, bool) {
	name, ok := strings.CutPrefix(key, "tlcp.")
	if !ok {
		return nil, false
	}
	if st == nil {
		return "", true
	}
	switch name {
	case "protocol":
		if st.Version == tlcp.VersionTLS13 {
			return "TLS1.3-SM", true
		}
		return "TLCP", true
	case "version":
		return fmt.Sprintf("0x%04x", st.Version), true
	case "cipher_suite":
		return tlcp.CipherSuiteName(st.CipherSuite), true
	case "resumed":
		return st.DidResume, true
	case "server_name":
		return st.ServerName, true
	case "alpn":
		return st.NegotiatedProtocol, true
	case "client.verified":
		return len(st.VerifiedChains) > 0, true
	}
	var cert *smx509.Certificate
	switch {
	case strings.HasPrefix(name, "client.sign."):
		cert, name = st.PeerSignCertificate, strings.TrimPrefix(name, "client.sign.")
	case strings.HasPrefix(name, "client.enc."):
		cert, name = st.PeerEncCertificate, strings.TrimPrefix(name, "client.enc.")
	default:
		return nil, false
	}
	if cert == nil {
		return "", true
	}
	switch name {
	case "subject":
		return cert.Subject.String(), true
	case "common_name":
		return cert.Subject.CommonName, true
	case "issuer":
		return cert.Issuer.String(), true
	case "serial":
		return cert.SerialNumber.String(), true
	case "fingerprint":
		sum := sha256.Sum256(cert.Raw)
		return hex.EncodeToString(sum[:]), true
	case "not_after":
		return cert.NotAfter.UTC().Format("2006-01-02T15:04:05Z07:00"), true
	case "dns_names":
		return strings.Join(cert.DNSNames, ","), true
	case "certificate_pem":
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})), true
	case "certificate_der_base64":
		return base64.StdEncoding.EncodeToString(cert.Raw), true
	}
	return nil, false
}

var (
	_ caddyhttp.MiddlewareHandler = Vars{}
	_ caddyfile.Unmarshaler       = (*Vars)(nil)
)
