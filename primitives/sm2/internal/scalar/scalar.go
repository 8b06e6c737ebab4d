// Package scalar implements arithmetic modulo the order of the sm2p256v1
// group,
//
//	n = FFFFFFFE FFFFFFFF FFFFFFFF FFFFFFFF 7203DF6B 21C6052B 53BBF409 39D54123,
//
// on four 64-bit limbs in the Montgomery domain. Every operation runs in time
// independent of the values involved, since scalars are usually secret
// (private keys, nonces).
package scalar

import (
	"errors"
	"math/bits"
)

// Scalar is an integer modulo n, held as x·R mod n (R = 2^256), fully
// reduced. The zero value is a valid zero.
type Scalar struct {
	l [4]uint64
}

var nLimbs = [4]uint64{0x53bbf40939d54123, 0x7203df6b21c6052b, 0xffffffffffffffff, 0xfffffffeffffffff}

// n0 is -n⁻¹ mod 2^64, the Montgomery step factor.
const n0 = 0x327f9e8872350975

var rr = Scalar{[4]uint64{0x901192af7c114f20, 0x3464504ade6fa2fa, 0x620fc84c3affe0d4, 0x1eb5e412a22b3d3b}}

var one = Scalar{[4]uint64{0xac440bf6c62abedd, 0x8dfc2094de39fad4, 0x0000000000000000, 0x0000000100000000}}

// One sets s = 1 and returns s.
func (s *Scalar) One() *Scalar { *s = one; return s }

// Set sets s = v and returns s.
func (s *Scalar) Set(v *Scalar) *Scalar { *s = *v; return s }

// Equal returns 1 if s == v and 0 otherwise.
func (s *Scalar) Equal(v *Scalar) int {
	acc := (s.l[0] ^ v.l[0]) | (s.l[1] ^ v.l[1]) | (s.l[2] ^ v.l[2]) | (s.l[3] ^ v.l[3])
	return int(1 ^ (acc|-acc)>>63)
}

// IsZero returns 1 if s == 0 and 0 otherwise.
func (s *Scalar) IsZero() int {
	acc := s.l[0] | s.l[1] | s.l[2] | s.l[3]
	return int(1 ^ (acc|-acc)>>63)
}

// Select sets s = a if cond == 1 and s = b if cond == 0, and returns s.
func (s *Scalar) Select(a, b *Scalar, cond int) *Scalar {
	m := -uint64(cond & 1)
	for i := range s.l {
		s.l[i] = b.l[i] ^ (m & (a.l[i] ^ b.l[i]))
	}
	return s
}

var errNonCanonical = errors.New("scalar: invalid scalar encoding")

// SetBytes sets s to the 32-byte big-endian value x, which must be below n,
// and returns s.
func (s *Scalar) SetBytes(x []byte) (*Scalar, error) {
	if len(x) != 32 {
		return nil, errNonCanonical
	}
	t := load(x)
	var b uint64
	_, b = bits.Sub64(t[0], nLimbs[0], 0)
	_, b = bits.Sub64(t[1], nLimbs[1], b)
	_, b = bits.Sub64(t[2], nLimbs[2], b)
	_, b = bits.Sub64(t[3], nLimbs[3], b)
	if b == 0 {
		return nil, errNonCanonical
	}
	s.l = t
	return s.Mul(s, &rr), nil
}

// SetReducedBytes sets s to the 32-byte big-endian value x reduced mod n,
// and returns s. It is used for hash values e, which may exceed n.
func (s *Scalar) SetReducedBytes(x []byte) (*Scalar, error) {
	if len(x) != 32 {
		return nil, errNonCanonical
	}
	t := load(x)
	// x < 2^256 < 2n, so one conditional subtraction suffices.
	reduceOnce(&s.l, &t, 0)
	return s.Mul(s, &rr), nil
}

// Bytes returns the 32-byte big-endian encoding of s.
func (s *Scalar) Bytes() []byte {
	var out [32]byte
	s.PutBytes(&out)
	return out[:]
}

