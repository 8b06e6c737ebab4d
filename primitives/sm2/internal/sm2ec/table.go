package sm2ec

import (
	"crypto/rand"
	"errors"
	"math/bits"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// A public key used again and again (a trusted root, a peer's long-lived
// key, a recipient encrypted to repeatedly) is worth a table: the scalar is
// split into four 64-bit chunks k = k0 + k1·2^64 + k2·2^128 + k3·2^192, and
// the table holds multiples of q_j = 2^(64j)·q, so that k·q = Σ k_j·q_j
// takes 64 doublings instead of 256. With a matching split table of G (see
// getGenTable), verification's s·G + t·q shares those 64 doublings too.

// tableChunks is the number of 64-bit chunks a scalar is split into.
const tableChunks = 4

// cachedWindow is the NAF width for a point whose table is kept between
// multiplications: 2^(cachedWindow-2) = 16 odd multiples per chunk. The
// per-call table of DoubleScalarMultVarTime is sized for a single use
// (pubWindow); a kept one can afford to be wider and, once brought to
// affine form with a single shared inversion, to use the cheaper mixed
// addition.
const cachedWindow = 6

// cachedEntries is the number of odd multiples per chunk.
const cachedEntries = 1 << (cachedWindow - 2)

// PointTable holds, for a public point q and j = 0…3, the odd multiples
// q_j, 3q_j, …, 31q_j of q_j = 2^(64j)·q in affine form (4 KiB). It serves
// variable-time multiplications (signature verification) and constant-time
// ones (encryption to q) alike. It is read-only once made, and so safe for
// concurrent use.
type PointTable struct {
	t [tableChunks][2 * cachedEntries]field.Element // x, y pairs
}

// NewPointTable computes the table for q, which must not be the identity:
// 192 doublings, 64 additions and one inversion. It takes variable time: q
// is public.
func NewPointTable(q *Point) (*PointTable, error) {
	if q.IsIdentity() == 1 {
		return nil, errors.New("sm2ec: table of the identity")
	}
	var jac [tableChunks * cachedEntries]jacobianPoint
	var base, b2 jacobianPoint
	base.fromProjective(q)
	for j := range tableChunks {
		if j > 0 {
			base.doubleN(&base, 64)
		}
		row := jac[j*cachedEntries : (j+1)*cachedEntries]
		row[0] = base
		b2.double(&base)
		for i := 1; i < len(row); i++ {
			row[i].addVarTime(&row[i-1], &b2)
		}
	}
	// Montgomery's trick: one inversion for all the Z coordinates, none of
	// which is zero since q has prime order n and each entry is an odd
	// multiple below 32 of a multiple of q by a power of two.
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
		j, e := i/cachedEntries, i%cachedEntries
		pt.t[j][2*e].Mul(&jac[i].x, &z2)
		z2.Mul(&z2, &zInv)
		pt.t[j][2*e+1].Mul(&jac[i].y, &z2)
	}
	return pt, nil
}

// chunkWNAF writes the width-w NAF of the 64-bit k into out (at most 65
// digits, least significant first) and returns its length. Variable time.
func chunkWNAF(out *[65]int8, k uint64, w uint) int {
	*out = [65]int8{}
	// The value being recoded is carry·2^64 + k.
	var carry uint64
	n := 0
	mod := uint64(1) << w
	for i := 0; (k != 0 || carry != 0) && i < 65; i++ {
		if k&1 == 1 {
			d := int64(k & (mod - 1))
			if d >= int64(mod/2) {
				d -= int64(mod)
			}
			var b uint64
			if d > 0 {
				k -= uint64(d)
			} else {
				k, b = bits.Add64(k, uint64(-d), 0)
				carry += b
			}
			out[i] = int8(d)
			n = i + 1
		}
		k = k>>1 | carry<<63
		carry = 0
	}
	return n
}

func chunks(s []byte) [tableChunks]uint64 { return scalarLimbs(s) }

// DoubleScalarMultTableVarTime sets p = s·G + t·q, where qt is the table of
// q, and returns p. Like DoubleScalarMultVarTime it takes variable time and
// is for public inputs only.
//
// Both scalars are split into 64-bit chunks, recoded as width-8 (s) and
// width-6 (t) NAFs, and the eight chunks share one chain of 64 doublings.
func (p *Point) DoubleScalarMultTableVarTime(s []byte, qt *PointTable, t []byte) (*Point, error) {
	if len(s) != 32 || len(t) != 32 {
		return nil, errScalarLength
	}
	gt := getGenTable()
	var ds, dt [tableChunks][65]int8
	n := 0
	sc, tc := chunks(s), chunks(t)
	for j := range tableChunks {
		n = max(n, chunkWNAF(&ds[j], sc[j], genWindow), chunkWNAF(&dt[j], tc[j], cachedWindow))
	}
	var acc jacobianPoint
	acc.x.One()
	acc.y.One()
	for i := n - 1; i >= 0; i-- {
		if i != n-1 {
			acc.double(&acc)
		}
		for j := range tableChunks {
			if d := dt[j][i]; d != 0 {
				addAffineDigit(&acc, qt.t[j][:], d)
			}
			if d := ds[j][i]; d != 0 {
				addAffineDigit(&acc, gt[j][:], d)
			}
		}
	}
	acc.toProjective(p)
	return p, nil
}

