package sm2ec

import "github.com/shangmi-go/shangmi/primitives/sm2/internal/field"

// jacobianPoint is a point in Jacobian coordinates (X:Y:Z), x = X/Z² and
// y = Y/Z³; Z = 0 is the identity. Doubling costs 4M+4S here against 10M+3S
// for the complete projective formula, which is why the variable-base
// multiplications, dominated by doublings, run in these coordinates. The
// addition formula is not complete: callers handle the identity and P = Q,
// either with constant-time selection (see ScalarMult for why the equal
// case can only occur in its last window) or with branches on public data.
type jacobianPoint struct {
	x, y, z field.Element
}

func (p *jacobianPoint) fromAffine(a *affinePoint) {
	p.x, p.y = a.x, a.y
	p.z.One()
}

// toProjective converts to (X·Z : Y : Z³), which has the same affine x and y.
func (p *jacobianPoint) toProjective(out *Point) {
	var z2 field.Element
	z2.Square(&p.z)
	inf := p.z.IsZero()
	var one field.Element
	one.One()
	out.x.Mul(&p.x, &p.z)
	out.z.Mul(&z2, &p.z)
	out.y.Select(&one, &p.y, inf)
}

func (p *jacobianPoint) fromProjective(q *Point) {
	// (X/Z, Y/Z) = (X·Z / Z², Y·Z² / Z³).
	var z2 field.Element
	z2.Square(&q.z)
	p.x.Mul(&q.x, &q.z)
	p.y.Mul(&q.y, &z2)
	p.z = q.z
}

// doubleGeneric sets p = 2a for a = -3, and maps the identity to the identity.
//
// It is dbl-2001-b of Bernstein and Lange rearranged around 2Y: with
// γ' = (2Y)² = 4γ and β' = X·γ' = 4β, the terms 8β and 8γ² become 2β' and
// γ'²/2, and Z3 = 2YZ is one multiplication. That is 4M+4S and ten
// additions against 3M+5S and sixteen, which is cheaper here because a
// field addition costs about a quarter of a multiplication.
func (p *jacobianPoint) doubleGeneric(a *jacobianPoint) {
	var delta, y2, gamma4, beta4, alpha, t, u field.Element
	delta.Square(&a.z)
	y2.Add(&a.y, &a.y)
	gamma4.Square(&y2)
	beta4.Mul(&a.x, &gamma4)
	// alpha = 3(X - delta)(X + delta)
	t.Sub(&a.x, &delta)
	u.Add(&a.x, &delta)
	alpha.Mul(&t, &u)
	t.Add(&alpha, &alpha)
	alpha.Add(&alpha, &t)
	// Z3 = 2Y·Z
	p.z.Mul(&y2, &a.z)
	// X3 = alpha² - 2·beta'
	t.Square(&alpha)
	u.Add(&beta4, &beta4)
	p.x.Sub(&t, &u)
	// Y3 = alpha·(beta' - X3) - gamma'²/2
	beta4.Sub(&beta4, &p.x)
	t.Mul(&alpha, &beta4)
	gamma4.Square(&gamma4)
	gamma4.Half(&gamma4)
	p.y.Sub(&t, &gamma4)
}

