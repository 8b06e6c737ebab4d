//go:build !purego

package field

//go:generate sh -c "cd ../../_asm && go run . -gen field -pkg field -out ../internal/field/fe_amd64.s"

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// The amd64 dispatch point for the field kernels. useADX selects the
// MULX/ADCX/ADOX kernels, useMULQ the ones that need only the base
// instruction set; with both cleared (impl.Select "generic") the Go code
// runs. Every CPU has the MULQ kernels, so tests run them here too.
//
// useInvert selects the safegcd inversion's divsteps and matrix updates in
// assembly (CMOV and IMULQ are in the base instruction set).
var (
	useADX    = cpu.X86.HasBMI2 && cpu.X86.HasADX
	useMULQ   = true
	useInvert = true
)

func init() {
	impl.Register("sm2", "amd64-adx", &useADX)
	impl.Register("sm2", "amd64-mulq", &useMULQ)
	impl.Register("sm2", "amd64-invert", &useInvert)
}

func divsteps30(nd int64, f, g uint64) (int64, uint64, uint64, matrix) {
	if useInvert {
		nd, f, g, fr, gr := divsteps30CMOV(nd, f, g)
		return nd, f, g, unpackRows(fr, gr)
	}
	return divsteps30Generic(nd, f, g)
}

func updateFG(f, g *int60x5, t *matrix) {
	if useInvert {
		updateFGIMUL((*[5]int64)(f), (*[5]int64)(g), (*[4]int64)(unsafe.Pointer(t)))
	} else {
		updateFGGeneric(f, g, t)
	}
}

func updateDE(d, e *int60x5, t *matrix) {
	if useInvert {
		updateDEIMUL((*[5]int64)(d), (*[5]int64)(e), (*[4]int64)(unsafe.Pointer(t)))
	} else {
		updateDEGeneric(d, e, t)
	}
}

func feMul(out, a, b *Element) {
	if useADX {
		feMulADX(out, a, b)
	} else if useMULQ {
		feMulMULQ(out, a, b)
	} else {
		feMulGeneric(out, a, b)
	}
}

func feSquare(out, a *Element) {
	if useADX {
		feSqrADX(out, a, 1)
	} else if useMULQ {
		feSqrMULQ(out, a, 1)
	} else {
		feSquareGeneric(out, a)
	}
}

func feSquareN(out, a *Element, n int) {
	if useADX {
		feSqrADX(out, a, n)
	} else if useMULQ {
		feSqrMULQ(out, a, n)
	} else {
		feSquareNGeneric(out, a, n)
	}
}
