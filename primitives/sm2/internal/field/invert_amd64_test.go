//go:build !purego

package field

import (
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestUpdateKernels runs the assembly matrix updates against the Go ones on
// the values of real inversions, batch by batch, and on extreme matrices
// (|u| + |v| = |q| + |r| = 2^60, the bound of 60 divsteps) over random
// values in the ranges the updates keep.
func TestUpdateKernels(t *testing.T) {
	check := func(f, g, d, e int60x5, m matrix) {
		t.Helper()
		f1, g1, d1, e1 := f, g, d, e
		f2, g2, d2, e2 := f, g, d, e
		updateFGGeneric(&f1, &g1, &m)
		updateDEGeneric(&d1, &e1, &m)
		tm := (*[4]int64)(unsafe.Pointer(&m))
		updateFGIMUL((*[5]int64)(&f2), (*[5]int64)(&g2), tm)
		updateDEIMUL((*[5]int64)(&d2), (*[5]int64)(&e2), tm)
		if f1 != f2 || g1 != g2 {
			t.Fatalf("updateFG(%v, %v, %v): %v %v, want %v %v", f, g, m, f2, g2, f1, g1)
		}
		if d1 != d2 || e1 != e2 {
			t.Fatalf("updateDE(%v, %v, %v): %v %v, want %v %v", d, e, m, d2, e2, d1, e1)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, a := range invertInputs(r) {
		ea := mustSet(t, a)
		f, g := pSigned60, toSigned60(&ea.l)
		var d, e int60x5
		e[0] = 1
		delta := int64(1)
		for range batches {
			var m matrix
			delta, m = divsteps60(delta, uint64(f[0]), uint64(g[0]))
			check(f, g, d, e, m)
			updateFGGeneric(&f, &g, &m)
			updateDEGeneric(&d, &e, &m)
		}
	}
	// Values in (-2p, p) as int60x5, and f, g in [-p, p].
	twoP := new(big.Int).Lsh(pBig, 1)
	rb := mrand.New(mrand.NewSource(7))
	signed := func(lo, span *big.Int) int60x5 {
		v := new(big.Int).Rand(rb, span)
		v.Add(v, lo)
		return bigToSigned60(v)
	}
	const one60 = int64(1) << 60
	for i := range 2000 {
		var m matrix
		switch i % 4 {
		case 0: // random, within the bound
			a := r.Int64N(one60 + 1)
			c := r.Int64N(one60 + 1)
			m = matrix{a, one60 - a, c, one60 - c}
			if r.IntN(2) == 1 {
				m.u = -m.u
			}
			if r.IntN(2) == 1 {
				m.r = -m.r
			}
		case 1:
			m = matrix{one60, 0, 0, one60}
		case 2:
			m = matrix{-one60, 0, 0, -one60}
		case 3:
			h := one60 / 2
			m = matrix{-h, -h, h, -h}
		}
		f := signed(new(big.Int).Neg(pBig), twoP)
		g := signed(new(big.Int).Neg(pBig), twoP)
		d := signed(new(big.Int).Neg(twoP), new(big.Int).Add(twoP, pBig))
		e := signed(new(big.Int).Neg(twoP), new(big.Int).Add(twoP, pBig))
		check(f, g, d, e, m)
	}
}

// bigToSigned60 converts v in (-2^256, 2^256) to int60x5: limbs 0-3 in
// [0, 2^60), limb 4 signed.
func bigToSigned60(v *big.Int) int60x5 {
	var out int60x5
	mask := new(big.Int).SetUint64(mask60)
	x := new(big.Int).Set(v)
	for i := range 4 {
		out[i] = new(big.Int).And(x, mask).Int64()
		x.Rsh(x, 60) // floor division, also for negative x
	}
	out[4] = x.Int64()
	return out
}

// TestDivstepsKernel compares the conditional-move divsteps with the Go
// ones on random and edge low words and every δ the inversion can reach.
func TestDivstepsKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	words := []uint64{0, 1, 2, 3, 1 << 63, 1<<64 - 1, 1<<64 - 2, 0x5555555555555555, 0xaaaaaaaaaaaaaaaa}
	for range 200 {
		words = append(words, r.Uint64())
	}
	for i := range 20000 {
		var nd int64
		if i < 2*1300 {
			nd = int64(i/2-650)*2 + 1 // δ odd, |δ| up to 1,300
		} else {
			nd = r.Int64N(1<<20)*2 - 1<<20 + 1
		}
		f := words[r.IntN(len(words))] | 1
		g := words[r.IntN(len(words))]
		if i%3 == 0 {
			g = r.Uint64()
		}
		nd1, f1, g1, m1 := divsteps30Generic(nd, f, g)
		nd2, f2, g2, fr, gr := divsteps30CMOV(nd, f, g)
		if nd1 != nd2 || f1 != f2 || g1 != g2 || m1 != unpackRows(fr, gr) {
			t.Fatalf("divsteps30(%d, %x, %x): %d %x %x %v, want %d %x %x %v", nd, f, g, nd2, f2, g2, unpackRows(fr, gr), nd1, f1, g1, m1)
		}
	}
}
