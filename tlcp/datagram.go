// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp/internal/dgram"
)

// DTLCP (GM/T 0128-2023): the TLCP handshake over datagrams, with the
// mechanics of DTLS 1.2 (RFC 6347). The handshake is TLCP's, step for
// step (handshake_client.go, handshake_server.go); what differs is the
// transport under its messages, which this file supplies when c.dg is
// set, at the four places where the handshake meets the record layer:
//
//   - writeHandshake: a message gets the 12-byte DTLCP header (its
//     message_seq), goes into the transcript in that form (RFC 6347
//     §4.2.6), is cut into fragments that fit the MTU, and joins the
//     flight being built;
//   - readHandshake: records come a datagram at a time, each record's
//     explicit epoch and sequence number checked against the replay
//     window and set into the protection before it is opened; fragments
//     are put together by dgram.Reassembler, in message_seq order;
//   - ChangeCipherSpec moves the epoch from 0 to 1 in each direction;
//   - flights: what a side writes between two reads is a flight, sent
//     when it starts to read and kept to be sent again when the
//     retransmission timer expires (1 s, doubling, capped) or the peer
//     retransmits its own previous flight (RFC 6347 §4.2.4).
//
// The ClientHello carries a cookie the TLCP one does not: it is inserted
// and removed here (dgram.InsertCookie, SplitCookie), so that the one
// ClientHello builder and parser serve both. The HelloVerifyRequest
// exchange happens here too, below the handshake: the client's
// handshake sees its ClientHello answered by a ServerHello, and the
// server's sees a ClientHello with a valid cookie.

func init() {
	dgram.NewConn = func(conn net.Conn, config any, isClient bool, opts dgram.Options) any {
		cfg, _ := config.(*Config)
		return newDatagramConn(conn, cfg, isClient, opts)
	}
}

// dgConn is the datagram state of a DTLCP connection.
type dgConn struct {
	mtu                  int
	retransmit, maxRetx  time.Duration
	handshakeTimeout     time.Duration
	cookies              *dgram.CookieJar
	awaitingHello        bool // server: no ClientHello with a valid cookie yet
	helloVerifyRequests  int  // client: how many the server sent
	finishedSeqTolerated bool // a Finished came with a message_seq below the expected one

	// Read side, under c.in.
	pkt       []byte // the datagram being read
	rest      []byte // its records not yet processed
	rEpoch    uint16
	window    dgram.ReplayWindow // epoch 1's (see dgHandleRecord)
	reasm     dgram.Reassembler
	epoch1Fin bool     // the peer's Finished (the one epoch-1 message) was taken
	future    [][]byte // epoch-1 records that came before the ChangeCipherSpec
	invalid   int      // records dropped as invalid
	recSeq    uint64   // sequence number of the record being processed

	// Write side, under c.out.
	wEpoch     uint16
	wSeq       [2]uint64
	sendSeq    uint16
	flight     []dgRecord
	flightData []byte // the flight's plaintexts, end to end
	flightSent bool
	timeout    time.Duration
	lastSend   time.Time
	deadline   time.Time // of the handshake, once started
	out        []byte    // datagram being packed
	rec        []byte    // record scratch
	frag       []byte    // handshake fragment scratch

	// Client: the ClientHello in its TLCP form and the transcript it
	// goes into once the server has answered with a ServerHello; which
	// cookie it carries is known only then.
	hello           []byte
	helloSeq        uint16
	helloCookie     []byte
	helloTranscript *transcriptHash
}

// dgRecord is one record of a flight, kept in the clear: a retransmitted
// record is sealed again, under a fresh sequence number.
type dgRecord struct {
	epoch      uint16
	typ        recordType
	start, end int // of its plaintext in dgConn.flightData
}

