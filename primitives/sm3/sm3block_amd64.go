// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

import (
	"github.com/shangmi-go/shangmi/primitives/internal/impl"
	"golang.org/x/sys/cpu"
)

// This file is the single dispatch point for SM3 on amd64.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, and the
// digests that Sum and KDFInto keep on the stack would move to the heap.
var (
	useAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2
	useAVX512 = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
)

func init() {
	impl.Register("sm3", "avx2", &useAVX2)
	impl.Register("sm3", "avx512", &useAVX512)
}

func block(dig *digest, p []byte) {
	if useAVX2 {
		blockAVX2(&dig.h, p)
		return
	}
	blockGeneric(dig, p)
}
