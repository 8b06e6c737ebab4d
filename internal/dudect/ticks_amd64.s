// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

#include "textflag.h"

// func ticks() uint64
//
// LFENCE before RDTSC keeps the read from being executed ahead of the
// measured instructions (and the previous read), as dudect's own counter
// does; the time stamp counter runs at a constant rate on every CPU this
// is used on, so it counts reference cycles.
TEXT ·ticks(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET
