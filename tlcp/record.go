// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// The record layer of both protocols (DESIGN.md): one read path,
// readRecordOrCCS's steps nextRecord (or a batch) → openRecord →
// handleRecord, and one write path,
// writeRecordLocked → appendRecordLocked (or a batch) → sendRecordLocked.
// Where TLCP and TLS 1.3 differ — the content type inside the protection,
// keys installed at ChangeCipherSpec or at once — the paths branch on
// c.vers; the protection itself is one ciphersuite.RecordProtection.

// isLocalFailure reports whether err was found on this side and should be
// reported to the peer with an alert. Network errors and alerts from the
// peer are not, nor is a plain HTTP request, which a client speaking HTTP
// cannot read an alert in reply to (ServeHTTP answers it in HTTP).
func isLocalFailure(err error) bool {
	var ne net.Error
	return !(errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, errClientSpeaksHTTP))
}

// fail sends the alert that err maps to, unless the failure is not ours to
// report, and returns err. It is the one path by which errors become alerts.
func (c *Conn) fail(err error) error {
	if isLocalFailure(err) {
		c.sendAlert(alertFor(err))
	}
	return err
}

// sendAlertLocked sends an alert. Fatal alerts also break the connection in
// the write direction and invalidate the session. c.out must be held.
func (c *Conn) sendAlertLocked(a alert) error {
	level := byte(alertLevelError)
	if a == alertCloseNotify || a == alertNoRenegotiation {
		level = alertLevelWarning
	}
	if level == alertLevelError {
		c.invalidateSession()
	}
	if c.out.err != nil {
		return c.out.err
	}
	c.tmp[0], c.tmp[1] = level, byte(a)
	_, err := c.writeRecordLocked(recordTypeAlert, c.tmp[:])
	if err == nil {
		c.traceMessage(true, recordTypeAlert, c.tmp[:])
		c.onAlert(true, level, byte(a))
	}
	if a == alertCloseNotify {
		return err
	}
	if level == alertLevelError {
		return c.out.setErrorLocked(&net.OpError{Op: "local error", Err: a})
	}
	return err
}

func (c *Conn) sendAlert(a alert) error {
	c.out.Lock()
	defer c.out.Unlock()
	return c.sendAlertLocked(a)
}

// invalidateSession removes the connection's session from the caches after
// a fatal alert, sent or received (INTEROP.md §6.1).
func (c *Conn) invalidateSession() {
	c.sessionMu.Lock()
	defer c.sessionMu.Unlock()
	if c.isClient && c.clientSessionKey != "" && c.config.ClientSessionCache != nil {
		c.config.ClientSessionCache.Put(c.clientSessionKey, nil)
		c.clientSessionKey = ""
	}
	if !c.isClient && c.serverSessionID != nil {
		if c.sessions != nil {
			// No handshake context here; a ServerSessionCache bounds
			// its own time.
			c.sessions.remove(context.Background(), c.serverSessionID)
		}
		c.serverSessionID = nil
	}
}

// errTruncated reports that the peer closed the transport at a record
// boundary without close_notify, so the data may have been cut short by an
// attacker; errTruncatedRecord that it stopped inside a record, header or
// body. Both wrap io.ErrUnexpectedEOF.
var (
	errTruncated       = fmt.Errorf("tlcp: connection closed without close_notify: %w", io.ErrUnexpectedEOF)
	errTruncatedRecord = fmt.Errorf("tlcp: connection closed without close_notify, in the middle of a record: %w", io.ErrUnexpectedEOF)
)

// fill reads from the transport until c.rawInput holds at least n bytes,
// reading as much as fits in the free space each time, which after the
// handshake grows to a batch of records while the peer streams. Its error
// is the transport's, io.EOF if it ended before the n bytes were there.
func (c *Conn) fill(n int) error {
	if err := c.flushFlight(); err != nil {
		return err
	}
	for c.rawInput.Len() < n {
		free := c.rawInput.space(n-c.rawInput.Len(), c.isHandshakeComplete.Load())
		got, err := c.conn.Read(free)
		c.rawInput.commit(got, len(free))
		if err != nil && c.rawInput.Len() < n {
			return err
		}
	}
	return nil
}

// readFailure turns a transport error met while waiting for a record into
// the error the caller sees; boundary says no byte of the record had
// arrived. A timeout leaves the connection usable, so that a Read can be
// retried after a deadline; anything else is final.
func (c *Conn) readFailure(err error, boundary bool) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		switch {
		case !boundary:
			err = errTruncatedRecord
		case c.isHandshakeComplete.Load():
			err = errTruncated
		default:
			// handshakeClosedError says who closed, and when.
			err = io.EOF
		}
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return err
	}
	return c.in.setErrorLocked(err)
}

