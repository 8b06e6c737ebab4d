// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm4

import "github.com/shangmi-go/shangmi/primitives/internal/impl"

// This file is the single dispatch point for SM4 on amd64. Assembly kernels
// "aesni" and "gfni", which evaluate the S-box with AES-NI or GFNI affine
// instructions at AVX2 and AVX-512 widths, will be chosen here with a plain
// if-ladder on the flags below, read from the CPU once. Until those kernels
// exist the flags stay false, so impl.List reports no alternative, tests run
// the generic code only, and every call goes to the generic Go code.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, so every
// stack buffer the modes pass in would be moved to the heap.
var (
	useAESNI = false
	useGFNI  = false
)

func init() {
	impl.Register("sm4", "aesni", &useAESNI)
	impl.Register("sm4", "gfni", &useGFNI)
}

// cryptBlock processes one block with the round keys rk.
func cryptBlock(rk *[rounds]uint32, dst, src []byte) {
	cryptBlockGeneric(rk, dst, src)
}

// cryptBlocks processes len(src)/BlockSize whole blocks; every mode in the
// package funnels its bulk work through here.
func cryptBlocks(rk *[rounds]uint32, dst, src []byte) {
	cryptBlocksGeneric(rk, dst, src)
}
