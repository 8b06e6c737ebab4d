package field

import "math/bits"

// feMulGeneric sets out = a·b·R⁻¹ mod p.
//
// The 512-bit product is computed schoolbook style and then reduced with
// Montgomery's method. Because p ≡ -1 mod 2^64, the Montgomery factor of each
// step is simply the lowest limb, and because p+1 = 2^64·(2^192 - 2^160 -
// 2^32 + 1), multiplying by (p+1)/2^64 needs only shifts and subtractions: no
// multiplications are spent on the reduction at all.
func feMulGeneric(out, a, b *Element) {
	var t [8]uint64
	var c uint64

	// Row 0.
	a0 := a.l[0]
	h0, l0 := bits.Mul64(a0, b.l[0])
	h1, l1 := bits.Mul64(a0, b.l[1])
	h2, l2 := bits.Mul64(a0, b.l[2])
	h3, l3 := bits.Mul64(a0, b.l[3])
	t[0] = l0
	t[1], c = bits.Add64(l1, h0, 0)
	t[2], c = bits.Add64(l2, h1, c)
	t[3], c = bits.Add64(l3, h2, c)
	t[4] = h3 + c

	// Rows 1 to 3: add a[i]·b at limb i.
	for i := 1; i < 4; i++ {
		ai := a.l[i]
		h0, l0 = bits.Mul64(ai, b.l[0])
		h1, l1 = bits.Mul64(ai, b.l[1])
		h2, l2 = bits.Mul64(ai, b.l[2])
		h3, l3 = bits.Mul64(ai, b.l[3])
		var r1, r2, r3, r4 uint64
		r1, c = bits.Add64(l1, h0, 0)
		r2, c = bits.Add64(l2, h1, c)
		r3, c = bits.Add64(l3, h2, c)
		r4 = h3 + c
		t[i], c = bits.Add64(t[i], l0, 0)
		t[i+1], c = bits.Add64(t[i+1], r1, c)
		t[i+2], c = bits.Add64(t[i+2], r2, c)
		t[i+3], c = bits.Add64(t[i+3], r3, c)
		t[i+4] = r4 + c
	}
	montgomeryReduce(&out.l, &t)
}

// feSquareGeneric sets out = a²·R⁻¹ mod p, computing each cross product once.
func feSquareGeneric(out, a *Element) {
	a0, a1, a2, a3 := a.l[0], a.l[1], a.l[2], a.l[3]
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
	var t [8]uint64
	h, l := bits.Mul64(a0, a0)
	t[0] = l
	t[1], c = bits.Add64(u1, h, 0)
	h, l = bits.Mul64(a1, a1)
	t[2], c = bits.Add64(u2, l, c)
	t[3], c = bits.Add64(u3, h, c)
	h, l = bits.Mul64(a2, a2)
	t[4], c = bits.Add64(u4, l, c)
	t[5], c = bits.Add64(u5, h, c)
	h, l = bits.Mul64(a3, a3)
	t[6], c = bits.Add64(u6, l, c)
	t[7], _ = bits.Add64(u7, h, c)

	montgomeryReduce(&out.l, &t)
}

// montgomeryReduce sets out = t·R⁻¹ mod p for t < p·2^256.
//
// It computes S = (t_lo + M·p)/2^256 ≤ p one limb at a time, then adds
// t_hi < p and subtracts p at most once. Each step replaces the window w
// by (w + m·p)/2^64 = (w >> 64) + m·(p+1)/2^64 with m = w mod 2^64, where
// m·(p+1)/2^64 = m·2^192 - m·2^160 - m·2^32 + m.
func montgomeryReduce(out *[4]uint64, t *[8]uint64) {
	w0, w1, w2, w3 := t[0], t[1], t[2], t[3]
	var b, c uint64
	for range 4 {
		m := w0
		var q0, q1, q2, q3 uint64
		q0, b = bits.Sub64(m, m<<32, 0)
		q1, b = bits.Sub64(0, m>>32, b)
		q2, b = bits.Sub64(0, m<<32, b)
		q3, _ = bits.Sub64(m, m>>32, b)
		w0, c = bits.Add64(w1, q0, 0)
		w1, c = bits.Add64(w2, q1, c)
		w2, c = bits.Add64(w3, q2, c)
		w3 = q3 + c
	}
	var r [4]uint64
	r[0], c = bits.Add64(w0, t[4], 0)
	r[1], c = bits.Add64(w1, t[5], c)
	r[2], c = bits.Add64(w2, t[6], c)
	r[3], c = bits.Add64(w3, t[7], c)
	reduceOnce(out, &r, c)
}
