//go:build !purego

package field

//go:generate sh -c "cd ../../_asm && go run . -gen field -pkg field -out ../internal/field/fe_amd64.s"

import (
	"golang.org/x/sys/cpu"

	"github.com/shangmi-go/shangmi/primitives/internal/impl"
)

// The amd64 dispatch point for the field kernels. useADX selects the
// MULX/ADCX/ADOX kernels, useMULQ the ones that need only the base
// instruction set; with both cleared (impl.Select "generic") the Go code
// runs. Every CPU has the MULQ kernels, so tests run them here too.
var (
	useADX  = cpu.X86.HasBMI2 && cpu.X86.HasADX
	useMULQ = true
)

func init() {
	impl.Register("sm2", "amd64-adx", &useADX)
	impl.Register("sm2", "amd64-mulq", &useMULQ)
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
