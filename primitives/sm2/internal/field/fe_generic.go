package field

import "math/bits"

// feMulGeneric sets out = a·b·R⁻¹ mod p.
//
// It interleaves the schoolbook product with Montgomery reduction, one limb
// of a at a time, keeping the running value (below 2p) in six registers.
// Because p ≡ -1 mod 2^64, the Montgomery factor of each step is simply the
// lowest limb m, and because p+1 = 2^64·(2^192 - 2^160 - 2^32 + 1), adding
// m·p and dropping the low limb is adding m·(p+1)/2^64, which takes only
// shifts and subtractions: the reduction spends no multiplications.
func feMulGeneric(out, a, b *Element) {
	b0, b1, b2, b3 := b.l[0], b.l[1], b.l[2], b.l[3]
	var s0, s1, s2, s3, s4 uint64
	var c, h0, h1, h2, h3, l0, l1, l2, l3, u5 uint64
	var m, q0, q1, q2, q3, br uint64

	// Limb 0 of a.
	h0, l0 = bits.Mul64(a.l[0], b0)
	h1, l1 = bits.Mul64(a.l[0], b1)
	h2, l2 = bits.Mul64(a.l[0], b2)
	h3, l3 = bits.Mul64(a.l[0], b3)
	s0, c = bits.Add64(s0, l0, 0)
	s1, c = bits.Add64(s1, l1, c)
	s2, c = bits.Add64(s2, l2, c)
	s3, c = bits.Add64(s3, l3, c)
	s4, u5 = bits.Add64(s4, 0, c)
	s1, c = bits.Add64(s1, h0, 0)
	s2, c = bits.Add64(s2, h1, c)
	s3, c = bits.Add64(s3, h2, c)
	s4, c = bits.Add64(s4, h3, c)
	u5 += c
	// (s + m·p)/2^64 = (s >> 64) + m·(2^192 - 2^160 - 2^32 + 1), m = s0.
	m = s0
	q0, br = bits.Sub64(m, m<<32, 0)
	q1, br = bits.Sub64(0, m>>32, br)
	q2, br = bits.Sub64(0, m<<32, br)
	q3, _ = bits.Sub64(m, m>>32, br)
	s0, c = bits.Add64(s1, q0, 0)
	s1, c = bits.Add64(s2, q1, c)
	s2, c = bits.Add64(s3, q2, c)
	s3, c = bits.Add64(s4, q3, c)
	s4 = u5 + c

	// Limb 1 of a.
	h0, l0 = bits.Mul64(a.l[1], b0)
	h1, l1 = bits.Mul64(a.l[1], b1)
	h2, l2 = bits.Mul64(a.l[1], b2)
	h3, l3 = bits.Mul64(a.l[1], b3)
	s0, c = bits.Add64(s0, l0, 0)
	s1, c = bits.Add64(s1, l1, c)
	s2, c = bits.Add64(s2, l2, c)
	s3, c = bits.Add64(s3, l3, c)
	s4, u5 = bits.Add64(s4, 0, c)
	s1, c = bits.Add64(s1, h0, 0)
	s2, c = bits.Add64(s2, h1, c)
	s3, c = bits.Add64(s3, h2, c)
	s4, c = bits.Add64(s4, h3, c)
	u5 += c
	// (s + m·p)/2^64 = (s >> 64) + m·(2^192 - 2^160 - 2^32 + 1), m = s0.
	m = s0
	q0, br = bits.Sub64(m, m<<32, 0)
	q1, br = bits.Sub64(0, m>>32, br)
	q2, br = bits.Sub64(0, m<<32, br)
	q3, _ = bits.Sub64(m, m>>32, br)
	s0, c = bits.Add64(s1, q0, 0)
	s1, c = bits.Add64(s2, q1, c)
	s2, c = bits.Add64(s3, q2, c)
	s3, c = bits.Add64(s4, q3, c)
	s4 = u5 + c

	// Limb 2 of a.
	h0, l0 = bits.Mul64(a.l[2], b0)
	h1, l1 = bits.Mul64(a.l[2], b1)
	h2, l2 = bits.Mul64(a.l[2], b2)
	h3, l3 = bits.Mul64(a.l[2], b3)
	s0, c = bits.Add64(s0, l0, 0)
	s1, c = bits.Add64(s1, l1, c)
	s2, c = bits.Add64(s2, l2, c)
	s3, c = bits.Add64(s3, l3, c)
	s4, u5 = bits.Add64(s4, 0, c)
	s1, c = bits.Add64(s1, h0, 0)
	s2, c = bits.Add64(s2, h1, c)
	s3, c = bits.Add64(s3, h2, c)
	s4, c = bits.Add64(s4, h3, c)
	u5 += c
	// (s + m·p)/2^64 = (s >> 64) + m·(2^192 - 2^160 - 2^32 + 1), m = s0.
	m = s0
	q0, br = bits.Sub64(m, m<<32, 0)
	q1, br = bits.Sub64(0, m>>32, br)
	q2, br = bits.Sub64(0, m<<32, br)
	q3, _ = bits.Sub64(m, m>>32, br)
	s0, c = bits.Add64(s1, q0, 0)
	s1, c = bits.Add64(s2, q1, c)
	s2, c = bits.Add64(s3, q2, c)
	s3, c = bits.Add64(s4, q3, c)
	s4 = u5 + c

	// Limb 3 of a.
	h0, l0 = bits.Mul64(a.l[3], b0)
	h1, l1 = bits.Mul64(a.l[3], b1)
	h2, l2 = bits.Mul64(a.l[3], b2)
	h3, l3 = bits.Mul64(a.l[3], b3)
	s0, c = bits.Add64(s0, l0, 0)
	s1, c = bits.Add64(s1, l1, c)
	s2, c = bits.Add64(s2, l2, c)
	s3, c = bits.Add64(s3, l3, c)
	s4, u5 = bits.Add64(s4, 0, c)
	s1, c = bits.Add64(s1, h0, 0)
	s2, c = bits.Add64(s2, h1, c)
	s3, c = bits.Add64(s3, h2, c)
	s4, c = bits.Add64(s4, h3, c)
	u5 += c
	// (s + m·p)/2^64 = (s >> 64) + m·(2^192 - 2^160 - 2^32 + 1), m = s0.
	m = s0
	q0, br = bits.Sub64(m, m<<32, 0)
	q1, br = bits.Sub64(0, m>>32, br)
	q2, br = bits.Sub64(0, m<<32, br)
	q3, _ = bits.Sub64(m, m>>32, br)
	s0, c = bits.Add64(s1, q0, 0)
	s1, c = bits.Add64(s2, q1, c)
	s2, c = bits.Add64(s3, q2, c)
	s3, c = bits.Add64(s4, q3, c)
	s4 = u5 + c
	// Final conditional subtraction of p, written out (see Add).
	t0, bw := bits.Sub64(s0, pLimbs[0], 0)
	t1, bw := bits.Sub64(s1, pLimbs[1], bw)
	t2, bw := bits.Sub64(s2, pLimbs[2], bw)
	t3, bw := bits.Sub64(s3, pLimbs[3], bw)
	_, bw = bits.Sub64(s4, 0, bw)
	mk := -bw
	out.l[0] = t0 ^ (mk & (s0 ^ t0))
	out.l[1] = t1 ^ (mk & (s1 ^ t1))
	out.l[2] = t2 ^ (mk & (s2 ^ t2))
	out.l[3] = t3 ^ (mk & (s3 ^ t3))
}

