// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm4"
)

// TLS 1.3 record sizes (RFC 8446 §5.2): the inner plaintext is at most
// 2^14 bytes of content plus its content type; the protected fragment at
// most 2^14 + 256 bytes.
const (
	MaxTLS13Ciphertext = MaxPlaintext + 256
	tls13TagLen        = 16
)

// ErrMissingContentType is returned by the Open of a TLS 1.3 protection for
// a record that authenticates but whose inner plaintext is all zeros (or
// empty), so that it carries no content type. TLS 1.3 answers it with
// unexpected_message (RFC 8446 §5.4).
var ErrMissingContentType = errors.New("ciphersuite: TLS 1.3 record without a content type")

// tls13Record protects the records of one direction of a TLS 1.3
// connection under one traffic secret (RFC 8446 §5.2, §5.3). A new value is
// made for every new secret (handshake, application, each KeyUpdate).
//
// The protected record travels as application_data (23) with legacy
// version 0x0303; the real content type is the last non-zero byte of the
// decrypted inner plaintext. The AEAD nonce is the secret's IV XORed with
// the sequence number, and the additional data is the record header.
type tls13Record struct {
	aead  cipher.AEAD
	iv    [12]byte
	nonce [12]byte
	hdr   [5]byte
	seq   seqNum

	// ccm says that aead is SM4-CCM, whose batches run their CBC-MACs in
	// lanes (tls13_ccm.go); batch is their scratch, allocated by the
	// first batch.
	ccm   bool
	batch *ccmScratch
}

var _ BatchProtection = (*tls13Record)(nil)

// NewRecordProtection returns the record protection for one direction keyed
// by trafficSecret, the output of the key schedule for that direction and
// stage. It is a BatchProtection, like those of Suite.NewRecordProtection.
func (s *TLS13Suite) NewRecordProtection(trafficSecret []byte) (RecordProtection, error) {
	if len(trafficSecret) != TLS13SecretLen {
		return nil, fmt.Errorf("ciphersuite: %s traffic secret is %d bytes, want %d", s.Name, len(trafficSecret), TLS13SecretLen)
	}
	key, iv := s.TrafficKey(trafficSecret)
	p := &tls13Record{}
	var err error
	switch s.Cipher {
	case CipherSM4GCM:
		// The same construction as TLCP's SM4-GCM (gcm.go); only the
		// nonce and the additional data differ.
		p.aead, err = sm4.NewGCMWithKey(key)
	case CipherSM4CCM:
		// RFC 8998 §3.2: CCM with a 12-byte nonce and a 16-byte tag.
		var b cipher.Block
		if b, err = sm4.NewCipher(key); err == nil {
			p.aead, err = sm4.NewCCM(b, len(p.iv), tls13TagLen)
		}
		p.ccm = true
	default:
		err = fmt.Errorf("%w: %s", ErrUnsupported, s.Name)
	}
	clear(key)
	if err != nil {
		return nil, err
	}
	copy(p.iv[:], iv)
	return p, nil
}

// Overhead returns the bytes Seal adds to a plaintext: the content type
// byte and the tag.
func (p *tls13Record) Overhead() int { return 1 + tls13TagLen }

func (p *tls13Record) SealedLen(n int) int { return n + 1 + tls13TagLen }

func (p *tls13Record) Sequence() uint64 { return uint64(p.seq) }

// setNonce makes the per-record nonce: the IV XOR the sequence number,
// right-aligned (RFC 8446 §5.3).
func (p *tls13Record) setNonce() { p.nonceAt(&p.nonce, p.seq) }

// nonceAt sets n to the nonce of the record with sequence number seq.
func (p *tls13Record) nonceAt(n *[12]byte, seq seqNum) {
	*n = p.iv
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], uint64(seq))
	for i := range s {
		n[4+i] ^= s[i]
	}
}

// setHeader writes the record header that is the additional data: the
// outer type, 03 03, the length of the protected fragment. The record
// layer refuses other legacy versions before Open (RFC 8446 §5.1 fixes
// 0x0303 for protected records).
func (p *tls13Record) setHeader(typ uint8, n int) { p.hdr = tls13Header(typ, n) }

