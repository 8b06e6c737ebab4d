// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package zuc

import (
	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// This file is the single dispatch point for ZUC on arm64: the flag is
// read once from the CPU, every kernel entry point below is a plain
// if-ladder on it (not a function variable, which would hide the callee
// from escape analysis).
//
// useNEON: S0 by TBL over the table in V16-V31, S1 by AESE, the MACs by
// PMULL, 4 lanes.
var useNEON = cpu.ARM64.HasASIMD && cpu.ARM64.HasAES && cpu.ARM64.HasPMULL

func init() {
	impl.Register("zuc", "neon", &useNEON)
}

func initState(s *state) {
	if useNEON {
		initNEON(s)
		return
	}
	initialiseGeneric(s)
}

func initStateBlock(s *state, ks *[4 * blockWords]byte) {
	initState(s)
	xorKeyStream(s, ks[:], zeroBlock[:])
}

func genKeyStream(s *state, ks []uint32) {
	ks = ks[:len(ks)&^(blockWords-1)]
	if useNEON {
		keyStreamNEON(s, ks)
		return
	}
	genKeyStreamGeneric(s, ks)
}

func xorKeyStream(s *state, dst, src []byte) {
	src = src[:len(src)&^(4*blockWords-1)]
	dst = dst[:len(src)]
	if useNEON {
		xorKeyStreamNEON(s, dst, src)
		return
	}
	xorKeyStreamGeneric(s, dst, src)
}

func macBlocks(s *state, ks *[2 * blockWords]uint32, off, words int, tag *[4]uint32, p []byte) {
	p = p[:len(p)&^(macBlock-1)]
	if useNEON && off <= 4 {
		macBlocksNEON(s, ks, off, tag, p)
		return
	}
	macBlocksGeneric(s, ks, off, words, tag, p)
}

func macUpdate(tag *[4]uint32, words int, ks []uint32, p []byte) {
	if useNEON && len(p)%macBlock == 0 && len(ks) >= len(p)/4+4 {
		macUpdatePMULL(tag, ks, p)
		return
	}
	macUpdateGeneric(tag, words, ks, p)
}

func laneCount() int {
	if useNEON {
		return 4
	}
	return testLanes
}

func lanesInit(ls *laneState) {
	if useNEON {
		lanesInitNEON(ls)
		return
	}
	lanesInitGeneric(ls, testLanes)
}

func lanesKeyStream(ls *laneState, ks []uint32, stride, blocks int) {
	n := laneCount()
	if blocks <= 0 || n == 0 {
		return
	}
	_ = ks[(n-1)*stride+blocks*blockWords-1] // every lane's output fits
	if useNEON {
		lanesKeyStreamNEON(ls, ks, stride, blocks)
		return
	}
	lanesKeyStreamGeneric(ls, testLanes, ks, stride, blocks)
}

// xorWords sets dst = src XOR the big-endian bytes of ks; len(dst) ==
// len(src) == 4*len(ks), len(ks) even.
func xorWords(dst, src []byte, ks []uint32) {
	if useNEON {
		n := len(src) &^ 15
		_, _ = dst[:n], ks[:n/4]
		xorWordsNEON(dst, src, ks)
		dst, src, ks = dst[n:], src[n:], ks[n/4:]
	}
	xorWordsGeneric(dst, src, ks)
}
