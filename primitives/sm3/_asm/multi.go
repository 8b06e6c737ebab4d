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

// The multi-buffer kernels run one independent message per 32-bit lane:
// 16 lanes of ZMM registers with AVX-512 (VPROLD, VPTERNLOGD, broadcast
// operands) or 8 lanes of YMM registers with AVX2 (rotations as two shifts
// and an OR). Every lane goes through the textbook round, so the vector
// code has no data-dependent branch or address: it is constant time. The
// state is kept transposed in Go memory, word i of lane l at st[i][l], so
// the kernels load and store it without shuffling; the messages, one block
// of 16 words per lane, are transposed on the way in.

// tTable holds the 64 round constants T_j <<< j, broadcast by the kernels.
var tTable Mem

func roundConstants() {
	tTable = GLOBL("sm3T", RODATA|NOPTR)
	for j := 0; j < 64; j++ {
		DATA(4*j, U32(t(j)))
	}
}

// pool hands out the vector registers not holding state, so that a value
// whose old contents are dead is overwritten in place instead of moved.
type pool struct{ free []VecPhysical }

func (p *pool) get() VecPhysical {
	if len(p.free) == 0 {
		panic("out of vector registers")
	}
	r := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return r
}

func (p *pool) put(rs ...VecPhysical) { p.free = append(p.free, rs...) }

// ternImm returns the VPTERNLOGD immediate of f(dst, src2, src3), where in
// Go operand order the instruction is VPTERNLOGD $imm, src3, src2, dst.
func ternImm(f func(a, b, c bool) bool) uint8 {
	var imm uint8
	for i := 0; i < 8; i++ {
		if f(i&4 != 0, i&2 != 0, i&1 != 0) {
			imm |= 1 << i
		}
	}
	return imm
}

var (
	immXor3 = ternImm(func(a, b, c bool) bool { return a != b != c })
	immMaj  = ternImm(func(a, b, c bool) bool { return a && b || a && c || b && c })
	// choose(e, f, g) computed into f's register: VPTERNLOGD $immChoose, g, e, f.
	immChoose = ternImm(func(f, e, g bool) bool {
		if e {
			return f
		}
		return g
	})
)

// rec, when set, collects instructions instead of emitting them, so that
// the instruction streams of two independent groups of lanes can be
// interleaved.
var rec *[]func()

// ins emits or records one instruction.
func ins(f func()) {
	if rec != nil {
		*rec = append(*rec, f)
		return
	}
	f()
}

// interleave emits the recorded streams a and b alternately.
func interleave(a, b []func()) {
	for len(a) > 0 || len(b) > 0 {
		if len(a) > 0 {
			a[0]()
			a = a[1:]
		}
		if len(b) > 0 {
			b[0]()
			b = b[1:]
		}
	}
}

// mvec is the instruction set of one multi-buffer kernel.
type mvec struct {
	avx512 bool
	lanes  int
	regs   []VecPhysical
	size   int // bytes per vector
}

func (v *mvec) movu(src, dst Op) {
	if v.avx512 {
		ins(func() { VMOVDQU32(src, dst) })
	} else {
		ins(func() { VMOVDQU(src, dst) })
	}
}

func (v *mvec) xor(a, b, dst Op) {
	if v.avx512 {
		ins(func() { VPXORD(a, b, dst) })
	} else {
		ins(func() { VPXOR(a, b, dst) })
	}
}

// rol sets dst = x <<< n; x may be memory.
func (v *mvec) rol(p *pool, n int, x Op, dst VecPhysical) {
	if v.avx512 {
		ins(func() { VPROLD(U8(n), x, dst) })
		return
	}
	t := p.get()
	if m, ok := x.(Mem); ok {
		ins(func() { VMOVDQU(m, dst) })
		x = dst
	}
	ins(func() { VPSLLD(U8(n), x, t) })
	ins(func() { VPSRLD(U8(32-n), x, dst) })
	ins(func() { VPOR(t, dst, dst) })
	p.put(t)
}

// xor3 sets dst ^= a ^ b; b may be memory.
func (v *mvec) xor3(a VecPhysical, b Op, dst VecPhysical) {
	if v.avx512 {
		ins(func() { VPTERNLOGD(U8(immXor3), b, a, dst) })
		return
	}
	ins(func() { VPXOR(a, dst, dst) })
	ins(func() { VPXOR(b, dst, dst) })
}

