//go:build !purego

package sm2ec

import (
	"math/rand/v2"
	"os"
	"regexp"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// kernelPoints returns Jacobian points for the kernel tests: multiples of G
// with random Z, the identity with a few Y, and the special pairs the
// formulas must flag.
func kernelPoints(t *testing.T, r *rand.Rand) []jacobianPoint {
	var pts []jacobianPoint
	for _, k := range testScalars(r) {
		var p Point
		if _, err := p.ScalarBaseMult(scalar32(k)); err != nil {
			t.Fatal(err)
		}
		var j jacobianPoint
		j.fromProjective(&p)
		// Rescale by a random λ: (λ²X, λ³Y, λZ) is the same point.
		var lam, l2, l3 field.Element
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		b[0] &= 0x7f
		lam.SetBytes(b)
		l2.Square(&lam)
		l3.Mul(&l2, &lam)
		j.x.Mul(&j.x, &l2)
		j.y.Mul(&j.y, &l3)
		j.z.Mul(&j.z, &lam)
		pts = append(pts, j)
	}
	var inf jacobianPoint
	inf.x.One()
	inf.y.One()
	pts = append(pts, inf)
	return pts
}

// TestPointKernels compares the assembly point formulas with the Go ones
// they transcribe, bit for bit, including the equality flag, on every
// ordered pair of test points (which includes equal points, inverse
// points, and the identity).
func TestPointKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	pts := kernelPoints(t, r)
	neg := func(p jacobianPoint) jacobianPoint { p.y.Neg(&p.y); return p }
	type kernels struct {
		name    string
		double  func(out, a *[12]uint64, n int)
		add     func(out, a, b *[12]uint64) int
		madd    func(out, a *[12]uint64, b *[8]uint64) int
		addSel  func(p, t *[12]uint64, neg, keep int)
		maddSel func(p *[12]uint64, t *[8]uint64, neg, keep int)
		addCom  func(p, t *[12]uint64, neg, keep int)
		maddCom func(p *[12]uint64, t *[8]uint64, neg, keep int)
	}
	ks := []kernels{{"mulq", pointDoubleMULQ, pointAddMULQ, pointAddAffineMULQ, pointAddSelectMULQ, pointAddAffineSelectMULQ,
		pointAddCompleteMULQ, pointAddAffineCompleteMULQ}}
	if usePointADX {
		ks = append(ks, kernels{"adx", pointDoubleADX, pointAddADX, pointAddAffineADX, pointAddSelectADX, pointAddAffineSelectADX,
			pointAddCompleteADX, pointAddAffineCompleteADX})
	}
	for _, k := range ks {
		for i := range pts {
			a := pts[i]
			for _, n := range []int{1, 2, 5} {
				var got, want jacobianPoint
				k.double(got.limbs(), a.limbs(), n)
				want.doubleGeneric(&a)
				for range n - 1 {
					want.doubleGeneric(&want)
				}
				if got != want {
					t.Fatalf("%s: double^%d of point %d differs", k.name, n, i)
				}
			}
			for j := range pts {
				for _, b := range []jacobianPoint{pts[j], neg(pts[j]), pts[i]} {
					var got, want jacobianPoint
					ge := k.add(got.limbs(), a.limbs(), b.limbs())
					we := want.addGeneric(&a, &b)
					if got != want || ge != we {
						t.Fatalf("%s: add of points %d, %d differs (flags %d, %d)", k.name, i, j, ge, we)
					}
					// Aliased output.
					got = a
					if k.add(got.limbs(), got.limbs(), b.limbs()); got != want {
						t.Fatalf("%s: aliased add differs", k.name)
					}
					for sel := range 4 {
						neg, keep := sel&1, sel>>1
						got, want = a, a
						k.addSel(got.limbs(), b.limbs(), neg, keep)
						want.addSelectGeneric(&b, neg, keep)
						if got != want {
							t.Fatalf("%s: addSelect(neg=%d, keep=%d) of points %d, %d differs", k.name, neg, keep, i, j)
						}
						if b.z.IsZero() == 1 {
							continue // the complete steps take no identity t
						}
						got, want = a, a
						k.addCom(got.limbs(), b.limbs(), neg, keep)
						want.addCompleteGeneric(&b, neg, keep)
						if got != want {
							t.Fatalf("%s: addComplete(neg=%d, keep=%d) of points %d, %d differs", k.name, neg, keep, i, j)
						}
					}
					// Mixed addition with b in affine form.
					if b.z.IsZero() == 1 {
						continue
					}
					var bp Point
					b.toProjective(&bp)
					bx, by, _ := bp.Affine()
					ba := affinePoint{bx, by}
					ge = k.madd(got.limbs(), a.limbs(), ba.limbs())
					we = want.addAffineGeneric(&a, &ba)
					if got != want || ge != we {
						t.Fatalf("%s: madd of points %d, %d differs (flags %d, %d)", k.name, i, j, ge, we)
					}
					for sel := range 4 {
						neg, keep := sel&1, sel>>1
						got, want = a, a
						k.maddSel(got.limbs(), ba.limbs(), neg, keep)
						want.addAffineSelectGeneric(&ba, neg, keep)
						if got != want {
							t.Fatalf("%s: addAffineSelect(neg=%d, keep=%d) of points %d, %d differs", k.name, neg, keep, i, j)
						}
						got, want = a, a
						k.maddCom(got.limbs(), ba.limbs(), neg, keep)
						want.addAffineCompleteGeneric(&ba, neg, keep)
						if got != want {
							t.Fatalf("%s: addAffineComplete(neg=%d, keep=%d) of points %d, %d differs", k.name, neg, keep, i, j)
						}
					}
				}
			}
		}
	}
}