// Limits.
const (
	// dgMaxInvalid bounds the records dropped as invalid (failed
	// authentication, malformed headers) over a connection's life: a
	// few are noise, many an attack (RFC 6347 §4.1.2.7).
	dgMaxInvalid = 1024
	// dgMaxFuture bounds the epoch-1 records kept while the
	// ChangeCipherSpec before them is missing.
	dgMaxFuture = 8
	// dgMaxHelloVerifyRequests bounds the cookies a client accepts.
	dgMaxHelloVerifyRequests = 4
)

func newDatagramConn(conn net.Conn, config *Config, isClient bool, opts dgram.Options) *Conn {
	c := newConn(conn, config, isClient)
	d := &dgConn{
		mtu:              opts.MTU,
		retransmit:       opts.RetransmitTimeout,
		maxRetx:          opts.MaxRetransmitTimeout,
		handshakeTimeout: opts.HandshakeTimeout,
		cookies:          opts.Cookies,
		awaitingHello:    !isClient,
	}
	if d.mtu == 0 {
		d.mtu = dgram.DefaultMTU
	}
	d.mtu = max(d.mtu, dgram.MinMTU)
	if d.retransmit <= 0 {
		d.retransmit = dgram.DefaultRetransmitTimeout
	}
	if d.maxRetx <= 0 {
		d.maxRetx = dgram.DefaultMaxRetransmitTimeout
	}
	d.maxRetx = max(d.maxRetx, d.retransmit)
	if d.handshakeTimeout <= 0 {
		d.handshakeTimeout = dgram.DefaultHandshakeTimeout
	}
	if d.cookies == nil && !isClient {
		d.cookies = new(dgram.CookieJar)
	}
	d.timeout = d.retransmit
	d.reasm.MaxLen = func(typ uint8) int { return maxMessageLen(typ) }
	d.pkt = make([]byte, dgram.MaxDatagram)
	c.dg = d
	c.vers = 0
	return c
}

// datagramFinishedSeqTolerated reports, for tests, whether the peer sent
// its Finished with a message_seq below the expected one (gotlcp v1.5.0's
// client sends 0), which this side accepted (INTEROP.md §11.7).
func (c *Conn) datagramFinishedSeqTolerated() bool {
	return c.dg != nil && c.dg.finishedSeqTolerated
}

// dgMaxPayload is the largest plaintext one record of this side's may
// carry now: the MTU less the record header and the protection's
// overhead, at most 2^14.
func (c *Conn) dgMaxPayload() int {
	return min(c.dg.mtu-dgram.RecordHeaderLen-c.out.overhead(), maxPlaintext)
}

// dgWriteRecordLocked is writeRecordLocked for DTLCP: data goes in one
// record. During the handshake records join the flight, alerts excepted;
// after it each is sealed and sent in a datagram of its own. c.out is held.
func (c *Conn) dgWriteRecordLocked(typ recordType, data []byte) (int, error) {
	d := c.dg
	if c.out.err != nil {
		return 0, c.out.err
	}
	if limit := c.dgMaxPayload(); len(data) > limit {
		return 0, fmt.Errorf("dtlcp: a Write of %d bytes does not fit in one record: at most %d bytes go in one datagram of %d bytes (Options.MTU) under this cipher suite", len(data), limit, d.mtu)
	}
	if !c.isHandshakeComplete.Load() && typ != recordTypeAlert {
		if d.flightSent {
			// The peer has answered the flight sent before: this
			// record starts the next one.
			d.flight, d.flightData, d.flightSent = d.flight[:0], d.flightData[:0], false
			d.timeout = d.retransmit
		}
		start := len(d.flightData)
		d.flightData = append(d.flightData, data...)
		d.flight = append(d.flight, dgRecord{epoch: d.wEpoch, typ: typ, start: start, end: len(d.flightData)})
		if typ == recordTypeChangeCipherSpec {
			d.wEpoch = 1 // writeChangeCipherSpec installs the keys next
		}
		return len(data), nil
	}
	out, err := c.dgAppendRecordLocked(d.out[:0], d.wEpoch, typ, data)
	if err != nil {
		return 0, err
	}
	d.out = out
	if _, err := c.conn.Write(out); err != nil {
		return 0, c.out.setErrorLocked(err)
	}
	return len(data), nil
}