// feSquareGeneric sets out = a²·R⁻¹ mod p.
func feSquareGeneric(out, a *Element) {
	out.l[0], out.l[1], out.l[2], out.l[3] = square(a.l[0], a.l[1], a.l[2], a.l[3])
}

// feSquareNGeneric sets out = a^(2^n) (in the Montgomery domain), keeping
// the value in registers between the squarings of an inversion chain.
func feSquareNGeneric(out, a *Element, n int) {
	a0, a1, a2, a3 := a.l[0], a.l[1], a.l[2], a.l[3]
	for range n {
		a0, a1, a2, a3 = square(a0, a1, a2, a3)
	}
	out.l[0], out.l[1], out.l[2], out.l[3] = a0, a1, a2, a3
}

// square returns a²·R⁻¹ mod p, computing each cross product once.
func square(a0, a1, a2, a3 uint64) (r0, r1, r2, r3 uint64) {
	var c uint64

	// Cross products a[i]·a[j], i < j, at limb i+j.
	h1, u1 := bits.Mul64(a0, a1)
	h2, l2 := bits.Mul64(a0, a2)
	h3, l3 := bits.Mul64(a0, a3)
	u2, c := bits.Add64(l2, h1, 0)
	u3, c := bits.Add64(l3, h2, c)
	u4 := h3 + c

	h12, l12 := bits.Mul64(a1, a2)
	h13, l13 := bits.Mul64(a1, a3)
	v4, c := bits.Add64(l13, h12, 0)
	v5 := h13 + c
	u3, c = bits.Add64(u3, l12, 0)
	u4, c = bits.Add64(u4, v4, c)
	u5 := v5 + c

	h23, l23 := bits.Mul64(a2, a3)
	u5, c = bits.Add64(u5, l23, 0)
	u6 := h23 + c

	// Double them.
	u7 := u6 >> 63
	u6 = u6<<1 | u5>>63
	u5 = u5<<1 | u4>>63
	u4 = u4<<1 | u3>>63
	u3 = u3<<1 | u2>>63
	u2 = u2<<1 | u1>>63
	u1 <<= 1

	// Add the squares a[i]² at limb 2i.
	h, t0 := bits.Mul64(a0, a0)
	t1, c := bits.Add64(u1, h, 0)
	h, l := bits.Mul64(a1, a1)
	t2, c := bits.Add64(u2, l, c)
	t3, c := bits.Add64(u3, h, c)
	h, l = bits.Mul64(a2, a2)
	t4, c := bits.Add64(u4, l, c)
	t5, c := bits.Add64(u5, h, c)
	h, l = bits.Mul64(a3, a3)
	t6, c := bits.Add64(u6, l, c)
	t7, _ := bits.Add64(u7, h, c)

	// Montgomery reduction of the low half, one limb at a time as in
	// feMulGeneric, then add the high half.
	var m, q0, q1, q2, q3, br uint64
	for range 4 {
		m = t0
		q0, br = bits.Sub64(m, m<<32, 0)
		q1, br = bits.Sub64(0, m>>32, br)
		q2, br = bits.Sub64(0, m<<32, br)
		q3, _ = bits.Sub64(m, m>>32, br)
		t0, c = bits.Add64(t1, q0, 0)
		t1, c = bits.Add64(t2, q1, c)
		t2, c = bits.Add64(t3, q2, c)
		t3 = q3 + c
	}
	t0, c = bits.Add64(t0, t4, 0)
	t1, c = bits.Add64(t1, t5, c)
	t2, c = bits.Add64(t2, t6, c)
	t3, c = bits.Add64(t3, t7, c)
	// Final conditional subtraction of p, written out (see Add).
	s0, b := bits.Sub64(t0, pLimbs[0], 0)
	s1, b := bits.Sub64(t1, pLimbs[1], b)
	s2, b := bits.Sub64(t2, pLimbs[2], b)
	s3, b := bits.Sub64(t3, pLimbs[3], b)
	_, b = bits.Sub64(c, 0, b)
	mk := -b
	return s0 ^ (mk & (t0 ^ s0)), s1 ^ (mk & (t1 ^ s1)), s2 ^ (mk & (t2 ^ s2)), s3 ^ (mk & (t3 ^ s3))
}
