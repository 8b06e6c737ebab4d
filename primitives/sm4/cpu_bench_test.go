// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux

package sm4

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time consumed by the calling OS thread.
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuLoop runs f in b.Loop and also reports the thread CPU time per
// operation as cpu-MB/s, which stays meaningful on a loaded machine where
// wall-clock time includes time spent waiting for a CPU.
func cpuLoop(b *testing.B, bytes int, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if d := threadCPU() - start; d > 0 && n > 0 {
		b.ReportMetric(float64(bytes)*float64(n)/d.Seconds()/1e6, "cpu-MB/s")
	}
}
