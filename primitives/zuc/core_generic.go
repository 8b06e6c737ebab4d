// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"encoding/binary"
	"math/bits"
)

// genKeyStreamGeneric fills ks, whose length is a multiple of 16, with the
// next keystream words of s.
//
// Sixteen rounds make a batch. Round i of a batch reads the cells through
// the window buf[i:i+16] and appends its new cell at buf[i+16], so after
// the batch the register is buf[16:32] and one 64-byte copy moves it back:
// the LFSR never shifts word by word.
func genKeyStreamGeneric(s *state, ks []uint32) {
	var buf [32]uint32
	copy(buf[:16], s.lfsr[:])
	r1, r2 := s.r1, s.r2
	for len(ks) >= 16 {
		out := ks[:16:16]
		for i := range 16 {
			c := buf[i : i+16 : i+16]
			// Bit reorganisation.
			x0 := c[15]&0x7fff8000<<1 | c[14]&0xffff
			x1 := c[11]<<16 | c[9]>>15
			x2 := c[7]<<16 | c[5]>>15
			x3 := c[2]<<16 | c[0]>>15
			// F.
			w1 := r1 + x1
			w2 := r2 ^ x2
			out[i] = (x0 ^ r1) + r2 ^ x3
			r1 = sbox(l1(w1<<16 | w2>>16))
			r2 = sbox(l2(w2<<16 | w1>>16))
			// LFSR in work mode: s16 = 2^15·s15 + 2^17·s13 + 2^21·s10 +
			// 2^20·s4 + (1+2^8)·s0 mod 2^31-1, summed in 64 bits and
			// folded once at the end.
			buf[i+16] = fold31(uint64(c[15])<<15 + uint64(c[13])<<17 +
				uint64(c[10])<<21 + uint64(c[4])<<20 + uint64(c[0])<<8 + uint64(c[0]))
		}
		copy(buf[:16], buf[16:])
		ks = ks[16:]
	}
	copy(s.lfsr[:], buf[:16])
	s.r1, s.r2 = r1, r2
}

// eiaUpdateGeneric folds the big-endian 32-bit words of p (len(p) a
// multiple of 4) into the tag t: for message word j it adds (XOR) the
// 32-bit keystream window that starts at each set bit of the word, the
// windows being read from ks[j] ‖ ks[j+1]. len(ks) must be at least
// len(p)/4 + 1.
//
// For one word that sum is the top half of the carry-less product of the
// 64-bit window K = ks[j] ‖ ks[j+1] and the bit-reversed word (bit i of
// the reversed word selects K << i), computed by clmulLow without tables or
// branches, so it is constant time in both the keystream and the message.
func eiaUpdateGeneric(t uint32, ks []uint32, p []byte) uint32 {
	// Two message words per iteration: one little-endian load and one
	// in-byte bit reversal give both words bit-reversed (reversing the bits
	// of a big-endian word is reversing the bits within each byte of the
	// little-endian one).
	for len(p) >= 8 && len(ks) >= 3 {
		x := binary.LittleEndian.Uint64(p)
		x = x>>1&0x5555555555555555 | x&0x5555555555555555<<1
		x = x>>2&0x3333333333333333 | x&0x3333333333333333<<2
		x = x>>4&0x0f0f0f0f0f0f0f0f | x&0x0f0f0f0f0f0f0f0f<<4
		k0, k1, k2 := uint64(ks[0]), uint64(ks[1]), uint64(ks[2])
		t ^= uint32(clmulLow(k0<<32|k1, uint32(x))>>32) ^
			uint32(clmulLow(k1<<32|k2, uint32(x>>32))>>32)
		p, ks = p[8:], ks[2:]
	}
	if len(p) >= 4 && len(ks) >= 2 {
		m := bits.Reverse32(binary.BigEndian.Uint32(p))
		t ^= uint32(clmulLow(uint64(ks[0])<<32|uint64(ks[1]), m) >> 32)
	}
	return t
}

// clmulLow returns the low 64 bits of the carry-less product of k and m.
//
// It uses integer multiplication on operands with holes: each operand is
// split into four parts holding every fourth bit, so that in the product of
// two parts each result bit position receives at most 8 one-bits (m has 32
// bits, 8 per part) and the count never carries into the next position of
// the same residue class; the low bit of each count is the XOR we want.
// The 16 partial products are then combined by residue class.
func clmulLow(k uint64, m uint32) uint64 {
	const (
		c0 = 0x1111111111111111
		c1 = 0x2222222222222222
		c2 = 0x4444444444444444
		c3 = 0x8888888888888888
	)
	k0, k1, k2, k3 := k&c0, k&c1, k&c2, k&c3
	x := uint64(m)
	m0, m1, m2, m3 := x&c0, x&c1, x&c2, x&c3
	z0 := k0*m0 ^ k1*m3 ^ k2*m2 ^ k3*m1
	z1 := k0*m1 ^ k1*m0 ^ k2*m3 ^ k3*m2
	z2 := k0*m2 ^ k1*m1 ^ k2*m0 ^ k3*m3
	z3 := k0*m3 ^ k1*m2 ^ k2*m1 ^ k3*m0
	return z0&c0 | z1&c1 | z2&c2 | z3&c3
}

// xorKeyStreamGeneric sets dst = src XOR the next len(src) keystream bytes
// of s; len(src) is a multiple of 64 and len(dst) >= len(src).
func xorKeyStreamGeneric(s *state, dst, src []byte) {
	var ks [bulkWords]uint32
	for len(src) > 0 {
		n := min(len(src)/4, bulkWords)
		genKeyStreamGeneric(s, ks[:n])
		xorWords(dst[:4*n], src[:4*n], ks[:n])
		dst, src = dst[4*n:], src[4*n:]
	}
}

// macBlocksGeneric absorbs the 64-byte blocks of p into the first words
// words of tag. ks is the keystream window of the MAC: ks[off+i+j] ‖
// ks[off+i+j+1] pairs with message word j of the current block for tag
// word i, and ks[16:] is the next batch. After each block the window moves
// on by one batch, generated from s.
func macBlocksGeneric(s *state, ks *[2 * blockWords]uint32, off, words int, tag *[4]uint32, p []byte) {
	for len(p) >= macBlock {
		b := p[:macBlock]
		for i := range words {
			tag[i] = eiaUpdateGeneric(tag[i], ks[off+i:], b)
		}
		copy(ks[:blockWords], ks[blockWords:])
		genKeyStreamGeneric(s, ks[blockWords:])
		p = p[macBlock:]
	}
}

// macUpdateGeneric folds the 64-byte blocks of p into the first words words
// of tag: tag word i uses the keystream windows starting at word i of ks,
// so len(ks) must be at least len(p)/4 + words + 1.
func macUpdateGeneric(tag *[4]uint32, words int, ks []uint32, p []byte) {
	for i := range words {
		tag[i] = eiaUpdateGeneric(tag[i], ks[i:], p)
	}
}
