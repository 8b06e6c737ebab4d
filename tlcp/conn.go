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
	clientSessionKey string // client: key in ClientSessionCache
	serverSessionID  []byte // server: ID in the session cache

	in, out halfConn

	rawInput bytes.Buffer // raw bytes from conn, not yet processed
	input    bytes.Reader // application data ready to be read
	hand     bytes.Buffer // handshake bytes not yet parsed
	outBuf   []byte       // reused for every record sent

	closeNotifySent bool
	closeNotifyErr  error

	// activeCall counts Write calls in bit 1 and up; bit 0 is set by Close.
	activeCall atomic.Int32

	// lastHandshakeMsg names the last handshake message (or
	// ChangeCipherSpec) sent or received during the handshake, to say
	// where it stopped if the peer hangs up. Only the handshake goroutine
	// touches it.
	lastHandshakeMsg string

	// retryCount counts records that carried nothing (empty application
	// data, warnings); too many in a row is an attack.
	retryCount int

	tmp [2]byte
	// alr is reused by readFromUntil so that reading a record does not
	// allocate.
	alr atLeastReader
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
// peer are not.
func isLocalFailure(err error) bool {
	var ne net.Error
	return !(errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed))
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
		if cache := c.config.sessionCache(); cache != nil {
			cache.remove(c.serverSessionID)
		}
		c.serverSessionID = nil
	}
}

// atLeastReader reads from R, stopping with EOF after N bytes.
type atLeastReader struct {
	R io.Reader
	N int64
}

func (r *atLeastReader) Read(p []byte) (int, error) {
	if r.N <= 0 {
		return 0, io.EOF
	}
	n, err := r.R.Read(p)
	r.N -= int64(n)
	if r.N > 0 && err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	if r.N <= 0 && err == nil {
		return n, io.EOF
	}
	return n, err
}

// readFromUntil reads from r into c.rawInput until it holds at least n bytes.
func (c *Conn) readFromUntil(r io.Reader, n int) error {
	if c.rawInput.Len() >= n {
		return nil
	}
	needs := n - c.rawInput.Len()
	c.rawInput.Grow(needs + bytes.MinRead)
	c.alr = atLeastReader{r, int64(needs)}
	_, err := c.rawInput.ReadFrom(&c.alr)
	c.alr.R = nil
	return err
}

// errTruncated reports that the peer closed the transport mid-stream
// without close_notify: the data may have been cut short by an attacker.
var errTruncated = fmt.Errorf("tlcp: connection closed without close_notify: %w", io.ErrUnexpectedEOF)

func (c *Conn) readRecord() error { return c.readRecordOrCCS(false) }

func (c *Conn) readChangeCipherSpec() error { return c.readRecordOrCCS(true) }

