//go:build purego || !amd64

package sm2ec

import "github.com/shangmi-go/shangmi/primitives/sm2/internal/field"

func lookupAffine(out *affinePoint, table []field.Element, idx uint64) {
	field.LookupPair(&out.x, &out.y, table, idx)
}

func lookupJacobian(out *jacobianPoint, table []field.Element, idx uint64) {
	field.LookupTriple(&out.x, &out.y, &out.z, table, idx)
}

// Without point kernels the formulas run in Go over the field package
// (which has its own assembly on arm64).

func (p *jacobianPoint) double(a *jacobianPoint) { p.doubleGeneric(a) }

// doubleN sets p = 2^n·a, n ≥ 1.
func (p *jacobianPoint) doubleN(a *jacobianPoint, n int) {
	p.doubleGeneric(a)
	for range n - 1 {
		p.doubleGeneric(p)
	}
}

func (p *jacobianPoint) add(a, b *jacobianPoint) int { return p.addGeneric(a, b) }

func (p *jacobianPoint) addAffine(a *jacobianPoint, b *affinePoint) int {
	return p.addAffineGeneric(a, b)
}

func (p *jacobianPoint) addAffineSelect(t *affinePoint, neg, keep int) {
	p.addAffineSelectGeneric(t, neg, keep)
}

func (p *jacobianPoint) addSelect(t *jacobianPoint, neg, keep int) {
	p.addSelectGeneric(t, neg, keep)
}

func (p *jacobianPoint) addComplete(t *jacobianPoint, neg, keep int) {
	p.addCompleteGeneric(t, neg, keep)
}

func (p *jacobianPoint) addAffineComplete(t *affinePoint, neg, keep int) {
	p.addAffineCompleteGeneric(t, neg, keep)
}

func (p *jacobianPoint) baseStep(t *affinePoint, neg int, next *affinePoint, table []field.Element, idx uint64) {
	p.addAffineNeg(t, neg)
	lookupAffine(next, table, idx)
}
