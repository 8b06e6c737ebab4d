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

	"github.com/shangmi-go/shangmi/internal/alias"
)

// ccmChunk is how much keystream CCM generates per call to the block kernel.
const ccmChunk = 8 * BlockSize

type ccm struct {
	b         cipher.Block
	sb        *Block // b itself when it is an SM4 block: bulk kernel, no interface calls
	nonceSize int
	tagSize   int
	maxLen    uint64 // largest plaintext the length field can describe
}

// NewCCM returns b, which must have a 16-byte block, in Counter with
// CBC-MAC mode (NIST SP 800-38C). The nonce is 7 to 13 bytes, leaving a
// 15 − nonceSize byte message length field; the tag is 4 to 16 bytes, even.
func NewCCM(b cipher.Block, nonceSize, tagSize int) (cipher.AEAD, error) {
	if b.BlockSize() != BlockSize {
		return nil, errors.New("sm4: CCM requires a 128-bit block cipher")
	}
	if nonceSize < 7 || nonceSize > 13 {
		return nil, errors.New("sm4: CCM nonce size must be 7 to 13 bytes")
	}
	if tagSize < 4 || tagSize > 16 || tagSize%2 != 0 {
		return nil, errors.New("sm4: CCM tag size must be an even number from 4 to 16")
	}
	c := &ccm{b: b, nonceSize: nonceSize, tagSize: tagSize}
	c.sb, _ = b.(*Block)
	q := uint(15 - nonceSize)
	if q >= 8 {
		c.maxLen = 1<<63 - 1
	} else {
		c.maxLen = 1<<(8*q) - 1
	}
	return c, nil
}

func (c *ccm) NonceSize() int { return c.nonceSize }
func (c *ccm) Overhead() int  { return c.tagSize }

// encrypt enciphers one block. Calls through the cipher.Block interface make
// their arguments escape, so they are kept in encryptOther, which copies
// through pooled scratch: the stack buffers of Seal and Open then stay on
// the stack, and an SM4 block needs no allocation at all.
func (c *ccm) encrypt(dst, src []byte) {
	if c.sb != nil {
		encryptBlock(c.sb, dst, src)
		return
	}
	c.encryptOther(dst, src)
}

var scratchPool = sync.Pool{New: func() any { return new([BlockSize]byte) }}

func (c *ccm) encryptOther(dst, src []byte) {
	s := scratchPool.Get().(*[BlockSize]byte)
	copy(s[:], src)
	c.b.Encrypt(s[:], s[:])
	copy(dst, s[:])
	scratchPool.Put(s)
}

// cbcMAC is the running CBC-MAC over the formatted input B0, B1, ….
type cbcMAC struct {
	x [BlockSize]byte
	n int // bytes of the current block already absorbed
}

func (m *cbcMAC) write(c *ccm, p []byte) {
	for len(p) > 0 {
		if m.n == 0 && c.sb != nil && len(p) >= BlockSize {
			// Whole blocks chain inside the single-block kernel.
			k := len(p) &^ (BlockSize - 1)
			cbcMACBlocks(c.sb, &m.x, p[:k])
			p = p[k:]
			continue
		}
		k := subtle.XORBytes(m.x[m.n:], m.x[m.n:], p)
		m.n += k
		p = p[k:]
		if m.n == BlockSize {
			c.encrypt(m.x[:], m.x[:])
			m.n = 0
		}
	}
}

// pad completes a partial block with zeros.
func (m *cbcMAC) pad(c *ccm) {
	if m.n > 0 {
		c.encrypt(m.x[:], m.x[:])
		m.n = 0
	}
}

// tag computes the unencrypted MAC T over nonce, additional data and
// plaintext (SP 800-38C, A.2).
func (c *ccm) tag(out *[BlockSize]byte, nonce, plaintext, ad []byte) {
	var m cbcMAC
	var b0 [BlockSize]byte
	c.firstBlock(&b0, nonce, len(plaintext), len(ad) > 0)
	m.write(c, b0[:])
	if len(ad) > 0 {
		var hdr [10]byte
		m.write(c, adLength(&hdr, len(ad)))
		m.write(c, ad)
		m.pad(c)
	}
	m.write(c, plaintext)
	m.pad(c)
	*out = m.x
}

// firstBlock formats B0: the flags, the nonce and the message length.
func (c *ccm) firstBlock(b0 *[BlockSize]byte, nonce []byte, n int, hasAD bool) {
	q := 15 - len(nonce)
	*b0 = [BlockSize]byte{}
	b0[0] = byte((c.tagSize-2)/2<<3 | (q - 1))
	if hasAD {
		b0[0] |= 1 << 6
	}
	copy(b0[1:], nonce)
	putLength(b0[1+len(nonce):], uint64(n))
}

