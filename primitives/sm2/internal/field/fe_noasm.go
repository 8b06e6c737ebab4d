//go:build purego || !(amd64 || arm64)

package field

func feMul(out, a, b *Element) { feMulGeneric(out, a, b) }

func feSquare(out, a *Element) { feSquareGeneric(out, a) }

func feSquareN(out, a *Element, n int) { feSquareNGeneric(out, a, n) }
