// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"fmt"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// The state of a Conn that only TLS 1.3 needs. The record layer itself is
// the same for both protocols (DESIGN.md); where TLS 1.3 differs it
// branches on c.vers.

// tls13ConnState is the part of a Conn that only TLS 1.3 uses.
type tls13ConnState struct {
	// helloRecordVers is the record version of a client's first flight:
	// 0x0301 for a TLS 1.3 ClientHello, zero (0x0101) for TLCP and for
	// the TLCP-shaped hello that offers both.
	helloRecordVers uint16
	// firstRecordVers is the version of the first record a server
	// received, which its alerts use until a version is chosen.
	firstRecordVers uint16
	// offered records that the client's hello offered TLS 1.3.
	offered bool

	suite *ciphersuite.TLS13Suite
	// resumptionSecret is resumption_master_secret, which the tickets
	// of this connection's NewSessionTicket messages are keyed with.
	resumptionSecret []byte
	// session is what a client stores with each ticket; cacheKey names
	// the server in the ClientSessionCache.
	session  *ClientSessionState
	cacheKey string

	// earlyDataBudget is how many bytes of rejected 0-RTT data a server
	// still skips (TLS13.md §6).
	earlyDataBudget int
	// keyUpdatesInARow counts KeyUpdates that arrived with nothing else
	// under the key they ended.
	keyUpdatesInARow int
	// keyUpdatesSentInARow is the same count for the KeyUpdates this
	// side sent, as the peer makes it; c.out guards it.
	keyUpdatesSentInARow int

	// pendingTicket is a server's NewSessionTicket, which goes before the
	// first application data it writes.
	pendingTicket []byte
}

// versionName names a protocol version in messages.
func versionName(v uint16) string {
	switch v {
	case VersionTLCP:
		return "TLCP"
	case VersionTLS13:
		return "TLS 1.3"
	case 0x0303:
		return "TLS 1.2"
	case 0x0302:
		return "TLS 1.1"
	case 0x0301:
		return "TLS 1.0"
	}
	return fmt.Sprintf("version 0x%04x", v)
}
