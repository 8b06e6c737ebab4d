// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// Conn is a TLCP connection, client or server side. Read, Write and Close
// may be called concurrently, as with crypto/tls.Conn.
type Conn struct {
	conn     net.Conn
	isClient bool
	config   *Config

	handshakeFn func(context.Context) error

	// isHandshakeComplete is true once the handshake has succeeded; it is
	// read without locks by Read and Write.
	isHandshakeComplete atomic.Bool
	// handshakeMutex serialises handshakes; the fields below it are written
	// during the handshake and read after it.
	handshakeMutex   sync.Mutex
	handshakeErr     error
	vers             uint16
	didResume        bool
	cipherSuite      uint16
	peerCertificates []*smx509.Certificate
	peerSignCert     *smx509.Certificate
	peerEncCert      *smx509.Certificate
	verifiedChains   [][]*smx509.Certificate
	serverName       string
	clientProtocol   string

	// For invalidating the session after a fatal alert (INTEROP.md §6.1).
	sessionMu        sync.Mutex
	clientSessionKey string       // client: key in ClientSessionCache
	serverSessionID  []byte       // server: ID in the session cache
	sessions         sessionStore // server: where sessions are kept, or nil

	in, out halfConn

	rawInput inputBuffer   // raw bytes from conn, not yet processed
	rb       recordBatches // batched sealing and opening (record_batch.go)
	input    bytes.Reader  // application data ready to be read
	hand     bytes.Buffer  // handshake bytes not yet parsed
	outBuf   []byte        // reused for every record sent

	closeNotifySent bool
	closeNotifyErr  error

	// writers lets Close stop Writes that are under way (see writeGate).
	writers writeGate

	// lastHandshakeMsg names the last handshake message (or
	// ChangeCipherSpec) sent or received during the handshake, to say
	// where it stopped if the peer hangs up. Only the handshake goroutine
	// touches it.
	lastHandshakeMsg string

	// quirks notes what a client sent that a known peer quirk refuses.
	quirks clientQuirks

	// recordSeen is set once a record header has passed the checks.
	recordSeen bool

	// uselessRecords counts records in a row that carried nothing (empty
	// application data, warnings); too many is an attack.
	uselessRecords int
	// renegotiations counts the renegotiations declined so far.
	renegotiations int

	tls13 tls13ConnState // conn_tls13.go

	tmp [2]byte
}

// maxUselessRecords bounds consecutive empty records and warnings. Tongsuo
// clients send one empty application_data record before real data, so some
// are legitimate.
const maxUselessRecords = 16

// halfConn is one direction of the record layer.
type halfConn struct {
	sync.Mutex
	err    error                        // first permanent error
	rp     ciphersuite.RecordProtection // nil until ChangeCipherSpec
	nextRP ciphersuite.RecordProtection // installed by ChangeCipherSpec

	// TLS 1.3 protection, and the secret it was made from (for KeyUpdate).
	rp13     ciphersuite.RecordProtection
	suite13  *ciphersuite.TLS13Suite
	secret13 []byte
}

func (hc *halfConn) setErrorLocked(err error) error {
	if hc.err == nil {
		hc.err = err
	}
	return err
}

// changeCipherSpec switches to the pending protection; its sequence number
// starts at zero (INTEROP.md §1.4).
func (hc *halfConn) changeCipherSpec() error {
	if hc.nextRP == nil {
		return errorf(alertUnexpectedMessage, "tlcp: ChangeCipherSpec before keys were agreed")
	}
	hc.rp, hc.nextRP = hc.nextRP, nil
	return nil
}

// Access to net.Conn methods.

// LocalAddr returns the local network address.
func (c *Conn) LocalAddr() net.Addr { return c.conn.LocalAddr() }

// RemoteAddr returns the remote network address.
func (c *Conn) RemoteAddr() net.Addr { return c.conn.RemoteAddr() }

// SetDeadline sets the read and write deadlines. A Write that times out
// leaves the connection unusable: a record may have been partly sent.
func (c *Conn) SetDeadline(t time.Time) error { return c.conn.SetDeadline(t) }

