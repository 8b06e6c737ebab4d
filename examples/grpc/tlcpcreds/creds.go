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
// ALPN (RFC 7540 §3.3).
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
	"slices"

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
}

// NewClient returns client credentials that run the handshake with
// config, to which "h2" is added in NextProtos. The server name checked on
// the server's signing certificate is config.ServerName if set, or else
// the host of the channel's authority (the dialled target unless
// grpc.WithAuthority says otherwise), as with grpc's TLS credentials.
// config.ClientSessionCache, if set, resumes sessions across
// reconnections.
func NewClient(config *tlcp.Config) credentials.TransportCredentials {
	return &creds{config: withH2(config), isClient: true}
}

// NewServer returns server credentials that run the handshake with config
// (which must hold a certificate pair, or set GetCertificate or
// GetConfigForClient), to which "h2" is added in NextProtos.
//
// The handshake is bounded by the deadline grpc.Server sets on every new
// connection (grpc.ConnectionTimeout, 120 s by default).
func NewServer(config *tlcp.Config) credentials.TransportCredentials {
	return &creds{config: withH2(config)}
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
	conn := tlcp.Client(rawConn, cfg)
	if err := conn.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, nil, err
	}
	info, err := authInfo(conn, cfg)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, info, nil
}

func (c *creds) ServerHandshake(rawConn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn := tlcp.Server(rawConn, c.config)
	// grpc.Server bounds the handshake with a deadline on rawConn.
	if err := conn.Handshake(); err != nil {
		conn.Close()
		return nil, nil, err
	}
	info, err := authInfo(conn, c.config)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, info, nil
}

// authInfo describes an established connection, refusing one that did not
// negotiate "h2". A client that sends no extensions at all
// (Config.ClientHelloNoExtensions, for GmSSL 3.1.1 servers) cannot offer
// ALPN, and is let through without it.
func authInfo(conn *tlcp.Conn, cfg *tlcp.Config) (AuthInfo, error) {
	st := conn.ConnectionState()
	if st.NegotiatedProtocol != alpnH2 && !cfg.ClientHelloNoExtensions {
		if st.NegotiatedProtocol == "" {
			return AuthInfo{}, errors.New("tlcpcreds: the peer negotiated no ALPN protocol; gRPC needs \"h2\"")
		}
		return AuthInfo{}, fmt.Errorf("tlcpcreds: the peer negotiated ALPN protocol %q; gRPC needs \"h2\"", st.NegotiatedProtocol)
	}
	return AuthInfo{
		CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity},
		State:          st,
	}, nil
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
	return &creds{config: c.config.Clone(), isClient: c.isClient}
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
