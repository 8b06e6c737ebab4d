// Package sm2ec implements the group of points of the sm2p256v1 curve
//
//	y² = x³ - 3x + b over GF(p)
//
// Points are held in projective coordinates, and Add and Double use the
// complete formulas of Renes, Costello and Batina ("Complete addition
// formulas for prime order elliptic curves", https://eprint.iacr.org/2015/1060,
// Algorithms 4 and 6 for a = -3), which have no special cases.
//
// The scalar multiplications, whose cost is mostly doublings, work
// internally in Jacobian coordinates, where a doubling is much cheaper
// (jacobian.go). Jacobian addition is not complete; the constant-time
// multiplications show why the exceptional inputs cannot arise (or select
// the right result without branching), and the variable-time ones, used
// only on public values, branch on them.
package sm2ec

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// Point is a point of sm2p256v1 in projective coordinates (X:Y:Z), with
// x = X/Z and y = Y/Z. The identity is (0:1:0). The zero value is not a valid
// point; use NewPoint or NewGenerator.
type Point struct {
	x, y, z field.Element
}

// affinePoint is a point that is not the identity, with z = 1 implied.
type affinePoint struct {
	x, y field.Element
}

var (
	curveB    field.Element
	generator affinePoint
)

func init() {
	mustSet(&curveB, "28e9fa9e9d9f5e344d5a9e4bcf6509a7f39789f515ab8f92ddbcbd414d940e93")
	mustSet(&generator.x, "32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7")
	mustSet(&generator.y, "bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0")
}

