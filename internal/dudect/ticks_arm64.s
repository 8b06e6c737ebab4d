// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

#include "textflag.h"

// func ticks() uint64
//
// The virtual counter is readable at EL0 on Linux; ISB keeps the read in
// program order. It runs at a fixed frequency (often tens of MHz), coarser
// than cycles, so measured operations must be long enough to span ticks.
TEXT ·ticks(SB), NOSPLIT, $0-8
	ISB  $15
	MRS  CNTVCT_EL0, R0
	MOVD R0, ret+0(FP)
	RET