// readRecordOrCCS reads one record. Handshake data goes to c.hand,
// application data to c.input; a ChangeCipherSpec (only when expected)
// switches the read side to the new keys. c.in must be held.
func (c *Conn) readRecordOrCCS(expectChangeCipherSpec bool) error {
	if c.in.err != nil {
		return c.in.err
	}
	handshakeComplete := c.isHandshakeComplete.Load()
	if c.input.Len() != 0 {
		return c.in.setErrorLocked(errors.New("tlcp: internal error: reading a record with pending application data"))
	}
	c.input.Reset(nil)

	if err := c.readFromUntil(c.conn, recordHeaderLen); err != nil {
		if err == io.ErrUnexpectedEOF && c.rawInput.Len() == 0 {
			err = errTruncated
			if !handshakeComplete {
				err = io.EOF
			}
		}
		if e, ok := err.(net.Error); !ok || !e.Timeout() {
			c.in.setErrorLocked(err)
		}
		return err
	}
	hdr := c.rawInput.Bytes()[:recordHeaderLen]
	typ := recordType(hdr[0])
	vers := uint16(hdr[1])<<8 | uint16(hdr[2])
	n := int(hdr[3])<<8 | int(hdr[4])
	if vers != VersionTLCP {
		if !handshakeComplete && looksLikeHTTP(hdr, c.isClient) {
			// Port mix-ups are common enough to name, as crypto/tls
			// and net/http do.
			peer, what := "client sent an HTTP request", "server"
			if c.isClient {
				peer, what = "server answered in HTTP", "client"
			}
			return c.in.setErrorLocked(c.fail(errorf(alertProtocolVersion,
				"tlcp: the %s to a TLCP %s (wrong port?)", peer, what)))
		}
		return c.in.setErrorLocked(c.fail(errorf(alertProtocolVersion,
			"tlcp: received a record with version 0x%04x, want 0x0101 (is the peer speaking TLS?)", vers)))
	}
	if n > maxCiphertext || (c.in.rp == nil && n > maxPlaintext) {
		return c.in.setErrorLocked(c.fail(errorf(alertRecordOverflow,
			"tlcp: received a record of %d bytes, over the limit", n)))
	}
	if err := c.readFromUntil(c.conn, recordHeaderLen+n); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = errTruncated
		}
		if e, ok := err.(net.Error); !ok || !e.Timeout() {
			c.in.setErrorLocked(err)
		}
		return err
	}

	record := c.rawInput.Next(recordHeaderLen + n)
	data := record[recordHeaderLen:]
	if c.in.rp != nil {
		var err error
		data, err = c.in.rp.Open(uint8(typ), data)
		if err != nil {
			if errors.Is(err, ciphersuite.ErrSequenceOverflow) {
				return c.in.setErrorLocked(c.fail(errorf(alertFor(err),
					"tlcp: the peer has sent all 2^64-1 records a connection allows: %w", err)))
			}
			return c.in.setErrorLocked(c.fail(errorf(alertFor(err), "tlcp: received record: %w", err)))
		}
	}
	if len(data) > maxPlaintext {
		return c.in.setErrorLocked(c.fail(errorf(alertRecordOverflow, "tlcp: decrypted record too large")))
	}
	// A handshake message split over records must not have other records
	// inside it (INTEROP.md §1.7).
	if typ != recordTypeHandshake && c.hand.Len() > 0 {
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage,
			"tlcp: %s record inside a fragmented handshake message", typeName(typ))))
	}

	switch typ {
	default:
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: unknown record type %d", typ)))

	case recordTypeAlert:
		if len(data) != 2 {
			return c.in.setErrorLocked(c.fail(errorf(alertDecodeError, "tlcp: malformed alert record")))
		}
		if alert(data[1]) == alertCloseNotify {
			return c.in.setErrorLocked(io.EOF)
		}
		if data[0] == alertLevelWarning {
			// Warnings (no_renegotiation, user_canceled) are noted and
			// skipped, within the limit.
			return c.retryReadRecord(expectChangeCipherSpec)
		}
		c.invalidateSession()
		return c.in.setErrorLocked(&net.OpError{Op: "remote error", Err: AlertError(data[1])})

	case recordTypeChangeCipherSpec:
		if len(data) != 1 || data[0] != 1 {
			return c.in.setErrorLocked(c.fail(errorf(alertDecodeError, "tlcp: malformed ChangeCipherSpec")))
		}
		if !expectChangeCipherSpec {
			return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: unexpected ChangeCipherSpec")))
		}
		if err := c.in.changeCipherSpec(); err != nil {
			return c.in.setErrorLocked(c.fail(err))
		}
		c.noteHandshakeMsg("ChangeCipherSpec")

	case recordTypeApplicationData:
		if !handshakeComplete || expectChangeCipherSpec {
			return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: application data before the handshake finished")))
		}
		if len(data) == 0 {
			return c.retryReadRecord(expectChangeCipherSpec)
		}
		c.input.Reset(data)

	case recordTypeHandshake:
		if len(data) == 0 {
			return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: empty handshake record")))
		}
		if expectChangeCipherSpec {
			return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: handshake message where ChangeCipherSpec was expected")))
		}
		c.hand.Write(data)
	}
	c.retryCount = 0
	return nil
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

// retryReadRecord reads the next record after one that carried nothing.
func (c *Conn) retryReadRecord(expectChangeCipherSpec bool) error {
	c.retryCount++
	if c.retryCount > maxUselessRecords {
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: too many empty records or warnings")))
	}
	return c.readRecordOrCCS(expectChangeCipherSpec)
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
	var n int
	for len(data) > 0 {
		m := min(len(data), maxPlaintext)
		need := recordHeaderLen + m
		if c.out.rp != nil {
			need += c.out.rp.Overhead()
		}
		if cap(c.outBuf) < need {
			// Grow to what this record needs: handshakes send small
			// records, and bulk writers reach full size after one.
			c.outBuf = make([]byte, 0, need)
		}
		out := append(c.outBuf[:0], byte(typ), byte(VersionTLCP>>8), byte(VersionTLCP&0xff), 0, 0)
		if c.out.rp != nil {
			var err error
			out, err = c.out.rp.Seal(out, uint8(typ), data[:m], c.config.rand())
			if err != nil {
				if errors.Is(err, ciphersuite.ErrSequenceOverflow) {
					// Nothing more can be sent, not even an alert (it
					// too needs a sequence number); the error is
					// sticky, and Close closes the transport.
					err = fmt.Errorf("tlcp: this side has sent all 2^64-1 records a connection allows; close it and reconnect: %w", err)
				}
				return n, c.out.setErrorLocked(err)
			}
		} else {
			out = append(out, data[:m]...)
		}
		body := len(out) - recordHeaderLen
		out[3], out[4] = byte(body>>8), byte(body)
		c.outBuf = out
		if _, err := c.conn.Write(out); err != nil {
			return n, c.out.setErrorLocked(err)
		}
		n += m
		data = data[m:]
	}
	if typ == recordTypeChangeCipherSpec {
		if err := c.out.changeCipherSpec(); err != nil {
			return n, c.out.setErrorLocked(err)
		}
	}
	return n, nil
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
	}
	return err
}

