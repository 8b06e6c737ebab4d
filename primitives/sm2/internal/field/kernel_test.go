package field

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// TestKernelsAvailable fails if a feature check is broken and this CPU
// silently falls back to slower code.
func TestKernelsAvailable(t *testing.T) {
	var want []string
	switch runtime.GOARCH {
	case "amd64":
		want = []string{"amd64-mulq", "amd64-invert"}
		if cpu.X86.HasBMI2 && cpu.X86.HasADX {
			want = append(want, "amd64-adx")
		}
	case "arm64":
		want = []string{"arm64-field"}
	}
	if purego {
		want = nil
	}
	got := impl.List("sm2")
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("kernel %s not available (have %v)", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("kernels %v, want %v", got, want)
	}
}

// rawElement makes an Element from any 256-bit value, reduced or not: the
// kernels must agree with the generic code on all of them.
func rawElement(x *big.Int) Element {
	var b [32]byte
	x.FillBytes(b[:])
	var e Element
	for i := range 4 {
		e.l[i] = binary.BigEndian.Uint64(b[24-8*i:])
	}
	return e
}

func (e *Element) big() *big.Int {
	var b [32]byte
	for i := range 4 {
		binary.BigEndian.PutUint64(b[24-8*i:], e.l[i])
	}
	return new(big.Int).SetBytes(b[:])
}

// edgeInputs returns 256-bit values that stress carries and the final
// subtraction: 0, 1, p-1, p, p+1, values just above p, 2^256-1, single
// limbs of all ones, and limbs of all ones or zeros in every pattern.
func edgeInputs() []*big.Int {
	one := big.NewInt(1)
	r256 := new(big.Int).Lsh(one, 256)
	xs := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3),
		new(big.Int).Sub(pBig, one), new(big.Int).Sub(pBig, big.NewInt(2)), pBig,
		new(big.Int).Add(pBig, one), new(big.Int).Add(pBig, big.NewInt(2)),
		new(big.Int).Sub(r256, one), new(big.Int).Sub(r256, big.NewInt(2)),
		new(big.Int).Rsh(pBig, 1), new(big.Int).Add(new(big.Int).Rsh(pBig, 1), one),
	}
	for k := 0; k < 256; k += 31 {
		xs = append(xs, new(big.Int).Add(pBig, new(big.Int).Lsh(one, uint(k))))
	}
	for mask := 0; mask < 16; mask++ {
		x := new(big.Int)
		for i := range 4 {
			if mask>>i&1 == 1 {
				x.Or(x, new(big.Int).Lsh(new(big.Int).SetUint64(^uint64(0)), uint(64*i)))
			}
		}
		xs = append(xs, x, new(big.Int).Add(x, one))
	}
	for i := range 4 {
		xs = append(xs, new(big.Int).Lsh(one, uint(64*i+63)), new(big.Int).Lsh(one, uint(64*i)))
	}
	for i := range xs {
		xs[i].Mod(xs[i], r256)
	}
	return xs
}

var (
	rInv = new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), 256), pBig)
	r256 = new(big.Int).Lsh(big.NewInt(1), 256)
)

// checkKernelMul compares the dispatched kernels with the generic Go code
// and with math/big for one pair of raw inputs.
func checkKernelMul(t *testing.T, name string, a, b *big.Int) {
	t.Helper()
	ea, eb := rawElement(a), rawElement(b)
	var got, want Element
	feMul(&got, &ea, &eb)
	feMulGeneric(&want, &ea, &eb)
	if got != want {
		t.Fatalf("%s: Mul(%x, %x) = %x, generic %x", name, a, b, got.big(), want.big())
	}
	// got ≡ a·b·R⁻¹ (mod p), below 2^256 (and below p for reduced inputs).
	w := new(big.Int).Mul(a, b)
	w.Mul(w, rInv).Mod(w, pBig)
	if g := got.big(); new(big.Int).Mod(g, pBig).Cmp(w) != 0 || (a.Cmp(pBig) < 0 && b.Cmp(pBig) < 0 && g.Cmp(pBig) >= 0) {
		t.Fatalf("%s: Mul(%x, %x) = %x, not a·b/R mod p", name, a, b, g)
	}
	feSquare(&got, &ea)
	feSquareGeneric(&want, &ea)
	if got != want {
		t.Fatalf("%s: Square(%x) = %x, generic %x", name, a, got.big(), want.big())
	}
	for _, n := range []int{1, 2, 3, 7} {
		feSquareN(&got, &ea, n)
		feSquareNGeneric(&want, &ea, n)
		if got != want {
			t.Fatalf("%s: SquareN(%x, %d) = %x, generic %x", name, a, n, got.big(), want.big())
		}
	}
	// Aliased output.
	got = ea
	feMul(&got, &got, &eb)
	feMulGeneric(&want, &ea, &eb)
	if got != want {
		t.Fatalf("%s: aliased Mul(%x, %x) wrong", name, a, b)
	}
}

// TestKernelsDifferential runs every kernel this CPU has against the generic
// code on edge and random inputs, including unreduced ones.
func TestKernelsDifferential(t *testing.T) {
	xs := edgeInputs()
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		var b [32]byte
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		xs = append(xs, new(big.Int).SetBytes(b[:]))
	}
	impl.ForEach("sm2", func(name string) {
		t.Run(name, func(t *testing.T) {
			for i, a := range xs {
				for j, b := range xs {
					if i < 60 || (i+j)%17 == 0 {
						checkKernelMul(t, name, a, b)
					}
				}
			}
		})
	})
}

// FuzzKernels compares every kernel with the generic code on arbitrary
// 256-bit inputs, reduced or not.
func FuzzKernels(f *testing.F) {
	for _, x := range edgeInputs()[:12] {
		f.Add(x.FillBytes(make([]byte, 32)), new(big.Int).Sub(r256, big.NewInt(1)).FillBytes(make([]byte, 32)))
	}
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x) != 32 || len(y) != 32 {
			return
		}
		a, b := new(big.Int).SetBytes(x), new(big.Int).SetBytes(y)
		impl.ForEach("sm2", func(name string) { checkKernelMul(t, name, a, b) })
	})
}
