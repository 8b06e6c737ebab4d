// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"io"
	"time"

	"golang.org/x/crypto/cryptobyte"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// TLS 1.3 session tickets (TLS13.md §6).
//
// A server keeps nothing per session: the ticket it sends in
// NewSessionTicket is the session state sealed with SM4-GCM under its
// session cache keys (Config.SetSessionCacheKeys, or keys of its own that
// rotate every SessionLifetime), and a client that offers it back in
// pre_shared_key is resumed with what the ticket says once the binder
// proves the client knows the PSK. Tickets are resumed only with a fresh curveSM2 exchange
// (psk_dhe_ke), never allow early data, and live no longer than
// Config.SessionLifetime (one hour by default; RFC 8446 caps them at 7 days).

// maxTicketLifetime is RFC 8446's limit on a ticket's lifetime, in seconds.
const maxTicketLifetime = 7 * 24 * 60 * 60

// maxTicketLen bounds the tickets a server issues; the state of a session
// with a long client chain may not fit, and then no ticket is sent.
const maxTicketLen = 1<<16 - 1

// clientTicket is what a client keeps of a NewSessionTicket.
type clientTicket struct {
	label    []byte // the opaque ticket, offered as the PSK identity
	psk      []byte
	ageAdd   uint32
	lifetime time.Duration // the server's lifetime, capped by ours
}

// serverTicketState is the session state a ticket seals.
type serverTicketState struct {
	suite      uint16
	created    time.Time
	ageAdd     uint32
	psk        []byte
	serverName string
	verified   bool     // the client's chain was verified when issued
	certs      [][]byte // the client's certificates as sent, leaf first
}

func (s *serverTicketState) marshal() ([]byte, error) {
	var b cryptobyte.Builder
	b.AddUint16(VersionTLS13)
	b.AddUint16(s.suite)
	b.AddUint64(uint64(s.created.Unix()))
	b.AddUint32(s.ageAdd)
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(s.psk) })
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(s.serverName)) })
	if s.verified {
		b.AddUint8(1)
	} else {
		b.AddUint8(0)
	}
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, c := range s.certs {
			b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(c) })
		}
	})
	return b.Bytes()
}

func (s *serverTicketState) unmarshal(data []byte) bool {
	in := cryptobyte.String(data)
	var vers uint16
	var created uint64
	var verified uint8
	var name []byte
	var certs cryptobyte.String
	if !in.ReadUint16(&vers) || vers != VersionTLS13 || !in.ReadUint16(&s.suite) ||
		!in.ReadUint64(&created) || !in.ReadUint32(&s.ageAdd) ||
		!readUint8LengthPrefixed(&in, &s.psk) || len(s.psk) != ciphersuite.TLS13SecretLen ||
		!readUint8LengthPrefixed(&in, &name) || !in.ReadUint8(&verified) || verified > 1 ||
		!in.ReadUint24LengthPrefixed(&certs) || !in.Empty() || created > 1<<62 {
		return false
	}
	s.created = time.Unix(int64(created), 0)
	s.serverName = string(name)
	s.verified = verified == 1
	for !certs.Empty() {
		var c cryptobyte.String
		if !certs.ReadUint24LengthPrefixed(&c) || c.Empty() {
			return false
		}
		s.certs = append(s.certs, c)
	}
	return true
}

// ticketAAD is the additional data of a sealed ticket. The session cache
// keys (SetSessionCacheKeys) seal tickets as they seal the values of a
// ServerSessionCache, which have the session ID as additional data; this
// label keeps either from opening as the other.
var ticketAAD = []byte("tlcp TLS 1.3 session ticket")

// sealTicket seals a session state with the first session cache key of
// owner (the Config whose keys serve this handshake, see sessionKeysOwner):
// the format of sealSession, whose nonce is random.
func sealTicket(owner *Config, state []byte) ([]byte, error) {
	keys, err := owner.currentSessionKeys()
	if err != nil {
		return nil, err
	}
	return sealSession(keys[0], ticketAAD, state)
}

