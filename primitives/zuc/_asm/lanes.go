// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The multi-lane kernels run 16 (AVX-512) or 8 (AVX2) independent ZUC
// instances, one per 32-bit lane, on the laneState layout: row j of the
// LFSR holds cell j of every lane (rows are 64 bytes apart), then the rows
// of R1 and R2. The LFSR rows are a ring: round i of a block of 16 reads
// cell k from row (i+k) mod 16 and writes its new cell to row i, so that
// after 16 rounds the rows are in order again.
//
// Everything is lane-parallel, so unlike the single-stream kernels these
// are bound by throughput as much as by latency: the LFSR is computed in
// vector registers with lazy reduction (sums kept in [0, 2^31-1] by
// x ↦ min(x, x-p), unsigned, and the last addition folded to the canonical
// [1, 2^31-1]), and the AVX-512 kernels keep each cell also doubled in a
// second ring on the stack, so that 31-bit rotations and the bit
// reorganisation are single VPSHLDD funnel shifts.

const (
	lsR1 = 16 * 64 // offset of the R1 row in laneState
	lsR2 = 17 * 64
)

// lg holds the state of one multi-lane kernel being generated.
type lg struct {
	f   *family
	ls  Mem // the laneState (DI)
	dbl Mem // doubled cells, 16 rows of 64 bytes (AVX-512)
	zb  Mem // the 16 output rows of a block
	v   func(i int) VecPhysical
}

func newLG(f *family) *lg {
	g := &lg{f: f, ls: Mem{Base: RDI}}
	if f.avx512 {
		g.v = zr
	} else {
		g.v = yr
	}
	return g
}

func (g *lg) cell(i, k int) Mem  { return g.ls.Offset(64 * ((i + k) % 16)) }
func (g *lg) dcell(i, k int) Mem { return g.dbl.Offset(64 * ((i + k) % 16)) }

func (g *lg) mov(src, dst Op) {
	if g.f.avx512 {
		VMOVDQU32(src, dst)
	} else {
		VMOVDQU(src, dst)
	}
}

func (g *lg) xor(a, b, dst Op) {
	if g.f.avx512 {
		VPXORD(a, b, dst)
	} else {
		VPXOR(a, b, dst)
	}
}

func (g *lg) and(a, b, dst Op) {
	if g.f.avx512 {
		VPANDD(a, b, dst)
	} else {
		VPAND(a, b, dst)
	}
}

// Registers of the AVX-512 multi-lane kernels:
//
//	Z0-Z3   S0 table            Z8, Z9    R1, R2 of the 16 lanes
//	Z4, Z5  GFNI matrices       Z10-Z12   byte shuffles: <<<24 | <<<8 | <<<16
//	Z6      2^31-1              K1        odd bytes
//	Z7      0xffff0000          Z13-Z31   temporaries
//
// Registers of the AVX2 kernels:
//
//	Y8, Y9  R1, R2 of the 8 lanes      Y10  0x0f bytes
//	Y11     2^31-1                     Y0-Y7, Y12-Y15 temporaries
func (g *lg) loadConsts() {
	if g.f.avx512 {
		for i := range 4 {
			VMOVDQU64(gS0.Offset(64*i), zr(i))
		}
		VPBROADCASTQ(gGFNI, Z4)
		VPBROADCASTQ(gGFNI.Offset(8), Z5)
		VPBROADCASTD(cP31, Z6)
		VPBROADCASTD(cHiMask, Z7)
		VBROADCASTI32X4(cRolL, Z10)
		VBROADCASTI32X4(cRolL.Offset(32), Z11)
		VBROADCASTI32X4(cRolL.Offset(64), Z12)
		MOVQ(U64(0xaaaaaaaaaaaaaaaa), RAX)
		KMOVQ(RAX, K1)
	} else {
		VMOVDQU(cNibble, Y10)
		VMOVDQU(cP31, Y11)
	}
	g.mov(g.ls.Offset(lsR1), g.v(8))
	g.mov(g.ls.Offset(lsR2), g.v(9))
}

func (g *lg) saveR() {
	g.mov(g.v(8), g.ls.Offset(lsR1))
	g.mov(g.v(9), g.ls.Offset(lsR2))
}