// dgAppendRecordLocked appends one record of epoch epoch to dst, sealed
// under its next sequence number if the epoch is protected.
func (c *Conn) dgAppendRecordLocked(dst []byte, epoch uint16, typ recordType, data []byte) ([]byte, error) {
	d := c.dg
	seq := d.wSeq[epoch]
	if seq > dgram.MaxSequence {
		return dst, c.out.setErrorLocked(errors.New("dtlcp: this side has sent all 2^48 records an epoch allows; close the connection and reconnect"))
	}
	d.wSeq[epoch]++
	start := len(dst)
	var hdr [dgram.RecordHeaderLen]byte // written below, once the length is known
	out := append(dst, hdr[:]...)
	if epoch == 0 {
		out = append(out, data...)
	} else {
		rp := c.out.rp
		es, ok := rp.(ciphersuite.ExplicitSequence)
		if !ok {
			return dst, c.out.setErrorLocked(errors.New("dtlcp: internal error: the record protection cannot take explicit sequence numbers"))
		}
		es.SetSequence(uint64(epoch)<<48 | seq)
		var err error
		if out, err = rp.Seal(out, uint8(typ), data, c.config.rand()); err != nil {
			return dst, c.out.setErrorLocked(sealFailure(err))
		}
	}
	dgram.PutRecordHeader(out[start:], uint8(typ), epoch, seq, len(out)-start-dgram.RecordHeaderLen)
	return out, nil
}

// dgSendFlightLocked sends the flight, its records packed into datagrams
// of at most the MTU. A retransmission seals each record anew. c.out is
// held.
func (c *Conn) dgSendFlightLocked() error {
	d := c.dg
	if len(d.flight) == 0 {
		return nil
	}
	buf := d.out[:0]
	for _, r := range d.flight {
		mark := len(buf)
		var err error
		if buf, err = c.dgAppendRecordLocked(buf, r.epoch, r.typ, d.flightData[r.start:r.end]); err != nil {
			return err
		}
		// A ChangeCipherSpec starts a datagram: gotlcp v1.5.0's client
		// refuses any record but a handshake one behind the
		// ServerHello of a resumed handshake in the same datagram
		// (INTEROP.md §11.7).
		if (len(buf) > d.mtu || r.typ == recordTypeChangeCipherSpec) && mark > 0 {
			// This record does not fit behind the others: send them
			// and start the next datagram with it.
			rec := append(d.rec[:0], buf[mark:]...)
			if _, err := c.conn.Write(buf[:mark]); err != nil {
				return c.out.setErrorLocked(err)
			}
			buf = append(buf[:0], rec...)
			d.rec = rec
		}
	}
	if _, err := c.conn.Write(buf); err != nil {
		return c.out.setErrorLocked(err)
	}
	d.out = buf
	d.flightSent = true
	d.lastSend = time.Now()
	return nil
}

// dgFlushFlight sends the flight built since the last read, the first
// time only. c.in is held.
func (c *Conn) dgFlushFlight() error {
	c.out.Lock()
	defer c.out.Unlock()
	if c.dg.flightSent {
		return nil
	}
	return c.dgSendFlightLocked()
}

// dgRetransmit sends the last flight again, at most once per quarter of
// the initial timer when the peer's retransmissions prompt it (a
// retransmitted flight comes as several records). c.in is held.
func (c *Conn) dgRetransmit(prompted bool) error {
	c.out.Lock()
	defer c.out.Unlock()
	d := c.dg
	if !d.flightSent || len(d.flight) == 0 {
		return nil
	}
	if prompted && time.Since(d.lastSend) < d.retransmit/4 {
		return nil
	}
	return c.dgSendFlightLocked()
}

