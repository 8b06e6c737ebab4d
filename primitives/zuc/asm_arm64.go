// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package zuc

// The kernels of zuc_arm64.s, printed by the generator in _asm (see
// asm_amd64.go for the go:generate line), for NEON with the AES and PMULL
// instructions. The callers in zuc_arm64.go check every length first.

// initNEON runs ZUC's initialisation on s, as initialiseGeneric.
//
//go:noescape
func initNEON(s *state)

// keyStreamNEON writes the next len(ks) keystream words of s to ks;
// len(ks) is a multiple of 16.
//
//go:noescape
func keyStreamNEON(s *state, ks []uint32)

// xorKeyStreamNEON sets dst = src XOR the next len(src) keystream bytes of
// s; len(src) is a multiple of 64 and dst is at least as long.
//
//go:noescape
func xorKeyStreamNEON(s *state, dst, src []byte)

// macBlocksNEON is macBlocksGeneric for all four tag words at once;
// len(p) is a multiple of 64 and off at most 4.
//
//go:noescape
func macBlocksNEON(s *state, ks *[2 * blockWords]uint32, off int, tag *[4]uint32, p []byte)

// macUpdatePMULL is macUpdateGeneric for all four tag words; len(p) is a
// multiple of 64 and len(ks) at least len(p)/4 + 4.
//
//go:noescape
func macUpdatePMULL(tag *[4]uint32, ks []uint32, p []byte)

// lanesInitNEON initialises the first 4 lanes of ls, as lanesInitGeneric.
//
//go:noescape
func lanesInitNEON(ls *laneState)

// lanesKeyStreamNEON writes 16·blocks keystream words of each of the
// first 4 lanes to ks[l*stride:], as lanesKeyStreamGeneric.
//
//go:noescape
func lanesKeyStreamNEON(ls *laneState, ks []uint32, stride, blocks int)

// xorWordsNEON sets dst = src XOR the big-endian bytes of ks for the
// len(src)/16 whole 16-byte chunks of src.
//
//go:noescape
func xorWordsNEON(dst, src []byte, ks []uint32)
