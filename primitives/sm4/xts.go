// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/subtle"
	"encoding/binary"
	"errors"

	"github.com/shangmi-go/shangmi/internal/alias"
)

// xtsChunk is how many bytes of XTS data go through the block kernel at once.
const xtsChunk = 8 * BlockSize

// XTS is SM4 in XEX-based tweaked-codebook mode with ciphertext stealing,
// for encrypting storage: each data unit (sector) is encrypted under a
// 16-byte tweak, usually its number. Two flavours exist and differ only in
// how the tweak is multiplied by α from one block to the next:
// IEEE Std 1619 ([NewXTS]) and GB/T 17964-2021 ([NewXTSGB]).
//
// An XTS is safe for concurrent use.
type XTS struct {
	data, tweak Block
	gb          bool
}

// NewXTS returns IEEE Std 1619 XTS for a 32-byte key: the data key
// followed by the tweak key.
func NewXTS(key []byte) (*XTS, error) {
	return newXTS(key, false)
}

// NewXTSGB returns GB/T 17964-2021 XTS for a 32-byte key: the data key
// followed by the tweak key. This is what OpenSSL 3.2 and later use by
// default for SM4-XTS.
func NewXTSGB(key []byte) (*XTS, error) {
	return newXTS(key, true)
}

func newXTS(key []byte, gb bool) (*XTS, error) {
	if len(key) != 2*KeySize {
		return nil, errors.New("sm4: XTS key must be 32 bytes (data key ‖ tweak key)")
	}
	x := &XTS{gb: gb}
	x.data.init(key[:KeySize])
	x.tweak.init(key[KeySize:])
	return x, nil
}

// sectorTweak encodes a data-unit number as a little-endian 16-byte tweak.
func sectorTweak(sectorNum uint64) (t [BlockSize]byte) {
	binary.LittleEndian.PutUint64(t[:8], sectorNum)
	return t
}

// Encrypt encrypts src into dst for data unit sectorNum, whose tweak is the
// number in little-endian order. src must be at least 16 bytes long; dst
// must be as long as src and overlap it entirely or not at all.
func (x *XTS) Encrypt(dst, src []byte, sectorNum uint64) error {
	t := sectorTweak(sectorNum)
	return x.crypt(dst, src, &t, true)
}

// Decrypt is the inverse of [XTS.Encrypt].
func (x *XTS) Decrypt(dst, src []byte, sectorNum uint64) error {
	t := sectorTweak(sectorNum)
	return x.crypt(dst, src, &t, false)
}

// EncryptWithTweak is [XTS.Encrypt] with an explicit 16-byte tweak (before
// its encryption with the tweak key).
func (x *XTS) EncryptWithTweak(dst, src, tweak []byte) error {
	if len(tweak) != BlockSize {
		return errors.New("sm4: XTS tweak must be 16 bytes")
	}
	return x.crypt(dst, src, (*[BlockSize]byte)(tweak), true)
}

// DecryptWithTweak is the inverse of [XTS.EncryptWithTweak].
func (x *XTS) DecryptWithTweak(dst, src, tweak []byte) error {
	if len(tweak) != BlockSize {
		return errors.New("sm4: XTS tweak must be 16 bytes")
	}
	return x.crypt(dst, src, (*[BlockSize]byte)(tweak), false)
}

// xtsTweak is the running tweak T as two 64-bit words, in the byte order
// that makes multiplication by α a shift: little-endian for IEEE,
// big-endian for GB/T 17964.
type xtsTweak struct {
	a, b uint64 // IEEE: low, high word; GB: bytes 0–7, bytes 8–15
	gb   bool
}

func (t *xtsTweak) load(p *[BlockSize]byte) {
	if t.gb {
		t.a, t.b = binary.BigEndian.Uint64(p[0:]), binary.BigEndian.Uint64(p[8:])
	} else {
		t.a, t.b = binary.LittleEndian.Uint64(p[0:]), binary.LittleEndian.Uint64(p[8:])
	}
}

func (t *xtsTweak) store(p []byte) {
	_ = p[15]
	if t.gb {
		binary.BigEndian.PutUint64(p[0:], t.a)
		binary.BigEndian.PutUint64(p[8:], t.b)
	} else {
		binary.LittleEndian.PutUint64(p[0:], t.a)
		binary.LittleEndian.PutUint64(p[8:], t.b)
	}
}

// mulAlpha multiplies T by α (the polynomial x) without branching on it.
// IEEE 1619 treats T as a little-endian integer: shift left, reduce with
// 0x87. GB/T 17964 uses the bit-reflected order of GHASH: shift right,
// reduce with 0xE1 in the top byte.
func (t *xtsTweak) mulAlpha() {
	if t.gb {
		carry := t.b & 1
		t.b = t.b>>1 | t.a<<63
		t.a = t.a>>1 ^ (0xe1<<56)&-carry
	} else {
		carry := t.b >> 63
		t.b = t.b<<1 | t.a>>63
		t.a = t.a<<1 ^ 0x87&-carry
	}
}

// blocks runs whole blocks of src through XEX under successive tweaks,
// starting at t, which it advances past them.
func (x *XTS) blocks(dst, src []byte, t *xtsTweak, encrypt bool) {
	n := xtsBulk(x, dst, src, t, encrypt)
	dst, src = dst[n:], src[n:]
	var tw, buf [xtsChunk]byte
	for len(src) > 0 {
		n := min(len(src), xtsChunk)
		for i := 0; i < n; i += BlockSize {
			t.store(tw[i:])
			t.mulAlpha()
		}
		subtle.XORBytes(buf[:n], src[:n], tw[:n])
		cryptBlocks(&x.data, !encrypt, buf[:n], buf[:n])
		subtle.XORBytes(dst[:n], buf[:n], tw[:n])
		dst, src = dst[n:], src[n:]
	}
}

func (x *XTS) crypt(dst, src []byte, tweak *[BlockSize]byte, encrypt bool) error {
	if len(src) < BlockSize {
		return errors.New("sm4: XTS data unit must be at least 16 bytes")
	}
	if len(dst) < len(src) {
		return errors.New("sm4: XTS output smaller than input")
	}
	dst = dst[:len(src)]
	if alias.InexactOverlap(dst, src) {
		return errors.New("sm4: invalid buffer overlap")
	}
	var e [BlockSize]byte
	encryptBlock(&x.tweak, e[:], tweak[:])
	t := xtsTweak{gb: x.gb}
	t.load(&e)

	rem := len(src) % BlockSize
	full := len(src) - rem
	if rem != 0 {
		// The last whole block takes part in ciphertext stealing.
		full -= BlockSize
	}
	x.blocks(dst[:full], src[:full], &t, encrypt)
	if rem == 0 {
		return nil
	}

	// Ciphertext stealing over the last whole block m and the r-byte tail.
	// Encryption: CC = XEX(P_m, T_m); the tail of the output is CC[:r] and
	// block m of the output is XEX(P_tail ‖ CC[r:], T_m+1). Decryption
	// undoes it by using T_m+1 first and T_m second.
	tm := t
	t.mulAlpha()
	tn := t
	first, second := &tm, &tn
	if !encrypt {
		first, second = second, first
	}
	var cc [BlockSize]byte
	x.blocks(cc[:], src[full:full+BlockSize], first, encrypt)
	var pp [BlockSize]byte
	copy(pp[:], src[full+BlockSize:])
	copy(pp[rem:], cc[rem:])
	copy(dst[full+BlockSize:], cc[:rem])
	x.blocks(dst[full:full+BlockSize], pp[:], second, encrypt)
	return nil
}
