// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto/tls"
	"strconv"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// Protocol says which protocol a connection negotiated. On the one-port
// listener (NewAutoListener) a connection may speak TLCP or TLS 1.3 with the
// SM suites through this package, or ordinary TLS through crypto/tls, and
// TLS 1.3-SM and ordinary TLS 1.3 share the version number 0x0304.
type Protocol uint8

const (
	// ProtocolTLCP is GB/T 38636-2020 TLCP (version 0x0101).
	ProtocolTLCP Protocol = 1 + iota
	// ProtocolTLS13SM is TLS 1.3 with the SM suites of RFC 8998, spoken
	// by this package.
	ProtocolTLS13SM
	// ProtocolTLS is ordinary TLS (1.2 or 1.3) spoken by crypto/tls, to
	// which the one-port listener handed the connection.
	ProtocolTLS
)

// String returns "TLCP", "TLS 1.3-SM" or "TLS", or "" for the zero value
// (before the handshake).
func (p Protocol) String() string {
	switch p {
	case ProtocolTLCP:
		return "TLCP"
	case ProtocolTLS13SM:
		return "TLS 1.3-SM"
	case ProtocolTLS:
		return "TLS"
	case 0:
		return ""
	}
	return "Protocol(" + strconv.Itoa(int(p)) + ")"
}

// protocol is the Protocol of c once its version is known.
func (c *Conn) protocol() Protocol {
	switch c.vers {
	case VersionTLCP:
		return ProtocolTLCP
	case VersionTLS13:
		return ProtocolTLS13SM
	}
	return 0
}

// CipherSuiteName returns the standard name of a suite that can be
// negotiated on any path of this package, the one-port listener's
// hand-off to crypto/tls included: a TLCP suite ("ECC_SM4_GCM_SM3"), a TLS
// 1.3 SM suite ("TLS_SM4_GCM_SM3"), or a crypto/tls suite
// ("TLS_AES_128_GCM_SHA256"); else the value in hexadecimal, as
// crypto/tls.CipherSuiteName does. A TLCP and a TLS suite never share a
// value.
func CipherSuiteName(id uint16) string {
	if name := ciphersuite.Name(id); name[0] != '0' {
		return name
	}
	return tls.CipherSuiteName(id)
}

// VersionName returns the name of a protocol version: "TLCP" for
// VersionTLCP, and crypto/tls's names for the others ("TLS 1.3" for
// 0x0304, which TLS 1.3-SM and ordinary TLS 1.3 share: see
// ConnectionState.Protocol to tell them apart).
func VersionName(version uint16) string {
	if version == VersionTLCP {
		return "TLCP"
	}
	return tls.VersionName(version)
}
