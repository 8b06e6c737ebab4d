// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package zuc

import (
	"unsafe"

	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// This file is the single dispatch point for ZUC on amd64. The flags are
// read once from the CPU; every kernel entry point below is a plain
// if-ladder on them. Dispatch is a function with an if-ladder rather than
// a function variable: a call through a variable hides the callee from
// escape analysis, and the buffers the callers keep on the stack would
// move to the heap.
//
// The kernels (zuc_amd64.s, declared in zuc_amd64.go, both generated
// by _asm) exist for two families of CPUs: AVX512 (AVX-512 F/BW/VL with
// VBMI, VBMI2, GFNI and VPCLMULQDQ) and AVX2 (AVX2 with AES-NI and
// PCLMULQDQ). The functions below check every length first.
var (
	// useAVX512: S0 by VPERMI2B over the table in four ZMM registers, S1
	// by GFNI, the MACs by PCLMULQDQ, 16 lanes.
	useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL &&
		cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasAVX512GFNI &&
		cpu.X86.HasAVX512VPCLMULQDQ && cpu.X86.HasPCLMULQDQ
	// useAVX2: S0 by its nibble structure over VPSHUFB, S1 by AESENCLAST,
	// the MACs by PCLMULQDQ, 8 lanes.
	useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ
)

func init() {
	impl.Register("zuc", "avx512", &useAVX512)
	impl.Register("zuc", "avx2", &useAVX2)
}

// words and lanes.words are a state and a laneState as the kernels take
// them, arrays of the same size and layout (avo types a kernel's arguments
// with Go's basic types only). Neither type holds a pointer.
func (s *state) words() *[18]uint32 { return (*[18]uint32)(unsafe.Pointer(s)) }

func (ls *laneState) words() *[18][16]uint32 { return (*[18][16]uint32)(unsafe.Pointer(ls)) }

// Both sizes are checked at compile time: a negative array length does not
// compile.
var (
	_ [unsafe.Sizeof(state{}) - unsafe.Sizeof([18]uint32{})]byte
	_ [unsafe.Sizeof([18]uint32{}) - unsafe.Sizeof(state{})]byte
	_ [unsafe.Sizeof(laneState{}) - unsafe.Sizeof([18][16]uint32{})]byte
	_ [unsafe.Sizeof([18][16]uint32{}) - unsafe.Sizeof(laneState{})]byte
)

func initState(s *state) {
	switch {
	case useAVX512:
		initAVX512(s.words())
	case useAVX2:
		initAVX2(s.words())
	default:
		initialiseGeneric(s)
	}
}

func initStateBlock(s *state, ks *[4 * blockWords]byte) {
	switch {
	case useAVX512:
		initBlockAVX512(s.words(), ks)
	case useAVX2:
		initBlockAVX2(s.words(), ks)
	default:
		initialiseGeneric(s)
		xorKeyStreamGeneric(s, ks[:], zeroBlock[:])
	}
}

func genKeyStream(s *state, ks []uint32) {
	ks = ks[:len(ks)&^(blockWords-1)]
	switch {
	case useAVX512:
		keyStreamAVX512(s.words(), ks)
	case useAVX2:
		keyStreamAVX2(s.words(), ks)
	default:
		genKeyStreamGeneric(s, ks)
	}
}

func xorKeyStream(s *state, dst, src []byte) {
	src = src[:len(src)&^(4*blockWords-1)]
	dst = dst[:len(src)]
	switch {
	case useAVX512:
		xorKeyStreamAVX512(s.words(), dst, src)
	case useAVX2:
		xorKeyStreamAVX2(s.words(), dst, src)
	default:
		xorKeyStreamGeneric(s, dst, src)
	}
}

func macBlocks(s *state, ks *[2 * blockWords]uint32, off, words int, tag *[4]uint32, p []byte) {
	p = p[:len(p)&^(macBlock-1)]
	switch {
	case off > 4:
		macBlocksGeneric(s, ks, off, words, tag, p)
	case useAVX512:
		macBlocksAVX512(s.words(), ks, off, tag, p)
	case useAVX2:
		macBlocksAVX2(s.words(), ks, off, tag, p)
	default:
		macBlocksGeneric(s, ks, off, words, tag, p)
	}
}

func macUpdate(tag *[4]uint32, words int, ks []uint32, p []byte) {
	fits := len(p)%macBlock == 0 && len(ks) >= len(p)/4+4
	switch {
	case useAVX512 && fits:
		macUpdateAVX512(tag, ks, p, words)
	case useAVX2 && fits:
		macUpdateCLMUL(tag, ks, p)
	default:
		macUpdateGeneric(tag, words, ks, p)
	}
}

func laneCount() int {
	switch {
	case useAVX512:
		return 16
	case useAVX2:
		return 8
	}
	return testLanes
}

func lanesInit(ls *laneState) {
	switch {
	case useAVX512:
		lanesInitAVX512(ls.words())
	case useAVX2:
		lanesInitAVX2(ls.words())
	default:
		lanesInitGeneric(ls, testLanes)
	}
}

func lanesKeyStream(ls *laneState, ks []uint32, stride, blocks int) {
	n := laneCount()
	if blocks <= 0 || n == 0 {
		return
	}
	_ = ks[(n-1)*stride+blocks*blockWords-1] // every lane's output fits
	switch {
	case useAVX512:
		lanesKeyStreamAVX512(ls.words(), ks, stride, blocks)
	case useAVX2:
		lanesKeyStreamAVX2(ls.words(), ks, stride, blocks)
	default:
		lanesKeyStreamGeneric(ls, testLanes, ks, stride, blocks)
	}
}

// xorWords sets dst = src XOR the big-endian bytes of ks; len(dst) ==
// len(src) == 4*len(ks), len(ks) even.
func xorWords(dst, src []byte, ks []uint32) {
	if useAVX2 || useAVX512 {
		n := len(src) &^ 31
		_, _ = dst[:n], ks[:n/4]
		xorWordsAVX2(dst, src, ks)
		dst, src, ks = dst[n:], src[n:], ks[n/4:]
	}
	xorWordsGeneric(dst, src, ks)
}
