// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package zuc

import "github.com/shangmi-go/shangmi/primitives/internal/impl"

// This file is the single dispatch point for ZUC on amd64. An AVX2 kernel
// (several keystream words per call, vector S-box evaluation) and a
// PCLMULQDQ kernel for the EIA3/ZUC-256 MAC will be chosen here with a plain
// if-ladder on these flags, read once from the CPU. Until the kernels exist
// the flags stay false, so impl.List reports no alternative, the tests'
// impl.ForEach("zuc", ...) runs the generic code only, and every call goes
// to the generic Go code.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, and the
// keystream buffers the callers keep on the stack would move to the heap.
var (
	useAVX2  = false
	useCLMUL = false
)

func init() {
	impl.Register("zuc", "avx2", &useAVX2)
	impl.Register("zuc", "pclmulqdq", &useCLMUL)
}

// genKeyStream fills ks (a multiple of 16 words) with the next keystream
// words of s.
func genKeyStream(s *state, ks []uint32) {
	genKeyStreamGeneric(s, ks)
}

// eiaUpdate folds the words of p into the tag t with keystream ks; see
// eiaUpdateGeneric.
func eiaUpdate(t uint32, ks []uint32, p []byte) uint32 {
	return eiaUpdateGeneric(t, ks, p)
}
