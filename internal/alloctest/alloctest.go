// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package alloctest measures what a function allocates, for the tests
// that bound a parser's allocations by its input's size (fuzz targets
// included).
package alloctest

import "runtime"

// Bytes returns the bytes f allocates, the least of three runs: a
// collection or another goroutine can only add to a run.
func Bytes(f func()) uint64 {
	best := ^uint64(0)
	for range 3 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		f()
		runtime.ReadMemStats(&b)
		best = min(best, b.TotalAlloc-a.TotalAlloc)
	}
	return best
}
