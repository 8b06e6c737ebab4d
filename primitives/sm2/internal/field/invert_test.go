package field

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

func TestInvertSafegcd(t *testing.T) {
	impl.ForEach("sm2", func(name string) {
		for _, a := range invertInputs(rand.New(rand.NewPCG(3, 4))) {
			ea := mustSet(t, a)
			var got, want Element
			got.invertSafegcd(ea)
			want.invertFermat(ea)
			if got != want {
				t.Fatalf("%s: safegcd inverse of %x = %x, Fermat %x", name, a, got.Bytes(), want.Bytes())
			}
			inv := new(big.Int).ModInverse(a, pBig)
			if inv == nil {
				inv = new(big.Int)
			}
			if got.big().Cmp(mustSet(t, inv).big()) != 0 {
				t.Fatalf("%s: inverse of %x wrong", name, a)
			}
		}
	})
}

// invertInputs returns random field elements and the edge values below p.
func invertInputs(r *rand.Rand) []*big.Int {
	xs := inputs(r)
	for _, x := range edgeInputs() {
		if x.Cmp(pBig) < 0 {
			xs = append(xs, x)
		}
	}
	return xs
}

func FuzzInvert(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, x []byte) {
		if len(x) != 32 {
			return
		}
		a := new(big.Int).Mod(new(big.Int).SetBytes(x), pBig)
		ea := mustSet(t, a)
		var got, want Element
		got.invertSafegcd(ea)
		want.invertFermat(ea)
		if got != want {
			t.Fatalf("safegcd inverse of %x = %x, Fermat %x", a, got.Bytes(), want.Bytes())
		}
	})
}

func BenchmarkCPUInvertFermat(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	cpuLoop(b, func() { x.invertFermat(x) })
}

func BenchmarkCPUInvertSafegcd(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	cpuLoop(b, func() { x.invertSafegcd(x) })
}
