// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// bswap is the VPSHUFB mask that turns the big-endian words of a message
// into native ones, repeated for every 128-bit lane of a ZMM register.
var bswap Mem

func bswapMask() {
	bswap = GLOBL("bswapMask", RODATA|NOPTR)
	for i := 0; i < 64; i += 4 {
		b := uint32(i % 16)
		DATA(i, U32((b+3)|(b+2)<<8|(b+1)<<16|b<<24))
	}
}

// queue holds vector instructions still to be placed between rounds.
var queue []func()

func later(f func()) { queue = append(queue, f) }

// drain emits up to n queued instructions.
func drain(n int) {
	for ; n > 0 && len(queue) > 0; n-- {
		queue[0]()
		queue = queue[1:]
	}
}

// vec emits the few vector operations the expansion needs, as AVX2 or as
// AVX-512VL (VPROLD, VPTERNLOGD) on the same YMM registers.
type vec struct{ avx512 bool }

// rol sets dst = x <<< n; tmp is clobbered and must differ from x and dst.
func (v vec) rol(n int, x, dst, tmp VecPhysical) {
	if v.avx512 {
		later(func() { VPROLD(U8(n), x, dst) })
		return
	}
	later(func() { VPSLLD(U8(n), x, tmp) })
	later(func() { VPSRLD(U8(32-n), x, dst) })
	later(func() { VPOR(tmp, dst, dst) })
}

// xor3 sets dst = a ^ b ^ c.
func (v vec) xor3(a, b, c, dst VecPhysical) {
	if v.avx512 {
		if dst != a {
			later(func() { VMOVDQA(a, dst) })
		}
		later(func() { VPTERNLOGD(U8(0x96), c, b, dst) })
		return
	}
	later(func() { VPXOR(a, b, dst) })
	later(func() { VPXOR(c, dst, dst) })
}

// expandStep queues the instructions that compute words 4g..4g+3 of the
// expanded message (4 <= g <= 16), for the two blocks in the two 128-bit
// halves, from the four previous groups x[(g-4)%4..(g-1)%4], overwriting
// the oldest. Three words come straight from the recurrence
//
//	W[j] = P1(W[j-16] ^ W[j-9] ^ W[j-3]<<<15) ^ W[j-13]<<<7 ^ W[j-6]
//
// with W[j-3] of the fourth word, which is W[4g] of this group, taken as 0;
// since P1 is linear the fourth word is then corrected by
// P1(W[4g]<<<15) = W[4g]<<<15 ^ W[4g]<<<30 ^ W[4g]<<<6.
// It then stores the group and the W' = W[j] ^ W[j+4] group it completes.
func expandStep(v vec, g int, x [4]VecPhysical, tmp [4]VecPhysical, w, wp Mem) {
	g0, g1, g2, g3 := x[(g-4)%4], x[(g-3)%4], x[(g-2)%4], x[(g-1)%4]
	t0, t1, t2, t3 := tmp[0], tmp[1], tmp[2], tmp[3]
	later(func() { VPALIGNR(U8(12), g1, g2, t0) }) // W[j-9..j-6]
	later(func() { VPSRLDQ(U8(4), g3, t1) })       // W[j-3..j-1], 0
	v.rol(15, t1, t1, t2)
	v.xor3(t0, g0, t1, t0)
	v.rol(15, t0, t1, t2) // P1
	v.rol(23, t0, t2, t3)
	v.xor3(t0, t1, t2, t0)
	later(func() { VPALIGNR(U8(12), g0, g1, t1) }) // W[j-13..j-10]
	v.rol(7, t1, t1, t2)
	later(func() { VPALIGNR(U8(8), g2, g3, t2) }) // W[j-6..j-3]
	v.xor3(t0, t1, t2, t0)
	later(func() { VPSLLDQ(U8(12), t0, t1) }) // 0, 0, 0, W[4g]
	if v.avx512 {
		v.rol(15, t1, t2, t3)
		v.rol(30, t1, t3, t3)
		v.xor3(t0, t2, t3, t0)
		v.rol(6, t1, t2, t3)
		later(func() { VPXOR(t2, t0, g0) })
	} else {
		v.rol(15, t1, t2, t3)
		later(func() { VPXOR(t2, t0, t0) })
		v.rol(30, t1, t2, t3)
		later(func() { VPXOR(t2, t0, t0) })
		v.rol(6, t1, t2, t3)
		later(func() { VPXOR(t2, t0, g0) })
	}
	if g < 16 {
		later(func() { VMOVDQU(g0, w.Offset(32*g)) })
	}
	later(func() { VPXOR(g3, g0, t1) })
	later(func() { VMOVDQU(t1, wp.Offset(32*(g-1))) })
}