// madd emits s = s + t with the result in [0, p] (0 and p both meaning 0),
// for s, t in [0, p]: min(s+t, s+t-p), unsigned.
func (g *lg) madd(s, t, tmp VecPhysical) {
	VPADDD(t, s, s)
	if g.f.avx512 {
		VPSUBD(g.v(6), s, tmp)
	} else {
		VPSUBD(g.v(11), s, tmp)
	}
	VPMINUD(tmp, s, s)
}

// maddFinal emits s = s + t folded to [1, p], for s in [0, p] and t in
// [1, p] (so s+t > 0): (s+t mod 2^31) + (s+t)>>31.
func (g *lg) maddFinal(s, t, tmp VecPhysical) {
	VPADDD(t, s, s)
	VPSRLD(U8(31), s, tmp)
	if g.f.avx512 {
		VPANDD(Z6, s, s)
	} else {
		VPAND(Y11, s, s)
	}
	VPADDD(tmp, s, s)
}

// rot31 emits dst = 2^k · (cell at c, d) mod p, the 31-bit rotation; d is
// the doubled cell (AVX-512) or unused.
func (g *lg) rot31(c, d Mem, k int, dst, tmp VecPhysical) {
	if g.f.avx512 {
		VMOVDQU32(c, dst)
		VPSHLDD(U8(k), d, dst, dst) // c<<k | 2c>>(32-k)
		VPANDD(Z6, dst, dst)
		return
	}
	VMOVDQU(c, tmp)
	VPSLLD(U8(k), tmp, dst)
	VPSRLD(U8(31-k), tmp, tmp)
	VPOR(tmp, dst, dst)
	VPAND(Y11, dst, dst)
}

// brc emits hi<<16 | lo>>15 of the cells (c_hi, c_lo) into dst.
func (g *lg) brc(i, hi, lo int, dst, tmp VecPhysical) {
	if g.f.avx512 {
		VMOVDQU32(g.cell(i, hi), dst)
		VPSHLDD(U8(16), g.dcell(i, lo), dst, dst)
		return
	}
	VMOVDQU(g.cell(i, hi), dst)
	VPSLLD(U8(16), dst, dst)
	VMOVDQU(g.cell(i, lo), tmp)
	VPSRLD(U8(15), tmp, tmp)
	VPOR(tmp, dst, dst)
}

// l emits x = L1(x) (l2 false) or L2(x), with temporaries t0-t2.
func (g *lg) l(x VecPhysical, l2 bool, t0, t1, t2 VecPhysical) {
	ra, rb := 2, 10 // x<<<ra, x<<<rb, x<<<24 by bytes, (x<<<ra)<<<16 by bytes
	if l2 {
		ra, rb = 14, 22 // and x<<<8
	}
	if g.f.avx512 {
		VPROLD(U8(ra), x, t0)
		VPROLD(U8(rb), x, t1)
		if l2 {
			VPSHUFB(Z11, x, t2)
		} else {
			VPSHUFB(Z10, x, t2)
		}
		VPTERNLOGD(U8(0x96), t1, t0, x)
		VPSHUFB(Z12, t0, t0)
		VPTERNLOGD(U8(0x96), t2, t0, x)
		return
	}
	rot := func(r int, dst VecPhysical) {
		VPSLLD(U8(r), x, dst)
		VPSRLD(U8(32-r), x, t2)
		VPOR(t2, dst, dst)
	}
	rot(ra, t0)
	rot(rb, t1)
	VPXOR(t1, x, t1)
	VPXOR(t0, t1, t1)
	VPSHUFB(cRolL.Offset(64), t0, t0)
	VPXOR(t0, t1, t1)
	if l2 {
		VPSHUFB(cRolL.Offset(32), x, t2)
	} else {
		VPSHUFB(cRolL, x, t2)
	}
	VPXOR(t2, t1, x)
}

