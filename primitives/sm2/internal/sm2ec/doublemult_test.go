package sm2ec

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

func refNeg(q *refPoint) *refPoint {
	if q == nil {
		return nil
	}
	return &refPoint{q.x, new(big.Int).Sub(refP, q.y)}
}

func randBig(r *rand.Rand, m *big.Int) *big.Int {
	b := make([]byte, 40)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b), m)
}

// degeneratePartner returns a point T ≠ ±A with y_T = -y_A, for which the
// unified slope is 0/0, or nil if A has none (x³ - 3x + b = y_A² has only
// the root x_A).
func degeneratePartner(a *refPoint) *refPoint {
	// x² + x_A·x + x_A² - 3 = 0: the other roots, with discriminant
	// 12 - 3x_A².
	d := new(big.Int).Mul(a.x, a.x)
	d.Mul(d, big.NewInt(3)).Sub(big.NewInt(12), d).Mod(d, refP)
	sq := new(big.Int).ModSqrt(d, refP)
	if sq == nil {
		return nil
	}
	x := new(big.Int).Sub(sq, a.x)
	x.Mul(x, new(big.Int).ModInverse(big.NewInt(2), refP)).Mod(x, refP)
	return &refPoint{x, new(big.Int).Sub(refP, a.y)}
}

// jacobianOf returns q in Jacobian form with a random Z (or Z = 1 if
// affine is set), nil meaning the identity.
func jacobianOf(t *testing.T, r *rand.Rand, q *refPoint, affine bool) jacobianPoint {
	var j jacobianPoint
	if q == nil {
		j.x.One()
		j.y.One()
		return j
	}
	var p Point
	if _, err := p.SetBytes(refBytes(q)); err != nil {
		t.Fatal(err)
	}
	j.fromProjective(&p)
	if affine {
		return j
	}
	var lam, l2, l3 field.Element
	lam.SetBytes(scalar32(new(big.Int).Add(randBig(r, new(big.Int).Sub(refP, bigOne)), bigOne)))
	l2.Square(&lam)
	l3.Mul(&l2, &lam)
	j.x.Mul(&j.x, &l2)
	j.y.Mul(&j.y, &l3)
	j.z.Mul(&j.z, &lam)
	return j
}

func jacobianBytes(j *jacobianPoint) []byte {
	var p Point
	j.toProjective(&p)
	return p.Bytes()
}

// unifiedPairs returns pairs (A, T) covering every case of the complete
// additions: distinct, equal, inverse, the degenerate y_A = -y_T with x_A ≠
// x_T, and the identity A.
func unifiedPairs(t *testing.T, r *rand.Rand) [][2]*refPoint {
	var pairs [][2]*refPoint
	var degenerate int
	for i := range 40 {
		a := refMul(refG, randBig(r, refN))
		b := refMul(refG, randBig(r, refN))
		pairs = append(pairs, [2]*refPoint{a, b}, [2]*refPoint{a, a}, [2]*refPoint{a, refNeg(a)}, [2]*refPoint{nil, b})
		if i < 4 {
			pairs = append(pairs, [2]*refPoint{a, refAdd(a, a)}, [2]*refPoint{refAdd(a, a), a})
		}
		if d := degeneratePartner(a); d != nil {
			pairs = append(pairs, [2]*refPoint{a, d}, [2]*refPoint{d, a})
			degenerate++
		}
	}
	if degenerate == 0 {
		t.Fatal("no degenerate pair found")
	}
	return pairs
}

// TestCompleteAddition checks the complete window steps against the
// reference on every kind of input pair, for both signs and keep.
func TestCompleteAddition(t *testing.T) { eachImpl(t, testCompleteAddition) }

