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
// original divsteps by Theorem 11.2 of the paper). They run in batches of
// 60 on the low 64 bits of f and g, which is all that the parity decisions
// of 60 steps read, collecting the batch into an integer matrix T with
// 2^60·(f', g') = T·(f, g); the full f and g, and coefficients d and e with
// f ≡ d·a, g ≡ e·a (mod p), are then updated by T once per batch. At the
// end a⁻¹ = ±d. Every step and update is branch-free, so the time does not
// depend on a; 10 batches (600 steps) are always run.
//
// Within a batch, each half of 30 steps keeps the two entries of a matrix
// row in one word (u + v·2^32, exact while |u|, |v| < 2^31), which halves
// the row arithmetic of every step; the two half-batch matrices are then
// multiplied.
//
// The numbers are held as five signed 60-bit limbs (int60x5): limbs 0-3 in
// [0, 2^60), limb 4 signed.
//
// On amd64 the half batches and the updates run in assembly (see
// fe_asm_amd64.go and ../../_asm/invert.go): the divsteps with conditional
// moves, the updates with signed IMULQ products, the same arithmetic.

type int60x5 [5]int64

const (
	mask60  = 1<<60 - 1
	batches = 10
)

// pSigned60 is p in int60x5 form.
var pSigned60 = int60x5{
	0xfffffffffffffff, 0xffffff00000000f, 0xfffffffffffffff, 0xfffefffffffffff, 0xffff,
}

// rrr is R³ mod p as a raw element: the Montgomery product of the plain
// inverse of the Montgomery form a·R with it is a⁻¹·R, the Montgomery form
// of the inverse.
var rrr = Element{[4]uint64{0x0000001200000016, 0x0000000efffffff8, 0x0000000a0000000c, 0x0000001b00000009}}

func toSigned60(l *[4]uint64) int60x5 {
	return int60x5{
		int64(l[0] & mask60),
		int64((l[0]>>60 | l[1]<<4) & mask60),
		int64((l[1]>>56 | l[2]<<8) & mask60),
		int64((l[2]>>52 | l[3]<<12) & mask60),
		int64(l[3] >> 48),
	}
}

// fromSigned60 converts a value in [0, 2^256) back to limbs.
func fromSigned60(v *int60x5) [4]uint64 {
	return [4]uint64{
		uint64(v[0]) | uint64(v[1])<<60,
		uint64(v[1])>>4 | uint64(v[2])<<56,
		uint64(v[2])>>8 | uint64(v[3])<<52,
		uint64(v[3])>>12 | uint64(v[4])<<48,
	}
}

// matrix is the transition matrix of a batch: u, v for the f row and q, r
// for the g row, scaled by 2^60.
type matrix struct{ u, v, q, r int64 }

// divsteps60 runs 60 divsteps on the low bits f, g with the given δ and
// returns the new δ and the matrix.
func divsteps60(delta int64, f, g uint64) (int64, matrix) {
	nd := -delta
	nd, f, g, a := divsteps30(nd, f, g)
	nd, _, _, b := divsteps30(nd, f, g)
	// The second half's matrix applies after the first's: T = B·A.
	return -nd, matrix{
		b.u*a.u + b.v*a.q, b.u*a.v + b.v*a.r,
		b.q*a.u + b.r*a.q, b.q*a.v + b.r*a.r,
	}
}

// divsteps30Generic runs 30 divsteps on the low bits f, g with nd = -δ and returns
// the new nd, f and g and the half-batch matrix. The rows are packed as
// fr = u + v·2^32 and gr = q + r·2^32: every row operation (negate, add,
// double) is linear, so it applies to the packed word as a whole, and after
// 30 steps |u|, |v|, |q|, |r| ≤ 2^30 can be unpacked exactly.
func divsteps30Generic(nd int64, f, g uint64) (int64, uint64, uint64, matrix) {
	fr, gr := int64(1), int64(1)<<32
	for range 30 {
		// c1 is all ones when δ > 0, odd when g is odd; both is a swap.
		c1 := nd >> 63
		odd := -int64(g & 1)
		// With x = c1 ? -f : f, g += x for odd g gives g - f (swap) or
		// g + f; then f += g gives the old g in the swap case. The matrix
		// rows follow, the f row doubled instead of halving g.
		x := (int64(f) ^ c1) - c1
		y := (fr ^ c1) - c1
		g += uint64(x & odd)
		gr += y & odd
		c := c1 & odd
		nd = (nd ^ c) - c - 2 // δ ← 2 + (c ? -δ : δ)
		f += g & uint64(c)
		fr += gr & c
		g >>= 1
		fr <<= 1
	}
	return nd, f, g, unpackRows(fr, gr)
}