// round emits round j of the compression on the working variables s, which
// the caller renames afterwards instead of moving them. w and wp address
// W[j] and W'[j]; r1..r3 are scratch and gg carries GG from one round to
// the next in rounds 16-63.
//
// The dependency chain through E is ADD (K + E, with K = A<<<12 + T_j
// computed ahead), RORX (SS1), ADD into TT2 and P0 (RORX, XOR, XOR): six
// single-cycle operations, against which everything else is scheduled. The
// chain through A (XOR for SS2, ADD for TT1, RORX for A<<<12, ADD of T_j) is
// as long and meets it at K + E. The boolean function GG of rounds 16-63,
// the choice (E & F) | (~E & G) = G ^ (E & (F ^ G)), is two operations deep
// in E and would lengthen the chain by one cycle. It is therefore computed
// in the previous round, while P0 forms the new E = V ^ (TT2 <<< 17) with
// V = TT2 ^ (TT2 <<< 9): by distributing the AND over that last XOR,
// GG = G ^ ((TT2<<<17) & (F ^ G)) ^ (V & (F ^ G)) is ready one cycle
// after E, just when the next round adds it into TT2 ahead of SS1. That
// makes a third six-operation cycle with no slack, from TT2 to the next
// TT2 (RORX, AND, XOR, XOR, ADD, ADD); with two-input operations it cannot
// be shorter, since GG takes three rotations of TT2, one level, and
// combining them with F ^ G and G takes three more. With about 26 integer
// operations a round competing for the ALUs, a round takes a little more
// than the six cycles of its chains (see examples/bench/README.md, "Design
// measurements").
//
// If tj is not nil, T_j is read from there instead of coming as an
// immediate, so that the same code serves any round j >= 16 in a loop.
func round(j int, s [8]GPPhysical, w, wp Mem, tj *Mem, r1, r2, r3, gg GPPhysical) {
	a, b, c, d, e, f, g, h := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
	RORXL(U8(20), a, r1) // A <<< 12
	if tj != nil {
		MOVL(r1, r2)
		ADDL(*tj, r2) // + T_j
	} else {
		LEAL(Mem{Base: r1, Disp: int(int32(t(j)))}, r2) // + T_j
	}
	ADDL(e, r2)           // + E
	RORXL(U8(25), r2, r2) // SS1
	XORL(r2, r1)          // SS2
	ADDL(w, h)            // H + W[j]
	ADDL(wp, d)           // D + W'[j]
	if j < 16 {
		MOVL(b, r3)
		XORL(c, r3)
		XORL(a, r3)
		ADDL(r3, d) // + FF = A ^ B ^ C
		MOVL(f, r3)
		XORL(g, r3)
		XORL(e, r3)
		ADDL(r3, h) // + GG = E ^ F ^ G
	} else {
		// FF = majority = (B & C) + (A & (B ^ C)), the two disjoint.
		MOVL(b, r3)
		ANDL(c, r3)
		ADDL(r3, d)
		MOVL(b, r3)
		XORL(c, r3)
		ANDL(a, r3)
		ADDL(r3, d)
		ADDL(gg, h) // + GG, from the previous round
	}
	ADDL(r1, d)          // TT1, the new A
	ADDL(r2, h)          // TT2
	RORXL(U8(23), b, b)  // B <<< 9
	RORXL(U8(13), f, f)  // F <<< 19, the next G
	RORXL(U8(23), h, r1) // P0(TT2), the new E
	RORXL(U8(15), h, r2)
	if j+1 >= 16 && j+1 < 64 {
		// The next round's F ^ G is this round's E ^ (F <<< 19).
		MOVL(e, gg)
		XORL(f, gg)
		XORL(r1, h) // V
		MOVL(gg, r1)
		ANDL(h, r1)  // V & (F ^ G)
		ANDL(r2, gg) // (TT2 <<< 17) & (F ^ G)
		XORL(r2, h)  // E
		XORL(f, gg)
		XORL(r1, gg) // the next round's GG
	} else {
		XORL(r1, h)
		XORL(r2, h)
	}
}

