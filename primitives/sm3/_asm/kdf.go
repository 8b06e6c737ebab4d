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

// The KDF kernels compute many output blocks of the GB/T 32918.4 KDF at
// once. Every output block compresses the same final one or two blocks
// (the tail of z, the 32-bit counter, the padding) from the same chaining
// value, with only the counter differing. So instead of loading and
// transposing one message per lane, the kernels broadcast the shared words
// and OR each lane's counter into the word or two it occupies; the lanes
// start from the broadcast chaining value and their digests are transposed
// back and written out in lane order.
//
// With AVX-512 one call runs two independent groups of 16 lanes with their
// instruction streams interleaved: a round of one group is a chain of
// dependent two-cycle operations, and the other group's round fills the
// gaps.

// lane numbers 0..31, added to the counter.
var laneIota Mem

func kdfConstants() {
	laneIota = GLOBL("laneIota", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		DATA(4*i, U32(uint32(i)))
	}
}

func kdfKernels() {
	kdfConstants()
	var z, y []VecPhysical
	for i := 0; i < 32; i++ {
		z = append(z, Z(i))
	}
	for i := 0; i < 16; i++ {
		y = append(y, Y(i))
	}
	kdfKernel("kdfMulti32AVX512", &mvec{avx512: true, lanes: 16, regs: z, size: 64}, 2)
	kdfKernel("kdfMulti16AVX512", &mvec{avx512: true, lanes: 16, regs: z, size: 64}, 1)
	kdfKernel("kdfMulti8AVX2", &mvec{avx512: false, lanes: 8, regs: y, size: 32}, 1)
}