func testCompleteAddition(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for i, pr := range unifiedPairs(t, r) {
		a, b := pr[0], pr[1]
		for neg := range 2 {
			bb := b
			if neg == 1 {
				bb = refNeg(b)
			}
			want := refBytes(refAdd(a, bb))
			for keep := range 2 {
				w := want
				if keep == 1 {
					w = refBytes(a)
				}
				aj := jacobianOf(t, r, a, false)
				bj := jacobianOf(t, r, b, false)
				got := aj
				got.addComplete(&bj, neg, keep)
				if g := jacobianBytes(&got); !bytes.Equal(g, w) {
					t.Fatalf("pair %d: addComplete(neg=%d, keep=%d) = %x, want %x", i, neg, keep, g, w)
				}
				gen := aj
				gen.addCompleteGeneric(&bj, neg, keep)
				if gen != got {
					t.Fatalf("pair %d: addComplete differs from the generic formula", i)
				}
				ba := jacobianOf(t, r, b, true)
				bt := affinePoint{ba.x, ba.y}
				got = aj
				got.addAffineComplete(&bt, neg, keep)
				if g := jacobianBytes(&got); !bytes.Equal(g, w) {
					t.Fatalf("pair %d: addAffineComplete(neg=%d, keep=%d) = %x, want %x", i, neg, keep, g, w)
				}
				gen = aj
				gen.addAffineCompleteGeneric(&bt, neg, keep)
				if gen != got {
					t.Fatalf("pair %d: addAffineComplete differs from the generic formula", i)
				}
			}
		}
	}
}

// TestOddRecoding checks that the digits of oddDigit, with the top digit 1,
// add up to the scalar, and are odd and in range.
func TestOddRecoding(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	ks := testScalars(r)
	ks = append(ks, new(big.Int).Sub(new(big.Int).Lsh(bigOne, 255), bigOne), new(big.Int).Add(new(big.Int).Lsh(bigOne, 255), bigOne))
	for _, k := range ks {
		l := scalarLimbs(scalar32(k))
		reduceModN(&l)
		kr := new(big.Int).Mod(k, refN)
		flipped := makeOdd(&l)
		want := kr
		if kr.Bit(0) == 0 {
			want = new(big.Int).Sub(refN, kr)
		}
		if flipped != int(1-kr.Bit(0)) {
			t.Fatalf("makeOdd(%x) flipped = %d", kr, flipped)
		}
		sum := new(big.Int).Lsh(bigOne, 255)
		for i := range oddWindows - 1 {
			idx, neg := oddDigit(&l, i)
			if idx < 1 || idx > oddEntries {
				t.Fatalf("digit %d of %x: index %d", i, want, idx)
			}
			d := big.NewInt(int64(2*idx - 1))
			if neg == 1 {
				d.Neg(d)
			}
			sum.Add(sum, d.Lsh(d, uint(5*i)))
		}
		if sum.Cmp(want) != 0 {
			t.Fatalf("recoding of %x sums to %x", want, sum)
		}
	}
}

// fromOddDigits returns 2^255 + Σ d_i·2^(5i).
func fromOddDigits(d *[oddWindows - 1]int) *big.Int {
	s := new(big.Int).Lsh(bigOne, 255)
	for i, v := range d {
		s.Add(s, new(big.Int).Lsh(big.NewInt(int64(v)), uint(5*i)))
	}
	return s
}

func randOddDigits(r *rand.Rand) (d [oddWindows - 1]int) {
	for i := range d {
		d[i] = 2*r.IntN(32) - 31
	}
	return d
}

type doubleMultCase struct {
	name string
	q, r *refPoint
	s, t *big.Int
}

