// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// Record headers, the steps both protocols share: which content types
// exist, which version a header may carry now and which one this side
// writes, and how long a record may be.

// knownRecordType reports whether typ is a content type of TLCP and TLS 1.3.
// Heartbeat (24, RFC 6520) is not: neither protocol here negotiates it.
func knownRecordType(typ recordType) bool {
	switch typ {
	case recordTypeChangeCipherSpec, recordTypeAlert, recordTypeHandshake, recordTypeApplicationData:
		return true
	}
	return false
}

// errClientSpeaksHTTP is the failure of a server whose client sent an HTTP
// request instead of a ClientHello.
var errClientSpeaksHTTP = errors.New("tlcp: the client sent an HTTP request to a TLCP server (wrong port?)")

// checkRecordHeader checks the version, content type and length of a
// record header (INTEROP.md §1.1-§1.3) and returns its type and body
// length. A content type that neither protocol defines (0, 24, 255, …) is
// unexpected_message wherever it comes, before the ClientHello, inside a
// fragmented handshake message or after the handshake (RFC 8446 §5,
// INTEROP.md §1.2): it is refused here, before its body is read. Its failures
// are RecordHeaderErrors, which carry the transport when the first record
// of the connection is already wrong.
func (c *Conn) checkRecordHeader(hdr []byte) (recordType, int, error) {
	typ, vers, n := recordType(hdr[0]), uint16(hdr[1])<<8|uint16(hdr[2]), int(hdr[3])<<8|int(hdr[4])
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
				return 0, 0, headerError(alertProtocolVersion, "the server answered in HTTP to a TLCP client (wrong port?)", nil)
			}
			return 0, 0, headerError(alertProtocolVersion, strings.TrimPrefix(errClientSpeaksHTTP.Error(), "tlcp: "), errClientSpeaksHTTP)
		}
		return 0, 0, headerError(alertProtocolVersion, c.recordVersionMessage(vers), nil)
	}
	if !knownRecordType(typ) {
		return 0, 0, headerError(alertUnexpectedMessage, fmt.Sprintf("received a record of unknown content type %d", typ), nil)
	}
	if limit := c.recordLimit(); n > limit {
		return 0, 0, headerError(alertRecordOverflow, fmt.Sprintf("received a record of %d bytes, over the limit of %d", n, limit), nil)
	}
	c.recordSeen = true
	return typ, n, nil
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

// putRecordHeader writes the header of a record of content type typ with
// an n-byte body into hdr. A protected TLS 1.3 record says
// application_data, its real type being inside (RFC 8446 §5.2).
func (c *Conn) putRecordHeader(hdr []byte, typ recordType, n int) {
	if c.vers == VersionTLS13 && c.out.rp != nil {
		typ = recordTypeApplicationData
	}
	vers := c.outRecordVersion()
	_ = hdr[recordHeaderLen-1]
	hdr[0], hdr[1], hdr[2], hdr[3], hdr[4] = byte(typ), byte(vers>>8), byte(vers), byte(n>>8), byte(n)
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

// recordLimit is the largest record body that may arrive now: 2^14
// bytes in the clear, 2^14+2048 protected under TLCP (INTEROP.md §1.3),
// 2^14+256 protected under TLS 1.3 (RFC 8446 §5.2), record_overflow
// beyond.
func (c *Conn) recordLimit() int {
	switch {
	case c.in.rp == nil:
		return maxPlaintext
	case c.vers == VersionTLS13:
		return ciphersuite.MaxTLS13Ciphertext
	}
	return maxCiphertext
}
