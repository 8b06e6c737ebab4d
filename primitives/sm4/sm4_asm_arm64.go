// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm4

import (
	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// This file is the single dispatch point for SM4 on arm64: a plain
// if-ladder over the flags, best kernel first; the flags are read from the
// CPU once, and tests switch them with impl.Select (the kernels are
// declared in sm4_arm64.go, generated with sm4_arm64.s by
// _asm/arm64; none of them branches on or indexes memory with data or
// keys). "sm4e" uses the ARMv8.2 SM4E and SM4EKEY instructions, "neon"
// evaluates the S-box with AESE and nibble tables, in the rounds and in the
// key schedule; both hash with PMULL. The modes without a kernel of their
// own (CTR, CBC decryption, XTS, GCM's counter mode) run the portable loops
// of modes_generic.go over the bulk kernel.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, so every
// stack buffer the modes pass in would be moved to the heap.
// groupNEON is the block group of ecbNEON in bytes.
const groupNEON = 64

var (
	useNEON = cpu.ARM64.HasAES && cpu.ARM64.HasPMULL
	useSM4E = cpu.ARM64.HasSM4 && cpu.ARM64.HasPMULL
)

func init() {
	impl.Register("sm4", "neon", &useNEON)
	impl.Register("sm4", "sm4e", &useSM4E)
}

type archKeys struct{}

func (*archKeys) init(enc, dec *[rounds]uint32) {}

// expandKeyArch computes the round keys with SM4EKEY where the CPU has it,
// otherwise with the NEON kernel's S-box, so that on any CPU with a
// constant-time block kernel the key schedule indexes no table with key
// bytes either; it reports whether it did.
func expandKeyArch(key []byte, enc, dec *[rounds]uint32) bool {
	switch {
	case useSM4E:
		expandKeySM4E((*[16]byte)(key), enc)
	case useNEON:
		expandKeyNEON((*[16]byte)(key), enc)
	default:
		return false
	}
	for i := range enc {
		dec[rounds-1-i] = enc[i]
	}
	return true
}

func encryptBlock(b *Block, dst, src []byte) { oneBlock(b, &b.enc, dst, src) }
func decryptBlock(b *Block, dst, src []byte) { oneBlock(b, &b.dec, dst, src) }

func oneBlock(b *Block, rk *[rounds]uint32, dst, src []byte) {
	switch {
	case useSM4E:
		encryptBlockSM4E(rk, (*[16]byte)(dst), (*[16]byte)(src))
	case useNEON:
		var buf [groupNEON]byte
		copy(buf[:], src[:BlockSize])
		ecbNEON(rk, buf[:], buf[:])
		copy(dst, buf[:BlockSize])
	default:
		cryptBlockGeneric(rk, dst, src)
	}
}

// cryptBlocks encrypts (or decrypts) len(src)/BlockSize whole blocks
// independently (ECB).
func cryptBlocks(b *Block, decrypt bool, dst, src []byte) {
	rk := &b.enc
	if decrypt {
		rk = &b.dec
	}
	n := len(src) &^ (BlockSize - 1)
	src, dst = src[:n], dst[:n]
	switch {
	case useSM4E:
		ecbSM4E(rk, dst, src)
	case useNEON:
		full := n &^ (groupNEON - 1)
		ecbNEON(rk, dst, src)
		if full < n {
			var buf [groupNEON]byte
			copy(buf[:], src[full:])
			ecbNEON(rk, buf[:], buf[:])
			copy(dst[full:], buf[:])
		}
	default:
		cryptBlocksGeneric(rk, dst, src)
	}
}

func ctrBlocks(b *Block, dst, src []byte, ctr *[2]uint64)   { ctrBlocksGeneric(b, dst, src, ctr) }
func ctr32Blocks(b *Block, dst, src []byte, ctr *[2]uint64) { ctr32BlocksGeneric(b, dst, src, ctr) }

func cbcDecryptBlocks(b *Block, iv *[16]byte, dst, src []byte) { cbcDecryptGeneric(b, iv, dst, src) }

// cbcEncryptBlocks encrypts len(src)/16 whole blocks in CBC mode, chaining
// from iv, and sets iv to the last ciphertext block.
func cbcEncryptBlocks(b *Block, iv *[16]byte, dst, src []byte) {
	switch {
	case useSM4E:
		cbcEncSM4E(&b.enc, iv, dst, src)
	case useNEON:
		// One block at a time through the bulk kernel: slower than the
		// table code, but without its secret-dependent loads.
		var buf [groupNEON]byte
		for i := 0; i+BlockSize <= len(src); i += BlockSize {
			for j := range BlockSize {
				buf[j] = src[i+j] ^ iv[j]
			}
			ecbNEON(&b.enc, buf[:], buf[:])
			copy(iv[:], buf[:BlockSize])
			copy(dst[i:], buf[:BlockSize])
		}
	default:
		cbcEncryptGeneric(b, iv, dst, src)
	}
}

// cbcMACBlocks sets x = E(x ⊕ p) for each whole block p of src in turn.
func cbcMACBlocks(b *Block, x *[16]byte, src []byte) {
	switch {
	case useSM4E:
		cbcMACSM4E(&b.enc, x, src)
	case useNEON:
		var buf [groupNEON]byte
		for i := 0; i+BlockSize <= len(src); i += BlockSize {
			for j := range BlockSize {
				buf[j] = src[i+j] ^ x[j]
			}
			ecbNEON(&b.enc, buf[:], buf[:])
			copy(x[:], buf[:BlockSize])
		}
	default:
		cbcMACGeneric(b, x, src)
	}
}

// ghashUpdate absorbs data into the GHASH state y, zero-padding a final
// partial block.
// ghashTable prepares the table of the carry-less GHASH kernels.
func ghashTable(g *gcm, t *[16][16]byte) { g.portable().table(t) }

// ghashPortable reports whether the portable GHASH key is needed: always
// here, since the table is built with it.
func ghashPortable() bool { return true }

func ghashUpdate(g *gcm, y *[16]byte, data []byte) {
	if !useNEON && !useSM4E {
		ghashUpdateGeneric(g.portable(), y, data)
		return
	}
	n := len(data) &^ (BlockSize - 1)
	if n >= tableMinLen {
		g.fullTable()
	}
	ghashPMULL(&g.htab, y, data[:n])
	if n < len(data) {
		var last [BlockSize]byte
		copy(last[:], data[n:])
		ghashPMULL(&g.htab, y, last[:])
	}
}

func gcmSealBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int { return 0 }
func gcmOpenBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int { return 0 }

func xtsBulk(x *XTS, dst, src []byte, t *xtsTweak, encrypt bool) int { return 0 }

func cbcEncryptMulti(b *Block, ivs, dst, src [][]byte) { cbcEncryptMultiGeneric(b, ivs, dst, src) }

// kernelSelected reports whether a constant-time kernel is switched on, so
// that the table-based code must not run (checkTables).
func kernelSelected() bool { return useNEON || useSM4E }
