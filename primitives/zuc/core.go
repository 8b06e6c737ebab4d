// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import "math/bits"

// state is the ZUC machine between keystream words: the linear feedback
// shift register s0…s15 (31-bit cells, lfsr[0] the oldest) and the two
// 32-bit memory cells R1, R2 of the nonlinear function F. The bit
// reorganisation outputs X0…X3 are not kept: they are recomputed from the
// LFSR for every word.
type state struct {
	lfsr   [16]uint32
	r1, r2 uint32
}

// kd holds the 15-bit loading constants d0…d15 of ZUC-128
// (GB/T 33133.1-2016, 5.5.1).
var kd = [16]uint32{
	0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af,
	0x4d78, 0x2f13, 0x6bc4, 0x1af1, 0x5e26, 0x3c4d, 0x789a, 0x47ac,
}

// zuc256D holds the 7-bit loading constants d0…d15 of ZUC-256 in the 2018
// specification (v1.1). The MAC modes replace d0…d2 (see zuc256MACD).
var zuc256D = [16]uint8{
	0x22, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40,
	0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30,
}

// zuc256MACD holds d0…d2 for the ZUC-256 MAC with a 32-, 64- and 128-bit
// tag; the rest of the constants are those of zuc256D. Different constants
// keep the keystream of one mode from ever equalling that of another.
var zuc256MACD = [3][3]uint8{
	{0x22, 0x2f, 0x25},
	{0x23, 0x2f, 0x24},
	{0x23, 0x2f, 0x25},
}

// The S-box tables below fold the byte position into the table, so that
// F's 32-bit S-box layer is four loads and three ORs.
//
// Table lookups with secret indices are not constant time on CPUs with data
// caches. Every software ZUC does it this way (the S-boxes have no compact
// algebraic form that is cheaper in constant time on general-purpose
// registers); the assembly kernels that replace this code use vector
// permutes or affine instructions instead.
var sb0, sb1, sb2, sb3 [256]uint32

func init() {
	for i := range 256 {
		sb0[i] = uint32(s0[i]) << 24
		sb1[i] = uint32(s1[i]) << 16
		sb2[i] = uint32(s0[i]) << 8
		sb3[i] = uint32(s1[i])
	}
}

// sbox applies S = (S0, S1, S0, S1) to the four bytes of x.
// The parentheses here and in l1, l2 shorten the dependency chain: F's
// memory cells feed back into themselves every round, so its latency, not
// its instruction count, bounds the keystream rate.
func sbox(x uint32) uint32 {
	return (sb0[x>>24] | sb1[uint8(x>>16)]) | (sb2[uint8(x>>8)] | sb3[uint8(x)])
}

// l1 and l2 are the linear transforms of F.
func l1(x uint32) uint32 {
	return (x ^ bits.RotateLeft32(x, 2)) ^ (bits.RotateLeft32(x, 10) ^
		bits.RotateLeft32(x, 18)) ^ bits.RotateLeft32(x, 24)
}

func l2(x uint32) uint32 {
	return (x ^ bits.RotateLeft32(x, 8)) ^ (bits.RotateLeft32(x, 14) ^
		bits.RotateLeft32(x, 22)) ^ bits.RotateLeft32(x, 30)
}

// cell makes an LFSR cell from a byte, a 7-bit middle part and two bytes, as
// the ZUC-256 loading does; ZUC-128 uses a byte, a 15-bit constant and a
// byte, which is the same as cell(k, d>>8, d&0xff, iv) with its bits laid
// out contiguously.
func cell(a, b, c, d uint8) uint32 {
	return uint32(a)<<23 | uint32(b)<<16 | uint32(c)<<8 | uint32(d)
}

// loadKey128 fills pre with the key- and constant-dependent part of each
// ZUC-128 cell (k_i || d_i || 0); the IV byte is ORed into the low byte by
// loadIV128.
func loadKey128(pre *[16]uint32, key []byte) {
	_ = key[15]
	for i := range 16 {
		pre[i] = uint32(key[i])<<23 | kd[i]<<8
	}
}

func loadIV128(s *state, pre *[16]uint32, iv []byte) {
	_ = iv[15]
	for i := range 16 {
		s.lfsr[i] = pre[i] | uint32(iv[i])
	}
}

// loadKey256 fills pre with the key- and constant-dependent parts of the
// ZUC-256 cells, with d the constants to use; loadIV256 ORs in the IV. The
// layout is the one of the 2018 specification, section 2.2: every cell is
// a byte, a 7-bit constant (into whose low bits IV17…IV24 or half of K31
// go) and two bytes.
func loadKey256(pre *[16]uint32, key []byte, d *[16]uint8) {
	k := key[:32]
	pre[0] = cell(k[0], d[0], k[21], k[16])
	pre[1] = cell(k[1], d[1], k[22], k[17])
	pre[2] = cell(k[2], d[2], k[23], k[18])
	pre[3] = cell(k[3], d[3], k[24], k[19])
	pre[4] = cell(k[4], d[4], k[25], k[20])
	pre[5] = cell(0, d[5], k[5], k[26])
	pre[6] = cell(0, d[6], k[6], k[27])
	pre[7] = cell(0, d[7], k[7], 0)
	pre[8] = cell(k[8], d[8], 0, 0)
	pre[9] = cell(k[9], d[9], 0, 0)
	pre[10] = cell(0, d[10], k[10], k[28])
	pre[11] = cell(k[11], d[11], 0, 0)
	pre[12] = cell(k[12], d[12], 0, 0)
	pre[13] = cell(k[13], d[13], 0, 0)
	pre[14] = cell(k[14], d[14]|k[31]>>4, 0, 0)
	pre[15] = cell(k[15], d[15]|k[31]&0x0f, k[30], k[29])
}

