// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux

package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time consumed so far by every thread of this
// process, with nanosecond resolution (CLOCK_PROCESS_CPUTIME_ID).
func processCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
