// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// A client's TLS 1.3 session, written out as MarshalBinary writes a TLCP
// one, so that s_client -sess_out/-sess_in work with tickets too:
//
//	format(1) = 'T' ‖ ticket<1..2^16-1> ‖ ticket_age_add(4) ‖
//	lifetime in seconds(4) ‖ the server-session encoding of sessioncache.go
//	with the resumption PSK in place of the master secret
const clientTicketFormat = 'T'

// Version is the protocol the session was made with: VersionTLCP for a
// session resumed by its ID, VersionTLS13 for a ticket.
func (s *ClientSessionState) Version() uint16 {
	if s.vers == VersionTLS13 {
		return VersionTLS13
	}
	return VersionTLCP
}

func (s *ClientSessionState) marshalTicket() ([]byte, error) {
	t := s.ticket
	if t == nil || len(t.label) == 0 || len(t.label) > 1<<16-1 || len(t.psk) == 0 {
		return nil, errors.New("tlcp: no TLS 1.3 ticket to marshal")
	}
	inner, err := marshalSession(&serverSession{
		cipherSuite:  s.cipherSuite,
		masterSecret: t.psk,
		peer:         s.server,
		created:      s.receivedAt,
	})
	if err != nil {
		return nil, err
	}
	var b cryptobyte.Builder
	b.AddUint8(clientTicketFormat)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(t.label) })
	b.AddUint32(t.ageAdd)
	b.AddUint32(uint32(t.lifetime / time.Second))
	b.AddBytes(inner)
	return b.Bytes()
}

func parseClientTicket(data []byte) (*ClientSessionState, error) {
	s := cryptobyte.String(data)
	var format uint8
	var label cryptobyte.String
	var ageAdd, lifetime uint32
	if !s.ReadUint8(&format) || format != clientTicketFormat ||
		!s.ReadUint16LengthPrefixed(&label) || len(label) == 0 ||
		!s.ReadUint32(&ageAdd) || !s.ReadUint32(&lifetime) || lifetime > maxTicketLifetime {
		return nil, errors.New("tlcp: not a marshalled TLS 1.3 client session")
	}
	sess, err := unmarshalSession(s)
	if err != nil {
		return nil, err
	}
	return &ClientSessionState{
		cipherSuite: sess.cipherSuite,
		server:      sess.peer,
		receivedAt:  sess.created,
		vers:        VersionTLS13,
		ticket: &clientTicket{
			label:    []byte(label),
			psk:      sess.masterSecret,
			ageAdd:   ageAdd,
			lifetime: time.Duration(lifetime) * time.Second,
		},
	}, nil
}
