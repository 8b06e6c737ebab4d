// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

// blockSM3 compresses the len(p)/64 whole blocks of p into h with the
// Armv8.2 SM3 instructions (SM3SS1, SM3TT1A/B, SM3TT2A/B, SM3PARTW1/2).
//
//go:noescape
func blockSM3(h *[8]uint32, p []byte)

// blockNEON compresses the len(p)/64 whole blocks of p into h, expanding
// each block with NEON and running the rounds in general registers.
//
//go:noescape
func blockNEON(h *[8]uint32, p []byte)

// blockMulti4NEON compresses n consecutive blocks of each of 4 messages,
// lane l reading from p[l], into the transposed chaining values st (word i
// of lane l at st[i][l]), one message per NEON lane.
//
//go:noescape
func blockMulti4NEON(st *[8][16]uint32, p *[16]*byte, n int)
