// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"

	"golang.org/x/crypto/cryptobyte"
)

// A client's session, written out so that a later process can resume it
// (what openssl s_client -sess_out/-sess_in do):
//
//	format(1) = 'C' ‖ session ID<1..32> ‖ the server-session encoding of
//	sessioncache.go (suite, time received, master secret, the server's
//	certificates and verified chains)
const clientSessionFormat = 'C'

// MarshalBinary encodes s, master secret included, so that
// [ParseClientSessionState] can rebuild it in another process: a client
// that puts the result into its [ClientSessionCache] under the server's
// name offers the session again. Whoever reads the bytes can decrypt every
// connection made with the session, so keep them as secret as a private
// key. A TLS 1.3 session (a ticket) is written in a form of its own
// (session_state_tls13.go), which ParseClientSessionState reads too.
func (s *ClientSessionState) MarshalBinary() ([]byte, error) {
	if s != nil && s.vers == VersionTLS13 {
		return s.marshalTicket() // session_state_tls13.go
	}
	if s == nil || len(s.sessionID) == 0 || len(s.sessionID) > 32 {
		return nil, errors.New("tlcp: no session to marshal")
	}
	inner, err := marshalSession(&serverSession{
		cipherSuite:  s.cipherSuite,
		masterSecret: s.masterSecret,
		peer:         s.server,
		created:      s.receivedAt,
	})
	if err != nil {
		return nil, err
	}
	var b cryptobyte.Builder
	b.AddUint8(clientSessionFormat)
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(s.sessionID) })
	b.AddBytes(inner)
	return b.Bytes()
}

// ParseClientSessionState decodes what [ClientSessionState.MarshalBinary]
// wrote. The server's certificates come back as verified if they were when
// the session was made, without being verified again: the data must come
// from a place the application trusts, as it holds the master secret. A
// client still checks, when it offers the session, that it has not
// outlived its lifetime or its certificates, and that it was verified
// unless InsecureSkipVerify is set.
func ParseClientSessionState(data []byte) (*ClientSessionState, error) {
	if len(data) > 0 && data[0] == clientTicketFormat {
		return parseClientTicket(data) // session_state_tls13.go
	}
	s := cryptobyte.String(data)
	var format uint8
	var id cryptobyte.String
	if !s.ReadUint8(&format) || format != clientSessionFormat ||
		!s.ReadUint8LengthPrefixed(&id) || len(id) == 0 || len(id) > 32 {
		return nil, errors.New("tlcp: not a marshalled client session")
	}
	sess, err := unmarshalSession(s)
	if err != nil {
		return nil, err
	}
	return &ClientSessionState{
		sessionID:    []byte(id),
		cipherSuite:  sess.cipherSuite,
		masterSecret: sess.masterSecret,
		server:       sess.peer,
		receivedAt:   sess.created,
	}, nil
}
