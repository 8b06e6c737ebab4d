// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command _asm generates the amd64 assembly of package zuc (zuc_amd64.s)
// with avo, and the arm64 assembly (zuc_arm64.s) with a small printer of
// its own, since avo knows only amd64:
//
//	go run . -pkg zuc -out ../zuc_amd64.s -stubs ../zuc_amd64.go -arm64 ../zuc_arm64.s -arm64stubs ../zuc_arm64.go
//
// Two amd64 families are generated from the same code:
//
//   - avx512 (AVX-512 F/BW/VL, VBMI, VBMI2, GFNI): S0 by VPERMI2B over the
//     256-byte table held in four ZMM registers, S1 by VGF2P8AFFINEQB +
//     VGF2P8AFFINEINVQB, rotations by VPROLD, 16 lanes in ZMM;
//   - avx2 (AVX2, AES-NI): S0 by its nibble structure over VPSHUFB, S1 by
//     AESENCLAST between two nibble-table linear maps, 8 lanes in YMM.
//
// Both accumulate the MACs with PCLMULQDQ. The kernels read their S-box
// constants from the package's Go variables (s0, gfniS1, s0Nibble,
// s1AES), which the package tests check exhaustively.
package main

import (
	"flag"
	"os"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

var (
	arm64Out   = flag.String("arm64", "", "also write the arm64 assembly to this file")
	arm64Stubs = flag.String("arm64stubs", "", "with -arm64, write the Go declarations of the arm64 kernels to this file")
)

func main() {
	flag.Parse()
	// avo's Generate parses the flags again; hand it only its own.
	args := []string{os.Args[0]}
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "arm64" && f.Name != "arm64stubs" {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	os.Args = args

	ConstraintExpr("!purego")
	consts()
	for _, f := range []*family{avx512, avx2} {
		genInit(f, false)
		genInit(f, true)
		genBlocks(f, modeWords)
		genBlocks(f, modeXOR)
		genBlocks(f, modeMAC)
		genLanesInit(f)
		genLanesKeyStream(f)
	}
	genMACUpdate()
	genMACUpdate512()
	genXORWords()
	Generate()

	if *arm64Out != "" {
		s, stubs := genARM64()
		if err := os.WriteFile(*arm64Out, s, 0o644); err != nil {
			panic(err)
		}
		if err := os.WriteFile(*arm64Stubs, stubs, 0o644); err != nil {
			panic(err)
		}
	}
}

// A family is a set of kernels for one class of CPU.
type family struct {
	name   string
	avx512 bool
}

var (
	avx512 = &family{name: "AVX512", avx512: true}
	avx2   = &family{name: "AVX2"}
)

// Static constants.
var (
	cBswap32  Mem // VPSHUFB mask reversing the bytes of each dword, 64 bytes
	cBitrev   Mem // GFNI matrix reversing the bits of each byte
	cHiMask   Mem // 0xffff0000 in each dword, 32 bytes
	cNibble   Mem // 0x0f in each byte, 32 bytes
	cOddBytes Mem // 0xff in the odd bytes, 32 bytes
	cP31      Mem // 2^31-1 in each dword, 32 bytes
	cRotW     Mem // VPSHUFB mask rotating each qword right by 16 bits: w3 w0 w1 w2
	cISR      Mem // VPSHUFB mask undoing AESENCLAST's ShiftRows
	cRevLo    Mem // VPSHUFB table: bit reversal of the low nibble, into the high one
	cRevHi    Mem // VPSHUFB table: bit reversal of the high nibble, into the low one
	cShiftL   Mem // AVX2 L1/L2 left shift counts, 4 × 16 bytes
	cShiftR   Mem // AVX2 L1/L2 right shift counts, 4 × 16 bytes
	cLoHi     Mem // dwords 0x0000ffff, 0xffff0000, repeated; 32 bytes
	cSwap16   Mem // VPSHUFB mask swapping the 16-bit halves of each dword
	cEvenIdx  Mem // VPERMI2D indices of the even dwords of two registers
	cOddIdx   Mem // and of the odd ones
	cZero     Mem // 32 zero bytes
	cRot3     Mem // AVX-512 L1/L2 rotation counts: 2|14, 10|22
	cRot3R    Mem // 32 minus those, for the AVX2 right shifts
	cRolL     Mem // VPSHUFB masks: every dword <<<24, <<<8, <<<16 (32 bytes each)
	cRolB     Mem // VPSHUFB masks: dwords 0, 1 rotated by 24, 8 (2, 3 alike); all by 16
)

// Go variables of the package.
var (
	gS0       = NewDataAddr(Symbol{Name: "·s0"}, 0)
	gGFNI     = NewDataAddr(Symbol{Name: "·gfniS1"}, 0)
	gS0Nibble = NewDataAddr(Symbol{Name: "·s0Nibble"}, 0)
	gS1AES    = NewDataAddr(Symbol{Name: "·s1AES"}, 0)
)

// table emits a read-only table of the given bytes (a multiple of 8).
func table(name string, b []byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < len(b); i += 8 {
		var v uint64
		for j := 7; j >= 0; j-- {
			v = v<<8 | uint64(b[i+j])
		}
		DATA(i, U64(v))
	}
	return m
}

// repeat returns n copies of b, concatenated.
func repeat(b []byte, n int) []byte {
	var r []byte
	for range n {
		r = append(r, b...)
	}
	return r
}

func dwords(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	return b
}

func consts() {
	cBswap32 = table("bswap32", repeat([]byte{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12}, 4))
	cBitrev = table("bitrev", []byte{1, 2, 4, 8, 16, 32, 64, 128})
	cHiMask = table("himask", repeat(dwords(0xffff0000), 8))
	cNibble = table("nibble", repeat([]byte{0x0f}, 32))
	cOddBytes = table("oddbytes", repeat([]byte{0, 0xff}, 16))
	cP31 = table("p31", repeat(dwords(0x7fffffff), 8))
	// Per qword, 16-bit words w0 w1 w2 w3 become w3 w0 w1 w2: for the
	// packed [W1, W2] of the AVX2 kernels, dword 0 is W1<<16 | W2>>16 and
	// dword 1 is W2<<16 | W1>>16.
	cRotW = table("rotw", repeat([]byte{6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13}, 2))
	// AESENCLAST output byte i is SubBytes of input byte sr[i]; feeding
	// it the input permuted by isr (isr[sr[i]] = i) leaves every byte in
	// place.
	sr := [16]int{0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11}
	isr := make([]byte, 16)
	for i, j := range sr {
		isr[j] = byte(i)
	}
	cISR = table("isr", repeat(isr, 2))
	revLo, revHi := make([]byte, 16), make([]byte, 16)
	for n := range 16 {
		var r byte
		for b := range 4 {
			r |= byte(n>>b&1) << (7 - b)
		}
		revLo[n] = r      // low nibble n reversed, into the high nibble
		revHi[n] = r >> 4 // high nibble n reversed, into the low nibble
	}
	cRevLo = table("revlo", repeat(revLo, 2))
	cRevHi = table("revhi", repeat(revHi, 2))
	// L1 rotates by 2, 10, 18, 24 and L2 by 8, 14, 22, 30. The AVX2
	// single-stream kernels hold L1's input in the even dwords and L2's in
	// the odd ones.
	l1 := [4]uint32{2, 10, 18, 24}
	l2 := [4]uint32{8, 14, 22, 30}
	var left, right []byte
	for k := range 4 {
		left = append(left, dwords(l1[k], l2[k], l1[k], l2[k])...)
		right = append(right, dwords(32-l1[k], 32-l2[k], 32-l1[k], 32-l2[k])...)
	}
	cShiftL = table("shiftl", left)
	cShiftR = table("shiftr", right)
	cLoHi = table("lohi", repeat(dwords(0x0000ffff, 0xffff0000), 4))
	cSwap16 = table("swap16", repeat([]byte{2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13}, 2))
	var even, odd []uint32
	for i := range 16 {
		even = append(even, uint32(2*i))
		odd = append(odd, uint32(2*i+1))
	}
	cEvenIdx = table("evenidx", dwords(even...))
	cOddIdx = table("oddidx", dwords(odd...))
	cZero = table("zero", make([]byte, 32))
	cRot3 = table("rot3", append(dwords(2, 14, 2, 14), dwords(10, 22, 10, 22)...))
	cRolL = table("roll", append(append(
		repeat([]byte{1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12}, 2),
		repeat([]byte{3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14}, 2)...),
		repeat([]byte{2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13}, 2)...))
	cRot3R = table("rot3r", append(dwords(30, 18, 30, 18), dwords(22, 10, 22, 10)...))
	// Dword 0 rotated by 24 and dword 1 by 8; then every dword by 16.
	cRolB = table("rolb", []byte{1, 2, 3, 0, 7, 4, 5, 6, 9, 10, 11, 8, 15, 12, 13, 14,
		2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13})
}
