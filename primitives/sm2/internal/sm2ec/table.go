package sm2ec

import (
	"errors"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// cachedWindow is the NAF width for a point whose table is kept between
// multiplications. The per-call table of DoubleScalarMultVarTime is sized
// for a single use (pubWindow); a kept one can afford to be wider and, once
// brought to affine form with a single shared inversion, to use the cheaper
// mixed addition.
const cachedWindow = 6

// PointTable holds the odd multiples q, 3q, …, 31q of a public point in
// affine form, for repeated variable-time multiplications by q, such as
// verifying many signatures with one key. It is read-only once made, and
// so safe for concurrent use.
type PointTable struct {
	t [1 << (cachedWindow - 2)]affinePoint
}

// NewPointTable computes the table for q, which must not be the identity.
// It takes variable time: q is public.
func NewPointTable(q *Point) (*PointTable, error) {
	if q.IsIdentity() == 1 {
		return nil, errors.New("sm2ec: table of the identity")
	}
	var jac [1 << (cachedWindow - 2)]jacobianPoint
	jac[0].fromProjective(q)
	var q2 jacobianPoint
	q2.double(&jac[0])
	for i := 1; i < len(jac); i++ {
		jac[i].addVarTime(&jac[i-1], &q2)
	}
	// Montgomery's trick: one inversion for all the Z coordinates, none of
	// which is zero since q has prime order n and (2i+1)·q ≠ O for
	// 2i+1 < n.
	var prefix [len(jac)]field.Element
	prefix[0] = jac[0].z
	for i := 1; i < len(jac); i++ {
		prefix[i].Mul(&prefix[i-1], &jac[i].z)
	}
	var inv, zInv field.Element
	inv.Invert(&prefix[len(jac)-1])
	pt := &PointTable{}
	for i := len(jac) - 1; i >= 0; i-- {
		if i > 0 {
			zInv.Mul(&inv, &prefix[i-1])
			inv.Mul(&inv, &jac[i].z)
		} else {
			zInv = inv
		}
		var z2 field.Element
		z2.Square(&zInv)
		pt.t[i].x.Mul(&jac[i].x, &z2)
		z2.Mul(&z2, &zInv)
		pt.t[i].y.Mul(&jac[i].y, &z2)
	}
	return pt, nil
}

// DoubleScalarMultTableVarTime sets p = s·G + t·q, where qt is the table of
// q, and returns p. Like DoubleScalarMultVarTime it takes variable time and
// is for public inputs only.
func (p *Point) DoubleScalarMultTableVarTime(s []byte, qt *PointTable, t []byte) (*Point, error) {
	if len(s) != 32 || len(t) != 32 {
		return nil, errScalarLength
	}
	gt := getGenTable()
	var ds, dt wnafDigits
	n := max(wnaf(&ds, s, genWindow), wnaf(&dt, t, cachedWindow))
	var acc jacobianPoint
	acc.x.One()
	acc.y.One()
	for i := n - 1; i >= 0; i-- {
		if i != n-1 {
			acc.double(&acc)
		}
		if d := dt[i]; d != 0 {
			addAffineDigit(&acc, qt.t[:], d)
		}
		if d := ds[i]; d != 0 {
			addAffineDigit(&acc, gt[:], d)
		}
	}
	acc.toProjective(p)
	return p, nil
}

// addAffineDigit adds d·q to acc for an odd NAF digit d, with table holding
// the odd multiples of q in affine form.
func addAffineDigit(acc *jacobianPoint, table []affinePoint, d int8) {
	if d > 0 {
		acc.addAffineVarTime(acc, &table[d/2])
		return
	}
	a := table[(-d)/2]
	a.y.Neg(&a.y)
	acc.addAffineVarTime(acc, &a)
}
