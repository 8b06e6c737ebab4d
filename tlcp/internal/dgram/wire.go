// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package dgram holds the wire pieces of DTLCP (GM/T 0128-2023, TLCP over
// datagrams with the mechanics of DTLS 1.2, RFC 6347) that do not depend on
// a connection: the 13-byte record header, the 12-byte handshake header,
// reassembly of handshake fragments, the replay window, the stateless
// cookie and the HelloVerifyRequest. Package tlcp runs the handshake over
// them (datagram.go); package tlcp/dtlcp demultiplexes a socket with them
// before a connection exists. See tlcp/INTEROP.md §11.
package dgram

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Wire constants.
const (
	RecordHeaderLen    = 13     // type(1) version(2) epoch(2) sequence_number(6) length(2)
	HandshakeHeaderLen = 12     // msg_type(1) length(3) message_seq(2) fragment_offset(3) fragment_length(3)
	Version            = 0x0101 // TLCP's, on the record layer and in the hellos
	MaxSequence        = 1<<48 - 1

	TypeHandshake          = 22
	TypeClientHello        = 1
	TypeHelloVerifyRequest = 3
	MaxCookieLen           = 255
	MaxProtectedRecordLen  = 1<<14 + 2048 // as TLCP (tlcp/INTEROP.md §1.3)
	MaxPlaintextRecordLen  = 1 << 14
	DefaultMTU             = 1400 // datagram payload: the UDP payload, headers of all records included
	MinMTU                 = 256
	MaxDatagram            = RecordHeaderLen + MaxProtectedRecordLen
)

// RecordHeader is a parsed DTLCP record header.
type RecordHeader struct {
	Type    uint8
	Version uint16
	Epoch   uint16
	Seq     uint64 // 48 bits
}

// Seq64 is the value the MAC and AEAD authenticate in place of TLCP's
// implicit counter: epoch || sequence_number.
func (h RecordHeader) Seq64() uint64 { return uint64(h.Epoch)<<48 | h.Seq }

// ErrShortRecord reports a datagram whose next record is cut short.
var ErrShortRecord = errors.New("dtlcp: record extends past the end of the datagram")

// ParseRecord takes the first record off datagram b: its header, its body
// and what follows it. A record may not span datagrams (RFC 6347 §4.1.1),
// so a short one is an error, and so is a body longer than any protected
// record may be; what the type, version and epoch mean is the caller's.
func ParseRecord(b []byte) (h RecordHeader, body, rest []byte, err error) {
	if len(b) < RecordHeaderLen {
		return h, nil, nil, ErrShortRecord
	}
	h.Type = b[0]
	h.Version = binary.BigEndian.Uint16(b[1:3])
	h.Epoch = binary.BigEndian.Uint16(b[3:5])
	h.Seq = uint64(binary.BigEndian.Uint16(b[5:7]))<<32 | uint64(binary.BigEndian.Uint32(b[7:11]))
	n := int(binary.BigEndian.Uint16(b[11:13]))
	if n > MaxProtectedRecordLen {
		return h, nil, nil, fmt.Errorf("dtlcp: record of %d bytes, over the limit of %d", n, MaxProtectedRecordLen)
	}
	if len(b)-RecordHeaderLen < n {
		return h, nil, nil, ErrShortRecord
	}
	return h, b[RecordHeaderLen : RecordHeaderLen+n], b[RecordHeaderLen+n:], nil
}

// PutRecordHeader writes a record header with an n-byte body into
// dst[:RecordHeaderLen].
func PutRecordHeader(dst []byte, typ uint8, epoch uint16, seq uint64, n int) {
	_ = dst[RecordHeaderLen-1]
	dst[0] = typ
	binary.BigEndian.PutUint16(dst[1:3], Version)
	binary.BigEndian.PutUint16(dst[3:5], epoch)
	binary.BigEndian.PutUint16(dst[5:7], uint16(seq>>32))
	binary.BigEndian.PutUint32(dst[7:11], uint32(seq))
	binary.BigEndian.PutUint16(dst[11:13], uint16(n))
}

// HandshakeHeader is a parsed DTLCP handshake header: TLCP's type and
// length, then the three fields of RFC 6347 §4.2.2.
type HandshakeHeader struct {
	Type    uint8
	Length  int    // of the whole message body
	Seq     uint16 // message_seq
	Offset  int    // fragment_offset
	FragLen int    // fragment_length
}

