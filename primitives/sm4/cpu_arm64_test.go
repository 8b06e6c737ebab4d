// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm4

import (
	"encoding/binary"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// TestExpectedKernels reads the CPU's features from the auxiliary vector
// (/proc/self/auxv, which qemu-user also provides), not through
// golang.org/x/sys/cpu, and checks that every kernel the CPU can run is
// registered as available.
func TestExpectedKernels(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/auxv")
	}
	auxv, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		t.Skip(err)
	}
	const atHWCAP = 16
	var hwcap uint64
	for i := 0; i+16 <= len(auxv); i += 16 {
		if binary.LittleEndian.Uint64(auxv[i:]) == atHWCAP {
			hwcap = binary.LittleEndian.Uint64(auxv[i+8:])
		}
	}
	const (
		hwcapAES   = 1 << 3
		hwcapPMULL = 1 << 4
		hwcapSM4   = 1 << 19
	)
	want := map[string]bool{
		"neon": hwcap&hwcapAES != 0 && hwcap&hwcapPMULL != 0,
		"sm4e": hwcap&hwcapSM4 != 0 && hwcap&hwcapPMULL != 0,
	}
	got := impl.List("sm4")
	for name, ok := range want {
		if ok != slices.Contains(got, name) {
			t.Errorf("kernel %s: CPU supports it: %v, registered as available: %v", name, ok, !ok)
		}
	}
	t.Logf("HWCAP %#x, kernels on this CPU: %v", hwcap, got)
}
