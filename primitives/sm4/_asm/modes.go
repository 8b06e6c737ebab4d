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

// Register plan of the bulk kernels: groups of seven vector registers from
// 0 on (see groupsFrom), kreg right after the last group for the flavours
// that broadcast round keys into a register, and spare for a chaining value.
func (s isa) kreg() int {
	if s.evex {
		return -1
	}
	return s.perGroup() * s.groups
}

// keySig is the bulk kernels' key argument: the latency keys for the
// A1-domain rounds, the plain round keys otherwise.
func (s isa) keySig() string {
	if s.ydomain() {
		return "kk *[36]uint32"
	}
	return "rk *[32]uint32"
}

func (s isa) loadKeys() Register {
	if s.ydomain() {
		return Load(Param("kk"), RAX)
	}
	return Load(Param("rk"), RAX)
}

func (s isa) spare() int {
	if s.evex {
		return 28
	}
	return 15
}

// bulkLoop runs body over s.groups groups at a time while the remaining
// length n allows, then over single groups; advance moves the pointers.
func (s isa) bulkLoop(name string, n Register, body func(gs []group), advance func(bytes int)) {
	gb := s.groupBytes()
	s.loadConstants()
	Label(name + "Wide")
	CMPQ(n, U32(s.groups*gb))
	JB(LabelRef(name + "One"))
	body(s.groupsFrom(s.groups))
	advance(s.groups * gb)
	SUBQ(U32(s.groups*gb), n)
	JMP(LabelRef(name + "Wide"))

	Label(name + "One")
	CMPQ(n, U32(gb))
	JB(LabelRef(name + "Done"))
	body(s.groupsFrom(1))
	advance(gb)
	SUBQ(U32(gb), n)
	JMP(LabelRef(name + "One"))

	Label(name + "Done")
}

func ret() {
	VZEROUPPER()
	RET()
}

func genECB(s isa) {
	name := "ecb" + s.suffix
	TEXT(name, NOSPLIT, "func("+s.keySig()+", dst, src []byte)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s encrypts (or, with decryption keys, decrypts) len(src)/%d groups of %d", name, s.groupBytes(), s.blocks()),
		"blocks, each block on its own. dst may be src.")
	rk := s.loadKeys()
	dst := Load(Param("dst").Base(), RDI)
	src := Load(Param("src").Base(), RSI)
	n := Load(Param("src").Len(), RCX)
	gb := s.groupBytes()
	s.bulkLoop(name, n, func(gs []group) {
		for g := range gs {
			s.loadGroup(&gs[g], src, g*gb)
		}
		s.rounds(gs, rk, s.kreg())
		for g := range gs {
			s.finishGroup(&gs[g])
			for d := 0; d < 4; d++ {
				s.store(s.v(gs[g].x[d]), Mem{Base: dst, Disp: g*gb + d*s.width})
			}
		}
	}, func(bytes int) {
		ADDQ(U32(bytes), src)
		ADDQ(U32(bytes), dst)
	})
	ret()
}

