// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

import "github.com/shangmi-go/shangmi/primitives/internal/impl"

// This file is the single dispatch point for SM3 on arm64.
var useSM3Ext = false

func init() {
	impl.Register("sm3", "sm3-ext", &useSM3Ext)
}

func block(h *[8]uint32, p []byte) { blockGeneric(h, p) }

func multiLanes() int { return 1 }

func multiWidth(k int) int { return 1 }

func multiBlock(w int, st *[8][16]uint32, p *[16]*byte, n int) {
	panic("sm3: no multi-buffer kernel")
}

func kdfLanes(k int) int { return 0 }

func kdfBlocks(lanes int, out *byte, h *[8]uint32, msg *[32]uint32, ct uint32, ctw, cts, blocks int) {
	panic("sm3: no KDF kernel")
}
