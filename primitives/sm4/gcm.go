// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/shangmi-go/shangmi/internal/alias"
)

const (
	gcmStandardNonceSize = 12
	gcmTagSize           = 16
	gcmMinimumTagSize    = 12
	// gcmChunk is how many bytes are encrypted and then hashed per step
	// where the two are separate kernels, so that the data stays in cache
	// between the passes.
	gcmChunk = 4096
	// gcmShort is the longest message sealed or opened with one call to
	// the block kernel (see gcm.short): a group of 16 blocks less E(J0).
	gcmShort = 15 * BlockSize
	// gcmMaxPlaintext is the SP 800-38D limit of 2³² − 2 blocks.
	gcmMaxPlaintext = (1<<32 - 2) * BlockSize
)

var errOpen = errors.New("cipher: message authentication failed")

type gcm struct {
	b         *Block
	nonceSize int
	tagSize   int
	hs        ghashState // the hash key H
	// h is H prepared for the portable GHASH, made at once where that is
	// used (see ghashPortable) and otherwise only if it ever is (tests
	// switch kernels under a GCM): 784 bytes that a TLS or TLCP handshake
	// would allocate four times for nothing.
	h atomic.Pointer[ghashKey]

	// htab holds H¹⁶…H¹ for the carry-less kernels (see ghashTable). A
	// message shorter than eight blocks reads only H¹, so the rest is
	// computed by the first longer GHASH (fullTable): a handshake's
	// short records never pay for it. tableDone publishes it.
	htab      [16][16]byte
	tableMu   sync.Mutex
	tableDone atomic.Bool
}

// initHashKey sets the hash key H = E(0) and what the GHASH code needs of
// it right away: the portable form where it is used, and H¹ in the table.
func (g *gcm) initHashKey() {
	var h [BlockSize]byte
	encryptBlock(g.b, h[:], h[:])
	g.hs = ghashState{binary.BigEndian.Uint64(h[0:]), binary.BigEndian.Uint64(h[8:])}
	if ghashPortable() {
		k := new(ghashKey)
		k.set(&h)
		g.h.Store(k)
	}
	clear(h[:])
	g.hs.putTableEntry(&g.htab[15])
}

// portable returns the portable GHASH key, making it if need be.
func (g *gcm) portable() *ghashKey {
	if k := g.h.Load(); k != nil {
		return k
	}
	var h [BlockSize]byte
	g.hs.bytes(&h)
	k := new(ghashKey)
	k.set(&h)
	clear(h[:])
	// Racing makers compute the same key; either may win.
	g.h.CompareAndSwap(nil, k)
	return g.h.Load()
}

// fullTable completes htab before a kernel reads more than H¹ of it, once
// per key; a GCM may be used from several goroutines.
func (g *gcm) fullTable() {
	if g.tableDone.Load() {
		return
	}
	g.tableMu.Lock()
	if !g.tableDone.Load() {
		ghashTable(g, &g.htab)
		g.tableDone.Store(true)
	}
	g.tableMu.Unlock()
}

// tableMinLen is the shortest GHASH input for which the kernels read more
// of the table than H¹: they aggregate eight blocks per reduction (and the
// fused GCM kernels whole groups), then go one block at a time with H¹.
const tableMinLen = 8 * BlockSize

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
	g.initHashKey()
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
	*j0 = [BlockSize]byte{}
	ghashUpdate(g, j0, nonce)
	var lens [BlockSize]byte
	binary.BigEndian.PutUint64(lens[8:], uint64(len(nonce))*8)
	ghashUpdate(g, j0, lens[:])
}

// start derives J0, the tag mask E(J0) and the first counter block J0+1
// (as two big-endian halves).
func (g *gcm) start(nonce []byte, tagMask *[BlockSize]byte) (ctr [2]uint64) {
	var j0 [BlockSize]byte
	g.counter0(&j0, nonce)
	encryptBlock(g.b, tagMask[:], j0[:])
	ctr = [2]uint64{binary.BigEndian.Uint64(j0[0:]), binary.BigEndian.Uint64(j0[8:])}
	ctr[1] = ctr[1]&^0xffffffff | uint64(uint32(ctr[1])+1)
	return ctr
}