// nextRecord returns the next record: one queued by a batch, or the next
// off the transport, its header checked. Application data after the
// handshake is opened there and then, as a batch with the whole records
// behind it (record_batch.go); any other record comes back as received,
// with raw set, for openRecord. The data aliases c.rawInput (or, for
// application data opened into a Read's buffer, that buffer) and is valid
// until the next read. Its errors have been reported to the peer and are
// final.
func (c *Conn) nextRecord() (typ recordType, data []byte, raw bool, err error) {
	typ, data, err, ok := c.nextQueued()
	if !ok {
		if err := c.fill(recordHeaderLen); err != nil {
			return 0, nil, false, c.readFailure(err, c.rawInput.Len() == 0)
		}
		var n int
		if typ, n, err = c.checkRecordHeader(c.rawInput.Bytes()[:recordHeaderLen]); err == nil {
			if err := c.fill(recordHeaderLen + n); err != nil {
				return 0, nil, false, c.readFailure(err, false)
			}
			if bp := c.batchOpener(typ); bp != nil {
				typ, data, err = c.openBatch(bp)
			} else {
				data, raw = c.rawInput.Next(recordHeaderLen + n)[recordHeaderLen:], true
			}
		}
	}
	if err != nil {
		return 0, nil, false, c.in.setErrorLocked(c.fail(err))
	}
	return typ, data, raw, nil
}

// maxEarlyDataSkipped bounds the rejected 0-RTT data a server skips.
// Its tickets allow none, so only a client that ignores that sends any.
const maxEarlyDataSkipped = 1 << 14

// openRecord removes the protection of one record whose header has passed
// checkRecordHeader and returns its content type (the inner one for TLS
// 1.3) and plaintext, or skip for a record that is dropped unread: 0-RTT
// data that a TLS 1.3 server refused, reported here and never as a content
// type, so that every type on the wire keeps its meaning. Unprotected
// records pass as they are. In TLS 1.3 a
// few may also come in the clear once keys are in place: ChangeCipherSpec
// (dropped by handleRecord) and, during the handshake, alerts (a peer that
// cannot read our keys may still say why it gives up); any other
// unprotected record is unexpected_message. Protected records carry their
// real type inside.
func (c *Conn) openRecord(typ recordType, data []byte) (recordType, []byte, bool, error) {
	tls13 := c.vers == VersionTLS13
	if c.in.rp == nil || tls13 && (typ == recordTypeChangeCipherSpec || typ == recordTypeAlert && !c.isHandshakeComplete.Load()) {
		if typ == recordTypeApplicationData && c.skipEarlyData(len(data)) {
			return 0, nil, true, nil
		}
		return typ, data, false, nil
	}
	if tls13 && typ != recordTypeApplicationData {
		return 0, nil, false, unprotectedRecordError(typ)
	}
	n := len(data)
	inner, data, err := c.in.rp.Open(uint8(typ), data)
	switch {
	case err != nil && errors.Is(err, ciphersuite.ErrBadRecordMAC) && c.skipEarlyData(n):
		return 0, nil, true, nil
	case err != nil:
		return 0, nil, false, openFailure(err)
	case len(data) > maxPlaintext:
		return 0, nil, false, errorf(alertRecordOverflow, "tlcp: decrypted record too large")
	}
	if tls13 {
		c.tls13.earlyDataBudget = 0 // the client's handshake keys work: no more early data
		if err := checkInnerType(recordType(inner)); err != nil {
			return 0, nil, false, err
		}
	}
	return recordType(inner), data, false, nil
}

// unprotectedRecordError is openRecord's refusal of a record in the clear
// where TLS 1.3 protects every record, kept out of its frame (see
// readHandshake).
//
//go:noinline
func unprotectedRecordError(typ recordType) error {
	return errorf(alertUnexpectedMessage, "tlcp: received an unprotected %s record after the TLS 1.3 keys were agreed", typeName(typ))
}

// skipEarlyData reports whether a record of n bytes is 0-RTT data that the
// server refused and may drop (RFC 8446 §4.2.10), and counts it. Only a
// TLS 1.3 server that saw early_data in the ClientHello has a budget.
func (c *Conn) skipEarlyData(n int) bool {
	if c.isClient || c.tls13.earlyDataBudget < n {
		return false
	}
	c.tls13.earlyDataBudget -= n
	return true
}

func (c *Conn) readRecord() error { return c.readRecordOrCCS(false) }

func (c *Conn) readChangeCipherSpec() error { return c.readRecordOrCCS(true) }

