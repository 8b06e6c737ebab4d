// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// GHASH with carry-less multiplication (NIST SP 800-38D, 6.4).
//
// A block loaded little-endian and byte-reversed is the 128-bit integer
// whose bit 127 is the coefficient of x⁰, the bit-reflection of the
// polynomial. The carry-less product of two reflected operands is the
// reflected product shifted right by one bit, so the table holds the
// powers H^i multiplied by x⁻¹ (computed in Go), and the 256-bit product
// Z of a block and a table entry is exactly the reflection of block·H^i.
// Its low half D stands for the coefficients of x¹²⁸…x²⁵⁵; multiplying by
// x⁶⁴ in reflected form swaps D's halves and adds D.lo·(x⁷+x²+x+1)·x⁶⁴,
// which is the clmul of D.lo with 0xc2000000_00000000 (the bit-64 term is
// the swap itself). Two such steps fold D into the high half.
//
// The table (htab) holds H^16 … H^1 (times x⁻¹), each as a little-endian
// 128-bit integer: 16 blocks b0…b15 are hashed as Σ (b_j [⊕ Y]) · H^(16−j)
// and reduced once, which equals sixteen Horner steps.

func rev128() Mem {
	var b []byte
	for i := 15; i >= 0; i-- {
		b = append(b, byte(i))
	}
	return global("rev128", repeat(b))
}

func ghashPoly() Mem { return global("ghashPoly", qword(0xc200000000000000)) }

// clmul4 accumulates the four partial products of a (data) and h (table):
// lo ^= a.lo·h.lo, hi ^= a.hi·h.hi, mid ^= a.lo·h.hi ^ a.hi·h.lo. With
// first set it initialises the accumulators instead.
func clmul4(evex bool, a Register, h Op, lo, hi, mid, t0, t1 Register, first bool) {
	if first {
		VPCLMULQDQ(U8(0x00), h, a, lo)
		VPCLMULQDQ(U8(0x11), h, a, hi)
		VPCLMULQDQ(U8(0x01), h, a, mid)
		VPCLMULQDQ(U8(0x10), h, a, t0)
		if evex {
			VPXORD(t0, mid, mid)
		} else {
			VPXOR(t0, mid, mid)
		}
		return
	}
	VPCLMULQDQ(U8(0x00), h, a, t0)
	VPCLMULQDQ(U8(0x11), h, a, t1)
	if evex {
		VPXORD(t0, lo, lo)
		VPXORD(t1, hi, hi)
	} else {
		VPXOR(t0, lo, lo)
		VPXOR(t1, hi, hi)
	}
	VPCLMULQDQ(U8(0x01), h, a, t0)
	VPCLMULQDQ(U8(0x10), h, a, t1)
	if evex {
		VPTERNLOGD(U8(0x96), t1, t0, mid)
	} else {
		VPXOR(t0, mid, mid)
		VPXOR(t1, mid, mid)
	}
}

// reduce folds the XMM product (hi, lo, mid) into y: y = reduce(hi:lo).
// t is a temporary. lo, mid and hi are clobbered.
func reduce(lo, hi, mid, y, t Register) {
	VPSLLDQ(U8(8), mid, t)
	VPXOR(t, lo, lo)
	VPSRLDQ(U8(8), mid, mid)
	VPXOR(mid, hi, hi)
	for i := 0; i < 2; i++ {
		VPCLMULQDQ(U8(0x00), ghashPoly().Offset(0), lo, t)
		VPSHUFD(U8(0x4e), lo, lo)
		VPXOR(t, lo, lo)
	}
	VPXOR(hi, lo, y)
}

// foldZMM reduces 512-bit accumulators to 128 bits: the sum of the four
// lanes of each. They end up in the low lanes of the same registers.
func foldZMM(rs ...VecPhysical) {
	for _, r := range rs {
		VEXTRACTI64X4(U8(1), r, Y28)
		VPXORQ(Y28, r.AsY(), r.AsY())
		VEXTRACTI32X4(U8(1), r.AsY(), X28)
		VPXORD(X28, r.AsX(), r.AsX())
	}
}

// ghashXMMLoop emits the PCLMULQDQ loops: eight blocks per step with
// H^8…H^1, then single blocks. y is the state register (reflected),
// data the pointer, n the remaining length. Registers X0-X12 are used.
func ghashXMMLoop(name string, htab, data, n Register, y Register) {
	rev := rev128().Offset(0)
	Label(name + "Eight")
	CMPQ(n, U8(128))
	JB(LabelRef(name + "Single"))
	lo, hi, mid, t0, t1 := X8, X9, X10, X11, X12
	for j := 0; j < 8; j++ {
		a := zregs[j].AsX()
		VMOVDQU(Mem{Base: data, Disp: 16 * j}, a)
		VPSHUFB(rev, a, a)
		if j == 0 {
			VPXOR(y, a, a)
		}
		clmul4(false, a, Mem{Base: htab, Disp: 16 * (8 + j)}, lo, hi, mid, t0, t1, j == 0)
	}
	reduce(lo, hi, mid, y, t0)
	ADDQ(U8(128), data)
	SUBQ(U8(128), n)
	JMP(LabelRef(name + "Eight"))

	Label(name + "Single")
	CMPQ(n, U8(16))
	JB(LabelRef(name + "Done"))
	VMOVDQU(Mem{Base: data}, X0)
	VPSHUFB(rev, X0, X0)
	VPXOR(y, X0, X0)
	clmul4(false, X0, Mem{Base: htab, Disp: 16 * 15}, lo, hi, mid, t0, t1, true)
	reduce(lo, hi, mid, y, t0)
	ADDQ(U8(16), data)
	SUBQ(U8(16), n)
	JMP(LabelRef(name + "Single"))
	Label(name + "Done")
}