// short encrypts or decrypts a message of at most gcmShort bytes and
// computes the tag mask in the same call to the block kernel: the counter
// blocks J0, J0+1, … encrypt a zero block (giving E(J0)) followed by the
// message. A short message is bound by the latency of one group of blocks,
// so this halves its cost against a separate E(J0).
func (g *gcm) short(dst, src, nonce []byte, tagMask *[BlockSize]byte) {
	var j0 [BlockSize]byte
	g.counter0(&j0, nonce)
	ctr := [2]uint64{binary.BigEndian.Uint64(j0[0:]), binary.BigEndian.Uint64(j0[8:])}
	var buf [BlockSize + gcmShort]byte
	copy(buf[BlockSize:], src)
	n := (BlockSize + len(src) + BlockSize - 1) &^ (BlockSize - 1)
	ctr32Blocks(g.b, buf[:n], buf[:n], &ctr)
	copy(tagMask[:], buf[:BlockSize])
	copy(dst, buf[BlockSize:BlockSize+len(src)])
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

// finish absorbs the lengths block and returns the tag in y.
func (g *gcm) finish(y, tagMask *[BlockSize]byte, adLen, ctLen int) {
	var lens [BlockSize]byte
	binary.BigEndian.PutUint64(lens[0:], uint64(adLen)*8)
	binary.BigEndian.PutUint64(lens[8:], uint64(ctLen)*8)
	ghashUpdate(g, y, lens[:])
	subtle.XORBytes(y[:], y[:], tagMask[:])
}

func (g *gcm) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != g.nonceSize {
		panic("crypto/cipher: incorrect nonce length given to GCM")
	}
	if uint64(len(plaintext)) > gcmMaxPlaintext {
		panic("crypto/cipher: message too large for GCM")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+g.tagSize)
	if alias.InexactOverlap(out, plaintext) {
		panic("crypto/cipher: invalid buffer overlap of output and input")
	}
	if alias.AnyOverlap(out, additionalData) {
		panic("crypto/cipher: invalid buffer overlap of output and additional data")
	}

	var tagMask, y [BlockSize]byte
	ct := out[:len(plaintext)]
	if len(plaintext) <= gcmShort {
		g.short(ct, plaintext, nonce, &tagMask)
		ghashUpdate(g, &y, additionalData)
		ghashUpdate(g, &y, ct)
		g.finish(&y, &tagMask, len(additionalData), len(plaintext))
		copy(out[len(plaintext):], y[:g.tagSize])
		return ret
	}
	ctr := g.start(nonce, &tagMask)
	ghashUpdate(g, &y, additionalData)
	// The fused kernel, where there is one, takes the whole groups; the
	// rest is encrypted and then hashed a chunk at a time.
	done := gcmSealBulk(g, &y, &ctr, ct, plaintext)
	for src, d := plaintext[done:], ct[done:]; len(src) > 0; {
		n := min(len(src), gcmChunk)
		g.ctr32(d[:n], src[:n], &ctr)
		ghashUpdate(g, &y, d[:n])
		src, d = src[n:], d[n:]
	}
	g.finish(&y, &tagMask, len(additionalData), len(plaintext))
	copy(out[len(plaintext):], y[:g.tagSize])
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
	if alias.InexactOverlap(out, ciphertext) {
		panic("crypto/cipher: invalid buffer overlap of output and input")
	}
	if alias.AnyOverlap(out, additionalData) {
		panic("crypto/cipher: invalid buffer overlap of output and additional data")
	}

	// Each piece is hashed before it is decrypted, so this also works in
	// place. The plaintext is wiped below if the tag turns out wrong.
	var tagMask, y [BlockSize]byte
	ghashUpdate(g, &y, additionalData)
	if len(ciphertext) <= gcmShort {
		ghashUpdate(g, &y, ciphertext)
		g.short(out, ciphertext, nonce, &tagMask)
	} else {
		ctr := g.start(nonce, &tagMask)
		done := gcmOpenBulk(g, &y, &ctr, out, ciphertext)
		for src, d := ciphertext[done:], out[done:]; len(src) > 0; {
			n := min(len(src), gcmChunk)
			ghashUpdate(g, &y, src[:n])
			g.ctr32(d[:n], src[:n], &ctr)
			src, d = src[n:], d[n:]
		}
	}
	g.finish(&y, &tagMask, len(additionalData), len(ciphertext))
	if subtle.ConstantTimeCompare(y[:g.tagSize], tag) != 1 {
		clear(out)
		return nil, errOpen
	}
	return ret, nil
}

// sliceForAppend extends in by n bytes, reusing its capacity when it can,
// and returns the whole slice and the n new bytes.
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	tail = head[len(in):]
	return
}
