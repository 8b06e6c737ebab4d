// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
)

// cbcChunk is how many bytes CBC decryption hands to the block kernel at once.
const cbcChunk = 8 * BlockSize

type cbcEncrypter struct {
	b  *Block
	iv [BlockSize]byte
}

type cbcDecrypter struct {
	b  *Block
	iv [BlockSize]byte
}

// NewCBCEncrypter returns a CBC encrypter for b. cipher.NewCBCEncrypter
// calls it, so users should call that instead.
func (b *Block) NewCBCEncrypter(iv []byte) cipher.BlockMode {
	if len(iv) != BlockSize {
		panic("cipher.NewCBCEncrypter: IV length must equal block size")
	}
	c := &cbcEncrypter{b: b}
	copy(c.iv[:], iv)
	return c
}

// NewCBCDecrypter returns a CBC decrypter for b. cipher.NewCBCDecrypter
// calls it, so users should call that instead.
func (b *Block) NewCBCDecrypter(iv []byte) cipher.BlockMode {
	if len(iv) != BlockSize {
		panic("cipher.NewCBCDecrypter: IV length must equal block size")
	}
	c := &cbcDecrypter{b: b}
	copy(c.iv[:], iv)
	return c
}

func (x *cbcEncrypter) BlockSize() int { return BlockSize }
func (x *cbcDecrypter) BlockSize() int { return BlockSize }

// SetIV resets the chaining value, as crypto/cipher's own CBC modes allow.
func (x *cbcEncrypter) SetIV(iv []byte) {
	if len(iv) != BlockSize {
		panic("cipher: incorrect length IV")
	}
	copy(x.iv[:], iv)
}

// SetIV resets the chaining value, as crypto/cipher's own CBC modes allow.
func (x *cbcDecrypter) SetIV(iv []byte) {
	if len(iv) != BlockSize {
		panic("cipher: incorrect length IV")
	}
	copy(x.iv[:], iv)
}

func (x *cbcEncrypter) CryptBlocks(dst, src []byte) {
	if len(src)%BlockSize != 0 {
		panic("crypto/cipher: input not full blocks")
	}
	if len(dst) < len(src) {
		panic("crypto/cipher: output smaller than input")
	}
	if inexactOverlap(dst[:len(src)], src) {
		panic("crypto/cipher: invalid buffer overlap")
	}
	// Encryption is inherently serial. The chaining value stays in
	// registers as four words instead of going through memory per block.
	iv := &x.iv
	c0 := binary.BigEndian.Uint32(iv[0:])
	c1 := binary.BigEndian.Uint32(iv[4:])
	c2 := binary.BigEndian.Uint32(iv[8:])
	c3 := binary.BigEndian.Uint32(iv[12:])
	rk := &x.b.enc
	for len(src) >= BlockSize {
		var blk [BlockSize]byte
		binary.BigEndian.PutUint32(blk[0:], c0^binary.BigEndian.Uint32(src[0:]))
		binary.BigEndian.PutUint32(blk[4:], c1^binary.BigEndian.Uint32(src[4:]))
		binary.BigEndian.PutUint32(blk[8:], c2^binary.BigEndian.Uint32(src[8:]))
		binary.BigEndian.PutUint32(blk[12:], c3^binary.BigEndian.Uint32(src[12:]))
		cryptBlock(rk, dst, blk[:])
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

func (x *cbcDecrypter) CryptBlocks(dst, src []byte) {
	if len(src)%BlockSize != 0 {
		panic("crypto/cipher: input not full blocks")
	}
	if len(dst) < len(src) {
		panic("crypto/cipher: output smaller than input")
	}
	if inexactOverlap(dst[:len(src)], src) {
		panic("crypto/cipher: invalid buffer overlap")
	}
	// Decryption of every block is independent, so a chunk goes through
	// the block kernel at once. All reads of a chunk's ciphertext happen
	// before its plaintext is written, which keeps in-place use correct.
	var buf [cbcChunk]byte
	for len(src) > 0 {
		n := min(len(src), cbcChunk)
		out := buf[:n]
		cryptBlocks(&x.b.dec, out, src[:n])
		subtle.XORBytes(out[:BlockSize], out[:BlockSize], x.iv[:])
		subtle.XORBytes(out[BlockSize:], out[BlockSize:], src[:n-BlockSize])
		copy(x.iv[:], src[n-BlockSize:n])
		copy(dst, out)
		src, dst = src[n:], dst[n:]
	}
}
