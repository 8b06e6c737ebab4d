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
	b, err := sm4.NewCipher(k.Key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(b)
	if err != nil {
		return nil, err
	}
	g := &gcmRecord{aead: aead}
	copy(g.nonce[:gcmIVLen], k.IV)
	return g, nil
}

func (g *gcmRecord) Overhead() int { return gcmOverhead }

func (g *gcmRecord) Seal(dst []byte, typ uint8, plaintext []byte, _ io.Reader) ([]byte, error) {
	n := len(plaintext)
	if n > MaxPlaintext {
		return nil, ErrRecordOverflow
	}
	if err := g.seq.check(); err != nil {
		return nil, err
	}
	ret, out := sliceForAppend(dst, gcmExplicitLen+n+gcmTagLen)
	data := out[gcmExplicitLen : gcmExplicitLen+n]
	moveTo(data, plaintext)

	// The explicit nonce is the sequence number: unique per key by construction,
	// which a random value would only be with high probability.
	binary.BigEndian.PutUint64(g.nonce[gcmIVLen:], uint64(g.seq))
	copy(out, g.nonce[gcmIVLen:])
	putHeader(&g.aad, g.seq, typ, n)
	g.aead.Seal(data[:0], g.nonce[:], data, g.aad[:])

	g.seq++
	return ret, nil
}

func (g *gcmRecord) Open(typ uint8, fragment []byte) ([]byte, error) {
	if len(fragment) > MaxCiphertext || len(fragment)-gcmOverhead > MaxPlaintext {
		return nil, ErrRecordOverflow
	}
	if len(fragment) < gcmOverhead {
		return nil, ErrBadRecordMAC
	}
	if err := g.seq.check(); err != nil {
		return nil, err
	}
	// Peers differ in how they choose the explicit nonce (tlcp/INTEROP.md §1.6), so take
	// it from the record; the AAD uses our own sequence number regardless.
	copy(g.nonce[gcmIVLen:], fragment[:gcmExplicitLen])
	ct := fragment[gcmExplicitLen:]
	putHeader(&g.aad, g.seq, typ, len(ct)-gcmTagLen)
	plaintext, err := g.aead.Open(ct[:0], g.nonce[:], ct, g.aad[:])
	if err != nil {
		return nil, ErrBadRecordMAC
	}
	g.seq++
	return plaintext, nil
}
