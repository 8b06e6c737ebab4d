// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

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
	curveID          CurveID // the key exchange group, for ConnectionState
	ekm              ekmFunc // the keying material exporter, set by the handshake (exporter.go)
	peerCertificates []*smx509.Certificate
	peerSignCert     *smx509.Certificate
	peerEncCert      *smx509.Certificate
	verifiedChains   [][]*smx509.Certificate
	serverName       string
	clientProtocol   string
	ocspResponse     []byte // the server's staple (ocsp_staple.go)

	// For invalidating the session after a fatal alert (INTEROP.md §6.1).
	sessionMu        sync.Mutex
	clientSessionKey string       // client: key in ClientSessionCache
	serverSessionID  []byte       // server: ID in the session cache
	sessions         sessionStore // server: where sessions are kept, or nil

	in, out halfConn

	rawInput inputBuffer   // raw bytes from conn, not yet processed
	rb       recordBatches // batched sealing and opening (record_batch.go)
	flight   flightBuffer  // the pending handshake flight (flight.go)
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

	// dg is the datagram layer of a DTLCP connection (datagram.go), nil
	// for TLCP and TLS 1.3.
	dg *dgConn

	tmp [2]byte
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

// The read side of the record layer.
//
// Bytes from the transport collect in c.rawInput. nextRecord cuts one
// record off its front and removes its protection; readRecordOrCCS loops
// over records until one moves the connection forward, giving each type
// its treatment, and counts the ones that carry nothing. Handshake bytes
// collect in c.hand, where readHandshake finds whole messages.

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
		if c.rb.recs != nil && c.rb.err == nil {
			clear(c.rb.recs[:])
			batchRecsPool.Put(c.rb.recs)
			c.rb.recs = nil
		}
	}
}

// trimAfterHandshake lets go of what only the handshake needed, so that an
// established connection holds no more than crypto/tls's (issue 32): the
// buffers of the handshake messages read and of the flights written, and
// a read buffer grown for the peer's flight. What is still unread stays.
// The caller holds c.in and not c.out.
func (c *Conn) trimAfterHandshake() {
	if c.hand.Len() == 0 {
		c.hand = bytes.Buffer{}
	}
	c.rawInput.shrink()
	c.out.Lock()
	c.outBuf = nil
	c.out.Unlock()
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
	} else {
		c.trimAfterHandshake()
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
	s.CurveID = c.curveID
	s.NegotiatedProtocol = c.clientProtocol
	s.ServerName = c.serverName
	s.PeerCertificates = c.peerCertificates
	s.PeerSignCertificate = c.peerSignCert
	s.PeerEncCertificate = c.peerEncCert
	s.VerifiedChains = c.verifiedChains
	s.OCSPResponse = c.ocspResponse
	s.Protocol = c.protocol()
	s.ekm = c.ekm
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
