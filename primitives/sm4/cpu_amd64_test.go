// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm4

import (
	"crypto/cipher"
	"debug/elf"
	"debug/gosym"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// cpuinfoFlags returns the CPU's feature flags from /proc/cpuinfo, nil
// off Linux or if it cannot be read.
func cpuinfoFlags() []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			return strings.Fields(v)
		}
	}
	return nil
}

// forcedVAES256 is set, before the package's init registers the kernels,
// on a CPU that has VAES but not AVX-512 (Zen 3, Alder Lake): x/sys/cpu
// reports VAES only with AVX-512, so production code never takes the
// VAES-AVX2 kernels there, and no CPU with AVX-512 and VAES lacks GFNI, so
// without this no test would ever run them. The tests' impl.ForEach then
// includes "vaes-avx2" on such a CPU.
var forcedVAES256 = forceVAES256()

func forceVAES256() bool {
	f := cpuinfoFlags()
	if useVAES256 || !useAESNI128 || !slices.Contains(f, "vaes") {
		return false
	}
	useVAES256 = true
	return true
}

// TestExpectedKernels reads the CPU's features from /proc/cpuinfo, not
// through golang.org/x/sys/cpu, and checks that every kernel the CPU can
// run is registered as available, so that a broken feature check cannot
// silently fall back to slower code.
func TestExpectedKernels(t *testing.T) {
	flags := cpuinfoFlags()
	if flags == nil {
		t.Skip("reads /proc/cpuinfo")
	}
	has := func(fs ...string) bool {
		for _, f := range fs {
			if !slices.Contains(flags, f) {
				return false
			}
		}
		return true
	}
	// x/sys/cpu reports GFNI and VAES only with AVX-512 (see sm4_asm_amd64.go),
	// hence avx512f in the GFNI-AVX2 row; VAES-AVX2 is forced on for the
	// tests where x/sys/cpu misses it (forcedVAES256).
	want := map[string]bool{
		"gfni-avx512": has("avx512f", "avx512bw", "avx512vl", "gfni", "vpclmulqdq", "pclmulqdq"),
		"gfni-avx2":   has("avx2", "gfni", "pclmulqdq", "avx512f"),
		"vaes-avx2":   has("avx2", "vaes", "aes", "pclmulqdq"),
		"aesni-avx2":  has("avx2", "aes", "pclmulqdq"),
	}
	got := impl.List("sm4")
	for name, ok := range want {
		if ok != slices.Contains(got, name) {
			t.Errorf("kernel %s: CPU supports it: %v, registered as available: %v", name, ok, !ok)
		}
	}
	t.Logf("kernels on this CPU: %v (vaes-avx2 forced for the tests: %v)", got, forcedVAES256)
}

// TestAVX2KernelsHaveNoEVEX checks the machine code of the kernels meant for
// CPUs without AVX-512 for EVEX-encoded instructions: the Go assembler picks
// EVEX when the operands need it (X16-X31, masks, some forms), and such a
// kernel would still pass every test on an AVX-512 machine. It reads this
// test binary's own text with the line table: every assembly source line is
// one instruction, so an instruction starts where the line changes, and an
// EVEX instruction starts with the byte 0x62.
func TestAVX2KernelsHaveNoEVEX(t *testing.T) {
	f, err := elf.Open(os.Args[0])
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	text, pcln := f.Section(".text"), f.Section(".gopclntab")
	if text == nil || pcln == nil {
		t.Skip("no .text or .gopclntab")
	}
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	pclnData, err := pcln.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(pclnData, text.Addr))
	if err != nil {
		t.Fatal(err)
	}
	kernel := regexp.MustCompile(`/sm4\.([a-zA-Z0-9]+(GFNI256|VAES256|AESNI128)|latKeysGFNI|latKeysAESNI|expandKeyGFNI|expandKeyAESNI|ghashPCLMUL)$`)
	funcs, insns := 0, 0
	for _, fn := range tab.Funcs {
		if !kernel.MatchString(fn.Name) {
			continue
		}
		funcs++
		last := -1
		for pc := fn.Entry; pc < fn.End; pc++ {
			_, line, _ := tab.PCToLine(pc)
			if line == last {
				continue
			}
			last = line
			insns++
			if code[pc-text.Addr] == 0x62 {
				t.Errorf("%s: EVEX instruction at sm4_amd64.s:%d", fn.Name, line)
			}
		}
	}
	if funcs < 23 || insns < 5000 {
		t.Fatalf("found only %d AVX2 kernels with %d instructions", funcs, insns)
	}
}

// TestFusedPathsTaken checks, on a CPU with the AVX-512 kernels, that the
// modes crypto/cipher hands to this package (see TestFastPathsTaken) reach
// the fused kernels: the bulk entry points that GCM and XTS call take the
// whole groups of a message.
func TestFusedPathsTaken(t *testing.T) {
	if !slices.Contains(impl.List("sm4"), "gfni-avx512") {
		t.Skip("no AVX-512 kernels on this CPU")
	}
	defer impl.Reset("sm4")
	impl.Select("sm4", "gfni-avx512")
	b, _ := NewCipher(make([]byte, 16))
	a, _ := cipher.NewGCM(b)
	g, ok := a.(*gcm)
	if !ok {
		t.Fatalf("cipher.NewGCM returned %T", a)
	}
	buf := make([]byte, 4096+100)
	var y [16]byte
	var ctr [2]uint64
	if n := gcmSealBulk(g, &y, &ctr, buf, buf); n != 4096 {
		t.Errorf("GCM seal: the fused kernel took %d of %d bytes", n, len(buf))
	}
	if n := gcmOpenBulk(g, &y, &ctr, buf, buf); n != 4096 {
		t.Errorf("GCM open: the fused kernel took %d of %d bytes", n, len(buf))
	}
	x, _ := NewXTS(make([]byte, 32))
	tw := xtsTweak{}
	if n := xtsBulk(x, buf, buf, &tw, true); n != 4096 {
		t.Errorf("XTS: the fused kernel took %d of %d bytes", n, len(buf))
	}
}

// TestLatKeysAESNI checks the nibble-table mapping of the latency keys,
// which CPUs without GFNI use, against the GFNI one.
func TestLatKeysAESNI(t *testing.T) {
	if !hasGFNI || !hasAESNI {
		t.Skip("needs both GFNI and AES-NI")
	}
	r := newRand(t)
	for range 100 {
		var rk [32]uint32
		for i := range rk {
			rk[i] = uint32(r.Uint64())
		}
		var a, b [36]uint32
		latKeysGFNI(&rk, &a)
		latKeysAESNI(&rk, &b)
		if a != b {
			t.Fatalf("latency keys differ: %x\n%x", a, b)
		}
	}
}
