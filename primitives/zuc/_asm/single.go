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

// The single-stream kernels keep R1 and R2 in vector registers and run F
// there, since the S-boxes need vector instructions; the LFSR and the bit
// reorganisation run in general-purpose registers, one block (16 rounds)
// ahead of F, because in work mode the LFSR does not depend on F. F is a
// chain from one round's R1, R2 to the next: its latency bounds the
// keystream rate, and the LFSR, the output
// and the MAC fill the idle execution units alongside it.
//
// Stack frame of the work-mode kernels:
//
//	buf       48 LFSR cells: buf[0:16] is the register at the start of the
//	          block, buf[16:32] the cells F's rounds see next, buf[32:48]
//	          the cells computed during the block for the next one
//	xs[2]     bit reorganisation of a block, double-buffered (the block
//	          being run, the next one): rows of X0, X3, X2 (16 dwords
//	          each), then X1 as [X1, 0, X1, 0] per round
//	rbuf      AVX2: the packed R1, R2 of each round (16 qwords; the
//	          AVX-512 kernels collect them in Z10, Z11)
//	acc       MAC accumulators A, B, C (3 × 64 bytes)
//
// The single-stream kernels are a latency-bound chain of F rounds (S0, the
// two additions, the rotation of W and L, with S1 overlapping S0); the
// cost of a round on one CPU is in examples/bench/README.md.
type mode int

const (
	modeWords mode = iota // keystream words to ks
	modeXOR               // dst = src XOR keystream bytes
	modeMAC               // fused MAC: absorb message blocks, keystream into the MAC window
)

const (
	xsX0  = 0   // X0 of the 16 rounds
	xsX3  = 64  // X3
	xsX2  = 128 // X2
	xsX1  = 192 // X1 as [X1, 0, X1, 0] per round
	xsLen = 448
)

// gp holds the general-purpose registers of a kernel.
type gp struct {
	last, next GPPhysical // the newest LFSR cell, and the register for the next one
	b, t, u    GPPhysical // temporaries
}

func (g *gp) swap() { g.last, g.next = g.next, g.last }

// lfsrStep emits one LFSR step of work mode (or of initialisation mode if
// w is a register: W of that round, added as W>>1) over the window
// buf[base : base+16], storing the new cell to buf[base+16]. g.last holds
// buf[base+15] on entry and the new cell on return.
func lfsrStep(g *gp, buf Mem, base int, w GPPhysical) {
	c := func(k int) Mem { return buf.Offset(4 * (base + k)) }
	a, b := g.next, g.b
	MOVL(c(0), a.As32())
	IMUL3Q(U32(257), a, a)
	MOVL(c(4), b.As32())
	SHLQ(U8(20), b)
	ADDQ(b, a)
	MOVL(c(10), b.As32())
	SHLQ(U8(21), b)
	ADDQ(b, a)
	MOVL(c(13), b.As32())
	SHLQ(U8(17), b)
	ADDQ(b, a)
	if w != nil {
		SHRL(U8(1), w.As32())
		ADDQ(w, a)
	}
	MOVQ(g.last, b)
	SHLQ(U8(15), b)
	ADDQ(b, a)
	fold31(a, b)
	MOVL(a.As32(), c(16))
	g.swap()
}

// fold31 reduces a < 2^55 modulo 2^31-1 into [1, 2^31-1] (for a > 0),
// as fold31 in core.go.
func fold31(a, b GPPhysical) {
	MOVQ(a, b)
	SHRQ(U8(31), b)
	ANDL(U32(0x7fffffff), a.As32())
	ADDQ(b, a)
	MOVL(a.As32(), b.As32())
	SHRL(U8(31), b.As32())
	ANDL(U32(0x7fffffff), a.As32())
	ADDL(b.As32(), a.As32())
}

// brcHalf emits g.t = c[hi]<<16 | c[lo]>>15, the bit reorganisation of
// two cells (the high half of the first, the low half of the second); the
// upper half of g.t is zero.
func brcHalf(g *gp, buf Mem, hi, lo int) {
	MOVL(buf.Offset(4*hi), g.t.As32())
	SHLL(U8(16), g.t.As32())
	MOVL(buf.Offset(4*lo), g.u.As32())
	SHRL(U8(15), g.u.As32())
	ORL(g.u.As32(), g.t.As32())
}

// brcStep emits the bit reorganisation of the window buf[base:base+16]
// into round j of the xs set at xs: X0 and X3 to their rows, X1 and X2 to
// their pair. g.last holds buf[base+15].
func brcStep(g *gp, buf Mem, base int, xs Mem, j int) {
	c := base
	// X0 = s15[30:15] ‖ s14[15:0]
	MOVL(g.last.As32(), g.t.As32())
	ANDL(U32(0x7fff8000), g.t.As32())
	SHLL(U8(1), g.t.As32())
	MOVWLZX(buf.Offset(4*(c+14)), g.u.As32())
	ORL(g.u.As32(), g.t.As32())
	MOVL(g.t.As32(), xs.Offset(xsX0+4*j))
	brcHalf(g, buf, c+11, c+9)
	MOVQ(g.t, xs.Offset(xsX1+16*j))
	MOVQ(g.t, xs.Offset(xsX1+16*j+8))
	brcHalf(g, buf, c+7, c+5)
	MOVL(g.t.As32(), xs.Offset(xsX2+4*j))
	brcHalf(g, buf, c+2, c+0)
	MOVL(g.t.As32(), xs.Offset(xsX3+4*j))
}