// PutBytes writes the 32-byte big-endian encoding of s into out, for callers
// that want to avoid the allocation of Bytes.
func (s *Scalar) PutBytes(out *[32]byte) {
	var t Scalar
	t.Mul(s, &Scalar{[4]uint64{1, 0, 0, 0}})
	for i := 0; i < 4; i++ {
		v := t.l[i]
		b := out[24-8*i:]
		b[0], b[1], b[2], b[3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
		b[4], b[5], b[6], b[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
}

func load(x []byte) [4]uint64 {
	var t [4]uint64
	for i := 0; i < 4; i++ {
		b := x[24-8*i:]
		t[i] = uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
			uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
	}
	return t
}

// reduceOnce sets out = (carry·2^256 + t) mod n for an input below 2n.
func reduceOnce(out, t *[4]uint64, carry uint64) {
	var s [4]uint64
	var b uint64
	s[0], b = bits.Sub64(t[0], nLimbs[0], 0)
	s[1], b = bits.Sub64(t[1], nLimbs[1], b)
	s[2], b = bits.Sub64(t[2], nLimbs[2], b)
	s[3], b = bits.Sub64(t[3], nLimbs[3], b)
	_, b = bits.Sub64(carry, 0, b)
	m := -b
	out[0] = s[0] ^ (m & (t[0] ^ s[0]))
	out[1] = s[1] ^ (m & (t[1] ^ s[1]))
	out[2] = s[2] ^ (m & (t[2] ^ s[2]))
	out[3] = s[3] ^ (m & (t[3] ^ s[3]))
}

// Add sets s = a + b and returns s.
func (s *Scalar) Add(a, b *Scalar) *Scalar {
	var t [4]uint64
	var c uint64
	t[0], c = bits.Add64(a.l[0], b.l[0], 0)
	t[1], c = bits.Add64(a.l[1], b.l[1], c)
	t[2], c = bits.Add64(a.l[2], b.l[2], c)
	t[3], c = bits.Add64(a.l[3], b.l[3], c)
	reduceOnce(&s.l, &t, c)
	return s
}

// Sub sets s = a - b and returns s.
func (s *Scalar) Sub(a, b *Scalar) *Scalar {
	var t [4]uint64
	var br, c uint64
	t[0], br = bits.Sub64(a.l[0], b.l[0], 0)
	t[1], br = bits.Sub64(a.l[1], b.l[1], br)
	t[2], br = bits.Sub64(a.l[2], b.l[2], br)
	t[3], br = bits.Sub64(a.l[3], b.l[3], br)
	m := -br
	s.l[0], c = bits.Add64(t[0], nLimbs[0]&m, 0)
	s.l[1], c = bits.Add64(t[1], nLimbs[1]&m, c)
	s.l[2], c = bits.Add64(t[2], nLimbs[2]&m, c)
	s.l[3], _ = bits.Add64(t[3], nLimbs[3]&m, c)
	return s
}

// Neg sets s = -a and returns s.
func (s *Scalar) Neg(a *Scalar) *Scalar {
	var z Scalar
	return s.Sub(&z, a)
}

// Mul sets s = a × b and returns s.
//
// It interleaves the product with Montgomery reduction one limb of a at a
// time (CIOS), keeping the running value, below 2n, in registers.
func (s *Scalar) Mul(a, b *Scalar) *Scalar {
	// A loop, not four unrolled copies: scalar multiplications are a handful
	// per signature or key exchange (the inversion is cached per key), so
	// the few nanoseconds an unrolled body saves are invisible next to the
	// point arithmetic.
	b0, b1, b2, b3 := b.l[0], b.l[1], b.l[2], b.l[3]
	var s0, s1, s2, s3, s4, u5 uint64
	for _, ai := range a.l {
		var c, h0, h1, h2, h3, l0, l1, l2, l3 uint64
		h0, l0 = bits.Mul64(ai, b0)
		h1, l1 = bits.Mul64(ai, b1)
		h2, l2 = bits.Mul64(ai, b2)
		h3, l3 = bits.Mul64(ai, b3)
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

		m := s0 * n0
		h0, l0 = bits.Mul64(m, nLimbs[0])
		h1, l1 = bits.Mul64(m, nLimbs[1])
		h2, l2 = bits.Mul64(m, nLimbs[2])
		h3, l3 = bits.Mul64(m, nLimbs[3])
		_, c = bits.Add64(s0, l0, 0)
		s0, c = bits.Add64(s1, l1, c)
		s1, c = bits.Add64(s2, l2, c)
		s2, c = bits.Add64(s3, l3, c)
		s3, c = bits.Add64(s4, 0, c)
		s4 = u5 + c
		s0, c = bits.Add64(s0, h0, 0)
		s1, c = bits.Add64(s1, h1, c)
		s2, c = bits.Add64(s2, h2, c)
		s3, c = bits.Add64(s3, h3, c)
		s4 += c
	}
	t := [4]uint64{s0, s1, s2, s3}
	reduceOnce(&s.l, &t, s4)
	return s
}

// Square sets s = a² and returns s.
func (s *Scalar) Square(a *Scalar) *Scalar { return s.Mul(a, a) }

// The low 128 bits of n-2, the exponent for inversion by Fermat's little
// theorem; the high 128 bits are FFFFFFFE FFFFFFFF FFFFFFFF FFFFFFFF.
const (
	nMinus2Lo1 = 0x7203df6b21c6052b
	nMinus2Lo0 = 0x53bbf40939d54121
)

// Invert sets s = 1/a (0 for a = 0) and returns s, computing a^(n-2).
//
// The exponent is public, so its shape may decide the steps. The high half,
// 31 ones, a zero and 96 ones, is built from blocks a^(2^k - 1) as for the
// field inversion; the irregular low half uses a sliding window of up to 5
// bits over the odd powers a, a³, …, a³¹. That is 257 squarings and 48
// multiplications, against about 76 multiplications with a fixed 4-bit
// window. The steps do not depend on a, so the time does not either.
func (s *Scalar) Invert(a *Scalar) *Scalar {
	var odd [16]Scalar // odd[i] = a^(2i+1)
	var a2 Scalar
	a2.Square(a)
	odd[0] = *a
	for i := 1; i < len(odd); i++ {
		odd[i].Mul(&odd[i-1], &a2)
	}
	// xk = a^(2^k - 1)
	var x3, x6, x12, x24, x30, x31, x32, t Scalar
	x3 = odd[3] // a^7
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
	for range 3 {
		t.squareN(&t, 32)
		t.Mul(&t, &x32)
	}

	bit := func(i int) uint64 {
		if i >= 64 {
			return nMinus2Lo1 >> (i - 64) & 1
		}
		return nMinus2Lo0 >> i & 1
	}
	for i := 127; i >= 0; {
		if bit(i) == 0 {
			t.Square(&t)
			i--
			continue
		}
		// The window is bits i down to j, at most 5 long, ending in a 1.
		j := max(i-4, 0)
		for bit(j) == 0 {
			j++
		}
		var v uint64
		for k := i; k >= j; k-- {
			v = v<<1 | bit(k)
		}
		t.squareN(&t, i-j+1)
		t.Mul(&t, &odd[v>>1])
		i = j - 1
	}
	*s = t
	return s
}

// squareN sets s = a^(2^n), n ≥ 1.
func (s *Scalar) squareN(a *Scalar, n int) *Scalar {
	s.Square(a)
	for range n - 1 {
		s.Square(s)
	}
	return s
}
