// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

import (
	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// This file is the single dispatch point for SM3 on amd64: the one-message
// kernel for block, the multi-buffer kernels for the batch code in mb.go.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, and the
// digests that Sum and KDFInto keep on the stack would move to the heap.
var (
	useAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasBMI2
	useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
)

func init() {
	impl.Register("sm3", "avx2", &useAVX2)
	impl.Register("sm3", "avx512", &useAVX512)
}

// block compresses the whole blocks of p into h.
func block(h *[8]uint32, p []byte) {
	if useAVX2 {
		blockAVX2(h, p)
		return
	}
	blockGeneric(h, p)
}

// final writes to out the digest of a message whose last n <= shortMax
// bytes are x[:n] (the rest of x is ignored), after chaining value h, for
// bits bits in all; see finalGeneric.
func final(h *[8]uint32, x *[2 * BlockSize]byte, n int, bits uint64, out *[Size]byte) {
	if useAVX2 {
		finalAVX2(h, x, n, bits, out)
		return
	}
	finalGeneric(h, x, n, bits, out)
}

// kdf64 writes to out the digest, after chaining value h, of z followed by
// the big-endian counter ct; see kdf64Final.
func kdf64(h *[8]uint32, z *[64]byte, ct uint32, out *[Size]byte) {
	if useAVX2 {
		kdf64AVX2(h, z, ct, out)
		return
	}
	kdf64Final(h, z, ct, out)
}

// multiLanes is the most messages one multi-buffer call takes; 1 means the
// batch code hashes one message at a time.
func multiLanes() int {
	switch {
	case useAVX512:
		return 16
	case useAVX2:
		return 8
	}
	return 1
}

// multiWidth returns the width of the kernel that the batch code should run
// while k >= 1 lanes still have blocks, or 1 for one lane at a time. A
// 16-lane step costs about as much as two one-message blocks and an 8-lane
// AVX2 step about as much as three (see the package benchmarks), so with
// fewer lanes the one-message kernel is faster.
func multiWidth(k int) int {
	switch {
	case useAVX512 && k >= 3:
		return 16
	case useAVX2 && k >= 3:
		return 8
	}
	return 1
}

// multiBlock runs the multi-buffer kernel of width w (from multiWidth) over
// n blocks of each lane.
func multiBlock(w int, st *[8][16]uint32, p *[16]*byte, n int) {
	if w == 16 {
		blockMulti16AVX512(st, p, n)
		return
	}
	blockMulti8AVX2(st, p, n)
}

// kdfLanes returns how many KDF output blocks one kdfBlocks call computes
// when k >= 1 are wanted, or 0 to compute them one at a time with block.
// The 32-lane kernel costs about one and a third 16-lane calls; a 16-lane
// call costs about two one-block compressions and an 8-lane AVX2 call
// about three, and z's compression comes on top of the one-block path.
func kdfLanes(k int) int {
	switch {
	case useAVX512 && k > 16:
		return 32
	case useAVX512 && k >= 3:
		return 16
	case useAVX2 && k >= 4:
		return 8
	}
	return 0
}

// kdfBlocks runs the KDF kernel of the width kdfLanes returned.
func kdfBlocks(lanes int, out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int) {
	switch lanes {
	case 32:
		kdfMulti32AVX512(out, h, msg, ct, ctw, cts, blocks)
	case 16:
		kdfMulti16AVX512(out, h, msg, ct, ctw, cts, blocks)
	default:
		kdfMulti8AVX2(out, h, msg, ct, ctw, cts, blocks)
	}
}
