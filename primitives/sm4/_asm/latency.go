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

// The latency kernels process one block at a time for the serial modes
// (Encrypt of one block, CBC encryption, CCM's CBC-MAC), where the time of
// one block's 32 dependent rounds is all that counts.
//
// They keep the state words in the A1 domain, yᵢ = A1·xᵢ byte-wise (A1 is
// the input map of the GFNI S-box, see sboxmath), so a round needs no input
// affine step. With w = inv(u) byte-wise,
//
//	u_i     = y_{i+1} ⊕ y_{i+2} ⊕ y_{i+3} ⊕ kk_i        (= A1·t_i ⊕ C1)
//	y_{i+4} = y_i ⊕ E0·w ⊕ R8(E1·w) ⊕ R16(E1·w) ⊕ R24(E2·w)
//
// where the three products are VGF2P8AFFINEINVQB of u with three matrices
// and Rk rotates 32-bit words left. The round's affine constant K0 (see
// sboxmath) is folded into the keys kk: y_j here is the true value XOR K0
// for j mod 8 in 4…7, which cancels for the outputs y32…y35. With
// G_i = y_i ⊕ y_{i+2} ⊕ y_{i+3} ⊕ kk_{i+1} = P_i ⊕ u_i, where
// P_i = y_i ⊕ y_{i+1} ⊕ kk_i ⊕ kk_{i+1} is known early,
//
//	u_{i+1} = (G_i ⊕ E0·w) ⊕ R24(E2·w) ⊕ (R8(E1·w) ⊕ R16(E1·w))
//	y_{i+4} = y_i ⊕ G_i ⊕ u_{i+1}
//
// and a round's critical path is one GFNI step, one rotation and two
// levels of XOR, about half that of the plain round. The rotations are
// split between VPROLD and VPSHUFB and the last level is a VPTERNLOGD fed
// last through its destination, so that the kernels come close to that
// bound (examples/bench/README.md, "Design measurements").
//
// Register allocation (XMM, lane 0 meaningful): X0-X3 y words, X4 u, X5 G,
// X6-X8 the three products, X9 P, X10-X12 temporaries of the AES-NI
// products and of the nibble maps, X12 the next plaintext and X13-X15
// temporaries between blocks.