// readRecordOrCCS reads records until one moves the connection forward:
// handshake bytes (to c.hand), application data (to c.input), or, only
// when expected, a ChangeCipherSpec, which switches the read side to the
// new keys. Records that carry nothing (empty application data, warning
// alerts, refused 0-RTT data) are skipped, up to maxUselessRecords in a
// row. c.in must be held.
func (c *Conn) readRecordOrCCS(expectChangeCipherSpec bool) error {
	if c.dg != nil {
		return c.dgReadRecord(expectChangeCipherSpec)
	}
	if c.in.err != nil {
		return c.in.err
	}
	if c.input.Len() != 0 {
		return c.in.setErrorLocked(errors.New("tlcp: internal error: reading a record with pending application data"))
	}
	c.input.Reset(nil)
	for {
		typ, data, raw, err := c.nextRecord()
		if err != nil {
			return err
		}
		skip := false
		if raw {
			// A step of its own rather than inside nextRecord, so that
			// the decryption of a handshake's Finished runs under one
			// frame fewer: a resumed handshake must fit a goroutine's
			// first stacks (stack_test.go).
			if typ, data, skip, err = c.openRecord(typ, data); err != nil {
				return c.in.setErrorLocked(c.fail(err))
			}
		}
		progress := false
		if !skip {
			if progress, err = c.handleRecord(typ, data, expectChangeCipherSpec); err != nil {
				return c.in.setErrorLocked(err)
			}
		}
		if progress {
			c.uselessRecords = 0
			return nil
		}
		if c.uselessRecords++; c.uselessRecords > maxUselessRecords {
			return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage,
				"tlcp: the peer sent more than %d empty records or warnings in a row", maxUselessRecords)))
		}
	}
}

// handleRecord acts on one record's plaintext and reports whether it
// moved the connection forward.
func (c *Conn) handleRecord(typ recordType, data []byte, expectChangeCipherSpec bool) (progress bool, err error) {
	// A handshake message split over records must not have other records
	// inside it (INTEROP.md §1.7).
	if typ != recordTypeHandshake && c.hand.Len() > 0 {
		return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: %s record inside a fragmented handshake message", typeName(typ)))
	}
	switch typ {
	case recordTypeAlert:
		if len(data) != 2 {
			return false, c.fail(errorf(alertDecodeError, "tlcp: malformed alert record"))
		}
		c.traceMessage(false, recordTypeAlert, data)
		c.onAlert(false, data[0], data[1])
		level, desc := data[0], alert(data[1])
		switch {
		case desc == alertCloseNotify:
			return false, io.EOF
		case level == alertLevelWarning && (c.vers != VersionTLS13 || desc == alertUserCanceled):
			// no_renegotiation, user_canceled: noted and skipped. TLS
			// 1.3 treats every alert but user_canceled as fatal,
			// whatever its level (RFC 8446 §6).
			return false, nil
		}
		c.invalidateSession()
		return false, &net.OpError{Op: "remote error", Err: AlertError(desc)}

	case recordTypeChangeCipherSpec:
		if c.vers == VersionTLS13 {
			// The middlebox-compatibility ChangeCipherSpec, one byte 01
			// during the handshake, is dropped (RFC 8446 §5, D.4);
			// fragmented handshake messages were refused above.
			c.traceMessage(false, recordTypeChangeCipherSpec, data)
			switch {
			case len(data) != 1 || data[0] != 1:
				return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: malformed ChangeCipherSpec in TLS 1.3"))
			case c.isHandshakeComplete.Load():
				return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: ChangeCipherSpec after the TLS 1.3 handshake"))
			}
			return false, nil
		}
		if len(data) != 1 || data[0] != 1 {
			return false, c.fail(errorf(alertDecodeError, "tlcp: malformed ChangeCipherSpec"))
		}
		c.traceMessage(false, recordTypeChangeCipherSpec, data)
		if !expectChangeCipherSpec {
			return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: unexpected ChangeCipherSpec"))
		}
		if err := c.in.changeCipherSpec(); err != nil {
			return false, c.fail(err)
		}
		c.noteHandshakeMsg("ChangeCipherSpec")
		return true, nil

	case recordTypeApplicationData:
		if !c.isHandshakeComplete.Load() || expectChangeCipherSpec {
			return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: application data before the handshake finished"))
		}
		if len(data) == 0 {
			return false, nil // Tongsuo sends one before its first data
		}
		c.input.Reset(data)
		return true, nil

	case recordTypeHandshake:
		if len(data) == 0 {
			return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: empty handshake record"))
		}
		if expectChangeCipherSpec {
			return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: handshake message where ChangeCipherSpec was expected"))
		}
		c.hand.Write(data)
		return true, nil
	}
	// Only a TLS 1.3 inner type gets here: checkRecordHeader refused the
	// rest (RFC 8446 §5: unexpected_message).
	return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: unknown record type %d", typ))
}

