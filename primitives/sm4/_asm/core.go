// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"encoding/binary"
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/shangmi-go/shangmi/primitives/sm4/_asm/sboxmath"
)

// The bulk kernels hold the state of a group of blocks transposed: register
// xᵢ holds word i (big-endian, as a number) of every block in the group, one
// block per 32-bit lane, so each SM4 round is the same few instructions on
// whole registers. A group is as many blocks as a register has lanes: 16
// (ZMM), 8 (YMM) or 4 (XMM). The loops run several groups side by side to
// hide the latency of a round (about 16 cycles of dependent instructions).
//
// Transposing four registers of blocks inside each 128-bit lane puts word i
// of block L·d + l (L = lanes of 128 bits, l = lane, d = register) at 32-bit
// position 4·l + d of register xᵢ; counters are generated in that order, and
// the same transposition brings the words back to blocks.

// isa is one instruction-set flavour of the SM4 core.
type isa struct {
	suffix string // kernel name suffix
	width  int    // vector register size in bytes
	evex   bool   // AVX-512: 32 registers, VPROLD, VPTERNLOGD, masks
	gfni   bool   // S-box with GFNI; otherwise with AES-NI/VAES
	groups int    // groups per main-loop iteration
}

var (
	isaGFNI512  = isa{"GFNI512", 64, true, true, 3}
	isaGFNI256  = isa{"GFNI256", 32, false, true, 2}
	isaVAES256  = isa{"VAES256", 32, false, false, 2}
	isaAESNI128 = isa{"AESNI128", 16, false, false, 2}

	isas = []isa{isaGFNI512, isaGFNI256, isaVAES256, isaAESNI128}
)

// blocks is the number of blocks in a group, groupBytes their size.
func (s isa) blocks() int     { return s.width / 4 }
func (s isa) groupBytes() int { return 16 * s.blocks() }
func (s isa) lanes() int      { return s.width / 16 }

var (
	zregs = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
		Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}
)

// v returns vector register i at the flavour's width.
func (s isa) v(i int) Register {
	switch s.width {
	case 64:
		return zregs[i]
	case 32:
		return zregs[i].AsY()
	}
	return zregs[i].AsX()
}

func xr(i int) Register { return zregs[i].AsX() }
func yr(i int) Register { return zregs[i].AsY() }

// xor3 sets dst ^= a ^ b.
func (s isa) xor3(a, b, dst Op) {
	if s.evex {
		VPTERNLOGD(U8(0x96), b, a, dst)
		return
	}
	VPXOR(a, dst, dst)
	VPXOR(b, dst, dst)
}

func (s isa) xor(a, b, dst Op) {
	if s.evex {
		VPXORD(a, b, dst)
		return
	}
	VPXOR(a, b, dst)
}

// Constants, emitted once each.

var consts = sboxmath.Derive()

var globals = map[string]Mem{}

// global returns a read-only 64-byte (or longer) constant.
func global(name string, data []byte) Mem {
	if m, ok := globals[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < len(data); i += 8 {
		DATA(i, U64(binary.LittleEndian.Uint64(data[i:])))
	}
	globals[name] = m
	return m
}

// repeat repeats pattern to 64 bytes.
func repeat(pattern []byte) []byte {
	var b []byte
	for len(b) < 64 {
		b = append(b, pattern...)
	}
	return b
}

func qword(q uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], q)
	return repeat(b[:])
}

func dword(d uint32) []byte {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], d)
	return repeat(b[:])
}

// shuffle32 is a VPSHUFB control moving byte perm[k] of every 32-bit word
// to byte k.
func shuffle32(perm [4]byte) []byte {
	var b []byte
	for w := byte(0); w < 16; w += 4 {
		for _, p := range perm {
			b = append(b, w+p)
		}
	}
	return repeat(b)
}

func bswapMask() Mem { return global("bswap32", shuffle32([4]byte{3, 2, 1, 0})) }