// SetReadDeadline sets the read deadline.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.conn.SetReadDeadline(t) }

// SetWriteDeadline sets the write deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.conn.SetWriteDeadline(t) }

// NetConn returns the underlying connection. Writing to or reading from it
// directly corrupts the TLCP session.
func (c *Conn) NetConn() net.Conn { return c.conn }

// isLocalFailure reports whether err was found on this side and should be
// reported to the peer with an alert. Network errors and alerts from the
// peer are not, nor is a plain HTTP request, which a client speaking HTTP
// cannot read an alert in reply to (ServeHTTP answers it in HTTP).
func isLocalFailure(err error) bool {
	var ne net.Error
	return !(errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, errClientSpeaksHTTP))
}

// errClientSpeaksHTTP is the failure of a server whose client sent an HTTP
// request instead of a ClientHello.
var errClientSpeaksHTTP = errors.New("tlcp: the client sent an HTTP request to a TLCP server (wrong port?)")

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

// The read side of the record layer.
//
// Bytes from the transport collect in c.rawInput. nextRecord cuts one
// record off its front and removes its protection; readRecordOrCCS loops
// over records until one moves the connection forward, giving each type
// its treatment, and counts the ones that carry nothing. Handshake bytes
// collect in c.hand, where readHandshake finds whole messages.

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

// nextRecord reads one record and returns its type and plaintext. The
// plaintext aliases c.rawInput (or, for application data opened into a
// Read's buffer, that buffer) and is valid until the next read. Records
// opened in a batch come from the queue first.
func (c *Conn) nextRecord() (recordType, []byte, error) {
	if typ, data, err, ok := c.nextQueued(); ok {
		return typ, data, err
	}
	if err := c.fill(recordHeaderLen); err != nil {
		return 0, nil, c.readFailure(err, c.rawInput.Len() == 0)
	}
	hdr := c.rawInput.Bytes()[:recordHeaderLen]
	typ, vers, n := recordType(hdr[0]), uint16(hdr[1])<<8|uint16(hdr[2]), int(hdr[3])<<8|int(hdr[4])
	if err := c.checkRecordHeader(hdr, vers, n); err != nil {
		return 0, nil, c.in.setErrorLocked(c.fail(err))
	}
	if err := c.fill(recordHeaderLen + n); err != nil {
		return 0, nil, c.readFailure(err, false)
	}
	if bp := c.batchOpener(typ); bp != nil {
		return c.openBatch(bp)
	}
	data := c.rawInput.Next(recordHeaderLen + n)[recordHeaderLen:]
	if c.vers == VersionTLS13 {
		return c.openTLS13(typ, data)
	}
	if c.in.rp == nil {
		return typ, data, nil
	}
	_, data, err := c.in.rp.Open(uint8(typ), data)
	switch {
	case err != nil:
		err = openFailure(err)
	case len(data) > maxPlaintext:
		err = errorf(alertRecordOverflow, "tlcp: decrypted record too large")
	}
	if err != nil {
		return 0, nil, c.in.setErrorLocked(c.fail(err))
	}
	return typ, data, nil
}

// checkRecordHeader checks the version and length of a record header
// (INTEROP.md §1.1, §1.3).
// Its failures are RecordHeaderErrors, which carry the transport when the
// first record of the connection is already wrong.
func (c *Conn) checkRecordHeader(hdr []byte, vers uint16, n int) error {
	first := !c.recordSeen
	headerError := func(a alert, msg string, err error) error {
		e := RecordHeaderError{Msg: msg, err: err}
		copy(e.RecordHeader[:], hdr)
		if first {
			e.Conn = c.conn
		}
		return &protocolError{alert: a, err: e}
	}
	if !c.recordVersionOK(vers) {
		if !c.isHandshakeComplete.Load() && looksLikeHTTP(hdr, c.isClient) {
			// Port mix-ups are common enough to name, as crypto/tls
			// and net/http do.
			if c.isClient {
				return headerError(alertProtocolVersion, "the server answered in HTTP to a TLCP client (wrong port?)", nil)
			}
			return headerError(alertProtocolVersion, strings.TrimPrefix(errClientSpeaksHTTP.Error(), "tlcp: "), errClientSpeaksHTTP)
		}
		return headerError(alertProtocolVersion, c.recordVersionMessage(vers), nil)
	}
	if limit := c.recordLimit(); n > limit {
		return headerError(alertRecordOverflow, fmt.Sprintf("received a record of %d bytes, over the limit of %d", n, limit), nil)
	}
	c.recordSeen = true
	return nil
}

