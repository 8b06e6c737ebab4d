package sm2ec

import (
	"runtime"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// eachImpl runs f with the CPU's default choice of kernels, then once per
// implementation alone (the generic Go code, and each field, point and
// lookup kernel this CPU has, with everything else generic), so that every
// path and the production combination are tested.
func eachImpl(t *testing.T, f func(t *testing.T)) {
	t.Run("default", f)
	impl.ForEach("sm2", func(name string) { t.Run(name, f) })
}

// TestKernelsAvailable fails if a feature check is broken and this CPU
// silently falls back to slower code.
func TestKernelsAvailable(t *testing.T) {
	var want []string
	if !purego {
		switch runtime.GOARCH {
		case "amd64":
			want = []string{"amd64-mulq", "amd64-invert", "amd64-point-mulq"}
			if cpu.X86.HasBMI2 && cpu.X86.HasADX {
				want = append(want, "amd64-adx", "amd64-point-adx")
			}
			if cpu.X86.HasAVX2 {
				want = append(want, "amd64-lookup-avx2")
			}
			if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
				want = append(want, "amd64-lookup-avx512")
			}
			if cpu.X86.HasBMI2 && cpu.X86.HasADX && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
				want = append(want, "amd64-base-step-adx-avx512")
			}
			if cpu.X86.HasBMI2 && cpu.X86.HasADX && cpu.X86.HasAVX2 {
				want = append(want, "amd64-base-step-adx-avx2")
			}
		case "arm64":
			want = []string{"arm64-field"}
		}
	}
	got := impl.List("sm2")
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("kernel %s not available (have %v)", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("kernels %v, want %v", got, want)
	}
}
