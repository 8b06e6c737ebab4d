// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import "encoding/binary"

// MaxKDFLen is the longest output the KDF of GB/T 32918.4-2016 defines:
// klen must be less than (2^32 - 1) * 256 bits, since the 32-bit counter
// starts at 1 and may not wrap.
const MaxKDFLen = (1<<32 - 1) * Size

// KDF returns keyLen bytes derived from z by the key derivation function of
// GB/T 32918.4-2016, 5.4.3:
//
//	K = SM3(z || ct) || SM3(z || ct+1) || ...   with a 32-bit big-endian
//	                                            counter ct starting at 1,
//
// truncated to keyLen bytes. It returns an empty slice for keyLen 0 and nil
// for a negative keyLen or one above MaxKDFLen. SM2 encryption and key
// exchange use it; callers that must not allocate use [KDFInto].
func KDF(z []byte, keyLen int) []byte {
	if keyLen < 0 || uint64(keyLen) > MaxKDFLen {
		return nil
	}
	out := make([]byte, keyLen)
	KDFInto(out, z)
	return out
}

// KDFInto fills dst with the first len(dst) bytes of the same function, with
// z the concatenation of the parts, so that SM2 can pass x2 and y2 (or
// xV, yV, ZA, ZB) without joining them first. It does not allocate.
// A dst longer than MaxKDFLen is a programming error and panics.
func KDFInto(dst []byte, z ...[]byte) {
	if uint64(len(dst)) > MaxKDFLen {
		panic("sm3: KDF output longer than MaxKDFLen")
	}
	if len(dst) == 0 {
		return
	}
	var base digest
	base.Reset()
	for _, p := range z {
		base.Write(p)
	}

	// Every output block hashes the same z followed by a different counter,
	// so the final one or two blocks (the buffered tail of z, the counter,
	// the padding and the length) are laid out once, and each iteration only
	// rewrites the four counter bytes and compresses them from a copy of the
	// chaining value after z.
	var tail [2 * BlockSize]byte
	n := copy(tail[:], base.x[:base.nx])
	ctAt := n
	n += 4
	tail[n] = 0x80
	tailLen := BlockSize
	if n+1 > BlockSize-8 {
		tailLen = 2 * BlockSize
	}
	binary.BigEndian.PutUint64(tail[tailLen-8:tailLen], (base.len+4)<<3)

	var d digest
	for ct := uint32(1); ; ct++ {
		binary.BigEndian.PutUint32(tail[ctAt:], ct)
		d.h = base.h
		block(&d, tail[:tailLen])
		if len(dst) < Size {
			s := d.digestBytes()
			copy(dst, s[:])
			clear(s[:])
			break
		}
		for i, v := range d.h {
			binary.BigEndian.PutUint32(dst[4*i:], v)
		}
		dst = dst[Size:]
		if len(dst) == 0 {
			break
		}
	}
	clear(tail[:])
}
