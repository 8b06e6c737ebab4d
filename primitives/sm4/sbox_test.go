// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"math/bits"
	"testing"
)

// These tests check the S-box constants that the assembly kernels embed
// (sboxconst_test.go, written by the generator alongside the assembly)
// against the S-box table, for every input, with the instructions they
// feed emulated from their definitions.

// affine emulates one byte of VGF2P8AFFINEQB: output bit i is the parity of
// x masked with byte 7−i of the matrix, XOR bit i of c.
func affine(m uint64, x, c byte) byte {
	var y byte
	for i := 0; i < 8; i++ {
		row := byte(m >> (8 * (7 - i)))
		y |= byte(bits.OnesCount8(row&x)&1) << i
	}
	return y ^ c
}

// aesInv is the inverse in GF(2⁸) modulo x⁸+x⁴+x³+x+1, with 0 for 0, by
// search.
func aesInv(x byte) byte {
	if x == 0 {
		return 0
	}
	for y := 1; y < 256; y++ {
		if aesMul(x, byte(y)) == 1 {
			return byte(y)
		}
	}
	panic("no inverse")
}

func aesMul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= 0x1b
		}
		b >>= 1
	}
	return p
}

// affineInv emulates one byte of VGF2P8AFFINEINVQB.
func affineInv(m uint64, x, c byte) byte { return affine(m, aesInv(x), c) }

// aesSubBytes is the AES S-box from its definition (FIPS 197, 5.1.1), what
// AESENCLAST and AESE apply to every byte.
func aesSubBytes(x byte) byte {
	b := aesInv(x)
	return b ^ bits.RotateLeft8(b, 1) ^ bits.RotateLeft8(b, 2) ^ bits.RotateLeft8(b, 3) ^
		bits.RotateLeft8(b, 4) ^ 0x63
}

func TestSBoxConstants(t *testing.T) {
	for _, c := range [][2]byte{{0x00, 0x63}, {0x01, 0x7c}, {0x53, 0xed}, {0xff, 0x16}} {
		if got := aesSubBytes(c[0]); got != c[1] {
			t.Fatalf("AES S-box(%#x) = %#x, want %#x", c[0], got, c[1])
		}
	}
	for x := 0; x < 256; x++ {
		b := byte(x)
		// GFNI: S(x) = A2·inv(A1·x ⊕ C1) ⊕ C2.
		if got := affineInv(gfniA2, affine(gfniA1, b, gfniC1), gfniC2); got != sbox[x] {
			t.Errorf("GFNI S-box(%#02x) = %#02x, want %#02x", x, got, sbox[x])
		}
		// AES-NI and AESE: S(x) = Post(SubBytes(Pre(x))) with nibble tables.
		y := aesPreLo[b&15] ^ aesPreHi[b>>4]
		z := aesSubBytes(y)
		if got := aesPostLo[z&15] ^ aesPostHi[z>>4]; got != sbox[x] {
			t.Errorf("AES-NI S-box(%#02x) = %#02x, want %#02x", x, got, sbox[x])
		}
		if affine(gfniA1Inv, affine(gfniA1, b, 0), 0) != b {
			t.Errorf("A1Inv·A1·%#02x ≠ %#02x", x, x)
		}
	}
}

// TestLatencyConstants checks the latency kernels' round in the A1 domain:
// A1·L(S(t)) = E0·w ⊕ R8(E1·w) ⊕ R16(E1·w) ⊕ R24(E2·w) ⊕ K0 with
// w = inv(A1·t ⊕ C1) byte-wise, for every byte value in every position (the
// map is affine and byte-separable, so that covers every word).
func TestLatencyConstants(t *testing.T) {
	word := func(m uint64, x uint32, c byte, f func(uint64, byte, byte) byte) uint32 {
		var r uint32
		for i := 0; i < 32; i += 8 {
			r |= uint32(f(m, byte(x>>i), c)) << i
		}
		return r
	}
	for x := 0; x < 256; x++ {
		for pos := 0; pos < 32; pos += 8 {
			tw := uint32(x) << pos
			want := word(gfniA1, linear(subWord(tw)), 0, affine)
			u := word(gfniA1, tw, gfniC1, affine)
			e0 := word(latE0, u, 0, affineInv)
			e1 := word(latE1, u, 0, affineInv)
			e2 := word(latE2, u, 0, affineInv)
			got := e0 ^ bits.RotateLeft32(e1, 8) ^ bits.RotateLeft32(e1, 16) ^ bits.RotateLeft32(e2, 24) ^ latK0
			if got != want {
				t.Fatalf("latency round of %#08x = %#08x, want %#08x", tw, got, want)
			}
		}
	}
}

// TestLatencyAESConstants checks the AES-NI latency kernel's tables: from
// v = SubBytesAES(u) they give E_j·inv(u), and the map tables are A1 and its
// inverse.
func TestLatencyAESConstants(t *testing.T) {
	tabs := [3][2]*[16]byte{{&latAES0Lo, &latAES0Hi}, {&latAES1Lo, &latAES1Hi}, {&latAES2Lo, &latAES2Hi}}
	mats := [3]uint64{latE0, latE1, latE2}
	for x := 0; x < 256; x++ {
		u := byte(x)
		v := aesSubBytes(u)
		for j, tab := range tabs {
			if got, want := tab[0][v&15]^tab[1][v>>4], affineInv(mats[j], u, 0); got != want {
				t.Fatalf("E%d table at %#02x = %#02x, want %#02x", j, x, got, want)
			}
		}
		if got, want := mapInLo[u&15]^mapInHi[u>>4], affine(gfniA1, u, 0); got != want {
			t.Fatalf("A1 table at %#02x = %#02x, want %#02x", x, got, want)
		}
		if got, want := mapOutLo[u&15]^mapOutHi[u>>4], affine(gfniA1Inv, u, 0); got != want {
			t.Fatalf("A1⁻¹ table at %#02x = %#02x, want %#02x", x, got, want)
		}
	}
}
