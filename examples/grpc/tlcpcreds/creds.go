// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package tlcpcreds provides gRPC transport credentials for TLCP (GB/T
// 38636-2020) and TLS 1.3 with the ShangMi suites of RFC 8998, both
// through the tlcp package.
//
// [NewClient] and [NewServer] take a *tlcp.Config, whose MinVersion,
// MaxVersion and CipherSuites choose the protocols as they do for any
// tlcp connection: a server answers TLCP and TLS 1.3-SM by default, a
// client speaks TLCP unless its Config names a TLS 1.3 suite or allows
// TLS 1.3 only. [NewAutoServer] adds ordinary TLS through crypto/tls on
// the same port, so that one gRPC server serves ShangMi clients and
// everyone else.
//
// As grpc-go's own TLS credentials do, both sides offer ALPN "h2" and
// refuse a peer that negotiated no protocol: HTTP/2 over TLS requires
// ALPN (RFC 7540 §3.3). [AllowMissingALPN], or grpc-go's own switch
// GRPC_ENFORCE_ALPN_ENABLED=false in the environment, lets through a peer
// that sent no ALPN at all: tjfoc's gmtls, and so its gmcredentials, never
// sends ALPN in a TLCP ClientHello.
//
// The peer's identity reaches handlers through peer.FromContext: its
// AuthInfo is an [AuthInfo] holding the connection's full
// tlcp.ConnectionState, the client's signing and encryption certificates
// included, or, for the ordinary TLS connections of NewAutoServer,
// grpc's credentials.TLSInfo.
package tlcpcreds

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"

	"google.golang.org/grpc/credentials"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

// alpnH2 is the protocol gRPC runs on, which both sides must negotiate.
const alpnH2 = "h2"

// Protocol names, as AuthInfo.AuthType and Info().SecurityProtocol give
// them.
const (
	ProtocolTLCP    = "tlcp"
	ProtocolTLS13SM = "tls13-sm"
)

// creds implements credentials.TransportCredentials over the tlcp package.
type creds struct {
	config   *tlcp.Config
	isClient bool
	// allowNoALPN lets a handshake without ALPN through.
	allowNoALPN bool
}

// An Option adjusts credentials.
type Option func(*creds)

// AllowMissingALPN accepts a peer that negotiated no ALPN protocol, as
// grpc-go's TLS credentials do with GRPC_ENFORCE_ALPN_ENABLED=false. A
// server needs it for gRPC clients built on tjfoc's gmtls
// (gmcredentials), whose TLCP ClientHello carries no extension. A peer
// that negotiated a protocol other than "h2" is still refused.
func AllowMissingALPN() Option { return func(c *creds) { c.allowNoALPN = true } }

func newCreds(config *tlcp.Config, isClient bool, opts []Option) creds {
	c := creds{config: withH2(config), isClient: isClient}
	// grpc-go's own switch, read as its envconfig reads it.
	if v, err := strconv.ParseBool(os.Getenv("GRPC_ENFORCE_ALPN_ENABLED")); err == nil && !v {
		c.allowNoALPN = true
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// NewClient returns client credentials that run the handshake with
// config, to which "h2" is added in NextProtos. The server name checked on
// the server's signing certificate is config.ServerName if set, or else
// the host of the channel's authority (the dialled target unless
// grpc.WithAuthority says otherwise), as with grpc's TLS credentials.
// config.ClientSessionCache, if set, resumes sessions across
// reconnections.
func NewClient(config *tlcp.Config, opts ...Option) credentials.TransportCredentials {
	c := newCreds(config, true, opts)
	return &c
}

// NewServer returns server credentials that run the handshake with config
// (which must hold a certificate pair, or set GetCertificate or
// GetConfigForClient), to which "h2" is added in NextProtos.
//
// The handshake is bounded by the deadline grpc.Server sets on every new
// connection (grpc.ConnectionTimeout, 120 s by default).
func NewServer(config *tlcp.Config, opts ...Option) credentials.TransportCredentials {
	c := newCreds(config, false, opts)
	return &c
}

// withH2 returns a copy of config that offers "h2" among its protocols.
func withH2(config *tlcp.Config) *tlcp.Config {
	if config == nil {
		config = &tlcp.Config{}
	}
	c := config.Clone()
	if !slices.Contains(c.NextProtos, alpnH2) {
		c.NextProtos = append(slices.Clone(c.NextProtos), alpnH2)
	}
	return c
}

func (c *creds) ClientHandshake(ctx context.Context, authority string, rawConn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	cfg := c.config
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(authority)
		if err != nil {
			host = authority // no port
		}
		// A copy per handshake: the channel may dial several addresses.
		cfg = cfg.Clone()
		cfg.ServerName = host
	}
	return c.handshake(ctx, tlcp.Client(rawConn, cfg))
}

func (c *creds) ServerHandshake(rawConn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c.serverHandshake(tlcp.Server(rawConn, c.config))
}

// serverHandshake runs a server connection's handshake, which grpc.Server
// bounds with a deadline on the connection rather than with a context.
func (c *creds) serverHandshake(conn *tlcp.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c.handshake(context.Background(), conn)
}

// handshake completes conn's handshake and describes it, closing conn if
// either fails.
func (c *creds) handshake(ctx context.Context, conn *tlcp.Conn) (net.Conn, credentials.AuthInfo, error) {
	if err := conn.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, nil, err
	}
	info, err := c.authInfo(conn)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, info, nil
}

