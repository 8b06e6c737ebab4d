// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package zuc

import (
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// TestKernelsAvailable makes sure a broken feature check cannot make the
// tests silently run the generic code only (qemu's default CPU has every
// feature the kernels use).
func TestKernelsAvailable(t *testing.T) {
	have := impl.List("zuc")
	if cpu.ARM64.HasAES && cpu.ARM64.HasPMULL && !slices.Contains(have, "neon") {
		t.Errorf("CPU has NEON, AES and PMULL but the neon kernels are not available (have %v)", have)
	}
	t.Logf("zuc kernels: %v", have)
}
