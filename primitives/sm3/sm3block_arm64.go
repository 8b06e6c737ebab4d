// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

import "github.com/shangmi-go/shangmi/primitives/internal/impl"

// This file is the single dispatch point for SM3 on arm64. A kernel using
// the Armv8.2 SM3 instructions (SM3SS1, SM3TT1A/B, SM3TT2A/B, SM3PARTW1/2)
// will be chosen here with a plain if-ladder on this flag, read once from
// the CPU. Until the kernel exists the flag stays false, so impl.List
// reports no alternative, the tests' impl.ForEach("sm3", ...) runs the
// generic code only, and every call goes to blockGeneric.
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, and the
// digests that Sum and KDFInto keep on the stack would move to the heap.
var useSM3Ext = false

func init() {
	impl.Register("sm3", "sm3-ext", &useSM3Ext)
}

func block(dig *digest, p []byte) {
	blockGeneric(dig, p)
}