// sbox emits out = S(x) on every dword; x is clobbered.
func (g *lg) sbox(x, out VecPhysical, t []VecPhysical) {
	if g.f.avx512 {
		VMOVDQA64(Z0, t[1])
		VMOVDQA64(Z2, t[2])
		VGF2P8AFFINEQB(U8(0), Z4, x, t[0])
		VGF2P8AFFINEINVQB(U8(0x55), Z5, t[0], t[0])
		VPERMT2B(Z1, x, t[1])
		VPERMT2B(Z3, x, t[2])
		VPMOVB2M(x, K2)
		VPBLENDMB(t[2], t[1], K2, t[1])
		VPBLENDMB(t[1], t[0], K1, out)
		return
	}
	// AVX2: x (Y) and temporaries t[0..6] (Y, their X halves used for
	// AESENCLAST).
	lo, hi := t[0], t[1]
	VPAND(Y10, x, lo)
	VPSRLW(U8(4), x, hi)
	VPAND(Y10, hi, hi)
	// S1.
	a, b := t[2], t[3]
	VBROADCASTI128(gS1AES, a)
	VPSHUFB(lo, a, a)
	VBROADCASTI128(gS1AES.Offset(16), b)
	VPSHUFB(hi, b, b)
	VPXOR(b, a, a)
	VPSHUFB(cISR, a, a) // cancel ShiftRows
	VEXTRACTI128(U8(1), a, b.AsX())
	VPXOR(x.AsX(), x.AsX(), x.AsX())
	VAESENCLAST(x.AsX(), a.AsX(), a.AsX())
	VAESENCLAST(x.AsX(), b.AsX(), b.AsX())
	VINSERTI128(U8(1), b.AsX(), a, a)
	VPAND(Y10, a, b)
	VPSRLW(U8(4), a, a)
	VPAND(Y10, a, a)
	VBROADCASTI128(gS1AES.Offset(32), x)
	VPSHUFB(b, x, x)
	VBROADCASTI128(gS1AES.Offset(48), b)
	VPSHUFB(a, b, b)
	VPXOR(b, x, x) // S1 in x
	// S0.
	tt, u, v := t[2], t[3], t[4]
	VBROADCASTI128(gS0Nibble, tt)
	VPSHUFB(lo, tt, tt)
	VPXOR(hi, tt, tt)
	VBROADCASTI128(gS0Nibble.Offset(16), u)
	VPSHUFB(tt, u, u)
	VPXOR(lo, u, u)
	VBROADCASTI128(gS0Nibble.Offset(32), v)
	VPSHUFB(u, v, v)
	VPXOR(tt, v, v)
	VBROADCASTI128(gS0Nibble.Offset(48), lo)
	VPSHUFB(v, lo, lo)
	VBROADCASTI128(gS0Nibble.Offset(64), hi)
	VPSHUFB(u, hi, hi)
	VPXOR(hi, lo, lo) // S0
	VMOVDQU(cOddBytes, hi)
	VPBLENDVB(hi, lo, x, out)
}

// Round modes of the multi-lane kernels.
const (
	rWork    = iota // work mode, keystream word to row i of zb
	rInit           // initialisation mode: W>>1 fed into the LFSR
	rDiscard        // work mode, output discarded
)