// writeRecordLocked is the one write path of both protocols: it cuts data
// into records of at most 2^14 bytes, frames and protects each
// (appendRecordLocked), and hands them to the transport or to the pending
// flight (sendRecordLocked). More than one protected record is sealed as a
// batch into one buffer that goes to the transport in one write
// (writeBatchedLocked). c.out must be held.
func (c *Conn) writeRecordLocked(typ recordType, data []byte) (int, error) {
	if c.dg != nil {
		return c.dgWriteRecordLocked(typ, data)
	}
	if c.out.err != nil {
		return 0, c.out.err
	}
	if bp := c.batchSealer(data); bp != nil {
		return c.writeBatchedLocked(bp, typ, data)
	}
	var n int
	for len(data) > 0 {
		m := min(len(data), maxPlaintext)
		need := recordHeaderLen + m + c.out.overhead()
		if cap(c.outBuf) < need {
			// Grow to what this record needs: handshakes send small
			// records, and bulk writers reach full size after one.
			c.outBuf = make([]byte, 0, need)
		}
		out, err := c.appendRecordLocked(c.outBuf[:0], typ, data[:m])
		if err != nil {
			return n, err
		}
		c.outBuf = out
		if err := c.sendRecordLocked(typ, out); err != nil {
			return n, c.out.setErrorLocked(err)
		}
		n += m
		data = data[m:]
	}
	return n, nil
}

// appendRecordLocked appends to dst one record of type typ holding data (at
// most 2^14 bytes), protected if the write side is. c.out must be held.
func (c *Conn) appendRecordLocked(dst []byte, typ recordType, data []byte) ([]byte, error) {
	start := len(dst)
	// The header is written once the body's length is known.
	out := append(dst, 0, 0, 0, 0, 0)
	if c.out.rp != nil {
		var err error
		if out, err = c.out.rp.Seal(out, uint8(typ), data, c.config.rand()); err != nil {
			return dst, c.out.setErrorLocked(sealFailure(err))
		}
	} else {
		out = append(out, data...)
	}
	c.putRecordHeader(out[start:start+recordHeaderLen], typ, len(out)-start-recordHeaderLen)
	return out, nil
}

// noteHandshakeMsg records progress for handshakeClosedError.
func (c *Conn) noteHandshakeMsg(name string) {
	if !c.isHandshakeComplete.Load() {
		c.lastHandshakeMsg = name
	}
}

// writeChangeCipherSpec sends ChangeCipherSpec, the one writer for both
// protocols. In TLCP it moves the write side to the agreed keys
// (INTEROP.md §1.4). In TLS 1.3 it is the middlebox-compatibility record
// (RFC 8446 §D.4), which changes nothing; both sides send it before their
// write keys change, so it goes in the clear.
func (c *Conn) writeChangeCipherSpec() error {
	c.out.Lock()
	defer c.out.Unlock()
	tls13 := c.vers == VersionTLS13
	if tls13 && c.out.rp != nil {
		return errors.New("tlcp: internal error: compatibility ChangeCipherSpec after the write keys changed")
	}
	c.tmp[0] = 1 // c.out is held: c.tmp is free, and unlike a literal it does not escape
	if _, err := c.writeRecordLocked(recordTypeChangeCipherSpec, c.tmp[:1]); err != nil {
		return err
	}
	c.noteHandshakeMsg("ChangeCipherSpec")
	c.traceMessage(true, recordTypeChangeCipherSpec, c.tmp[:1])
	if !tls13 {
		if err := c.out.changeCipherSpec(); err != nil {
			return c.out.setErrorLocked(err)
		}
	}
	return nil
}

// setReadSecretTLS13 switches the read side to a new TLS 1.3 traffic
// secret. No handshake message may span the change (RFC 8446 §5.1): bytes
// of one still waiting in c.hand came under the old key.
func (c *Conn) setReadSecretTLS13(suite *ciphersuite.TLS13Suite, secret []byte) error {
	if c.hand.Len() > 0 {
		return errorf(alertUnexpectedMessage, "tlcp: a handshake message straddles a TLS 1.3 key change")
	}
	return c.in.setTrafficSecret(suite, secret)
}

// setWriteSecretTLS13 switches the write side to a new TLS 1.3 traffic
// secret.
func (c *Conn) setWriteSecretTLS13(suite *ciphersuite.TLS13Suite, secret []byte) error {
	c.out.Lock()
	defer c.out.Unlock()
	return c.out.setTrafficSecret(suite, secret)
}