func (c *Conn) readRecord() error { return c.readRecordOrCCS(false) }

func (c *Conn) readChangeCipherSpec() error { return c.readRecordOrCCS(true) }

// readRecordOrCCS reads records until one moves the connection forward:
// handshake bytes (to c.hand), application data (to c.input), or, only
// when expected, a ChangeCipherSpec, which switches the read side to the
// new keys. Records that carry nothing (empty application data, warning
// alerts) are skipped, up to maxUselessRecords in a row. c.in must be held.
func (c *Conn) readRecordOrCCS(expectChangeCipherSpec bool) error {
	if c.in.err != nil {
		return c.in.err
	}
	if c.input.Len() != 0 {
		return c.in.setErrorLocked(errors.New("tlcp: internal error: reading a record with pending application data"))
	}
	c.input.Reset(nil)
	for {
		typ, data, err := c.nextRecord()
		if err != nil {
			return err
		}
		progress, err := c.handleRecord(typ, data, expectChangeCipherSpec)
		if err != nil {
			return c.in.setErrorLocked(err)
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
	if typ == recordTypeSkipped {
		return false, nil // rejected TLS 1.3 early data
	}
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
			return false, c.handleChangeCipherSpecTLS13(data)
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
	return false, c.fail(errorf(alertUnexpectedMessage, "tlcp: unknown record type %d", typ))
}

// looksLikeHTTP reports whether the first five bytes of a connection are
// the start of an HTTP response (client) or request (server).
func looksLikeHTTP(hdr []byte, client bool) bool {
	if client {
		return string(hdr) == "HTTP/"
	}
	switch string(hdr) {
	case "GET /", "HEAD ", "POST ", "PUT /", "DELET", "OPTIO", "PATCH", "CONNE":
		return true
	}
	return false
}

func typeName(t recordType) string {
	switch t {
	case recordTypeAlert:
		return "alert"
	case recordTypeChangeCipherSpec:
		return "ChangeCipherSpec"
	case recordTypeApplicationData:
		return "application data"
	case recordTypeHandshake:
		return "handshake"
	}
	return fmt.Sprintf("type %d", t)
}

// writeRecordLocked sends data as records of type typ, at most 2^14 bytes
// each. c.out must be held.
func (c *Conn) writeRecordLocked(typ recordType, data []byte) (int, error) {
	if c.out.err != nil {
		return 0, c.out.err
	}
	if bp := c.batchSealer(data); bp != nil {
		return c.writeBatchedLocked(bp, typ, data)
	}
	if len(data) > maxPlaintext && c.out.protected() {
		// Several records, but a protection without a batch form (TLS
		// 1.3): sealed one by one into a pooled buffer that goes to the
		// transport in one Write per batchRecords records.
		return c.writeCoalescedLocked(typ, data)
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
		if err := c.sendRecord(typ, out); err != nil {
			return n, c.out.setErrorLocked(err)
		}
		n += m
		data = data[m:]
	}
	if typ == recordTypeChangeCipherSpec && c.vers != VersionTLS13 {
		if err := c.out.changeCipherSpec(); err != nil {
			return n, c.out.setErrorLocked(err)
		}
	}
	return n, nil
}

// appendRecordLocked appends to dst one record of type typ holding data (at
// most 2^14 bytes), protected if the write side is. c.out must be held.
func (c *Conn) appendRecordLocked(dst []byte, typ recordType, data []byte) ([]byte, error) {
	start := len(dst)
	vers := c.outRecordVersion()
	out := append(dst, c.outerRecordType(typ), byte(vers>>8), byte(vers), 0, 0)
	if c.out.protected() {
		var err error
		if out, err = c.out.seal(out, typ, data, c.config.rand()); err != nil {
			return dst, c.out.setErrorLocked(sealFailure(err))
		}
	} else {
		out = append(out, data...)
	}
	body := len(out) - start - recordHeaderLen
	out[start+3], out[start+4] = byte(body>>8), byte(body)
	return out, nil
}

// writeCoalescedLocked sends data as records of type typ, batchRecords of
// them per transport Write, from a pooled buffer. c.out must be held.
func (c *Conn) writeCoalescedLocked(typ recordType, data []byte) (int, error) {
	bufp := batchBufPool.Get().(*[]byte)
	defer batchBufPool.Put(bufp)
	buf := (*bufp)[:0]
	per := recordHeaderLen + maxPlaintext + c.out.overhead()
	sent := 0
	for len(data) > 0 {
		buf = buf[:0]
		k, m := 0, 0
		for k < batchRecords && len(data) > m && cap(buf)-len(buf) >= per {
			r := min(len(data)-m, maxPlaintext)
			var err error
			if buf, err = c.appendRecordLocked(buf, typ, data[m:m+r]); err != nil {
				if k > 0 {
					// The records sealed before the failure still go.
					if werr := c.sendRecord(typ, buf); werr != nil {
						return sent, c.out.setErrorLocked(werr)
					}
					sent += m
				}
				return sent, err
			}
			m += r
			k++
		}
		if err := c.sendRecord(typ, buf); err != nil {
			return sent, c.out.setErrorLocked(err)
		}
		sent += m
		data = data[m:]
	}
	return sent, nil
}

// writeHandshake sends one handshake message in its own record (INTEROP.md
// §1.7: GmSSL cannot parse coalesced messages) and adds it to transcript.
func (c *Conn) writeHandshake(msg handshakeMessage, transcript *transcriptHash) error {
	data, err := msg.marshal()
	if err != nil {
		return errorf(alertInternalError, "tlcp: %w", err)
	}
	if transcript != nil {
		transcript.Write(data)
	}
	c.out.Lock()
	defer c.out.Unlock()
	if _, err = c.writeRecordLocked(recordTypeHandshake, data); err == nil {
		c.noteHandshakeMsg(messageName(data[0]))
		c.traceMessage(true, recordTypeHandshake, data)
	}
	return err
}

func (c *Conn) writeChangeCipherSpec() error {
	c.out.Lock()
	defer c.out.Unlock()
	_, err := c.writeRecordLocked(recordTypeChangeCipherSpec, []byte{1})
	if err == nil {
		c.noteHandshakeMsg("ChangeCipherSpec")
		c.tmp[0] = 1 // c.out is held: c.tmp is free, and unlike a literal it does not escape
		c.traceMessage(true, recordTypeChangeCipherSpec, c.tmp[:1])
	}
	return err
}

// noteHandshakeMsg records progress for handshakeClosedError.
func (c *Conn) noteHandshakeMsg(name string) {
	if !c.isHandshakeComplete.Load() {
		c.lastHandshakeMsg = name
	}
}

// alertAfterBrokenWrite looks for the reason behind a handshake write that
// failed because the peer had closed or reset the connection. A peer that
// rejects our flight sends an alert and closes at once; if our next record
// is still on its way, the peer's kernel answers it with a reset and the
// write fails with "broken pipe", hiding the alert, which is then already
// in our receive buffer. If it is there, the alert is the better error.
// The connection is dead either way, so changing its read deadline harms
// nothing. c.in must be held.
func (c *Conn) alertAfterBrokenWrite(err error) error {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "write" ||
		!(errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) || c.in.err != nil {
		return err
	}
	c.conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	// Handshake records the peer sent before the alert may come first.
	for range 8 {
		rerr := c.readRecord()
		if rerr == nil {
			continue
		}
		if errors.As(rerr, &op) && op.Op == "remote error" {
			return rerr
		}
		break
	}
	return err
}

// handshakeClosedError explains an error that means the peer hung up in
// the middle of the handshake, which a bare io.EOF does not: who closed,
// and after which message. The result still wraps err, so errors.Is(err,
// io.EOF) and errors.As for *net.OpError keep working. Other errors are
// returned unchanged.
func (c *Conn) handshakeClosedError(err error) error {
	var what string
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		what = "closed the connection"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		what = "reset the connection"
	default:
		return err
	}
	peer := "client"
	if c.isClient {
		peer = "server"
	}
	when := "before ClientHello"
	if c.lastHandshakeMsg != "" {
		when = "after " + c.lastHandshakeMsg
	}
	return fmt.Errorf("tlcp: the %s %s during the handshake (%s): %w", peer, what, when, err)
}

// readHandshake returns the next whole handshake message, waiting for as
// many records as it spans, and adds it to transcript. A message longer
// than its type allows (maxMessageLen) is refused as soon as its header
// is in, before anything more of it is buffered.
func (c *Conn) readHandshake(transcript *transcriptHash) (handshakeMessage, error) {
	for c.hand.Len() < 4 {
		if err := c.readRecord(); err != nil {
			return nil, err
		}
	}
	hdr := c.hand.Bytes()
	typ, n := hdr[0], int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3])
	if limit := maxMessageLen(typ); n > limit {
		return nil, errorf(alertDecodeError, "tlcp: received a %s message of %d bytes, over the limit of %d for its type",
			messageName(typ), n, limit)
	}
	for c.hand.Len() < 4+n {
		if err := c.readRecord(); err != nil {
			return nil, err
		}
	}
	// The message is kept by what parses it; c.hand's buffer is reused.
	data := bytes.Clone(c.hand.Next(4 + n))
	c.noteHandshakeMsg(messageName(typ))
	c.traceMessage(false, recordTypeHandshake, data)
	msg, ok := c.parseHandshake(data)
	if !ok {
		if !c.knownMessageType(typ) {
			return nil, errorf(alertUnexpectedMessage, "tlcp: unknown handshake message type %d", typ)
		}
		return nil, errorf(alertDecodeError, "tlcp: malformed %s message", messageName(typ))
	}
	if transcript != nil {
		transcript.Write(data)
	}
	return msg, nil
}