// rotMask rotates every 32-bit word left by 8·k bits.
func rotMask(k int) Mem {
	var p [4]byte
	for i := range p {
		p[i] = byte((i + 4 - k) % 4)
	}
	return global(fmt.Sprintf("rot%d", 8*k), shuffle32(p))
}

func matrixConst(name string, m uint64) Mem { return global(name, qword(m)) }

func gfniA1() Mem { return matrixConst("gfniA1", consts.A1) }
func gfniA2() Mem { return matrixConst("gfniA2", consts.A2) }

func gfniA1Inv() Mem { return matrixConst("gfniA1Inv", consts.A1Inv) }
func latE(i int) Mem {
	return matrixConst(fmt.Sprintf("latE%d", i), [3]uint64{consts.E0, consts.E1, consts.E2}[i])
}

// invShiftRows undoes the ShiftRows step of AESENCLAST in advance: AES
// state byte r+4c moves to r+4((c−r) mod 4), so that after ShiftRows every
// byte is back where it was.
func invShiftRows() Mem {
	var sr, inv [16]byte
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			sr[r+4*c] = byte(r + 4*((c+r)%4))
		}
	}
	for i, j := range sr {
		inv[j] = byte(i)
	}
	return global("invShiftRows", repeat(inv[:]))
}

func nibble(name string, t [16]byte) Mem { return global(name, repeat(t[:])) }

func mask0F() Mem { return global("mask0f", repeat([]byte{0x0f})) }
func zeros() Mem  { return global("zeros", make([]byte, 64)) }

// iota holds the block offset of every 32-bit position of a group (see the
// comment at the top), as a counter increment.
func (s isa) iota() Mem {
	var b []byte
	L := s.lanes()
	for p := 0; p < s.blocks(); p++ {
		l, d := p/4, p%4
		b = binary.LittleEndian.AppendUint32(b, uint32(L*d+l))
	}
	for len(b) < 64 {
		b = append(b, 0)
	}
	return global(fmt.Sprintf("iota%d", s.blocks()), b)
}

func ones() Mem { return global("ones32", dword(1)) }

// group is the registers of one group of blocks: the four state words and
// three temporaries (five in the A1-domain rounds). The transpositions
// permute them.
type group struct {
	x [4]int
	t []int
}

// perGroup is the number of registers a group takes.
func (s isa) perGroup() int {
	if s.ydomain() {
		return 9
	}
	return 7
}

// groupsFrom assigns registers from 0 on.
func (s isa) groupsFrom(n int) []group {
	gs := make([]group, n)
	k := s.perGroup()
	for g := range gs {
		r := k * g
		gs[g] = group{x: [4]int{r, r + 1, r + 2, r + 3}}
		for j := 4; j < k; j++ {
			gs[g].t = append(gs[g].t, r+j)
		}
	}
	return gs
}

// transpose turns four registers of blocks into four of words (or back:
// it is its own inverse) inside each 128-bit lane. The result is in g.x; two
// of the temporaries take the place of two inputs.
func (s isa) transpose(g *group) {
	r0, r1, r2, r3 := s.v(g.x[0]), s.v(g.x[1]), s.v(g.x[2]), s.v(g.x[3])
	t0, t1 := s.v(g.t[0]), s.v(g.t[1])
	VPUNPCKLDQ(r1, r0, t0) // r0.0 r1.0 r0.1 r1.1
	VPUNPCKHDQ(r1, r0, r1) // r0.2 r1.2 r0.3 r1.3
	VPUNPCKLDQ(r3, r2, t1) // r2.0 r3.0 r2.1 r3.1
	VPUNPCKHDQ(r3, r2, r3) // r2.2 r3.2 r2.3 r3.3
	VPUNPCKLQDQ(t1, t0, r0)
	VPUNPCKHQDQ(t1, t0, t0)
	VPUNPCKLQDQ(r3, r1, r2)
	VPUNPCKHQDQ(r3, r1, r3)
	old := *g
	g.x = [4]int{old.x[0], old.t[0], old.x[2], old.x[3]}
	g.t = append([]int{old.x[1]}, old.t[1:]...)
}

