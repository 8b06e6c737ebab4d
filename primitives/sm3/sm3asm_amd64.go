// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

//go:generate sh -c "cd _asm && go run . -out ../sm3block_amd64.s"

// blockAVX2 compresses the len(p)/64 whole blocks of p into h. It expands
// the message of two blocks at a time in the halves of YMM registers, under
// the scalar rounds (RORX, ANDN) of the first block; the second block's
// rounds read the stored schedule. Needs AVX2, BMI1 and BMI2.
//
//go:noescape
func blockAVX2(h *[8]uint32, p []byte)

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
