// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// The record layer's TLS 1.3 side (TLS13.md §4): outer type
// application_data and version 0x0303 on protected records, the content
// type inside; keys that change without ChangeCipherSpec; the
// middlebox-compatibility ChangeCipherSpec dropped; early data skipped;
// KeyUpdate and NewSessionTicket after the handshake.

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

	// pendingTicket is a server's NewSessionTicket, which goes before the
	// first application data it writes.
	pendingTicket []byte

	// buffering collects a flight's records in sendBuf so that they go
	// out in one write.
	buffering bool
	sendBuf   []byte

	hooks *tls13TestHooks // nil except in tests
}

// tls13TestHooks lets tests play misbehaving peers.
type tls13TestHooks struct {
	omitKeyShare       bool // client: first ClientHello without a key share
	sendEarlyData      []byte
	corruptFinished    bool
	corruptCertVerify  bool
	serverHelloVersion uint16 // server: selected_version to send instead of 0x0304
	afterServerHello   func(*serverHelloMsg)
	certVerifyScheme   uint16 // the scheme to claim in CertificateVerify
	corruptBinder      bool
	extraEncryptedExt  uint16 // server: an extension to add to EncryptedExtensions
}

// recordTypeSkipped is the type openTLS13 gives a rejected early-data
// record, which handleRecord drops.
const recordTypeSkipped recordType = 0

// maxEarlyDataSkipped bounds the rejected 0-RTT data a server skips.
// Its tickets allow none, so only a client that ignores that sends any.
const maxEarlyDataSkipped = 1 << 14

// maxKeyUpdatesInARow bounds KeyUpdates with nothing between them.
const maxKeyUpdatesInARow = 32

// keyUpdateInterval is how many records a side sends under one traffic
// secret before it updates its keys (RFC 8446 §5.5; about 2^24.5 records
// are safe for a 128-bit block cipher in GCM). A variable for tests.
var keyUpdateInterval uint64 = 1 << 24

// setTrafficSecret installs TLS 1.3 protection under a new traffic
// secret. A key change must fall on a record boundary (RFC 8446 §5.1).
func (hc *halfConn) setTrafficSecret(suite *ciphersuite.TLS13Suite, secret []byte) error {
	rp, err := suite.NewRecordProtection(secret)
	if err != nil {
		return errorf(alertInternalError, "tlcp: %w", err)
	}
	hc.rp13, hc.suite13, hc.secret13 = rp, suite, secret
	hc.rp, hc.nextRP = nil, nil
	return nil
}

// seal protects one record with whichever protection is installed.
func (hc *halfConn) seal(out []byte, typ recordType, data []byte, rand io.Reader) ([]byte, error) {
	if hc.rp13 != nil {
		return hc.rp13.Seal(out, uint8(typ), data, rand)
	}
	return hc.rp.Seal(out, uint8(typ), data, rand)
}

// protected reports whether records are protected in this direction.
func (hc *halfConn) protected() bool { return hc.rp != nil || hc.rp13 != nil }

// overhead is the most that seal adds to a record.
func (hc *halfConn) overhead() int {
	switch {
	case hc.rp13 != nil:
		return hc.rp13.Overhead()
	case hc.rp != nil:
		return hc.rp.Overhead()
	}
	return 0
}

// outerRecordType is the type on a record's header: application_data for
// every protected TLS 1.3 record.
func (c *Conn) outerRecordType(typ recordType) byte {
	if c.out.rp13 != nil {
		return byte(recordTypeApplicationData)
	}
	return byte(typ)
}

// outRecordVersion is the version on the header of records this side
// sends.
func (c *Conn) outRecordVersion() uint16 {
	switch {
	case c.vers == VersionTLS13:
		return 0x0303
	case c.vers == VersionTLCP:
		return VersionTLCP
	case c.isClient && c.tls13.helloRecordVers != 0:
		return c.tls13.helloRecordVers
	case !c.isClient && c.tls13.firstRecordVers>>8 == 3:
		return 0x0303 // an alert to a TLS client before anything is agreed
	}
	return VersionTLCP
}