// R1 and R2 are packed into one register, [R1, R2] (the AVX2 kernels
// also repeat them in the upper half), so that one S-box evaluation serves
// both. The add of W1 = R1 + X1 is done in lane 0 only, and the XOR of W2
// = R2 ^ X2 is not done at all on the chain: the words L1 and L2 are
// applied to are linear in W2, so the part that comes from X2,
//
//	C = [L1(X2 >> 16), L2(X2 << 16)],
//
// is computed beside the chain and XORed in with L's other terms. A round
// on the chain is then: add, rotate the qword by 16 (giving [W1L‖W2H,
// W2L‖W1H]), L, S.

// Vector registers of the AVX-512 single-stream kernels:
//
//	Z0-Z3   S0 (the 256-byte table)
//	X4, X5  GFNI matrices of S1            X9      [0x0000ffff, 0xffff0000] mask
//	X6      byte swap mask (XOR mode)      X12-15  L's rotations (L1 lane 0, L2 lane 1)
//	K1      odd bytes (S0's)               K5      even bytes (S1's)
//	K4      lane 0
//	X7, X8  [R1, R2]: S0's and S1's bytes (see sbox512)
//	X16-X31 round temporaries (and MAC temporaries between blocks)
func load512Consts(m mode) {
	for i := range 4 {
		VMOVDQU64(gS0.Offset(64*i), zr(i))
	}
	VPBROADCASTQ(gGFNI, X4)
	VPBROADCASTQ(gGFNI.Offset(8), X5)
	if m == modeXOR {
		VMOVDQU64(cBswap32, Z6)
	}
	VMOVDQU(cLoHi, X9)
	VMOVDQU(cRot3, X12)
	VMOVDQU(cRot3.Offset(16), X13)
	VMOVDQU(cRolB, X14)
	VMOVDQU(cRolB.Offset(16), X15)
	MOVQ(U64(0xaaaaaaaaaaaaaaaa), RAX)
	KMOVQ(RAX, K1)
	KNOTQ(K1, K5)
	MOVL(U32(1), EAX)
	KMOVQ(RAX, K4)
}

func zr(i int) VecPhysical {
	return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}[i]
}
func xr(i int) VecPhysical {
	return []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15, X16, X17, X18, X19, X20, X21, X22, X23, X24, X25, X26, X27, X28, X29, X30, X31}[i]
}
func yr(i int) VecPhysical {
	return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}[i]
}

// l512 emits x = L(x) ^ c (L1 in lane 0, L2 in lane 1), using
// temporaries t..t+3. Vector rotates issue on one pipe only, so L is
// written with two rotates and two byte shuffles (which issue on another
// pipe): for L1, x ^ (x<<<24) ^ a ^ (x<<<10) ^ (a<<<16) with a = x<<<2,
// and for L2 the same with rotations by 8, 14, 22 and 30. The rotation
// counts are in X12, X13, the byte shuffles in X14, X15. The five terms
// and c are summed in three-input XORs, c first: it is ready early.
func l512(x, c VecPhysical, t int) {
	a, b, p1, p2 := xr(t), xr(t+1), xr(t+2), xr(t+3)
	VPROLVD(X12, x, a)  // x<<<2 | x<<<14
	VPROLVD(X13, x, b)  // x<<<10 | x<<<22
	VPSHUFB(X14, x, p1) // x<<<24 | x<<<8
	VPSHUFB(X15, a, p2) // x<<<18 | x<<<30
	if c != nil {
		VPXORD(c, x, x)
	}
	VPTERNLOGD(U8(0x96), p1, a, x)
	VPTERNLOGD(U8(0x96), p2, b, x)
}

// sbox512 emits S(x) (S0, S1, S0, S1 from the top byte of every dword)
// as two disjoint parts: X8 gets S1 in the even bytes (zero in the odd
// ones) and X7 S0 in the odd bytes (zero in the even ones), with
// temporaries t..t+2 and mask K2. They are not ORed together on the
// chain: the next round adds X1 to X8 while S0 is still being looked up,
// then adds X7 (adding disjoint bits is ORing them). rjoin forms R1, R2
// where they are needed beside the chain.
func sbox512(x VecPhysical, t int) {
	// Fresh copies of the tables VPERMT2B overwrites; they do not depend
	// on x, so they are made off the chain.
	VMOVDQA64(Z0, zr(t+1))
	VMOVDQA64(Z2, zr(t+2))
	// S1 on every byte: into the AES field, invert, out again; kept in
	// the even bytes.
	VGF2P8AFFINEQB(U8(0), X4, x, xr(t))
	VGF2P8AFFINEINVQB_Z(U8(0x55), X5, xr(t), K5, X8)
	// S0 on the odd bytes: the low and high 128 entries by VPERMT2B
	// (which reads index bits 0-6), chosen by bit 7.
	VPERMT2B_Z(Z1, zOf(x), K1, zr(t+1))
	VPERMT2B_Z(Z3, zOf(x), K1, zr(t+2))
	VPMOVB2M(x, K2)
	VPBLENDMB(xr(t+2), xr(t+1), K2, X7)
}

