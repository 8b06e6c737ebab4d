// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"
)

// cpuFeatures lists the instruction-set extensions the assembly paths of
// gmsm and of the standard library select on, so a table can be read
// against the machine it came from.
func cpuFeatures() string {
	var f []string
	add := func(ok bool, name string) {
		if ok {
			f = append(f, name)
		}
	}
	switch runtime.GOARCH {
	case "amd64", "386":
		add(cpu.X86.HasAES, "aes")
		add(cpu.X86.HasPCLMULQDQ, "pclmulqdq")
		add(cpu.X86.HasSSSE3, "ssse3")
		add(cpu.X86.HasAVX, "avx")
		add(cpu.X86.HasAVX2, "avx2")
		add(cpu.X86.HasBMI2, "bmi2")
		add(cpu.X86.HasADX, "adx")
		add(cpu.X86.HasAVX512F, "avx512f")
		add(cpu.X86.HasAVX512VAES, "vaes")
		add(cpu.X86.HasAVX512GFNI, "gfni")
	case "arm64":
		add(cpu.ARM64.HasAES, "aes")
		add(cpu.ARM64.HasPMULL, "pmull")
		add(cpu.ARM64.HasSHA2, "sha2")
		add(cpu.ARM64.HasSM3, "sm3")
		add(cpu.ARM64.HasSM4, "sm4")
		add(cpu.ARM64.HasASIMD, "asimd")
	}
	if len(f) == 0 {
		return "(none detected)"
	}
	return strings.Join(f, " ")
}
