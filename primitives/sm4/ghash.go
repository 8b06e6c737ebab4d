// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"encoding/binary"
	"math/bits"
)

// GHASH (NIST SP 800-38D, 6.4) multiplies in GF(2¹²⁸) with the bits of each
// byte taken most significant first as the lowest powers of x. Loading a
// block as a big-endian 128-bit integer therefore gives the bit-reversal of
// the polynomial. The product of two reversed 128-bit polynomials is the
// reversed 255-bit product, so after a one-bit shift the upper half of the
// 256-bit result holds the low coefficients and the lower half the ones that
// must be reduced by x¹²⁸ + x⁷ + x² + x + 1.
//
// Carry-less 64×64 multiplication is done with ordinary integer multiplies
// on operands whose bits are spread out four apart ("holes"), so carries
// cannot reach a bit that is kept. There are no tables and no branches on
// data, and 64-bit integer multiplication takes constant time on the CPUs
// that matter here (amd64, arm64; some old or embedded cores differ), so
// GHASH has no secret-dependent timing there. Integer multiplication
// yields only the low 64 bits of each product; the high 64 bits come from
// multiplying the bit-reversed operands.

// ghashKey is the hash key H and its powers H², H³, H⁴, prepared for
// multiplication: pow[i] is H^(i+1). Four powers let four blocks be
// multiplied independently and reduced once ((Y⊕X₁)·H⁴ ⊕ X₂·H³ ⊕ X₃·H² ⊕
// X₄·H equals four Horner steps), which also gives the CPU four independent
// chains of work.
type ghashKey struct {
	pow [4]ghashOperand
	h   ghashState // H itself
}

// ghashOperand is one fixed multiplier split for clmulLow: its two 64-bit
// halves, their sum (Karatsuba's middle operand) and the bit-reversals of
// those three, each already cut into the four bit classes clmulLow uses.
type ghashOperand [6][4]uint64

func splitBits(x uint64) [4]uint64 {
	return [4]uint64{x & m0, x & m1, x & m2, x & m3}
}

func newGHASHOperand(hi, lo uint64) ghashOperand {
	h0, h1 := lo, hi
	h0r, h1r := bits.Reverse64(h0), bits.Reverse64(h1)
	return ghashOperand{
		splitBits(h0), splitBits(h1), splitBits(h0 ^ h1),
		splitBits(h0r), splitBits(h1r), splitBits(h0r ^ h1r),
	}
}

func newGHASHKey(h *[BlockSize]byte) ghashKey {
	var k ghashKey
	k.set(h)
	return k
}

// set makes k the key for H = h, in place: a ghashKey is 784 bytes, too
// many to pass around by value on a handshake goroutine's small stack.
func (k *ghashKey) set(h *[BlockSize]byte) {
	hi, lo := binary.BigEndian.Uint64(h[0:]), binary.BigEndian.Uint64(h[8:])
	k.pow[0] = newGHASHOperand(hi, lo)
	k.h = ghashState{hi, lo}
	p := ghashState{hi, lo}
	for i := 1; i < len(k.pow); i++ {
		p.mulH(k)
		k.pow[i] = newGHASHOperand(p.hi, p.lo)
	}
}

// Masks for the four bit classes (bit positions modulo 4).
const (
	m0 = 0x1111111111111111
	m1 = 0x2222222222222222
	m2 = 0x4444444444444444
	m3 = 0x8888888888888888
)

// clmulLow returns the low 64 bits of the carry-less product of x and the
// operand split into y. Each operand is split into four parts holding every
// fourth bit; in the integer product of two parts every column receives at
// most 16 set bits, and only columns at 60 and above can receive 16, so a
// carry never lands on a kept bit of the truncated product.
func clmulLow(x uint64, y *[4]uint64) uint64 {
	x0, x1, x2, x3 := x&m0, x&m1, x&m2, x&m3
	y0, y1, y2, y3 := y[0], y[1], y[2], y[3]
	z0 := x0*y0 ^ x1*y3 ^ x2*y2 ^ x3*y1
	z1 := x0*y1 ^ x1*y0 ^ x2*y3 ^ x3*y2
	z2 := x0*y2 ^ x1*y1 ^ x2*y0 ^ x3*y3
	z3 := x0*y3 ^ x1*y2 ^ x2*y1 ^ x3*y0
	return z0&m0 | z1&m1 | z2&m2 | z3&m3
}

// ghashState is the running GHASH value Y, as the big-endian halves of the
// block: hi holds bytes 0–7, lo bytes 8–15.
type ghashState struct {
	hi, lo uint64
}

// ghashProduct accumulates unreduced products. Everything after the six
// partial multiplications (bit-reversal, Karatsuba recombination, shift,
// reduction) is linear over GF(2), so a sum of products can be finished
// once instead of once per product.
type ghashProduct struct {
	z0, z1, z2, z0h, z1h, z2h uint64
}

// mulAdd adds (hi‖lo)·p to the accumulated product.
func (a *ghashProduct) mulAdd(hi, lo uint64, p *ghashOperand) {
	y1, y0 := hi, lo
	y0r, y1r := bits.Reverse64(y0), bits.Reverse64(y1)
	a.z0 ^= clmulLow(y0, &p[0])
	a.z1 ^= clmulLow(y1, &p[1])
	a.z2 ^= clmulLow(y0^y1, &p[2])
	a.z0h ^= clmulLow(y0r, &p[3])
	a.z1h ^= clmulLow(y1r, &p[4])
	a.z2h ^= clmulLow(y0r^y1r, &p[5])
}