// rjoin emits dst = [R1, R2] from the two S-box parts.
func rjoin(dst VecPhysical) { VPORD(X7, X8, dst) }

// zOf returns the ZMM register of an XMM one.
func zOf(x VecPhysical) VecPhysical {
	for i := range 32 {
		if xr(i) == x {
			return zr(i)
		}
	}
	panic("not an xmm register")
}

// round512 emits one round of F on [R1, R2] = X7 | X8 (see sbox512): x1
// holds [X1, 0, X1, 0], x2 the dword X2.
func round512(x1, x2 Mem) {
	// Off the chain: C = L([X2>>16, X2<<16]).
	VPBROADCASTD(x2, X16)
	VPROLD(U8(16), X16, X16)
	VPANDD(X9, X16, X16)
	l512(X16, nil, 17)
	// The chain: W' = [R1 + X1, R2] = S1part + [X1, 0] + S0part. X1 is
	// read as a dword (a wider load from narrower stores would not be
	// forwarded from the store buffer) and added in lane 0 only.
	VPADDD_BCST(x1, X8, K4, X8)
	VPADDD(X7, X8, X21)
	VPROLQ(U8(16), X21, X21) // [W1L‖R2H, R2L‖W1H]
	l512(X21, X16, 22)
	sbox512(X21, 26)
}

// Registers of the AVX2 single-stream kernels. The packed register is
// [R1, R2, R1, R2]: with the upper half a copy of the lower one,
// AESENCLAST's ShiftRows leaves the even bytes (S1's) in place, so no
// shuffle is needed around it.
//
//	X7      odd bytes (S0's) mask           X8        [R1, R2, R1, R2]
//	X9      0x0f in every byte              X10, X11  P1, P2 of S0
//	X0-X6, X12-X15 temporaries
func load2Consts() {
	VMOVDQU(cOddBytes, X7)
	VMOVDQU(cNibble, X9)
	VMOVDQU(gS0Nibble, X10)
	VMOVDQU(gS0Nibble.Offset(16), X11)
}

// sboxAVX2 emits X8 = S(X12) for the packed register X12 (S0 in the odd
// bytes, S1 in the even ones), using X0-X6, X12-X15.
func sboxAVX2() {
	lo, hi := X13, X14
	VPAND(X9, X12, lo)
	VPSRLW(U8(4), X12, hi)
	VPAND(X9, hi, hi)
	// S1: A by nibble tables, AESENCLAST (key 0), B by nibble tables.
	VMOVDQU(gS1AES, X0)
	VPSHUFB(lo, X0, X0)
	VMOVDQU(gS1AES.Offset(16), X1)
	VPSHUFB(hi, X1, X1)
	VPXOR(X1, X0, X0)
	VPXOR(X15, X15, X15)
	VAESENCLAST(X15, X0, X0)
	VPAND(X9, X0, X1)
	VPSRLW(U8(4), X0, X0)
	VPAND(X9, X0, X0)
	VMOVDQU(gS1AES.Offset(32), X2)
	VPSHUFB(X1, X2, X2)
	VMOVDQU(gS1AES.Offset(48), X3)
	VPSHUFB(X0, X3, X3)
	VPXOR(X3, X2, X2) // S1
	// S0: t = h ^ P1[l], u = l ^ P2[t], v = t ^ P3[u], out = RV[v] ^ RU[u].
	VPSHUFB(lo, X10, X4)
	VPXOR(hi, X4, X4) // t
	VPSHUFB(X4, X11, X5)
	VPXOR(lo, X5, X5) // u
	VMOVDQU(gS0Nibble.Offset(32), X6)
	VPSHUFB(X5, X6, X6)
	VPXOR(X4, X6, X6) // v
	VMOVDQU(gS0Nibble.Offset(48), X0)
	VPSHUFB(X6, X0, X0)
	VMOVDQU(gS0Nibble.Offset(64), X1)
	VPSHUFB(X5, X1, X1)
	VPXOR(X1, X0, X0) // S0
	VPBLENDVB(X7, X0, X2, X8)
}

// lAVX2 emits dst = L(x) (^ c if not nil), L1 in the even dwords and L2
// in the odd ones, with temporaries X0-X4: as l512, two rotations (each
// two shifts and an OR) and two byte shuffles.
func lAVX2(x, c, dst VecPhysical) {
	for k, t := range []VecPhysical{X0, X1} {
		VPSLLVD(cRot3.Offset(16*k), x, t)
		VPSRLVD(cRot3R.Offset(16*k), x, X4)
		VPOR(X4, t, t)
	}
	VPSHUFB(cRolB, x, X2)
	VPSHUFB(cRolB.Offset(16), X0, X3)
	VPXOR(X1, X0, X0)
	VPXOR(X3, X2, X2)
	if c != nil {
		VPXOR(c, x, X4)
		VPXOR(X4, X0, X0)
	} else {
		VPXOR(x, X0, X0)
	}
	VPXOR(X2, X0, dst)
}

