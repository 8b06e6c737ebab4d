// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"encoding/binary"
	"errors"
	"hash"
)

// macBlock is the number of message bytes the MACs absorb per keystream
// batch: one message bit per keystream bit.
const macBlock = 4 * blockWords

// macCore is the part of a MAC's state that Reset restores: the ZUC state
// and the keystream window, exactly as they were right after initialisation.
type macCore struct {
	st state
	// ks is the keystream window for the current block of the message:
	// ks[off+j] ‖ ks[off+j+1] pairs with message word j of the block (for
	// tag word 0). It always holds the batch of the current block and the
	// next one, so that the windows that straddle the block boundary and
	// the final windows are available without generating more keystream.
	ks  [2 * blockWords]uint32
	tag [4]uint32
}

// mac is the universal-hash MAC shared by 128-EIA3 and the ZUC-256 MAC: the
// tag is the XOR of the keystream windows that start at the message's set
// bits, plus the window just after the message (and, for EIA3, one more
// keystream word).
type mac struct {
	macCore
	init  macCore
	words int // tag size in 32-bit words: 1, 2 or 4
	off   int // keystream words used before the message windows start
	eia3  bool
	x     [macBlock]byte // buffered message bytes
	nx    int
}

func (m *mac) setup() {
	genKeyStream(&m.st, m.ks[:])
	if !m.eia3 {
		// ZUC-256 MAC: the first t bits of keystream are the initial tag
		// and the message windows start right after them.
		copy(m.tag[:m.words], m.ks[:m.words])
		m.off = m.words
	}
	m.init = m.macCore
}

func (m *mac) reset() {
	m.macCore = m.init
	m.nx = 0
}

// blocks absorbs whole 64-byte blocks of p.
func (m *mac) blocks(p []byte) {
	macBlocks(&m.st, &m.ks, m.off, m.words, &m.tag, p[:len(p)&^(macBlock-1)])
}

func (m *mac) write(p []byte) {
	if m.nx > 0 {
		n := copy(m.x[m.nx:], p)
		m.nx += n
		p = p[n:]
		if m.nx < macBlock {
			return
		}
		m.blocks(m.x[:])
		m.nx = 0
	}
	if len(p) >= macBlock {
		n := len(p) / macBlock * macBlock
		m.blocks(p[:n])
		p = p[n:]
	}
	m.nx = copy(m.x[:], p)
}

// sum returns the tag of the message written so far followed by the first
// extra bits of last (0 ≤ extra < 8), without changing m. The unwritten
// message bits never exceed one block, so the windows it needs are all in
// m.ks.
func (m *mac) sum(last byte, extra int) [4]uint32 {
	var x [macBlock]byte
	copy(x[:], m.x[:m.nx])
	nbits := 8*m.nx + extra
	if extra > 0 {
		x[m.nx] = last & (0xff << (8 - extra))
	}
	tag := m.tag
	finishTag(&tag, m.words, m.eia3, m.ks[m.off:], &x, nbits)
	return tag
}

// finishTag adds the last nbits (< 512) message bits, x, to the first words
// words of tag. ks is the keystream from the window of x's first word on
// (for tag word 0); bits of x beyond nbits must be zero.
func finishTag(tag *[4]uint32, words int, eia3 bool, ks []uint32, x *[macBlock]byte, nbits int) {
	// Whole words through the generic kernel; the last partial word has
	// its unused low bits cleared, and zero bits add nothing.
	n := (nbits + 31) / 32 * 4
	for i := range words {
		t := eiaUpdateGeneric(tag[i], ks[i:], x[:n])
		tag[i] = t ^ window(ks, 32*i+nbits)
	}
	if eia3 {
		// 128-EIA3 adds keystream word z_L, L = ⌈LENGTH/32⌉ + 2.
		tag[0] ^= ks[(nbits+31)/32+1]
	}
}

// window returns the 32 keystream bits starting at bit b of ks.
func window(ks []uint32, b int) uint32 {
	k := uint64(ks[b/32])<<32 | uint64(ks[b/32+1])
	return uint32(k << (b % 32) >> 32)
}

// appendTag appends the first words of tag, big-endian, to b.
func appendTag(b []byte, tag *[4]uint32, words int) []byte {
	for _, t := range tag[:words] {
		b = binary.BigEndian.AppendUint32(b, t)
	}
	return b
}

// finishBits is FinishBits for both MACs.
func (m *mac) finishBits(b, p []byte, nbits int) ([]byte, error) {
	if nbits < 0 || len(p) < (nbits+7)/8 {
		return nil, errors.New("zuc: message shorter than its bit length")
	}
	tmp := *m
	whole := nbits / 8
	tmp.write(p[:whole])
	var last byte
	if nbits%8 != 0 {
		last = p[whole]
	}
	tag := tmp.sum(last, nbits%8)
	return appendTag(b, &tag, m.words), nil
}

// EIA3 is the 128-EIA3 message authentication code (3GPP LTE/5G integrity
// algorithm EIA3/NIA3, built on ZUC-128). It implements [hash.Hash] with a
// 4-byte Sum (MAC-I, big-endian); messages whose length is not a whole
// number of bytes are finished with [EIA3.FinishBits].
type EIA3 struct {
	m mac
}

