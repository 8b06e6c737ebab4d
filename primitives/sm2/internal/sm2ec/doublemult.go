package sm2ec

import (
	"errors"
	"math/bits"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// The constant-time double-scalar multiplication s·q + t·r, for the SM2 key
// exchange's U = [t](P + [x̄]R) = [t]P + [t·x̄]R: one chain of 255 doublings
// serves both scalars, where computing [x̄]R first and then [t](P + [x̄]R)
// would take 127 + 255.
//
// Both scalars are secret, and the peer chooses both points and may know
// the discrete logarithm between them (it can send R = P, R = -P, R = 2P,
// or R = λP for any λ it likes). The accumulator is then λ'·P for a λ' the
// peer can steer, so the accumulator can equal the added point, its
// negative or the identity at any window, not only at the last as in
// ScalarMult. With R = ±P, for one, the very first addition is a doubling
// or gives the identity whenever the two scalars' signs agree (or differ),
// and lower windows can be pushed there too (the tests build scalars that
// do it at any chosen window). Bounding which windows an attacker can
// reach with noticeable probability is not worth the risk; every addition
// therefore uses the complete window step (addComplete, addAffineComplete:
// the unified formula of jacobian.go plus the selection for an identity
// accumulator), so no argument about where the exceptional cases can occur
// is needed. The complete step costs about a quarter more than the
// incomplete one with its selection, and the whole multiplication is still
// faster than [x̄]R (variable time) followed by ScalarMult of the sum (see
// examples/bench/README.md, "Design measurements").

// oddEntries is the number of odd multiples q, 3q, …, 31q in the tables of
// the double-scalar multiplication, for its odd 5-bit digits.
const oddEntries = 16

// oddWindows is the number of 5-bit digits of the odd recoding of a scalar
// below 2^256: 51 digits in [-31, 31] and a top digit that is always 1.
const oddWindows = 52

var errIdentityInput = errors.New("sm2ec: multiplication of the identity")

// oddMultiplesTable sets table, flat X, Y, Z triples, to the Jacobian q, 3q, …,
// 31q for q not the identity.
func oddMultiplesTable(table *[3 * oddEntries]field.Element, q *Point) {
	var q1, q2 jacobianPoint
	q1.fromProjective(q)
	q2.double(&q1)
	table[0], table[1], table[2] = q1.x, q1.y, q1.z
	var one field.Element
	one.One()
	// Whether Z = 1 (a parsed public key) depends on how q was made, not on
	// any secret. Then the multiples are computed on the isomorphic curve
	// (x, y) ↦ (Z2²·x, Z2³·y), Z2 the Z of 2q, where 2q is affine and the
	// cheaper mixed addition applies (8M+3S against 12M+4S; addition, unlike
	// doubling, does not involve the curve's a). A point (X : Y : Z') there
	// is (X : Y : Z'·Z2) here. Neither formula meets equal points or the
	// identity: (2i+1)·q ≠ ±2q and ≠ O for i < 16, as n is a large prime.
	if q.z.Equal(&one) == 1 {
		var z2, z3 field.Element
		z2.Square(&q2.z)
		z3.Mul(&z2, &q2.z)
		var acc jacobianPoint
		acc.x.Mul(&q.x, &z2)
		acc.y.Mul(&q.y, &z3)
		acc.z.One()
		d := affinePoint{q2.x, q2.y}
		for i := 1; i < oddEntries; i++ {
			acc.addAffine(&acc, &d)
			table[3*i], table[3*i+1] = acc.x, acc.y
			table[3*i+2].Mul(&acc.z, &q2.z)
		}
		return
	}
	acc := q1
	for i := 1; i < oddEntries; i++ {
		acc.add(&acc, &q2)
		table[3*i], table[3*i+1], table[3*i+2] = acc.x, acc.y, acc.z
	}
}

// makeOdd replaces l, which must be below n, by n - l if l is even, in
// constant time, and returns 1 if it did; then l·q = (n - l)·(-q). Either
// way the result is odd and at most n.
func makeOdd(l *[4]uint64) int {
	even := l[0]&1 ^ 1
	var t [4]uint64
	var b uint64
	t[0], b = bits.Sub64(nOrder[0], l[0], 0)
	t[1], b = bits.Sub64(nOrder[1], l[1], b)
	t[2], b = bits.Sub64(nOrder[2], l[2], b)
	t[3], _ = bits.Sub64(nOrder[3], l[3], b)
	mask := -even
	for i := range l {
		l[i] ^= mask & (l[i] ^ t[i])
	}
	return int(even)
}

// oddDigit returns digit i (0 ≤ i < 51) of the regular recoding of an odd
// k < 2^256 into 5-bit digits, k = 2^255 + Σ d_i·2^(5i) with every d_i odd
// in [-31, 31], as the table index (|d_i| + 1)/2 and the sign, in constant
// time.
//
// Recoding from the bottom, d_i = (k_i mod 64) - 32 and k_(i+1) =
// (k_i - d_i)/32 = (k_i >> 5) | 1, which stays odd, so k_i = (k >> 5i) | 1
// and d_i is bits 5i…5i+5 of k, with bit 5i set, less 32; the top k_51 =
// (k >> 255) | 1 is 1.
func oddDigit(k *[4]uint64, i int) (idx uint64, neg int) {
	w := window(k, 5*i, 6) | 1
	n := w>>5 ^ 1 // d = w - 32 < 0
	// |d| is w - 32 = w & 31, or 32 - w = (31 - w) + 1 = (w ^ 31) + 1, and
	// (|d| + 1)/2 = (w' >> 1) + 1 with w' = w & 31 or (w ^ 31) & 31.
	v := (w ^ -n&31) & 31
	return v>>1 + 1, int(n)
}

// toAffineTables sets each dst[k], flat x, y pairs, to the affine form of
// the 16 Jacobian points of jac[k] (flat X, Y, Z triples), whose entry 0
// must have Z = 1 and none of which may be the identity, with a single
// inversion for all (Montgomery's trick): about 7 multiplications per
// point and the inversion.
//
// It pays for the tables here, whose 52 additions each are complete ones: a
// complete mixed addition saves five multiplications against a complete
// Jacobian one, and in the loop it saves even more (measured in
// examples/bench/README.md). For ScalarMult's incomplete additions it does
// not (see there).
func toAffineTables(dst []*[2 * 16]field.Element, jac []*[3 * 16]field.Element) {
	const per = 16 - 1
	var prefix [2 * per]field.Element
	n := len(jac) * per
	z := func(i int) *field.Element { return &jac[i/per][3*(i%per+1)+2] }
	for k, j := range jac {
		dst[k][0], dst[k][1] = j[0], j[1]
	}
	prefix[0] = *z(0)
	for i := 1; i < n; i++ {
		prefix[i].Mul(&prefix[i-1], z(i))
	}
	var inv, zInv, z2 field.Element
	inv.Invert(&prefix[n-1])
	for i := n - 1; i >= 0; i-- {
		if i > 0 {
			zInv.Mul(&inv, &prefix[i-1])
			inv.Mul(&inv, z(i))
		} else {
			zInv = inv
		}
		src, out, e := jac[i/per], dst[i/per], i%per+1
		z2.Square(&zInv)
		out[2*e].Mul(&src[3*e], &z2)
		z2.Mul(&z2, &zInv)
		out[2*e+1].Mul(&src[3*e+1], &z2)
	}
}

// oddTable is a table of odd multiples q, 3q, …, 31q, affine (x, y pairs
// in a) or, if a is nil, Jacobian (j). Which it is is public.
type oddTable struct {
	a []field.Element
	j *[3 * oddEntries]field.Element
}

// start sets acc to entry 1 (q itself), negated if neg is 1.
func (t *oddTable) start(acc *jacobianPoint, neg int) {
	if t.a != nil {
		acc.x, acc.y = t.a[0], t.a[1]
		acc.z.One()
	} else {
		acc.x, acc.y, acc.z = t.j[0], t.j[1], t.j[2]
	}
	var negY field.Element
	negY.Neg(&acc.y)
	acc.y.Select(&negY, &acc.y, neg)
}

// add adds entry idx, negated if neg is 1, to acc, with the complete window
// step.
func (t *oddTable) add(acc *jacobianPoint, idx uint64, neg int) {
	if t.a != nil {
		var e affinePoint
		lookupAffine(&e, t.a, idx)
		acc.addAffineComplete(&e, neg, 0)
		return
	}
	var e jacobianPoint
	lookupJacobian(&e, t.j[:], idx)
	acc.addComplete(&e, neg, 0)
}

// DoubleScalarMult sets p = s·q + t·r for 32-byte big-endian s and t, in
// constant time, and returns p. Neither q nor r may be the identity, and
// they may be any multiples of each other.
//
// Each scalar, reduced mod n and made odd (makeOdd), is recoded into 52 odd
// signed 5-bit digits, so every window adds exactly one table point for each
// scalar: 255 doublings and 103 additions over per-call tables of 16 odd
// multiples of q and of r (brought to affine form if q and r are affine,
// see toAffineTables).
func (p *Point) DoubleScalarMult(q *Point, s []byte, r *Point, t []byte) (*Point, error) {
	if len(s) != 32 || len(t) != 32 {
		return nil, errScalarLength
	}
	if q.IsIdentity()|r.IsIdentity() != 0 {
		return nil, errIdentityInput
	}
	var acc jacobianPoint
	var one field.Element
	one.One()
	// Whether the inputs are affine is public (see oddMultiplesTable).
	if q.z.Equal(&one)&r.z.Equal(&one) == 1 {
		var jq, jr [3 * oddEntries]field.Element
		oddMultiplesTable(&jq, q)
		oddMultiplesTable(&jr, r)
		var aq, ar [2 * oddEntries]field.Element
		toAffineTables([]*[2 * oddEntries]field.Element{&aq, &ar}, []*[3 * oddEntries]field.Element{&jq, &jr})
		doubleScalarMult(&acc, &oddTable{a: aq[:]}, s, &oddTable{a: ar[:]}, t)
	} else {
		var jq, jr [3 * oddEntries]field.Element
		oddMultiplesTable(&jq, q)
		oddMultiplesTable(&jr, r)
		doubleScalarMult(&acc, &oddTable{j: &jq}, s, &oddTable{j: &jr}, t)
	}
	acc.toProjective(p)
	return p, nil
}

// DoubleScalarMultTable is DoubleScalarMult with the table of q: its odd
// multiples q, 3q, …, 31q (the first row of qt) are affine already.
func (p *Point) DoubleScalarMultTable(qt *PointTable, s []byte, r *Point, t []byte) (*Point, error) {
	if len(s) != 32 || len(t) != 32 {
		return nil, errScalarLength
	}
	if r.IsIdentity() != 0 {
		return nil, errIdentityInput
	}
	var acc jacobianPoint
	var one field.Element
	one.One()
	var jr [3 * oddEntries]field.Element
	oddMultiplesTable(&jr, r)
	// Whether r is affine is public (see oddMultiplesTable).
	if r.z.Equal(&one) == 1 {
		var ar [2 * oddEntries]field.Element
		toAffineTables([]*[2 * oddEntries]field.Element{&ar}, []*[3 * oddEntries]field.Element{&jr})
		doubleScalarMult(&acc, &oddTable{a: qt.t[0][:]}, s, &oddTable{a: ar[:]}, t)
	} else {
		doubleScalarMult(&acc, &oddTable{a: qt.t[0][:]}, s, &oddTable{j: &jr}, t)
	}
	acc.toProjective(p)
	return p, nil
}

// doubleScalarMult sets acc = s·q + t·r for the tables tq of q and tr of r.
func doubleScalarMult(acc *jacobianPoint, tq *oddTable, s []byte, tr *oddTable, t []byte) {
	ls, lt := scalarLimbs(s), scalarLimbs(t)
	reduceModN(&ls)
	reduceModN(&lt)
	fs, ft := makeOdd(&ls), makeOdd(&lt)

	// The top digits are 1: start from ±q, then add ±r.
	tq.start(acc, fs)
	tr.add(acc, 1, ft)
	for i := oddWindows - 2; i >= 0; i-- {
		acc.doubleN(acc, 5)
		idx, neg := oddDigit(&ls, i)
		tq.add(acc, idx, neg^fs)
		idx, neg = oddDigit(&lt, i)
		tr.add(acc, idx, neg^ft)
	}
}