// addGeneric sets p = a + b and returns 1 if a and b were the same point other
// than the identity (when the result is wrong and a doubling is needed).
// With a = -b it correctly yields the identity; with either input the
// identity the result is wrong and the caller must select.
//
// The formula is add-1998-cmo-2 (12M+4S), which spends one multiplication
// more than add-2007-bl (11M+5S) but six field additions fewer, a net gain
// at this package's relative costs.
func (p *jacobianPoint) addGeneric(a, b *jacobianPoint) (equal int) {
	var z1z1, z2z2, u1, u2, s1, s2, h, r, hh, hhh, v, t field.Element
	z1z1.Square(&a.z)
	z2z2.Square(&b.z)
	u1.Mul(&a.x, &z2z2)
	u2.Mul(&b.x, &z1z1)
	s1.Mul(&a.y, &b.z)
	s1.Mul(&s1, &z2z2)
	s2.Mul(&b.y, &a.z)
	s2.Mul(&s2, &z1z1)
	h.Sub(&u2, &u1)
	r.Sub(&s2, &s1)
	equal = h.IsZero() & r.IsZero() & (1 - a.z.IsZero()) & (1 - b.z.IsZero())
	hh.Square(&h)
	hhh.Mul(&h, &hh)
	v.Mul(&u1, &hh)
	// Z3 = Z1·Z2·H
	t.Mul(&a.z, &b.z)
	p.z.Mul(&t, &h)
	// X3 = r² - HHH - 2V
	t.Square(&r)
	t.Sub(&t, &hhh)
	u1.Add(&v, &v)
	p.x.Sub(&t, &u1)
	// Y3 = r(V - X3) - S1·HHH
	v.Sub(&v, &p.x)
	v.Mul(&v, &r)
	s1.Mul(&s1, &hhh)
	p.y.Sub(&v, &s1)
	return equal
}

// addAffineGeneric sets p = a + b for an affine b and returns 1 if a == b (result
// wrong). The identity a gives a wrong result. The formula is
// madd-2004-hmv (8M+3S), chosen over madd-2007-bl (7M+4S) for its six
// fewer field additions, as for add.
func (p *jacobianPoint) addAffineGeneric(a *jacobianPoint, b *affinePoint) (equal int) {
	var z1z1, u2, s2, h, r, hh, hhh, v, t field.Element
	z1z1.Square(&a.z)
	u2.Mul(&b.x, &z1z1)
	s2.Mul(&b.y, &a.z)
	s2.Mul(&s2, &z1z1)
	h.Sub(&u2, &a.x)
	r.Sub(&s2, &a.y)
	equal = h.IsZero() & r.IsZero() & (1 - a.z.IsZero())
	hh.Square(&h)
	hhh.Mul(&h, &hh)
	v.Mul(&a.x, &hh)
	// Y1·HHH is needed below, so compute it before p (which may alias a)
	// changes.
	var y1 field.Element
	y1.Mul(&a.y, &hhh)
	// Z3 = Z1·H
	p.z.Mul(&a.z, &h)
	// X3 = r² - HHH - 2V
	t.Square(&r)
	t.Sub(&t, &hhh)
	u2.Add(&v, &v)
	p.x.Sub(&t, &u2)
	// Y3 = r(V - X3) - Y1·HHH
	v.Sub(&v, &p.x)
	v.Mul(&v, &r)
	p.y.Sub(&v, &y1)
	return equal
}

func (p *jacobianPoint) selectFrom(a, b *jacobianPoint, cond int) {
	p.x.Select(&a.x, &b.x, cond)
	p.y.Select(&a.y, &b.y, cond)
	p.z.Select(&a.z, &b.z, cond)
}

// addVarTime sets p = a + b handling every special case with branches. For
// public inputs only.
func (p *jacobianPoint) addVarTime(a, b *jacobianPoint) {
	if a.z.IsZero() == 1 {
		*p = *b
		return
	}
	if b.z.IsZero() == 1 {
		*p = *a
		return
	}
	var sum jacobianPoint
	if sum.add(a, b) == 1 {
		p.double(a)
		return
	}
	*p = sum
}

// addAffineVarTime sets p = a + b for affine b, with branches.
func (p *jacobianPoint) addAffineVarTime(a *jacobianPoint, b *affinePoint) {
	if a.z.IsZero() == 1 {
		p.fromAffine(b)
		return
	}
	var sum jacobianPoint
	if sum.addAffine(a, b) == 1 {
		p.double(a)
		return
	}
	*p = sum
}