// reduce finishes the accumulated product into y.
func (a *ghashProduct) reduce(y *ghashState) {
	// Karatsuba: the middle product minus the outer ones.
	z2 := a.z2 ^ a.z0 ^ a.z1
	z2h := a.z2h ^ a.z0h ^ a.z1h
	// The reversed products hold the high halves bit-reversed; a 64×64
	// product has 127 bits, hence the shift.
	z0h := bits.Reverse64(a.z0h) >> 1
	z1h := bits.Reverse64(a.z1h) >> 1
	z2h = bits.Reverse64(z2h) >> 1

	// The 255-bit product, v3 most significant, shifted left by one bit to
	// account for the reversed representation.
	v0 := a.z0
	v1 := z0h ^ z2
	v2 := a.z1 ^ z2h
	v3 := z1h
	v3 = v3<<1 | v2>>63
	v2 = v2<<1 | v1>>63
	v1 = v1<<1 | v0>>63
	v0 <<= 1

	// Reduce: fold the low 128 bits (the high powers of x) back in, using
	// x¹²⁸ = x⁷ + x² + x + 1, in the reflected order.
	v2 ^= v0 ^ v0>>1 ^ v0>>2 ^ v0>>7
	v1 ^= v0<<63 ^ v0<<62 ^ v0<<57
	v3 ^= v1 ^ v1>>1 ^ v1>>2 ^ v1>>7
	v2 ^= v1<<63 ^ v1<<62 ^ v1<<57

	y.hi, y.lo = v3, v2
}

// mulH sets y to y·H.
func (y *ghashState) mulH(k *ghashKey) {
	var a ghashProduct
	a.mulAdd(y.hi, y.lo, &k.pow[0])
	a.reduce(y)
}

// update absorbs data into y, zero-padding a final partial block.
func (y *ghashState) update(k *ghashKey, data []byte) {
	for len(data) >= 4*BlockSize {
		var a ghashProduct
		a.mulAdd(y.hi^binary.BigEndian.Uint64(data[0:]), y.lo^binary.BigEndian.Uint64(data[8:]), &k.pow[3])
		a.mulAdd(binary.BigEndian.Uint64(data[16:]), binary.BigEndian.Uint64(data[24:]), &k.pow[2])
		a.mulAdd(binary.BigEndian.Uint64(data[32:]), binary.BigEndian.Uint64(data[40:]), &k.pow[1])
		a.mulAdd(binary.BigEndian.Uint64(data[48:]), binary.BigEndian.Uint64(data[56:]), &k.pow[0])
		a.reduce(y)
		data = data[4*BlockSize:]
	}
	for len(data) >= BlockSize {
		y.hi ^= binary.BigEndian.Uint64(data[0:])
		y.lo ^= binary.BigEndian.Uint64(data[8:])
		y.mulH(k)
		data = data[BlockSize:]
	}
	if len(data) > 0 {
		var last [BlockSize]byte
		copy(last[:], data)
		y.hi ^= binary.BigEndian.Uint64(last[0:])
		y.lo ^= binary.BigEndian.Uint64(last[8:])
		y.mulH(k)
	}
}

// ghashUpdateGeneric absorbs data into the GHASH state y (a block in its
// byte form), zero-padding a final partial block.
func ghashUpdateGeneric(k *ghashKey, y *[BlockSize]byte, data []byte) {
	s := ghashState{binary.BigEndian.Uint64(y[0:]), binary.BigEndian.Uint64(y[8:])}
	s.update(k, data)
	s.bytes(y)
}

// table fills t with H¹⁶…H¹ for the carry-less multiplication kernels:
// t[16−i] is H^i·x⁻¹ as the little-endian 128-bit integer whose bit 127 is
// the coefficient of x⁰. The factor x⁻¹ cancels the one-bit shift that a
// carry-less product of two such reflected values has (see _asm/ghash.go).
// t[15], H¹ itself, is set already (see gcm.initHashKey) and not written
// again: kernels may be reading it.
func (k *ghashKey) table(t *[16][16]byte) {
	p := ghashState{k.h.hi, k.h.lo}
	for i := 2; i <= 16; i++ {
		p.mulH(k)
		p.putTableEntry(&t[16-i])
	}
}

// putTableEntry stores y (a power of H) the way the carry-less kernels
// read their table: times x⁻¹, as little-endian halves.
func (y ghashState) putTableEntry(e *[16]byte) {
	// Multiplying by x⁻¹ is a left shift in the reflected order; the
	// bit shifted out stands for x⁻¹ = x¹²⁷ + x⁶ + x + 1.
	carry := y.hi >> 63
	hi := y.hi<<1 | y.lo>>63
	lo := y.lo<<1 ^ carry
	hi ^= 0xc200000000000000 & -carry
	binary.LittleEndian.PutUint64(e[0:], lo)
	binary.LittleEndian.PutUint64(e[8:], hi)
}

func (y *ghashState) bytes(out *[BlockSize]byte) {
	binary.BigEndian.PutUint64(out[0:], y.hi)
	binary.BigEndian.PutUint64(out[8:], y.lo)
}