// doubleMultCases returns the inputs of the double-scalar multiplication
// tests: random ones, points that are small multiples of each other (as a
// peer may send), scalars related so that the sum cancels or doubles, and
// scalars built digit by digit so that with r = q the accumulator meets the
// added point (doubling) or its negative (the identity) at a chosen window,
// and is the identity at every window above it.
func doubleMultCases(r *rand.Rand) []doubleMultCase {
	var cs []doubleMultCase
	q := refMul(refG, randBig(r, refN))
	edge := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(31), big.NewInt(32),
		new(big.Int).Sub(refN, bigOne), new(big.Int).Sub(refN, big.NewInt(2)), refN,
		new(big.Int).Sub(new(big.Int).Lsh(bigOne, 256), bigOne)}
	for range 6 {
		rr := refMul(refG, randBig(r, refN))
		cs = append(cs, doubleMultCase{"random", q, rr, randBig(r, refN), randBig(r, refN)})
	}
	for _, e := range edge {
		cs = append(cs, doubleMultCase{"edge s", q, refMul(refG, big.NewInt(7)), e, randBig(r, refN)},
			doubleMultCase{"edge t", q, refMul(refG, big.NewInt(7)), randBig(r, refN), e})
	}
	for _, lam := range []int64{1, -1, 2, -2, 3, 16, 31, -31, 32, 33} {
		l := new(big.Int).Mod(big.NewInt(lam), refN)
		rr := refMul(q, l)
		s, tt := randBig(r, refN), randBig(r, refN)
		negS := new(big.Int).Sub(refN, s)
		// s + λt ≡ 0 (the identity) and s ≡ λt (2s·q).
		tCancel := new(big.Int).Mul(negS, new(big.Int).ModInverse(l, refN))
		tCancel.Mod(tCancel, refN)
		tDouble := new(big.Int).Mul(s, new(big.Int).ModInverse(l, refN))
		tDouble.Mod(tDouble, refN)
		cs = append(cs,
			doubleMultCase{"r = λq", q, rr, s, tt},
			doubleMultCase{"r = λq, s = t", q, rr, s, s},
			doubleMultCase{"r = λq, s = -t", q, rr, s, negS},
			doubleMultCase{"r = λq, sum O", q, rr, s, tCancel},
			doubleMultCase{"r = λq, sum 2s·q", q, rr, s, tDouble},
			doubleMultCase{"r = λq, s = t = 0", q, rr, big.NewInt(0), big.NewInt(0)},
		)
	}
	// Window collisions with r = q: s odd (not flipped), t = n - t' even
	// (flipped to t'), so the accumulator runs q·(s' - t') over the digits.
	// With s and t' sharing their digits above window j it is the identity
	// there; at window j, s_j = -t'_j makes the addition a doubling and
	// s_j = t'_j gives the identity.
	for _, j := range []int{50, 49, 40, 25, 10, 1, 0} {
		for _, double := range []bool{true, false} {
			for {
				dt := randOddDigits(r)
				ds := randOddDigits(r)
				copy(ds[j+1:], dt[j+1:])
				ds[j] = dt[j]
				if double {
					ds[j] = -dt[j]
				}
				s, tp := fromOddDigits(&ds), fromOddDigits(&dt)
				if s.Cmp(refN) >= 0 || tp.Cmp(refN) >= 0 {
					continue
				}
				name := "window collision (identity)"
				if double {
					name = "window collision (doubling)"
				}
				cs = append(cs, doubleMultCase{name, q, q, s, new(big.Int).Sub(refN, tp)})
				// The same with the roles of the scalars' signs swapped.
				cs = append(cs, doubleMultCase{name + ", r = -q", q, refNeg(q), s, tp})
				break
			}
		}
	}
	// The degenerate pair: with s and t of the same parity the first
	// addition is ±(q + r) with y_q = -y_r.
	for {
		a := refMul(refG, randBig(r, refN))
		d := degeneratePartner(a)
		if d == nil {
			continue
		}
		s := randBig(r, refN)
		cs = append(cs, doubleMultCase{"degenerate pair", a, d, s, new(big.Int).Add(s, big.NewInt(2))},
			doubleMultCase{"degenerate pair", a, d, s, new(big.Int).Add(s, bigOne)})
		break
	}
	return cs
}

func TestDoubleScalarMult(t *testing.T) { eachImpl(t, testDoubleScalarMult) }

