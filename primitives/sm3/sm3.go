// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

//go:generate go run gen.go -output sm3block_generic.go
//go:generate sh -c "cd _asm && go run . -pkg sm3 -out ../sm3block_amd64.s -stubs ../sm3block_amd64.go"
//go:generate sh -c "cd _asm && go run . -arm64 ../sm3block_arm64.s -arm64stubs ../sm3block_arm64.go"

import (
	"encoding/binary"
	"errors"
	"hash"
)

// Size is the size of an SM3 digest in bytes.
const Size = 32

// BlockSize is the block size of SM3 in bytes.
const BlockSize = 64

// The initial value IV of GB/T 32905-2016, 4.1.
const (
	init0 = 0x7380166f
	init1 = 0x4914b2b9
	init2 = 0x172442d7
	init3 = 0xda8a0600
	init4 = 0xa96f30bc
	init5 = 0x163138aa
	init6 = 0xe38dee4d
	init7 = 0xb0fb0e4e
)

// digest is the running state of an SM3 computation.
type digest struct {
	h   [8]uint32 // chaining value V_i
	nx  int       // number of valid bytes in x
	len uint64    // total bytes written
	// x[:nx] are the bytes not yet compressed, at most a block. x is
	// two blocks long because final reads 128 bytes (and ignores what
	// follows the nx valid ones); x[BlockSize:] is never written.
	x [2 * BlockSize]byte
}

// New returns a new hash.Hash computing the SM3 digest. The value also
// implements encoding.BinaryMarshaler, encoding.BinaryAppender,
// encoding.BinaryUnmarshaler and hash.Cloner.
func New() hash.Hash {
	d := new(digest)
	d.Reset()
	return d
}

// Sum returns the SM3 digest of data.
func Sum(data []byte) [Size]byte {
	if len(data) <= shortMax {
		return sumShort(data)
	}
	var d digest
	d.Reset()
	d.Write(data)
	return d.checkSum()
}

// shortMax is the longest message that fits two blocks with its padding.
const shortMax = 2*BlockSize - 9

// sumShort is Sum for a message of at most shortMax bytes: laid out with
// its padding at once and compressed in one call, so that a 64-byte
// message's two blocks go through the two-block kernel together (their
// message expansions overlap) instead of one call each.
func sumShort(data []byte) [Size]byte {
	var buf [2 * BlockSize]byte
	n := copy(buf[:], data)
	var s [Size]byte
	final(&iv, &buf, n, uint64(n)<<3, &s)
	clear(buf[:])
	return s
}

// finalGeneric is final in Go, from a copy of h.
func finalGeneric(h *[8]uint32, x *[2 * BlockSize]byte, n int, bits uint64, out *[Size]byte) {
	hh := *h
	compressTail(&hh, x[:n], bits>>3)
	*out = stateBytes(&hh)
	clear(hh[:])
}

// compressTail lays out the final bytes tail (at most shortMax) of a
// message of total bytes with their padding in a buffer and compresses
// the one or two blocks into h in one call.
func compressTail(h *[8]uint32, tail []byte, total uint64) {
	var buf [2 * BlockSize]byte
	end := padTail(&buf, len(tail), total)
	copy(buf[:], tail)
	block(h, buf[:end])
	clear(buf[:end])
}

// padTail writes into the zeroed buf the padding that follows the final n
// bytes (n <= shortMax) of a message of total bytes, and returns the
// length of those bytes with their padding, one or two blocks. The bytes
// themselves are copied in afterwards: the kernel's first loads then meet
// their wide stores, which the store buffer forwards, while the narrow
// stores of the padding, which it cannot forward to a wider load, have had
// time to reach the cache.
func padTail(buf *[2 * BlockSize]byte, n int, total uint64) int {
	// GB/T 32905-2016, 5.2: append a 1 bit, then zeros until the length
	// is 448 mod 512 bits, then the message length in bits as 64 bits,
	// big endian.
	end := BlockSize
	if n+9 > BlockSize {
		end = 2 * BlockSize
	}
	buf[n] = 0x80
	binary.BigEndian.PutUint64(buf[end-8:end], total<<3)
	return end
}