// dgWriteHandshake is writeHandshake for DTLCP.
func (c *Conn) dgWriteHandshake(msg handshakeMessage, transcript *transcriptHash) error {
	data, err := msg.marshal()
	if err != nil {
		return errorf(alertInternalError, "tlcp: %w", err)
	}
	d := c.dg
	typ, body := data[0], data[4:]
	if typ == typeClientHello && c.isClient {
		// Hashed once the server's answer says which ClientHello
		// counts (RFC 6347 §4.2.6: not one a HelloVerifyRequest
		// answered).
		d.hello, d.helloTranscript = body, transcript
		transcript = nil
		if body, err = d.helloBody(nil); err != nil {
			return err
		}
		d.helloSeq = d.sendSeq
	}
	c.out.Lock()
	defer c.out.Unlock()
	if err := c.dgQueueMessageLocked(typ, body, transcript); err != nil {
		return err
	}
	c.noteHandshakeMsg(messageName(typ))
	c.traceMessage(true, recordTypeHandshake, data)
	return nil
}

// helloBody returns the client's ClientHello body with cookie in place.
func (d *dgConn) helloBody(cookie []byte) ([]byte, error) {
	b, ok := dgram.InsertCookie(d.hello, cookie)
	if !ok {
		return nil, errorf(alertInternalError, "tlcp: internal error: malformed ClientHello")
	}
	return b, nil
}

// dgQueueMessageLocked gives a message the next message_seq, hashes it
// whole, and adds its fragments to the flight. c.out is held.
func (c *Conn) dgQueueMessageLocked(typ uint8, body []byte, transcript *transcriptHash) error {
	d := c.dg
	seq := d.sendSeq
	d.sendSeq++
	if transcript != nil {
		writeWhole(transcript, typ, seq, body)
	}
	room := c.dgMaxPayload() - dgram.HandshakeHeaderLen
	// The flight keeps a copy of each fragment: one scratch buffer serves.
	frag := d.frag[:0]
	defer func() { d.frag = frag[:0] }()
	for off := 0; ; {
		n := min(room, len(body)-off)
		var hdr [dgram.HandshakeHeaderLen]byte
		frag = append(frag[:0], hdr[:]...)
		dgram.PutHandshakeHeader(frag, dgram.HandshakeHeader{Type: typ, Length: len(body), Seq: seq, Offset: off, FragLen: n})
		frag = append(frag, body[off:off+n]...)
		if _, err := c.dgWriteRecordLocked(recordTypeHandshake, frag); err != nil {
			return err
		}
		if off += n; off >= len(body) {
			return nil
		}
	}
}