// rename returns the working variables as the next round names them:
// A..H of round j+1 are TT1, A, B<<<9, C, P0(TT2), E, F<<<19, G.
func rename(s [8]GPPhysical) [8]GPPhysical {
	return [8]GPPhysical{s[3], s[0], s[1], s[2], s[7], s[4], s[5], s[6]}
}

// singleBuffer emits blockAVX2. There is no AVX-512VL variant: the
// expansion already hides completely under the scalar round chain, so
// fewer vector instructions would not make it faster.
func singleBuffer() {
	singleKernel("blockAVX2", vec{avx512: false})
	padTables()
	finalKernel(vec{avx512: false})
	kdf64Kernel(vec{avx512: false})
}

// kframe is the stack frame and register plan the one-message kernels
// share.
type kframe struct {
	name           string
	v              vec
	w, wp, tk      Mem // the schedule W, W' (two blocks, halves) and T_j at W's offsets
	psave          Mem // SI while the loops use it
	s              [8]GPPhysical
	r1, r2, r3, gg GPPhysical
	x, tmp         [4]VecPhysical
	mask           VecPhysical
}

func newFrame(name string, v vec) *kframe {
	f := &kframe{name: name, v: v}
	f.w = AllocLocal(512)
	f.wp = AllocLocal(512)
	// T_0 … T_63 as the rounds add them: the loops index W (8 bytes per
	// word of a group's start, two blocks) and T (4 bytes per word) with
	// the same register.
	f.tk = AllocLocal(256)
	f.psave = AllocLocal(8)
	f.s = [8]GPPhysical{EAX, EBX, ECX, EDX, R8L, R9L, R10L, R11L}
	f.r1, f.r2, f.r3, f.gg = R12L, R13L, R14L, EDI
	f.x = [4]VecPhysical{Y0, Y1, Y2, Y3}
	f.tmp = [4]VecPhysical{Y4, Y5, Y6, Y7}
	f.mask = Y8
	return f
}

// fillT copies the round constants to the frame.
func (f *kframe) fillT() {
	for i := 0; i < 8; i++ {
		VMOVDQU(tTable.Offset(32*i), Y4)
		VMOVDQU(Y4, f.tk.Offset(32*i))
	}
}

// at returns the address disp bytes past a frame slot plus SI*scale.
func at(m Mem, disp, scale int) Mem {
	return Mem{Base: m.Base, Disp: m.Disp + disp, Index: RSI, Scale: uint8(scale)}
}

// first emits the first block of a pair: the schedule from the message
// words in f.x (byte-swapped already if swapped, the first block in the
// low halves), stored with W' for groups 0-2, and the 64 rounds with the
// expansion of both blocks' groups 4-16. It leaves the working variables
// before the feed-forward. SI is preserved.
//
// Rounds 0-15 and 48-51 are unrolled (they carry the first and the last
// expansion steps), rounds 16-47 are two passes of a loop over sixteen
// rounds with four expansion steps each (after which the working
// variables and the groups are back in the same registers), rounds 52-63
// a loop over four. The loops index the schedule and the round constants
// with SI, the word number of the group. The loops keep the kernel small
// enough for the CPU's decoded-instruction cache, which the fully unrolled
// form missed in some binaries, depending on where the code was placed.
func (f *kframe) first(swapped bool) {
	w, wp, x, tmp := f.w, f.wp, f.x, f.tmp
	for i := 0; i < 4; i++ {
		if !swapped {
			VPSHUFB(f.mask, x[i], x[i])
		}
		VMOVDQU(x[i], w.Offset(32*i))
	}
	for i := 0; i < 3; i++ {
		VPXOR(x[i], x[i+1], tmp[0])
		VMOVDQU(tmp[0], wp.Offset(32*i))
	}
	cur := f.s
	perRound := 0
	unrolled := func(j0, j1 int) {
		for j := j0; j < j1; j++ {
			if j%4 == 0 && j/4 < 13 {
				expandStep(f.v, 4+j/4, x, tmp, w, wp)
				perRound = (len(queue) + 3) / 4
			}
			round(j, cur, w.Offset(32*(j/4)+4*(j%4)), wp.Offset(32*(j/4)+4*(j%4)), nil, f.r1, f.r2, f.r3, f.gg)
			drain(perRound)
			cur = rename(cur)
		}
		drain(len(queue))
	}
	unrolled(0, 16)
	MOVQ(RSI, f.psave)
	MOVL(U32(16), ESI)
	Label(f.name + "_first")
	// With SI = 16 + 16k, group g = 8 + 4k + m of the expansion lands 128
	// + 32m bytes past SI*8: the step is emitted as group 8 + m of a
	// schedule that starts 128 bytes early.
	wv := at(w, -128, 8)
	wpv := at(wp, -128, 8)
	for q := 0; q < 16; q++ {
		j := 16 + q
		if q%4 == 0 {
			expandStep(f.v, 8+q/4, x, tmp, wv, wpv)
			perRound = (len(queue) + 3) / 4
		}
		off := 32*(q/4) + 4*(q%4)
		tj := at(f.tk, 4*q, 4)
		round(j, cur, at(w, off, 8), at(wp, off, 8), &tj, f.r1, f.r2, f.r3, f.gg)
		drain(perRound)
		cur = rename(cur)
	}
	drain(len(queue))
	ADDL(U8(16), ESI)
	CMPL(ESI, U8(48))
	JB(LabelRef(f.name + "_first"))
	MOVQ(f.psave, RSI)
	unrolled(48, 52)
	MOVQ(RSI, f.psave)
	MOVL(U32(52), ESI)
	f.loop4("_last", 60, 0)
	MOVQ(f.psave, RSI)
}