func genGHASH() {
	TEXT("ghashPCLMUL", NOSPLIT, "func(htab *[16][16]byte, y *[16]byte, data []byte)")
	Pragma("noescape")
	Doc("ghashPCLMUL absorbs len(data)/16 blocks into the GHASH state y with PCLMULQDQ,",
		"eight blocks per reduction; htab holds H¹⁶…H¹ (see ghashKey.table).")
	htab := Load(Param("htab"), RAX)
	yp := Load(Param("y"), RDX)
	data := Load(Param("data").Base(), RSI)
	n := Load(Param("data").Len(), RCX)
	y := X15
	VMOVDQU(Mem{Base: yp}, y)
	VPSHUFB(rev128().Offset(0), y, y)
	ghashXMMLoop("ghashPCLMUL", htab, data, n, y)
	VPSHUFB(rev128().Offset(0), y, y)
	VMOVDQU(y, Mem{Base: yp})
	RET()

	TEXT("ghashVPCLMUL512", NOSPLIT, "func(htab *[16][16]byte, y *[16]byte, data []byte)")
	Pragma("noescape")
	Doc("ghashVPCLMUL512 absorbs len(data)/16 blocks into the GHASH state y, sixteen at a time with VPCLMULQDQ on ZMM.")
	htab = Load(Param("htab"), RAX)
	yp = Load(Param("y"), RDX)
	data = Load(Param("data").Base(), RSI)
	n = Load(Param("data").Len(), RCX)
	VMOVDQU(Mem{Base: yp}, y)
	VPSHUFB(rev128().Offset(0), y, y)
	Label("ghash512Sixteen")
	CMPQ(n, U32(256))
	JB(LabelRef("ghash512Rest"))
	ghash16(htab, func(k int) Op { return Mem{Base: data, Disp: 64 * k} }, y, [4]VecPhysical{Z0, Z1, Z2, Z3}, Z4, Z5, Z6, Z7, Z8)
	ADDQ(U32(256), data)
	SUBQ(U32(256), n)
	JMP(LabelRef("ghash512Sixteen"))
	Label("ghash512Rest")
	ghashXMMLoop("ghash512", htab, data, n, y)
	VPSHUFB(rev128().Offset(0), y, y)
	VMOVDQU(y, Mem{Base: yp})
	VZEROUPPER()
	RET()
}

// ghash16 absorbs sixteen blocks, given as four ZMM operands (memory or
// registers, in block byte order), into the XMM state y. d are the
// registers the data is loaded into and byte-reversed in; lo, hi, mid, t0,
// t1 temporaries. y must be an XMM register whose ZMM upper part is zero
// (any VEX or EVEX XMM write ensures that).
func ghash16(htab Register, src func(k int) Op, y Register, d [4]VecPhysical, lo, hi, mid, t0, t1 VecPhysical) {
	rev := rev128()
	for k := 0; k < 4; k++ {
		if m, ok := src(k).(Mem); ok {
			VMOVDQU64(m, d[k])
			VPSHUFB(rev, d[k], d[k])
		} else {
			VPSHUFB(rev, src(k), d[k])
		}
	}
	VPXORD(y.(VecPhysical).AsZ(), d[0], d[0])
	for k := 0; k < 4; k++ {
		clmul4(true, d[k], Mem{Base: htab, Disp: 64 * k}, lo, hi, mid, t0, t1, k == 0)
	}
	// Fold mid into lo and hi while still 512 bits wide, then the lanes.
	VPSLLDQ(U8(8), mid, t0)
	VPSRLDQ(U8(8), mid, mid)
	VPXORD(t0, lo, lo)
	VPXORD(mid, hi, hi)
	foldZMM(lo, hi)
	for i := 0; i < 2; i++ {
		VPCLMULQDQ(U8(0x00), ghashPoly().Offset(0), lo.AsX(), t0.AsX())
		VPSHUFD(U8(0x4e), lo.AsX(), lo.AsX())
		VPXORD(t0.AsX(), lo.AsX(), lo.AsX())
	}
	VPXORD(hi.AsX(), lo.AsX(), y)
}