// addAffineSelectGeneric is one window step of the constant-time fixed-base
// multiplication: with t' = t, or -t if neg is 1, it sets p = p + t', except
// that p becomes t' if p is the identity (where the formula fails), and p
// stays unchanged if keep is 1 (a zero digit). It must not be used where p
// may equal t' (see ScalarBaseMult).
func (p *jacobianPoint) addAffineSelectGeneric(t *affinePoint, neg, keep int) {
	var tn affinePoint
	var negY field.Element
	tn.x = t.x
	negY.Neg(&t.y)
	tn.y.Select(&negY, &t.y, neg)
	var sum, tj jacobianPoint
	sum.addAffineGeneric(p, &tn)
	tj.fromAffine(&tn)
	sum.selectFrom(&tj, &sum, p.z.IsZero())
	p.selectFrom(p, &sum, keep)
}

// addAffineNeg is one window step of ScalarBaseMult without a fused
// kernel: p = p + t, or p - t if neg is 1, with the incomplete mixed
// addition (see ScalarBaseMult for why it is right there).
func (p *jacobianPoint) addAffineNeg(t *affinePoint, neg int) {
	var tn affinePoint
	var negY field.Element
	tn.x = t.x
	negY.Neg(&t.y)
	tn.y.Select(&negY, &t.y, neg)
	p.addAffine(p, &tn)
}

// addSelectGeneric is addAffineSelectGeneric for a Jacobian t, the window
// step of ScalarMult.
func (p *jacobianPoint) addSelectGeneric(t *jacobianPoint, neg, keep int) {
	tn := *t
	var negY field.Element
	negY.Neg(&t.y)
	tn.y.Select(&negY, &t.y, neg)
	var sum jacobianPoint
	sum.addGeneric(p, &tn)
	sum.selectFrom(&tn, &sum, p.z.IsZero())
	p.selectFrom(p, &sum, keep)
}

// The complete additions below use the unified formula: with both points
// brought to a common Z (U1, S1 and U2, S2 with x_i = U_i/Z², y_i = S_i/Z³),
// the slope is λ = N/M with
//
//	N = U1² + U1·U2 + U2² + a·Z⁴ = (U1 + U2)² - U1·U2 - 3Z⁴,  M = S1 + S2,
//
// up to the common factor Z. This is the tangent's slope when the points are
// equal, and for distinct x it is the chord's slope (y1 - y2)/(x1 - x2),
// because (y1 - y2)(y1 + y2) = y1² - y2² = (x1 - x2)(x1² + x1x2 + x2² + a) on
// the curve. It fails only for N = M = 0, when y1 = -y2; then the chord's
// slope itself, (S1 - S2)/(U1 - U2), is taken instead (selected, not
// branched). With λ = n/(m·Z) for the pair (n, m) chosen, Z3 = m·Z and
//
//	X3 = n² - (U1 + U2)·m²,  Y3 = (n·((U1 + U2)·m² - 2X3) - M·m³)/2,
//
// where M·m³ is m⁴ for the unified pair and 0 for the chord (M = 0). If the
// points are each other's negatives, m is M = 0 (or U1 - U2 = 0 when N = 0
// too), so Z3 = 0: the identity, as it should be. The only input left out is
// the identity itself (Z = 0), which the step functions select around.
//
// So one formula covers sum, doubling and inverse points for about the cost
// of the incomplete addition (12M+7S against 12M+4S, mixed 7M+6S against
// 8M+3S), where handling the doubling case by also computing a doubling
// would cost 4M+4S more. It is the formula of Brier and Joye ("Weierstraß
// elliptic curves and side-channel attacks", PKC 2002) with the fallback for
// y1 = -y2 that makes it complete.