// addAffineDigit adds d·q to acc for an odd NAF digit d, with table holding
// the odd multiples of q in affine form, flat as x, y pairs.
func addAffineDigit(acc *jacobianPoint, table []field.Element, d int8) {
	i := int(d)
	if d < 0 {
		i = -i
	}
	a := affinePoint{table[i-1], table[i]} // entry (|d|-1)/2
	if d < 0 {
		a.y.Neg(&a.y)
	}
	acc.addAffineVarTime(acc, &a)
}

// recodeRegular writes the odd 64-bit k as 13 odd digits in [-31, 31],
// k = Σ d_i·2^(5i), least significant first, in constant time: each digit
// is the low six bits less 32, which leaves the rest odd (and the top digit,
// what remains after twelve steps, is in [1, 17]).
func recodeRegular(out *[13]int8, k uint64) {
	for i := range 12 {
		out[i] = int8(int64(k&63) - 32)
		// (k - d)/32 is k>>5 rounded up to odd: +1 when bit 5 is clear.
		k = k>>5 + (k>>5&1 ^ 1)
	}
	out[12] = int8(k)
}

// ScalarMultTable sets p = s·q, where qt is the table of q, in constant
// time, and returns p.
//
// s (reduced mod n) is split into four 64-bit chunks; each is made odd (the
// added q_j is subtracted again at the end) and recoded into 13 odd signed
// 5-bit digits, so every window adds exactly one table point per chunk: 60
// doublings and 52 additions. The accumulator never meets the identity or
// a table point except where handled: after the top window's first
// addition, the accumulator is Σ_j c_j·q_j with every c_j odd or 32 times
// an odd number and |c_j| < 2^63 (before the last window), so it can equal
// neither O nor ±d·q_j (whose only nonzero coefficient, d, is odd), as
// such small coefficients are unique and |Σ c_j·2^(64j)| < n. The last
// window and the corrections, where the coefficients grow past that bound,
// use additions that also handle equal points and the identity.
func (p *Point) ScalarMultTable(qt *PointTable, s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	l := scalarLimbs(s)
	var acc jacobianPoint
	tableMult(&acc, qt, &l)
	acc.toProjective(p)
	return p, nil
}

// ScalarMultTableBlinded is ScalarMultTable for a scalar used again and
// again with the same table, such as a long-term key in ECDH with one peer:
// s·q = a·q + (s - a)·q for a fresh random a, at twice the cost, so that
// the entries it selects are new in every call (see ScalarBaseMultBlinded;
// the table's entries are fixed, so the rescaling of ScalarMult does not
// apply).
func (p *Point) ScalarMultTableBlinded(qt *PointTable, s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	var rb [32]byte
	rand.Read(rb[:])
	return p.scalarMultTableSplit(qt, s, rb[:]), nil
}

// scalarMultTableSplit sets p = (r mod n)·q + (s - r mod n)·q; the tests
// choose r.
func (p *Point) scalarMultTableSplit(qt *PointTable, s, r []byte) *Point {
	a, b := splitScalar(s, r)
	var acc, other jacobianPoint
	tableMult(&acc, qt, &a)
	tableMult(&other, qt, &b)
	acc.addHalves(&other)
	acc.toProjective(p)
	return p
}

// tableMult sets acc = l·q for the table qt of q, the loop of
// ScalarMultTable.
func tableMult(acc *jacobianPoint, qt *PointTable, l *[4]uint64) {
	reduceModN(l)
	var digits [tableChunks][13]int8
	var even [tableChunks]int
	for j := range tableChunks {
		even[j] = int(l[j]&1 ^ 1)
		recodeRegular(&digits[j], l[j]|1)
	}
	acc.x.One()
	acc.y.One()
	acc.z.Zero()
	var t affinePoint
	for i := 12; i >= 0; i-- {
		if i < 12 {
			acc.doubleN(acc, 5)
		}
		for j := range tableChunks {
			d := digits[j][i]
			m := d >> 7 // all ones for a negative digit
			abs := uint64((d ^ m) - m)
			lookupAffine(&t, qt.t[j][:], (abs+1)/2)
			if i > 0 {
				acc.addAffineSelect(&t, int(m&1), 0)
			} else {
				acc.addAffineComplete(&t, int(m&1), 0)
			}
		}
	}
	for j := range tableChunks {
		lookupAffine(&t, qt.t[j][:], 1)
		acc.addAffineComplete(&t, 1, 1-even[j])
	}
}
