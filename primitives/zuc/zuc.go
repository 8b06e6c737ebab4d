// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

//go:generate sh -c "cd _asm && go run . -pkg zuc -out ../zuc_amd64.s -stubs ../zuc_amd64.go -arm64 ../zuc_arm64.s -arm64stubs ../zuc_arm64.go"

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/shangmi-go/shangmi/internal/alias"
)

// KeySizeError is returned for a key of a length ZUC does not accept.
type KeySizeError int

func (k KeySizeError) Error() string {
	return "zuc: invalid key size " + strconv.Itoa(int(k))
}

// IVSizeError is returned for an IV of a length the key's variant does not
// accept (16 bytes for ZUC-128; 23 or 25 bytes for ZUC-256).
type IVSizeError int

func (k IVSizeError) Error() string {
	return "zuc: invalid IV size " + strconv.Itoa(int(k))
}

var errIV256 = errors.New("zuc: ZUC-256 IV17…IV24 must be 6-bit values")

// blockWords is the number of keystream words the kernels produce per batch.
const blockWords = 16

// Cipher is a ZUC keystream generator: ZUC-128 (GB/T 33133.1-2016) or
// ZUC-256 (2018 specification, v1.1). It implements [cipher.Stream].
//
// The key-dependent part of the initial state is computed once, by
// [NewCipher]; [Cipher.Reset] then starts a new keystream for a new IV under
// the same key without allocating. A Cipher must be created by NewCipher or
// [NewEEA3]; the zero value has no key.
type Cipher struct {
	st state

	// pre holds each LFSR cell's key and constant bits; the IV is ORed in.
	pre    [16]uint32
	keyed  bool
	zuc256 bool

	// ks holds the keystream bytes of the current 64-byte batch;
	// ks[used:] have not been used yet.
	ks   [4 * blockWords]byte
	used int
}

// NewCipher returns a ZUC keystream generator: ZUC-128 for a 16-byte key and
// a 16-byte IV, ZUC-256 for a 32-byte key and a 23-byte (packed: IV17…IV24
// as eight 6-bit fields in the last six bytes) or 25-byte (IV17…IV24 in the
// low six bits of one byte each, top two bits zero) IV. The keystream starts
// at the first word after initialisation, words taken big-endian.
//
// The returned Stream is a *[Cipher]; a protocol that starts a new keystream
// for every record keeps it and calls [Cipher.Reset].
func NewCipher(key, iv []byte) (cipher.Stream, error) {
	c := new(Cipher)
	if err := c.init(key, iv); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cipher) init(key, iv []byte) error {
	switch len(key) {
	case 16:
		loadKey128(&c.pre, key)
	case 32:
		c.zuc256 = true
		loadKey256(&c.pre, key, &zuc256D)
	default:
		return KeySizeError(len(key))
	}
	c.keyed = true
	return c.Reset(iv)
}

// Reset restarts the keystream for a new IV under the key c was created
// with, as if [NewCipher] had been called again, but without allocating and
// without redoing the key loading. The IV must have the length NewCipher
// accepts for the key. On error c is unchanged. The assembly kernels make
// the first 64 keystream bytes in the same call as the initialisation, so
// a short message after Reset costs one kernel call.
//
// The ZUC-128 record protection of this project's TLCP suites calls it once
// per record with write_IV XOR the sequence number.
func (c *Cipher) Reset(iv []byte) error {
	if !c.keyed {
		return errors.New("zuc: Cipher not created by NewCipher")
	}
	if c.zuc256 {
		var v [25]uint8
		if len(iv) != 23 && len(iv) != 25 {
			return IVSizeError(len(iv))
		}
		if !unpackIV256(&v, iv) {
			return errIV256
		}
		loadIV256(&c.st, &c.pre, &v)
	} else {
		if len(iv) != 16 {
			return IVSizeError(len(iv))
		}
		loadIV128(&c.st, &c.pre, iv)
	}
	c.st.r1, c.st.r2 = 0, 0
	// The first keystream batch is made with the initialisation, in one
	// kernel call: a record or packet always needs it.
	initStateBlock(&c.st, &c.ks)
	c.used = 0
	return nil
}

