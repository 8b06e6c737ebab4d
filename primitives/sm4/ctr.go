// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"

	"github.com/shangmi-go/shangmi/internal/alias"
)

type ctr struct {
	b    *Block
	ctr  [2]uint64 // the next counter block, as a 128-bit big-endian integer
	buf  [BlockSize]byte
	used int // bytes of buf already consumed; len(buf) when none is left
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
		ctr:  [2]uint64{binary.BigEndian.Uint64(iv[0:]), binary.BigEndian.Uint64(iv[8:])},
		used: BlockSize,
	}
}

func (x *ctr) XORKeyStream(dst, src []byte) {
	if len(dst) < len(src) {
		panic("crypto/cipher: output smaller than input")
	}
	if alias.InexactOverlap(dst[:len(src)], src) {
		panic("crypto/cipher: invalid buffer overlap")
	}
	if x.used < len(x.buf) {
		n := subtle.XORBytes(dst, src, x.buf[x.used:])
		x.used += n
		dst, src = dst[n:], src[n:]
	}
	// Whole blocks are XORed with the keystream inside the kernel.
	n := len(src) &^ (BlockSize - 1)
	ctrBlocks(x.b, dst[:n], src[:n], &x.ctr)
	dst, src = dst[n:], src[n:]
	if len(src) > 0 {
		// One more keystream block, whose unused rest is kept.
		x.buf = [BlockSize]byte{}
		ctrBlocks(x.b, x.buf[:], x.buf[:], &x.ctr)
		x.used = subtle.XORBytes(dst, src, x.buf[:])
	}
}
