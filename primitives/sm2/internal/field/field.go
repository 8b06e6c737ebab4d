// Package field implements arithmetic modulo the sm2p256v1 prime
//
//	p = 2^256 - 2^224 - 2^96 + 2^64 - 1
//
// on four 64-bit limbs in the Montgomery domain (R = 2^256). Every operation
// runs in time independent of the values involved, on every path.
//
// Multiplication and squaring have assembly kernels: MULX/ADCX/ADOX (BMI2
// and ADX) and MULQ on amd64, MUL/UMULH on arm64, generic Go otherwise and
// with the purego tag. Since p ≡ -1 mod 2^64 the Montgomery quotient digit
// is the low limb itself, and the reduction takes shifts and additions
// only. The dispatch is in fe_asm_amd64.go and fe_asm_arm64.go; inversion
// (invert.go) runs the safegcd divsteps, in Go on all paths.
//
// Methods follow the crypto/internal/fips140/nistec/fiat convention: they
// take the operands as arguments, store into the receiver and return it, so
// that formulas can be written in the order of the paper they come from.
package field

import (
	"errors"
	"math/bits"
)

// Element is an integer modulo p, held as x·R mod p, fully reduced. The zero
// value is a valid zero.
type Element struct {
	l [4]uint64
}

// p in little-endian limbs.
var pLimbs = [4]uint64{0xffffffffffffffff, 0xffffffff00000000, 0xffffffffffffffff, 0xfffffffeffffffff}

// rr is R² mod p, used to enter the Montgomery domain.
var rr = Element{[4]uint64{0x0000000200000003, 0x00000002ffffffff, 0x0000000100000001, 0x0000000400000002}}

// one is R mod p, the Montgomery form of 1.
var one = Element{[4]uint64{0x0000000000000001, 0x00000000ffffffff, 0x0000000000000000, 0x0000000100000000}}

// One sets e = 1 and returns e.
func (e *Element) One() *Element { *e = one; return e }

// Zero sets e = 0 and returns e.
func (e *Element) Zero() *Element { *e = Element{}; return e }

// Set sets e = v and returns e.
func (e *Element) Set(v *Element) *Element { *e = *v; return e }

// Equal returns 1 if e and v are equal and 0 otherwise.
func (e *Element) Equal(v *Element) int {
	var acc uint64
	for i := range e.l {
		acc |= e.l[i] ^ v.l[i]
	}
	return isZero64(acc)
}

// IsZero returns 1 if e == 0 and 0 otherwise.
func (e *Element) IsZero() int {
	return isZero64(e.l[0] | e.l[1] | e.l[2] | e.l[3])
}

func isZero64(x uint64) int {
	// x|-x has its top bit set exactly when x != 0.
	return int(1 ^ (x|-x)>>63)
}

// Select sets e = a if cond == 1 and e = b if cond == 0, and returns e.
func (e *Element) Select(a, b *Element, cond int) *Element {
	m := -uint64(cond & 1)
	for i := range e.l {
		e.l[i] = b.l[i] ^ (m & (a.l[i] ^ b.l[i]))
	}
	return e
}

// Bytes returns the 32-byte big-endian encoding of e.
func (e *Element) Bytes() []byte {
	var out [32]byte
	return e.bytes(&out)
}

// PutBytes writes the 32-byte big-endian encoding of e into out, for
// callers that want to avoid the allocation of Bytes.
func (e *Element) PutBytes(out *[32]byte) { e.bytes(out) }

func (e *Element) bytes(out *[32]byte) []byte {
	var t Element
	t.fromMontgomery(e)
	for i := 0; i < 4; i++ {
		putUint64(out[24-8*i:], t.l[i])
	}
	return out[:]
}

// errNonCanonical is returned by SetBytes for encodings of values ≥ p.
var errNonCanonical = errors.New("field: invalid element encoding")