// TestLookupKernels checks the vector table scans against the Go ones for
// every index, including 0 and indexes past the end.
func TestLookupKernels(t *testing.T) {
	table := make([]field.Element, 3*16)
	for i := range table {
		var b [32]byte
		b[31], b[30], b[0] = byte(i), byte(i*7), byte(i)&0x7f
		table[i].SetBytes(b[:])
	}
	for idx := uint64(0); idx <= 18; idx++ {
		var wa, ga affinePoint
		field.LookupPair(&wa.x, &wa.y, table[:32], idx)
		var wj, gj jacobianPoint
		field.LookupTriple(&wj.x, &wj.y, &wj.z, table, idx)
		if useLookupAVX2 {
			lookupAffineAVX2(ga.limbs(), affineTable(table), 16, idx)
			lookupJacobianAVX2(gj.limbs(), jacobianTable(table), 16, idx)
			if ga != wa || gj != wj {
				t.Fatalf("AVX2 lookup of %d differs", idx)
			}
		}
		if useLookupAVX512 {
			lookupAffineAVX512(ga.limbs(), affineTable(table), 16, idx)
			lookupJacobianAVX512(gj.limbs(), jacobianTable(table), 16, idx)
			if ga != wa || gj != wj {
				t.Fatalf("AVX-512 lookup of %d differs", idx)
			}
		}
	}
}

// TestBaseStepKernel compares the fused window step with the separate
// addition and table scan.
func TestBaseStepKernel(t *testing.T) {
	var kernels []func(p *[12]uint64, t *[8]uint64, neg int, next *[8]uint64, table *[8]uint64, idx uint64)
	if useBaseStepADXAVX2 {
		kernels = append(kernels, pointAddAffineNegLookupAVX2ADX)
	}
	if useBaseStepADXAVX512 {
		kernels = append(kernels, pointAddAffineNegLookupAVX512ADX)
	}
	if len(kernels) == 0 {
		t.Skip("no fused kernel on this CPU")
	}
	for _, kernel := range kernels {
		testBaseStepKernel(t, kernel)
	}
}

func testBaseStepKernel(t *testing.T, kernel func(p *[12]uint64, t *[8]uint64, neg int, next *[8]uint64, table *[8]uint64, idx uint64)) {
	r := rand.New(rand.NewPCG(27, 28))
	pts := kernelPoints(t, r)
	table := getBaseTable()
	for i := range pts {
		var q Point
		pts[(i+5)%len(pts)].toProjective(&q)
		if q.IsIdentity() == 1 {
			continue
		}
		x, y, _ := q.Affine()
		ta := affinePoint{x, y}
		for neg := range 2 {
			idx := uint64(r.IntN(66)) // includes 0 and past the end
			got, want := pts[i], pts[i]
			var gn, wn affinePoint
			kernel(got.limbs(), ta.limbs(), neg, gn.limbs(), affineTable(table[i%baseWindows][:]), idx)
			var tn affinePoint
			tn.x = ta.x
			tn.y.Neg(&ta.y)
			tn.y.Select(&tn.y, &ta.y, neg)
			want.addAffineGeneric(&want, &tn)
			field.LookupPair(&wn.x, &wn.y, table[i%baseWindows][:], idx)
			if got != want || gn != wn {
				t.Fatalf("fused step %d (neg=%d idx=%d) differs", i, neg, idx)
			}
		}
	}
}

