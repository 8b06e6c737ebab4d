// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !linux

package main

import "time"

// processCPU is not implemented here; measurements fall back to wall time.
func processCPU() (time.Duration, bool) { return 0, false }
