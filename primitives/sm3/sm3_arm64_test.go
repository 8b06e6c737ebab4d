// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

import (
	"encoding/binary"
	"os"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// TestKernelsAvailable checks the kernels registered against the hardware
// capabilities in the auxiliary vector, read here directly rather than
// through golang.org/x/sys/cpu, so that a broken feature check cannot
// silently fall back to slower code. Under qemu-aarch64 (CPU "max") both
// kernels must be there.
func TestKernelsAvailable(t *testing.T) {
	auxv, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		t.Skip("no /proc/self/auxv")
	}
	const (
		atHWCAP    = 16
		hwcapASIMD = 1 << 1
		hwcapSM3   = 1 << 18
	)
	var hwcap uint64
	for len(auxv) >= 16 {
		tag, val := binary.LittleEndian.Uint64(auxv), binary.LittleEndian.Uint64(auxv[8:])
		if tag == atHWCAP {
			hwcap = val
		}
		auxv = auxv[16:]
	}
	var want []string
	if hwcap&hwcapASIMD != 0 {
		want = append(want, "neon")
	}
	if hwcap&hwcapSM3 != 0 {
		want = append(want, "sm3-ext")
	}
	if got := impl.List("sm3"); !slices.Equal(got, want) {
		t.Errorf("sm3 kernels = %v, want %v from AT_HWCAP %#x", got, want, hwcap)
	}
}