// ParseHandshake takes the first handshake fragment off record body b. A
// fragment that reaches past the message's length, or past the record, is
// an error: the first is a malformed message, the second a malformed
// record.
func ParseHandshake(b []byte) (h HandshakeHeader, frag, rest []byte, err error) {
	if len(b) < HandshakeHeaderLen {
		return h, nil, nil, errors.New("dtlcp: handshake fragment header cut short")
	}
	h.Type = b[0]
	h.Length = int(b[1])<<16 | int(b[2])<<8 | int(b[3])
	h.Seq = binary.BigEndian.Uint16(b[4:6])
	h.Offset = int(b[6])<<16 | int(b[7])<<8 | int(b[8])
	h.FragLen = int(b[9])<<16 | int(b[10])<<8 | int(b[11])
	if h.Offset+h.FragLen > h.Length {
		return h, nil, nil, fmt.Errorf("dtlcp: handshake fragment [%d, %d) reaches past the message length %d", h.Offset, h.Offset+h.FragLen, h.Length)
	}
	if len(b)-HandshakeHeaderLen < h.FragLen {
		return h, nil, nil, fmt.Errorf("dtlcp: handshake fragment of %d bytes in a record with %d left", h.FragLen, len(b)-HandshakeHeaderLen)
	}
	return h, b[HandshakeHeaderLen : HandshakeHeaderLen+h.FragLen], b[HandshakeHeaderLen+h.FragLen:], nil
}

// PutHandshakeHeader writes h into dst[:HandshakeHeaderLen].
func PutHandshakeHeader(dst []byte, h HandshakeHeader) {
	_ = dst[HandshakeHeaderLen-1]
	dst[0] = h.Type
	dst[1], dst[2], dst[3] = byte(h.Length>>16), byte(h.Length>>8), byte(h.Length)
	binary.BigEndian.PutUint16(dst[4:6], h.Seq)
	dst[6], dst[7], dst[8] = byte(h.Offset>>16), byte(h.Offset>>8), byte(h.Offset)
	dst[9], dst[10], dst[11] = byte(h.FragLen>>16), byte(h.FragLen>>8), byte(h.FragLen)
}

// WholeMessage returns the unfragmented form of a message (offset 0,
// fragment_length = length), the form the transcript hashes (RFC 6347
// §4.2.6), with body appended to a fresh buffer.
func WholeMessage(typ uint8, seq uint16, body []byte) []byte {
	b := make([]byte, HandshakeHeaderLen+len(body))
	PutHandshakeHeader(b, HandshakeHeader{Type: typ, Length: len(body), Seq: seq, FragLen: len(body)})
	copy(b[HandshakeHeaderLen:], body)
	return b
}

// ClientHello bodies differ from TLCP's in one field: a cookie<0..255>
// after the session ID (RFC 6347 §4.2.1). The helpers move between the two
// forms, so that one parser and one builder (package tlcp's) serve both.

// helloCookieAt returns the offset of the cookie's length byte in a
// ClientHello body: after version(2), random(32) and session_id<0..32>.
func helloCookieAt(body []byte) (int, bool) {
	const fixed = 2 + 32
	if len(body) < fixed+1 {
		return 0, false
	}
	at := fixed + 1 + int(body[fixed])
	if body[fixed] > 32 || len(body) < at+1 {
		return 0, false
	}
	return at, true
}

// SplitCookie returns the TLCP form of a DTLCP ClientHello body (a new
// slice) and its cookie (aliasing body).
func SplitCookie(body []byte) (tlcpBody, cookie []byte, ok bool) {
	at, ok := helloCookieAt(body)
	if !ok {
		return nil, nil, false
	}
	n := int(body[at])
	if len(body) < at+1+n {
		return nil, nil, false
	}
	cookie = body[at+1 : at+1+n]
	tlcpBody = make([]byte, 0, len(body)-1-n)
	tlcpBody = append(tlcpBody, body[:at]...)
	tlcpBody = append(tlcpBody, body[at+1+n:]...)
	return tlcpBody, cookie, true
}

// InsertCookie returns the DTLCP form of TLCP ClientHello body tlcpBody,
// with cookie (at most 255 bytes) in its place.
func InsertCookie(tlcpBody, cookie []byte) ([]byte, bool) {
	at, ok := helloCookieAt(tlcpBody)
	if !ok || len(cookie) > MaxCookieLen {
		return nil, false
	}
	b := make([]byte, 0, len(tlcpBody)+1+len(cookie))
	b = append(b, tlcpBody[:at]...)
	b = append(b, byte(len(cookie)))
	b = append(b, cookie...)
	return append(b, tlcpBody[at:]...), true
}