// XORKeyStream XORs each byte of src with the next keystream byte and writes
// the result to dst. Like every [cipher.Stream] it panics if dst is shorter
// than src or if the two overlap other than exactly.
func (c *Cipher) XORKeyStream(dst, src []byte) {
	if len(dst) < len(src) {
		panic("zuc: output smaller than input")
	}
	dst = dst[:len(src)]
	if alias.InexactOverlap(dst, src) {
		panic("zuc: invalid buffer overlap")
	}
	if !c.keyed {
		panic("zuc: XORKeyStream on a Cipher not created by NewCipher")
	}
	if c.used < len(c.ks) {
		n := subtle.XORBytes(dst, src, c.ks[c.used:])
		c.used += n
		dst, src = dst[n:], src[n:]
	}
	// Whole batches go through the kernel, which XORs as it generates.
	if n := len(src) &^ (4*blockWords - 1); n > 0 {
		xorKeyStream(&c.st, dst[:n], src[:n])
		dst, src = dst[n:], src[n:]
	}
	if len(src) > 0 {
		xorKeyStream(&c.st, c.ks[:], zeroBlock[:])
		c.used = subtle.XORBytes(dst, src, c.ks[:])
	}
}

// zeroBlock is the source XORed with one batch of keystream to get the
// keystream bytes themselves.
var zeroBlock [4 * blockWords]byte

// bulkWords is how many keystream words the generic code produces at once
// before XORing them in: enough to make the loop overhead vanish, small
// enough for the stack.
const bulkWords = 8 * blockWords

// xorWordsGeneric sets dst = src XOR the big-endian bytes of ks; len(dst) ==
// len(src) == 4*len(ks), len(ks) even.
func xorWordsGeneric(dst, src []byte, ks []uint32) {
	for len(ks) >= 2 && len(src) >= 8 && len(dst) >= 8 {
		k := uint64(ks[0])<<32 | uint64(ks[1])
		binary.BigEndian.PutUint64(dst, binary.BigEndian.Uint64(src)^k)
		dst, src, ks = dst[8:], src[8:], ks[2:]
	}
}

// errEEA3Params is returned for a BEARER or DIRECTION out of range.
var errEEA3Params = errors.New("zuc: BEARER must be < 32 and DIRECTION < 2")

// eea3IV builds the ZUC-128 IV of 128-EEA3 (3GPP TS 35.221 / ETSI SAGE
// 128-EEA3 & 128-EIA3 specification, 3.3): COUNT ‖ BEARER ‖ DIRECTION ‖ 0,
// twice.
func eea3IV(iv *[16]byte, count, bearer, direction uint32) {
	binary.BigEndian.PutUint32(iv[0:], count)
	iv[4] = byte(bearer<<3 | direction<<2)
	iv[5], iv[6], iv[7] = 0, 0, 0
	copy(iv[8:], iv[:8])
}

// NewEEA3 returns the 128-EEA3 confidentiality keystream (3GPP LTE/5G, the
// "ZUC" algorithm EEA3/NEA3) for a 16-byte key, the 32-bit COUNT, the 5-bit
// BEARER and the 1-bit DIRECTION. The Stream is a *[Cipher]. For a message
// whose LENGTH is not a whole number of bytes use [EEA3Bits].
func NewEEA3(key []byte, count, bearer, direction uint32) (cipher.Stream, error) {
	c := new(Cipher)
	if err := c.initEEA3(key, count, bearer, direction); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cipher) initEEA3(key []byte, count, bearer, direction uint32) error {
	if len(key) != 16 {
		return KeySizeError(len(key))
	}
	if bearer >= 32 || direction >= 2 {
		return errEEA3Params
	}
	var iv [16]byte
	eea3IV(&iv, count, bearer, direction)
	return c.init(key, iv[:])
}

// EEA3Bits encrypts (or decrypts) a 128-EEA3 message of lengthBits bits:
// it XORs the first ⌈lengthBits/8⌉ bytes of src with the keystream into dst
// and clears the bits of the last byte beyond lengthBits, which the
// specification leaves undefined. src and dst may be the same slice. It
// does not allocate.
func EEA3Bits(key []byte, count, bearer, direction uint32, dst, src []byte, lengthBits int) error {
	if lengthBits < 0 {
		return errors.New("zuc: negative LENGTH")
	}
	n := (lengthBits + 7) / 8
	if len(src) < n || len(dst) < n {
		return errors.New("zuc: buffer shorter than LENGTH")
	}
	if alias.InexactOverlap(dst[:n], src[:n]) {
		return errors.New("zuc: invalid buffer overlap")
	}
	// A Cipher on the stack: one-shot use allocates nothing.
	var c Cipher
	if err := c.initEEA3(key, count, bearer, direction); err != nil {
		return err
	}
	c.XORKeyStream(dst[:n], src[:n])
	if r := lengthBits % 8; r != 0 {
		dst[n-1] &= 0xff << (8 - r)
	}
	return nil
}
