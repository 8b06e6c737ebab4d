// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
)

// ctrChunk is how much keystream CTR generates per call to the block kernel.
const ctrChunk = 16 * BlockSize

type ctr struct {
	b      *Block
	hi, lo uint64 // the next counter block, as a 128-bit big-endian integer
	buf    [ctrChunk]byte
	used   int // bytes of buf already consumed; len(buf) when none is left
}

// NewCTR returns a CTR stream for b whose first counter block is iv; the
// whole block is incremented as one 128-bit big-endian integer, as
// crypto/cipher does. cipher.NewCTR calls it, so users should call that
// instead.
func (b *Block) NewCTR(iv []byte) cipher.Stream {
	if len(iv) != BlockSize {
		panic("cipher.NewCTR: IV length must equal block size")
	}
	return &ctr{
		b:    b,
		hi:   binary.BigEndian.Uint64(iv[0:]),
		lo:   binary.BigEndian.Uint64(iv[8:]),
		used: ctrChunk,
	}
}

// keystream fills out, a whole number of blocks, with keystream and moves
// the counter past it.
func (x *ctr) keystream(out []byte) {
	hi, lo := x.hi, x.lo
	for i := 0; i+BlockSize <= len(out); i += BlockSize {
		binary.BigEndian.PutUint64(out[i:], hi)
		binary.BigEndian.PutUint64(out[i+8:], lo)
		lo++
		if lo == 0 {
			hi++
		}
	}
	x.hi, x.lo = hi, lo
	cryptBlocks(&x.b.enc, out, out)
}

func (x *ctr) XORKeyStream(dst, src []byte) {
	if len(dst) < len(src) {
		panic("crypto/cipher: output smaller than input")
	}
	if inexactOverlap(dst[:len(src)], src) {
		panic("crypto/cipher: invalid buffer overlap")
	}
	if x.used < len(x.buf) {
		n := subtle.XORBytes(dst, src, x.buf[x.used:])
		x.used += n
		dst, src = dst[n:], src[n:]
	}
	for len(src) >= ctrChunk {
		x.keystream(x.buf[:])
		subtle.XORBytes(dst, src, x.buf[:])
		dst, src = dst[ctrChunk:], src[ctrChunk:]
	}
	if len(src) > 0 {
		// Generate only the blocks needed, so short messages stay cheap, at
		// the end of buf so that the unused rest of the last one is kept.
		n := (len(src) + BlockSize - 1) &^ (BlockSize - 1)
		x.keystream(x.buf[ctrChunk-n:])
		x.used = ctrChunk - n + subtle.XORBytes(dst, src, x.buf[ctrChunk-n:])
	}
}
