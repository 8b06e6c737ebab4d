// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

// The NEON kernel holds a set of four blocks transposed: register xᵢ has
// word i of each block in its four 32-bit lanes. Two sets run side by side.
//
// Register allocation: set s uses V(7s)…V(7s+6) (four words, three
// temporaries); V14 is zero (the AESE key), V15 the broadcast round key,
// V16-V23 the round keys, V24-V27 the nibble tables, V28 0x0f…, V29 the
// ShiftRows undoing, V30 and V31 the byte rotations by 8 and 24 bits.

type set struct {
	x [4]int
	t [3]int
}

func newSet(s int) set {
	b := 7 * s
	return set{x: [4]int{b, b + 1, b + 2, b + 3}, t: [3]int{b + 4, b + 5, b + 6}}
}

// transpose turns four registers of blocks into four of words, or back.
func (st *set) transpose() {
	x, t := st.x, st.t
	ins("VTRN1 V%d.S4, V%d.S4, V%d.S4", x[1], x[0], t[0])
	ins("VTRN2 V%d.S4, V%d.S4, V%d.S4", x[1], x[0], t[1])
	ins("VTRN1 V%d.S4, V%d.S4, V%d.S4", x[3], x[2], x[0])
	ins("VTRN2 V%d.S4, V%d.S4, V%d.S4", x[3], x[2], x[1])
	ins("VZIP1 V%d.D2, V%d.D2, V%d.D2", x[0], t[0], x[2])
	ins("VZIP2 V%d.D2, V%d.D2, V%d.D2", x[0], t[0], x[3])
	ins("VZIP1 V%d.D2, V%d.D2, V%d.D2", x[1], t[1], t[0])
	ins("VZIP2 V%d.D2, V%d.D2, V%d.D2", x[1], t[1], x[0])
	st.x = [4]int{x[2], t[0], x[3], x[0]}
	st.t = [3]int{x[1], t[1], t[2]}
}

func eachSet(sets []*set, f func(s *set)) {
	for _, s := range sets {
		f(s)
	}
}