// recordVersionOK reports whether a record of version vers may arrive now.
// TLS 1.3 ignores the legacy record version within 0x03xx (RFC 8446 §5.1);
// before a version is agreed, a side takes what it may go on to speak.
func (c *Conn) recordVersionOK(vers uint16) bool {
	switch c.vers {
	case VersionTLCP:
		return vers == VersionTLCP
	case VersionTLS13:
		return vers>>8 == 3
	}
	if vers == VersionTLCP {
		return true
	}
	if vers>>8 != 3 {
		return false
	}
	if c.isClient {
		return c.tls13.offered
	}
	if !c.config.versionEnabled(VersionTLS13, false) {
		return false
	}
	if c.tls13.firstRecordVers == 0 {
		c.tls13.firstRecordVers = vers
	}
	return true
}

// recordVersionMessage describes a record of a version not accepted now,
// for a RecordHeaderError.
func (c *Conn) recordVersionMessage(vers uint16) string {
	switch {
	case c.vers == VersionTLS13:
		return fmt.Sprintf("received a record with version 0x%04x in a TLS 1.3 connection, want 0x03xx", vers)
	case !c.isClient && vers>>8 == 3:
		return fmt.Sprintf("received a TLS record (version 0x%04x), but this server speaks only TLCP (TLS 1.3 is disabled or has no cipher suites)", vers)
	}
	return fmt.Sprintf("received a record with version 0x%04x, want 0x0101 (is the peer speaking TLS?)", vers)
}

// recordLimit is the largest record body that may arrive now.
func (c *Conn) recordLimit() int {
	switch {
	case c.in.rp13 != nil:
		return ciphersuite.MaxTLS13Ciphertext
	case c.in.rp != nil:
		return maxCiphertext
	}
	return maxPlaintext
}

// openTLS13 removes the protection of a record in a TLS 1.3 connection and
// returns its real type and content. Unprotected records are passed on as
// they are: ChangeCipherSpec (dropped by handleRecord), alerts (a peer that
// cannot read our keys may still say why it gives up) and, before keys,
// handshake records. Rejected early data comes back as recordTypeSkipped.
func (c *Conn) openTLS13(typ recordType, data []byte) (recordType, []byte, error) {
	if typ == recordTypeChangeCipherSpec || (typ == recordTypeAlert && !c.isHandshakeComplete.Load()) {
		return typ, data, nil
	}
	if c.in.rp13 == nil {
		if typ == recordTypeApplicationData && c.skipEarlyData(len(data)) {
			return recordTypeSkipped, nil, nil
		}
		return typ, data, nil
	}
	if typ != recordTypeApplicationData {
		return 0, nil, c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage,
			"tlcp: received an unprotected %s record after the TLS 1.3 keys were agreed", typeName(typ))))
	}
	n := len(data)
	inner, content, err := c.in.rp13.Open(uint8(typ), data)
	if err != nil {
		if errors.Is(err, ciphersuite.ErrBadRecordMAC) && c.skipEarlyData(n) {
			return recordTypeSkipped, nil, nil
		}
		switch {
		case errors.Is(err, ciphersuite.ErrSequenceOverflow):
			err = errorf(alertInternalError, "tlcp: the peer has sent all 2^64-1 records a connection allows: %w", err)
		case errors.Is(err, ciphersuite.ErrMissingContentType):
			err = errorf(alertUnexpectedMessage, "tlcp: received a TLS 1.3 record without a content type")
		default:
			err = errorf(alertFor(err), "tlcp: received record: %w", err)
		}
		return 0, nil, c.in.setErrorLocked(c.fail(err))
	}
	c.tls13.earlyDataBudget = 0 // the client's handshake keys work: no more early data
	if recordType(inner) == recordTypeChangeCipherSpec {
		return 0, nil, c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: received a protected ChangeCipherSpec")))
	}
	return recordType(inner), content, nil
}

// skipEarlyData reports whether a record of n bytes is 0-RTT data that the
// server refused and may drop (RFC 8446 §4.2.10), and counts it.
func (c *Conn) skipEarlyData(n int) bool {
	if c.isClient || c.tls13.earlyDataBudget < n {
		return false
	}
	c.tls13.earlyDataBudget -= n
	return true
}

// handleChangeCipherSpecTLS13 drops the middlebox-compatibility
// ChangeCipherSpec: one byte 01, during the handshake (RFC 8446 §5, D.4).
func (c *Conn) handleChangeCipherSpecTLS13(data []byte) error {
	c.traceMessage(false, recordTypeChangeCipherSpec, data)
	if len(data) != 1 || data[0] != 1 {
		return c.fail(errorf(alertUnexpectedMessage, "tlcp: malformed ChangeCipherSpec in TLS 1.3"))
	}
	if c.isHandshakeComplete.Load() {
		return c.fail(errorf(alertUnexpectedMessage, "tlcp: ChangeCipherSpec after the TLS 1.3 handshake"))
	}
	if c.hand.Len() > 0 {
		return c.fail(errorf(alertUnexpectedMessage, "tlcp: ChangeCipherSpec inside a fragmented handshake message"))
	}
	return nil
}

