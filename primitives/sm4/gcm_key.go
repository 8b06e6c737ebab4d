// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"encoding/binary"
)

// gcmWithBlock is an SM4-GCM and its block cipher in one allocation.
type gcmWithBlock struct {
	gcm
	block Block
}

// NewGCMWithKey returns SM4 in Galois/Counter Mode with the standard
// 12-byte nonce and 16-byte tag under key: what cipher.NewGCM returns for
// NewCipher(key), set up for callers that make many short-lived keys (a
// TLS or TLCP handshake makes four). The cipher and the mode are one
// allocation, the mode's key tables are written in place rather than built
// on the stack and copied, and the first powers of H for the portable
// GHASH are read off the carry-less table instead of multiplied again.
func NewGCMWithKey(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, KeySizeError(len(key))
	}
	gb := new(gcmWithBlock)
	gb.block.init(key)
	g := &gb.gcm
	g.b, g.nonceSize, g.tagSize = &gb.block, gcmStandardNonceSize, gcmTagSize
	g.initHashKey()
	return g, nil
}

// initHashKey sets g.h and g.htab from H = E(0) as NewGCM does. ghashTable
// reads only H and its first operand (on every architecture, whether it
// multiplies with the portable code or a carry-less kernel), so those are
// set first and H², H³, H⁴ are then taken from the table.
func (g *gcm) initHashKey() {
	var h [BlockSize]byte
	encryptBlock(g.b, h[:], h[:])
	k := &g.h
	k.h = ghashState{binary.BigEndian.Uint64(h[0:]), binary.BigEndian.Uint64(h[8:])}
	k.pow[0] = newGHASHOperand(k.h.hi, k.h.lo)
	clear(h[:])
	ghashTable(k, &g.htab)
	for i := 1; i < len(k.pow); i++ {
		p := tableEntryState(&g.htab[16-(i+1)])
		k.pow[i] = newGHASHOperand(p.hi, p.lo)
	}
}

// tableEntryState inverts putTableEntry: it reads a table entry, a power
// of H times x⁻¹ in the kernels' order, and multiplies it by x again.
func tableEntryState(e *[16]byte) ghashState {
	lo, hi := binary.LittleEndian.Uint64(e[0:]), binary.LittleEndian.Uint64(e[8:])
	// Multiplying by x is a right shift in the reflected order; the bit
	// shifted out stands for x¹²⁸ = x⁷ + x² + x + 1.
	carry := lo & 1
	lo = lo>>1 | hi<<63
	hi = hi>>1 ^ 0xe100000000000000&-carry
	return ghashState{hi, lo}
}
