package field

import "math/bits"

// Constant-time inversion by the "safegcd" divsteps of Bernstein and Yang
// ("Fast constant-time gcd computation and modular inversion", 2019).
//
// The state is (δ, f, g) with f = p and g = a at the start, δ = 1; a step
// of the "half-delta" variant of the divsteps is
//
//	δ > 0 and g odd:  (δ, f, g) ← (2-δ, g, (g-f)/2)
//	otherwise:        (δ, f, g) ← (2+δ, f, (g + (g mod 2)·f)/2)
//
// (the paper's divsteps started from δ = 1/2, doubled), and for a modulus
// M ≥ 2^22 and 0 ≤ g ≤ f ≤ M at most ⌊(3787·log2(M) + 2166)/1644⌋ of them,
// 591 for p, bring g to 0 and f to ±1 (the bound computed by P. Wuille's
// convex-hull analysis, github.com/sipa/safegcd-bounds, against 741 for the
// original divsteps by Theorem 11.2 of the paper). They run in batches of 62 on the low
// 64 bits of f and g, which is all that the parity decisions of 62 steps
// read, collecting the batch into an integer matrix T with
// 2^62·(f', g') = T·(f, g); the full f and g, and coefficients d and e with
// f ≡ d·a, g ≡ e·a (mod p), are then updated by T once per batch. At the
// end a⁻¹ = ±d. Every step and update is branch-free, so the time does not
// depend on a; 10 batches (620 steps) are always run.
//
// The numbers are held as five signed 62-bit limbs (int62x5): limbs 0-3 in
// [0, 2^62), limb 4 signed.

type int62x5 [5]int64

const (
	mask62  = 1<<62 - 1
	batches = 10
)

// pSigned62 is p in int62x5 form.
var pSigned62 = int62x5{
	0x3fffffffffffffff, 0x3ffffffc00000003, 0x3fffffffffffffff, 0x3fffffbfffffffff, 0xff,
}

// rrr is R³ mod p as a raw element: the Montgomery product of the plain
// inverse of the Montgomery form a·R with it is a⁻¹·R, the Montgomery form
// of the inverse.
var rrr = Element{[4]uint64{0x0000001200000016, 0x0000000efffffff8, 0x0000000a0000000c, 0x0000001b00000009}}

func toSigned62(l *[4]uint64) int62x5 {
	return int62x5{
		int64(l[0] & mask62),
		int64((l[0]>>62 | l[1]<<2) & mask62),
		int64((l[1]>>60 | l[2]<<4) & mask62),
		int64((l[2]>>58 | l[3]<<6) & mask62),
		int64(l[3] >> 56),
	}
}

// fromSigned62 converts a value in [0, 2^256) back to limbs.
func fromSigned62(v *int62x5) [4]uint64 {
	return [4]uint64{
		uint64(v[0]) | uint64(v[1])<<62,
		uint64(v[1])>>2 | uint64(v[2])<<60,
		uint64(v[2])>>4 | uint64(v[3])<<58,
		uint64(v[3])>>6 | uint64(v[4])<<56,
	}
}

// matrix is the transition matrix of a batch: u, v for the f row and q, r
// for the g row, scaled by 2^62.
type matrix struct{ u, v, q, r int64 }

// divsteps62 runs 62 divsteps on the low bits f, g with the given δ and
// returns the new δ and the matrix.
func divsteps62(delta int64, f, g uint64) (int64, matrix) {
	u, v, q, r := int64(1), int64(0), int64(0), int64(1)
	// The loop keeps -δ, whose sign is the swap condition, one operation
	// shorter on the critical path.
	nd := -delta
	for range 62 {
		// c1 is all ones when δ > 0, odd when g is odd; both is a swap.
		c1 := nd >> 63
		odd := -int64(g & 1)
		// With x = c1 ? -f : f, g += x for odd g gives g - f (swap) or
		// g + f; then f += g gives the old g in the swap case. The matrix
		// rows follow, the f row doubled instead of halving g.
		x := (int64(f) ^ c1) - c1
		y := (u ^ c1) - c1
		z := (v ^ c1) - c1
		g += uint64(x & odd)
		q += y & odd
		r += z & odd
		c := c1 & odd
		nd = (nd ^ c) - c - 2 // δ ← 2 + (c ? -δ : δ)
		f += g & uint64(c)
		u += q & c
		v += r & c
		g >>= 1
		u <<= 1
		v <<= 1
	}
	return -nd, matrix{u, v, q, r}
}

// mulAdd128 returns the signed 128-bit a·b + c·d as (hi, lo).
func mulAdd128(a, b, c, d int64) (int64, uint64) {
	h1, l1 := mulSigned(a, b)
	h2, l2 := mulSigned(c, d)
	lo, carry := bits.Add64(l1, l2, 0)
	return h1 + h2 + int64(carry), lo
}

func mulSigned(a, b int64) (int64, uint64) {
	h, l := bits.Mul64(uint64(a), uint64(b))
	return int64(h) - (a>>63)&b - (b>>63)&a, l
}

// add128 adds the signed (h2, l2) to (h1, l1).
func add128(h1 int64, l1 uint64, h2 int64, l2 uint64) (int64, uint64) {
	lo, carry := bits.Add64(l1, l2, 0)
	return h1 + h2 + int64(carry), lo
}

// shr62 returns the signed 128-bit value shifted right by 62 bits.
func shr62(h int64, l uint64) (int64, uint64) {
	return h >> 62, l>>62 | uint64(h)<<2
}