// openTicket returns the state a ticket seals, or nil if no session cache
// key of owner sealed it or it was altered.
func openTicket(owner *Config, ticket []byte) []byte {
	keys, err := owner.currentSessionKeys()
	if err != nil {
		return nil
	}
	state, ok := openSession(keys, ticketAAD, ticket)
	if !ok {
		return nil
	}
	return state
}

// ticketsEnabled reports whether a server sends tickets to this client:
// not disabled, and the client offered psk_dhe_ke (RFC 8446 §4.2.9).
func (c *Config) ticketsEnabled(ch *clientHelloMsg) bool {
	if c.SessionTicketsDisabled || c.SessionCacheSize < 0 {
		return false
	}
	for _, m := range ch.tls13.pskModes {
		if m == pskModeDHE {
			return true
		}
	}
	return false
}

// newTicket makes a NewSessionTicket for the connection's session.
func (hs *serverHandshakeStateTLS13) newTicket(resumptionSecret []byte) (*newSessionTicketMsg, error) {
	c := hs.c
	cfg := c.config
	m := &newSessionTicketMsg{nonce: []byte{0}} // one ticket per connection
	var b [4]byte
	if _, err := io.ReadFull(cfg.rand(), b[:]); err != nil {
		return nil, err
	}
	m.ageAdd = uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	m.lifetime = uint32(min(cfg.lifetime()/time.Second, maxTicketLifetime))
	state := &serverTicketState{
		suite:      hs.suite.ID,
		created:    cfg.time(),
		ageAdd:     m.ageAdd,
		psk:        ciphersuite.TLS13ResumptionPSK(resumptionSecret, m.nonce),
		serverName: hs.clientHello.serverName,
		verified:   len(c.verifiedChains) > 0,
	}
	for _, cert := range c.peerCertificates {
		state.certs = append(state.certs, cert.Raw)
	}
	plain, err := state.marshal()
	if err != nil {
		return nil, err
	}
	if m.ticket, err = sealTicket(cfg.sessionKeysOwner(hs.orig), plain); err != nil {
		return nil, err
	}
	if len(m.ticket) > maxTicketLen {
		return nil, nil
	}
	return m, nil
}

// clientCertsFromTicket restores the client's certificates of a resumed
// session: parsed, and verified again against ClientCAs if they were
// verified when the ticket was issued, so that a CA removed since cannot
// be resumed past. It reports false if the session may not be resumed.
func (hs *serverHandshakeStateTLS13) clientCertsFromTicket(s *serverTicketState) bool {
	c, cfg := hs.c, hs.c.config
	needCert := cfg.ClientAuth == RequireAnyClientCert || cfg.ClientAuth == RequireAndVerifyClientCert
	if len(s.certs) == 0 {
		return !needCert
	}
	if cfg.ClientAuth >= VerifyClientCertIfGiven && !s.verified {
		return false
	}
	certs := make([]*smx509.Certificate, len(s.certs))
	for i, der := range s.certs {
		cert, err := parsePeerCertificate(der)
		if err != nil {
			return false
		}
		certs[i] = cert
	}
	if certsExpired(cfg.time(), certs[0]) {
		return false
	}
	var chains [][]*smx509.Certificate
	if s.verified && cfg.ClientAuth >= VerifyClientCertIfGiven {
		pool := smx509.NewCertPool()
		for _, ic := range certs[1:] {
			pool.AddCert(ic)
		}
		var err error
		chains, err = certs[0].Verify(smx509.VerifyOptions{
			Roots:         cfg.ClientCAs,
			Intermediates: pool,
			CurrentTime:   cfg.time(),
			KeyUsages:     []smx509.ExtKeyUsage{smx509.ExtKeyUsageClientAuth},
		})
		if err != nil {
			return false
		}
	}
	c.peerCertificates = certs
	c.peerSignCert = certs[0]
	c.verifiedChains = chains
	return true
}