func messageName(t uint8) string {
	switch t {
	case typeHelloRequest:
		return "HelloRequest"
	case typeClientHello:
		return "ClientHello"
	case typeServerHello:
		return "ServerHello"
	case typeCertificate:
		return "Certificate"
	case typeServerKeyExchange:
		return "ServerKeyExchange"
	case typeCertificateRequest:
		return "CertificateRequest"
	case typeServerHelloDone:
		return "ServerHelloDone"
	case typeCertificateVerify:
		return "CertificateVerify"
	case typeClientKeyExchange:
		return "ClientKeyExchange"
	case typeFinished:
		return "Finished"
	}
	if name := messageNameTLS13(t); name != "" {
		return name
	}
	return fmt.Sprintf("handshake message %d", t)
}

// unexpectedMessageError describes a message of the wrong type.
func unexpectedMessageError(want string, got handshakeMessage) error {
	return errorf(alertUnexpectedMessage, "tlcp: expected %s, received %s", want, nameOf(got))
}

// nameOf returns the protocol name of a message.
func nameOf(m handshakeMessage) string {
	if b, err := m.marshal(); err == nil && len(b) > 0 {
		return messageName(b[0])
	}
	return fmt.Sprintf("%T", m)
}

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

// Write writes application data, after completing the handshake if needed.
func (c *Conn) Write(b []byte) (int, error) {
	if !c.writers.enter() {
		return 0, net.ErrClosed
	}
	defer c.writers.leave()

	if err := c.Handshake(); err != nil {
		return 0, err
	}
	c.out.Lock()
	defer c.out.Unlock()
	if err := c.out.err; err != nil {
		return 0, err
	}
	if c.closeNotifySent {
		return 0, errShutdown
	}
	if err := c.sendPendingTicketLocked(); err != nil {
		return 0, err
	}
	n, err := c.writeRecordLocked(recordTypeApplicationData, b)
	if err == nil {
		err = c.maybeUpdateWriteKeyLocked()
	}
	return n, err
}

