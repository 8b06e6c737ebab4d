//go:build purego || !(amd64 || arm64)

package field

func feMul(out, a, b *Element) { feMulGeneric(out, a, b) }

func feSquare(out, a *Element) { feSquareGeneric(out, a) }

func feSquareN(out, a *Element, n int) { feSquareNGeneric(out, a, n) }

func updateFG(f, g *int60x5, t *matrix) { updateFGGeneric(f, g, t) }

func updateDE(d, e *int60x5, t *matrix) { updateDEGeneric(d, e, t) }

func divsteps30(nd int64, f, g uint64) (int64, uint64, uint64, matrix) {
	return divsteps30Generic(nd, f, g)
}
