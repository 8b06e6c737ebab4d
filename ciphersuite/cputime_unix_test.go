// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build unix

package ciphersuite

import (
	"syscall"
	"testing"
	"time"
)

// cpuTimer reports the process's CPU time per operation as "cpu-ns/op" next to
// the wall time. On a machine shared with other work the wall time includes time
// spent waiting for a core; CPU time does not, so it compares more steadily.
type cpuTimer struct{ start time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuTimer { return cpuTimer{processCPU()} }

func (c cpuTimer) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
	}
}