var (
	errShutdown        = errors.New("tlcp: protocol is shutdown")
	errEarlyCloseWrite = errors.New("tlcp: CloseWrite called before handshake complete")
)

// Read reads application data, after completing the handshake if needed.
// It returns io.EOF after the peer's close_notify, and an error wrapping
// io.ErrUnexpectedEOF if the transport ends without one.
func (c *Conn) Read(b []byte) (int, error) {
	// An empty Read still runs the handshake, which some callers rely on.
	if err := c.Handshake(); err != nil || len(b) == 0 {
		return 0, err
	}
	c.in.Lock()
	defer c.in.Unlock()
	for c.input.Len() == 0 {
		// Application data may be opened straight into b.
		c.rb.dst = b
		err := c.readRecord()
		c.rb.dst = nil
		if err != nil {
			return 0, err
		}
		if n, ok := c.takeDirect(); ok {
			c.releaseInput()
			return n, nil
		}
		for c.hand.Len() > 0 {
			if err := c.handlePostHandshakeMessage(); err != nil {
				return 0, err
			}
		}
	}
	n, _ := c.input.Read(b)
	c.releaseInput()
	return n, nil
}

// releaseInput lets go of the batch buffer (see inputBuffer.release) once
// no plaintext delivered from it is left to read. The caller holds c.in.
func (c *Conn) releaseInput() {
	if c.input.Len() == 0 && c.rb.n == 0 {
		c.input.Reset(nil) // it may still point into the buffer
		c.rawInput.release()
	}
}

