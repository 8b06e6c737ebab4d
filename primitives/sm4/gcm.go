// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
)

const (
	gcmStandardNonceSize = 12
	gcmTagSize           = 16
	gcmMinimumTagSize    = 12
	// gcmChunk is how many bytes are encrypted and hashed per step, so the
	// keystream buffer stays on the stack and the data stays in cache
	// between the cipher and GHASH passes.
	gcmChunk = 16 * BlockSize
	// gcmMaxPlaintext is the SP 800-38D limit of 2³² − 2 blocks.
	gcmMaxPlaintext = (1<<32 - 2) * BlockSize
)

var errOpen = errors.New("cipher: message authentication failed")

type gcm struct {
	b         *Block
	nonceSize int
	tagSize   int
	h         ghashKey
}

// NewGCM returns b in Galois/Counter Mode with the given nonce and tag
// sizes. cipher.NewGCM, cipher.NewGCMWithNonceSize and
// cipher.NewGCMWithTagSize call it, so users should call those instead.
// Tags of 12 to 16 bytes and any non-zero nonce size are accepted.
func (b *Block) NewGCM(nonceSize, tagSize int) (cipher.AEAD, error) {
	if tagSize < gcmMinimumTagSize || tagSize > gcmTagSize {
		return nil, errors.New("cipher: incorrect tag size given to GCM")
	}
	if nonceSize <= 0 {
		return nil, errors.New("cipher: the nonce can't have zero length")
	}
	g := &gcm{b: b, nonceSize: nonceSize, tagSize: tagSize}
	var h [BlockSize]byte
	encryptBlock(b, h[:], h[:])
	g.h = newGHASHKey(&h)
	return g, nil
}

func (g *gcm) NonceSize() int { return g.nonceSize }
func (g *gcm) Overhead() int  { return g.tagSize }

// counter0 derives the pre-counter block J0 from the nonce.
func (g *gcm) counter0(j0 *[BlockSize]byte, nonce []byte) {
	if len(nonce) == gcmStandardNonceSize {
		copy(j0[:], nonce)
		j0[BlockSize-1] = 1
		return
	}
	var y ghashState
	y.update(&g.h, nonce)
	y.updateLengths(&g.h, 0, len(nonce))
	y.bytes(j0)
}

// ctr32 encrypts or decrypts src into dst with counter blocks that start at
// ctr and increment the last 32 bits only, as GCM specifies.
func (g *gcm) ctr32(dst, src []byte, ctr *[2]uint64) {
	n := len(src) &^ (BlockSize - 1)
	ctr32Blocks(g.b, dst[:n], src[:n], ctr)
	if n < len(src) {
		var ks [BlockSize]byte
		ctr32Blocks(g.b, ks[:], ks[:], ctr)
		subtle.XORBytes(dst[n:], src[n:], ks[:])
	}
}

func (g *gcm) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != g.nonceSize {
		panic("crypto/cipher: incorrect nonce length given to GCM")
	}
	if uint64(len(plaintext)) > gcmMaxPlaintext {
		panic("crypto/cipher: message too large for GCM")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+g.tagSize)
	if inexactOverlap(out, plaintext) {
		panic("crypto/cipher: invalid buffer overlap of output and input")
	}
	if anyOverlap(out, additionalData) {
		panic("crypto/cipher: invalid buffer overlap of output and additional data")
	}

	var j0, tagMask [BlockSize]byte
	g.counter0(&j0, nonce)
	encryptBlock(g.b, tagMask[:], j0[:])
	ctr := [2]uint64{binary.BigEndian.Uint64(j0[0:]), binary.BigEndian.Uint64(j0[8:])}
	ctr[1] = ctr[1]&^0xffffffff | uint64(uint32(ctr[1])+1)

	var y ghashState
	y.update(&g.h, additionalData)
	ct := out[:len(plaintext)]
	for src, d := plaintext, ct; len(src) > 0; {
		n := min(len(src), gcmChunk)
		g.ctr32(d[:n], src[:n], &ctr)
		y.update(&g.h, d[:n])
		src, d = src[n:], d[n:]
	}
	y.updateLengths(&g.h, len(additionalData), len(plaintext))

	var tag [BlockSize]byte
	y.bytes(&tag)
	subtle.XORBytes(tag[:], tag[:], tagMask[:])
	copy(out[len(plaintext):], tag[:g.tagSize])
	return ret
}

func (g *gcm) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	if len(nonce) != g.nonceSize {
		panic("crypto/cipher: incorrect nonce length given to GCM")
	}
	if len(ciphertext) < g.tagSize {
		return nil, errOpen
	}
	if uint64(len(ciphertext)) > gcmMaxPlaintext+uint64(g.tagSize) {
		return nil, errOpen
	}
	tag := ciphertext[len(ciphertext)-g.tagSize:]
	ciphertext = ciphertext[:len(ciphertext)-g.tagSize]

	ret, out := sliceForAppend(dst, len(ciphertext))
	if inexactOverlap(out, ciphertext) {
		panic("crypto/cipher: invalid buffer overlap of output and input")
	}
	if anyOverlap(out, additionalData) {
		panic("crypto/cipher: invalid buffer overlap of output and additional data")
	}

	var j0, tagMask [BlockSize]byte
	g.counter0(&j0, nonce)
	encryptBlock(g.b, tagMask[:], j0[:])
	ctr := [2]uint64{binary.BigEndian.Uint64(j0[0:]), binary.BigEndian.Uint64(j0[8:])}
	ctr[1] = ctr[1]&^0xffffffff | uint64(uint32(ctr[1])+1)

	// Each chunk is hashed before it is decrypted, so this also works in
	// place. The plaintext is wiped below if the tag turns out wrong.
	var y ghashState
	y.update(&g.h, additionalData)
	for src, d := ciphertext, out; len(src) > 0; {
		n := min(len(src), gcmChunk)
		y.update(&g.h, src[:n])
		g.ctr32(d[:n], src[:n], &ctr)
		src, d = src[n:], d[n:]
	}
	y.updateLengths(&g.h, len(additionalData), len(ciphertext))

	var want [BlockSize]byte
	y.bytes(&want)
	subtle.XORBytes(want[:], want[:], tagMask[:])
	if subtle.ConstantTimeCompare(want[:g.tagSize], tag) != 1 {
		clear(out)
		return nil, errOpen
	}
	return ret, nil
}
