//go:build !purego

package field

import "github.com/shangmi-go/shangmi/internal/impl"

// The arm64 dispatch point for the field kernels. MUL/UMULH are in the base
// instruction set, so the kernels are always available; clearing the flag
// (impl.Select "generic") runs the Go code.
var useARM64 = true

func init() { impl.Register("sm2", "arm64-field", &useARM64) }

func feMul(out, a, b *Element) {
	if useARM64 {
		feMulARM64(out, a, b)
	} else {
		feMulGeneric(out, a, b)
	}
}

func feSquare(out, a *Element) {
	if useARM64 {
		feSqrARM64(out, a, 1)
	} else {
		feSquareGeneric(out, a)
	}
}

func feSquareN(out, a *Element, n int) {
	if useARM64 {
		feSqrARM64(out, a, n)
	} else {
		feSquareNGeneric(out, a, n)
	}
}

func updateFG(f, g *int60x5, t *matrix) { updateFGGeneric(f, g, t) }

func updateDE(d, e *int60x5, t *matrix) { updateDEGeneric(d, e, t) }

func divsteps30(nd int64, f, g uint64) (int64, uint64, uint64, matrix) {
	return divsteps30Generic(nd, f, g)
}