// loop4 emits a loop over four rounds from the stored schedule (at offset
// half of each group: 0 for the first block, 16 for the second), SI
// counting the group's first word up to limit inclusive. The rounds are
// emitted as rounds 12-15 (SI < 16 on entry) or 16-19, the code for any
// four rounds of the same kind: the last of 12-15 also forms GG for the
// round after it (needed for round 16 only, harmless before).
func (f *kframe) loop4(label string, limit int, half int) {
	j0 := 16
	if limit < 16 {
		j0 = 12
	}
	cur := f.s
	Label(f.name + label)
	for r := 0; r < 4; r++ {
		tj := at(f.tk, 4*r, 4)
		round(j0+r, cur, at(f.w, half+4*r, 8), at(f.wp, half+4*r, 8), &tj, f.r1, f.r2, f.r3, f.gg)
		cur = rename(cur)
	}
	ADDL(U8(4), ESI)
	CMPL(ESI, U8(limit))
	JBE(LabelRef(f.name + label))
}

// second emits the 64 rounds of the pair's second block from the stored
// schedule (the high halves), as a loop over four rounds for rounds 0-15
// and another for 16-63. SI is preserved.
func (f *kframe) second() {
	MOVQ(RSI, f.psave)
	XORL(ESI, ESI)
	f.loop4("_second0", 12, 16)
	f.loop4("_second1", 60, 16)
	MOVQ(f.psave, RSI)
}