// authInfo describes an established connection, refusing one that did not
// negotiate "h2" (see AllowMissingALPN). A client that sends no extensions
// at all (Config.ClientHelloNoExtensions, for GmSSL 3.1.1 servers) cannot
// offer ALPN, and is let through without it.
func (c *creds) authInfo(conn *tlcp.Conn) (AuthInfo, error) {
	st := conn.ConnectionState()
	if err := c.checkALPN(st.NegotiatedProtocol); err != nil {
		return AuthInfo{}, err
	}
	return AuthInfo{
		CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity},
		State:          st,
	}, nil
}

func (c *creds) checkALPN(proto string) error {
	switch {
	case proto == alpnH2:
		return nil
	case proto != "":
		return fmt.Errorf("tlcpcreds: the peer negotiated ALPN protocol %q; gRPC needs \"h2\"", proto)
	case c.allowNoALPN || (c.isClient && c.config.ClientHelloNoExtensions):
		return nil
	}
	return errors.New("tlcpcreds: the peer negotiated no ALPN protocol; gRPC needs \"h2\" (see tlcpcreds.AllowMissingALPN)")
}

// Info names the protocols these credentials may speak: "tlcp",
// "tls13-sm", or both separated by a comma. SecurityVersion is the
// highest version, "1.1" (TLCP, 0x0101) or "1.3".
func (c *creds) Info() credentials.ProtocolInfo {
	return protocolInfo(c.config, c.isClient)
}

func protocolInfo(cfg *tlcp.Config, isClient bool) credentials.ProtocolInfo {
	doTLCP, doTLS13 := protocols(cfg, isClient)
	info := credentials.ProtocolInfo{ServerName: cfg.ServerName}
	switch {
	case doTLCP && doTLS13:
		info.SecurityProtocol, info.SecurityVersion = ProtocolTLCP+","+ProtocolTLS13SM, "1.3"
	case doTLS13:
		info.SecurityProtocol, info.SecurityVersion = ProtocolTLS13SM, "1.3"
	default:
		info.SecurityProtocol, info.SecurityVersion = ProtocolTLCP, "1.1"
	}
	return info
}

// protocols reports which protocols cfg lets a side speak, by the rules
// tlcp.Config's MinVersion, MaxVersion and CipherSuites document.
func protocols(cfg *tlcp.Config, isClient bool) (doTLCP, doTLS13 bool) {
	hasTLCPSuite, hasTLS13Suite := cfg.CipherSuites == nil, cfg.CipherSuites == nil
	for _, id := range cfg.CipherSuites {
		if ciphersuite.LookupTLS13(id) != nil {
			hasTLS13Suite = true
		} else if ciphersuite.Lookup(id) != nil {
			hasTLCPSuite = true
		}
	}
	lo, hi := cfg.MinVersion, cfg.MaxVersion
	if lo == 0 {
		lo = tlcp.VersionTLCP
	}
	if hi == 0 {
		hi = tlcp.VersionTLS13
		if isClient && lo <= tlcp.VersionTLCP && !(cfg.CipherSuites != nil && hasTLS13Suite) {
			hi = tlcp.VersionTLCP
		}
	}
	doTLCP = lo <= tlcp.VersionTLCP && tlcp.VersionTLCP <= hi && hasTLCPSuite
	doTLS13 = lo <= tlcp.VersionTLS13 && tlcp.VersionTLS13 <= hi && hasTLS13Suite
	return doTLCP, doTLS13
}

func (c *creds) Clone() credentials.TransportCredentials {
	return &creds{config: c.config.Clone(), isClient: c.isClient, allowNoALPN: c.allowNoALPN}
}

// OverrideServerName sets the name checked on the server's certificate and
// reported as Info().ServerName. Deprecated in grpc, which no longer calls
// it: use grpc.WithAuthority or set tlcp.Config.ServerName.
func (c *creds) OverrideServerName(name string) error {
	cfg := c.config.Clone()
	cfg.ServerName = name
	c.config = cfg
	return nil
}