// load and store move a whole vector register from and to memory.
func (s isa) load(m Mem, r Register) {
	if s.width == 64 {
		VMOVDQU64(m, r)
		return
	}
	VMOVDQU(m, r)
}

func (s isa) store(r Register, m Mem) {
	if s.width == 64 {
		VMOVDQU64(r, m)
		return
	}
	VMOVDQU(r, m)
}

// loadGroup loads a group of blocks from base+off and transposes it.
func (s isa) loadGroup(g *group, base Register, off int) {
	for d := 0; d < 4; d++ {
		s.load(Mem{Base: base, Disp: off + d*s.width}, s.v(g.x[d]))
	}
	for d := 0; d < 4; d++ {
		VPSHUFB(bswapMask(), s.v(g.x[d]), s.v(g.x[d]))
	}
	s.transpose(g)
	s.mapGroupIn(g)
}

// mapGroupIn and mapGroupOut move a group's words into and out of the A1
// domain when the rounds work there.
func (s isa) mapGroupIn(g *group) {
	if s.ydomain() {
		for d := 0; d < 4; d++ {
			VGF2P8AFFINEQB(U8(0), gfniA1(), s.v(g.x[d]), s.v(g.x[d]))
		}
	}
}

func (s isa) mapGroupOut(g *group) {
	if s.ydomain() {
		for d := 0; d < 4; d++ {
			VGF2P8AFFINEQB(U8(0), gfniA1Inv(), s.v(g.x[d]), s.v(g.x[d]))
		}
	}
}

// finishGroup brings the state after 32 rounds back to blocks: the output
// is X35, X34, X33, X32, which after 32 rounds sit in x3, x2, x1, x0.
func (s isa) finishGroup(g *group) {
	s.mapGroupOut(g)
	g.x = [4]int{g.x[3], g.x[2], g.x[1], g.x[0]}
	s.transpose(g)
	for d := 0; d < 4; d++ {
		VPSHUFB(bswapMask(), s.v(g.x[d]), s.v(g.x[d]))
	}
}

// ydomain reports whether the bulk rounds work in the A1 domain (see
// latency.go) with the latency keys; that takes the round from about 19
// to 10 cycles of latency, which on AVX-512 is what limits the bulk
// kernels. The AVX2 flavours have too few registers for it.
func (s isa) ydomain() bool { return s.evex && s.gfni }

// Registers of the A1-domain rounds: the matrices E0-E2 stay loaded.
var yE = [3]VecPhysical{Z29, Z30, Z31}

// loadConstants loads the constants the rounds keep in registers.
func (s isa) loadConstants() {
	if s.ydomain() {
		for i, r := range yE {
			VMOVDQU64(latE(i), r)
		}
	}
}

// rounds emits the 32 rounds over the groups with round keys at rk; kreg is
// a spare register for the flavours that cannot XOR a broadcast operand.
//
// The rounds run as a loop of eight times four rounds, which keeps the
// kernels small; the loop branch costs nothing measurable next to a round.
// R10 and R11 are the loop's key pointer and end.
func (s isa) rounds(gs []group, rk Register, kreg int) {
	if s.ydomain() {
		s.roundsY(gs, rk)
		return
	}
	labelCount++
	loop := fmt.Sprintf("rounds%d", labelCount)
	MOVQ(rk, R10)
	LEAQ(Mem{Base: rk, Disp: 128}, R11)
	Label(loop)
	for i := 0; i < 4; i++ {
		s.round(i, gs, R10, kreg)
	}
	ADDQ(U8(16), R10)
	CMPQ(R10, R11)
	JB(LabelRef(loop))
}

var labelCount int