// roundAVX2 emits one round of F on the packed X8: x1 holds [X1, 0, X1,
// 0], x2 the dword X2. If rbuf is not nil, R1, R2 are stored there first.
func roundAVX2(x1, x2 Mem, rbuf *Mem) {
	if rbuf != nil {
		VMOVQ(X8, *rbuf)
	}
	// Off the chain: C = L([X2>>16, X2<<16, ...]) into X15.
	VPBROADCASTD(x2, X12)
	VPSHUFB(cSwap16, X12, X12)
	VPAND(cLoHi, X12, X12)
	lAVX2(X12, nil, X15)
	// The chain. [X1, 0, X1, 0] is read as one quadword, broadcast (a
	// wider load from narrower stores would not be forwarded from the
	// store buffer).
	VPBROADCASTQ(x1, X13)
	VPADDD(X13, X8, X13)     // [R1 + X1, R2, ...]
	VPSHUFB(cRotW, X13, X13) // [W1L‖R2H, R2L‖W1H, ...]
	lAVX2(X13, X15, X12)
	sboxAVX2()
}

// genInit generates init<family>(s *state): the 32 initialisation rounds
// and the one work-mode round whose output is discarded, as
// initialiseGeneric. The LFSR is a ring of 16 cells on the stack (round i
// replaces cell i mod 16), so 16 rounds of code serve rounds 0-15 and
// 16-31.
//
// With block, it generates initBlock<family>(s *state, ks *[64]byte)
// instead, which also writes the first 64 keystream bytes to ks (and
// leaves s after them): the first block costs no second kernel call and no
// prologue, which is what a record that starts with Reset pays for.
func genInit(f *family, block bool) {
	name := "init" + f.name
	if block {
		name = "initBlock" + f.name
		TEXT(name, 0, "func(s *[18]uint32, ks *[64]byte)")
		Pragma("noescape")
		Doc(fmt.Sprintf("%s runs ZUC's initialisation on s (a state) and writes the first 64", name),
			"keystream bytes to ks, leaving s after them.")
	} else {
		TEXT(name, 0, "func(s *[18]uint32)")
		Pragma("noescape")
		Doc(fmt.Sprintf("%s runs ZUC's initialisation on s (a state), as initialiseGeneric.", name))
	}
	ring := AllocLocal(64)
	xs := AllocLocal(16 * 32)
	Load(Param("s"), RDI)
	if block {
		Load(Param("ks"), RDX)
	}
	for i := 0; i < 64; i += 16 {
		VMOVDQU(Mem{Base: RDI, Disp: i}, X15)
		VMOVDQU(X15, ring.Offset(i))
	}
	loadR(f, modeWords)
	g := &gp{last: R8, next: R9, b: R10, t: R11, u: R12}
	MOVL(ring.Offset(60), g.last.As32())
	MOVL(U32(2), ECX)
	Label(name + "Loop")
	for i := range 16 {
		initRound(f, g, ring, xs, i, rInit, nil)
	}
	DECL(ECX)
	JNZ(LabelRef(name + "Loop"))
	initRound(f, g, ring, xs, 0, rDiscard, nil)
	if block {
		// Sixteen work-mode rounds, from ring[1] on, which brings the
		// ring round to ring[1] again.
		for j := range 16 {
			out := Mem{Base: RDX, Disp: 4 * j}
			initRound(f, g, ring, xs, (1+j)%16, rWork, &out)
		}
	}
	// The register now starts at ring[1].
	for k := range 16 {
		MOVL(ring.Offset(4*((1+k)%16)), EAX)
		MOVL(EAX, Mem{Base: RDI, Disp: 4 * k})
	}
	saveR(f)
	VZEROUPPER()
	RET()
}

// saveR stores R1, R2 to the state at DI.
func saveR(f *family) {
	if f.avx512 {
		rjoin(X16)
		VMOVQ(X16, Mem{Base: RDI, Disp: 64})
		return
	}
	VMOVQ(X8, Mem{Base: RDI, Disp: 64})
}

// loadR loads the constants of family f and R1, R2 from the state at DI.
func loadR(f *family, m mode) {
	VMOVQ(Mem{Base: RDI, Disp: 64}, X8)
	if f.avx512 {
		load512Consts(m)
		VPXORD(X7, X7, X7)
	} else {
		load2Consts()
		VPUNPCKLQDQ(X8, X8, X8)
	}
}

// ringCell returns cell k of the window of round i of a 16-cell ring.
func ringCell(ring Mem, i, k int) Mem { return ring.Offset(4 * ((i + k) % 16)) }

