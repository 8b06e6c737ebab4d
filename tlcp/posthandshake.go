// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// Handshake messages after the handshake. TLCP has no secure
// renegotiation (INTEROP.md §6.2): a request is declined. TLS 1.3 has
// KeyUpdate from either side and NewSessionTicket from the server, whose
// one ticket a server sends before its first application data.

// maxRenegotiations is how many requests to renegotiate a connection
// declines before it gives up on the peer. TLCP has no secure
// renegotiation (INTEROP.md §6.2), so no request can ever succeed; a peer
// that keeps asking is either broken or flooding.
const maxRenegotiations = 3

// handlePostHandshakeMessage processes a handshake message after the
// handshake. A HelloRequest (to a client) or a ClientHello (to a server)
// is declined with a no_renegotiation warning, up to maxRenegotiations
// times in the connection's life; anything else, or one more request, is
// fatal.
func (c *Conn) handlePostHandshakeMessage() error {
	if c.vers == VersionTLS13 {
		return c.handlePostHandshakeMessageTLS13()
	}
	msg, err := c.readHandshake(nil)
	if err != nil {
		return c.in.setErrorLocked(c.fail(err))
	}
	_, isHelloRequest := msg.(*helloRequestMsg)
	_, isClientHello := msg.(*clientHelloMsg)
	if !(c.isClient && isHelloRequest || !c.isClient && isClientHello) {
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: unexpected %s after the handshake", nameOf(msg))))
	}
	c.renegotiations++
	if c.renegotiations > maxRenegotiations {
		peer := "client"
		if c.isClient {
			peer = "server"
		}
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage,
			"tlcp: the %s asked to renegotiate %d times (%s after the handshake); TLCP cannot renegotiate, so the connection is closed",
			peer, c.renegotiations, nameOf(msg))))
	}
	return c.sendAlert(alertNoRenegotiation)
}

// maxKeyUpdatesInARow bounds KeyUpdates with nothing between them.
const maxKeyUpdatesInARow = 32

// keyUpdateInterval is how many records a side sends under one traffic
// secret before it updates its keys (RFC 8446 §5.5; about 2^24.5 records
// are safe for a 128-bit block cipher in GCM). A variable for tests.
var keyUpdateInterval uint64 = 1 << 24

// handlePostHandshakeMessageTLS13 processes a message after a TLS 1.3
// handshake: KeyUpdate from either side, NewSessionTicket from a server.
// Anything else, a ClientHello included (TLS 1.3 has no renegotiation), is
// unexpected_message. c.in is held.
func (c *Conn) handlePostHandshakeMessageTLS13() error {
	msg, err := c.readHandshake(nil)
	if err != nil {
		return c.in.setErrorLocked(c.fail(err))
	}
	switch m := msg.(type) {
	case *keyUpdateMsg:
		return c.handleKeyUpdate(m)
	case *newSessionTicketMsg:
		if c.isClient {
			return c.handleNewSessionTicket(m)
		}
	}
	return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: unexpected %s after the TLS 1.3 handshake", nameOf(msg))))
}

// handleKeyUpdate moves the read side to the next traffic secret and, if
// the peer asks, answers with a KeyUpdate of our own (RFC 8446 §4.6.3).
func (c *Conn) handleKeyUpdate(m *keyUpdateMsg) error {
	// A KeyUpdate must end its record (RFC 8446 §5.1). readHandshake
	// stops reading records once a message is whole, so what is left in
	// c.hand came in the KeyUpdate's own record.
	if c.hand.Len() > 0 {
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: KeyUpdate not at the end of its record")))
	}
	switch m.request {
	case keyUpdateNotRequested, keyUpdateRequested:
	default:
		// RFC 8446 §4.6.3: a well-formed KeyUpdate with a value that
		// does not exist.
		return c.in.setErrorLocked(c.fail(errorf(alertIllegalParameter, "tlcp: KeyUpdate with request_update %d, which is neither 0 nor 1", m.request)))
	}
	// The KeyUpdate itself was record number Sequence()-1 under the old
	// key; if it was the first, the key carried nothing else.
	if c.in.rp.Sequence() <= 1 {
		c.tls13.keyUpdatesInARow++
	} else {
		c.tls13.keyUpdatesInARow = 1
	}
	if c.tls13.keyUpdatesInARow > maxKeyUpdatesInARow {
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: the peer sent more than %d KeyUpdates with nothing between them", maxKeyUpdatesInARow)))
	}
	next := ciphersuite.TLS13NextTrafficSecret(c.in.secret13)
	if err := c.in.setTrafficSecret(c.in.suite13, next); err != nil {
		return c.in.setErrorLocked(c.fail(err))
	}
	if m.request != keyUpdateRequested {
		return nil
	}
	c.out.Lock()
	defer c.out.Unlock()
	if c.closeNotifySent {
		return nil // nothing more will be written, so no new key is needed
	}
	if c.keyUpdateRunFullLocked() {
		// Our sending key has protected nothing since our last
		// maxKeyUpdatesInARow updates, answers and SendKeyUpdate's
		// alike: it already is what the peer asks for, and one more
		// update would make the peer (this package, BoringSSL) end the
		// connection for a flood.
		return nil
	}
	return c.updateWriteKeyLocked(false)
}