// updateFG sets (f, g) = T·(f, g) / 2^62, which is exact.
func updateFG(f, g *int62x5, t *matrix) {
	fh, fl := mulAdd128(t.u, f[0], t.v, g[0])
	gh, gl := mulAdd128(t.q, f[0], t.r, g[0])
	fh, fl = shr62(fh, fl)
	gh, gl = shr62(gh, gl)
	for i := 1; i < 5; i++ {
		h, l := mulAdd128(t.u, f[i], t.v, g[i])
		fh, fl = add128(fh, fl, h, l)
		h, l = mulAdd128(t.q, f[i], t.r, g[i])
		gh, gl = add128(gh, gl, h, l)
		f[i-1], g[i-1] = int64(fl&mask62), int64(gl&mask62)
		fh, fl = shr62(fh, fl)
		gh, gl = shr62(gh, gl)
	}
	f[4], g[4] = int64(fl), int64(gl)
}

// updateDE sets (d, e) = T·(d, e) / 2^62 mod p, keeping both in (-2p, p).
//
// Adding md·p (and me·p) makes the sums divisible by 2^62: p ≡ -1 mod 2^62,
// so md ≡ the low limb of u·d + v·e. It is taken in (-2^62, 0] after
// adding u (v) for a negative d (e), which is the same as using d + p
// (e + p) in (-p, p); with |u| + |v| ≤ 2^62 the result stays in (-2p, p).
func updateDE(d, e *int62x5, t *matrix) {
	sd, se := d[4]>>63, e[4]>>63
	md := t.u&sd + t.v&se
	me := t.q&sd + t.r&se
	_, cdl := mulAdd128(t.u, d[0], t.v, e[0])
	_, cel := mulAdd128(t.q, d[0], t.r, e[0])
	// md -= (p⁻¹·cd + md) mod 2^62, with p⁻¹ ≡ -1 mod 2^62.
	md -= int64((uint64(md) - cdl) & mask62)
	me -= int64((uint64(me) - cel) & mask62)
	dh, dl := mulAdd128(t.u, d[0], t.v, e[0])
	eh, el := mulAdd128(t.q, d[0], t.r, e[0])
	h, l := mulSigned(md, pSigned62[0])
	dh, dl = add128(dh, dl, h, l)
	h, l = mulSigned(me, pSigned62[0])
	eh, el = add128(eh, el, h, l)
	dh, dl = shr62(dh, dl)
	eh, el = shr62(eh, el)
	for i := 1; i < 5; i++ {
		h, l := mulAdd128(t.u, d[i], t.v, e[i])
		dh, dl = add128(dh, dl, h, l)
		h, l = mulSigned(md, pSigned62[i])
		dh, dl = add128(dh, dl, h, l)
		h, l = mulAdd128(t.q, d[i], t.r, e[i])
		eh, el = add128(eh, el, h, l)
		h, l = mulSigned(me, pSigned62[i])
		eh, el = add128(eh, el, h, l)
		d[i-1], e[i-1] = int64(dl&mask62), int64(el&mask62)
		dh, dl = shr62(dh, dl)
		eh, el = shr62(eh, el)
	}
	d[4], e[4] = int64(dl), int64(el)
}

// addMasked sets v += m & p (m all ones or zero), with carries.
func addMasked(v *int62x5, m int64) {
	var c int64
	for i := range 4 {
		s := v[i] + pSigned62[i]&m + c
		v[i], c = s&mask62, s>>62
	}
	v[4] += pSigned62[4]&m + c
}

// negateMasked sets v = -v if m is all ones, keeping the limb form.
func negateMasked(v *int62x5, m int64) {
	var c int64
	for i := range 4 {
		s := (v[i] ^ m) - m + c
		v[i], c = s&mask62, s>>62
	}
	v[4] = (v[4] ^ m) - m + c
}

// invertSafegcd sets e = 1/a (0 for a = 0) in constant time.
func (e *Element) invertSafegcd(a *Element) *Element {
	f, g := pSigned62, toSigned62(&a.l)
	var d, ee int62x5
	ee[0] = 1
	delta := int64(1)
	for range batches {
		var t matrix
		delta, t = divsteps62(delta, uint64(f[0]), uint64(g[0]))
		updateFG(&f, &g, &t)
		updateDE(&d, &ee, &t)
	}
	// f = ±1 (or ±p for a = 0, when d = 0) and a⁻¹ = f·d. Bring f·d from
	// (-2p, 2p) to [0, p).
	negateMasked(&d, f[4]>>63)
	addMasked(&d, d[4]>>63)
	addMasked(&d, d[4]>>63)
	// Now d is in [0, 2p); subtract p if d ≥ p.
	var inv Element
	inv.l = fromSigned62(&d)
	var s [4]uint64
	var b uint64
	s[0], b = bits.Sub64(inv.l[0], pLimbs[0], 0)
	s[1], b = bits.Sub64(inv.l[1], pLimbs[1], b)
	s[2], b = bits.Sub64(inv.l[2], pLimbs[2], b)
	s[3], b = bits.Sub64(inv.l[3], pLimbs[3], b)
	_, b = bits.Sub64(uint64(d[4]>>8), 0, b) // bit 256 of d
	m := -b                                  // all ones: d < p, keep it
	for i := range 4 {
		inv.l[i] = s[i] ^ (m & (inv.l[i] ^ s[i]))
	}
	return e.Mul(&inv, &rrr)
}