// initRound emits round i (mod 16) on the ring in mode m: rInit feeds W
// back, rDiscard is a work-mode round whose output is dropped, rWork
// stores the keystream word, big-endian, to out.
func initRound(f *family, g *gp, ring, xs Mem, i int, m int, out *Mem) {
	initMode := m == rInit
	c := func(k int) Mem { return ringCell(ring, i, k) }
	// X1 (as [X1, 0, X1, 0]) and X2 for F, through the stack.
	x1, x2 := xs.Offset(32*i), xs.Offset(32*i+16)
	brcHalf(g, ring, (i+11)%16, (i+9)%16)
	MOVQ(g.t, x1)
	MOVQ(g.t, x1.Offset(8))
	brcHalf(g, ring, (i+7)%16, (i+5)%16)
	MOVL(g.t.As32(), x2)
	// W = (X0 ^ R1) + R2 from this round's R1, R2.
	w := RSI
	if m != rDiscard {
		if f.avx512 {
			rjoin(X10)
			VMOVQ(X10, RAX)
		} else {
			VMOVQ(X8, RAX)
		}
		MOVQ(RAX, RBX)
		SHRQ(U8(32), RBX)
		MOVL(g.last.As32(), w.As32())
		ANDL(U32(0x7fff8000), w.As32())
		SHLL(U8(1), w.As32())
		MOVWLZX(c(14), g.t.As32())
		ORL(g.t.As32(), w.As32())
		XORL(EAX, w.As32())
		ADDL(EBX, w.As32())
	}
	if m == rWork {
		// z = W ^ X3, X3 = c2<<16 | c0>>15.
		brcHalf(g, ring, (i+2)%16, i%16)
		XORL(w.As32(), g.t.As32())
		BSWAPL(g.t.As32())
		MOVL(g.t.As32(), *out)
	}
	if f.avx512 {
		round512(x1, x2)
	} else {
		roundAVX2(x1, x2, nil)
	}
	// The LFSR, on the ring: the window starts at cell i, the new cell
	// replaces it.
	a, b := g.next, g.b
	MOVL(c(0), a.As32())
	IMUL3Q(U32(257), a, a)
	for _, t := range [][2]int{{4, 20}, {10, 21}, {13, 17}} {
		MOVL(c(t[0]), b.As32())
		SHLQ(U8(t[1]), b)
		ADDQ(b, a)
	}
	if initMode {
		SHRL(U8(1), w.As32())
		ADDQ(w, a)
	}
	MOVQ(g.last, b)
	SHLQ(U8(15), b)
	ADDQ(b, a)
	fold31(a, b)
	MOVL(a.As32(), c(0))
	g.swap()
}

