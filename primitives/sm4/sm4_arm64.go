// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm4

import "github.com/shangmi-go/shangmi/primitives/internal/impl"

// This file is the single dispatch point for SM4 on arm64. Assembly kernels
// "neon", which evaluates the S-box with the AES instructions and an affine
// map, and "sm4e", which uses the SM4E instructions, will be chosen here with
// a plain if-ladder on the flags below, read from the CPU once. Until those
// kernels exist the flags stay false, so impl.List reports no alternative,
// tests run the generic code only, and every call goes to the generic Go code.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, so every
// stack buffer the modes pass in would be moved to the heap.
var (
	useNEON = false
	useSM4E = false
)

func init() {
	impl.Register("sm4", "neon", &useNEON)
	impl.Register("sm4", "sm4e", &useSM4E)
}

type archKeys struct{}

func (*archKeys) init(enc, dec *[rounds]uint32) {}

func encryptBlock(b *Block, dst, src []byte) { cryptBlockGeneric(&b.enc, dst, src) }
func decryptBlock(b *Block, dst, src []byte) { cryptBlockGeneric(&b.dec, dst, src) }

func cryptBlocks(b *Block, decrypt bool, dst, src []byte) {
	if decrypt {
		cryptBlocksGeneric(&b.dec, dst, src)
		return
	}
	cryptBlocksGeneric(&b.enc, dst, src)
}

func ctrBlocks(b *Block, dst, src []byte, ctr *[2]uint64)   { ctrBlocksGeneric(b, dst, src, ctr) }
func ctr32Blocks(b *Block, dst, src []byte, ctr *[2]uint64) { ctr32BlocksGeneric(b, dst, src, ctr) }

func cbcDecryptBlocks(b *Block, iv *[16]byte, dst, src []byte) { cbcDecryptGeneric(b, iv, dst, src) }
func cbcEncryptBlocks(b *Block, iv *[16]byte, dst, src []byte) { cbcEncryptGeneric(b, iv, dst, src) }
func cbcMACBlocks(b *Block, x *[16]byte, src []byte)           { cbcMACGeneric(b, x, src) }

func ghashUpdate(g *gcm, y *[16]byte, data []byte) { ghashUpdateGeneric(&g.h, y, data) }

func gcmSealBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int { return 0 }
func gcmOpenBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int { return 0 }

func xtsBulk(x *XTS, dst, src []byte, t *xtsTweak, encrypt bool) int { return 0 }

func cbcEncryptMulti(b *Block, ivs, dst, src [][]byte) { cbcEncryptMultiGeneric(b, ivs, dst, src) }
