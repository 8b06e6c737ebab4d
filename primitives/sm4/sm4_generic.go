// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"encoding/binary"
	"math/bits"
)

// sbox is the SM4 S-box (GB/T 32907-2016, 6.2 (a)).
var sbox = [256]byte{
	0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05,
	0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99,
	0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62,
	0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6,
	0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8,
	0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb, 0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35,
	0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87,
	0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e,
	0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1,
	0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3,
	0x1d, 0xf6, 0xe2, 0x2e, 0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f,
	0xd5, 0xdb, 0x37, 0x45, 0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51,
	0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8,
	0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0,
	0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
	0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48,
}

// fk is the system parameter FK that whitens the key (GB/T 32907-2016, 7.3).
var fk = [4]uint32{0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc}

// te0…te3 merge the S-box with the linear transform L of the round
// function: L(τ(x)) = te0[x₀] ⊕ te1[x₁] ⊕ te2[x₂] ⊕ te3[x₃] for the bytes
// x₀…x₃ of x, most significant first. L is linear and commutes with
// rotations, so each table is a rotation of te0.
//
// Indexing these tables with secret bytes is what makes this implementation
// variable time with respect to cache state (see the package
// documentation). They are filled in at start-up from sbox, so there is one
// source of truth for the S-box.
var te0, te1, te2, te3 [256]uint32

func init() {
	for i, s := range sbox {
		v := linear(uint32(s) << 24)
		te0[i] = v
		te1[i] = bits.RotateLeft32(v, -8)
		te2[i] = bits.RotateLeft32(v, -16)
		te3[i] = bits.RotateLeft32(v, -24)
	}
}

// linear is the transform L of the encryption round function.
func linear(b uint32) uint32 {
	return b ^ bits.RotateLeft32(b, 2) ^ bits.RotateLeft32(b, 10) ^
		bits.RotateLeft32(b, 18) ^ bits.RotateLeft32(b, 24)
}

// subWord applies the S-box to each byte of x (the transform τ).
func subWord(x uint32) uint32 {
	return uint32(sbox[x>>24])<<24 | uint32(sbox[uint8(x>>16)])<<16 |
		uint32(sbox[uint8(x>>8)])<<8 | uint32(sbox[uint8(x)])
}

// round returns acc ⊕ T(x), with T = L∘τ evaluated through the merged
// tables. The grouping is for latency: the lookups indexed by the top and
// bottom bytes need one instruction fewer to form their index, so they are
// folded into acc while the other two are still loading.
func round(acc, x uint32) uint32 {
	return (acc ^ te0[x>>24] ^ te3[uint8(x)]) ^ (te1[uint8(x>>16)] ^ te2[uint8(x>>8)])
}

// expandKey computes the encryption round keys and, reversed, the decryption
// round keys (SM4 decryption is encryption with the keys in reverse order).
func expandKey(key []byte, enc, dec *[rounds]uint32) {
	checkTables()
	_ = key[15]
	k0 := binary.BigEndian.Uint32(key[0:]) ^ fk[0]
	k1 := binary.BigEndian.Uint32(key[4:]) ^ fk[1]
	k2 := binary.BigEndian.Uint32(key[8:]) ^ fk[2]
	k3 := binary.BigEndian.Uint32(key[12:]) ^ fk[3]
	for i := 0; i < rounds; i++ {
		// CK_i is the four bytes ck_{i,j} = (4i+j)·7 mod 256.
		n := uint32(4 * i)
		ck := (n*7&0xff)<<24 | ((n+1)*7&0xff)<<16 | ((n+2)*7&0xff)<<8 | (n+3)*7&0xff
		b := subWord(k1 ^ k2 ^ k3 ^ ck)
		// The key schedule uses L′(B) = B ⊕ (B ⋘ 13) ⊕ (B ⋘ 23).
		k0 ^= b ^ bits.RotateLeft32(b, 13) ^ bits.RotateLeft32(b, 23)
		enc[i] = k0
		dec[rounds-1-i] = k0
		k0, k1, k2, k3 = k1, k2, k3, k0
	}
}

// cryptBlocksGeneric processes len(src)/16 whole blocks of src into dst,
// which must be at least as long, four at a time while it can.
func cryptBlocksGeneric(rk *[rounds]uint32, dst, src []byte) {
	for len(src) >= 4*BlockSize {
		cryptBlocks4Generic(rk, dst, src)
		src, dst = src[4*BlockSize:], dst[4*BlockSize:]
	}
	for len(src) >= BlockSize {
		cryptBlockGeneric(rk, dst, src)
		src, dst = src[BlockSize:], dst[BlockSize:]
	}
}

// tablesForbidden is set by the constant-time tests while they run a
// constant-time kernel: reaching the table-based rounds (or key schedule)
// then means the dispatch fell back where it must not, and checkTables
// panics, as crypto/internal/fips140/aes's tests make sure its generic code
// is never used where the CPU has AES instructions.
var tablesForbidden bool

func checkTables() {
	if tablesForbidden && kernelSelected() {
		panic("sm4: the table-based code ran while a constant-time kernel is selected")
	}
}