func testDoubleScalarMult(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	cases := doubleMultCases(r)
	if testing.Short() {
		cases = cases[:20]
	}
	for _, c := range cases {
		want := refBytes(refAdd(refMul(c.q, c.s), refMul(c.r, c.t)))
		qp, err1 := new(Point).SetBytes(refBytes(c.q))
		rp, err2 := new(Point).SetBytes(refBytes(c.r))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		// q as computed (projective, Z ≠ 1) too, for the other table path.
		var qz Point
		qz.Add(qp, NewPoint())
		qz.x.Mul(&qz.x, &curveB)
		qz.y.Mul(&qz.y, &curveB)
		qz.z.Mul(&qz.z, &curveB)
		s, tt := scalar32(c.s), scalar32(c.t)
		for _, q := range []*Point{qp, &qz} {
			got, err := new(Point).DoubleScalarMult(q, s, rp, tt)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s: DoubleScalarMult(%x, %x) = %x, want %x", c.name, c.s, c.t, got.Bytes(), want)
			}
			got, err = new(Point).DoubleScalarMult(rp, tt, q, s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s: DoubleScalarMult swapped (%x, %x) = %x, want %x", c.name, c.s, c.t, got.Bytes(), want)
			}
		}
		qt, err := NewPointTable(qp)
		if err != nil {
			t.Fatal(err)
		}
		got, err := new(Point).DoubleScalarMultTable(qt, s, rp, tt)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%s: DoubleScalarMultTable(%x, %x) = %x, want %x", c.name, c.s, c.t, got.Bytes(), want)
		}
	}
}

// TestDoubleScalarMultCTRandom compares with the two-step computation
// s·q + t·r = ScalarMult + ScalarMult on many random inputs.
func TestDoubleScalarMultCTRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for range 200 {
		var q, rr, a, b Point
		q.ScalarBaseMult(scalar32(randBig(r, refN)))
		rr.ScalarBaseMult(scalar32(randBig(r, refN)))
		q.Normalize()
		rr.Normalize()
		s, tt := scalar32(randBig(r, refN)), scalar32(randBig(r, refN))
		a.ScalarMult(&q, s)
		b.ScalarMult(&rr, tt)
		a.Add(&a, &b)
		got, err := new(Point).DoubleScalarMult(&q, s, &rr, tt)
		if err != nil {
			t.Fatal(err)
		}
		if got.Equal(&a) != 1 {
			t.Fatalf("DoubleScalarMult(%x, %x) differs from two ScalarMults", s, tt)
		}
		qt, _ := NewPointTable(&q)
		if got.DoubleScalarMultTable(qt, s, &rr, tt); got.Equal(&a) != 1 {
			t.Fatalf("DoubleScalarMultTable(%x, %x) differs from two ScalarMults", s, tt)
		}
	}
}

func TestDoubleScalarMultErrors(t *testing.T) {
	s := make([]byte, 32)
	g := NewGenerator()
	if _, err := new(Point).DoubleScalarMult(NewPoint(), s, g, s); err == nil {
		t.Error("identity q accepted")
	}
	if _, err := new(Point).DoubleScalarMult(g, s, NewPoint(), s); err == nil {
		t.Error("identity r accepted")
	}
	if _, err := new(Point).DoubleScalarMult(g, s[:31], g, s); err == nil {
		t.Error("short scalar accepted")
	}
	qt, _ := NewPointTable(g)
	if _, err := new(Point).DoubleScalarMultTable(qt, s, NewPoint(), s); err == nil {
		t.Error("identity r accepted with a table")
	}
	if _, err := new(Point).DoubleScalarMultTable(qt, s, g, s[:1]); err == nil {
		t.Error("short scalar accepted with a table")
	}
}

func BenchmarkCPUDoubleScalarMultCT(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	g := NewGenerator()
	var q Point
	q.ScalarBaseMult(s)
	q.Normalize()
	var p Point
	cpuLoop(b, func() { p.DoubleScalarMult(g, s, &q, s) })
}

func BenchmarkCPUDoubleScalarMultCTTable(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	g := NewGenerator()
	qt, _ := NewPointTable(g)
	var q Point
	q.ScalarBaseMult(s)
	q.Normalize()
	var p Point
	cpuLoop(b, func() { p.DoubleScalarMultTable(qt, s, &q, s) })
}
