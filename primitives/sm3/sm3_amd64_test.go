// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// TestKernelsAvailable checks the kernels registered against the CPU flags
// the kernel reports in /proc/cpuinfo, a source independent of the feature
// checks in the dispatch file, so that a broken check cannot silently fall
// back to slower code.
func TestKernelsAvailable(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo")
	}
	var flags []string
	for line := range strings.Lines(string(info)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = strings.Fields(v)
			break
		}
	}
	has := func(f ...string) bool {
		for _, x := range f {
			if !slices.Contains(flags, x) {
				return false
			}
		}
		return true
	}
	var want []string
	if has("avx2", "bmi1", "bmi2") {
		want = append(want, "avx2")
	}
	if has("avx512f", "avx512bw") {
		want = append(want, "avx512")
	}
	if got := impl.List("sm3"); !slices.Equal(got, want) {
		t.Errorf("sm3 kernels = %v, want %v from /proc/cpuinfo", got, want)
	}
}
