// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto/cipher"
	"crypto/rand"
	"io"
	"sync"
	"time"

	"golang.org/x/crypto/cryptobyte"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/smx509"
)

// TLS 1.3 session tickets (TLS13.md §6).
//
// A server keeps nothing per session: the ticket it sends in
// NewSessionTicket is the session state sealed with SM4-GCM under a key
// only it holds, and a client that offers it back in pre_shared_key is
// resumed with what the ticket says once the binder proves the client
// knows the PSK. Tickets are resumed only with a fresh curveSM2 exchange
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

// ticketKey is one key that seals tickets; name tells which key sealed a
// ticket.
type ticketKey struct {
	name [16]byte
	aead cipher.AEAD
}

// ticketKeyring holds a server's ticket keys, the first of which seals.
// Config.Clone shares it, as it shares the TLCP session cache.
type ticketKeyring struct {
	mu   sync.Mutex
	keys []ticketKey
}

func newTicketKey(secret [32]byte) ticketKey {
	var k ticketKey
	copy(k.name[:], ciphersuite.TLS13ExpandLabel(secret[:], "shangmi ticket name", nil, 16))
	b, _ := sm4.NewCipher(ciphersuite.TLS13ExpandLabel(secret[:], "shangmi ticket key", nil, 16))
	k.aead, _ = cipher.NewGCM(b)
	return k
}

// SetSessionTicketKeys sets the keys that seal and open TLS 1.3 session
// tickets: the first seals new tickets, all of them open, so that keys can
// be rotated and servers sharing keys resume each other's sessions.
// Without a call, each Config (and its clones) uses a random key of its
// own, made on first use. Keys are 32 secret random bytes; whoever holds
// one can open the tickets it sealed and resume their sessions. Calling it
// with no keys restores the random key.
func (c *Config) SetSessionTicketKeys(keys [][32]byte) {
	ring := make([]ticketKey, len(keys))
	for i, k := range keys {
		ring[i] = newTicketKey(k)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ticketKeys == nil {
		c.ticketKeys = new(ticketKeyring)
	}
	c.ticketKeys.mu.Lock()
	c.ticketKeys.keys = ring
	c.ticketKeys.mu.Unlock()
}

// ticketKeyList returns the keys, making the random one if none is set.
func (c *Config) ticketKeyList() ([]ticketKey, error) {
	c.mu.Lock()
	if c.ticketKeys == nil {
		c.ticketKeys = new(ticketKeyring)
	}
	ring := c.ticketKeys
	c.mu.Unlock()
	ring.mu.Lock()
	defer ring.mu.Unlock()
	if len(ring.keys) == 0 {
		var k [32]byte
		if _, err := io.ReadFull(rand.Reader, k[:]); err != nil {
			return nil, err
		}
		ring.keys = []ticketKey{newTicketKey(k)}
	}
	return ring.keys, nil
}

// sealTicket seals a session state: key name ‖ nonce ‖ SM4-GCM(state),
// the key name authenticated too.
func (c *Config) sealTicket(state []byte) ([]byte, error) {
	keys, err := c.ticketKeyList()
	if err != nil {
		return nil, err
	}
	k := keys[0]
	out := make([]byte, 16+12, 16+12+len(state)+16)
	copy(out, k.name[:])
	if _, err := io.ReadFull(c.rand(), out[16:28]); err != nil {
		return nil, err
	}
	return k.aead.Seal(out, out[16:28], state, out[:16]), nil
}

// openTicket returns the state a ticket seals, or nil if no key of ours
// sealed it or it was altered.
func (c *Config) openTicket(ticket []byte) []byte {
	if len(ticket) < 16+12+16 {
		return nil
	}
	keys, err := c.ticketKeyList()
	if err != nil {
		return nil
	}
	for _, k := range keys {
		if [16]byte(ticket[:16]) != k.name {
			continue
		}
		state, err := k.aead.Open(nil, ticket[16:28], ticket[28:], ticket[:16])
		if err != nil {
			return nil
		}
		return state
	}
	return nil
}

// ticketsEnabled reports whether a server sends tickets to this client:
// not disabled, and the client offered psk_dhe_ke (RFC 8446 §4.2.9).
func (c *Config) ticketsEnabled(ch *clientHelloMsg) bool {
	if c.SessionTicketsDisabled {
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
	if m.ticket, err = cfg.sealTicket(plain); err != nil {
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