func (s isa) round(i int, gs []group, rk Register, kreg int) {
	a, b, c, d := i%4, (i+1)%4, (i+2)%4, (i+3)%4
	key := Mem{Base: rk, Disp: 4 * i}
	each := func(f func(x [4]Register, t, u, w Register)) {
		for _, g := range gs {
			f([4]Register{s.v(g.x[0]), s.v(g.x[1]), s.v(g.x[2]), s.v(g.x[3])},
				s.v(g.t[0]), s.v(g.t[1]), s.v(g.t[2]))
		}
	}
	Commentf("Round %d.", i)
	// t = x_b ^ x_c ^ x_d ^ rk_i
	if s.evex {
		each(func(x [4]Register, t, u, w Register) { VPXORD_BCST(key, x[b], t) })
		each(func(x [4]Register, t, u, w Register) { VPTERNLOGD(U8(0x96), x[d], x[c], t) })
	} else {
		k := s.v(kreg)
		VPBROADCASTD(key, k)
		each(func(x [4]Register, t, u, w Register) { VPXOR(x[b], k, t) })
		each(func(x [4]Register, t, u, w Register) { VPXOR(x[c], t, t) })
		each(func(x [4]Register, t, u, w Register) { VPXOR(x[d], t, t) })
	}
	// t = S(t) bytewise
	if s.gfni {
		a1, a2 := gfniA1(), gfniA2()
		each(func(x [4]Register, t, u, w Register) { VGF2P8AFFINEQB(U8(consts.C1), a1, t, t) })
		each(func(x [4]Register, t, u, w Register) { VGF2P8AFFINEINVQB(U8(consts.C2), a2, t, t) })
	} else {
		each(func(x [4]Register, t, u, w Register) { VPSHUFB(invShiftRows(), t, t) })
		s.nibbleAffine(each, "pre", consts.Pre)
		each(func(x [4]Register, t, u, w Register) { VAESENCLAST(zeros(), t, t) })
		s.nibbleAffine(each, "post", consts.Post)
	}
	// x_a ^= L(t), L(t) = t ^ t<<<2 ^ t<<<10 ^ t<<<18 ^ t<<<24
	if s.evex {
		each(func(x [4]Register, t, u, w Register) { VPROLD(U8(2), t, u) })
		each(func(x [4]Register, t, u, w Register) { VPTERNLOGD(U8(0x96), u, t, x[a]) })
		each(func(x [4]Register, t, u, w Register) { VPROLD(U8(10), t, u) })
		each(func(x [4]Register, t, u, w Register) { VPROLD(U8(18), t, w) })
		each(func(x [4]Register, t, u, w Register) { VPTERNLOGD(U8(0x96), w, u, x[a]) })
		each(func(x [4]Register, t, u, w Register) { VPROLD(U8(24), t, u) })
		each(func(x [4]Register, t, u, w Register) { VPXORD(u, x[a], x[a]) })
		return
	}
	// Without rotations: L(t) = t ^ t<<<24 ^ (u<<<2) with u = t ^ t<<<8 ^ t<<<16,
	// the byte rotations by VPSHUFB and u<<<2 as two shifts XORed in.
	each(func(x [4]Register, t, u, w Register) { VPSHUFB(rotMask(1), t, u) })
	each(func(x [4]Register, t, u, w Register) { VPSHUFB(rotMask(2), t, w) })
	each(func(x [4]Register, t, u, w Register) { VPXOR(w, u, u) })
	each(func(x [4]Register, t, u, w Register) { VPXOR(t, u, u) })
	each(func(x [4]Register, t, u, w Register) { VPXOR(t, x[a], x[a]) })
	each(func(x [4]Register, t, u, w Register) { VPSHUFB(rotMask(3), t, t) })
	each(func(x [4]Register, t, u, w Register) { VPXOR(t, x[a], x[a]) })
	each(func(x [4]Register, t, u, w Register) { VPSLLD(U8(2), u, w) })
	each(func(x [4]Register, t, u, w Register) { VPXOR(w, x[a], x[a]) })
	each(func(x [4]Register, t, u, w Register) { VPSRLD(U8(30), u, u) })
	each(func(x [4]Register, t, u, w Register) { VPXOR(u, x[a], x[a]) })
}

