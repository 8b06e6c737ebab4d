// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build purego || !(amd64 || arm64)

package sm4

// The dispatch point without assembly: everything is the portable Go.

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

// ghashTable prepares the table of the carry-less GHASH kernels.
func ghashTable(g *gcm, t *[16][16]byte) { g.portable().table(t) }

// ghashPortable reports whether the portable GHASH key is needed: always.
func ghashPortable() bool { return true }

func ghashUpdate(g *gcm, y *[16]byte, data []byte) { ghashUpdateGeneric(g.portable(), y, data) }

func gcmSealBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int { return 0 }
func gcmOpenBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int { return 0 }

func xtsBulk(x *XTS, dst, src []byte, t *xtsTweak, encrypt bool) int { return 0 }

func cbcEncryptMulti(b *Block, ivs, dst, src [][]byte) { cbcEncryptMultiGeneric(b, ivs, dst, src) }

func expandKeyArch(key []byte, enc, dec *[rounds]uint32) bool { return false }

// kernelSelected reports whether a constant-time kernel is switched on, so
// that the table-based code must not run (checkTables).
func kernelSelected() bool { return false }