// unpackRows returns the matrix of the packed rows fr = u + v·2^32 and
// gr = q + r·2^32.
func unpackRows(fr, gr int64) matrix {
	u := int64(int32(fr))
	q := int64(int32(gr))
	return matrix{u, (fr - u) >> 32, q, (gr - q) >> 32}
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

// shr60 returns the signed 128-bit value shifted right by 60 bits.
func shr60(h int64, l uint64) (int64, uint64) {
	return h >> 60, l>>60 | uint64(h)<<4
}

// updateFGGeneric sets (f, g) = T·(f, g) / 2^60, which is exact.
func updateFGGeneric(f, g *int60x5, t *matrix) {
	fh, fl := mulAdd128(t.u, f[0], t.v, g[0])
	gh, gl := mulAdd128(t.q, f[0], t.r, g[0])
	fh, fl = shr60(fh, fl)
	gh, gl = shr60(gh, gl)
	for i := 1; i < 5; i++ {
		h, l := mulAdd128(t.u, f[i], t.v, g[i])
		fh, fl = add128(fh, fl, h, l)
		h, l = mulAdd128(t.q, f[i], t.r, g[i])
		gh, gl = add128(gh, gl, h, l)
		f[i-1], g[i-1] = int64(fl&mask60), int64(gl&mask60)
		fh, fl = shr60(fh, fl)
		gh, gl = shr60(gh, gl)
	}
	f[4], g[4] = int64(fl), int64(gl)
}

// updateDEGeneric sets (d, e) = T·(d, e) / 2^60 mod p, keeping both in
// (-2p, p).
//
// Adding md·p (and me·p) makes the sums divisible by 2^60: p ≡ -1 mod 2^60,
// so md ≡ the low limb of u·d + v·e. It is taken in (-2^60, 0] after
// adding u (v) for a negative d (e), which is the same as using d + p
// (e + p) in (-p, p); with |u| + |v| ≤ 2^60 the result stays in (-2p, p).
func updateDEGeneric(d, e *int60x5, t *matrix) {
	sd, se := d[4]>>63, e[4]>>63
	md := t.u&sd + t.v&se
	me := t.q&sd + t.r&se
	_, cdl := mulAdd128(t.u, d[0], t.v, e[0])
	_, cel := mulAdd128(t.q, d[0], t.r, e[0])
	// md -= (p⁻¹·cd + md) mod 2^60, with p⁻¹ ≡ -1 mod 2^60.
	md -= int64((uint64(md) - cdl) & mask60)
	me -= int64((uint64(me) - cel) & mask60)
	dh, dl := mulAdd128(t.u, d[0], t.v, e[0])
	eh, el := mulAdd128(t.q, d[0], t.r, e[0])
	h, l := mulSigned(md, pSigned60[0])
	dh, dl = add128(dh, dl, h, l)
	h, l = mulSigned(me, pSigned60[0])
	eh, el = add128(eh, el, h, l)
	dh, dl = shr60(dh, dl)
	eh, el = shr60(eh, el)
	for i := 1; i < 5; i++ {
		h, l := mulAdd128(t.u, d[i], t.v, e[i])
		dh, dl = add128(dh, dl, h, l)
		h, l = mulSigned(md, pSigned60[i])
		dh, dl = add128(dh, dl, h, l)
		h, l = mulAdd128(t.q, d[i], t.r, e[i])
		eh, el = add128(eh, el, h, l)
		h, l = mulSigned(me, pSigned60[i])
		eh, el = add128(eh, el, h, l)
		d[i-1], e[i-1] = int64(dl&mask60), int64(el&mask60)
		dh, dl = shr60(dh, dl)
		eh, el = shr60(eh, el)
	}
	d[4], e[4] = int64(dl), int64(el)
}

// addMasked sets v += m & p (m all ones or zero), with carries.
func addMasked(v *int60x5, m int64) {
	var c int64
	for i := range 4 {
		s := v[i] + pSigned60[i]&m + c
		v[i], c = s&mask60, s>>60
	}
	v[4] += pSigned60[4]&m + c
}

// negateMasked sets v = -v if m is all ones, keeping the limb form.
func negateMasked(v *int60x5, m int64) {
	var c int64
	for i := range 4 {
		s := (v[i] ^ m) - m + c
		v[i], c = s&mask60, s>>60
	}
	v[4] = (v[4] ^ m) - m + c
}

// invertSafegcd sets e = 1/a (0 for a = 0) in constant time.
func (e *Element) invertSafegcd(a *Element) *Element {
	f, g := pSigned60, toSigned60(&a.l)
	var d, ee int60x5
	ee[0] = 1
	delta := int64(1)
	for range batches {
		var t matrix
		delta, t = divsteps60(delta, uint64(f[0]), uint64(g[0]))
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
	inv.l = fromSigned60(&d)
	var s [4]uint64
	var b uint64
	s[0], b = bits.Sub64(inv.l[0], pLimbs[0], 0)
	s[1], b = bits.Sub64(inv.l[1], pLimbs[1], b)
	s[2], b = bits.Sub64(inv.l[2], pLimbs[2], b)
	s[3], b = bits.Sub64(inv.l[3], pLimbs[3], b)
	_, b = bits.Sub64(uint64(d[4]>>16), 0, b) // bit 256 of d
	m := -b                                   // all ones: d < p, keep it
	for i := range 4 {
		inv.l[i] = s[i] ^ (m & (inv.l[i] ^ s[i]))
	}
	return e.Mul(&inv, &rrr)
}