// dgReadHandshake is readHandshake for DTLCP: it returns the next whole
// message and adds it, in its DTLCP form, to transcript.
func (c *Conn) dgReadHandshake(transcript *transcriptHash) (handshakeMessage, error) {
	d := c.dg
	for {
		for !d.reasm.Complete() {
			if err := c.dgReadRecord(false); err != nil {
				return nil, err
			}
		}
		typ, seq, body, _ := d.reasm.Take()
		var whole []byte // the DTLCP form, made where it is kept
		if c.config.MessageTrace != nil {
			whole = dgram.WholeMessage(typ, seq, body)
			c.traceMessage(false, recordTypeHandshake, whole)
		}
		switch {
		case c.isClient && d.hello != nil && typ == dgram.TypeHelloVerifyRequest:
			if err := c.dgAnswerHelloVerifyRequest(body); err != nil {
				return nil, err
			}
			continue
		case c.isClient && d.hello != nil:
			// The server has answered: the ClientHello it answered
			// goes first into the transcript.
			hello, err := d.helloBody(d.helloCookie)
			if err != nil {
				return nil, err
			}
			writeWhole(d.helloTranscript, typeClientHello, d.helloSeq, hello)
			d.hello, d.helloTranscript = nil, nil
		case !c.isClient && typ == typeClientHello && d.awaitingHello:
			ok, err := c.dgCheckCookie(seq, body)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		if typ == typeFinished {
			d.epoch1Fin = true
		}
		tlcpForm := body
		if typ == typeClientHello {
			var ok bool
			if tlcpForm, _, ok = dgram.SplitCookie(body); !ok {
				return nil, errorf(alertDecodeError, "tlcp: malformed ClientHello message")
			}
		}
		data := make([]byte, 4+len(tlcpForm))
		data[0], data[1], data[2], data[3] = typ, byte(len(tlcpForm)>>16), byte(len(tlcpForm)>>8), byte(len(tlcpForm))
		copy(data[4:], tlcpForm)
		c.noteHandshakeMsg(messageName(typ))
		msg, ok := c.parseHandshake(data)
		if !ok {
			if !c.knownMessageType(typ) {
				return nil, errorf(alertUnexpectedMessage, "tlcp: unknown handshake message type %d", typ)
			}
			return nil, errorf(alertDecodeError, "tlcp: malformed %s message", messageName(typ))
		}
		// What the transcript holds is the DTLCP form; the handshake
		// hashes these two itself.
		if (typ == typeClientHello || typ == typeFinished) && whole == nil {
			whole = dgram.WholeMessage(typ, seq, body)
		}
		switch m := msg.(type) {
		case *clientHelloMsg:
			if m.tls13.offersTLS13() {
				// Whatever GetConfigForClient returns: TLS 1.3 over
				// datagrams is DTLS 1.3, another protocol.
				return nil, errorf(alertProtocolVersion, "tlcp: the DTLCP ClientHello offers TLS 1.3 (supported_versions); DTLCP is TLCP over datagrams only")
			}
			m.original = whole
		case *finishedMsg:
			m.original = whole
		}
		if transcript != nil {
			writeWhole(transcript, typ, seq, body)
		}
		return msg, nil
	}
}

// dgAnswerHelloVerifyRequest sends the ClientHello again with the
// server's cookie, as a new flight (RFC 6347 §4.2.1).
func (c *Conn) dgAnswerHelloVerifyRequest(body []byte) error {
	d := c.dg
	vers, cookie, ok := dgram.ParseHelloVerifyRequest(body)
	switch {
	case !ok:
		return errorf(alertDecodeError, "tlcp: malformed HelloVerifyRequest message")
	case vers != VersionTLCP:
		return errorf(alertProtocolVersion, "tlcp: the server's HelloVerifyRequest has version 0x%04x, want 0x0101", vers)
	}
	if d.helloVerifyRequests++; d.helloVerifyRequests > dgMaxHelloVerifyRequests {
		return errorf(alertHandshakeFailure, "tlcp: the server sent more than %d HelloVerifyRequests", dgMaxHelloVerifyRequests)
	}
	d.helloCookie = append([]byte(nil), cookie...)
	hello, err := d.helloBody(d.helloCookie)
	if err != nil {
		return err
	}
	// Nothing that came before this answer can answer the ClientHello
	// about to go: it was sent before the server could have seen it. Such
	// messages come from an earlier connection of the same address (a
	// client restarted on its port, RFC 6347 §4.2.8, whose server still
	// retransmits), and one of them kept would be taken for our
	// ServerHello: its message_seq is the one we expect next.
	d.reasm.SetNext(d.reasm.Next())
	d.future = nil
	c.out.Lock()
	defer c.out.Unlock()
	d.flight, d.flightData, d.flightSent = d.flight[:0], d.flightData[:0], false
	d.timeout = d.retransmit
	d.helloSeq = d.sendSeq
	if err := c.dgQueueMessageLocked(typeClientHello, hello, nil); err != nil {
		return err
	}
	return c.dgSendFlightLocked()
}

// dgCheckCookie checks the cookie of a server's ClientHello. Without a
// valid one it answers with a HelloVerifyRequest and reports false; with
// one, the ClientHello starts the handshake, and the server numbers its
// messages from the ClientHello's message_seq (RFC 6347 §4.2.2).
func (c *Conn) dgCheckCookie(seq uint16, body []byte) (bool, error) {
	d := c.dg
	tlcpBody, cookie, ok := dgram.SplitCookie(body)
	if !ok {
		return false, errorf(alertDecodeError, "tlcp: malformed ClientHello message")
	}
	addr := c.conn.RemoteAddr().String()
	if d.cookies.Verify(addr, tlcpBody, cookie) {
		// The ServerHello's record takes the ClientHello's record
		// sequence number, as the HelloVerifyRequest took the first
		// one's: a client that has seen our HelloVerifyRequest would
		// otherwise drop our first records as replays (RFC 6347
		// §4.2.1).
		d.awaitingHello = false
		c.out.Lock()
		d.sendSeq = seq
		d.wSeq[0] = max(d.wSeq[0], d.recSeq)
		c.out.Unlock()
		return true, nil
	}
	fresh, err := d.cookies.Cookie(addr, tlcpBody)
	if err != nil {
		return false, errorf(alertInternalError, "tlcp: making a cookie: %w", err)
	}
	hvr := dgram.HelloVerifyRequest(dgram.Hello{RecordSeq: d.recSeq, MsgSeq: seq}, fresh)
	c.out.Lock()
	defer c.out.Unlock()
	if _, err := c.conn.Write(hvr); err != nil {
		return false, c.out.setErrorLocked(err)
	}
	return false, nil
}

// dgReadRecord reads records until one moves the connection forward: a
// handshake fragment stored, application data in c.input, or, if
// expectCCS, the peer's ChangeCipherSpec. Invalid records are dropped.
// During the handshake it keeps the retransmission timer. c.in is held.
func (c *Conn) dgReadRecord(expectCCS bool) error {
	if c.in.err != nil {
		return c.in.err
	}
	d := c.dg
	if !c.isHandshakeComplete.Load() {
		if d.deadline.IsZero() {
			d.deadline = time.Now().Add(d.handshakeTimeout)
		}
		if err := c.dgFlushFlight(); err != nil {
			return err
		}
	}
	c.input.Reset(nil)
	for {
		if len(d.rest) == 0 {
			if err := c.dgReadDatagram(); err != nil {
				return err
			}
			continue
		}
		h, body, rest, err := dgram.ParseRecord(d.rest)
		if err != nil {
			// The rest of the datagram cannot be parsed.
			d.rest = nil
			if err := c.dgDropped(); err != nil {
				return err
			}
			continue
		}
		d.rest = rest
		progress, err := c.dgHandleRecord(h, body, expectCCS)
		if err != nil {
			return c.in.setErrorLocked(err)
		}
		if progress {
			return nil
		}
	}
}

// dgDropped counts a record dropped as invalid.
func (c *Conn) dgDropped() error {
	if c.dg.invalid++; c.dg.invalid > dgMaxInvalid {
		return c.in.setErrorLocked(c.fail(errorf(alertBadRecordMAC, "tlcp: the peer sent more than %d invalid records", dgMaxInvalid)))
	}
	return nil
}

// dgReadDatagram reads the next datagram into d.rest. During the handshake
// a read that times out retransmits the flight and doubles the timer, up
// to the handshake's deadline.
func (c *Conn) dgReadDatagram() error {
	d := c.dg
	for {
		inHandshake := !c.isHandshakeComplete.Load()
		if inHandshake {
			wait := time.Now().Add(d.timeout)
			if wait.After(d.deadline) {
				wait = d.deadline
			}
			c.conn.SetReadDeadline(wait)
		}
		n, err := c.conn.Read(d.pkt)
		if err == nil {
			d.rest = d.pkt[:n]
			return nil
		}
		var ne net.Error
		if !inHandshake || !errors.As(err, &ne) || !ne.Timeout() {
			if errors.As(err, &ne) && ne.Timeout() {
				return err // the caller's deadline; the connection lives
			}
			return c.in.setErrorLocked(err)
		}
		if !time.Now().Before(d.deadline) {
			return c.in.setErrorLocked(fmt.Errorf("dtlcp: the handshake did not complete within %v (Options.HandshakeTimeout): %w", d.handshakeTimeout, os.ErrDeadlineExceeded))
		}
		if err := c.dgRetransmit(false); err != nil {
			return err
		}
		d.timeout = min(2*d.timeout, d.maxRetx)
	}
}

// dgHandleRecord checks and opens one record and acts on it.
func (c *Conn) dgHandleRecord(h dgram.RecordHeader, body []byte, expectCCS bool) (bool, error) {
	d := c.dg
	switch {
	case h.Version != dgram.Version, !knownRecordType(recordType(h.Type)):
		return false, c.dgDropped()
	case h.Epoch > d.rEpoch:
		// A record of the next epoch before the ChangeCipherSpec that
		// opens it (reordered): kept, a few, for after it.
		if h.Epoch == d.rEpoch+1 && h.Epoch == 1 && len(d.future) < dgMaxFuture {
			d.future = append(d.future, append(make([]byte, 0, dgram.RecordHeaderLen+len(body)), d.rawRecord(h, body)...))
		}
		return false, nil
	case h.Epoch < d.rEpoch:
		// A record of the epoch before: the peer retransmits a flight
		// we have answered. Ours goes again.
		if recordType(h.Type) == recordTypeHandshake {
			return false, c.dgRetransmit(true)
		}
		return false, nil
	}
	// Epoch 1's records are checked against the replay window, and mark
	// it only once they have been authenticated. Epoch 0's are not: they
	// are not authenticated, so one forged or stale record with a
	// sequence number far ahead would move the window past the peer's
	// (a client's HelloVerifyRequest mirrors its ClientHello's number and
	// would be dropped as too old), and a duplicate does no harm there:
	// the reassembly takes a fragment once, and answers a repeated flight
	// by retransmitting ours, at a bounded rate.
	if h.Epoch > 0 && !d.window.Check(h.Seq) {
		return false, nil // a replay or a duplicate
	}
	typ, data := recordType(h.Type), body
	if h.Epoch > 0 {
		rp := c.in.rp
		es, ok := rp.(ciphersuite.ExplicitSequence)
		if !ok {
			return false, errors.New("dtlcp: internal error: the record protection cannot take explicit sequence numbers")
		}
		es.SetSequence(h.Seq64())
		inner, plain, err := rp.Open(uint8(typ), body)
		if err != nil || len(plain) > maxPlaintext {
			return false, c.dgDropped()
		}
		typ, data = recordType(inner), plain
	} else if len(body) > maxPlaintext {
		return false, c.dgDropped()
	}
	if h.Epoch > 0 {
		d.window.Mark(h.Seq)
	}
	d.recSeq = h.Seq

	switch typ {
	case recordTypeHandshake:
		return c.dgHandleHandshake(h.Epoch, data)
	case recordTypeChangeCipherSpec:
		if len(data) != 1 || data[0] != 1 {
			return false, c.fail(errorf(alertDecodeError, "tlcp: malformed ChangeCipherSpec"))
		}
		if !expectCCS || c.in.nextRP == nil {
			// Early (the message before it is missing) or a
			// retransmission: the peer sends it again with its flight.
			return false, nil
		}
		c.traceMessage(false, recordTypeChangeCipherSpec, data)
		if err := c.in.changeCipherSpec(); err != nil {
			return false, c.fail(err)
		}
		c.noteHandshakeMsg("ChangeCipherSpec")
		d.rEpoch = 1
		// The records of the new epoch that came first go before
		// what is left of this datagram.
		for i := len(d.future) - 1; i >= 0; i-- {
			d.rest = append(append([]byte(nil), d.future[i]...), d.rest...)
		}
		d.future = nil
		return true, nil
	case recordTypeApplicationData:
		if !c.isHandshakeComplete.Load() || expectCCS {
			// Data that overtook the peer's Finished: dropped, as RFC
			// 6347 §4.1.2.7 allows.
			return false, nil
		}
		if len(data) == 0 {
			return false, nil
		}
		c.input.Reset(data)
		return true, nil
	}
	return c.handleRecord(typ, data, false)
}

// rawRecord rebuilds a record as it came, for d.future.
func (d *dgConn) rawRecord(h dgram.RecordHeader, body []byte) []byte {
	b := make([]byte, dgram.RecordHeaderLen, dgram.RecordHeaderLen+len(body))
	dgram.PutRecordHeader(b, h.Type, h.Epoch, h.Seq, len(body))
	return append(b, body...)
}

// dgHandleHandshake takes the fragments of one handshake record.
func (c *Conn) dgHandleHandshake(epoch uint16, data []byte) (bool, error) {
	d := c.dg
	progress := false
	for len(data) > 0 {
		h, frag, rest, err := dgram.ParseHandshake(data)
		if err != nil {
			return false, c.fail(errorf(alertDecodeError, "tlcp: %w", err))
		}
		data = rest
		if c.isHandshakeComplete.Load() {
			// The peer did not see our last flight.
			if epoch == 0 || h.Seq < d.reasm.Next() || h.Type == typeFinished {
				if err := c.dgRetransmit(true); err != nil {
					return false, err
				}
				continue
			}
			// A new handshake (HelloRequest, ClientHello): TLCP
			// refuses renegotiation with a warning, and goes on.
			if err := c.sendAlert(alertNoRenegotiation); err != nil {
				return false, err
			}
			continue
		}
		if !c.isClient && d.awaitingHello && h.Type == typeClientHello && h.Seq != d.reasm.Next() {
			// A server learns where the client's numbering stands
			// from its ClientHello: 1 after a HelloVerifyRequest, or
			// the first one again if our HelloVerifyRequest was lost.
			d.reasm.SetNext(h.Seq)
		}
		seq := h.Seq
		if epoch == 1 && !d.epoch1Fin && h.Type == typeFinished && h.Seq < d.reasm.Next() {
			// gotlcp v1.5.0 sends its client Finished with
			// message_seq 0. In epoch 1 the peer's Finished is the
			// first and only message, so it cannot be a
			// retransmission of an earlier one: it is taken as the
			// message expected, and hashed as it came (INTEROP.md,
			// DTLCP).
			seq = d.reasm.Next()
			d.finishedSeqTolerated = true
		}
		st, err := d.reasm.AddAs(h, frag, seq)
		if err != nil {
			return false, c.fail(errorf(alertIllegalParameter, "tlcp: %w", err))
		}
		switch st {
		case dgram.Old:
			if err := c.dgRetransmit(true); err != nil {
				return false, err
			}
		case dgram.Stored:
			progress = true
		}
	}
	return progress, nil
}

// dgFinishFlight sends the handshake's last flight, if this side sends it,
// and leaves the read deadline to the caller's again. The flight is kept:
// the peer may retransmit its own until it has seen ours. c.in is held.
func (c *Conn) dgFinishFlight() error {
	if err := c.dgFlushFlight(); err != nil {
		return err
	}
	return c.conn.SetReadDeadline(time.Time{})
}

// writeWhole adds a message to t in its unfragmented DTLCP form, the form
// the transcript holds (RFC 6347 §4.2.6).
func writeWhole(t *transcriptHash, typ uint8, seq uint16, body []byte) {
	var hdr [dgram.HandshakeHeaderLen]byte
	dgram.PutHandshakeHeader(hdr[:], dgram.HandshakeHeader{Type: typ, Length: len(body), Seq: seq, FragLen: len(body)})
	t.Write(hdr[:])
	t.Write(body)
}