// SetBytes sets e to the 32-byte big-endian value x and returns e. It
// rejects inputs of the wrong length and values not below p.
func (e *Element) SetBytes(x []byte) (*Element, error) {
	if len(x) != 32 {
		return nil, errNonCanonical
	}
	var t [4]uint64
	for i := 0; i < 4; i++ {
		t[i] = getUint64(x[24-8*i:])
	}
	// t < p iff t - p borrows.
	var b uint64
	_, b = bits.Sub64(t[0], pLimbs[0], 0)
	_, b = bits.Sub64(t[1], pLimbs[1], b)
	_, b = bits.Sub64(t[2], pLimbs[2], b)
	_, b = bits.Sub64(t[3], pLimbs[3], b)
	if b == 0 {
		return nil, errNonCanonical
	}
	e.l = t
	e.Mul(e, &rr)
	return e, nil
}

// fromMontgomery sets e = a·R⁻¹, the plain value of a.
func (e *Element) fromMontgomery(a *Element) {
	var o = Element{[4]uint64{1, 0, 0, 0}}
	e.Mul(a, &o)
}

// Add sets e = a + b and returns e.
func (e *Element) Add(a, b *Element) *Element {
	t0, c := bits.Add64(a.l[0], b.l[0], 0)
	t1, c := bits.Add64(a.l[1], b.l[1], c)
	t2, c := bits.Add64(a.l[2], b.l[2], c)
	t3, c := bits.Add64(a.l[3], b.l[3], c)
	// Subtract p once if the sum is at least p, in constant time. This is
	// written out rather than shared with Mul as a helper, which the
	// compiler would not inline: Add is as frequent as Mul in the point
	// formulas, so a call here costs measurably.
	s0, br := bits.Sub64(t0, pLimbs[0], 0)
	s1, br := bits.Sub64(t1, pLimbs[1], br)
	s2, br := bits.Sub64(t2, pLimbs[2], br)
	s3, br := bits.Sub64(t3, pLimbs[3], br)
	_, br = bits.Sub64(c, 0, br)
	m := -br // all ones: the sum was below p, keep it
	e.l[0] = s0 ^ (m & (t0 ^ s0))
	e.l[1] = s1 ^ (m & (t1 ^ s1))
	e.l[2] = s2 ^ (m & (t2 ^ s2))
	e.l[3] = s3 ^ (m & (t3 ^ s3))
	return e
}

// Sub sets e = a - b and returns e.
func (e *Element) Sub(a, b *Element) *Element {
	var t [4]uint64
	var br uint64
	t[0], br = bits.Sub64(a.l[0], b.l[0], 0)
	t[1], br = bits.Sub64(a.l[1], b.l[1], br)
	t[2], br = bits.Sub64(a.l[2], b.l[2], br)
	t[3], br = bits.Sub64(a.l[3], b.l[3], br)
	// On borrow add p back.
	m := -br
	var c uint64
	e.l[0], c = bits.Add64(t[0], pLimbs[0]&m, 0)
	e.l[1], c = bits.Add64(t[1], pLimbs[1]&m, c)
	e.l[2], c = bits.Add64(t[2], pLimbs[2]&m, c)
	e.l[3], _ = bits.Add64(t[3], pLimbs[3]&m, c)
	return e
}

// Half sets e = a/2 and returns e: a/2 for even a and (a + p)/2 for odd a,
// chosen in constant time. Halving the Montgomery form halves the value.
func (e *Element) Half(a *Element) *Element {
	m := -(a.l[0] & 1)
	t0, c := bits.Add64(a.l[0], pLimbs[0]&m, 0)
	t1, c := bits.Add64(a.l[1], pLimbs[1]&m, c)
	t2, c := bits.Add64(a.l[2], pLimbs[2]&m, c)
	t3, c := bits.Add64(a.l[3], pLimbs[3]&m, c)
	e.l[0] = t0>>1 | t1<<63
	e.l[1] = t1>>1 | t2<<63
	e.l[2] = t2>>1 | t3<<63
	e.l[3] = t3>>1 | c<<63
	return e
}