func (c *Conn) writeChangeCipherSpec() error {
	c.out.Lock()
	defer c.out.Unlock()
	_, err := c.writeRecordLocked(recordTypeChangeCipherSpec, []byte{1})
	if err == nil {
		c.noteHandshakeMsg("ChangeCipherSpec")
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

// readHandshake reads the next complete handshake message, reassembling it
// from as many records as needed, and adds it to transcript.
func (c *Conn) readHandshake(transcript *transcriptHash) (handshakeMessage, error) {
	for c.hand.Len() < 4 {
		if err := c.readRecord(); err != nil {
			return nil, err
		}
	}
	hdr := c.hand.Bytes()
	n := int(hdr[1])<<16 | int(hdr[2])<<8 | int(hdr[3])
	if n > maxHandshake {
		return nil, errorf(alertDecodeError, "tlcp: handshake message of %d bytes is over the limit of %d", n, maxHandshake)
	}
	for c.hand.Len() < 4+n {
		if err := c.readRecord(); err != nil {
			return nil, err
		}
	}
	data := bytes.Clone(c.hand.Next(4 + n))
	c.noteHandshakeMsg(messageName(data[0]))
	msg, ok := parseHandshakeMessage(data)
	if !ok {
		if newHandshakeMessage(data[0]) == nil {
			return nil, errorf(alertUnexpectedMessage, "tlcp: unknown handshake message type %d", data[0])
		}
		return nil, errorf(alertDecodeError, "tlcp: malformed %s message", messageName(data[0]))
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

// handlePostHandshakeMessage processes a handshake message after the
// handshake. TLCP has no secure renegotiation, so a HelloRequest (client)
// or ClientHello (server) is declined with a no_renegotiation warning and
// anything else is fatal (INTEROP.md §6.2).
func (c *Conn) handlePostHandshakeMessage() error {
	msg, err := c.readHandshake(nil)
	if err != nil {
		return c.in.setErrorLocked(c.fail(err))
	}
	switch msg.(type) {
	case *helloRequestMsg:
		if !c.isClient {
			break
		}
		return c.declineRenegotiation()
	case *clientHelloMsg:
		if c.isClient {
			break
		}
		return c.declineRenegotiation()
	}
	return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: unexpected %s after the handshake", nameOf(msg))))
}

func (c *Conn) declineRenegotiation() error {
	c.retryCount++
	if c.retryCount > maxUselessRecords {
		return c.in.setErrorLocked(c.fail(errorf(alertUnexpectedMessage, "tlcp: too many renegotiation attempts")))
	}
	return c.sendAlert(alertNoRenegotiation)
}

// Write writes application data, after completing the handshake if needed.
func (c *Conn) Write(b []byte) (int, error) {
	// Interlock with Close, as crypto/tls does: a Close during a Write
	// makes the Write fail rather than race.
	for {
		x := c.activeCall.Load()
		if x&1 != 0 {
			return 0, net.ErrClosed
		}
		if c.activeCall.CompareAndSwap(x, x+2) {
			break
		}
	}
	defer c.activeCall.Add(-2)

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
	return c.writeRecordLocked(recordTypeApplicationData, b)
}

var (
	errShutdown        = errors.New("tlcp: protocol is shutdown")
	errEarlyCloseWrite = errors.New("tlcp: CloseWrite called before handshake complete")
)

// Read reads application data, after completing the handshake if needed.
// It returns io.EOF after the peer's close_notify, and an error wrapping
// io.ErrUnexpectedEOF if the transport ends without one.
func (c *Conn) Read(b []byte) (int, error) {
	if err := c.Handshake(); err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	c.in.Lock()
	defer c.in.Unlock()
	for c.input.Len() == 0 {
		if err := c.readRecord(); err != nil {
			return 0, err
		}
		for c.hand.Len() > 0 {
			if err := c.handlePostHandshakeMessage(); err != nil {
				return 0, err
			}
		}
	}
	n, _ := c.input.Read(b)
	return n, nil
}

// Close sends close_notify (if the handshake finished) and closes the
// connection.
func (c *Conn) Close() error {
	var x int32
	for {
		x = c.activeCall.Load()
		if x&1 != 0 {
			return net.ErrClosed
		}
		if c.activeCall.CompareAndSwap(x, x|1) {
			break
		}
	}
	if x != 0 {
		// A Write is in progress; make it return promptly instead of
		// blocking close_notify behind it forever.
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
