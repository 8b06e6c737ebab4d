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

// genGCM emits the fused GCM kernel for AVX-512: counter blocks made in
// registers (GCM's 32-bit counter), the SM4 rounds, the XOR with the input
// and GHASH over the ciphertext with VPCLMULQDQ in one loop over groups of
// 16 blocks. Sealing hashes each group's ciphertext from the registers it
// was just stored from; opening hashes the group's ciphertext before it is
// decrypted (so dst may be src). The GHASH state stays in X27, and the
// group's nine registers serve as GHASH temporaries while they are free.
func genGCM(s isa, open bool) {
	name := "gcmSeal" + s.suffix
	what := "encrypts"
	if open {
		name = "gcmOpen" + s.suffix
		what = "decrypts"
	}
	TEXT(name, NOSPLIT, "func(kk *[36]uint32, htab *[16][16]byte, y *[16]byte, ctr *[2]uint64, dst, src []byte)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s %s len(src)/%d groups of %d blocks in GCM's counter mode, absorbs the ciphertext into the GHASH state y and advances the low 32 bits of ctr.", name, what, s.groupBytes(), s.blocks()))
	rk := Load(Param("kk"), RAX)
	htab := Load(Param("htab"), RBX)
	yp := Load(Param("y"), R12)
	ctr := Load(Param("ctr"), RDX)
	dst := Load(Param("dst").Base(), RDI)
	src := Load(Param("src").Base(), RSI)
	n := Load(Param("src").Len(), RCX)
	y := X27
	VMOVDQU64(Mem{Base: yp}, y)
	VPSHUFB(rev128().Offset(0), y, y)
	lo := R8
	MOVL(Mem{Base: ctr, Disp: 8}, lo.As32())
	gb := s.groupBytes()
	hash := func(g group, src func(k int) Op) {
		d := [4]VecPhysical{zregs[g.x[0]], zregs[g.x[1]], zregs[g.x[2]], zregs[g.x[3]]}
		t := g.t
		ghash16(htab, src, y, d, zregs[t[0]], zregs[t[1]], zregs[t[2]], zregs[t[3]], zregs[t[4]])
	}
	s.bulkLoop(name, n, func(gs []group) {
		if open {
			for g := range gs {
				off := g * gb
				hash(gs[g], func(k int) Op { return Mem{Base: src, Disp: off + 64*k} })
			}
		}
		for _, g := range gs {
			x := [4]Register{s.v(g.x[0]), s.v(g.x[1]), s.v(g.x[2]), s.v(g.x[3])}
			t := s.v(g.t[0])
			VPBROADCASTD(Mem{Base: ctr, Disp: 4}, x[0])
			VPBROADCASTD(Mem{Base: ctr, Disp: 0}, x[1])
			VPBROADCASTD(Mem{Base: ctr, Disp: 12}, x[2])
			VPBROADCASTD(lo.As32(), t)
			VPADDD(s.iota(), t, x[3])
			ADDL(U32(s.blocks()), lo.As32())
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
		if !open {
			for g := range gs {
				x := gs[g].x
				hash(gs[g], func(k int) Op { return zregs[x[k]] })
			}
		}
	}, func(bytes int) {
		ADDQ(U32(bytes), src)
		ADDQ(U32(bytes), dst)
	})
	MOVL(lo.As32(), Mem{Base: ctr, Disp: 8})
	VPSHUFB(rev128().Offset(0), y, y)
	VMOVDQU64(y, Mem{Base: yp})
	ret()
}