// nibbleAffine applies t = lo[t & 15] ^ hi[t >> 4] bytewise with the
// tables loaded into w for each lookup (VPSHUFB takes its table in a
// register).
func (s isa) nibbleAffine(each func(func(x [4]Register, t, u, w Register)), name string, n sboxmath.Nibble) {
	lo, hi := nibble(name+"Lo", n.Lo), nibble(name+"Hi", n.Hi)
	each(func(x [4]Register, t, u, w Register) { VPSRLW(U8(4), t, u) })
	each(func(x [4]Register, t, u, w Register) { VPAND(mask0F(), t, t) })
	each(func(x [4]Register, t, u, w Register) { VPAND(mask0F(), u, u) })
	each(func(x [4]Register, t, u, w Register) { VMOVDQU(lo, w) })
	each(func(x [4]Register, t, u, w Register) { VPSHUFB(t, w, t) })
	each(func(x [4]Register, t, u, w Register) { VMOVDQU(hi, w) })
	each(func(x [4]Register, t, u, w Register) { VPSHUFB(u, w, u) })
	each(func(x [4]Register, t, u, w Register) { VPXOR(u, t, t) })
}

// roundsY runs the 32 rounds in the A1 domain (the bulk form of the
// latency kernels' rounds, see latency.go) over the groups, with the
// latency keys at kk. Per group: y0-y3 in x, then u, G, e0, e1, e2 in t;
// after the three GFNI steps u holds the rotated terms and then u of the
// next round.
//
//	u_0     = y1 ⊕ y2 ⊕ y3 ⊕ kk_0
//	e_j     = E_j·inv(u_i)
//	G_i     = y_i ⊕ y_{i+2} ⊕ y_{i+3} ⊕ kk_{i+1}
//	u_{i+1} = G_i ⊕ e0 ⊕ (R8 e1 ⊕ R16 e1 ⊕ R24 e2)
//	y_{i+4} = y_i ⊕ G_i ⊕ u_{i+1}
func (s isa) roundsY(gs []group, kk Register) {
	type regs struct {
		y                [4]Register
		u, g, e0, e1, e2 Register
	}
	rs := make([]regs, len(gs))
	for i, gr := range gs {
		rs[i] = regs{
			y: [4]Register{s.v(gr.x[0]), s.v(gr.x[1]), s.v(gr.x[2]), s.v(gr.x[3])},
			u: s.v(gr.t[0]), g: s.v(gr.t[1]), e0: s.v(gr.t[2]), e1: s.v(gr.t[3]), e2: s.v(gr.t[4]),
		}
	}
	each := func(f func(r *regs)) {
		for g := range rs {
			f(&rs[g])
		}
	}
	key := func(i int) Mem { return Mem{Base: R10, Disp: 4 * i} }
	round := func(i int, last bool) {
		Commentf("Round %d.", i)
		yi, y2, y3 := i%4, (i+2)%4, (i+3)%4
		if !last {
			each(func(r *regs) { VPXORD(r.y[y2], r.y[yi], r.g) })
			each(func(r *regs) { VPTERNLOGD_BCST(U8(0x96), key(i+1), r.y[y3], r.g) })
		}
		each(func(r *regs) { VGF2P8AFFINEINVQB(U8(0), yE[0], r.u, r.e0) })
		each(func(r *regs) { VGF2P8AFFINEINVQB(U8(0), yE[1], r.u, r.e1) })
		each(func(r *regs) { VGF2P8AFFINEINVQB(U8(0), yE[2], r.u, r.e2) })
		each(func(r *regs) { VPROLD(U8(8), r.e1, r.u) })
		each(func(r *regs) { VPROLD(U8(16), r.e1, r.e1) })
		each(func(r *regs) { VPROLD(U8(24), r.e2, r.e2) })
		each(func(r *regs) { VPTERNLOGD(U8(0x96), r.e2, r.e1, r.u) })
		if last {
			each(func(r *regs) { VPTERNLOGD(U8(0x96), r.u, r.e0, r.y[yi]) })
			return
		}
		each(func(r *regs) { VPXORD(r.g, r.e0, r.e0) })
		each(func(r *regs) { VPXORD(r.e0, r.u, r.u) })
		each(func(r *regs) { VPTERNLOGD(U8(0x96), r.u, r.g, r.y[yi]) })
	}
	MOVQ(kk, R10)
	each(func(r *regs) { VPXORD_BCST(key(0), r.y[1], r.u) })
	each(func(r *regs) { VPTERNLOGD(U8(0x96), r.y[3], r.y[2], r.u) })
	labelCount++
	loop := fmt.Sprintf("rounds%d", labelCount)
	LEAQ(Mem{Base: kk, Disp: 112}, R11)
	Label(loop)
	for i := 0; i < 4; i++ {
		round(i, false)
	}
	ADDQ(U8(16), R10)
	CMPQ(R10, R11)
	JB(LabelRef(loop))
	for i := 0; i < 4; i++ {
		round(i, i == 3)
	}
}

