// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcpcreds

import (
	"errors"
	"net"

	"google.golang.org/grpc/credentials"

	"github.com/shangmi-go/shangmi/tlcp"
)

// AuthInfo is what a TLCP or TLS 1.3-SM handshake established, as a
// handler reads it:
//
//	p, _ := peer.FromContext(ctx)
//	info, ok := p.AuthInfo.(tlcpcreds.AuthInfo)
//	// info.State.PeerSignCertificate, info.State.PeerEncCertificate
//
// The embedded CommonAuthInfo reports PrivacyAndIntegrity.
type AuthInfo struct {
	credentials.CommonAuthInfo
	// State is the connection's full state: the protocol version, the
	// suite, whether the session was resumed, and the peer's signing and
	// encryption certificates with their verified chains.
	State tlcp.ConnectionState
}

// AuthType returns "tlcp" or "tls13-sm", after the negotiated version.
func (a AuthInfo) AuthType() string {
	if a.State.Version == tlcp.VersionTLS13 {
		return ProtocolTLS13SM
	}
	return ProtocolTLCP
}

// ValidateAuthority checks a per-call authority override
// (grpc.CallAuthority) against the server's signing certificate, as
// grpc's TLS credentials check it against the leaf.
func (a AuthInfo) ValidateAuthority(authority string) error {
	host, _, err := net.SplitHostPort(authority)
	if err != nil {
		host = authority
	}
	if a.State.PeerSignCertificate == nil {
		return errors.New("tlcpcreds: no peer certificate to verify the authority against")
	}
	return a.State.PeerSignCertificate.VerifyHostname(host)
}

// GetSecurityValue describes the connection to channelz: the suite's name
// and the peer's signing certificate.
func (a AuthInfo) GetSecurityValue() credentials.ChannelzSecurityValue {
	v := &credentials.TLSChannelzSecurityValue{StandardName: tlcp.CipherSuiteName(a.State.CipherSuite)}
	if c := a.State.PeerSignCertificate; c != nil {
		v.RemoteCertificate = c.Raw
	}
	return v
}

var (
	_ credentials.AuthorityValidator   = AuthInfo{}
	_ credentials.ChannelzSecurityInfo = AuthInfo{}
)
