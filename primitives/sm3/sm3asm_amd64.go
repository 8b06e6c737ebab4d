// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

// blockAVX2 compresses the len(p)/64 whole blocks of p into h. It expands
// the message of two blocks at a time in the halves of YMM registers, under
// the scalar rounds (RORX, ANDN) of the first block; the second block's
// rounds read the stored schedule. Needs AVX2, BMI1 and BMI2.
//
//go:noescape
func blockAVX2(h *[8]uint32, p []byte)

// finalAVX2 writes to out the digest of a message whose last n <= 119
// bytes are x[:n], with chaining value h before them and bits bits in all:
// the padding is built in registers, so x[n:] may hold anything, and h is
// not changed. Needs AVX2, BMI1 and BMI2.
//
//go:noescape
func finalAVX2(h *[8]uint32, x *[2 * BlockSize]byte, n int, bits uint64, out *[Size]byte)

// blockMulti16AVX512 compresses n consecutive blocks of each of 16
// messages, lane l reading from p[l], into the transposed chaining values
// st (word i of lane l at st[i][l]). Needs AVX-512 F and BW.
//
//go:noescape
func blockMulti16AVX512(st *[8][16]uint32, p *[16]*byte, n int)

// blockMulti8AVX2 is blockMulti16AVX512 for the first 8 lanes, in AVX2.
//
//go:noescape
func blockMulti8AVX2(st *[8][16]uint32, p *[16]*byte, n int)

// kdfMulti32AVX512 computes 32 KDF output blocks: for lane l < 32 it
// compresses the blocks (1 or 2) blocks of the template words msg from the
// chaining value h, with the big-endian counter ct+l placed at byte 4*ctw+cts
// of the template (whose counter bytes are zero), and writes the digest to
// out[32*l:32*l+32]. out must have room for 32*32 bytes. Needs AVX-512 F and BW.
//
//go:noescape
func kdfMulti32AVX512(out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int)

// kdfMulti16AVX512 is kdfMulti32AVX512 for 16 lanes.
//
//go:noescape
func kdfMulti16AVX512(out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int)

// kdfMulti8AVX2 is kdfMulti32AVX512 for 8 lanes, in AVX2.
//
//go:noescape
func kdfMulti8AVX2(out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int)

// kdf64AVX2 writes to out the digest, after chaining value h, of the 64
// bytes of z followed by the big-endian counter ct: a 68-byte message,
// two blocks, the second built in registers.
//
//go:noescape
func kdf64AVX2(h *[8]uint32, z *[64]byte, ct uint32, out *[Size]byte)
