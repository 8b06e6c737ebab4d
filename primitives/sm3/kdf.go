// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import (
	"encoding/binary"
)

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
	if len(dst) == Size && len(z) == 1 && len(z[0]) == 64 {
		// SM2 encryption of a 256-bit key: z = x2 || y2 read where it
		// lies, one kernel call.
		kdf64(&iv, (*[64]byte)(z[0]), 1, (*[Size]byte)(dst))
		return
	}
	if len(dst) <= Size && kdfShort(dst, z) {
		return
	}
	var base digest
	base.Reset()
	for _, p := range z {
		base.Write(p)
	}
	base.flush()

	var k kdfTail
	k.init(&base)
	ct := uint32(1)
	for len(dst) > 0 {
		blocks := (len(dst) + Size - 1) / Size
		if lanes := kdfLanes(blocks); lanes > 0 {
			dst = k.multi(dst, &base.h, ct, lanes)
			ct += uint32(lanes)
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

// multi writes the output blocks for counters ct, ct+1, ..., computed
// lanes at a time by kdfBlocks, to dst and returns what is left of dst.
func (k *kdfTail) multi(dst []byte, h *[8]uint32, ct uint32, lanes int) []byte {
	// The kernels take the tail as words, with the counter bytes zero.
	var msg [32]uint32
	clear(k.tail[k.ctAt : k.ctAt+4])
	for i := range k.tailLen / 4 {
		msg[i] = binary.BigEndian.Uint32(k.tail[4*i:])
	}
	n := Size * lanes
	if len(dst) >= n {
		kdfBlocks(lanes, &dst[0], h, &msg, ct, k.ctAt/4, k.ctAt%4, k.tailLen/BlockSize)
		clear(msg[:])
		return dst[n:]
	}
	var out [32 * Size]byte
	kdfBlocks(lanes, &out[0], h, &msg, ct, k.ctAt/4, k.ctAt%4, k.tailLen/BlockSize)
	copy(dst, out[:])
	clear(out[:])
	clear(msg[:])
	return nil
}

// kdf64Final is kdf64 over final: z and the counter laid out in a buffer.
func kdf64Final(h *[8]uint32, z *[64]byte, ct uint32, out *[Size]byte) {
	var buf [2 * BlockSize]byte
	binary.BigEndian.PutUint32(buf[64:], ct)
	copy(buf[:], z[:])
	final(h, &buf, 68, 68<<3, out)
	clear(buf[:])
}

// kdfShortMax is the longest z that kdfShort takes: z, the counter and
// the padding in two blocks.
const kdfShortMax = shortMax - 4

// kdfShort computes a single output block (len(dst) <= Size) for a short z
// (SM2 encryption's x2 || y2, 64 bytes) as one message of one or two
// blocks laid out at once and compressed in one call, where the general
// path hashes z and then the counter's block separately: the two-block
// kernel overlaps their message expansions. It reports false, doing
// nothing, if z is too long.
func kdfShort(dst []byte, z [][]byte) bool {
	n := 0
	for _, p := range z {
		n += len(p)
	}
	if n > kdfShortMax {
		return false
	}
	// The counter is written before z, so that it has reached the cache
	// when the kernel loads it (see padTail); final adds the padding.
	var buf [2 * BlockSize]byte
	binary.BigEndian.PutUint32(buf[n:], 1)
	n = 0
	for _, p := range z {
		n += copy(buf[n:], p)
	}
	if len(dst) == Size {
		// The usual case, a 256-bit key: straight into dst.
		final(&iv, &buf, n+4, uint64(n+4)<<3, (*[Size]byte)(dst))
	} else {
		var s [Size]byte
		final(&iv, &buf, n+4, uint64(n+4)<<3, &s)
		copy(dst, s[:])
		clear(s[:])
	}
	clear(buf[:])
	return true
}