// genBlocks generates the work-mode kernel of a family for one mode:
//
//	keyStream<f>(s *state, ks []uint32)                  modeWords
//	xorKeyStream<f>(s *state, dst, src []byte)           modeXOR
//	macBlocks<f>(s *state, ks *[32]uint32, off int,
//	             tag *[4]uint32, p []byte)               modeMAC
func genBlocks(f *family, m mode) {
	var name string
	switch m {
	case modeWords:
		name = "keyStream" + f.name
		TEXT(name, 0, "func(s *[18]uint32, ks []uint32)")
		Pragma("noescape")
		Doc(name + " writes the next len(ks) keystream words of s to ks; len(ks) is a multiple of 16.")
	case modeXOR:
		name = "xorKeyStream" + f.name
		TEXT(name, 0, "func(s *[18]uint32, dst, src []byte)")
		Pragma("noescape")
		Doc(name+" sets dst = src XOR the next len(src) keystream bytes of s; len(src) is a",
			"multiple of 64 and dst is at least as long.")
	case modeMAC:
		name = "macBlocks" + f.name
		TEXT(name, 0, "func(s *[18]uint32, ks *[32]uint32, off int, tag *[4]uint32, p []byte)")
		Pragma("noescape")
		Doc(name+" is macBlocksGeneric for all four tag words at once (the caller uses the",
			"ones it needs), generating the keystream as it goes; len(p) is a multiple of",
			"64 and off at most 4.")
	}
	buf := AllocLocal(48 * 4)
	xsA := AllocLocal(xsLen)
	xsB := AllocLocal(xsLen)
	var rbuf, acc Mem
	if !f.avx512 {
		rbuf = AllocLocal(16 * 8)
	}
	if m == modeMAC {
		acc = AllocLocal(3 * 64)
	}
	// Registers: DI state, SI src / p, DX dst / ks, CX blocks left,
	// BX current xs, R13 next xs, R14 MAC window (ks + 4*off), AX tag.
	Load(Param("s"), RDI)
	switch m {
	case modeWords:
		Load(Param("ks").Base(), RDX)
		Load(Param("ks").Len(), RCX)
		SHRQ(U8(4), RCX)
	case modeXOR:
		Load(Param("dst").Base(), RDX)
		Load(Param("src").Base(), RSI)
		Load(Param("src").Len(), RCX)
		SHRQ(U8(6), RCX)
	case modeMAC:
		Load(Param("ks"), RDX)
		Load(Param("off"), R14)
		LEAQ(Mem{Base: RDX, Index: R14, Scale: 4}, R14)
		Load(Param("p").Base(), RSI)
		Load(Param("p").Len(), RCX)
		SHRQ(U8(6), RCX)
	}
	JZ(LabelRef(name + "Done"))
	for i := 0; i < 64; i += 16 {
		VMOVDQU(Mem{Base: RDI, Disp: i}, X15)
		VMOVDQU(X15, buf.Offset(i))
	}
	if m == modeMAC {
		VPXOR(X15, X15, X15)
		for k := range 12 {
			VMOVDQU(X15, acc.Offset(16*k))
		}
	}
	loadR(f, m)
	LEAQ(xsA, RBX)
	LEAQ(xsB, R13)
	xsCur := Mem{Base: RBX}
	xsNext := Mem{Base: R13}
	g := &gp{last: R8, next: R9, b: R10, t: R11, u: R12}
	// Prologue: the cells and bit reorganisation of the first block.
	MOVL(buf.Offset(60), g.last.As32())
	for j := range 16 {
		brcStep(g, buf, j, xsCur, j)
		lfsrStep(g, buf, j, nil)
	}

	Label(name + "Loop")
	if m == modeMAC {
		if f.avx512 {
			macStage512(Mem{Base: R14}, Mem{Base: RSI}, acc, true, true)
		} else {
			macStage(&macRegs2, Mem{Base: R14}, Mem{Base: RSI}, acc, true)
		}
		// Move the window on: the next block becomes the current one.
		if f.avx512 {
			VMOVDQU64(Mem{Base: RDX, Disp: 64}, Z16)
			VMOVDQU64(Z16, Mem{Base: RDX})
		} else {
			VMOVDQU(Mem{Base: RDX, Disp: 64}, Y15)
			VMOVDQU(Mem{Base: RDX, Disp: 96}, Y14)
			VMOVDQU(Y15, Mem{Base: RDX})
			VMOVDQU(Y14, Mem{Base: RDX, Disp: 32})
		}
	}
	for j := range 16 {
		x1, x2 := xsCur.Offset(xsX1+16*j), xsCur.Offset(xsX2+4*j)
		if f.avx512 {
			// Collect R1, R2 of rounds 0-7 in Z10 and of 8-15 in Z11.
			acc := []VecPhysical{Z10, Z11}[j/8]
			rjoin(X16)
			VALIGNQ(U8(1), acc, Z16, acc)
			round512(x1, x2)
		} else {
			r := rbuf.Offset(8 * j)
			roundAVX2(x1, x2, &r)
		}
		// Next block's bit reorganisation and cells.
		brcStep(g, buf, 16+j, xsNext, j)
		lfsrStep(g, buf, 16+j, nil)
	}
	// Output: z = ((X0 ^ R1) + R2) ^ X3 for the 16 rounds.
	var out Mem
	switch m {
	case modeWords:
		out = Mem{Base: RDX}
	case modeXOR:
		out = Mem{Base: RDX}
	case modeMAC:
		out = Mem{Base: RDX, Disp: 64}
	}
	if f.avx512 {
		VMOVDQU64(cEvenIdx, Z16)
		VPERMI2D(Z11, Z10, Z16) // R1 of the 16 rounds
		VMOVDQU64(cOddIdx, Z17)
		VPERMI2D(Z11, Z10, Z17) // R2
		VPXORD(xsCur.Offset(xsX0), Z16, Z16)
		VPADDD(Z17, Z16, Z16)
		VPXORD(xsCur.Offset(xsX3), Z16, Z16)
		if m == modeXOR {
			VPSHUFB(Z6, Z16, Z16)
			VPXORD(Mem{Base: RSI}, Z16, Z16)
		}
		VMOVDQU64(Z16, out)
	} else {
		for h := range 2 {
			VMOVDQU(rbuf.Offset(64*h), Y0)
			VMOVDQU(rbuf.Offset(64*h+32), Y1)
			VSHUFPS(U8(0x88), Y1, Y0, Y2)
			VSHUFPS(U8(0xdd), Y1, Y0, Y3)
			VPERMQ(U8(0xd8), Y2, Y2) // R1 of 8 rounds
			VPERMQ(U8(0xd8), Y3, Y3) // R2
			VPXOR(xsCur.Offset(xsX0+32*h), Y2, Y2)
			VPADDD(Y3, Y2, Y2)
			VPXOR(xsCur.Offset(xsX3+32*h), Y2, Y2)
			if m == modeXOR {
				VPSHUFB(cBswap32, Y2, Y2)
				VPXOR(Mem{Base: RSI, Disp: 32 * h}, Y2, Y2)
			}
			VMOVDQU(Y2, out.Offset(32*h))
		}
	}
	// Shift the cells: buf[0:32] = buf[16:48].
	if f.avx512 {
		VMOVDQU64(buf.Offset(64), Z16)
		VMOVDQU64(buf.Offset(128), Z17)
		VMOVDQU64(Z16, buf.Offset(0))
		VMOVDQU64(Z17, buf.Offset(64))
	} else {
		VMOVDQU(buf.Offset(64), Y14)
		VMOVDQU(buf.Offset(96), Y15)
		VMOVDQU(buf.Offset(128), Y12)
		VMOVDQU(buf.Offset(160), Y13)
		VMOVDQU(Y14, buf.Offset(0))
		VMOVDQU(Y15, buf.Offset(32))
		VMOVDQU(Y12, buf.Offset(64))
		VMOVDQU(Y13, buf.Offset(96))
	}
	XCHGQ(RBX, R13)
	switch m {
	case modeWords:
		ADDQ(U8(64), RDX)
	case modeXOR:
		ADDQ(U8(64), RDX)
		ADDQ(U8(64), RSI)
	case modeMAC:
		ADDQ(U8(64), RSI)
	}
	DECQ(RCX)
	JNZ(LabelRef(name + "Loop"))

	// Save the state: the register at the start of the next block.
	for i := 0; i < 64; i += 16 {
		VMOVDQU(buf.Offset(i), X15)
		VMOVDQU(X15, Mem{Base: RDI, Disp: i})
	}
	saveR(f)
	if m == modeMAC {
		Load(Param("tag"), RAX)
		if f.avx512 {
			VMOVDQU64(acc, Z16)
			VMOVDQU64(acc.Offset(64), Z17)
			VMOVDQU64(acc.Offset(128), Z18)
			macReduce512(Z16, Z17, Z18, acc)
		}
		macCombine(acc, Mem{Base: RAX})
	}
	VZEROUPPER()
	Label(name + "Done")
	RET()
}

