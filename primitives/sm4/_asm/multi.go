// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genCBCMulti emits multi-chain CBC encryption for AVX-512: sixteen
// independent CBC chains, one per 32-bit lane of a group, advance one block
// per iteration. The chaining value stays in the A1 domain in registers
// (like the latency kernels: the next input is A1·P ⊕ the previous output),
// so a block costs one gather, 32 rounds on one group and one scatter.
//
// The arguments are the fields of the Go type cbcLanes:
//
//	src, dst  the lanes' block pointers
//	mask      all ones for a lane with data, zero for an idle one (whose
//	          pointers point at scratch)
//	iv        the chaining values
//
// Block k of lane i is at src[i] + (16k & mask[i]).
//
// Registers: Z0-Z3 the chain state, Z4-Z8 and Z15 round temporaries, Z9-Z14 the
// blocks in and out, Z29-Z31 the round matrices; R12 the byte offset 16k.
func genCBCMulti(s isa) {
	name := "cbcEncMulti" + s.suffix
	TEXT(name, NOSPLIT, "func(kk *[36]uint32, src, dst *[16]*byte, mask *[16]uint64, iv *[16][16]byte, n int)")
	Pragma("noescape")
	Doc(name+" encrypts n blocks of each of the sixteen CBC chains in the lanes",
		"of a cbcLanes (its fields src, dst, mask and iv), with one group of the",
		"bulk kernel per block, and leaves their chaining values in iv.")
	rk := Load(Param("kk"), RAX)
	srcs := Load(Param("src"), RDX)
	dsts := Load(Param("dst"), RSI)
	masks := Load(Param("mask"), RDI)
	ivs := Load(Param("iv"), R8)
	n := Load(Param("n"), RCX)
	off := R12
	XORQ(off, off)
	s.loadConstants()

	S := [4]VecPhysical{Z0, Z1, Z2, Z3}
	P := group{x: [4]int{9, 10, 11, 12}, t: []int{13, 14}}

	// words loads the blocks in P (in block layout) as A1-domain words;
	// it returns the registers holding words 0-3.
	words := func(p group) [4]VecPhysical {
		for d := 0; d < 4; d++ {
			VPSHUFB(bswapMask(), zregs[p.x[d]], zregs[p.x[d]])
		}
		s.transpose(&p)
		s.mapGroupIn(&p)
		return [4]VecPhysical{zregs[p.x[0]], zregs[p.x[1]], zregs[p.x[2]], zregs[p.x[3]]}
	}
	out := func() [4]VecPhysical {
		p := P
		for d := 0; d < 4; d++ {
			VGF2P8AFFINEQB(U8(0), gfniA1Inv(), S[3-d], zregs[p.x[d]])
		}
		s.transpose(&p)
		for d := 0; d < 4; d++ {
			VPSHUFB(bswapMask(), zregs[p.x[d]], zregs[p.x[d]])
		}
		return [4]VecPhysical{zregs[p.x[0]], zregs[p.x[1]], zregs[p.x[2]], zregs[p.x[3]]}
	}

	// The chaining values are the previous ciphertext: words 0-3 are
	// y35, y34, y33, y32.
	for d := 0; d < 4; d++ {
		VMOVDQU64(Mem{Base: ivs, Disp: 64 * d}, zregs[P.x[d]])
	}
	w := words(P)
	for j := 0; j < 4; j++ {
		VMOVDQA64(w[j], S[3-j])
	}

	Label(name + "Loop")
	TESTQ(n, n)
	JZ(LabelRef(name + "Done"))
	for i := 0; i < 16; i++ {
		d, lane := i/4, i%4
		MOVQ(Mem{Base: srcs, Disp: 8 * i}, R9)
		MOVQ(Mem{Base: masks, Disp: 8 * i}, R13)
		ANDQ(off, R13)
		VINSERTI32X4(U8(lane), Mem{Base: R9, Index: R13, Scale: 1}, zregs[P.x[d]], zregs[P.x[d]])
	}
	w = words(P)
	for j := 0; j < 4; j++ {
		VPXORD(S[3-j], w[j], w[j])
	}
	for j := 0; j < 4; j++ {
		VMOVDQA64(w[j], S[j])
	}
	s.roundsYLatency(group{x: [4]int{0, 1, 2, 3}, t: []int{4, 5, 6, 7, 8}}, rk, Z15)
	c := out()
	for i := 0; i < 16; i++ {
		d, lane := i/4, i%4
		MOVQ(Mem{Base: dsts, Disp: 8 * i}, R9)
		MOVQ(Mem{Base: masks, Disp: 8 * i}, R13)
		ANDQ(off, R13)
		VEXTRACTI32X4(U8(lane), c[d], Mem{Base: R9, Index: R13, Scale: 1})
	}
	ADDQ(U8(16), off)
	DECQ(n)
	JMP(LabelRef(name + "Loop"))

	Label(name + "Done")
	c = out()
	for d := 0; d < 4; d++ {
		VMOVDQU64(c[d], Mem{Base: ivs, Disp: 64 * d})
	}
	ret()
}