// writeGate is the handshake between Write and Close: the low bit of state
// says the connection is shut, the rest counts the Writes in progress
// (two per Write, so the counting never touches the low bit).
type writeGate struct{ state atomic.Int32 }

// enter registers a Write, or reports false if Close came first.
func (g *writeGate) enter() bool {
	for {
		s := g.state.Load()
		if s&1 == 1 {
			return false
		}
		if g.state.CompareAndSwap(s, s+2) {
			return true
		}
	}
}

func (g *writeGate) leave() { g.state.Add(-2) }

// shut marks the connection closed. ok is false if it already was; busy
// says whether Writes were in progress.
func (g *writeGate) shut() (busy, ok bool) {
	for {
		s := g.state.Load()
		if s&1 == 1 {
			return false, false
		}
		if g.state.CompareAndSwap(s, s|1) {
			return s != 0, true
		}
	}
}

// Close sends close_notify (if the handshake finished) and closes the
// connection.
func (c *Conn) Close() error {
	busy, ok := c.writers.shut()
	if !ok {
		return net.ErrClosed
	}
	if busy {
		// A Write is under way: a deadline in the past makes it give up
		// at once, so that close_notify is not stuck behind it.
		c.SetWriteDeadline(time.Now())
	}
	var alertErr error
	if c.isHandshakeComplete.Load() {
		if err := c.closeNotify(); err != nil {
			alertErr = fmt.Errorf("tlcp: failed to send close_notify (the connection was closed anyway): %w", err)
		}
	}
	if err := c.conn.Close(); err != nil {
		return err
	}
	return alertErr
}

// CloseWrite sends close_notify; the peer's Read then returns io.EOF. The
// connection may still be read from.
func (c *Conn) CloseWrite() error {
	if !c.isHandshakeComplete.Load() {
		return errEarlyCloseWrite
	}
	return c.closeNotify()
}

func (c *Conn) closeNotify() error {
	c.out.Lock()
	defer c.out.Unlock()
	if !c.closeNotifySent {
		// Bound the time a stuck peer can hold Close.
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		c.closeNotifyErr = c.sendAlertLocked(alertCloseNotify)
		c.closeNotifySent = true
		c.SetWriteDeadline(time.Now())
	}
	return c.closeNotifyErr
}

// Handshake runs the handshake if it has not run yet. Most uses need not
// call it: the first Read or Write does. Concurrent calls run one
// handshake, and its error is returned by every later call, Read and Write.
//
// If the peer hangs up mid-handshake, the error says which side did and
// after which message ("tlcp: the server closed the connection during the
// handshake (after ClientHello): EOF") and wraps the underlying error, so
// errors.Is(err, io.EOF) still holds. If a write fails because the peer
// rejected our flight, sent an alert and closed, the error is that alert
// rather than "broken pipe".
func (c *Conn) Handshake() error { return c.HandshakeContext(context.Background()) }