// k0Pattern is K0 where the key kk_i takes it: for i mod 8 in {1, 3, 4, 6}
// (the number of j in i+1…i+3 with j mod 8 in 4…7 is odd).
func k0Pattern() Mem {
	var b []byte
	for i := 0; i < 16; i++ {
		var w uint32
		switch i % 8 {
		case 1, 3, 4, 6:
			w = consts.K0
		}
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return global("latK0", b)
}

// genLatKeys emits latKeys, which maps the round keys into the A1 domain.
func genLatKeys() {
	TEXT("latKeysGFNI", NOSPLIT, "func(rk *[32]uint32, kk *[36]uint32)")
	Pragma("noescape")
	Doc("latKeysGFNI sets kk to the round keys rk mapped for the GFNI latency kernels:",
		"the state stays in the input domain of the S-box's affine form, which takes",
		"an affine step off every round. kk has four words of zero padding so that",
		"16-byte loads of the last keys stay inside it.")
	rk := Load(Param("rk"), RAX)
	kk := Load(Param("kk"), RDX)
	for j := 0; j < 8; j++ {
		VMOVDQU(Mem{Base: rk, Disp: 16 * j}, X0)
		VGF2P8AFFINEQB(U8(consts.C1), gfniA1().Offset(0), X0, X0)
		VPXOR(k0Pattern().Offset(16*(j%2)), X0, X0)
		VMOVDQU(X0, Mem{Base: kk, Disp: 16 * j})
	}
	VPXOR(X0, X0, X0)
	VMOVDQU(X0, Mem{Base: kk, Disp: 128})
	RET()

	TEXT("latKeysAESNI", NOSPLIT, "func(rk *[32]uint32, kk *[36]uint32)")
	Pragma("noescape")
	Doc("latKeysAESNI sets kk to the round keys mapped for the AES-NI latency kernels (the same values as latKeysGFNI, by nibble tables).")
	rk = Load(Param("rk"), RAX)
	kk = Load(Param("kk"), RDX)
	for j := 0; j < 8; j++ {
		VMOVDQU(Mem{Base: rk, Disp: 16 * j}, X0)
		nibbleMap(X0, X1, X2, nibble("preLo", consts.Pre.Lo), nibble("preHi", consts.Pre.Hi))
		VPXOR(k0Pattern().Offset(16*(j%2)), X0, X0)
		VMOVDQU(X0, Mem{Base: kk, Disp: 16 * j})
	}
	VPXOR(X0, X0, X0)
	VMOVDQU(X0, Mem{Base: kk, Disp: 128})
	RET()
}

// nibbleMap sets r = lo[r & 15] ^ hi[r >> 4] byte-wise (XMM), with two
// temporaries.
func nibbleMap(r, h, w Register, lo, hi Mem) {
	VPSRLW(U8(4), r, h)
	VPAND(mask0F().Offset(0), h, h)
	VPAND(mask0F().Offset(0), r, r)
	VMOVDQU(lo.Offset(0), w)
	VPSHUFB(r, w, r)
	VMOVDQU(hi.Offset(0), w)
	VPSHUFB(h, w, w)
	VPXOR(w, r, r)
}

// genLatency emits the single-block, CBC-encryption and CBC-MAC kernels.
// The AES-NI flavour works in the same A1 domain, with the products E_j·w
// taken from SubBytesAES(u) by nibble tables (see sboxmath.LatAES).
func genLatency(s isa) {
	k := "kk *[36]uint32"
	s.latencyKernel("encryptBlock"+s.suffix, "func("+k+", dst, src *[16]byte)", latBlock)
	s.latencyKernel("cbcEnc"+s.suffix, "func("+k+", iv *[16]byte, dst, src []byte)", latCBC)
	s.latencyKernel("cbcMAC"+s.suffix, "func("+k+", x *[16]byte, src []byte)", latMAC)
}

type latMode int

const (
	latBlock latMode = iota
	latCBC
	latMAC
)

func (s isa) latencyKernel(name, sig string, mode latMode) {
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	switch mode {
	case latBlock:
		Doc(name + " encrypts one block with the latency-domain round keys kk.")
	case latCBC:
		Doc(name + " encrypts len(src)/16 blocks in CBC mode and sets iv to the last ciphertext block.")
	case latMAC:
		Doc(name + " sets x = E(x ⊕ b) for each 16-byte block b of src in turn (CBC-MAC).")
	}
	kk := Load(Param(s.keyParam()), RAX)
	var chain, dst, src, n Register
	switch mode {
	case latBlock:
		dst = Load(Param("dst"), RDI)
		src = Load(Param("src"), RSI)
	case latCBC:
		chain = Load(Param("iv"), RDX)
		dst = Load(Param("dst").Base(), RDI)
		src = Load(Param("src").Base(), RSI)
		n = Load(Param("src").Len(), RCX)
	case latMAC:
		chain = Load(Param("x"), RDX)
		src = Load(Param("src").Base(), RSI)
		n = Load(Param("src").Len(), RCX)
	}
	y := [4]Register{X0, X1, X2, X3}

	// The state before a block is the previous block's y32…y35, whose
	// words in reverse order are A1 applied to the previous ciphertext (or
	// the IV, or zero for a single block).
	if mode == latBlock {
		for _, r := range y {
			VPXOR(r, r, r)
		}
	} else {
		VMOVDQU(Mem{Base: chain}, X13)
		VPSHUFB(bswapMask().Offset(0), X13, X13)
		s.mapIn(X13)
		VPSHUFD(U8(3), X13, y[0]) // y32 = word 3
		VPSHUFD(U8(2), X13, y[1])
		VPSHUFD(U8(1), X13, y[2])
		VMOVDQA(X13, y[3]) // y35 = word 0
		Label(name + "Loop")
		CMPQ(n, U8(16))
		JB(LabelRef(name + "Done"))
	}

	// Next input: y_j = A1·P_j ⊕ y_{35−j}.
	VMOVDQU(Mem{Base: src}, X12)
	VPSHUFB(bswapMask().Offset(0), X12, X12)
	s.mapIn(X12)
	VPSHUFD(U8(1), X12, X13)
	VPSHUFD(U8(2), X12, X14)
	VPSHUFD(U8(3), X12, X15)
	VPXOR(y[3], X12, X12) // new y0
	VPXOR(y[2], X13, X13) // new y1
	VPXOR(y[1], X14, X14) // new y2
	VPXOR(y[0], X15, y[3])
	VMOVDQA(X14, y[2])
	VMOVDQA(X13, y[1])
	VMOVDQA(X12, y[0])
	// u_0 = y1 ⊕ y2 ⊕ y3 ⊕ kk_0.
	VPXOR(y[1], y[2], X4)
	VPXOR(y[3], X4, X4)
	VPXOR(Mem{Base: kk}, X4, X4)
	for i := 0; i < 32; i++ {
		s.latencyRound(i, y, kk)
	}

	// Output [y35, y34, y33, y32] mapped back.
	VPUNPCKLDQ(y[2], y[3], X13)
	VPUNPCKLDQ(y[0], y[1], X14)
	VPUNPCKLQDQ(X14, X13, X13)
	s.mapOut(X13)
	VPSHUFB(bswapMask().Offset(0), X13, X13)
	switch mode {
	case latBlock:
		VMOVDQU(X13, Mem{Base: dst})
		RET()
		return
	case latCBC:
		VMOVDQU(X13, Mem{Base: dst})
		ADDQ(U8(16), dst)
	}
	ADDQ(U8(16), src)
	SUBQ(U8(16), n)
	JMP(LabelRef(name + "Loop"))

	Label(name + "Done")
	// The chaining value is the reverse of the y words, mapped back.
	VPUNPCKLDQ(y[2], y[3], X13)
	VPUNPCKLDQ(y[0], y[1], X14)
	VPUNPCKLQDQ(X14, X13, X13)
	s.mapOut(X13)
	VPSHUFB(bswapMask().Offset(0), X13, X13)
	VMOVDQU(X13, Mem{Base: chain})
	RET()
}

// keyParam names the kernels' key argument: the latency-domain keys.
func (s isa) keyParam() string { return "kk" }

// mapIn and mapOut move words into and out of the A1 domain; X10 and X11
// are free for them.
func (s isa) mapIn(r Register) {
	if s.gfni {
		VGF2P8AFFINEQB(U8(0), gfniA1().Offset(0), r, r)
		return
	}
	nibbleMap(r, X10, X11, nibble("mapInLo", consts.MapIn.Lo), nibble("mapInHi", consts.MapIn.Hi))
}

func (s isa) mapOut(r Register) {
	if s.gfni {
		VGF2P8AFFINEQB(U8(0), gfniA1Inv().Offset(0), r, r)
		return
	}
	nibbleMap(r, X10, X11, nibble("mapOutLo", consts.MapOut.Lo), nibble("mapOutHi", consts.MapOut.Hi))
}

func (s isa) latencyRound(i int, y [4]Register, kk Register) {
	yi, y1 := y[i%4], y[(i+1)%4]
	u, g := X4, X5
	e0, e1, e2, p := X6, X7, X8, X9
	last := i == 31
	Commentf("Round %d.", i)
	// Only lane 0 counts, so the keys are 16-byte loads (kk is padded).
	if !last {
		// P = y_i ⊕ y_{i+1} ⊕ kk_i ⊕ kk_{i+1}
		VPXOR(y1, yi, p)
		VPXOR(Mem{Base: kk, Disp: 4 * i}, p, p)
		VPXOR(Mem{Base: kk, Disp: 4 * (i + 1)}, p, p)
	}
	if !last {
		VPXOR(u, p, g) // G_i
	}
	if s.gfni {
		// E1·w and E2·w feed the rotations, so they issue first.
		VGF2P8AFFINEINVQB(U8(0), latE(1).Offset(0), u, e1)
		VGF2P8AFFINEINVQB(U8(0), latE(2).Offset(0), u, e2)
		VGF2P8AFFINEINVQB(U8(0), latE(0).Offset(0), u, e0)
	} else {
		// v = SubBytesAES(u) (ShiftRows undone in advance), then the
		// three products by nibble tables on v.
		v, h, w := X10, X11, X12
		VPSHUFB(invShiftRows().Offset(0), u, v)
		VAESENCLAST(zeros().Offset(0), v, v)
		VPSRLW(U8(4), v, h)
		VPAND(mask0F().Offset(0), h, h)
		VPAND(mask0F().Offset(0), v, v)
		for _, j := range []int{1, 2, 0} {
			e := [3]Register{e0, e1, e2}[j]
			t := consts.LatAES[j]
			VMOVDQU(nibble(fmt.Sprintf("latAES%dLo", j), t.Lo).Offset(0), w)
			VPSHUFB(v, w, e)
			VMOVDQU(nibble(fmt.Sprintf("latAES%dHi", j), t.Hi).Offset(0), w)
			VPSHUFB(h, w, w)
			VPXOR(w, e, e)
		}
	}
	if s.evex {
		// One rotation and two byte shuffles: the three then start in
		// the same cycle, on different execution ports.
		VPROLD(U8(8), e1, u)
		VPSHUFB(rotMask(2).Offset(0), e1, e1)
		VPSHUFB(rotMask(3).Offset(0), e2, e2)
	} else {
		VPSHUFB(rotMask(1).Offset(0), e1, u)
		VPSHUFB(rotMask(2).Offset(0), e1, e1)
		VPSHUFB(rotMask(3).Offset(0), e2, e2)
	}
	if last {
		VPXOR(e1, u, u)
		VPXOR(e2, u, u)
		VPXOR(e0, yi, yi)
		VPXOR(u, yi, yi)
		return
	}
	VPXOR(g, e0, e0)
	VPXOR(e1, u, u)
	if s.evex {
		// The last XOR level as one VPTERNLOGD whose destination, the
		// sum of the two E1 terms, is the operand that arrives last: a
		// VPTERNLOGD is a cycle faster from its destination than from
		// its sources.
		VPTERNLOGD(U8(0x96), e0, e2, u) // u_{i+1}
		VPTERNLOGD(U8(0x96), u, g, yi)
	} else {
		VPXOR(e0, e2, e2)
		VPXOR(e2, u, u) // u_{i+1}
		VPXOR(g, yi, yi)
		VPXOR(u, yi, yi)
	}
}
