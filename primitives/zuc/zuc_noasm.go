// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build purego || !(amd64 || arm64)

package zuc

// Without assembly every kernel is the generic Go code; see the dispatch
// files zuc_asm_amd64.go and zuc_asm_arm64.go for what the kernels do.

func initState(s *state) { initialiseGeneric(s) }

func initStateBlock(s *state, ks *[4 * blockWords]byte) {
	initialiseGeneric(s)
	xorKeyStreamGeneric(s, ks[:], zeroBlock[:])
}

func genKeyStream(s *state, ks []uint32) { genKeyStreamGeneric(s, ks) }

func xorKeyStream(s *state, dst, src []byte) { xorKeyStreamGeneric(s, dst, src) }

func macBlocks(s *state, ks *[2 * blockWords]uint32, off, words int, tag *[4]uint32, p []byte) {
	macBlocksGeneric(s, ks, off, words, tag, p)
}

func macUpdate(tag *[4]uint32, words int, ks []uint32, p []byte) {
	macUpdateGeneric(tag, words, ks, p)
}

func laneCount() int { return testLanes }

func lanesInit(ls *laneState) { lanesInitGeneric(ls, testLanes) }

func lanesKeyStream(ls *laneState, ks []uint32, stride, blocks int) {
	lanesKeyStreamGeneric(ls, testLanes, ks, stride, blocks)
}

func xorWords(dst, src []byte, ks []uint32) { xorWordsGeneric(dst, src, ks) }
