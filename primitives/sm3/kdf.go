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
//
// z is hashed once. Every output block then hashes the same z followed by
// a different counter, so the final one or two blocks (the buffered tail
// of z, the counter, the padding and the length) are laid out once and
// each output block compresses them from the chaining value after z with
// only the four counter bytes rewritten; with a 64-byte z, as in SM2
// encryption, that is a single compression per 32 output bytes. Where the
// CPU has a multi-buffer kernel, the output blocks run side by side, one
// counter per vector lane.
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

	var k kdfTail
	k.init(&base)
	ct := uint32(1)
	for len(dst) > 0 {
		blocks := (len(dst) + Size - 1) / Size
		n := min(blocks, multiLanes())
		if w := multiWidth(n); w > 1 {
			n = min(n, w)
			dst = k.multi(dst, &base.h, ct, n, w)
			ct += uint32(n)
			continue
		}
		h := base.h
		binary.BigEndian.PutUint32(k.tail[k.ctAt:], ct)
		block(&h, k.tail[:k.tailLen])
		ct++
		s := stateBytes(&h)
		dst = dst[copy(dst, s[:]):]
		clear(s[:])
	}
	clear(k.tail[:])
	clear(base.x[:])
}

// kdfTail is the layout of the final blocks shared by every output block.
type kdfTail struct {
	tail    [2 * BlockSize]byte
	ctAt    int // offset of the counter in tail
	tailLen int // one or two blocks

	// The multi-buffer lanes: the tail with each lane's counter, and the
	// lanes' chaining values, transposed.
	lanes [maxLanes][2 * BlockSize]byte
	st    [8][16]uint32
}

func (k *kdfTail) init(base *digest) {
	n := copy(k.tail[:], base.x[:base.nx])
	k.ctAt = n
	n += 4
	k.tail[n] = 0x80
	k.tailLen = BlockSize
	if n+1 > BlockSize-8 {
		k.tailLen = 2 * BlockSize
	}
	binary.BigEndian.PutUint64(k.tail[k.tailLen-8:k.tailLen], (base.len+4)<<3)
}

// multi writes the n output blocks for counters ct, ct+1, ... to dst with
// the width-w kernel and returns what is left of dst.
func (k *kdfTail) multi(dst []byte, h *[8]uint32, ct uint32, n, w int) []byte {
	var ptr [16]*byte // local, not in k: see mbEngine.run
	for l := range w {
		if l < n {
			copy(k.lanes[l][:k.tailLen], k.tail[:k.tailLen])
			binary.BigEndian.PutUint32(k.lanes[l][k.ctAt:], ct+uint32(l))
		}
		ptr[l] = &k.lanes[min(l, n-1)][0]
		for i := range h {
			k.st[i][l] = h[i]
		}
	}
	multiBlock(w, &k.st, &ptr, k.tailLen/BlockSize)
	for l := range n {
		for i := 0; i < 8 && len(dst) > 0; i++ {
			v := k.st[i][l]
			if len(dst) >= 4 {
				binary.BigEndian.PutUint32(dst, v)
				dst = dst[4:]
				continue
			}
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], v)
			dst = dst[copy(dst, b[:]):]
		}
	}
	clear(k.lanes[:n])
	clear(k.st[:])
	return dst
}