// updateWriteKeyLocked sends a KeyUpdate and moves the write side to the
// next traffic secret. c.out is held.
func (c *Conn) updateWriteKeyLocked(requestPeer bool) error {
	m := &keyUpdateMsg{request: keyUpdateNotRequested}
	if requestPeer {
		m.request = keyUpdateRequested
	}
	data, _ := m.marshal()
	// The peer counts the KeyUpdates that come first under their key
	// (handleKeyUpdate); SendKeyUpdate keeps within its limit.
	if c.out.rp.Sequence() == 0 {
		c.tls13.keyUpdatesSentInARow++
	} else {
		c.tls13.keyUpdatesSentInARow = 1
	}
	if _, err := c.writeRecordLocked(recordTypeHandshake, data); err != nil {
		return err
	}
	c.traceMessage(true, recordTypeHandshake, data)
	next := ciphersuite.TLS13NextTrafficSecret(c.out.secret13)
	if err := c.out.setTrafficSecret(c.out.suite13, next); err != nil {
		return c.out.setErrorLocked(err)
	}
	return nil
}

// sendPendingTicketLocked sends the NewSessionTicket a server holds, if
// any. c.out is held.
func (c *Conn) sendPendingTicketLocked() error {
	t := c.tls13.pendingTicket
	if t == nil {
		return nil
	}
	c.tls13.pendingTicket = nil
	// Held as a flight of one record, the ticket goes out with the data
	// that follows, in the same transport write.
	c.flight.buffering = true
	_, err := c.writeRecordLocked(recordTypeHandshake, t)
	c.flight.buffering = false
	if err == nil {
		c.traceMessage(true, recordTypeHandshake, t)
	}
	return err
}

// maybeUpdateWriteKeyLocked runs after each Write: it sends a held ticket
// that no data took along, and updates the write key once it has
// protected keyUpdateInterval records. c.out is held.
func (c *Conn) maybeUpdateWriteKeyLocked() error {
	// A held ticket that no data followed (an empty Write).
	if err := c.flushFlightLocked(); err != nil {
		return err
	}
	if c.vers != VersionTLS13 || c.out.rp == nil || c.out.rp.Sequence() < keyUpdateInterval || !c.isHandshakeComplete.Load() {
		return nil
	}
	return c.updateWriteKeyLocked(false)
}

// handleNewSessionTicket stores a ticket for resumption (RFC 8446 §4.6.1).
func (c *Conn) handleNewSessionTicket(m *newSessionTicketMsg) error {
	if m.lifetime > maxTicketLifetime {
		return c.in.setErrorLocked(c.fail(errorf(alertIllegalParameter, "tlcp: the server's ticket lifetime of %d s is over RFC 8446's 7 days", m.lifetime)))
	}
	cache := c.config.ClientSessionCache
	if cache == nil || m.lifetime == 0 || c.tls13.session == nil || c.tls13.cacheKey == "" {
		return nil
	}
	lifetime := min(time.Duration(m.lifetime)*time.Second, c.config.lifetime())
	base := c.tls13.session
	s := &ClientSessionState{
		cipherSuite: base.cipherSuite,
		server:      base.server,
		receivedAt:  c.config.time(),
		vers:        VersionTLS13,
		ticket: &clientTicket{
			label:    m.ticket,
			psk:      ciphersuite.TLS13ResumptionPSK(c.tls13.resumptionSecret, m.nonce),
			ageAdd:   m.ageAdd,
			lifetime: lifetime,
		},
	}
	cache.Put(c.tls13.cacheKey, s)
	return nil
}