// macRegs are the registers of a MAC stage.
type macRegs struct {
	A, B, C, M, Ka, Kb, P, t0, t1, t2 VecPhysical
	evex                              bool // registers above X15: EVEX forms; GFNI bit reversal
}

var (
	// AVX2 work kernel, between blocks: X7-X11 hold constants and R.
	macRegs2 = macRegs{X12, X13, X14, X15, X3, X4, X5, X0, X1, X2, false}
	// macUpdateCLMUL: no other live registers.
	macRegsUpd = macRegs{X10, X11, X12, X13, X14, X15, X9, X0, X1, X2, false}
)

func (r *macRegs) xor(a, b, dst Op) {
	if r.evex {
		VPXORD(a, b, dst)
	} else {
		VPXOR(a, b, dst)
	}
}

func (r *macRegs) mov(src, dst Op) {
	if r.evex {
		VMOVDQU64(src, dst)
	} else {
		VMOVDQU(src, dst)
	}
}

// macStage emits the MAC accumulation of one 64-byte message block at p
// with the keystream window at win (see macBlocksGeneric): for each 64-bit
// chunk c of the message, bit-reversed within bytes into m, and K_n the
// keystream words 2n, 2n+1 as one 64-bit number,
//
//	A ^= K_c·m, B ^= K_{c+1}·m, C ^= K_{c+2}·m
//
// (carry-less products), from which macCombine takes the four tag words.
// The accumulators are loaded from and stored to acc if inMemory (the
// keystream rounds need every register).
func macStage(r *macRegs, win, p, acc Mem, inMemory bool) {
	A, B, C, M, Ka, Kb, P := r.A, r.B, r.C, r.M, r.Ka, r.Kb, r.P
	if inMemory {
		r.mov(acc, A)
		r.mov(acc.Offset(16), B)
		r.mov(acc.Offset(32), C)
	}
	for q := range 4 {
		r.mov(p.Offset(16*q), M)
		if r.evex {
			VGF2P8AFFINEQB_BCST(U8(0), cBitrev, M, M)
		} else {
			bitrevAVX(M, r.t0, r.t1, r.t2)
		}
		if q == 0 {
			VPSHUFD(U8(0xb1), win, Ka)
		} else {
			r.mov(Kb, Ka)
		}
		VPSHUFD(U8(0xb1), win.Offset(16*q+16), Kb)
		for _, c := range []struct {
			imm uint8
			k   VecPhysical
			acc VecPhysical
		}{{0x00, Ka, A}, {0x11, Ka, A}, {0x01, Ka, B}, {0x10, Kb, B}, {0x00, Kb, C}, {0x11, Kb, C}} {
			VPCLMULQDQ(U8(c.imm), M, c.k, P)
			r.xor(P, c.acc, c.acc)
		}
	}
	if inMemory {
		r.mov(A, acc)
		r.mov(B, acc.Offset(16))
		r.mov(C, acc.Offset(32))
	}
}

// bitrevAVX reverses the bits of every byte of m with two nibble lookups.
func bitrevAVX(m, t0, t1, t2 VecPhysical) {
	VMOVDQU(cNibble, t2)
	VPAND(t2, m, t0)
	VPSRLW(U8(4), m, t1)
	VPAND(t2, t1, t1)
	VMOVDQU(cRevLo, m)
	VPSHUFB(t0, m, m)
	VMOVDQU(cRevHi, t0)
	VPSHUFB(t1, t0, t0)
	VPOR(t0, m, m)
}

// macCombine folds the accumulators at acc into the tag words at tag:
// the 128 bits P = (A.lo ⊕ B.hi) ‖ (B.lo ⊕ C.hi) hold tag words 0-3 from
// the top.
func macCombine(acc, tag Mem) {
	VMOVDQU(acc, X0)
	VMOVDQU(acc.Offset(16), X1)
	VMOVDQU(acc.Offset(32), X2)
	VPSLLDQ(U8(8), X0, X0)
	VPSRLDQ(U8(8), X2, X2)
	VPXOR(X0, X1, X1)
	VPXOR(X2, X1, X1)
	VPSHUFD(U8(0x1b), X1, X1)
	VPXOR(tag, X1, X1)
	VMOVDQU(X1, tag)
}

// genMACUpdate generates macUpdateCLMUL(tag *[4]uint32, ks []uint32, p
// []byte): the MAC accumulation of the 64-byte blocks of p with keystream
// ks (block b's window at ks[16b:]), into all four tag words.
func genMACUpdate() {
	TEXT("macUpdateCLMUL", NOSPLIT, "func(tag *[4]uint32, ks []uint32, p []byte)")
	Pragma("noescape")
	Doc("macUpdateCLMUL is macUpdateGeneric for all four tag words; len(p) is a multiple",
		"of 64 and len(ks) at least len(p)/4 + 4.")
	acc := AllocLocal(48)
	Load(Param("tag"), RAX)
	Load(Param("ks").Base(), RDX)
	Load(Param("p").Base(), RSI)
	Load(Param("p").Len(), RCX)
	SHRQ(U8(6), RCX)
	JZ(LabelRef("macUpdateDone"))
	VPXOR(X10, X10, X10)
	VPXOR(X11, X11, X11)
	VPXOR(X12, X12, X12)
	Label("macUpdateLoop")
	macStage(&macRegsUpd, Mem{Base: RDX}, Mem{Base: RSI}, acc, false)
	ADDQ(U8(64), RDX)
	ADDQ(U8(64), RSI)
	DECQ(RCX)
	JNZ(LabelRef("macUpdateLoop"))
	VMOVDQU(X10, acc)
	VMOVDQU(X11, acc.Offset(16))
	VMOVDQU(X12, acc.Offset(32))
	macCombine(acc, Mem{Base: RAX})
	Label("macUpdateDone")
	RET()
}