func mustSet(e *field.Element, h string) {
	var b [32]byte
	for i := range b {
		b[i] = unhex(h[2*i])<<4 | unhex(h[2*i+1])
	}
	if _, err := e.SetBytes(b[:]); err != nil {
		panic("sm2ec: bad constant")
	}
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

// NewPoint returns the identity.
func NewPoint() *Point {
	p := &Point{}
	p.y.One()
	return p
}

// NewGenerator returns the base point G.
func NewGenerator() *Point {
	p := &Point{x: generator.x, y: generator.y}
	p.z.One()
	return p
}

// Set sets p = q and returns p.
func (p *Point) Set(q *Point) *Point {
	*p = *q
	return p
}

var errInvalidPoint = errors.New("sm2ec: invalid point encoding")

// SetBytes sets p to the point encoded in b, either uncompressed
// (04 || X || Y, 65 bytes) or compressed (02/03 || X, 33 bytes), and returns
// p. It rejects the identity, coordinates not below p, and points that are
// not on the curve.
func (p *Point) SetBytes(b []byte) (*Point, error) {
	switch {
	case len(b) == 65 && b[0] == 4:
		var x, y field.Element
		if _, err := x.SetBytes(b[1:33]); err != nil {
			return nil, errInvalidPoint
		}
		if _, err := y.SetBytes(b[33:]); err != nil {
			return nil, errInvalidPoint
		}
		var rhs, y2 field.Element
		curveRHS(&rhs, &x)
		y2.Square(&y)
		if rhs.Equal(&y2) != 1 {
			return nil, errInvalidPoint
		}
		p.x, p.y = x, y
		p.z.One()
		return p, nil
	case len(b) == 33 && (b[0] == 2 || b[0] == 3):
		var x, y, rhs field.Element
		if _, err := x.SetBytes(b[1:]); err != nil {
			return nil, errInvalidPoint
		}
		curveRHS(&rhs, &x)
		if _, ok := y.Sqrt(&rhs); ok != 1 {
			return nil, errInvalidPoint
		}
		// Pick the root whose parity matches the prefix.
		var negY field.Element
		negY.Neg(&y)
		wantOdd := int(b[0] & 1)
		y.Select(&negY, &y, y.IsOdd()^wantOdd)
		p.x, p.y = x, y
		p.z.One()
		return p, nil
	}
	return nil, errInvalidPoint
}

// curveRHS sets out = x³ - 3x + b.
func curveRHS(out, x *field.Element) {
	var x3, t field.Element
	x3.Square(x)
	x3.Mul(&x3, x)
	t.Add(x, x)
	t.Add(&t, x)
	x3.Sub(&x3, &t)
	out.Add(&x3, &curveB)
}

// IsIdentity returns 1 if p is the identity and 0 otherwise.
func (p *Point) IsIdentity() int { return p.z.IsZero() }

// Affine returns the affine coordinates of p, or ok == 0 for the identity.
func (p *Point) Affine() (x, y field.Element, ok int) {
	var zInv field.Element
	zInv.Invert(&p.z)
	x.Mul(&p.x, &zInv)
	y.Mul(&p.y, &zInv)
	return x, y, 1 - p.z.IsZero()
}

// Normalize sets p to its affine representative (Z = 1) with one field
// inversion, in constant time, and returns p. The identity stays (0:1:0).
// Callers that encode a point more than once, such as public keys,
// normalize it once and then use EncodeAffine, which needs no inversion.
func (p *Point) Normalize() *Point {
	var zInv, y, one, zero field.Element
	inf := p.z.IsZero()
	zInv.Invert(&p.z)
	p.x.Mul(&p.x, &zInv)
	y.Mul(&p.y, &zInv)
	one.One()
	p.y.Select(&one, &y, inf)
	p.z.Select(&zero, &one, inf)
	return p
}

// EncodeAffine writes the uncompressed encoding 04 || X || Y of p into out
// without an inversion. It reports false, leaving out unspecified, unless p
// is in affine form (Z = 1), as SetBytes and Normalize leave it, which rules
// out the identity. Whether Z = 1 is not secret: it depends only on how the
// point was produced.
func (p *Point) EncodeAffine(out *[65]byte) bool {
	var one field.Element
	one.One()
	if p.z.Equal(&one) != 1 {
		return false
	}
	out[0] = 4
	p.x.PutBytes((*[32]byte)(out[1:33]))
	p.y.PutBytes((*[32]byte)(out[33:65]))
	return true
}

// Bytes returns the uncompressed encoding 04 || X || Y of p, or the single
// byte 0 for the identity.
func (p *Point) Bytes() []byte {
	x, y, ok := p.Affine()
	if ok != 1 {
		return []byte{0}
	}
	out := make([]byte, 65)
	out[0] = 4
	copy(out[1:], x.Bytes())
	copy(out[33:], y.Bytes())
	return out
}

// BytesCompressed returns the compressed encoding 02/03 || X of p, or the
// single byte 0 for the identity.
func (p *Point) BytesCompressed() []byte {
	x, y, ok := p.Affine()
	if ok != 1 {
		return []byte{0}
	}
	out := make([]byte, 33)
	out[0] = 2 | byte(y.IsOdd())
	copy(out[1:], x.Bytes())
	return out
}

// BytesX returns the 32-byte x coordinate of p, failing for the identity.
func (p *Point) BytesX() ([]byte, error) {
	var out [32]byte
	if !p.PutX(&out) {
		return nil, errors.New("sm2ec: point at infinity")
	}
	return out[:], nil
}

// PutX writes the 32-byte affine x coordinate of p into out, in constant
// time, and reports false (with out unspecified) for the identity.
func (p *Point) PutX(out *[32]byte) bool {
	var zInv, x field.Element
	zInv.Invert(&p.z)
	x.Mul(&p.x, &zInv)
	x.PutBytes(out)
	return p.z.IsZero() == 0
}

// Select sets p = a if cond == 1 and p = b if cond == 0, and returns p.
func (p *Point) Select(a, b *Point, cond int) *Point {
	p.x.Select(&a.x, &b.x, cond)
	p.y.Select(&a.y, &b.y, cond)
	p.z.Select(&a.z, &b.z, cond)
	return p
}

// Negate sets p = -q and returns p.
func (p *Point) Negate(q *Point) *Point {
	p.x = q.x
	p.y.Neg(&q.y)
	p.z = q.z
	return p
}

// Equal returns 1 if p and q are the same point and 0 otherwise.
func (p *Point) Equal(q *Point) int {
	// X1·Z2 == X2·Z1 and Y1·Z2 == Y2·Z1; this also covers the identity,
	// whose projective form is (0:Y:0).
	var a, b, c, d field.Element
	a.Mul(&p.x, &q.z)
	b.Mul(&q.x, &p.z)
	c.Mul(&p.y, &q.z)
	d.Mul(&q.y, &p.z)
	bothInf := p.z.IsZero() & q.z.IsZero()
	noneInf := (1 - p.z.IsZero()) & (1 - q.z.IsZero())
	return bothInf | (noneInf & a.Equal(&b) & c.Equal(&d))
}

// Add sets p = a + b and returns p. The points may alias.
func (p *Point) Add(a, b *Point) *Point {
	// Algorithm 4 of the paper; the comments give its step names.
	var xx, yy, zz, s, u, x3, y3, z3 field.Element
	xx.Mul(&a.x, &b.x) // t0
	yy.Mul(&a.y, &b.y) // t1
	zz.Mul(&a.z, &b.z) // t2

	s.Add(&a.x, &a.y) // t3 = (X1+Y1)(X2+Y2) - t0 - t1
	u.Add(&b.x, &b.y)
	s.Mul(&s, &u)
	u.Add(&xx, &yy)
	s.Sub(&s, &u)

	var v field.Element // t4 = (Y1+Z1)(Y2+Z2) - t1 - t2
	v.Add(&a.y, &a.z)
	x3.Add(&b.y, &b.z)
	v.Mul(&v, &x3)
	x3.Add(&yy, &zz)
	v.Sub(&v, &x3)

	x3.Add(&a.x, &a.z) // Y3 = (X1+Z1)(X2+Z2) - t0 - t2
	y3.Add(&b.x, &b.z)
	x3.Mul(&x3, &y3)
	y3.Add(&xx, &zz)
	y3.Sub(&x3, &y3)

	z3.Mul(&curveB, &zz) // X3 = 3(Y3 - b·t2)
	x3.Sub(&y3, &z3)
	z3.Add(&x3, &x3)
	x3.Add(&x3, &z3)
	z3.Sub(&yy, &x3)
	x3.Add(&yy, &x3)

	y3.Mul(&curveB, &y3) // Y3 = 3(b·Y3 - 3·t2 - t0)
	yy.Add(&zz, &zz)
	zz.Add(&yy, &zz)
	y3.Sub(&y3, &zz)
	y3.Sub(&y3, &xx)
	yy.Add(&y3, &y3)
	y3.Add(&yy, &y3)

	yy.Add(&xx, &xx) // t0 = 3·t0 - 3·t2
	xx.Add(&yy, &xx)
	xx.Sub(&xx, &zz)

	yy.Mul(&v, &y3)
	zz.Mul(&xx, &y3)
	y3.Mul(&x3, &z3)
	y3.Add(&y3, &zz)
	x3.Mul(&s, &x3)
	x3.Sub(&x3, &yy)
	z3.Mul(&v, &z3)
	yy.Mul(&s, &xx)
	z3.Add(&z3, &yy)

	p.x, p.y, p.z = x3, y3, z3
	return p
}

// Double sets p = a + a and returns p.
func (p *Point) Double(a *Point) *Point {
	// Algorithm 6 of the paper.
	var xx, yy, zz, xy, x3, y3, z3 field.Element
	xx.Square(&a.x)
	yy.Square(&a.y)
	zz.Square(&a.z)
	xy.Mul(&a.x, &a.y)
	xy.Add(&xy, &xy)
	z3.Mul(&a.x, &a.z)
	z3.Add(&z3, &z3)

	y3.Mul(&curveB, &zz)
	y3.Sub(&y3, &z3)
	x3.Add(&y3, &y3)
	y3.Add(&x3, &y3)
	x3.Sub(&yy, &y3)
	y3.Add(&yy, &y3)
	y3.Mul(&x3, &y3)
	x3.Mul(&x3, &xy)

	xy.Add(&zz, &zz)
	zz.Add(&zz, &xy)
	z3.Mul(&curveB, &z3)
	z3.Sub(&z3, &zz)
	z3.Sub(&z3, &xx)
	xy.Add(&z3, &z3)
	z3.Add(&z3, &xy)

	xy.Add(&xx, &xx)
	xx.Add(&xy, &xx)
	xx.Sub(&xx, &zz)
	xx.Mul(&xx, &z3)
	y3.Add(&y3, &xx)

	xx.Mul(&a.y, &a.z)
	xx.Add(&xx, &xx)
	z3.Mul(&xx, &z3)
	x3.Sub(&x3, &z3)
	z3.Mul(&xx, &yy)
	z3.Add(&z3, &z3)
	z3.Add(&z3, &z3)

	p.x, p.y, p.z = x3, y3, z3
	return p
}

// BytesPair returns the uncompressed encodings of p and q (a single 0 byte
// for the identity), sharing one field inversion between them (Montgomery's
// trick) for callers that need both, such as SM2 encryption.
func BytesPair(p, q *Point) (pb, qb []byte) {
	var zz field.Element
	zz.Mul(&p.z, &q.z)
	if zz.IsZero() == 1 {
		return p.Bytes(), q.Bytes()
	}
	var inv, pInv, qInv field.Element
	inv.Invert(&zz)
	pInv.Mul(&inv, &q.z)
	qInv.Mul(&inv, &p.z)
	return encodeAffine(p, &pInv), encodeAffine(q, &qInv)
}

func encodeAffine(p *Point, zInv *field.Element) []byte {
	var x, y field.Element
	x.Mul(&p.x, zInv)
	y.Mul(&p.y, zInv)
	out := make([]byte, 65)
	out[0] = 4
	copy(out[1:], x.Bytes())
	copy(out[33:], y.Bytes())
	return out
}

// XModNEqualVarTime reports whether p is not the identity and its affine x
// coordinate, reduced modulo the group order n, equals c, a 32-byte
// big-endian value below n. It compares X with c·Z in projective form, so
// it needs no inversion. It takes variable time and is for public points,
// as in signature verification.
func (p *Point) XModNEqualVarTime(c []byte) bool {
	if len(c) != 32 || p.z.IsZero() == 1 {
		return false
	}
	// x < p < 2n, so x mod n = c means x = c or x = c + n.
	var cx, t field.Element
	if _, err := cx.SetBytes(c); err != nil {
		return false
	}
	if t.Mul(&cx, &p.z).Equal(&p.x) == 1 {
		return true
	}
	l := scalarLimbs(c)
	var carry uint64
	l[0], carry = bits.Add64(l[0], nOrder[0], 0)
	l[1], carry = bits.Add64(l[1], nOrder[1], carry)
	l[2], carry = bits.Add64(l[2], nOrder[2], carry)
	l[3], carry = bits.Add64(l[3], nOrder[3], carry)
	if carry != 0 {
		return false
	}
	var b [32]byte
	for i := range l {
		binary.BigEndian.PutUint64(b[24-8*i:], l[i])
	}
	if _, err := cx.SetBytes(b[:]); err != nil {
		return false // c + n ≥ p
	}
	return t.Mul(&cx, &p.z).Equal(&p.x) == 1
}
