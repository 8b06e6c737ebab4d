// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"math/bits"
	"testing"
)

// gf2p8affine models VGF2P8AFFINEQB on one byte: bit i of the result is
// the parity of x AND byte 7-i of the matrix a, plus bit i of b.
func gf2p8affine(x uint8, a uint64, b uint8) uint8 {
	var r uint8
	for i := range 8 {
		row := uint8(a >> (8 * (7 - i)))
		r |= uint8(bits.OnesCount8(row&x)&1) << i
	}
	return r ^ b
}

// gfMul multiplies in GF(2^8) modulo the polynomial poly (with its x^8 bit).
func gfMul(a, b uint8, poly uint16) uint8 {
	var r uint16
	x := uint16(a)
	for ; b != 0; b >>= 1 {
		if b&1 != 0 {
			r ^= x
		}
		x <<= 1
		if x&0x100 != 0 {
			x ^= poly
		}
	}
	return uint8(r)
}

// gfInv inverts in GF(2^8) modulo poly, with 0 mapped to 0, by
// exponentiation: a^254 = a^-1.
func gfInv(a uint8, poly uint16) uint8 {
	r := uint8(1)
	for range 254 {
		r = gfMul(r, a, poly)
	}
	return r
}

// aesSbox is the AES S-box from its definition (FIPS 197, 5.1.1):
// inversion modulo x^8+x^4+x^3+x+1, then the affine transform.
func aesSbox(x uint8) uint8 {
	b := gfInv(x, 0x11b)
	return b ^ bits.RotateLeft8(b, 1) ^ bits.RotateLeft8(b, 2) ^
		bits.RotateLeft8(b, 3) ^ bits.RotateLeft8(b, 4) ^ 0x63
}

// TestSboxConstants checks, for all 256 inputs, every constant the
// assembly kernels evaluate the S-boxes with.
func TestSboxConstants(t *testing.T) {
	for i := range 256 {
		x := uint8(i)

		// S1 through VGF2P8AFFINEQB + VGF2P8AFFINEINVQB.
		y := gf2p8affine(x, gfniS1[0], 0)
		if got := gf2p8affine(gfInv(y, 0x11b), gfniS1[1], 0x55); got != s1[x] {
			t.Fatalf("GFNI S1(%#02x) = %#02x, want %#02x", x, got, s1[x])
		}

		// S1 through the AES S-box: nibble lookups for the linear maps.
		a := s1AES[0][x&15] ^ s1AES[1][x>>4]
		if a != y {
			t.Fatalf("s1AES input map(%#02x) = %#02x, GFNI matrix gives %#02x", x, a, y)
		}
		z := aesSbox(a)
		if got := s1AES[2][z&15] ^ s1AES[3][z>>4]; got != s1[x] {
			t.Fatalf("AES S1(%#02x) = %#02x, want %#02x", x, got, s1[x])
		}

		// S0 through its nibble structure.
		h, l := x>>4, x&15
		tt := h ^ s0Nibble[0][l]
		u := l ^ s0Nibble[1][tt]
		v := tt ^ s0Nibble[2][u]
		if got := bits.RotateLeft8(v<<4|u, 5); got != s0[x] {
			t.Fatalf("nibble S0(%#02x) = %#02x, want %#02x", x, got, s0[x])
		}
		if got := s0Nibble[3][v] ^ s0Nibble[4][u]; got != s0[x] {
			t.Fatalf("nibble S0 rotation tables (%#02x) = %#02x, want %#02x", x, got, s0[x])
		}
	}
	// The nibble tables must index with values below 16 only: VPSHUFB and
	// TBL would read outside a 16-byte table otherwise.
	for _, row := range s0Nibble[:3] {
		for _, v := range row {
			if v > 15 {
				t.Fatalf("s0Nibble entry %#x is not a nibble", v)
			}
		}
	}
	// S1 is an affine transform of inversion in ZUC's field
	// (x^8+x^7+x^3+x+1), which is why a GFNI pair exists at all.
	if s1[0] != 0x55 || gfInv(3, 0x18b) == 0 {
		t.Fatal("S1 field sanity check failed")
	}
}
