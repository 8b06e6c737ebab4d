// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"

	"github.com/shangmi-go/shangmi/internal/alias"
)

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
	if alias.InexactOverlap(dst[:len(src)], src) {
		panic("crypto/cipher: invalid buffer overlap")
	}
	// Encryption is inherently serial: the single-block kernel runs the
	// whole chain without leaving assembly.
	cbcEncryptBlocks(x.b, &x.iv, dst, src)
}

func (x *cbcDecrypter) CryptBlocks(dst, src []byte) {
	if len(src)%BlockSize != 0 {
		panic("crypto/cipher: input not full blocks")
	}
	if len(dst) < len(src) {
		panic("crypto/cipher: output smaller than input")
	}
	if alias.InexactOverlap(dst[:len(src)], src) {
		panic("crypto/cipher: invalid buffer overlap")
	}
	// Every block decrypts independently; the bulk kernel reads each
	// group's ciphertext before it writes the plaintext, so in-place use
	// works.
	cbcDecryptBlocks(x.b, &x.iv, dst, src)
}
