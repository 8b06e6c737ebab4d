// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dgram

import (
	"net"
	"time"
)

// Options are a DTLCP connection's datagram settings, set by package
// tlcp/dtlcp; zero values take the defaults below.
type Options struct {
	// MTU is the most a datagram this side sends may carry (records and
	// their headers); handshake messages are fragmented to fit it.
	MTU int
	// RetransmitTimeout is the first retransmission timer of a flight,
	// doubled at each expiry up to MaxRetransmitTimeout (RFC 6347
	// §4.2.4.1); HandshakeTimeout bounds the whole handshake.
	RetransmitTimeout    time.Duration
	MaxRetransmitTimeout time.Duration
	HandshakeTimeout     time.Duration
	// Cookies, on a server, makes and checks HelloVerifyRequest cookies:
	// a Listener's, shared by its connections, which check again the
	// ClientHello the Listener checked. A server without one makes its
	// own.
	Cookies *CookieJar
}

// Defaults (RFC 6347 §4.2.4.1: 1 s initial, doubling, at most 60 s).
const (
	DefaultRetransmitTimeout    = time.Second
	DefaultMaxRetransmitTimeout = 60 * time.Second
	DefaultHandshakeTimeout     = 60 * time.Second
)

// NewConn makes a DTLCP connection over conn, whose Read and Write each
// carry one datagram, with config (a *tlcp.Config). It returns the
// *tlcp.Conn. Package tlcp sets it when it is initialised, so that the
// handshake stays tlcp's without tlcp exporting a datagram API of its own;
// package tlcp/dtlcp is its only caller.
var NewConn func(conn net.Conn, config any, isClient bool, opts Options) any