// round emits round i (mod 16) of a block in mode m.
func (g *lg) round(i int, m int) {
	init := m == rInit
	v := g.v
	x0, x1, x2, x3 := Y12, Y13, Y14, Y15
	if g.f.avx512 {
		x0, x1, x2, x3 = Z13, Z14, Z15, Z16
	}
	t := func(k int) VecPhysical {
		if g.f.avx512 {
			return v(17 + k)
		}
		return v(k)
	}
	// Bit reorganisation.
	if g.f.avx512 {
		VMOVDQU32(g.dcell(i, 15), x0)
		VPTERNLOGD(U8(0xe2), g.cell(i, 14), Z7, x0) // H ? 2c15 : c14
	} else {
		VMOVDQU(g.cell(i, 15), x0)
		VPSLLD(U8(1), x0, x0)
		VPBLENDW(U8(0x55), g.cell(i, 14), x0, x0) // low halves from c14
	}
	g.brc(i, 11, 9, x1, t(0))
	g.brc(i, 7, 5, x2, t(0))
	// F's output: (X0 ^ R1) + R2, then ^ X3 in work mode.
	g.xor(v(8), x0, x0)
	VPADDD(v(9), x0, x0)
	if m == rWork {
		g.brc(i, 2, 0, x3, t(0))
		g.xor(x3, x0, x3)
		g.mov(x3, g.zb.Offset(64*i))
	}
	// W1 = R1 + X1, W2 = R2 ^ X2, and the two halves-swapped words.
	VPADDD(v(8), x1, x1)
	g.xor(v(9), x2, x2)
	u1, u2 := v(8), v(9)
	if g.f.avx512 {
		VPSHLDD(U8(16), x2, x1, u1)
		VPSHLDD(U8(16), x1, x2, u2)
	} else {
		VPSLLD(U8(16), x1, u1)
		VPSRLD(U8(16), x2, t(0))
		VPOR(t(0), u1, u1)
		VPSLLD(U8(16), x2, u2)
		VPSRLD(U8(16), x1, t(0))
		VPOR(t(0), u2, u2)
	}
	g.l(u1, false, t(0), t(1), t(2))
	g.l(u2, true, t(0), t(1), t(2))
	if g.f.avx512 {
		g.sbox(u1, u1, []VecPhysical{t(0), t(1), t(2)})
		g.sbox(u2, u2, []VecPhysical{t(3), t(4), t(5)})
	} else {
		ts := []VecPhysical{Y0, Y1, Y2, Y3, Y4}
		g.sbox(u1, u1, ts)
		g.sbox(u2, u2, ts)
	}
	// The LFSR: 2^15 c15 + 2^17 c13 + 2^21 c10 + 2^20 c4 + (1+2^8) c0
	// (+ W>>1) mod p into row i.
	s, r, tmp := x1, x2, x3
	g.mov(g.cell(i, 0), s)
	g.rot31(g.cell(i, 0), g.dcell(i, 0), 8, r, tmp)
	g.madd(s, r, tmp)
	for _, c := range [][2]int{{4, 20}, {10, 21}, {13, 17}} {
		g.rot31(g.cell(i, c[0]), g.dcell(i, c[0]), c[1], r, tmp)
		g.madd(s, r, tmp)
	}
	if init {
		VPSRLD(U8(1), x0, r)
		g.madd(s, r, tmp)
	}
	g.rot31(g.cell(i, 15), g.dcell(i, 15), 15, r, tmp)
	g.maddFinal(s, r, tmp)
	g.mov(s, g.cell(i, 0))
	if g.f.avx512 {
		VPADDD(s, s, s)
		VMOVDQU32(s, g.dcell(i, 0))
	}
}

// makeDoubled fills the doubled ring from the LFSR rows.
func (g *lg) makeDoubled() {
	if !g.f.avx512 {
		return
	}
	for j := range 16 {
		VMOVDQU32(g.cell(0, j), Z13)
		VPADDD(Z13, Z13, Z13)
		VMOVDQU32(Z13, g.dcell(0, j))
	}
}

// genLanesInit generates lanesInit<f>(ls *laneState).
func genLanesInit(f *family) {
	name := "lanesInit" + f.name
	TEXT(name, 0, "func(ls *[18][16]uint32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s initialises the first %d lanes of ls (a laneState), as lanesInitGeneric.", name, lanesOf(f)))
	g := newLG(f)
	if f.avx512 {
		g.dbl = AllocLocal(16 * 64)
	}
	Load(Param("ls"), RDI)
	g.loadConsts()
	g.makeDoubled()
	MOVL(U32(2), ECX)
	Label(name + "Loop")
	for i := range 16 {
		g.round(i, rInit)
	}
	DECL(ECX)
	JNZ(LabelRef(name + "Loop"))
	// The work-mode round whose output is discarded writes row 0; the
	// register then starts at row 1: rotate the rows back into place.
	g.round(0, rDiscard)
	g.saveR()
	for j := range 16 {
		g.mov(g.cell(1, j), g.v(j))
	}
	for j := range 16 {
		g.mov(g.v(j), g.cell(0, j))
	}
	VZEROUPPER()
	RET()
}

func lanesOf(f *family) int {
	if f.avx512 {
		return 16
	}
	return 8
}