// macStage512 is macStage for AVX-512 with VPCLMULQDQ on ZMM registers: a
// whole 64-byte block per instruction, 128-bit lane j of the accumulators
// collecting chunks 2j and 2j+1; C (needed for tag words 2 and 3 only) is
// skipped unless full. The accumulators are Z16-Z18, in memory at acc
// (3 × 64 bytes) if inMemory; temporaries Z19-Z23.
func macStage512(win, p, acc Mem, inMemory, full bool) {
	A, B, C, M, Ka, Kb, P, Q := Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23
	if inMemory {
		VMOVDQU64(acc, A)
		VMOVDQU64(acc.Offset(64), B)
		if full {
			VMOVDQU64(acc.Offset(128), C)
		}
	}
	VMOVDQU64(p, M)
	VGF2P8AFFINEQB_BCST(U8(0), cBitrev, M, M)
	VPSHUFD(U8(0xb1), win, Ka)            // K_2j, K_2j+1 in lane j
	VPSHUFD(U8(0xb1), win.Offset(16), Kb) // K_2j+2, K_2j+3
	VPCLMULQDQ(U8(0x00), M, Ka, P)
	VPCLMULQDQ(U8(0x11), M, Ka, Q)
	VPTERNLOGD(U8(0x96), Q, P, A)
	VPCLMULQDQ(U8(0x01), M, Ka, P)
	VPCLMULQDQ(U8(0x10), M, Kb, Q)
	VPTERNLOGD(U8(0x96), Q, P, B)
	if full {
		VPCLMULQDQ(U8(0x00), M, Kb, P)
		VPCLMULQDQ(U8(0x11), M, Kb, Q)
		VPTERNLOGD(U8(0x96), Q, P, C)
	}
	if inMemory {
		VMOVDQU64(A, acc)
		VMOVDQU64(B, acc.Offset(64))
		if full {
			VMOVDQU64(C, acc.Offset(128))
		}
	}
}

// macReduce512 XORs the four 128-bit lanes of each ZMM accumulator
// together into 16-byte accumulators at out (A, B, C).
func macReduce512(A, B, C VecPhysical, out Mem) {
	for k, z := range []VecPhysical{A, B, C} {
		VEXTRACTI64X4(U8(1), z, Y24)
		VPXORQ(Y24, yOf(z), Y24)
		VEXTRACTI32X4(U8(1), Y24, X25)
		VPXORQ(X25, X24, X24)
		VMOVDQU64(X24, out.Offset(16*k))
	}
}

func yOf(z VecPhysical) VecPhysical {
	ys := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15, Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23, Y24, Y25, Y26, Y27, Y28, Y29, Y30, Y31}
	for i := range 32 {
		if zr(i) == z {
			return ys[i]
		}
	}
	panic("not a zmm register")
}

// genMACUpdate512 generates macUpdateAVX512(tag *[4]uint32, ks []uint32,
// p []byte, words int): macUpdateCLMUL with VPCLMULQDQ on ZMM registers.
func genMACUpdate512() {
	TEXT("macUpdateAVX512", NOSPLIT, "func(tag *[4]uint32, ks []uint32, p []byte, words int)")
	Pragma("noescape")
	Doc("macUpdateAVX512 is macUpdateCLMUL with VPCLMULQDQ on ZMM registers, for the first",
		"words words of tag (the others may change); len(p) is a multiple of 64 and len(ks)",
		"at least len(p)/4 + 4.")
	acc := AllocLocal(48)
	Load(Param("tag"), RAX)
	Load(Param("ks").Base(), RDX)
	Load(Param("p").Base(), RSI)
	Load(Param("p").Len(), RCX)
	Load(Param("words"), RBX)
	SHRQ(U8(6), RCX)
	JZ(LabelRef("macUpdate512Done"))
	VPXORQ(Z16, Z16, Z16)
	VPXORQ(Z17, Z17, Z17)
	VPXORQ(Z18, Z18, Z18)
	CMPQ(RBX, U8(2))
	JA(LabelRef("macUpdate512Full"))
	for _, full := range []bool{false, true} {
		l := "macUpdate512Half"
		if full {
			l = "macUpdate512Full"
		}
		Label(l)
		macStage512(Mem{Base: RDX}, Mem{Base: RSI}, Mem{}, false, full)
		ADDQ(U8(64), RDX)
		ADDQ(U8(64), RSI)
		DECQ(RCX)
		JNZ(LabelRef(l))
		JMP(LabelRef("macUpdate512End"))
	}
	Label("macUpdate512End")
	macReduce512(Z16, Z17, Z18, acc)
	macCombine(acc, Mem{Base: RAX})
	VZEROUPPER()
	Label("macUpdate512Done")
	RET()
}