// genCTR emits the counter-mode kernel: the counter block is the 128-bit
// big-endian number hi‖lo (ctr[0], ctr[1]). For ctr32 (GCM) only the low 32
// bits count, wrapping; otherwise the low 64 bits count and the caller
// guarantees they do not wrap inside one call. The counter blocks are made
// directly in transposed form: words 0 and 1 are the same for every block,
// word 3 is the low half of lo plus the block's offset and word 2 the high
// half of lo plus the carry out of word 3.
func genCTR(s isa, ctr32 bool) {
	name := "ctr" + s.suffix
	if ctr32 {
		name = "ctr32" + s.suffix
	}
	TEXT(name, NOSPLIT, "func("+s.keySig()+", dst, src []byte, ctr *[2]uint64)")
	Pragma("noescape")
	count := []string{"ctr is the 128-bit big-endian number ctr[0]‖ctr[1], whose low 64 bits",
		"must not wrap inside one call (the kernel does not carry into ctr[0])."}
	if ctr32 {
		count = []string{"ctr is GCM's counter: only the low 32 bits of ctr[1] count, wrapping",
			"modulo 2³²."}
	}
	Doc(append([]string{fmt.Sprintf("%s XORs len(src)/%d groups of %d blocks of the keystream", name, s.groupBytes(), s.blocks()),
		"E(ctr), E(ctr+1), … into dst and advances ctr by the number of blocks;"},
		append(count, "The counter blocks are made in registers.")...)...)
	rk := s.loadKeys()
	dst := Load(Param("dst").Base(), RDI)
	src := Load(Param("src").Base(), RSI)
	n := Load(Param("src").Len(), RCX)
	ctr := Load(Param("ctr"), RDX)
	lo := R8
	if ctr32 {
		MOVL(Mem{Base: ctr, Disp: 8}, lo.As32())
	} else {
		MOVQ(Mem{Base: ctr, Disp: 8}, lo)
	}
	gb := s.groupBytes()
	s.bulkLoop(name, n, func(gs []group) {
		for _, g := range gs {
			x := [4]Register{s.v(g.x[0]), s.v(g.x[1]), s.v(g.x[2]), s.v(g.x[3])}
			t, u := s.v(g.t[0]), s.v(g.t[1])
			VPBROADCASTD(Mem{Base: ctr, Disp: 4}, x[0])
			VPBROADCASTD(Mem{Base: ctr, Disp: 0}, x[1])
			if s.evex {
				VPBROADCASTD(lo.As32(), t)
			} else {
				VMOVD(lo.As32(), t.(VecPhysical).AsX())
				VPBROADCASTD(t.(VecPhysical).AsX(), t)
			}
			VPADDD(s.iota(), t, x[3])
			switch {
			case ctr32:
				VPBROADCASTD(Mem{Base: ctr, Disp: 12}, x[2])
			case s.evex:
				VPCMPUD(U8(1), t, x[3], K1) // x3 < base: wrapped
				MOVQ(lo, R9)
				SHRQ(U8(32), R9)
				VPBROADCASTD(R9.As32(), x[2])
				VPADDD(ones(), x[2], K1, x[2])
			default:
				VPMINUD(t, x[3], u)
				VPCMPEQD(t, u, u) // all ones where x3 did not wrap
				MOVQ(lo, R9)
				SHRQ(U8(32), R9)
				INCL(R9.As32())
				VMOVD(R9.As32(), x[2].(VecPhysical).AsX())
				VPBROADCASTD(x[2].(VecPhysical).AsX(), x[2])
				VPADDD(u, x[2], x[2])
			}
			if ctr32 {
				ADDL(U32(s.blocks()), lo.As32())
			} else {
				ADDQ(U32(s.blocks()), lo)
			}
		}
		for g := range gs {
			s.mapGroupIn(&gs[g])
		}
		s.rounds(gs, rk, s.kreg())
		for g := range gs {
			s.finishGroup(&gs[g])
			for d := 0; d < 4; d++ {
				m := Mem{Base: src, Disp: g*gb + d*s.width}
				r := s.v(gs[g].x[d])
				s.xor(m, r, r)
				s.store(r, Mem{Base: dst, Disp: g*gb + d*s.width})
			}
		}
	}, func(bytes int) {
		ADDQ(U32(bytes), src)
		ADDQ(U32(bytes), dst)
	})
	if ctr32 {
		MOVL(lo.As32(), Mem{Base: ctr, Disp: 8})
	} else {
		MOVQ(lo, Mem{Base: ctr, Disp: 8})
	}
	ret()
}

// genCBCDec emits CBC decryption: P_i = D(C_i) ^ C_{i-1}. The previous
// ciphertext of the first block of a group comes from a register (the
// caller's dst may be src, and the block before has already been written),
// the others from memory before any of the group is stored.
func genCBCDec(s isa) {
	name := "cbcDec" + s.suffix
	TEXT(name, NOSPLIT, "func("+s.keySig()+", iv *[16]byte, dst, src []byte)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s decrypts len(src)/%d groups of %d blocks in CBC mode and sets iv to the last ciphertext block.", name, s.groupBytes(), s.blocks()))
	rk := s.loadKeys()
	iv := Load(Param("iv"), RDX)
	dst := Load(Param("dst").Base(), RDI)
	src := Load(Param("src").Base(), RSI)
	n := Load(Param("src").Len(), RCX)
	// prev holds the last ciphertext block so far in its top 128-bit lane.
	prev := s.v(s.spare())
	switch s.width {
	case 64:
		VBROADCASTI32X4(Mem{Base: iv}, prev)
	case 32:
		VBROADCASTI128(Mem{Base: iv}, prev)
	default:
		VMOVDQU(Mem{Base: iv}, prev)
	}
	gb := s.groupBytes()
	s.bulkLoop(name, n, func(gs []group) {
		for g := range gs {
			s.loadGroup(&gs[g], src, g*gb)
		}
		s.rounds(gs, rk, s.kreg())
		for g := range gs {
			s.finishGroup(&gs[g])
			off := g * gb
			o0, t := s.v(gs[g].x[0]), s.v(gs[g].t[0])
			switch s.width {
			case 64:
				s.load(Mem{Base: src, Disp: off}, t)
				VALIGNQ(U8(6), prev, t, t) // prev's top lane, then blocks 0-2
				VPXORD(t, o0, o0)
			case 32:
				VMOVDQU(Mem{Base: src, Disp: off}, t)
				VPERM2I128(U8(0x21), t, prev, t)
				VPXOR(t, o0, o0)
			default:
				VPXOR(prev, o0, o0)
			}
			for d := 1; d < 4; d++ {
				r := s.v(gs[g].x[d])
				s.xor(Mem{Base: src, Disp: off + d*s.width - 16}, r, r)
			}
			s.load(Mem{Base: src, Disp: off + gb - s.width}, prev)
			for d := 0; d < 4; d++ {
				s.store(s.v(gs[g].x[d]), Mem{Base: dst, Disp: off + d*s.width})
			}
		}
	}, func(bytes int) {
		ADDQ(U32(bytes), src)
		ADDQ(U32(bytes), dst)
	})
	switch s.width {
	case 64:
		VEXTRACTI32X4(U8(3), prev, Mem{Base: iv})
	case 32:
		VEXTRACTI128(U8(1), prev, Mem{Base: iv})
	default:
		VMOVDQU(prev, Mem{Base: iv})
	}
	ret()
}
