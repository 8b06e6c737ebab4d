// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

//go:generate sh -c "cd _asm && go run . -out ../sm3block_amd64.s"

// blockAVX2 compresses the len(p)/64 whole blocks of p into h. It expands
// the message of two blocks at a time in the halves of YMM registers, under
// the scalar rounds (RORX, ANDN) of the first block; the second block's
// rounds read the stored schedule. Needs AVX2, BMI1 and BMI2.
//
//go:noescape
func blockAVX2(h *[8]uint32, p []byte)