// Neg sets e = -a and returns e.
func (e *Element) Neg(a *Element) *Element {
	var z Element
	return e.Sub(&z, a)
}

// Mul sets e = a × b and returns e.
func (e *Element) Mul(a, b *Element) *Element {
	feMul(e, a, b)
	return e
}

// Square sets e = a² and returns e.
func (e *Element) Square(a *Element) *Element {
	feSquare(e, a)
	return e
}

// squareN sets e = a^(2^n), n ≥ 1.
func (e *Element) squareN(a *Element, n int) *Element {
	feSquareN(e, a, n)
	return e
}

// invertFermat sets e = 1/a (and 0 for a = 0) and returns e. It computes
// a^(p-2) with a fixed addition chain, so its running time does not depend
// on a. It is the reference the tests hold Invert to.
func (e *Element) invertFermat(a *Element) *Element {
	// p-2 in binary, from the top: 31 ones, 0, 128 ones, 32 zeros, 32 ones,
	// 30 ones, 0, 1.
	t, x30, x32 := powTop160(a)
	t.squareN(&t, 32)
	t.squareN(&t, 32)
	t.Mul(&t, &x32)
	t.squareN(&t, 30)
	t.Mul(&t, &x30)
	t.squareN(&t, 2)
	t.Mul(&t, a)
	*e = t
	return e
}

// Sqrt sets e to a square root of a and returns (e, 1) if one exists, and
// returns (e, 0) leaving e unspecified otherwise. Since p ≡ 3 mod 4 the root
// is a^((p+1)/4).
func (e *Element) Sqrt(a *Element) (*Element, int) {
	// (p+1)/4 from the top: 31 ones, 0, 128 ones, 31 zeros, 1, 62 zeros.
	t, _, _ := powTop160(a)
	t.squareN(&t, 32)
	t.Mul(&t, a)
	t.squareN(&t, 62)
	var c Element
	c.Square(&t)
	ok := c.Equal(a)
	*e = t
	return e, ok
}

// powTop160 returns a raised to the 160-bit pattern that p-2 and (p+1)/4
// both start with (31 ones, 0, 128 ones), and the powers a^(2^30-1) and
// a^(2^32-1) that invertFermat needs to finish.
func powTop160(a *Element) (t, x30, x32 Element) {
	var x2, x3, x6, x12, x24, x31 Element
	x2.Square(a)
	x2.Mul(&x2, a)
	x3.Square(&x2)
	x3.Mul(&x3, a)
	x6.squareN(&x3, 3)
	x6.Mul(&x6, &x3)
	x12.squareN(&x6, 6)
	x12.Mul(&x12, &x6)
	x24.squareN(&x12, 12)
	x24.Mul(&x24, &x12)
	x30.squareN(&x24, 6)
	x30.Mul(&x30, &x6)
	x31.Square(&x30)
	x31.Mul(&x31, a)
	x32.Square(&x31)
	x32.Mul(&x32, a)

	t.Square(&x31)
	for range 4 {
		t.squareN(&t, 32)
		t.Mul(&t, &x32)
	}
	return t, x30, x32
}

// IsOdd returns 1 if the plain value of e is odd, as used for the sign bit
// of compressed points.
func (e *Element) IsOdd() int {
	var t Element
	t.fromMontgomery(e)
	return int(t.l[0] & 1)
}

func getUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
		uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
}

func putUint64(b []byte, v uint64) {
	_ = b[7]
	b[0] = byte(v >> 56)
	b[1] = byte(v >> 48)
	b[2] = byte(v >> 40)
	b[3] = byte(v >> 32)
	b[4] = byte(v >> 24)
	b[5] = byte(v >> 16)
	b[6] = byte(v >> 8)
	b[7] = byte(v)
}

// Invert sets e = 1/a (and 0 for a = 0) and returns e, in constant time. It
// runs the safegcd divsteps (invert.go), a quarter faster here than the
// exponentiation to p-2 that invertFermat computes.
func (e *Element) Invert(a *Element) *Element { return e.invertSafegcd(a) }