// sboxNEON applies the S-box to every byte of the registers xs, with one
// temporary per register in tmps, instruction by instruction across the
// registers so that their chains overlap. SM4's S-box is an affine map, the
// AES S-box and a second affine map (sboxmath): the affine maps are two
// nibble lookups each (TBL indexes registers, not memory), and AESE with a
// zero key is SubBytes after ShiftRows, which the TBL by invShiftRows
// undoes in advance. It needs the nibble tables in V24-V27, 0x0f… in V28,
// invShiftRows in V29 and zero in V14, as ecbNEON and expandKeyNEON load
// them.
func sboxNEON(xs, tmps []int) {
	each := func(f func(x, t int)) {
		for i, x := range xs {
			f(x, tmps[i])
		}
	}
	each(func(x, _ int) { ins("VTBL V29.B16, [V%d.B16], V%d.B16", x, x) })
	nibble := func(lo, hi int) {
		each(func(x, t int) { ins("VUSHR $4, V%d.B16, V%d.B16", x, t) })
		each(func(x, _ int) { ins("VAND V28.B16, V%d.B16, V%d.B16", x, x) })
		each(func(x, _ int) { ins("VTBL V%d.B16, [V%d.B16], V%d.B16", x, lo, x) })
		each(func(_, t int) { ins("VTBL V%d.B16, [V%d.B16], V%d.B16", t, hi, t) })
		each(func(x, t int) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", t, x, x) })
	}
	nibble(24, 25)
	each(func(x, _ int) { ins("AESE V14.B16, V%d.B16", x) })
	nibble(26, 27)
}

// loadSboxConsts loads what sboxNEON needs, using R4.
func loadSboxConsts() {
	for i, name := range []string{"preLo", "preHi", "postLo", "postHi"} {
		ins("MOVD $%s<>(SB), R4", name)
		ins("VLD1 (R4), [V%d.B16]", 24+i)
	}
	ins("VMOVI $15, V28.B16")
	ins("MOVD $invShiftRows<>(SB), R4")
	ins("VLD1 (R4), [V29.B16]")
	ins("VEOR V14.B16, V14.B16, V14.B16")
}

func neonRound(i int, sets []*set) {
	a, b, c, d := i%4, (i+1)%4, (i+2)%4, (i+3)%4
	p("\t// Round %d.", i)
	ins("VDUP V%d.S[%d], V15.S4", 16+i/4, i%4)
	eachSet(sets, func(s *set) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", s.x[c], s.x[b], s.t[0]) })
	eachSet(sets, func(s *set) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", s.x[d], s.t[0], s.t[0]) })
	eachSet(sets, func(s *set) { ins("VEOR V15.B16, V%d.B16, V%d.B16", s.t[0], s.t[0]) })
	var xs, tmps []int
	eachSet(sets, func(s *set) { xs, tmps = append(xs, s.t[0]), append(tmps, s.t[1]) })
	sboxNEON(xs, tmps)
	// x_a ^= t ^ t<<<24 ^ (u<<<2), u = t ^ t<<<8 ^ t<<<16.
	eachSet(sets, func(s *set) { ins("VTBL V30.B16, [V%d.B16], V%d.B16", s.t[0], s.t[1]) })
	eachSet(sets, func(s *set) { ins("VREV32 V%d.H8, V%d.H8", s.t[0], s.t[2]) })
	eachSet(sets, func(s *set) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", s.t[2], s.t[1], s.t[1]) })
	eachSet(sets, func(s *set) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", s.t[0], s.t[1], s.t[1]) })
	eachSet(sets, func(s *set) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", s.t[0], s.x[a], s.x[a]) })
	eachSet(sets, func(s *set) { ins("VTBL V31.B16, [V%d.B16], V%d.B16", s.t[0], s.t[2]) })
	eachSet(sets, func(s *set) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", s.t[2], s.x[a], s.x[a]) })
	eachSet(sets, func(s *set) { ins("VSHL $2, V%d.S4, V%d.S4", s.t[1], s.t[2]) })
	eachSet(sets, func(s *set) { ins("VSRI $30, V%d.S4, V%d.S4", s.t[1], s.t[2]) })
	eachSet(sets, func(s *set) { ins("VEOR V%d.B16, V%d.B16, V%d.B16", s.t[2], s.x[a], s.x[a]) })
}

// neonBody processes len(sets) sets of four blocks from R2 to R1.
func neonBody(n int) {
	var sets []*set
	for s := 0; s < n; s++ {
		st := newSet(s)
		sets = append(sets, &st)
		ins("VLD1.P 64(R2), [V%d.B16, V%d.B16, V%d.B16, V%d.B16]", st.x[0], st.x[1], st.x[2], st.x[3])
	}
	eachSet(sets, func(s *set) {
		for _, r := range s.x {
			ins("VREV32 V%d.B16, V%d.B16", r, r)
		}
		s.transpose()
	})
	for i := 0; i < 32; i++ {
		neonRound(i, sets)
	}
	eachSet(sets, func(s *set) {
		s.x = [4]int{s.x[3], s.x[2], s.x[1], s.x[0]}
		s.transpose()
		for _, r := range s.x {
			ins("VREV32 V%d.B16, V%d.B16", r, r)
		}
		for _, r := range s.x {
			ins("VST1.P [V%d.B16], 16(R1)", r)
		}
	})
}

func genECBNEON() {
	p("")
	p("// func ecbNEON(rk *[32]uint32, dst []byte, src []byte)")
	p("// ecbNEON encrypts len(src)/64 groups of four blocks, two groups at a time.")
	stub("func ecbNEON(rk *[32]uint32, dst, src []byte)",
		"ecbNEON processes len(src)/64 groups of four blocks with the S-box",
		"through AESE, eight blocks per iteration.")
	p("TEXT ·ecbNEON(SB), NOSPLIT, $0-56")
	ins("MOVD rk+0(FP), R0")
	ins("MOVD dst_base+8(FP), R1")
	ins("MOVD src_base+32(FP), R2")
	ins("MOVD src_len+40(FP), R3")
	loadKeys("R0")
	loadSboxConsts()
	for i, name := range []string{"rot8", "rot24"} {
		ins("MOVD $%s<>(SB), R4", name)
		ins("VLD1 (R4), [V%d.B16]", 30+i)
	}
	p("ecbNEONEight:")
	ins("CMP $128, R3")
	ins("BLT ecbNEONFour")
	neonBody(2)
	ins("SUB $128, R3")
	ins("B ecbNEONEight")
	p("ecbNEONFour:")
	ins("CMP $64, R3")
	ins("BLT ecbNEONDone")
	neonBody(1)
	ins("SUB $64, R3")
	ins("B ecbNEONFour")
	p("ecbNEONDone:")
	ins("RET")
}

// genExpandKeyNEON writes the key schedule for CPUs with NEON and AES but
// without SM4EKEY. The schedule is one chain of 32 dependent rounds with a
// single word each, so there is nothing to run side by side: the words live
// in general registers, where the XORs and L′'s rotations are one
// instruction each, and only the S-box input crosses to a vector register
// and back, to go through the same constant-time S-box as ecbNEON's rounds
// (only lane 0 is meaningful; the other lanes carry whatever they held).
func genExpandKeyNEON() {
	p("")
	p("// func expandKeyNEON(key *[16]byte, enc *[32]uint32)")
	stub("func expandKeyNEON(key *[16]byte, enc *[32]uint32)",
		"expandKeyNEON computes the encryption round keys with the S-box through",
		"AESE, as ecbNEON does, so that no table is indexed with key bytes.")
	p("TEXT ·expandKeyNEON(SB), NOSPLIT, $0-16")
	ins("MOVD key+0(FP), R0")
	ins("MOVD enc+8(FP), R1")
	loadSboxConsts()
	// K0…K3 = MK ⊕ FK, the key read as big-endian words.
	ins("VLD1 (R0), [V0.B16]")
	ins("VREV32 V0.B16, V0.B16")
	ins("MOVD $sm4FK<>(SB), R2")
	ins("VLD1 (R2), [V1.S4]")
	ins("VEOR V1.B16, V0.B16, V0.B16")
	k := []int{5, 6, 7, 8}
	for j, r := range k {
		ins("VMOV V0.S[%d], R%d", j, r)
	}
	ins("MOVD $sm4CK<>(SB), R2")
	for i := 0; i < 32; i++ {
		// K(i+4) = K(i) ⊕ L′(τ(K(i+1) ⊕ K(i+2) ⊕ K(i+3) ⊕ CK(i))), with
		// K(i+3), the word the previous round wrote, XORed in last.
		p("\t// Round %d.", i)
		ins("MOVWU.P 4(R2), R10")
		ins("EORW R%d, R%d, R9", k[2], k[1])
		ins("EORW R10, R9, R9")
		ins("EORW R%d, R9, R9", k[3])
		ins("VMOV R9, V0.S[0]")
		sboxNEON([]int{0}, []int{1})
		ins("VMOV V0.S[0], R9")
		// L′(B) = B ⊕ B⋘13 ⊕ B⋘23, the rotations as right rotations.
		ins("EORW R9@>19, R9, R11")
		ins("EORW R9@>9, R11, R11")
		ins("EORW R11, R%d, R%d", k[0], k[0])
		ins("MOVW R%d, %d(R1)", k[0], 4*i)
		k = append(k[1:], k[0])
	}
	ins("RET")
}

// GHASH with PMULL: see _asm/ghash.go for the reflected representation,
// the table (H¹⁶…H¹ times x⁻¹ as little-endian 128-bit integers) and the
// reduction. V31 holds the reduction constant, V30 zero, V29 the state.

// rev128 reverses the bytes of a register.
func rev128(r int) {
	ins("VREV64 V%d.B16, V%d.B16", r, r)
	ins("VEXT $8, V%d.B16, V%d.B16, V%d.B16", r, r, r)
}

// mul4 accumulates a·h into lo, hi, mid (V20, V21, V22), or initialises
// them if first; h is the table entry, hs a temporary for h with its
// halves swapped, t a temporary.
func mul4(a, h, hs, t int, first bool) {
	ins("VEXT $8, V%d.B16, V%d.B16, V%d.B16", h, h, hs)
	if first {
		ins("VPMULL V%d.D1, V%d.D1, V20.Q1", h, a)
		ins("VPMULL2 V%d.D2, V%d.D2, V21.Q1", h, a)
		ins("VPMULL V%d.D1, V%d.D1, V22.Q1", hs, a)
		ins("VPMULL2 V%d.D2, V%d.D2, V%d.Q1", hs, a, t)
		ins("VEOR V%d.B16, V22.B16, V22.B16", t)
		return
	}
	ins("VPMULL V%d.D1, V%d.D1, V%d.Q1", h, a, t)
	ins("VEOR V%d.B16, V20.B16, V20.B16", t)
	ins("VPMULL2 V%d.D2, V%d.D2, V%d.Q1", h, a, t)
	ins("VEOR V%d.B16, V21.B16, V21.B16", t)
	ins("VPMULL V%d.D1, V%d.D1, V%d.Q1", hs, a, t)
	ins("VEOR V%d.B16, V22.B16, V22.B16", t)
	ins("VPMULL2 V%d.D2, V%d.D2, V%d.Q1", hs, a, t)
	ins("VEOR V%d.B16, V22.B16, V22.B16", t)
}

// reduce folds (V21:V20, V22) into V29.
func reduce() {
	ins("VEXT $8, V22.B16, V30.B16, V23.B16") // mid·x⁶⁴: [0, mid.lo]
	ins("VEOR V23.B16, V20.B16, V20.B16")
	ins("VEXT $8, V30.B16, V22.B16, V23.B16") // mid·x⁻⁶⁴: [mid.hi, 0]
	ins("VEOR V23.B16, V21.B16, V21.B16")
	for i := 0; i < 2; i++ {
		ins("VPMULL V31.D1, V20.D1, V23.Q1")
		ins("VEXT $8, V20.B16, V20.B16, V20.B16")
		ins("VEOR V23.B16, V20.B16, V20.B16")
	}
	ins("VEOR V21.B16, V20.B16, V29.B16")
}

func genGHASH() {
	p("")
	p("// func ghashPMULL(htab *[16][16]byte, y *[16]byte, data []byte)")
	p("// ghashPMULL absorbs len(data)/16 blocks into the GHASH state y with PMULL, eight blocks per reduction.")
	stub("func ghashPMULL(htab *[16][16]byte, y *[16]byte, data []byte)",
		"ghashPMULL absorbs len(data)/16 blocks into the GHASH state y with",
		"PMULL, eight blocks per reduction; htab is as for amd64 (ghashKey.table).")
	p("TEXT ·ghashPMULL(SB), NOSPLIT, $0-40")
	ins("MOVD htab+0(FP), R0")
	ins("MOVD y+8(FP), R1")
	ins("MOVD data_base+16(FP), R2")
	ins("MOVD data_len+24(FP), R3")
	ins("MOVD $ghashPoly<>(SB), R4")
	ins("VLD1 (R4), [V31.D2]")
	ins("VEOR V30.B16, V30.B16, V30.B16")
	ins("VLD1 (R1), [V29.B16]")
	rev128(29)
	p("ghashPMULLEight:")
	ins("CMP $128, R3")
	ins("BLT ghashPMULLSingle")
	ins("ADD $128, R0, R5") // H⁸…H¹
	ins("VLD1.P 64(R2), [V0.B16, V1.B16, V2.B16, V3.B16]")
	ins("VLD1.P 64(R2), [V4.B16, V5.B16, V6.B16, V7.B16]")
	ins("VLD1.P 64(R5), [V8.D2, V9.D2, V10.D2, V11.D2]")
	ins("VLD1 (R5), [V12.D2, V13.D2, V14.D2, V15.D2]")
	for j := 0; j < 8; j++ {
		rev128(j)
	}
	ins("VEOR V29.B16, V0.B16, V0.B16")
	for j := 0; j < 8; j++ {
		mul4(j, 8+j, 16, 17, j == 0)
	}
	reduce()
	ins("SUB $128, R3")
	ins("B ghashPMULLEight")
	p("ghashPMULLSingle:")
	ins("ADD $240, R0, R5") // H¹
	ins("VLD1 (R5), [V8.D2]")
	p("ghashPMULLOne:")
	ins("CMP $16, R3")
	ins("BLT ghashPMULLDone")
	ins("VLD1.P 16(R2), [V0.B16]")
	rev128(0)
	ins("VEOR V29.B16, V0.B16, V0.B16")
	mul4(0, 8, 16, 17, true)
	reduce()
	ins("SUB $16, R3")
	ins("B ghashPMULLOne")
	p("ghashPMULLDone:")
	rev128(29)
	ins("VST1 [V29.B16], (R1)")
	ins("RET")
}