// genLanesKeyStream generates lanesKeyStream<f>(ls *laneState, ks
// []uint32, stride, blocks int): 16·blocks keystream words of lane l to
// ks[l*stride:].
func genLanesKeyStream(f *family) {
	name := "lanesKeyStream" + f.name
	TEXT(name, 0, "func(ls *[18][16]uint32, ks []uint32, stride, blocks int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes 16·blocks keystream words of each of the first %d lanes", name, lanesOf(f)),
		"of ls (a laneState) to ks[l*stride:], as lanesKeyStreamGeneric; the caller",
		"checks that ks is long enough.")
	g := newLG(f)
	if f.avx512 {
		g.dbl = AllocLocal(16 * 64)
	}
	g.zb = AllocLocal(16 * 64)
	Load(Param("ls"), RDI)
	Load(Param("ks").Base(), RDX)
	Load(Param("stride"), R8)
	SHLQ(U8(2), R8) // bytes between lanes
	Load(Param("blocks"), RCX)
	TESTQ(RCX, RCX)
	JZ(LabelRef(name + "Done"))
	g.loadConsts()
	g.makeDoubled()
	Label(name + "Loop")
	for i := range 16 {
		g.round(i, rWork)
	}
	g.transpose()
	ADDQ(U8(64), RDX)
	DECQ(RCX)
	JNZ(LabelRef(name + "Loop"))
	g.saveR()
	VZEROUPPER()
	Label(name + "Done")
	RET()
}

// transpose writes the block in zb (row i: word i of every lane) to the
// lanes' outputs: lane l's 16 words to RDX + l·R8.
func (g *lg) transpose() {
	if g.f.avx512 {
		// 16×16 dwords in Z13-Z28 (temporaries Z29-Z31): unpack dwords and
		// qwords within 128-bit lanes, then transpose the 128-bit lanes.
		r := make([]VecPhysical, 16)
		for i := range 16 {
			r[i] = zr(13 + i)
			VMOVDQU32(g.zb.Offset(64*i), r[i])
		}
		free := []VecPhysical{Z29, Z30, Z31}
		pair := func(a, b *VecPhysical, lo, hi func(...Op)) {
			t := free[0]
			lo(*b, *a, t)
			hi(*b, *a, *b)
			free[0] = *a
			*a = t
		}
		unpckdq := func(ops ...Op) { VPUNPCKLDQ(ops...) }
		unpckhdq := func(ops ...Op) { VPUNPCKHDQ(ops...) }
		unpcklq := func(ops ...Op) { VPUNPCKLQDQ(ops...) }
		unpckhq := func(ops ...Op) { VPUNPCKHQDQ(ops...) }
		for i := range 8 {
			pair(&r[2*i], &r[2*i+1], unpckdq, unpckhdq)
		}
		// Now r[4i+0] = lo(4i, 4i+1), r[4i+1] = hi(4i, 4i+1), r[4i+2] =
		// lo(4i+2, 4i+3), r[4i+3] = hi(4i+2, 4i+3).
		for i := range 4 {
			// u0 = lo_q(r0, r2), u1 = hi_q(r0, r2), u2 = lo_q(r1, r3),
			// u3 = hi_q(r1, r3).
			a, b, c, d := r[4*i], r[4*i+1], r[4*i+2], r[4*i+3]
			u0, u2 := free[0], free[1]
			VPUNPCKLQDQ(c, a, u0)
			VPUNPCKHQDQ(c, a, c) // u1 in c's register
			VPUNPCKLQDQ(d, b, u2)
			VPUNPCKHQDQ(d, b, d) // u3 in d's register
			r[4*i], r[4*i+1], r[4*i+2], r[4*i+3] = u0, c, u2, d
			free[0], free[1] = a, b
		}
		// r[4i+m] lane j holds words 4i..4i+3 of lane 4j+m.
		out := make([]VecPhysical, 16)
		for m := range 4 {
			A, B, C, D := r[m], r[4+m], r[8+m], r[12+m]
			P, Q := free[0], free[1]
			VSHUFI32X4(U8(0x88), B, A, P)
			VSHUFI32X4(U8(0xdd), B, A, Q)
			R := A
			VSHUFI32X4(U8(0x88), D, C, R)
			VSHUFI32X4(U8(0xdd), D, C, B) // S in B
			S := B
			VSHUFI32X4(U8(0x88), R, P, C) // lane m
			VSHUFI32X4(U8(0xdd), R, P, D) // lane 8+m
			VSHUFI32X4(U8(0x88), S, Q, R) // lane 4+m
			VSHUFI32X4(U8(0xdd), S, Q, S) // lane 12+m
			out[m], out[8+m], out[4+m], out[12+m] = C, D, R, S
			// P, Q are free again; A's and B's registers hold R, S.
			free[0], free[1] = P, Q
			g.storeLanes(out, []int{m, 4 + m, 8 + m, 12 + m})
		}
		_ = unpcklq
		_ = unpckhq
		return
	}
	// AVX2: two 8×8 transposes (words 0-7 and 8-15 of each lane).
	for h := range 2 {
		r := make([]VecPhysical, 8)
		for i := range 8 {
			r[i] = yr(i)
			VMOVDQU(g.zb.Offset(64*(8*h+i)), r[i])
		}
		free := []VecPhysical{Y12, Y13, Y14, Y15}
		for i := range 4 {
			a, b := r[2*i], r[2*i+1]
			t := free[0]
			VPUNPCKLDQ(b, a, t)
			VPUNPCKHDQ(b, a, b)
			free[0] = a
			r[2*i] = t
		}
		for i := range 2 {
			a, b, c, d := r[4*i], r[4*i+1], r[4*i+2], r[4*i+3]
			u0, u2 := free[0], free[1]
			VPUNPCKLQDQ(c, a, u0)
			VPUNPCKHQDQ(c, a, c)
			VPUNPCKLQDQ(d, b, u2)
			VPUNPCKHQDQ(d, b, d)
			r[4*i], r[4*i+1], r[4*i+2], r[4*i+3] = u0, c, u2, d
			free[0], free[1] = a, b
		}
		// r[4i+m] 128-bit lane j: words 4i..4i+3 of lane 4j+m (of this
		// half of the block).
		for m := range 4 {
			lo, hi := free[0], free[1]
			VPERM2I128(U8(0x20), r[4+m], r[m], lo) // lane m
			VPERM2I128(U8(0x31), r[4+m], r[m], hi) // lane 4+m
			g.storeHalf(lo, m, h)
			g.storeHalf(hi, 4+m, h)
		}
	}
}

