// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

import (
	"encoding/binary"
	"unsafe"

	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// This file is the single dispatch point for SM3 on arm64: the one-message
// kernel for block, the four-lane NEON kernel for the batch code in mb.go
// and for the KDF.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, and the
// digests that Sum and KDFInto keep on the stack would move to the heap.
var (
	useNEON   = cpu.ARM64.HasASIMD
	useSM3Ext = cpu.ARM64.HasSM3
)

func init() {
	impl.Register("sm3", "neon", &useNEON)
	impl.Register("sm3", "sm3-ext", &useSM3Ext)
}

// block compresses the whole blocks of p into h.
func block(h *[8]uint32, p []byte) {
	switch {
	case useSM3Ext:
		blockSM3(h, p)
	case useNEON:
		blockNEON(h, p)
	default:
		blockGeneric(h, p)
	}
}

// final writes to out the digest of a message whose last n bytes are
// x[:n]; see finalGeneric.
func final(h *[8]uint32, x *[2 * BlockSize]byte, n int, bits uint64, out *[Size]byte) {
	finalGeneric(h, x, n, bits, out)
}

// multiLanes is the most messages one multi-buffer call takes.
func multiLanes() int {
	if useNEON {
		return 4
	}
	return 1
}

// multiWidth returns the width of the kernel to run while k >= 1 lanes
// have blocks left, or 1 for one message at a time. With the SM3
// instructions a single message runs at a few cycles per round, faster
// than a round of four NEON lanes, so the lanes are only used without
// them, and from three lanes on: a four-lane round is some forty NEON
// instructions against about a dozen scalar ones for one message, so two
// lanes would not pay. (These thresholds are estimates from instruction
// counts; the tests run under qemu, which says nothing about speed.)
func multiWidth(k int) int {
	if useNEON && !useSM3Ext && k >= 3 {
		return 4
	}
	return 1
}

// multiBlock runs the four-lane kernel over n blocks of each lane.
func multiBlock(w int, st *[8][16]uint32, p *[16]*byte, n int) {
	blockMulti4NEON(st, p, n)
}

// kdfLanes returns how many KDF output blocks one kdfBlocks call computes
// when k >= 1 are wanted, or 0 to compute them one at a time.
func kdfLanes(k int) int {
	if multiWidth(k) == 4 {
		return 4
	}
	return 0
}

// kdfBlocks computes the output blocks with the four-lane kernel.
func kdfBlocks(lanes int, out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int) {
	kdfViaMulti(4, out, h, msg, ct, ctw, cts, blocks)
}

func kdf64(h *[8]uint32, z *[64]byte, ct uint32, out *[Size]byte) { kdf64Final(h, z, ct, out) }

// kdfViaMulti computes lanes KDF output blocks, as the dedicated KDF
// kernels do, with the multi-buffer kernel of width lanes: each lane gets
// the tail with its own counter.
func kdfViaMulti(lanes int, out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int) {
	var bufs [maxLanes][2 * BlockSize]byte
	var st [8][16]uint32
	var ptr [16]*byte
	for l := range lanes {
		b := &bufs[l]
		for i := range 16 * blocks {
			binary.BigEndian.PutUint32(b[4*i:], msg[i])
		}
		c := ct + uint32(l)
		at := 4*ctw + cts
		b[at], b[at+1], b[at+2], b[at+3] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
		ptr[l] = &b[0]
		for i := range h {
			st[i][l] = h[i]
		}
	}
	multiBlock(lanes, &st, &ptr, blocks)
	dst := unsafe.Slice(out, Size*lanes)
	for l := range lanes {
		for i := range 8 {
			binary.BigEndian.PutUint32(dst[Size*l+4*i:], st[i][l])
		}
	}
	clear(bufs[:lanes])
	clear(st[:])
}