// addUnifiedGeneric sets p = a + b for a and b not the identity, correct for
// every such pair (equal, inverse or distinct).
func (p *jacobianPoint) addUnifiedGeneric(a, b *jacobianPoint) {
	var z1z1, z2z2, u1, u2, s1, s2, zc, zc4 field.Element
	z2z2.Square(&b.z)
	s1.Mul(&b.z, &z2z2)
	z1z1.Square(&a.z)
	u2.Mul(&b.x, &z1z1)
	s2.Mul(&b.y, &a.z)
	s2.Mul(&s2, &z1z1)
	u1.Mul(&a.x, &z2z2)
	s1.Mul(&a.y, &s1)
	zc.Mul(&a.z, &b.z)
	zc4.Square(&zc)
	zc4.Square(&zc4)
	p.unifiedTail(&u1, &u2, &s1, &s2, &zc, &zc4)
}

// addAffineUnifiedGeneric is addUnifiedGeneric for an affine b.
func (p *jacobianPoint) addAffineUnifiedGeneric(a *jacobianPoint, b *affinePoint) {
	var z1z1, u2, s2, zc4 field.Element
	z1z1.Square(&a.z)
	u2.Mul(&b.x, &z1z1)
	s2.Mul(&b.y, &a.z)
	s2.Mul(&s2, &z1z1)
	zc4.Square(&z1z1)
	u1, s1, zc := a.x, a.y, a.z
	p.unifiedTail(&u1, &u2, &s1, &s2, &zc, &zc4)
}

// unifiedTail finishes the unified addition from the points scaled to the
// common Z = zc, with zc4 = Z⁴. p may alias nothing it reads: the inputs
// are copies.
func (p *jacobianPoint) unifiedTail(u1, u2, s1, s2, zc, zc4 *field.Element) {
	var tt, n, m, bigM, t0, t1 field.Element
	tt.Add(u1, u2)
	n.Square(&tt)
	t0.Mul(u1, u2)
	n.Sub(&n, &t0)
	t0.Add(zc4, zc4)
	t0.Add(&t0, zc4)
	n.Sub(&n, &t0)
	bigM.Add(s1, s2)
	degenerate := bigM.IsZero() & n.IsZero()
	t0.Sub(s1, s2)
	t1.Sub(u1, u2)
	n.Select(&t0, &n, degenerate)
	m.Select(&t1, &bigM, degenerate)
	// Z3 = m·Z
	p.z.Mul(&m, zc)
	// X3 = n² - T·m²
	var m2, q field.Element
	m2.Square(&m)
	q.Mul(&tt, &m2)
	t0.Square(&n)
	p.x.Sub(&t0, &q)
	// Y3 = (n·(Q - 2X3) - M·m³)/2
	t0.Add(&p.x, &p.x)
	t0.Sub(&q, &t0)
	t0.Mul(&n, &t0)
	m2.Square(&m2)
	t1.Zero()
	m2.Select(&t1, &m2, degenerate)
	t0.Sub(&t0, &m2)
	p.y.Half(&t0)
}

// addCompleteGeneric is one window step of a constant-time multiplication
// where the accumulator p may meet any multiple of the added point: with
// t' = t, or -t if neg is 1, it sets p = p + t' for every p (the identity
// included) and every t other than the identity, and leaves p unchanged if
// keep is 1.
func (p *jacobianPoint) addCompleteGeneric(t *jacobianPoint, neg, keep int) {
	tn := *t
	var negY field.Element
	negY.Neg(&t.y)
	tn.y.Select(&negY, &t.y, neg)
	var sum jacobianPoint
	sum.addUnifiedGeneric(p, &tn)
	sum.selectFrom(&tn, &sum, p.z.IsZero())
	p.selectFrom(p, &sum, keep)
}

// addAffineCompleteGeneric is addCompleteGeneric for an affine t.
func (p *jacobianPoint) addAffineCompleteGeneric(t *affinePoint, neg, keep int) {
	var tn affinePoint
	var negY field.Element
	tn.x = t.x
	negY.Neg(&t.y)
	tn.y.Select(&negY, &t.y, neg)
	var sum, tj jacobianPoint
	sum.addAffineUnifiedGeneric(p, &tn)
	tj.fromAffine(&tn)
	sum.selectFrom(&tj, &sum, p.z.IsZero())
	p.selectFrom(p, &sum, keep)
}