// eia3IV builds the ZUC-128 IV of 128-EIA3 (ETSI SAGE 128-EEA3 & 128-EIA3
// specification, 4.3): DIRECTION is folded into bytes 8 and 14.
func eia3IV(iv *[16]byte, count, bearer, direction uint32) {
	binary.BigEndian.PutUint32(iv[0:], count)
	iv[4] = byte(bearer << 3)
	iv[5], iv[6], iv[7] = 0, 0, 0
	iv[8] = iv[0] ^ byte(direction<<7)
	iv[9], iv[10], iv[11] = iv[1], iv[2], iv[3]
	iv[12] = iv[4]
	iv[13] = iv[5]
	iv[14] = iv[6] ^ byte(direction<<7)
	iv[15] = iv[7]
}

// NewEIA3 returns a 128-EIA3 MAC for a 16-byte key, the 32-bit COUNT, the
// 5-bit BEARER and the 1-bit DIRECTION.
func NewEIA3(key []byte, count, bearer, direction uint32) (*EIA3, error) {
	if len(key) != 16 {
		return nil, KeySizeError(len(key))
	}
	if bearer >= 32 || direction >= 2 {
		return nil, errEEA3Params
	}
	var iv [16]byte
	eia3IV(&iv, count, bearer, direction)
	h := &EIA3{m: mac{words: 1, eia3: true}}
	var pre [16]uint32
	loadKey128(&pre, key)
	loadIV128(&h.m.st, &pre, iv[:])
	initState(&h.m.st)
	h.m.setup()
	return h, nil
}

// Size returns 4, the size of MAC-I in bytes.
func (h *EIA3) Size() int { return 4 }

// BlockSize returns 64: writes of whole multiples of it avoid buffering.
func (h *EIA3) BlockSize() int { return macBlock }

// Reset returns h to the state right after [NewEIA3], from a copy kept then,
// without running ZUC's initialisation again.
func (h *EIA3) Reset() { h.m.reset() }

// Write absorbs p. It never returns an error.
func (h *EIA3) Write(p []byte) (int, error) {
	h.m.write(p)
	return len(p), nil
}

// Clone returns an independent copy of h, so that a common prefix can be
// hashed once and finished in several ways.
func (h *EIA3) Clone() (hash.Cloner, error) {
	c := *h
	return &c, nil
}

// Sum appends the MAC of the bytes written so far to b; h is unchanged.
func (h *EIA3) Sum(b []byte) []byte {
	tag := h.m.sum(0, 0)
	return appendTag(b, &tag, 1)
}

// FinishBits appends to b the MAC of the bytes written so far followed by
// the first nbits bits of p (most significant bit of p[0] first), which is
// how 128-EIA3 authenticates a message whose LENGTH is not a multiple of 8:
// write nothing (or the leading whole bytes) and pass the message and
// LENGTH here. Bits of p beyond nbits are ignored. h is unchanged, like
// after Sum. It fails only if p is shorter than ⌈nbits/8⌉ bytes or nbits is
// negative.
func (h *EIA3) FinishBits(b, p []byte, nbits int) ([]byte, error) {
	return h.m.finishBits(b, p, nbits)
}

// MAC256 is the ZUC-256 MAC of the 2018 specification (v1.1) with a 32-,
// 64- or 128-bit tag. [NewMAC256] returns it as a [hash.Hash].
type MAC256 struct {
	m mac
}

// NewMAC256 returns the ZUC-256 MAC for a 32-byte key, a 23- or 25-byte IV
// (as for [NewCipher]) and a tag of tagSize bytes: 4, 8 or 16. The
// returned hash is a *[MAC256], which also has FinishBits for messages that
// are not whole bytes.
func NewMAC256(key, iv []byte, tagSize int) (hash.Hash, error) {
	if len(key) != 32 {
		return nil, KeySizeError(len(key))
	}
	d := zuc256D
	switch tagSize {
	case 4:
		copy(d[:3], zuc256MACD[0][:])
	case 8:
		copy(d[:3], zuc256MACD[1][:])
	case 16:
		copy(d[:3], zuc256MACD[2][:])
	default:
		return nil, errors.New("zuc: ZUC-256 MAC tag size must be 4, 8 or 16 bytes")
	}
	var v [25]uint8
	if len(iv) != 23 && len(iv) != 25 {
		return nil, IVSizeError(len(iv))
	}
	if !unpackIV256(&v, iv) {
		return nil, errIV256
	}
	h := &MAC256{m: mac{words: tagSize / 4}}
	var pre [16]uint32
	loadKey256(&pre, key, &d)
	loadIV256(&h.m.st, &pre, &v)
	initState(&h.m.st)
	h.m.setup()
	return h, nil
}

// Size returns the tag size in bytes.
func (h *MAC256) Size() int { return 4 * h.m.words }

// BlockSize returns 64: writes of whole multiples of it avoid buffering.
func (h *MAC256) BlockSize() int { return macBlock }

// Reset returns h to the state right after [NewMAC256] without running
// ZUC's initialisation again.
func (h *MAC256) Reset() { h.m.reset() }

// Write absorbs p. It never returns an error.
func (h *MAC256) Write(p []byte) (int, error) {
	h.m.write(p)
	return len(p), nil
}

// Clone returns an independent copy of h.
func (h *MAC256) Clone() (hash.Cloner, error) {
	c := *h
	return &c, nil
}

// Sum appends the tag of the bytes written so far to b; h is unchanged.
func (h *MAC256) Sum(b []byte) []byte {
	tag := h.m.sum(0, 0)
	return appendTag(b, &tag, h.m.words)
}

// FinishBits appends to b the tag of the bytes written so far followed by
// the first nbits bits of p; see [EIA3.FinishBits].
func (h *MAC256) FinishBits(b, p []byte, nbits int) ([]byte, error) {
	return h.m.finishBits(b, p, nbits)
}
