//go:build !purego

package field

import "github.com/shangmi-go/shangmi/primitives/internal/impl"

// This is the one place where an amd64 field multiplication kernel plugs in.
// None is written yet: the flag stays false (so the registry reports the
// kernel as unavailable) and the generic Go code runs.
var useAsm = false

func init() { impl.Register("sm2", "amd64-field", &useAsm) }

func feMul(out, a, b *Element) {
	feMulGeneric(out, a, b)
}

func feSquare(out, a *Element) {
	feSquareGeneric(out, a)
}

func feSquareN(out, a *Element, n int) {
	feSquareNGeneric(out, a, n)
}