// roundsYLatency is roundsY for one group where latency is all that
// counts (the multi-chain kernel): G comes from P_i = y_i ⊕ y_{i+1} ⊕ kk_i
// ⊕ kk_{i+1}, known early, as G_i = P_i ⊕ u_i, and the four terms of u_{i+1}
// meet in two levels of VPXORD instead of a VPTERNLOGD (whose source
// operands take 3 cycles) and an XOR: 9 cycles a round instead of 10. p is
// one more temporary.
func (s isa) roundsYLatency(gr group, kk Register, p VecPhysical) {
	y := [4]Register{s.v(gr.x[0]), s.v(gr.x[1]), s.v(gr.x[2]), s.v(gr.x[3])}
	u, g, e0, e1, e2 := s.v(gr.t[0]), s.v(gr.t[1]), s.v(gr.t[2]), s.v(gr.t[3]), s.v(gr.t[4])
	key := func(i int) Mem { return Mem{Base: R10, Disp: 4 * i} }
	round := func(i int, last bool) {
		Commentf("Round %d.", i)
		yi, y1 := y[i%4], y[(i+1)%4]
		if !last {
			VPXORD(y1, yi, p)
			VPXORD_BCST(key(i), p, p)
			VPXORD_BCST(key(i+1), p, p)
		}
		VGF2P8AFFINEINVQB(U8(0), yE[0], u, e0)
		VGF2P8AFFINEINVQB(U8(0), yE[1], u, e1)
		VGF2P8AFFINEINVQB(U8(0), yE[2], u, e2)
		if !last {
			VPXORD(u, p, g)
		}
		VPROLD(U8(8), e1, u)
		VPROLD(U8(16), e1, e1)
		VPROLD(U8(24), e2, e2)
		if last {
			VPTERNLOGD(U8(0x96), e2, e1, u)
			VPTERNLOGD(U8(0x96), u, e0, yi)
			return
		}
		VPXORD(g, e0, e0)
		VPXORD(e1, u, u)
		VPXORD(e0, e2, e2)
		VPXORD(e2, u, u)
		VPTERNLOGD(U8(0x96), u, g, yi)
	}
	MOVQ(kk, R10)
	VPXORD_BCST(key(0), y[1], u)
	VPTERNLOGD(U8(0x96), y[3], y[2], u)
	labelCount++
	loop := fmt.Sprintf("rounds%d", labelCount)
	LEAQ(Mem{Base: kk, Disp: 112}, R11)
	Label(loop)
	for i := 0; i < 4; i++ {
		round(i, false)
	}
	ADDQ(U8(16), R10)
	CMPQ(R10, R11)
	JB(LabelRef(loop))
	for i := 0; i < 4; i++ {
		round(i, i == 3)
	}
}