// singleKernel emits a kernel compressing len(p)/64 blocks of one message.
//
// Registers: the working variables A..H in AX, BX, CX, DX, R8..R11
// (renamed, never moved), scratch R12..R14, DI carrying GG between
// rounds, SI the next block; the end of p is kept on the stack. Y0..Y3
// hold the last four groups of four expanded words of two blocks (first
// block in the low halves), Y4..Y7 are scratch, Y8 the byte-swap mask.
// The stack holds W[0..63] and W'[0..63] of both blocks.
func singleKernel(name string, v vec) {
	TEXT(name, 0, "func(h *[8]uint32, p []byte)")
	Pragma("noescape")
	Doc(name+" compresses the len(p)/64 blocks of p into h (AVX2, BMI2).",
		"The message expansion of two blocks at a time runs in YMM registers",
		"under the scalar rounds of the first; the second block's rounds read",
		"the schedule stored on the stack.")
	f := newFrame(name, v)
	end := AllocLocal(8)
	hp := R12
	x := f.x

	Load(Param("h"), hp)
	for i, r := range f.s {
		MOVL(Mem{Base: hp, Disp: 4 * i}, r)
	}
	Load(Param("p").Base(), RSI)
	Load(Param("p").Len(), RDI)
	ANDQ(I32(-64), RDI)
	ADDQ(RSI, RDI)
	MOVQ(RDI, end)
	VMOVDQU(bswap, f.mask)
	f.fillT()

	Label(name + "_loop")
	MOVQ(end, R13)
	SUBQ(RSI, R13)
	CMPQ(R13, U32(128))
	JB(LabelRef(name + "_one"))
	for i := 0; i < 4; i++ {
		VMOVDQU(Mem{Base: RSI, Disp: 16 * i}.Offset(0), x[i].AsX())
		VINSERTI128(U8(1), Mem{Base: RSI, Disp: 64 + 16*i}, x[i], x[i])
	}
	JMP(LabelRef(name + "_rounds"))

	Label(name + "_one")
	CMPQ(RSI, end)
	JAE(LabelRef(name + "_done"))
	// A last single block goes through the same code in both halves.
	for i := 0; i < 4; i++ {
		VBROADCASTI128(Mem{Base: RSI, Disp: 16 * i}, x[i])
	}

	Label(name + "_rounds")
	f.first(false)
	feedForward(f.s, func() { Load(Param("h"), hp) }, hp)
	ADDQ(U8(64), RSI)
	CMPQ(RSI, end)
	JAE(LabelRef(name + "_done"))
	f.second()
	feedForward(f.s, func() { Load(Param("h"), hp) }, hp)
	ADDQ(U8(64), RSI)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// finalKernel emits finalAVX2(h, x, n, bits, out): the digest of a message
// whose last n bytes (n <= 119) are x[:n] and whose chaining value before
// them is h, for a message of bits bits in all. x must be 128 bytes long;
// its bytes from n on are ignored. The padding is built in registers from
// sliding masks (no stores to a buffer just before the kernel loads it,
// which the store buffer could not forward), the one or two blocks are
// compressed as in blockAVX2, and the digest is written to out big endian.
// h is not changed.
func finalKernel(v vec) {
	name := "finalAVX2"
	TEXT(name, 0, "func(h *[8]uint32, x *[128]byte, n int, bits uint64, out *[32]byte)")
	Pragma("noescape")
	Doc(name+" writes to out the SM3 digest of a message whose final n <= 119 bytes",
		"are x[:n], with chaining value h before them and bits bits in all (AVX2,",
		"BMI2). h is not changed.")
	f := newFrame(name, v)
	hs := AllocLocal(32)
	x := f.x

	// The message bytes, masked to x[:n], with 0x80 at byte n, as eight
	// 16-byte chunks in X0-X7, byte-swapped into words.
	Load(Param("x"), RSI)
	Load(Param("n"), RCX)
	LEAQ(padMasks.Offset(128), R13)
	SUBQ(RCX, R13)
	LEAQ(padBytes.Offset(128), R14)
	SUBQ(RCX, R14)
	VMOVDQU(bswap, f.mask)
	c := []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7}
	for i, r := range c {
		VMOVDQU(Mem{Base: RSI, Disp: 16 * i}, r)
		VPAND(Mem{Base: R13, Disp: 16 * i}, r, r)
		VPOR(Mem{Base: R14, Disp: 16 * i}, r, r)
		VPSHUFB(f.mask.AsX(), r, r)
	}
	// The bit length as the final block's words 14 and 15.
	Load(Param("bits"), RAX)
	RORXQ(U8(32), RAX, RAX)
	VMOVQ(RAX, X9)
	VPSLLDQ(U8(8), X9, X9)
	CMPQ(RCX, U8(55))
	JA(LabelRef(name + "_two"))
	VPXOR(X9, X3, X3)
	for i := 0; i < 4; i++ {
		VINSERTI128(U8(1), c[i], x[i], x[i])
	}
	JMP(LabelRef(name + "_state"))
	Label(name + "_two")
	VPXOR(X9, X7, X7)
	for i := 0; i < 4; i++ {
		VINSERTI128(U8(1), c[4+i], x[i], x[i])
	}

	Label(name + "_state")
	f.finalRounds(hs, func() {
		Load(Param("n"), R13)
		CMPQ(R13, U8(55))
		JBE(LabelRef(name + "_out"))
	})
}

