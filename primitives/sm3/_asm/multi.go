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

// mvec is the instruction set of one multi-buffer kernel.
type mvec struct {
	avx512 bool
	lanes  int
	regs   []VecPhysical
	size   int // bytes per vector
}

func (v *mvec) movu(src, dst Op) {
	if v.avx512 {
		VMOVDQU32(src, dst)
	} else {
		VMOVDQU(src, dst)
	}
}

func (v *mvec) xor(a, b, dst Op) {
	if v.avx512 {
		VPXORD(a, b, dst)
	} else {
		VPXOR(a, b, dst)
	}
}

// rol sets dst = x <<< n; x may be memory.
func (v *mvec) rol(p *pool, n int, x Op, dst VecPhysical) {
	if v.avx512 {
		VPROLD(U8(n), x, dst)
		return
	}
	t := p.get()
	if m, ok := x.(Mem); ok {
		VMOVDQU(m, dst)
		x = dst
	}
	VPSLLD(U8(n), x, t)
	VPSRLD(U8(32-n), x, dst)
	VPOR(t, dst, dst)
	p.put(t)
}

// xor3 sets dst ^= a ^ b; b may be memory.
func (v *mvec) xor3(a VecPhysical, b Op, dst VecPhysical) {
	if v.avx512 {
		VPTERNLOGD(U8(immXor3), b, a, dst)
		return
	}
	VPXOR(a, dst, dst)
	VPXOR(b, dst, dst)
}

func multiBuffer() {
	roundConstants()
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
// offset of the current block in every message, R8 a message pointer. The
// vector registers are handed out by a pool: eight hold the working
// variables, renamed rather than moved, the rest are scratch. The
// expanded words W[0..67] of all lanes live on the stack.
func multiKernel(name string, v *mvec) {
	TEXT(name, 0, "func(st *[8][16]uint32, p *[16]*byte, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s compresses n blocks of each of the first %d messages,", name, v.lanes),
		"lane l reading from p[l], into the transposed chaining values st.")
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
	for j := 0; j < 64; j++ {
		s = multiRound(v, p, j, s, W)
	}
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

// multiRound emits round j (with the expansion of W[j+4] when j >= 12) and
// returns the renamed working variables.
func multiRound(v *mvec, p *pool, j int, s [8]VecPhysical, W func(int) Mem) [8]VecPhysical {
	a, b, c, d, e, f, g, h := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]

	// W[j+4] = P1(W[j-12] ^ W[j-5] ^ W[j+1]<<<15) ^ W[j-9]<<<7 ^ W[j-2]
	w4 := p.get()
	if j >= 12 {
		x := w4
		v.rol(p, 15, W(j+1), x)
		y := p.get()
		v.movu(W(j-5), y)
		v.xor3(y, W(j-12), x)
		r1, r2 := p.get(), p.get()
		v.rol(p, 15, x, r1)
		v.rol(p, 23, x, r2)
		v.xor3(r1, r2, x)
		v.rol(p, 7, W(j-9), y)
		v.xor3(y, W(j-2), x)
		p.put(y, r1, r2)
		v.movu(x, W(j+4))
	} else {
		v.movu(W(j+4), w4)
	}

	// SS1 = ((A <<< 12) + T_j + E) <<< 7, SS2 = SS1 ^ (A <<< 12)
	a12, ss1 := p.get(), p.get()
	v.rol(p, 12, a, a12)
	if v.avx512 {
		VPADDD_BCST(tTable.Offset(4*j), a12, ss1)
	} else {
		VPBROADCASTD(tTable.Offset(4*j), ss1)
		VPADDD(a12, ss1, ss1)
	}
	VPADDD(e, ss1, ss1)
	v.rol(p, 7, ss1, ss1)
	v.xor(ss1, a12, a12)

	// TT1 = FF(A, B, C) + D + SS2 + W'[j], computed into D. B is dead
	// once C' = B <<< 9 is taken, so FF goes into its register.
	c2 := p.get()
	v.rol(p, 9, b, c2)
	switch {
	case v.avx512 && j < 16:
		VPTERNLOGD(U8(immXor3), c, a, b)
	case v.avx512:
		VPTERNLOGD(U8(immMaj), c, a, b)
	case j < 16:
		VPXOR(a, b, b)
		VPXOR(c, b, b)
	default:
		// (B & C) | (A & (B | C))
		t := p.get()
		VPOR(b, c, t)
		VPAND(a, t, t)
		VPAND(c, b, b)
		VPOR(t, b, b)
		p.put(t)
	}
	v.xor(W(j), w4, w4) // W'[j]
	VPADDD(w4, d, d)
	VPADDD(b, d, d)
	VPADDD(a12, d, d)
	p.put(w4, b, a12)

	// TT2 = GG(E, F, G) + H + SS1 + W[j], into H; likewise F is dead once
	// G' = F <<< 19 is taken.
	g2 := p.get()
	v.rol(p, 19, f, g2)
	switch {
	case v.avx512 && j < 16:
		VPTERNLOGD(U8(immXor3), g, e, f)
	case v.avx512:
		VPTERNLOGD(U8(immChoose), g, e, f)
	case j < 16:
		VPXOR(e, f, f)
		VPXOR(g, f, f)
	default:
		// ((F ^ G) & E) ^ G
		VPXOR(g, f, f)
		VPAND(e, f, f)
		VPXOR(g, f, f)
	}
	VPADDD(W(j), h, h)
	VPADDD(f, h, h)
	VPADDD(ss1, h, h)
	p.put(f, ss1)

	// E' = P0(TT2) = TT2 ^ TT2<<<9 ^ TT2<<<17
	r1, r2 := p.get(), p.get()
	v.rol(p, 9, h, r1)
	v.rol(p, 17, h, r2)
	v.xor3(r1, r2, h)
	p.put(r1, r2)

	return [8]VecPhysical{d, a, c2, c, h, e, g2, g}
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
