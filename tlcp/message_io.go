// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// Handshake messages over the record layer: readHandshake collects a
// whole message from as many records as it spans, writeHandshake sends
// one message in its own record; the helpers name messages in errors and
// explain a peer that hangs up mid-handshake.

// writeHandshake sends one handshake message in its own record (INTEROP.md
// §1.7: GmSSL cannot parse coalesced messages) and adds it to transcript.
func (c *Conn) writeHandshake(msg handshakeMessage, transcript *transcriptHash) error {
	if c.dg != nil {
		return c.dgWriteHandshake(msg, transcript)
	}
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
//
// The work is split so that the frames under which records are read and
// decrypted stay small: a resumed handshake must fit a goroutine's first
// stacks (stack_test.go).
func (c *Conn) readHandshake(transcript *transcriptHash) (handshakeMessage, error) {
	if c.dg != nil {
		return c.dgReadHandshake(transcript)
	}
	n, err := c.readHandshakeBytes()
	if err != nil {
		return nil, err
	}
	return c.takeHandshake(n, transcript)
}

// readHandshakeBytes reads records until c.hand holds a whole message and
// returns its length.
func (c *Conn) readHandshakeBytes() (int, error) {
	for c.hand.Len() < 4 {
		if err := c.readRecord(); err != nil {
			return 0, err
		}
	}
	hdr := c.hand.Bytes()
	typ, n := hdr[0], int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3])
	if limit := maxMessageLen(typ); n > limit {
		return 0, messageTooLong(typ, n, limit)
	}
	for c.hand.Len() < 4+n {
		if err := c.readRecord(); err != nil {
			return 0, err
		}
	}
	return 4 + n, nil
}

//go:noinline
func messageTooLong(typ uint8, n, limit int) error {
	return errorf(alertDecodeError, "tlcp: received a %s message of %d bytes, over the limit of %d for its type",
		messageName(typ), n, limit)
}

// takeHandshake parses the n-byte message at the front of c.hand.
func (c *Conn) takeHandshake(n int, transcript *transcriptHash) (handshakeMessage, error) {
	// The message is kept by what parses it; c.hand's buffer is reused.
	data := bytes.Clone(c.hand.Next(n))
	typ := data[0]
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
