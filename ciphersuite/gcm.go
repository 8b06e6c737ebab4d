// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/cipher"
	"encoding/binary"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm4"
)

// gcmRecord is SM4-GCM record protection (tlcp/INTEROP.md §1.6), the RFC 5288 layout:
// explicit_nonce(8) || ciphertext || tag(16), nonce = implicit_IV(4) || explicit_nonce.
type gcmRecord struct {
	aead  cipher.AEAD
	seq   seqNum
	nonce [gcmIVLen + gcmExplicitLen]byte
	aad   [13]byte
}

const (
	gcmExplicitLen = 8
	gcmTagLen      = 16
	gcmOverhead    = gcmExplicitLen + gcmTagLen
)

func newGCM(k Keys) (*gcmRecord, error) {
	// One allocation for the cipher and the mode, the tables written in
	// place: a handshake sets up four of these.
	aead, err := sm4.NewGCMWithKey(k.Key)
	if err != nil {
		return nil, err
	}
	g := &gcmRecord{aead: aead}
	copy(g.nonce[:gcmIVLen], k.IV)
	return g, nil
}

func (g *gcmRecord) Overhead() int { return gcmOverhead }

func (g *gcmRecord) Sequence() uint64 { return uint64(g.seq) }

func (g *gcmRecord) SealedLen(n int) int { return gcmExplicitLen + n + gcmTagLen }

func (g *gcmRecord) Seal(dst []byte, typ uint8, plaintext []byte, _ io.Reader) ([]byte, error) {
	n := len(plaintext)
	if n > MaxPlaintext {
		return nil, ErrRecordOverflow
	}
	if err := g.seq.check(); err != nil {
		return nil, err
	}
	ret, out := appendSpace(dst, gcmExplicitLen+n+gcmTagLen)
	data := out[gcmExplicitLen : gcmExplicitLen+n]
	src := placePlaintext(data, plaintext)

	// The explicit nonce is the sequence number: unique per key by construction,
	// which a random value would only be with high probability.
	binary.BigEndian.PutUint64(g.nonce[gcmIVLen:], uint64(g.seq))
	putHeader(&g.aad, g.seq, typ, n)
	g.aead.Seal(data[:0], g.nonce[:], src, g.aad[:])
	// Only now: an in-place plaintext may start where the nonce goes.
	copy(out, g.nonce[gcmIVLen:])

	g.seq++
	return ret, nil
}

func (g *gcmRecord) Open(typ uint8, fragment []byte) (uint8, []byte, error) {
	return g.open(nil, typ, fragment)
}

// open is Open, decrypting into dst (at least len(fragment)-24 bytes, not
// overlapping fragment) instead of in place if dst is not nil.
func (g *gcmRecord) open(dst []byte, typ uint8, fragment []byte) (uint8, []byte, error) {
	if len(fragment) > MaxCiphertext || len(fragment)-gcmOverhead > MaxPlaintext {
		return 0, nil, ErrRecordOverflow
	}
	if len(fragment) < gcmOverhead {
		return 0, nil, ErrBadRecordMAC
	}
	if err := g.seq.check(); err != nil {
		return 0, nil, err
	}
	// Peers differ in how they choose the explicit nonce (tlcp/INTEROP.md §1.6), so take
	// it from the record; the AAD uses our own sequence number regardless.
	copy(g.nonce[gcmIVLen:], fragment[:gcmExplicitLen])
	ct := fragment[gcmExplicitLen:]
	putHeader(&g.aad, g.seq, typ, len(ct)-gcmTagLen)
	out := ct[:0]
	if dst != nil {
		out = dst[:0]
	}
	plaintext, err := g.aead.Open(out, g.nonce[:], ct, g.aad[:])
	if err != nil {
		return 0, nil, ErrBadRecordMAC
	}
	g.seq++
	return typ, plaintext, nil
}

// SealBatch seals the records one by one: the SM4-GCM kernel already runs
// the counter blocks of one record in parallel and fuses GHASH with them,
// so records gain nothing from sharing the lanes.
func (g *gcmRecord) SealBatch(recs []BatchRecord, rnd io.Reader) (int, error) {
	return sealEach(g, recs, rnd)
}

// OpenBatch opens the records one by one, for the reason SealBatch gives.
func (g *gcmRecord) OpenBatch(dst []byte, recs []BatchRecord) (int, error) {
	return openEach(g.open, dst, recs)
}