// TestNoLegacySSE fails if the generated kernels use a legacy-SSE
// instruction (a mnemonic without the V prefix) on an XMM register: in code
// that also uses YMM registers such an instruction can stall for longer
// than a whole table scan (examples/bench/README.md, "Design
// measurements"), which the emitters must avoid by using the VEX forms.
func TestNoLegacySSE(t *testing.T) {
	src, err := os.ReadFile("sm2ec_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	legacy := regexp.MustCompile(`(?m)^\s+[A-UW-Z][A-Z0-9]*\s.*\bX[0-9]+\b.*$`)
	for _, m := range legacy.FindAll(src, 5) {
		t.Errorf("legacy-SSE instruction in sm2ec_amd64.s: %s", m)
	}
}

// FuzzPointKernels compares the assembly point formulas with the Go ones on
// points derived from arbitrary scalars, with an arbitrary Z scaling.
func FuzzPointKernels(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 32), make([]byte, 32))
	f.Add(bytesOf(0xff), bytesOf(0x01), bytesOf(0x7f))
	f.Add(bytesOf(0x01), bytesOf(0x01), bytesOf(0x05)) // equal points
	f.Fuzz(func(t *testing.T, ka, kb, lam []byte) {
		if len(ka) != 32 || len(kb) != 32 || len(lam) != 32 {
			return
		}
		var pa, pb Point
		pa.ScalarBaseMult(ka)
		pb.ScalarBaseMult(kb)
		var a, b jacobianPoint
		a.fromProjective(&pa)
		b.fromProjective(&pb)
		lam[0] &= 0x7f
		var l, l2, l3 field.Element
		if _, err := l.SetBytes(lam); err != nil || l.IsZero() == 1 {
			return
		}
		l2.Square(&l)
		l3.Mul(&l2, &l)
		a.x.Mul(&a.x, &l2)
		a.y.Mul(&a.y, &l3)
		a.z.Mul(&a.z, &l)
		var ba affinePoint
		if pb.IsIdentity() == 0 {
			ba.x, ba.y, _ = pb.Affine()
		}
		type ks struct {
			double  func(out, a *[12]uint64, n int)
			add     func(out, a, b *[12]uint64) int
			madd    func(out, a *[12]uint64, b *[8]uint64) int
			addCom  func(p, t *[12]uint64, neg, keep int)
			maddCom func(p *[12]uint64, t *[8]uint64, neg, keep int)
		}
		all := []ks{{pointDoubleMULQ, pointAddMULQ, pointAddAffineMULQ, pointAddCompleteMULQ, pointAddAffineCompleteMULQ}}
		if usePointADX {
			all = append(all, ks{pointDoubleADX, pointAddADX, pointAddAffineADX, pointAddCompleteADX, pointAddAffineCompleteADX})
		}
		for _, k := range all {
			var got, want jacobianPoint
			k.double(got.limbs(), a.limbs(), 1)
			want.doubleGeneric(&a)
			if got != want {
				t.Fatal("double differs")
			}
			ge, we := k.add(got.limbs(), a.limbs(), b.limbs()), want.addGeneric(&a, &b)
			if got != want || ge != we {
				t.Fatal("add differs")
			}
			if pb.IsIdentity() == 0 {
				ge, we = k.madd(got.limbs(), a.limbs(), ba.limbs()), want.addAffineGeneric(&a, &ba)
				if got != want || ge != we {
					t.Fatal("madd differs")
				}
				// The complete steps, also with b = ±a (same scalars).
				for neg := range 2 {
					got, want = a, a
					k.addCom(got.limbs(), b.limbs(), neg, 0)
					want.addCompleteGeneric(&b, neg, 0)
					if got != want {
						t.Fatal("addComplete differs")
					}
					got, want = a, a
					k.maddCom(got.limbs(), ba.limbs(), neg, 0)
					want.addAffineCompleteGeneric(&ba, neg, 0)
					if got != want {
						t.Fatal("addAffineComplete differs")
					}
				}
			}
		}
	})
}

func bytesOf(b byte) []byte {
	out := make([]byte, 32)
	for i := range out {
		out[i] = b
	}
	return out
}
