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

// TestKernelsAvailable makes sure a broken feature check cannot make this
// machine's tests silently run the generic code only.
func TestKernelsAvailable(t *testing.T) {
	have := impl.List("zuc")
	if cpu.X86.HasAVX2 && cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ && !slices.Contains(have, "avx2") {
		t.Errorf("CPU has AVX2, AES-NI and PCLMULQDQ but the avx2 kernels are not available (have %v)", have)
	}
	if cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512GFNI && cpu.X86.HasAVX512VBMI2 && !slices.Contains(have, "avx512") {
		t.Errorf("CPU has AVX-512 VBMI, VBMI2 and GFNI but the avx512 kernels are not available (have %v)", have)
	}
	t.Logf("zuc kernels: %v", have)
}