// HandshakeContext is Handshake with a context: if ctx ends first, the
// connection is closed and the handshake fails with ctx's error.
func (c *Conn) HandshakeContext(ctx context.Context) error {
	return c.handshakeContext(ctx)
}

func (c *Conn) handshakeContext(ctx context.Context) (ret error) {
	if c.isHandshakeComplete.Load() {
		return nil
	}
	if ctx.Done() != nil {
		done := make(chan struct{})
		interrupted := make(chan error, 1)
		defer func() {
			close(done)
			if err := <-interrupted; err != nil {
				ret = err
			}
		}()
		go func() {
			select {
			case <-ctx.Done():
				c.conn.Close()
				interrupted <- ctx.Err()
			case <-done:
				interrupted <- nil
			}
		}()
	}

	c.handshakeMutex.Lock()
	defer c.handshakeMutex.Unlock()
	if err := c.handshakeErr; err != nil {
		return err
	}
	if c.isHandshakeComplete.Load() {
		return nil
	}
	c.in.Lock()
	defer c.in.Unlock()
	err := c.handshakeFn(ctx)
	if err != nil {
		err = c.handshakeClosedError(c.alertAfterBrokenWrite(err))
		if c.isClient {
			err = c.explainPeerQuirk(err)
		}
		// A client that fails before its ClientHello is out (no
		// ServerName, no suites to offer) has a problem of its own that
		// the server need not hear of: as with crypto/tls, it sends no
		// alert, and the server sees the connection close.
		if !c.isClient || c.lastHandshakeMsg != "" {
			c.fail(err)
		}
		c.invalidateSession()
	} else if !c.isHandshakeComplete.Load() {
		err = errors.New("tlcp: internal error: handshake should have finished")
	}
	c.handshakeErr = err
	return err
}

// ConnectionState returns details of the connection.
func (c *Conn) ConnectionState() ConnectionState {
	c.handshakeMutex.Lock()
	defer c.handshakeMutex.Unlock()
	return c.connectionStateLocked()
}

// verifyConnection calls Config.VerifyConnection, if set, with the state so
// far. It is a function of its own so that the ConnectionState it builds
// is not in the frames of the handshake functions, which lie under the key
// block's PRF (see ciphersuite.Master.NewRecordProtections).
func (c *Conn) verifyConnection() error {
	if c.config.VerifyConnection == nil {
		return nil
	}
	if err := c.config.VerifyConnection(c.connectionStateLocked()); err != nil {
		return errorf(alertBadCertificate, "tlcp: VerifyConnection: %w", err)
	}
	return nil
}

func (c *Conn) connectionStateLocked() ConnectionState {
	var s ConnectionState
	s.HandshakeComplete = c.isHandshakeComplete.Load()
	s.Version = c.vers
	s.DidResume = c.didResume
	s.CipherSuite = c.cipherSuite
	s.NegotiatedProtocol = c.clientProtocol
	s.ServerName = c.serverName
	s.PeerCertificates = c.peerCertificates
	s.PeerSignCertificate = c.peerSignCert
	s.PeerEncCertificate = c.peerEncCert
	s.VerifiedChains = c.verifiedChains
	return s
}

// VerifyHostname checks that the peer's signing certificate is valid for
// host. It is for clients that set InsecureSkipVerify and check names
// themselves.
func (c *Conn) VerifyHostname(host string) error {
	c.handshakeMutex.Lock()
	defer c.handshakeMutex.Unlock()
	if !c.isClient {
		return errors.New("tlcp: VerifyHostname called on a server connection")
	}
	if !c.isHandshakeComplete.Load() {
		return errors.New("tlcp: handshake has not yet been performed")
	}
	if c.peerSignCert == nil {
		return errors.New("tlcp: no peer certificate")
	}
	return c.peerSignCert.VerifyHostname(host)
}