func tls13Header(typ uint8, n int) [5]byte { return [5]byte{typ, 3, 3, byte(n >> 8), byte(n)} }

// Seal appends the protected fragment of a record of content type typ. The
// header to send is application_data, 0x0303 and the fragment's length;
// typ goes inside, after the plaintext. No padding is added. rand is
// unused: the nonce is derived from the sequence number.
func (p *tls13Record) Seal(dst []byte, typ uint8, plaintext []byte, _ io.Reader) ([]byte, error) {
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
	p.setHeader(recordTypeApplicationData, len(out))
	p.aead.Seal(inner[:0], p.nonce[:], inner, p.hdr[:])
	p.seq++
	return ret, nil
}

// recordTypeApplicationData is the outer type of every protected TLS 1.3
// record.
const recordTypeApplicationData = 23

// Open authenticates and decrypts fragment, the body of a received record
// whose header says typ (application_data unless the peer misbehaves, in
// which case the additional data differs and the record fails), in place.
// It returns the inner content type and the content with the padding
// removed.
func (p *tls13Record) Open(typ uint8, fragment []byte) (uint8, []byte, error) {
	return p.open(nil, typ, fragment)
}

// open is Open, decrypting into dst (at least len(fragment)-16 bytes, not
// overlapping fragment) instead of in place if dst is not nil.
func (p *tls13Record) open(dst []byte, typ uint8, fragment []byte) (uint8, []byte, error) {
	if len(fragment) > MaxTLS13Ciphertext {
		return 0, nil, ErrRecordOverflow
	}
	// A fragment shorter than the tag cannot be authentic. One of exactly
	// the tag's length can be: it is the protection of an empty inner
	// plaintext, which has no content type. It is opened, so that an
	// authentic one is ErrMissingContentType (unexpected_message, RFC
	// 8446 §5.4) and only a forgery is ErrBadRecordMAC (§5.2), as a
	// 17-byte record of inner plaintext 00 is.
	if len(fragment) < tls13TagLen {
		return 0, nil, ErrBadRecordMAC
	}
	if err := p.seq.check(); err != nil {
		return 0, nil, err
	}
	p.setNonce()
	p.setHeader(typ, len(fragment))
	out := fragment[:0]
	if dst != nil {
		out = dst[:0]
	}
	inner, err := p.aead.Open(out, p.nonce[:], fragment, p.hdr[:])
	if err != nil {
		return 0, nil, ErrBadRecordMAC
	}
	p.seq++
	// RFC 8446 §5.4: the whole inner plaintext, padding included, is at
	// most 2^14+1 bytes; a longer one is record_overflow even if its
	// content would fit.
	if len(inner) > MaxPlaintext+1 {
		return 0, nil, ErrRecordOverflow
	}
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
	return inner[i], inner[:i], nil
}

// SealBatch seals SM4-GCM records one by one, as TLCP's SM4-GCM does
// (gcm.go): the kernels already run the blocks of one record in parallel.
// SM4-CCM records go MaxBatch at a time (sealCCM).
func (p *tls13Record) SealBatch(recs []BatchRecord, rnd io.Reader) (int, error) {
	if !p.ccm {
		return sealEach(p, recs, rnd)
	}
	done := 0
	for len(recs) > 0 {
		k := min(len(recs), MaxBatch)
		n, err := p.sealCCM(recs[:k])
		done += n
		if err != nil {
			return done, err
		}
		recs = recs[k:]
	}
	return done, nil
}

// OpenBatch opens SM4-GCM records one by one, ending the batch after a
// record whose inner type is not its outer one (see openEach); SM4-CCM
// records go MaxBatch at a time (openCCM), with the same result.
func (p *tls13Record) OpenBatch(dst []byte, recs []BatchRecord) (int, error) {
	if !p.ccm {
		return openEach(p.open, dst, recs)
	}
	return p.openCCMBatch(dst, recs)
}