// writeRaw sends records, or holds them while a flight is buffered. A
// record held outside a flight (the server's ticket) goes out with the next
// one, in the same write.
func (c *Conn) writeRaw(b []byte) (int, error) {
	if c.tls13.buffering {
		c.tls13.sendBuf = append(c.tls13.sendBuf, b...)
		return len(b), nil
	}
	if len(c.tls13.sendBuf) > 0 {
		c.tls13.sendBuf = append(c.tls13.sendBuf, b...)
		_, err := c.conn.Write(c.tls13.sendBuf)
		c.tls13.sendBuf = c.tls13.sendBuf[:0]
		return len(b), err
	}
	return c.conn.Write(b)
}

// flush sends the buffered flight and stops buffering.
func (c *Conn) flush() error {
	c.out.Lock()
	defer c.out.Unlock()
	c.tls13.buffering = false
	if len(c.tls13.sendBuf) == 0 {
		return nil
	}
	_, err := c.conn.Write(c.tls13.sendBuf)
	c.tls13.sendBuf = c.tls13.sendBuf[:0]
	if err != nil {
		return c.out.setErrorLocked(err)
	}
	return nil
}

// unbufferOnError sends what a failed handshake had buffered and stops
// buffering, so that the alert that reports the failure follows at once.
func (c *Conn) unbufferOnError(err *error) {
	if *err != nil && c.tls13.buffering {
		c.flush()
	}
}

// writeChangeCipherSpecTLS13 sends the middlebox-compatibility
// ChangeCipherSpec, which changes nothing in TLS 1.3.
// Both sides send it before they switch their write keys, so it goes in
// the clear.
func (c *Conn) writeChangeCipherSpecTLS13() error {
	c.out.Lock()
	defer c.out.Unlock()
	if c.out.protected() {
		return errors.New("tlcp: internal error: compatibility ChangeCipherSpec after the write keys changed")
	}
	_, err := c.writeRecordLocked(recordTypeChangeCipherSpec, []byte{1})
	if err == nil {
		c.noteHandshakeMsg("ChangeCipherSpec")
		c.traceMessage(true, recordTypeChangeCipherSpec, []byte{1})
	}
	return err
}

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
	// The KeyUpdate itself was record number Sequence()-1 under the old
	// key; if it was the first, the key carried nothing else.
	if c.in.rp13.Sequence() <= 1 {
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
	if !m.updateRequested {
		return nil
	}
	c.out.Lock()
	defer c.out.Unlock()
	if c.closeNotifySent {
		return nil // nothing more will be written, so no new key is needed
	}
	return c.updateWriteKeyLocked(false)
}

// updateWriteKeyLocked sends a KeyUpdate and moves the write side to the
// next traffic secret. c.out is held.
func (c *Conn) updateWriteKeyLocked(requestPeer bool) error {
	data, _ := (&keyUpdateMsg{updateRequested: requestPeer}).marshal()
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
	// Held in sendBuf, the ticket goes out with the data that follows.
	c.tls13.buffering = true
	_, err := c.writeRecordLocked(recordTypeHandshake, t)
	c.tls13.buffering = false
	if err == nil {
		c.traceMessage(true, recordTypeHandshake, t)
	}
	return err
}

// maybeUpdateWriteKeyLocked runs after each Write: it sends a held ticket
// that no data took along, and updates the write key once it has
// protected keyUpdateInterval records. c.out is held.
func (c *Conn) maybeUpdateWriteKeyLocked() error {
	if len(c.tls13.sendBuf) > 0 && !c.tls13.buffering {
		// A held ticket that no data followed (an empty Write).
		_, err := c.conn.Write(c.tls13.sendBuf)
		c.tls13.sendBuf = c.tls13.sendBuf[:0]
		if err != nil {
			return c.out.setErrorLocked(err)
		}
	}
	if c.out.rp13 == nil || c.out.rp13.Sequence() < keyUpdateInterval || !c.isHandshakeComplete.Load() {
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