// kdfKernel emits
//
//	func name(out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int)
//
// For each lane l < groups*v.lanes it compresses blocks (1 or 2) blocks of
// words msg[0..16*blocks) from chaining value h, with counter ct+l ORed in
// as (ct+l) >> 8*cts at word ctw and (ct+l) << (32 - 8*cts) at word ctw+1
// (a counter at a byte offset that is not a multiple of four straddles two
// words; with cts = 0 the second shift is by 32 and gives 0), and writes
// the digest to out[32*l:].
//
// Registers: DI the words of the current block, SI the counter word offset
// in bytes relative to the current block, CX the blocks left, R8 scratch.
func kdfKernel(name string, v *mvec, groups int) {
	TEXT(name, 0, "func(out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int)")
	Pragma("noescape")
	n := groups * v.lanes
	Doc(fmt.Sprintf("%s computes %d KDF output blocks: for lane l < %d it compresses", name, n, n),
		"the blocks (1 or 2) blocks of the template words msg from the chaining",
		"value h, with the big-endian counter ct+l placed at byte 4*ctw+cts of the",
		"template (whose counter bytes are zero), and writes the digest to",
		fmt.Sprintf("out[32*l:32*l+32]. out must have room for %d bytes; see kdfKernel", 32*n),
		"in _asm/kdf.go.")
	type group struct {
		w     Mem // W[0..67]
		saved Mem // the chaining value at the start of the block
		ctlo  Mem // the lanes' counter words
		cthi  Mem
		p     *pool
	}
	gs := make([]*group, groups)
	for g := range gs {
		gs[g] = &group{w: AllocLocal(68 * v.size), saved: AllocLocal(8 * v.size),
			ctlo: AllocLocal(v.size), cthi: AllocLocal(v.size), p: &pool{}}
		// Each group takes half of the registers, so that their
		// recorded streams can be interleaved without conflicts.
		per := len(v.regs) / groups
		gs[g].p.put(v.regs[g*per : (g+1)*per]...)
	}
	size := v.size

	// Counters and their shifted words, chaining values broadcast.
	Load(Param("h"), R8)
	for _, g := range gs {
		t := g.p.get()
		for i := 0; i < 8; i++ {
			VPBROADCASTD(Mem{Base: R8, Disp: 4 * i}, t)
			v.movu(t, g.saved.Offset(i*size))
		}
		g.p.put(t)
	}
	{
		g := gs[0]
		// The shift count goes through X0: VMOVQ cannot reach X16-X31.
		// VMOVQ, not the legacy-SSE MOVQ, which stalls when written to an
		// XMM register while the vector upper halves are dirty (see
		// primitives/sm2/_asm/lookup.go).
		ctv, t := g.p.get(), g.p.get()
		cnt := v.regs[0]
		Load(Param("cts"), RCX)
		SHLQ(U8(3), RCX)
		for gi, gr := range gs {
			Load(Param("ct"), R8)
			VMOVQ(R8, cnt.AsX())
			VPBROADCASTD(cnt.AsX(), ctv)
			VPADDD(laneIota.Offset(4*v.lanes*gi), ctv, ctv)
			VMOVQ(RCX, cnt.AsX())
			VPSRLD(cnt.AsX(), ctv, t)
			v.movu(t, gr.ctlo)
			MOVQ(U32(32), R8)
			SUBQ(RCX, R8)
			VMOVQ(R8, cnt.AsX())
			VPSLLD(cnt.AsX(), ctv, t)
			v.movu(t, gr.cthi)
		}
		g.p.put(ctv, t)
	}
	Load(Param("msg"), RDI)
	Load(Param("ctw"), RSI)
	SHLQ(U8(2), RSI)
	Load(Param("blocks"), RCX)

	Label(name + "_block")
	// W[0..15]: the shared words, broadcast.
	for _, g := range gs {
		t := g.p.get()
		for w := 0; w < 16; w++ {
			VPBROADCASTD(Mem{Base: RDI, Disp: 4 * w}, t)
			v.movu(t, g.w.Offset(w*size))
		}
		g.p.put(t)
	}
	// The counter, at byte offset SI of this block's words (as a word
	// index, SI/4, which is public: it depends on len(z) only).
	orCounter := func(off int, label string, which func(*group) Mem) {
		LEAQ(Mem{Base: RSI, Disp: off}, R8)
		CMPQ(R8, U8(64))
		JAE(LabelRef(name + label))
		SHLQ(U8(4), R8) // word index * 4 -> * 64
		if size == 32 {
			SHRQ(U8(1), R8)
		}
		for _, g := range gs {
			t := g.p.get()
			at := Mem{Base: g.w.Base, Index: R8, Scale: 1, Disp: g.w.Disp}
			v.movu(at, t)
			VPOR_or := func() {
				if v.avx512 {
					VPORD(which(g), t, t)
				} else {
					VPOR(which(g), t, t)
				}
			}
			VPOR_or()
			v.movu(t, at)
			g.p.put(t)
		}
		Label(name + label)
	}
	orCounter(0, "_nolo", func(g *group) Mem { return g.ctlo })
	orCounter(4, "_nohi", func(g *group) Mem { return g.cthi })

	states := make([][8]VecPhysical, groups)
	for gi, g := range gs {
		for i := range states[gi] {
			states[gi][i] = g.p.get()
			v.movu(g.saved.Offset(i*size), states[gi][i])
		}
	}
	rgs := make([]*roundGroup, groups)
	for gi, g := range gs {
		rgs[gi] = &roundGroup{p: g.p, s: states[gi], w: g.w}
	}
	rounds(name, v, rgs)
	for gi := range gs {
		states[gi] = rgs[gi].s
	}
	for gi, g := range gs {
		for i, s := range states[gi] {
			v.xor(g.saved.Offset(i*size), s, s)
			v.movu(s, g.saved.Offset(i*size))
		}
	}
	for gi, g := range gs {
		for _, s := range states[gi] {
			g.p.put(s)
		}
	}
	ADDQ(U8(64), RDI)
	SUBQ(U8(64), RSI)
	DECQ(RCX)
	JNZ(LabelRef(name + "_block"))

	// Output: byte-swap the words, transpose 4x4 words inside each 128-bit
	// chunk with two rounds of unpacks, after which every chunk holds four
	// consecutive words of one lane, and store the chunks.
	Load(Param("out"), RDI)
	for gi, g := range gs {
		var r [8]VecPhysical
		for i := range r {
			r[i] = g.p.get()
			v.movu(g.saved.Offset(i*size), r[i])
			VPSHUFB(bswap, r[i], r[i])
		}
		sim := make([][]elem, 8)
		for i := range sim {
			for l := 0; l < v.lanes; l++ {
				sim[i] = append(sim[i], elem{lane: l, word: i})
			}
		}
		tmp := g.p.get()
		unpack := func(d int, lo, hi string) {
			for i := 0; i < 8; i++ {
				if i&d != 0 {
					continue
				}
				x, y := r[i], r[i+d]
				nlo, nhi := make([]elem, v.lanes), make([]elem, v.lanes)
				for c := 0; c < v.lanes; c += 4 {
					a, b := sim[i][c:c+4], sim[i+d][c:c+4]
					if lo == "lo32" {
						copy(nlo[c:], []elem{a[0], b[0], a[1], b[1]})
						copy(nhi[c:], []elem{a[2], b[2], a[3], b[3]})
					} else {
						copy(nlo[c:], []elem{a[0], a[1], b[0], b[1]})
						copy(nhi[c:], []elem{a[2], a[3], b[2], b[3]})
					}
				}
				sim[i], sim[i+d] = nlo, nhi
				if lo == "lo32" {
					VPUNPCKLDQ(y, x, tmp)
					VPUNPCKHDQ(y, x, y)
				} else {
					VPUNPCKLQDQ(y, x, tmp)
					VPUNPCKHQDQ(y, x, y)
				}
				if v.avx512 {
					VMOVDQA32(tmp, x)
				} else {
					VMOVDQA(tmp, x)
				}
			}
		}
		unpack(1, "lo32", "hi32")
		unpack(2, "lo64", "hi64")
		for i := range r {
			for c := 0; c < v.lanes/4; c++ {
				e := sim[i][4*c : 4*c+4]
				for k := 1; k < 4; k++ {
					if e[k].lane != e[0].lane || e[k].word != e[0].word+k || e[0].word%4 != 0 {
						panic("output transpose is not a transpose")
					}
				}
				dst := Mem{Base: RDI, Disp: 32*(gi*v.lanes+e[0].lane) + 4*e[0].word}
				if v.avx512 {
					VEXTRACTI32X4(U8(c), r[i], dst)
				} else {
					VEXTRACTI128(U8(c), r[i], dst)
				}
			}
		}
		g.p.put(tmp)
		g.p.put(r[:]...)
	}
	VZEROUPPER()
	RET()
}
