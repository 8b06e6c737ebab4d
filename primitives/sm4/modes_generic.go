// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/subtle"
	"encoding/binary"
)

// The portable block loops of the modes. The dispatch files call them when
// no kernel applies (and the amd64 one for CTR counters that wrap in their
// low 64 bits); they reach the cipher through cryptBlocks and
// cryptBlockGeneric.

// genericChunk is how many bytes the portable loops handle per step, so the
// scratch buffer stays on the stack.
const genericChunk = 16 * BlockSize

func ctrBlocksGeneric(b *Block, dst, src []byte, ctr *[2]uint64) {
	var buf [genericChunk]byte
	hi, lo := ctr[0], ctr[1]
	for len(src) >= BlockSize {
		n := min(len(src)&^(BlockSize-1), genericChunk)
		for i := 0; i < n; i += BlockSize {
			binary.BigEndian.PutUint64(buf[i:], hi)
			binary.BigEndian.PutUint64(buf[i+8:], lo)
			lo++
			if lo == 0 {
				hi++
			}
		}
		cryptBlocks(b, false, buf[:n], buf[:n])
		subtle.XORBytes(dst[:n], src[:n], buf[:n])
		dst, src = dst[n:], src[n:]
	}
	ctr[0], ctr[1] = hi, lo
}

func ctr32BlocksGeneric(b *Block, dst, src []byte, ctr *[2]uint64) {
	var buf [genericChunk]byte
	hi, lo := ctr[0], ctr[1]
	for len(src) >= BlockSize {
		n := min(len(src)&^(BlockSize-1), genericChunk)
		for i := 0; i < n; i += BlockSize {
			binary.BigEndian.PutUint64(buf[i:], hi)
			binary.BigEndian.PutUint64(buf[i+8:], lo)
			lo = lo&^0xffffffff | uint64(uint32(lo)+1)
		}
		cryptBlocks(b, false, buf[:n], buf[:n])
		subtle.XORBytes(dst[:n], src[:n], buf[:n])
		dst, src = dst[n:], src[n:]
	}
	ctr[1] = lo
}

// cbcDecryptGeneric decrypts a chunk at a time. All reads of a chunk's
// ciphertext happen before its plaintext is written, which keeps in-place
// use correct.
func cbcDecryptGeneric(b *Block, iv *[16]byte, dst, src []byte) {
	var buf [genericChunk]byte
	for len(src) >= BlockSize {
		n := min(len(src)&^(BlockSize-1), genericChunk)
		out := buf[:n]
		cryptBlocks(b, true, out, src[:n])
		subtle.XORBytes(out[:BlockSize], out[:BlockSize], iv[:])
		subtle.XORBytes(out[BlockSize:], out[BlockSize:], src[:n-BlockSize])
		copy(iv[:], src[n-BlockSize:n])
		copy(dst, out)
		src, dst = src[n:], dst[n:]
	}
}

// cbcEncryptGeneric keeps the chaining value in registers as four words
// instead of going through memory per block.
func cbcEncryptGeneric(b *Block, iv *[16]byte, dst, src []byte) {
	c0 := binary.BigEndian.Uint32(iv[0:])
	c1 := binary.BigEndian.Uint32(iv[4:])
	c2 := binary.BigEndian.Uint32(iv[8:])
	c3 := binary.BigEndian.Uint32(iv[12:])
	rk := &b.enc
	for len(src) >= BlockSize {
		var blk [BlockSize]byte
		binary.BigEndian.PutUint32(blk[0:], c0^binary.BigEndian.Uint32(src[0:]))
		binary.BigEndian.PutUint32(blk[4:], c1^binary.BigEndian.Uint32(src[4:]))
		binary.BigEndian.PutUint32(blk[8:], c2^binary.BigEndian.Uint32(src[8:]))
		binary.BigEndian.PutUint32(blk[12:], c3^binary.BigEndian.Uint32(src[12:]))
		cryptBlockGeneric(rk, dst, blk[:])
		c0 = binary.BigEndian.Uint32(dst[0:])
		c1 = binary.BigEndian.Uint32(dst[4:])
		c2 = binary.BigEndian.Uint32(dst[8:])
		c3 = binary.BigEndian.Uint32(dst[12:])
		src, dst = src[BlockSize:], dst[BlockSize:]
	}
	binary.BigEndian.PutUint32(iv[0:], c0)
	binary.BigEndian.PutUint32(iv[4:], c1)
	binary.BigEndian.PutUint32(iv[8:], c2)
	binary.BigEndian.PutUint32(iv[12:], c3)
}

func cbcMACGeneric(b *Block, x *[16]byte, src []byte) {
	for len(src) >= BlockSize {
		subtle.XORBytes(x[:], x[:], src[:BlockSize])
		cryptBlockGeneric(&b.enc, x[:], x[:])
		src = src[BlockSize:]
	}
}