func multiBuffer() {
	var z, y []VecPhysical
	for i := 0; i < 32; i++ {
		z = append(z, Z(i))
	}
	for i := 0; i < 16; i++ {
		y = append(y, Y(i))
	}
	multiKernel("blockMulti16AVX512", &mvec{avx512: true, lanes: 16, regs: z, size: 64})
	multiKernel("blockMulti8AVX2", &mvec{avx512: false, lanes: 8, regs: y, size: 32})
}

// Z returns ZMM register i.
func Z(i int) VecPhysical {
	return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
		Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}[i]
}

// Y returns YMM register i.
func Y(i int) VecPhysical {
	return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}[i]
}

// multiKernel emits
//
//	func name(st *[8][16]uint32, p *[16]*byte, n int)
//
// which compresses n consecutive blocks of each of the first v.lanes
// messages, lane l reading from p[l], into the transposed state st.
//
// Registers: DI the state, SI the pointer array, CX the blocks left, DX the
// offset of the current block in every message, R8 a message pointer, R9
// to R11 the round loop (see rounds). The vector registers are handed out
// by a pool: eight hold the working variables, the rest are scratch. The
// expanded words W[0..67] of all lanes live on the stack.
func multiKernel(name string, v *mvec) {
	TEXT(name, 0, "func(st *[8][16]uint32, p *[16]*byte, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s compresses n consecutive blocks of each of the first %d messages,", name, v.lanes),
		"lane l reading from p[l], into the transposed chaining values st (word i",
		"of lane l at st[i][l]).")
	w := AllocLocal(68 * v.size)
	W := func(j int) Mem { return w.Offset(j * v.size) }

	Load(Param("st"), RDI)
	Load(Param("p"), RSI)
	Load(Param("n"), RCX)
	XORQ(RDX, RDX)
	TESTQ(RCX, RCX)
	JZ(LabelRef(name + "_done"))

	Label(name + "_loop")
	loadMessages(v, W)

	p := &pool{}
	p.put(v.regs...)
	var s [8]VecPhysical
	for i := range s {
		s[i] = p.get()
		v.movu(Mem{Base: RDI, Disp: 64 * i}, s[i])
	}
	rounds(name, v, []*roundGroup{{p: p, s: s, w: w}})
	for i := range s {
		v.xor(Mem{Base: RDI, Disp: 64 * i}, s[i], s[i])
		v.movu(s[i], Mem{Base: RDI, Disp: 64 * i})
	}
	ADDQ(U8(64), RDX)
	DECQ(RCX)
	JNZ(LabelRef(name + "_loop"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// A roundGroup is one set of lanes going through the rounds: its register
// pool, working variables and expanded words on the stack.
type roundGroup struct {
	p *pool
	s [8]VecPhysical
	w Mem
}

// rounds emits the 64 rounds for the groups, their instruction streams
// interleaved. Rounds 0-15 are unrolled; rounds 16-63 are a loop over four
// rounds, which is the period of the renaming, so the working variables
// are back in their registers at the end of every iteration. The loop
// keeps the code small: a kernel that is called once per KDF or per short
// message must not evict itself and its callers from the instruction
// cache. R9 holds the offset of W[j] for the first round j of an
// iteration, R10 that of T_j, R11 counts the iterations; R12 holds the
// address of the constants.
func rounds(name string, v *mvec, gs []*roundGroup) {
	LEAQ(tTable, R12)
	emit := func(j int, W func(g *roundGroup, k int) Mem, T Mem) {
		streams := make([][]func(), len(gs))
		for i, g := range gs {
			rec = &streams[i]
			g.s = multiRound(v, g.p, j, g.s, func(k int) Mem { return W(g, k) }, T)
			rec = nil
		}
		if len(streams) == 1 {
			interleave(streams[0], nil)
		} else {
			interleave(streams[0], streams[1])
		}
	}
	for j := 0; j < 16; j++ {
		emit(j, func(g *roundGroup, k int) Mem { return g.w.Offset((j + k) * v.size) }, Mem{Base: R12, Disp: 4 * j})
	}
	MOVQ(U32(16*v.size), R9)
	MOVQ(U32(16*4), R10)
	MOVQ(U32(12), R11)
	Label(name + "_rounds")
	for k := 0; k < 4; k++ {
		at := func(g *roundGroup, d int) Mem {
			m := g.w.Offset((k + d) * v.size)
			m.Index, m.Scale = R9, 1
			return m
		}
		emit(16+k, at, Mem{Base: R12, Index: R10, Scale: 1, Disp: 4 * k})
	}
	ADDQ(U32(4*v.size), R9)
	ADDQ(U8(16), R10)
	DECQ(R11)
	JNZ(LabelRef(name + "_rounds"))
}

// multiRound emits round j (with the expansion of W[j+4] when j >= 12; any
// j >= 16 stands for every round of the loop) and returns the renamed
// working variables. W(k) addresses W[j+k] and T the constant T_j.
func multiRound(v *mvec, p *pool, j int, s [8]VecPhysical, W func(int) Mem, T Mem) [8]VecPhysical {
	a, b, c, d, e, f, g, h := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]

	// W[j+4] = P1(W[j-12] ^ W[j-5] ^ W[j+1]<<<15) ^ W[j-9]<<<7 ^ W[j-2]
	w4 := p.get()
	if j >= 12 {
		x := w4
		v.rol(p, 15, W(1), x)
		y := p.get()
		v.movu(W(-5), y)
		v.xor3(y, W(-12), x)
		r1, r2 := p.get(), p.get()
		v.rol(p, 15, x, r1)
		v.rol(p, 23, x, r2)
		v.xor3(r1, r2, x)
		v.rol(p, 7, W(-9), y)
		v.xor3(y, W(-2), x)
		p.put(y, r1, r2)
		v.movu(x, W(4))
	} else {
		v.movu(W(4), w4)
	}

	// SS1 = ((A <<< 12) + T_j + E) <<< 7, SS2 = SS1 ^ (A <<< 12)
	a12, ss1 := p.get(), p.get()
	v.rol(p, 12, a, a12)
	if v.avx512 {
		ins(func() { VPADDD_BCST(T, a12, ss1) })
	} else {
		ins(func() { VPBROADCASTD(T, ss1) })
		ins(func() { VPADDD(a12, ss1, ss1) })
	}
	ins(func() { VPADDD(e, ss1, ss1) })
	v.rol(p, 7, ss1, ss1)
	v.xor(ss1, a12, a12)

	// TT1 = FF(A, B, C) + D + SS2 + W'[j], computed into D.
	ff := p.get()
	switch {
	case v.avx512:
		imm := immMaj
		if j < 16 {
			imm = immXor3
		}
		ins(func() { VMOVDQA32(b, ff) })
		ins(func() { VPTERNLOGD(U8(imm), c, a, ff) })
	case j < 16:
		ins(func() { VPXOR(a, b, ff) })
		ins(func() { VPXOR(c, ff, ff) })
	default:
		// (B & C) | (A & (B | C))
		t := p.get()
		ins(func() { VPOR(b, c, t) })
		ins(func() { VPAND(a, t, t) })
		ins(func() { VPAND(c, b, ff) })
		ins(func() { VPOR(t, ff, ff) })
		p.put(t)
	}
	v.xor(W(0), w4, w4) // W'[j]
	ins(func() { VPADDD(w4, d, d) })
	ins(func() { VPADDD(ff, d, d) })
	ins(func() { VPADDD(a12, d, d) })
	v.rol(p, 9, b, b)
	p.put(w4, ff, a12)

	// TT2 = GG(E, F, G) + H + SS1 + W[j], into H.
	gg := p.get()
	switch {
	case v.avx512:
		imm := immChoose
		if j < 16 {
			imm = immXor3
		}
		ins(func() { VMOVDQA32(f, gg) })
		ins(func() { VPTERNLOGD(U8(imm), g, e, gg) })
	case j < 16:
		ins(func() { VPXOR(e, f, gg) })
		ins(func() { VPXOR(g, gg, gg) })
	default:
		// ((F ^ G) & E) ^ G
		ins(func() { VPXOR(g, f, gg) })
		ins(func() { VPAND(e, gg, gg) })
		ins(func() { VPXOR(g, gg, gg) })
	}
	ins(func() { VPADDD(W(0), h, h) })
	ins(func() { VPADDD(gg, h, h) })
	ins(func() { VPADDD(ss1, h, h) })
	v.rol(p, 19, f, f)
	p.put(gg, ss1)

	// E' = P0(TT2) = TT2 ^ TT2<<<9 ^ TT2<<<17
	r1, r2 := p.get(), p.get()
	v.rol(p, 9, h, r1)
	v.rol(p, 17, h, r2)
	v.xor3(r1, r2, h)
	p.put(r1, r2)

	// B and F were rotated in place: the renaming is the fixed cycle of
	// period 4 that the round loop relies on.
	return [8]VecPhysical{d, a, b, c, h, e, f, g}
}

// loadMessages loads block DX of the v.lanes messages, byte-swaps the words
// and transposes them so that vector j holds word j of every lane, in lane
// order, and stores them as W[0..15].
func loadMessages(v *mvec, W func(int) Mem) {
	if v.lanes == 16 {
		loadMessages16(v, W)
	} else {
		loadMessages8(v, W)
	}
}

// elem names one word of the message matrix: lane and word index.
type elem struct{ lane, word int }

// loadMessages16 transposes the 16x16 matrix of words with two rounds of
// in-lane unpacks (dword, then qword) and two of 128-bit block shuffles.
// The network is simulated here first, and the generator refuses to emit
// it unless the simulation ends in the exact transpose.
func loadMessages16(v *mvec, W func(int) Mem) {
	// Simulation: sim[r][k] is the element in position k of register r.
	var sim [16][16]elem
	for r := 0; r < 16; r++ {
		for k := 0; k < 16; k++ {
			sim[r][k] = elem{r, k}
		}
	}
	type op struct {
		kind     string // "lo32", "hi32", "lo64", "hi64", "shuf"
		imm      uint8
		a, b, to int // to = kind(a, b) in Intel order: a is the first source
	}
	var ops []op
	regs := [16]int{}
	for i := range regs {
		regs[i] = i
	}
	apply := func(o op, x, y [16]elem) [16]elem {
		var out [16]elem
		for chunk := 0; chunk < 4; chunk++ {
			base := 4 * chunk
			switch o.kind {
			case "lo32":
				out[base], out[base+1], out[base+2], out[base+3] = x[base], y[base], x[base+1], y[base+1]
			case "hi32":
				out[base], out[base+1], out[base+2], out[base+3] = x[base+2], y[base+2], x[base+3], y[base+3]
			case "lo64":
				out[base], out[base+1], out[base+2], out[base+3] = x[base], x[base+1], y[base], y[base+1]
			case "hi64":
				out[base], out[base+1], out[base+2], out[base+3] = x[base+2], x[base+3], y[base+2], y[base+3]
			case "shuf":
				src := x
				if chunk >= 2 {
					src = y
				}
				sel := int(o.imm>>(2*chunk)) & 3
				copy(out[base:base+4], src[4*sel:4*sel+4])
			}
		}
		return out
	}
	// Each stage pairs registers i and i+d: the low-kind result replaces
	// i and the high-kind result i+d.
	stage := func(d int, lo, hi string, immLo, immHi uint8) {
		var next [16][16]elem
		for i := 0; i < 16; i++ {
			if i&d != 0 {
				continue
			}
			ops = append(ops, op{lo, immLo, i, i + d, i}, op{hi, immHi, i, i + d, i + d})
			next[i] = apply(op{lo, immLo, 0, 0, 0}, sim[i], sim[i+d])
			next[i+d] = apply(op{hi, immHi, 0, 0, 0}, sim[i], sim[i+d])
		}
		sim = next
	}
	stage(1, "lo32", "hi32", 0, 0)
	stage(2, "lo64", "hi64", 0, 0)
	stage(4, "shuf", "shuf", 0x88, 0xdd)
	stage(8, "shuf", "shuf", 0x88, 0xdd)
	// Find, for every output register, which word it holds, and check that
	// its lanes come out in an order given by a fixed permutation of the
	// input registers.
	laneAt := [16]int{} // laneAt[k] = input register whose data is at position k
	for k := 0; k < 16; k++ {
		laneAt[k] = sim[0][k].lane
	}
	wordOf := [16]int{}
	for r := 0; r < 16; r++ {
		wordOf[r] = sim[r][0].word
		for k := 0; k < 16; k++ {
			if sim[r][k].lane != laneAt[k] || sim[r][k].word != wordOf[r] {
				panic("transpose network is not a transpose")
			}
		}
	}

	// Emission. Input register laneAt[k] gets lane k's block, so that the
	// outputs are in lane order.
	regsZ := v.regs
	for k := 0; k < 16; k++ {
		r := regsZ[laneAt[k]]
		MOVQ(Mem{Base: RSI, Disp: 8 * k}, R8)
		VMOVDQU32(Mem{Base: R8, Index: RDX, Scale: 1}, r)
		VPSHUFB(bswap, r, r)
	}
	tmp := regsZ[16]
	for i := 0; i < len(ops); i += 2 {
		lo, hi := ops[i], ops[i+1]
		x, y := regsZ[lo.a], regsZ[lo.b]
		emit := func(o op, dst VecPhysical) {
			switch o.kind {
			case "lo32":
				VPUNPCKLDQ(y, x, dst)
			case "hi32":
				VPUNPCKHDQ(y, x, dst)
			case "lo64":
				VPUNPCKLQDQ(y, x, dst)
			case "hi64":
				VPUNPCKHQDQ(y, x, dst)
			case "shuf":
				VSHUFI32X4(U8(o.imm), y, x, dst)
			}
		}
		emit(lo, tmp)
		emit(hi, y)
		VMOVDQA32(tmp, x)
	}
	for r := 0; r < 16; r++ {
		VMOVDQU32(regsZ[r], W(wordOf[r]))
	}
}

// loadMessages8 transposes the 8x16 matrix as two 8x8 ones (words 0-7 and
// 8-15), each with dword and qword unpacks and a 128-bit permutation, with
// the same simulated check.
func loadMessages8(v *mvec, W func(int) Mem) {
	var sim [8][8]elem
	for r := 0; r < 8; r++ {
		for k := 0; k < 8; k++ {
			sim[r][k] = elem{r, k}
		}
	}
	type op struct {
		kind string
		a, b int
	}
	var ops [][2]op
	apply := func(kind string, x, y [8]elem) [8]elem {
		var out [8]elem
		for half := 0; half < 2; half++ {
			base := 4 * half
			switch kind {
			case "lo32":
				out[base], out[base+1], out[base+2], out[base+3] = x[base], y[base], x[base+1], y[base+1]
			case "hi32":
				out[base], out[base+1], out[base+2], out[base+3] = x[base+2], y[base+2], x[base+3], y[base+3]
			case "lo64":
				out[base], out[base+1], out[base+2], out[base+3] = x[base], x[base+1], y[base], y[base+1]
			case "hi64":
				out[base], out[base+1], out[base+2], out[base+3] = x[base+2], x[base+3], y[base+2], y[base+3]
			case "perm20": // low halves of x and y
				src := x
				if half == 1 {
					src = y
				}
				copy(out[base:base+4], src[0:4])
			case "perm31": // high halves
				src := x
				if half == 1 {
					src = y
				}
				copy(out[base:base+4], src[4:8])
			}
		}
		return out
	}
	stage := func(d int, lo, hi string) {
		var next [8][8]elem
		for i := 0; i < 8; i++ {
			if i&d != 0 {
				continue
			}
			ops = append(ops, [2]op{{lo, i, i + d}, {hi, i, i + d}})
			next[i] = apply(lo, sim[i], sim[i+d])
			next[i+d] = apply(hi, sim[i], sim[i+d])
		}
		sim = next
	}
	stage(1, "lo32", "hi32")
	stage(2, "lo64", "hi64")
	stage(4, "perm20", "perm31")
	laneAt := [8]int{}
	for k := 0; k < 8; k++ {
		laneAt[k] = sim[0][k].lane
	}
	wordOf := [8]int{}
	for r := 0; r < 8; r++ {
		wordOf[r] = sim[r][0].word
		for k := 0; k < 8; k++ {
			if sim[r][k].lane != laneAt[k] || sim[r][k].word != wordOf[r] {
				panic("transpose network is not a transpose")
			}
		}
	}

	regs := v.regs
	for half := 0; half < 2; half++ {
		for k := 0; k < 8; k++ {
			r := regs[laneAt[k]]
			MOVQ(Mem{Base: RSI, Disp: 8 * k}, R8)
			VMOVDQU(Mem{Base: R8, Index: RDX, Scale: 1, Disp: 32 * half}, r)
			VPSHUFB(bswap, r, r)
		}
		tmp := regs[8]
		for _, pair := range ops {
			lo, hi := pair[0], pair[1]
			x, y := regs[lo.a], regs[lo.b]
			emit := func(kind string, dst VecPhysical) {
				switch kind {
				case "lo32":
					VPUNPCKLDQ(y, x, dst)
				case "hi32":
					VPUNPCKHDQ(y, x, dst)
				case "lo64":
					VPUNPCKLQDQ(y, x, dst)
				case "hi64":
					VPUNPCKHQDQ(y, x, dst)
				case "perm20":
					VPERM2I128(U8(0x20), y, x, dst)
				case "perm31":
					VPERM2I128(U8(0x31), y, x, dst)
				}
			}
			emit(lo.kind, tmp)
			emit(hi.kind, y)
			VMOVDQA(tmp, x)
		}
		for r := 0; r < 8; r++ {
			VMOVDQU(regs[r], W(8*half+wordOf[r]))
		}
	}
}