func (d *digest) Reset() {
	d.h = [8]uint32{init0, init1, init2, init3, init4, init5, init6, init7}
	d.nx = 0
	d.len = 0
}

func (d *digest) Size() int { return Size }

func (d *digest) BlockSize() int { return BlockSize }

func (d *digest) Clone() (hash.Cloner, error) {
	r := *d
	return &r, nil
}

// Write buffers the block that ends the data written so far, even when it
// is complete, rather than compressing it: if no more data follows, Sum
// compresses it together with the padding in one kernel call (a 64-byte
// message costs one call, not two). nx == BlockSize marks such a held
// block; any later Write compresses it first.
func (d *digest) Write(p []byte) (int, error) {
	nn := len(p)
	if nn == 0 {
		return 0, nil
	}
	d.len += uint64(nn)
	d.flush()
	if d.nx > 0 {
		n := copy(d.x[d.nx:BlockSize], p)
		d.nx += n
		p = p[n:]
		if len(p) == 0 {
			return nn, nil
		}
		block(&d.h, d.x[:BlockSize])
		d.nx = 0
	}
	if len(p) > BlockSize {
		// Whole blocks are compressed straight from p, without a copy,
		// all but the last one.
		n := (len(p) - 1) &^ (BlockSize - 1)
		block(&d.h, p[:n])
		p = p[n:]
	}
	d.nx = copy(d.x[:BlockSize], p)
	return nn, nil
}

// flush compresses a held block (see Write), for the code that goes on
// from d.h directly.
func (d *digest) flush() {
	if d.nx == BlockSize {
		block(&d.h, d.x[:BlockSize])
		d.nx = 0
	}
}

// Sum appends the digest of the data written so far to in. It does not
// change the state, so writing may go on afterwards.
func (d *digest) Sum(in []byte) []byte {
	s := d.checkSum()
	return append(in, s[:]...)
}

// checkSum returns the digest of the data written so far, without changing
// d: the buffered bytes (at most a block) and their padding, one or two
// blocks, are laid out at once and compressed from d.h in one call.
func (d *digest) checkSum() [Size]byte {
	var s [Size]byte
	final(&d.h, &d.x, d.nx, d.len<<3, &s)
	return s
}

// pad appends the padding and compresses the final block or two into d.h.
// It consumes d.
func (d *digest) pad() {
	compressTail(&d.h, d.x[:d.nx], d.len)
	d.nx = 0
}

// A saved state is the magic, the chaining value, the whole buffer and the
// length, all big endian, the same layout crypto/sha256 uses.
const (
	magic         = "sm3\x03"
	marshaledSize = len(magic) + 8*4 + BlockSize + 8
)

func (d *digest) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, marshaledSize))
}

func (d *digest) AppendBinary(b []byte) ([]byte, error) {
	// A held block (see Write) is saved compressed: a saved state's
	// buffer holds len mod 64 bytes.
	h, nx := d.h, d.nx
	if nx == BlockSize {
		block(&h, d.x[:BlockSize])
		nx = 0
	}
	b = append(b, magic...)
	for _, v := range h {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	b = append(b, d.x[:nx]...)
	// The tail of the buffer is stale data from earlier blocks; zeros keep
	// saved states canonical and leak nothing of earlier input.
	b = append(b, make([]byte, BlockSize-nx)...)
	b = binary.BigEndian.AppendUint64(b, d.len)
	return b, nil
}

func (d *digest) UnmarshalBinary(b []byte) error {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return errors.New("sm3: invalid hash state identifier")
	}
	if len(b) != marshaledSize {
		return errors.New("sm3: invalid hash state size")
	}
	b = b[len(magic):]
	for i := range d.h {
		d.h[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	b = b[8*4:]
	copy(d.x[:], b[:BlockSize])
	d.len = binary.BigEndian.Uint64(b[BlockSize:])
	d.nx = int(d.len % BlockSize)
	return nil
}
