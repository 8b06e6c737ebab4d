// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// This program generates sm3block_amd64.s, the amd64 SM3 kernels:
//
//   - blockAVX2: one message, the message expansion of two blocks at a time
//     in the two 128-bit halves of YMM registers, interleaved with the
//     scalar rounds of the first block (BMI2 RORX); the second
//     block's rounds then run from the stored schedule.
//   - blockMulti8AVX2 and blockMulti16AVX512: 8 or 16 independent messages,
//     one per 32-bit lane of YMM or ZMM registers.
//
// Run it with go generate in the package directory:
//
//	cd _asm && go run . -pkg sm3 -out ../sm3block_amd64.s -stubs ../sm3block_amd64.go
//	cd _asm && go run . -arm64 ../sm3block_arm64.s -arm64stubs ../sm3block_arm64.go
package main

import (
	"flag"
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
)

var (
	arm64Out   = flag.String("arm64", "", "write the arm64 kernels to this file instead of the amd64 ones")
	arm64Stubs = flag.String("arm64stubs", "", "with -arm64, write the Go declarations of the arm64 kernels to this file")
)

func main() {
	flag.Parse()
	if *arm64Out != "" {
		generateARM64(*arm64Out, *arm64Stubs)
		return
	}
	ConstraintExpr("!purego")
	bswapMask()
	roundConstants()
	singleBuffer()
	multiBuffer()
	kdfKernels()
	Generate()
}

// t returns the round constant T_j <<< j of GB/T 32905-2016, 4.2 and 5.3.3,
// as the rounds add it.
func t(j int) uint32 {
	c := uint32(0x79cc4519)
	if j >= 16 {
		c = 0x7a879d8a
	}
	return bits.RotateLeft32(c, j%32)
}
