// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dgram

import (
	"crypto/hmac"
	"crypto/rand"
	"io"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// CookieRotation is how often a CookieJar changes its secret. A cookie
// made under the previous secret is still accepted, so one lives between
// one and two periods: long enough for a client's second ClientHello, short
// enough that a harvested cookie soon stops working.
const CookieRotation = 2 * time.Minute

// CookieJar makes and checks the stateless cookies of HelloVerifyRequest
// (RFC 6347 §4.2.1): HMAC-SM3 under a secret of the jar's over the
// client's address and its ClientHello without the cookie, so that a
// server keeps nothing for a client until it proves it receives at its
// address. It is safe for concurrent use.
type CookieJar struct {
	Rand io.Reader        // nil: crypto/rand
	Now  func() time.Time // nil: time.Now

	mu        sync.Mutex
	cur, prev *sm3.HMACKey // prepared: a cookie costs its message's blocks only
	rotated   time.Time
}

func (j *CookieJar) now() time.Time {
	if j.Now != nil {
		return j.Now()
	}
	return time.Now()
}

// keys returns the current secret's key and the previous one's (nil if
// there is none, or it is too old), rotating first if the current one is
// old.
func (j *CookieJar) keys() (cur, prev *sm3.HMACKey, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.now()
	if j.cur == nil || now.Sub(j.rotated) >= CookieRotation {
		r := j.Rand
		if r == nil {
			r = rand.Reader
		}
		var secret [32]byte
		if _, err := io.ReadFull(r, secret[:]); err != nil {
			return nil, nil, err
		}
		j.prev = nil
		if j.cur != nil && now.Sub(j.rotated) < 2*CookieRotation {
			j.prev = j.cur
		}
		j.cur, j.rotated = sm3.NewHMACKey(secret[:]), now
		clear(secret[:])
	}
	return j.cur, j.prev, nil
}

func cookieMAC(k *sm3.HMACKey, addr string, hello []byte) []byte {
	return k.MAC(make([]byte, 0, sm3.Size), []byte{byte(len(addr) >> 8), byte(len(addr))}, []byte(addr), hello)
}

// Cookie returns the cookie for a client at addr whose ClientHello body,
// in its TLCP form (SplitCookie), is hello.
func (j *CookieJar) Cookie(addr string, hello []byte) ([]byte, error) {
	cur, _, err := j.keys()
	if err != nil {
		return nil, err
	}
	return cookieMAC(cur, addr, hello), nil
}

// Verify reports whether cookie is one this jar made, under its current
// or previous secret, for addr and hello.
func (j *CookieJar) Verify(addr string, hello, cookie []byte) bool {
	if len(cookie) != sm3.Size {
		return false
	}
	cur, prev, err := j.keys()
	if err != nil {
		return false
	}
	if hmac.Equal(cookie, cookieMAC(cur, addr, hello)) {
		return true
	}
	return prev != nil && hmac.Equal(cookie, cookieMAC(prev, addr, hello))
}

// Hello is what CheckHello learns from a datagram that starts with a
// ClientHello.
type Hello struct {
	RecordSeq uint64 // of the record it came in
	MsgSeq    uint16
	TLCPBody  []byte // the body without the cookie
	Cookie    []byte
}

// ParseHello reads a datagram that should start with an epoch-0 record
// holding a whole (unfragmented) ClientHello. ok is false for anything
// else, which a server without state for the sender drops.
func ParseHello(datagram []byte) (h Hello, ok bool) {
	rh, body, _, err := ParseRecord(datagram)
	if err != nil || rh.Type != TypeHandshake || rh.Version != Version || rh.Epoch != 0 {
		return h, false
	}
	hh, frag, _, err := ParseHandshake(body)
	if err != nil || hh.Type != TypeClientHello || hh.Offset != 0 || hh.FragLen != hh.Length {
		return h, false
	}
	tb, cookie, ok := SplitCookie(frag)
	if !ok {
		return h, false
	}
	return Hello{RecordSeq: rh.Seq, MsgSeq: hh.Seq, TLCPBody: tb, Cookie: cookie}, true
}

// HelloVerifyRequest returns the datagram that answers ClientHello h with
// cookie: the record sequence number is the ClientHello's and the
// message_seq its message_seq, as a stateless server must choose them
// (RFC 6347 §4.2.1, §4.2.2); server_version is TLCP's, 0x0101.
func HelloVerifyRequest(h Hello, cookie []byte) []byte {
	bodyLen := 2 + 1 + len(cookie)
	b := make([]byte, RecordHeaderLen+HandshakeHeaderLen+bodyLen)
	PutRecordHeader(b, TypeHandshake, 0, h.RecordSeq, HandshakeHeaderLen+bodyLen)
	PutHandshakeHeader(b[RecordHeaderLen:], HandshakeHeader{Type: TypeHelloVerifyRequest, Length: bodyLen, Seq: h.MsgSeq, FragLen: bodyLen})
	p := b[RecordHeaderLen+HandshakeHeaderLen:]
	p[0], p[1], p[2] = Version>>8, Version&0xff, byte(len(cookie))
	copy(p[3:], cookie)
	return b
}

// ParseHelloVerifyRequest reads a HelloVerifyRequest body.
func ParseHelloVerifyRequest(body []byte) (version uint16, cookie []byte, ok bool) {
	if len(body) < 3 || len(body) != 3+int(body[2]) {
		return 0, nil, false
	}
	return uint16(body[0])<<8 | uint16(body[1]), body[3:], true
}