// loadIV256 takes the IV as 25 values: iv[0:17] bytes and iv[17:25] 6-bit
// values (already checked to fit).
func loadIV256(s *state, pre *[16]uint32, iv *[25]uint8) {
	s.lfsr[0] = pre[0]
	s.lfsr[1] = pre[1]
	s.lfsr[2] = pre[2]
	s.lfsr[3] = pre[3]
	s.lfsr[4] = pre[4]
	s.lfsr[5] = pre[5] | cell(iv[0], iv[17], 0, 0)
	s.lfsr[6] = pre[6] | cell(iv[1], iv[18], 0, 0)
	s.lfsr[7] = pre[7] | cell(iv[10], iv[19], 0, iv[2])
	s.lfsr[8] = pre[8] | cell(0, iv[20], iv[3], iv[11])
	s.lfsr[9] = pre[9] | cell(0, iv[21], iv[12], iv[4])
	s.lfsr[10] = pre[10] | cell(iv[5], iv[22], 0, 0)
	s.lfsr[11] = pre[11] | cell(0, iv[23], iv[6], iv[13])
	s.lfsr[12] = pre[12] | cell(0, iv[24], iv[7], iv[14])
	s.lfsr[13] = pre[13] | cell(0, 0, iv[15], iv[8])
	s.lfsr[14] = pre[14] | cell(0, 0, iv[16], iv[9])
	s.lfsr[15] = pre[15]
}

// unpackIV256 converts a 23- or 25-byte ZUC-256 IV to 25 values. In the
// 23-byte form the last six bytes hold IV17…IV24 as eight 6-bit fields,
// most significant first; in the 25-byte form each of them has its own
// byte and its top two bits must be zero (otherwise two different byte
// strings would name the same IV).
func unpackIV256(dst *[25]uint8, iv []byte) bool {
	switch len(iv) {
	case 23:
		copy(dst[:17], iv)
		x := uint64(iv[17])<<40 | uint64(iv[18])<<32 | uint64(iv[19])<<24 |
			uint64(iv[20])<<16 | uint64(iv[21])<<8 | uint64(iv[22])
		for i := range 8 {
			dst[17+i] = uint8(x>>(42-6*i)) & 0x3f
		}
		return true
	case 25:
		var high uint8
		for _, b := range iv[17:25] {
			high |= b
		}
		if high&0xc0 != 0 {
			return false
		}
		copy(dst[:], iv)
		return true
	}
	return false
}

// initialiseGeneric runs the 32 initialisation rounds, in which F's output
// (shifted right by one) is fed into the LFSR, and then the one work-mode
// round whose output is discarded, leaving s ready to produce z1. Each
// round writes its new cell after the 16 current ones, so the register
// shifts by moving a window over buf rather than by moving 16 words.
// initState dispatches to it or to an assembly kernel.
func initialiseGeneric(s *state) {
	var buf [16 + 33]uint32
	copy(buf[:16], s.lfsr[:])
	r1, r2 := s.r1, s.r2
	for i := range 33 {
		c := buf[i : i+16 : i+16]
		x0 := c[15]&0x7fff8000<<1 | c[14]&0xffff
		x1 := c[11]<<16 | c[9]>>15
		x2 := c[7]<<16 | c[5]>>15
		w := (x0 ^ r1) + r2
		w1 := r1 + x1
		w2 := r2 ^ x2
		r1 = sbox(l1(w1<<16 | w2>>16))
		r2 = sbox(l2(w2<<16 | w1>>16))
		v := uint64(c[15])<<15 + uint64(c[13])<<17 + uint64(c[10])<<21 +
			uint64(c[4])<<20 + uint64(c[0])<<8 + uint64(c[0])
		if i < 32 {
			v += uint64(w >> 1)
		}
		buf[i+16] = fold31(v)
	}
	copy(s.lfsr[:], buf[33:])
	s.r1, s.r2 = r1, r2
}

// fold31 reduces v < 2^54 modulo 2^31-1 using 2^31 ≡ 1. The result is in
// [1, 2^31-1]: it is never 0 for v > 0, and a multiple of the modulus comes
// out as 2^31-1, which is the representation of 0 that the LFSR requires.
// Every cell is nonzero after loading (its constant bits are nonzero) and
// the feedback includes (1+2^8)·s0, so v is never 0.
func fold31(v uint64) uint32 {
	v = v&0x7fffffff + v>>31 // < 2^31 + 2^23
	v = v&0x7fffffff + v>>31 // ≤ 2^31 - 1
	return uint32(v)
}
