// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm2

import (
	"crypto/rand"
	"math/big"
	"testing"
)

// sm2Ref is the reference arithmetic of ref_test.go on sm2p256v1.
func sm2Ref() *refCurve {
	return &refCurve{
		p: paramP, a: new(big.Int).Sub(paramP, big.NewInt(3)), b: paramB, n: paramN,
		g: &refPoint{paramGx, paramGy},
	}
}

// digestFor returns the digest e for which (r, s) satisfies the SM2
// verification equation e + x1 ≡ r (mod n), (x1, y1) = [s]G + [(r+s) mod n]P,
// with r and s taken mod n: the digest a forger would pick for a chosen
// signature. The range checks of GB/T 32918.2 §7.1 B1, B2 and B5 are all that
// stand between such a signature and acceptance when r or s is out of range;
// a real signature with an out-of-range value fails the equation anyway and
// so tests nothing. It returns nil if the point is the identity.
func digestFor(c *refCurve, pub *refPoint, r, s *big.Int) []byte {
	rm, sm := new(big.Int).Mod(r, c.n), new(big.Int).Mod(s, c.n)
	t := new(big.Int).Add(rm, sm)
	t.Mod(t, c.n)
	q := c.add(c.mul(c.g, sm), c.mul(pub, t))
	if q == nil {
		return nil
	}
	e := new(big.Int).Sub(rm, q.x)
	return fe32(e.Mod(e, c.n))
}

func TestVerifyRangeChecks(t *testing.T) { eachImpl(t, testVerifyRangeChecks) }

// testVerifyRangeChecks: a signature whose r or s is out of [1, n-1], or
// whose r + s is n, is rejected even with the digest that makes its equation
// hold (GB/T 32918.2 §7.1 B1, B2, B5). Each case is checked on a fresh key
// and on one with its point table (the second use builds it).
func testVerifyRangeChecks(t *testing.T) {
	c := sm2Ref()
	priv := mustKey(t)
	pubBytes := priv.PublicKey().Bytes()
	pubRef := refPointFrom(pubBytes)
	n := paramN
	zero, one := big.NewInt(0), big.NewInt(1)
	rnd := func() *big.Int {
		for {
			v, err := rand.Int(rand.Reader, n)
			if err != nil {
				t.Fatal(err)
			}
			if v.Sign() > 0 {
				return v
			}
		}
	}
	add := func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }
	sub := func(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }
	// Small enough that adding n keeps it within 32 bytes.
	small := big.NewInt(7)
	max256 := sub(new(big.Int).Lsh(one, 256), one)

	verifyBoth := func(e []byte, r, s *big.Int) (fresh, tabled bool) {
		pub, err := NewPublicKey(pubBytes)
		if err != nil {
			t.Fatal(err)
		}
		sig := derSig(r, s)
		fresh = VerifyDigestASN1(pub, e, sig)
		tabled = VerifyDigestASN1(pub, e, sig)
		return
	}

	// The construction is sound: in range, a chosen (r, s) verifies with
	// its digest, so a rejection below is the range check's doing.
	for _, rs := range [][2]*big.Int{{rnd(), rnd()}, {small, rnd()}, {rnd(), small}} {
		e := digestFor(c, pubRef, rs[0], rs[1])
		if f, tb := verifyBoth(e, rs[0], rs[1]); !f || !tb {
			t.Fatalf("in-range chosen signature (%x, %x) rejected (fresh key %v, with table %v)", rs[0], rs[1], f, tb)
		}
	}

	sR, rS := rnd(), rnd()
	cases := []struct {
		name string
		// r and s are sent; the digest is chosen for them mod n.
		r, s *big.Int
	}{
		{"r = 0", zero, sR},
		{"s = 0", rS, zero},
		{"r = n", n, sR},
		{"s = n", rS, n},
		{"r = n + 7", add(n, small), sR},
		{"s = n + 7", rS, add(n, small)},
		{"r = 2^256 - 1", max256, sR},
		{"s = 2^256 - 1", rS, max256},
		{"r + s = n", sub(n, sR), sR},
		{"r + s = n, s = 1", sub(n, one), one},
	}
	for _, tc := range cases {
		e := digestFor(c, pubRef, tc.r, tc.s)
		if e == nil {
			t.Fatalf("%s: the chosen point is the identity", tc.name)
		}
		if f, tb := verifyBoth(e, tc.r, tc.s); f || tb {
			t.Errorf("%s: accepted (fresh key %v, with table %v)", tc.name, f, tb)
		}
	}
}
