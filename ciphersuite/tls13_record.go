// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm4"
)

// TLS 1.3 record sizes (RFC 8446 §5.2): the inner plaintext is at most
// 2^14 bytes of content plus its content type; the protected fragment at
// most 2^14 + 256 bytes.
const (
	MaxTLS13Ciphertext = MaxPlaintext + 256
	tls13TagLen        = 16
)

// ErrMissingContentType is returned by TLS13RecordProtection.Open for a
// record whose decrypted inner plaintext is all zeros, so that it carries no
// content type. TLS 1.3 answers it with unexpected_message.
var ErrMissingContentType = errors.New("ciphersuite: TLS 1.3 record without a content type")

// TLS13RecordProtection protects the records of one direction of a TLS 1.3
// connection under one traffic secret (RFC 8446 §5.2, §5.3). A new value is
// made for every new secret (handshake, application, each KeyUpdate); its
// 64-bit sequence number starts at zero.
//
// The protected record always travels as application_data (23) with
// legacy version 0x0303; the real content type is the last non-zero byte of
// the decrypted inner plaintext. The AEAD nonce is the secret's IV XORed
// with the sequence number, and the additional data is the record header.
//
// Use one value only to Seal or only to Open. It is not safe for concurrent
// use; Seal and Open do not allocate when dst has room.
type TLS13RecordProtection struct {
	aead  cipher.AEAD
	iv    [12]byte
	nonce [12]byte
	hdr   [5]byte
	seq   seqNum
}

// NewRecordProtection returns the record protection for one direction keyed
// by trafficSecret, the output of the key schedule for that direction and
// stage.
func (s *TLS13Suite) NewRecordProtection(trafficSecret []byte) (*TLS13RecordProtection, error) {
	if len(trafficSecret) != TLS13SecretLen {
		return nil, fmt.Errorf("ciphersuite: %s traffic secret is %d bytes, want %d", s.Name, len(trafficSecret), TLS13SecretLen)
	}
	key, iv := s.TrafficKey(trafficSecret)
	b, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	p := &TLS13RecordProtection{}
	switch s.Cipher {
	case CipherSM4GCM:
		p.aead, err = cipher.NewGCM(b)
	case CipherSM4CCM:
		// RFC 8998 §3.2: CCM with a 12-byte nonce and a 16-byte tag.
		p.aead, err = sm4.NewCCM(b, len(p.iv), tls13TagLen)
	default:
		err = fmt.Errorf("%w: %s", ErrUnsupported, s.Name)
	}
	if err != nil {
		return nil, err
	}
	copy(p.iv[:], iv)
	return p, nil
}

// Overhead returns the bytes Seal adds to a plaintext: the content type
// byte and the tag.
func (p *TLS13RecordProtection) Overhead() int { return 1 + tls13TagLen }

// Sequence returns the number of records protected so far.
func (p *TLS13RecordProtection) Sequence() uint64 { return uint64(p.seq) }

// setNonce makes the per-record nonce: the IV XOR the sequence number,
// right-aligned (RFC 8446 §5.3).
func (p *TLS13RecordProtection) setNonce() {
	p.nonce = p.iv
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], uint64(p.seq))
	for i := range s {
		p.nonce[4+i] ^= s[i]
	}
}

// setHeader writes the record header that is the additional data:
// application_data, 03 03, the length of the protected fragment.
func (p *TLS13RecordProtection) setHeader(n int) {
	p.hdr = [5]byte{23, 3, 3, byte(n >> 8), byte(n)}
}

// Seal appends to dst the protected fragment (the record body after the
// 5-byte header) of a record of content type typ carrying plaintext, and
// returns the extended slice. The header to send is application_data,
// 0x0303 and the fragment's length. plaintext may alias dst[len(dst):]
// exactly (in place); any other overlap costs a copy. No padding is added.
func (p *TLS13RecordProtection) Seal(dst []byte, typ uint8, plaintext []byte) ([]byte, error) {
	n := len(plaintext)
	if n > MaxPlaintext {
		return nil, ErrRecordOverflow
	}
	if err := p.seq.check(); err != nil {
		return nil, err
	}
	ret, out := appendSpace(dst, n+1+tls13TagLen)
	inner := out[:n+1]
	moveTo(inner, plaintext)
	inner[n] = typ
	p.setNonce()
	p.setHeader(len(out))
	p.aead.Seal(inner[:0], p.nonce[:], inner, p.hdr[:])
	p.seq++
	return ret, nil
}

// Open authenticates and decrypts fragment, the body of a received
// application_data record, in place. It returns the real content type and
// the content, a sub-slice of fragment, with the padding removed. Every
// authentication failure is ErrBadRecordMAC; an oversized fragment or
// content is ErrRecordOverflow; a record without a content type is
// ErrMissingContentType. The sequence number advances only on success.
func (p *TLS13RecordProtection) Open(fragment []byte) (typ uint8, content []byte, err error) {
	if len(fragment) > MaxTLS13Ciphertext {
		return 0, nil, ErrRecordOverflow
	}
	if len(fragment) < 1+tls13TagLen {
		return 0, nil, ErrBadRecordMAC
	}
	if err := p.seq.check(); err != nil {
		return 0, nil, err
	}
	p.setNonce()
	p.setHeader(len(fragment))
	inner, err := p.aead.Open(fragment[:0], p.nonce[:], fragment, p.hdr[:])
	if err != nil {
		return 0, nil, ErrBadRecordMAC
	}
	p.seq++
	// The content type is the last non-zero byte; zeros after it are
	// padding. The scan depends on the padding length, which the sender
	// chose and which RFC 8446 §5.4 accepts as visible in timing.
	i := len(inner) - 1
	for i >= 0 && inner[i] == 0 {
		i--
	}
	if i < 0 {
		return 0, nil, ErrMissingContentType
	}
	if i > MaxPlaintext {
		return 0, nil, ErrRecordOverflow
	}
	return inner[i], inner[:i], nil
}