// finalRounds emits the rest of a final kernel once its message words are
// in f.x (first block in the low halves, byte-swapped): the chaining value
// from h, the first block, the second unless skipSecond (emitted before
// it, when not nil) jumps to f.name+"_out", and the digest written to out
// big endian.
func (f *kframe) finalRounds(hs Mem, skipSecond func()) {
	// The chaining value, in registers and copied to hs, which the
	// feed-forwards update.
	Load(Param("h"), R12)
	VMOVDQU(Mem{Base: R12}, X10)
	VMOVDQU(Mem{Base: R12, Disp: 16}, X11)
	VMOVDQU(X10, hs)
	VMOVDQU(X11, hs.Offset(16))
	for i, r := range f.s {
		MOVL(Mem{Base: R12, Disp: 4 * i}, r)
	}
	f.fillT()
	f.first(true)
	loadHS := func() { LEAQ(hs, R12) }
	feedForward(f.s, loadHS, R12)
	if skipSecond != nil {
		skipSecond()
	}
	f.second()
	feedForward(f.s, loadHS, R12)

	Label(f.name + "_out")
	Load(Param("out"), R12)
	for i, r := range f.s {
		BSWAPL(r)
		MOVL(r, Mem{Base: R12, Disp: 4 * i})
	}
	VZEROUPPER()
	RET()
}

// kdf64Kernel emits kdf64AVX2(h, z, ct, out): the SM3 digest, after chaining
// value h, of a 64-byte z followed by the 32-bit counter ct, that is one
// 32-byte output block of the KDF for the z of SM2 encryption (x2 || y2).
// The first block is z itself, loaded where it lies; the second, the
// counter and the padding of a 68-byte message, is built in registers, so
// nothing is copied to a buffer before the call.
func kdf64Kernel(v vec) {
	name := "kdf64AVX2"
	TEXT(name, 0, "func(h *[8]uint32, z *[64]byte, ct uint32, out *[32]byte)")
	Pragma("noescape")
	Doc(name+" writes to out the SM3 digest, after chaining value h, of z and the",
		"big-endian counter ct, 68 bytes in all (AVX2, BMI2). h is not changed.")
	f := newFrame(name, v)
	hs := AllocLocal(32)
	x := f.x
	Load(Param("z"), RSI)
	VMOVDQU(bswap, f.mask)
	c := []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7}
	for i := 0; i < 4; i++ {
		VMOVDQU(Mem{Base: RSI, Disp: 16 * i}, c[i])
		VPSHUFB(f.mask.AsX(), c[i], c[i])
	}
	// The second block's words: ct, the 0x80 byte, zeros, and the bit
	// length 544 as word 15.
	Load(Param("ct"), EAX)
	VMOVD(EAX, X4)
	MOVL(U32(0x80000000), EAX)
	VPINSRD(U8(1), EAX, X4, X4)
	VPXOR(X5, X5, X5)
	VPXOR(X6, X6, X6)
	MOVL(U32(68*8), EAX)
	VMOVD(EAX, X7)
	VPSLLDQ(U8(12), X7, X7)
	for i := 0; i < 4; i++ {
		VINSERTI128(U8(1), c[4+i], x[i], x[i])
	}
	f.finalRounds(hs, nil)
}

// padMasks and padBytes are the sliding tables of finalAVX2: 128 bytes
// of 0xff then 128 of zero, and 128 zeros, 0x80, 127 zeros; read from 128
// - n on, they give the mask of a message's first n bytes and its 0x80.
var padMasks, padBytes Mem

func padTables() {
	padMasks = GLOBL("sm3PadMasks", RODATA|NOPTR)
	for i := 0; i < 256; i += 8 {
		v := uint64(0)
		if i < 128 {
			v = ^uint64(0)
		}
		DATA(i, U64(v))
	}
	padBytes = GLOBL("sm3PadBytes", RODATA|NOPTR)
	for i := 0; i < 256; i += 8 {
		v := uint64(0)
		if i == 128 {
			v = 0x80
		}
		DATA(i, U64(v))
	}
}

// feedForward xors the working variables into h and keeps the result as
// the next block's starting value.
func feedForward(s [8]GPPhysical, loadH func(), hp GPPhysical) {
	loadH()
	for i, r := range s {
		XORL(Mem{Base: hp, Disp: 4 * i}, r)
		MOVL(r, Mem{Base: hp, Disp: 4 * i})
	}
}
