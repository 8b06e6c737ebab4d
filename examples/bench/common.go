// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"hash"
	"testing"
)

// Common benchmark shapes shared by the groups: every implementation of a
// row goes through the same helper so that the loops differ only in the
// primitive called.

const kib = 1024

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// hashBench hashes size bytes per op with a reused hash.Hash (Reset, Write,
// Sum into a reused buffer), the steady state of a long-lived hasher.
func hashBench(newHash func() hash.Hash, size int) setupFunc {
	return func() (benchFunc, error) {
		h := newHash()
		msg := randBytes(size)
		sum := make([]byte, 0, h.Size())
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h.Reset()
				h.Write(msg)
				sum = h.Sum(sum[:0])
			}
		}, nil
	}
}

// kdfBench derives outLen bytes from a 64-byte shared value (the x2||y2 of
// SM2 encryption) per op.
func kdfBench(kdf func(z []byte, n int) []byte, outLen int) setupFunc {
	return func() (benchFunc, error) {
		z := randBytes(64)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_ = kdf(z, outLen)
			}
		}, nil
	}
}

// x963KDF is ANSI X9.63's KDF without shared info: the same counter-mode
// construction as the SM2 KDF, over another hash; the standard library has
// no exported one.
func x963KDF(newHash func() hash.Hash) func(z []byte, n int) []byte {
	return func(z []byte, n int) []byte {
		h := newHash()
		out := make([]byte, 0, n+h.Size())
		var ctr [4]byte
		for i := uint32(1); len(out) < n; i++ {
			binary.BigEndian.PutUint32(ctr[:], i)
			h.Reset()
			h.Write(z)
			h.Write(ctr[:])
			out = h.Sum(out)
		}
		return out[:n]
	}
}

type blockCtor func(key []byte) (cipher.Block, error)

// cbcBench encrypts or decrypts size bytes in place per op with a BlockMode
// made once; the IV chains on from op to op, as in a stream of records.
func cbcBench(newBlock blockCtor, keyLen, size int, decrypt bool) setupFunc {
	return func() (benchFunc, error) {
		blk, err := newBlock(randBytes(keyLen))
		if err != nil {
			return nil, err
		}
		iv := randBytes(blk.BlockSize())
		var bm cipher.BlockMode
		if decrypt {
			bm = cipher.NewCBCDecrypter(blk, iv)
		} else {
			bm = cipher.NewCBCEncrypter(blk, iv)
		}
		buf := randBytes(size)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				bm.CryptBlocks(buf, buf)
			}
		}, nil
	}
}

func ctrBench(newBlock blockCtor, keyLen, size int) setupFunc {
	return func() (benchFunc, error) {
		blk, err := newBlock(randBytes(keyLen))
		if err != nil {
			return nil, err
		}
		s := cipher.NewCTR(blk, randBytes(blk.BlockSize()))
		buf := randBytes(size)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s.XORKeyStream(buf, buf)
			}
		}, nil
	}
}

// gcmBench seals (or opens a pre-sealed message) of size bytes with 13 bytes
// of additional data, the TLS 1.2 record shape.
func gcmBench(newBlock blockCtor, keyLen, size int, open bool) setupFunc {
	return func() (benchFunc, error) {
		blk, err := newBlock(randBytes(keyLen))
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(blk)
		if err != nil {
			return nil, err
		}
		return aeadBench(aead, size, open), nil
	}
}

func aeadBench(aead cipher.AEAD, size int, open bool) benchFunc {
	nonce := randBytes(aead.NonceSize())
	ad := randBytes(13)
	msg := randBytes(size)
	out := make([]byte, 0, size+aead.Overhead())
	if !open {
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out = aead.Seal(out[:0], nonce, msg, ad)
			}
		}
	}
	ct := aead.Seal(nil, nonce, msg, ad)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var err error
			out, err = aead.Open(out[:0], nonce, ct, ad)
			if err != nil {
				fail(b, err)
			}
		}
	}
}

// streamBench XORs size bytes in place per op through a stream made once.
func streamBench(newStream func() (cipher.Stream, error), size int) setupFunc {
	return func() (benchFunc, error) {
		s, err := newStream()
		if err != nil {
			return nil, err
		}
		buf := randBytes(size)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s.XORKeyStream(buf, buf)
			}
		}, nil
	}
}
