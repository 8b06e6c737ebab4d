// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build purego || !(amd64 || arm64)

package sm3

// The generic code only: either the architecture has no kernel or the
// purego build tag asked for none. The batch code hashes one message at a
// time.

func block(h *[8]uint32, p []byte) { blockGeneric(h, p) }

func final(h *[8]uint32, x *[2 * BlockSize]byte, n int, bits uint64, out *[Size]byte) {
	finalGeneric(h, x, n, bits, out)
}

func multiLanes() int { return 1 }

func multiWidth(k int) int { return 1 }

func multiBlock(w int, st *[8][16]uint32, p *[16]*byte, n int) {
	panic("sm3: no multi-buffer kernel")
}

func kdfLanes(k int) int { return 0 }

func kdfBlocks(lanes int, out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int) {
	panic("sm3: no KDF kernel")
}

func kdf64(h *[8]uint32, z *[64]byte, ct uint32, out *[Size]byte) { kdf64Final(h, z, ct, out) }