// storeLanes stores the transposed rows out[l] for the lanes ls.
func (g *lg) storeLanes(out []VecPhysical, lanes []int) {
	for _, l := range lanes {
		g.laneAddr(l, R9)
		VMOVDQU32(out[l], Mem{Base: R9})
	}
}

func (g *lg) storeHalf(r VecPhysical, lane, half int) {
	g.laneAddr(lane, R9)
	VMOVDQU(r, Mem{Base: R9, Disp: 32 * half})
}

// laneAddr sets dst = RDX + lane·R8.
func (g *lg) laneAddr(lane int, dst GPPhysical) {
	MOVQ(R8, dst)
	IMUL3Q(U32(uint32(lane)), dst, dst)
	ADDQ(RDX, dst)
}

// genXORWords generates xorWordsAVX2(dst, src []byte, ks []uint32): dst =
// src XOR the big-endian bytes of ks, for the len(src)/32 whole 32-byte
// chunks of src; the batch code XORs the multi-lane keystream in with it.
func genXORWords() {
	TEXT("xorWordsAVX2", NOSPLIT, "func(dst, src []byte, ks []uint32)")
	Pragma("noescape")
	Doc("xorWordsAVX2 sets dst = src XOR the big-endian bytes of ks for the len(src)/32",
		"whole 32-byte chunks of src; dst and ks are long enough.")
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RCX)
	Load(Param("ks").Base(), RDX)
	SHRQ(U8(5), RCX)
	JZ(LabelRef("xorWordsDone"))
	VMOVDQU(cBswap32, Y15)
	Label("xorWordsLoop")
	VMOVDQU(Mem{Base: RDX}, Y0)
	VPSHUFB(Y15, Y0, Y0)
	VPXOR(Mem{Base: RSI}, Y0, Y0)
	VMOVDQU(Y0, Mem{Base: RDI})
	ADDQ(U8(32), RDX)
	ADDQ(U8(32), RSI)
	ADDQ(U8(32), RDI)
	DECQ(RCX)
	JNZ(LabelRef("xorWordsLoop"))
	VZEROUPPER()
	Label("xorWordsDone")
	RET()
}
