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

// genXTS emits the fused XTS kernel for AVX-512: the tweaks of a group are
// made in registers, four 128-bit lanes at a time, by multiplying the first
// four by α⁴, α⁸ and α¹²; each block is XORed with its tweak, enciphered and
// XORed again. The tweaks are parked in dst between the two XORs (each
// block of dst is written only after the same block of src has been read,
// so dst may be src).
//
// IEEE Std 1619 treats a tweak as a little-endian 128-bit integer W, and
// W·αᵏ = (W ≪ k) ⊕ clmul(W ≫ (128−k), 0x87). GB/T 17964 uses the
// bit-reflected order of GHASH on the big-endian integer V, and V·αᵏ =
// (V ≫ k) ⊕ clmul(V mod 2ᵏ, 0xe1)·2^(121−k); the GB kernel keeps V
// byte-reversed in its register to make it an integer. Both hold for
// k ≤ 56, where the clmul stays inside one 64-bit half.
func genXTS(s isa, gb bool) {
	name := "xts" + s.suffix
	if gb {
		name = "xtsGB" + s.suffix
	}
	TEXT(name, NOSPLIT, "func(kk *[36]uint32, tw *[64]byte, dst, src []byte)")
	Pragma("noescape")
	std := "IEEE Std 1619"
	if gb {
		std = "GB/T 17964"
	}
	Doc(fmt.Sprintf("%s runs len(src)/%d groups of %d blocks through XEX (%s) with the tweaks made", name, s.groupBytes(), s.blocks(), std),
		"in registers: tw holds the tweaks of the first four blocks on entry and those of",
		"the four blocks after the last one processed on return.")
	rk := Load(Param("kk"), RAX)
	twp := Load(Param("tw"), RDX)
	dst := Load(Param("dst").Base(), RDI)
	src := Load(Param("src").Base(), RSI)
	n := Load(Param("src").Len(), RCX)
	R := Z27
	VMOVDQU64(Mem{Base: twp}, R)
	if gb {
		VPSHUFB(rev128(), R, R)
	}
	gbytes := s.groupBytes()
	// mul sets out = R·α^k (0 < k ≤ 56) in every lane.
	mul := func(k int, out, t1, t2, t3 VecPhysical) {
		if gb {
			VPSLLQ(U8(64-k), R, t1)
			VPSRLQ(U8(k), R, out)
			VPSRLDQ(U8(8), t1, t2)
			VPCLMULQDQ(U8(0x00), global("xtsE1", qword(0xe1<<56)), t1, t3)
			VPSLLQ(U8(1), t3, t3)
			VPTERNLOGD(U8(0x96), t3, t2, out)
			return
		}
		VPSRLQ(U8(64-k), R, t1)
		VPSLLQ(U8(k), R, out)
		VPSLLDQ(U8(8), t1, t2)
		VPSRLDQ(U8(8), t1, t1)
		VPCLMULQDQ(U8(0x00), global("xts87", qword(0x87)), t1, t1)
		VPTERNLOGD(U8(0x96), t2, t1, out)
	}
	s.bulkLoop(name, n, func(gs []group) {
		for g := range gs {
			gr := &gs[g]
			off := g * gbytes
			t := gr.t
			// The four registers of tweaks are R·α^(4d), each straight
			// from R, so the only chain from group to group is R·α¹⁶.
			tz := func(i int) VecPhysical { return zregs[t[i]] }
			VMOVDQA64(R, zregs[gr.x[0]])
			for d := 1; d < 4; d++ {
				mul(4*d, zregs[gr.x[d]], tz(0), tz(1), tz(2))
			}
			mul(16, tz(3), tz(0), tz(1), tz(2))
			VMOVDQA64(tz(3), R)
			if gb {
				for d := 0; d < 4; d++ {
					VPSHUFB(rev128(), zregs[gr.x[d]], zregs[gr.x[d]])
				}
			}
			for d := 0; d < 4; d++ {
				x, in := zregs[gr.x[d]], zregs[t[3]]
				m := Mem{Base: src, Disp: off + d*s.width}
				VMOVDQU64(m, in)
				VMOVDQU64(x, Mem{Base: dst, Disp: off + d*s.width})
				VPXORD(in, x, x)
			}
			for d := 0; d < 4; d++ {
				VPSHUFB(bswapMask(), s.v(gr.x[d]), s.v(gr.x[d]))
			}
			s.transpose(gr)
			s.mapGroupIn(gr)
		}
		s.rounds(gs, rk, s.kreg())
		for g := range gs {
			s.finishGroup(&gs[g])
			for d := 0; d < 4; d++ {
				m := Mem{Base: dst, Disp: g*gbytes + d*s.width}
				r := s.v(gs[g].x[d])
				VPXORD(m, r, r)
				s.store(r, m)
			}
		}
	}, func(bytes int) {
		ADDQ(U32(bytes), src)
		ADDQ(U32(bytes), dst)
	})
	if gb {
		VPSHUFB(rev128(), R, R)
	}
	VMOVDQU64(R, Mem{Base: twp})
	ret()
}
