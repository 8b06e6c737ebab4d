// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"crypto/subtle"

	"github.com/shangmi-go/shangmi/internal/alias"
)

// MaxCBCLanes is the largest number of messages [CBCEncryptMulti] takes at
// once.
const MaxCBCLanes = 16

// CBCEncryptMulti encrypts up to [MaxCBCLanes] independent messages in CBC
// mode at once: for every lane i it does what
//
//	cipher.NewCBCEncrypter(b, ivs[i]).CryptBlocks(dst[i], src[i])
//
// does, with the same result. CBC encryption of one message is serial (each
// block needs the previous ciphertext), so a single chain leaves the vector
// units mostly idle; independent messages, such as the records of one large
// TLCP write, each with its own explicit IV, can share them. With an SM4
// block from [NewCipher] the lanes advance together, one block each per
// pass of the bulk kernel, and a pass costs about as much as one block of a
// single chain: sixteen lanes go up to sixteen times as fast as one.
//
// The contract, checked on every call; a violation panics, as
// crypto/cipher's BlockMode does:
//
//   - ivs, dst and src have the same length, at most MaxCBCLanes;
//   - every ivs[i] is [BlockSize] bytes long, every src[i] a whole number of
//     blocks (zero is allowed; lanes may differ in length), and every dst[i]
//     at least as long as src[i];
//   - dst[i] may be src[i] (in place), but no other two of the buffers may
//     overlap, within a lane or across lanes.
//
// The IVs are read, not updated: a chain that goes on continues from the
// last block of dst[i]. Lanes of different lengths cost what the longest
// one costs; a batch of one lane runs the single-chain kernel that
// cipher.NewCBCEncrypter uses, so it is not slower. CBCEncryptMulti does
// not allocate when b is from NewCipher; any other [cipher.Block] is
// encrypted lane after lane through cipher.NewCBCEncrypter.
func CBCEncryptMulti(b cipher.Block, ivs, dst, src [][]byte) {
	if len(ivs) != len(src) || len(dst) != len(src) {
		panic("sm4: CBCEncryptMulti needs as many IVs and destinations as sources")
	}
	if len(src) > MaxCBCLanes {
		panic("sm4: CBCEncryptMulti takes at most 16 lanes")
	}
	if b.BlockSize() != BlockSize {
		panic("sm4: CBCEncryptMulti requires a 128-bit block cipher")
	}
	for i := range src {
		if len(ivs[i]) != BlockSize {
			panic("cipher.NewCBCEncrypter: IV length must equal block size")
		}
		if len(src[i])%BlockSize != 0 {
			panic("crypto/cipher: input not full blocks")
		}
		if len(dst[i]) < len(src[i]) {
			panic("crypto/cipher: output smaller than input")
		}
		di := dst[i][:len(src[i])]
		if alias.InexactOverlap(di, src[i]) {
			panic("crypto/cipher: invalid buffer overlap")
		}
		for j := range i {
			dj := dst[j][:len(src[j])]
			if alias.AnyOverlap(di, dj) || alias.AnyOverlap(di, src[j]) || alias.AnyOverlap(dj, src[i]) {
				panic("sm4: CBCEncryptMulti lanes overlap")
			}
		}
	}
	sb, ok := b.(*Block)
	if !ok {
		for i := range src {
			cipher.NewCBCEncrypter(b, ivs[i]).CryptBlocks(dst[i], src[i])
		}
		return
	}
	active, last := 0, 0
	for i := range src {
		if len(src[i]) > 0 {
			active++
			last = i
		}
	}
	switch active {
	case 0:
		return
	case 1:
		iv := [BlockSize]byte(ivs[last])
		cbcEncryptBlocks(sb, &iv, dst[last], src[last])
		return
	}
	cbcEncryptMulti(sb, ivs, dst, src)
}

// cbcEncryptMultiGeneric runs the chains through the bulk block function,
// one block of every lane with data left per call: the lanes are gathered
// into a buffer, XORed with their chaining values, encrypted together and
// scattered back.
func cbcEncryptMultiGeneric(b *Block, ivs, dst, src [][]byte) {
	var chain [MaxCBCLanes][BlockSize]byte
	var buf [MaxCBCLanes * BlockSize]byte
	var lane [MaxCBCLanes]int
	for i := range src {
		copy(chain[i][:], ivs[i])
	}
	for off := 0; ; off += BlockSize {
		k := 0
		for i := range src {
			if off < len(src[i]) {
				subtle.XORBytes(buf[k*BlockSize:(k+1)*BlockSize], src[i][off:off+BlockSize], chain[i][:])
				lane[k] = i
				k++
			}
		}
		if k == 0 {
			return
		}
		cryptBlocks(b, false, buf[:k*BlockSize], buf[:k*BlockSize])
		for j := range k {
			i := lane[j]
			c := buf[j*BlockSize : (j+1)*BlockSize]
			copy(dst[i][off:], c)
			copy(chain[i][:], c)
		}
	}
}