// adLength returns the encoding of an additional-data length n > 0 that
// precedes the data in the MAC input (SP 800-38C, A.2.2), in hdr.
func adLength(hdr *[10]byte, n int) []byte {
	switch u := uint64(n); {
	case u < 1<<16-1<<8:
		hdr[0], hdr[1] = byte(u>>8), byte(u)
		return hdr[:2]
	case u <= 1<<32-1:
		hdr[0], hdr[1] = 0xff, 0xfe
		putLength(hdr[2:6], u)
		return hdr[:6]
	default:
		hdr[0], hdr[1] = 0xff, 0xff
		putLength(hdr[2:10], u)
		return hdr[:10]
	}
}

// putLength writes n big-endian into all of b.
func putLength(b []byte, n uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte(n)
		n >>= 8
	}
}

// counterBlock sets a to the counter block A_i = flags ‖ N ‖ [i]_q.
func counterBlock(a *[BlockSize]byte, nonce []byte, i uint64) {
	*a = [BlockSize]byte{}
	a[0] = byte(14 - len(nonce)) // q − 1
	copy(a[1:], nonce)
	putLength(a[1+len(nonce):], i)
}

// crypt XORs src with the keystream E(A_1), E(A_2), … into dst.
func (c *ccm) crypt(dst, src, nonce []byte) {
	var a [BlockSize]byte
	if c.sb != nil {
		// A_i is a 128-bit big-endian counter: the length limit keeps i
		// from carrying out of its q bytes.
		counterBlock(&a, nonce, 1)
		ctr := [2]uint64{binary.BigEndian.Uint64(a[0:]), binary.BigEndian.Uint64(a[8:])}
		n := len(src) &^ (BlockSize - 1)
		ctrBlocks(c.sb, dst[:n], src[:n], &ctr)
		if n < len(src) {
			var ks [BlockSize]byte
			ctrBlocks(c.sb, ks[:], ks[:], &ctr)
			subtle.XORBytes(dst[n:], src[n:], ks[:])
		}
		return
	}
	var buf [ccmChunk]byte
	i := uint64(1)
	for len(src) > 0 {
		n := min(len(src), ccmChunk)
		ks := buf[:(n+BlockSize-1)&^(BlockSize-1)]
		for j := 0; j < len(ks); j += BlockSize {
			counterBlock(&a, nonce, i)
			copy(ks[j:], a[:])
			i++
		}
		for j := 0; j < len(ks); j += BlockSize {
			c.encrypt(ks[j:j+BlockSize], ks[j:j+BlockSize])
		}
		subtle.XORBytes(dst, src, ks)
		dst, src = dst[n:], src[n:]
	}
}

// tagMask returns S_0 = E(A_0), which encrypts the tag.
func (c *ccm) tagMask(s0 *[BlockSize]byte, nonce []byte) {
	counterBlock(s0, nonce, 0)
	c.encrypt(s0[:], s0[:])
}

func (c *ccm) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != c.nonceSize {
		panic("sm4: incorrect nonce length given to CCM")
	}
	if uint64(len(plaintext)) > c.maxLen {
		panic("sm4: message too large for CCM")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+c.tagSize)
	if alias.InexactOverlap(out, plaintext) {
		panic("sm4: invalid buffer overlap of output and input")
	}
	if alias.AnyOverlap(out, additionalData) {
		panic("sm4: invalid buffer overlap of output and additional data")
	}
	var t, s0 [BlockSize]byte
	c.tag(&t, nonce, plaintext, additionalData)
	c.tagMask(&s0, nonce)
	// The MAC is taken over the plaintext before it may be overwritten.
	c.crypt(out, plaintext, nonce)
	subtle.XORBytes(out[len(plaintext):], t[:c.tagSize], s0[:c.tagSize])
	return ret
}

func (c *ccm) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	if len(nonce) != c.nonceSize {
		panic("sm4: incorrect nonce length given to CCM")
	}
	if len(ciphertext) < c.tagSize || uint64(len(ciphertext)-c.tagSize) > c.maxLen {
		return nil, errOpen
	}
	tag := ciphertext[len(ciphertext)-c.tagSize:]
	ciphertext = ciphertext[:len(ciphertext)-c.tagSize]
	ret, out := sliceForAppend(dst, len(ciphertext))
	if alias.InexactOverlap(out, ciphertext) {
		panic("sm4: invalid buffer overlap of output and input")
	}
	if alias.AnyOverlap(out, additionalData) {
		panic("sm4: invalid buffer overlap of output and additional data")
	}
	// The MAC covers the plaintext, so decrypt first and wipe the output
	// if the tag does not match.
	c.crypt(out, ciphertext, nonce)
	var t, s0 [BlockSize]byte
	c.tag(&t, nonce, out, additionalData)
	c.tagMask(&s0, nonce)
	subtle.XORBytes(t[:], t[:], s0[:])
	if subtle.ConstantTimeCompare(t[:c.tagSize], tag) != 1 {
		clear(out)
		return nil, errOpen
	}
	return ret, nil
}
