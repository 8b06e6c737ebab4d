// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build purego || !(amd64 || arm64)

package sm4

// cryptBlock processes one block with the round keys rk.
func cryptBlock(rk *[rounds]uint32, dst, src []byte) {
	cryptBlockGeneric(rk, dst, src)
}

// cryptBlocks processes len(src)/BlockSize whole blocks; every mode in the
// package funnels its bulk work through here.
func cryptBlocks(rk *[rounds]uint32, dst, src []byte) {
	cryptBlocksGeneric(rk, dst, src)
}
