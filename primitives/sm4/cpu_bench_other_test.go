// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !linux

package sm4

import "testing"

// cpuLoop runs f in b.Loop. Per-thread CPU time is read only on Linux; other
// systems report the usual wall-clock figures alone.
func cpuLoop(b *testing.B, bytes int, f func()) {
	for b.Loop() {
		f()
	}
}
