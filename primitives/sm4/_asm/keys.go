// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"encoding/binary"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genExpandKey emits the key schedule (GB/T 32907-2016, 7.3) with the
// S-box from GFNI or from AES-NI, so that it indexes no table with key
// bytes: K_{i+4} = K_i ⊕ L'(τ(K_{i+1} ⊕ K_{i+2} ⊕ K_{i+3} ⊕ CK_i)),
// L'(B) = B ⊕ B⋘13 ⊕ B⋘23, one word at a time in lane 0 of X0-X3. Only
// VEX instructions, so both GFNI flavours can use the GFNI one.
func genExpandKey(gfni bool) {
	name := "expandKeyAESNI"
	if gfni {
		name = "expandKeyGFNI"
	}
	TEXT(name, NOSPLIT, "func(key *[16]byte, enc *[32]uint32)")
	Pragma("noescape")
	Doc(name + " computes the encryption round keys from key, with the S-box from GFNI or AES-NI instead of the table.")
	key := Load(Param("key"), RAX)
	enc := Load(Param("enc"), RDX)
	fk := global("keyFK", []byte{
		0xc6, 0xba, 0xb1, 0xa3, 0x50, 0x33, 0xaa, 0x56, 0x97, 0x91, 0x7d, 0x67, 0xdc, 0x22, 0x70, 0xb2,
	})
	var ck []byte
	for i := 0; i < 32; i++ {
		n := uint32(4 * i)
		ck = binary.LittleEndian.AppendUint32(ck, (n*7&0xff)<<24|((n+1)*7&0xff)<<16|((n+2)*7&0xff)<<8|(n+3)*7&0xff)
	}
	ck = append(ck, make([]byte, 16)...) // 16-byte loads of the last ones
	ckm := global("keyCK", ck)

	k := [4]Register{X0, X1, X2, X3}
	t, u, w := X4, X5, X6
	VMOVDQU(Mem{Base: key}, X7)
	VPSHUFB(bswapMask().Offset(0), X7, X7)
	VPXOR(fk, X7, X7)
	VMOVDQA(X7, k[0])
	VPSHUFD(U8(1), X7, k[1])
	VPSHUFD(U8(2), X7, k[2])
	VPSHUFD(U8(3), X7, k[3])
	for i := 0; i < 32; i++ {
		a, b, c, d := k[i%4], k[(i+1)%4], k[(i+2)%4], k[(i+3)%4]
		Commentf("Round key %d.", i)
		VPXOR(b, c, t)
		VPXOR(d, t, t)
		VPXOR(ckm.Offset(4*i), t, t)
		if gfni {
			VGF2P8AFFINEQB(U8(consts.C1), gfniA1().Offset(0), t, t)
			VGF2P8AFFINEINVQB(U8(consts.C2), gfniA2().Offset(0), t, t)
		} else {
			VPSHUFB(invShiftRows().Offset(0), t, t)
			for _, n := range []struct {
				lo, hi Mem
				aes    bool
			}{{nibble("preLo", consts.Pre.Lo), nibble("preHi", consts.Pre.Hi), true}, {nibble("postLo", consts.Post.Lo), nibble("postHi", consts.Post.Hi), false}} {
				VPSRLW(U8(4), t, u)
				VPAND(mask0F().Offset(0), t, t)
				VPAND(mask0F().Offset(0), u, u)
				VMOVDQU(n.lo.Offset(0), w)
				VPSHUFB(t, w, t)
				VMOVDQU(n.hi.Offset(0), w)
				VPSHUFB(u, w, u)
				VPXOR(u, t, t)
				if n.aes {
					VAESENCLAST(zeros().Offset(0), t, t)
				}
			}
		}
		// a ^= t ^ t<<<13 ^ t<<<23
		VPXOR(t, a, a)
		for _, r := range []int{13, 23} {
			VPSLLD(U8(r), t, u)
			VPXOR(u, a, a)
			VPSRLD(U8(32-r), t, u)
			VPXOR(u, a, a)
		}
		VMOVD(a, Mem{Base: enc, Disp: 4 * i})
	}
	RET()
}
