package field

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

var pBig, _ = new(big.Int).SetString("fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff", 16)

func toBytes(x *big.Int) []byte { return x.FillBytes(make([]byte, 32)) }

// inputs returns edge values and random values below p.
func inputs(r *rand.Rand) []*big.Int {
	one := big.NewInt(1)
	xs := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2),
		new(big.Int).Sub(pBig, one), new(big.Int).Sub(pBig, big.NewInt(2)),
		new(big.Int).Rsh(pBig, 1), new(big.Int).Lsh(one, 255), new(big.Int).Lsh(one, 224),
		new(big.Int).Lsh(one, 64), new(big.Int).Sub(new(big.Int).Lsh(one, 64), one),
		new(big.Int).Sub(new(big.Int).Lsh(one, 192), one),
	}
	for range 200 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		// Bias some towards limbs of all ones or zeros.
		switch r.IntN(4) {
		case 0:
			for i := 0; i < 32; i += 8 {
				if r.IntN(2) == 0 {
					copy(b[i:i+8], bytes.Repeat([]byte{0xff}, 8))
				}
			}
		case 1:
			for i := 0; i < 32; i += 8 {
				if r.IntN(2) == 0 {
					copy(b[i:i+8], make([]byte, 8))
				}
			}
		}
		x := new(big.Int).SetBytes(b)
		xs = append(xs, x.Mod(x, pBig))
	}
	return xs
}

func mustSet(t *testing.T, x *big.Int) *Element {
	e, err := new(Element).SetBytes(toBytes(x))
	if err != nil {
		t.Fatalf("SetBytes(%x): %v", x, err)
	}
	return e
}

func TestArithmetic(t *testing.T) {
	impl.ForEach("sm2", func(name string) {
		t.Run(name, testArithmetic)
	})
}

func testArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := inputs(r)
	check := func(op string, a, b *big.Int, got *Element, want *big.Int) {
		t.Helper()
		want = new(big.Int).Mod(want, pBig)
		if !bytes.Equal(got.Bytes(), toBytes(want)) {
			t.Fatalf("%s(%x, %x) = %x, want %x", op, a, b, got.Bytes(), toBytes(want))
		}
	}
	for i, a := range xs {
		ea := mustSet(t, a)
		if !bytes.Equal(ea.Bytes(), toBytes(a)) {
			t.Fatalf("round trip of %x gave %x", a, ea.Bytes())
		}
		b := xs[(i*7+3)%len(xs)]
		eb := mustSet(t, b)
		check("Add", a, b, new(Element).Add(ea, eb), new(big.Int).Add(a, b))
		check("Sub", a, b, new(Element).Sub(ea, eb), new(big.Int).Sub(a, b))
		check("Mul", a, b, new(Element).Mul(ea, eb), new(big.Int).Mul(a, b))
		check("Square", a, a, new(Element).Square(ea), new(big.Int).Mul(a, a))
		check("Neg", a, a, new(Element).Neg(ea), new(big.Int).Neg(a))
		check("Half", a, a, new(Element).Add(new(Element).Half(ea), new(Element).Half(ea)), a)
		check("HalfOfDouble", a, a, new(Element).Half(new(Element).Add(ea, ea)), a)
		inv := new(big.Int).ModInverse(a, pBig)
		if inv == nil {
			inv = new(big.Int)
		}
		check("Invert", a, a, new(Element).Invert(ea), inv)
		root, ok := new(Element).Sqrt(ea)
		wantOK := big.Jacobi(a, pBig) >= 0
		if (ok == 1) != wantOK {
			t.Fatalf("Sqrt(%x) ok = %d, want %v", a, ok, wantOK)
		}
		if ok == 1 {
			check("Sqrt²", a, a, new(Element).Square(root), a)
		}
		if got, want := ea.IsZero() == 1, a.Sign() == 0; got != want {
			t.Fatalf("IsZero(%x) = %v", a, got)
		}
		if got, want := ea.Equal(eb) == 1, a.Cmp(b) == 0; got != want {
			t.Fatalf("Equal(%x, %x) = %v", a, b, got)
		}
		if got := ea.IsOdd(); got != int(a.Bit(0)) {
			t.Fatalf("IsOdd(%x) = %d", a, got)
		}
		check("Select1", a, b, new(Element).Select(ea, eb, 1), a)
		check("Select0", a, b, new(Element).Select(ea, eb, 0), b)
		// Aliasing.
		e := *ea
		e.Mul(&e, &e)
		check("MulAlias", a, a, &e, new(big.Int).Mul(a, a))
	}
}

func TestSetBytesRejects(t *testing.T) {
	one := big.NewInt(1)
	for _, x := range []*big.Int{
		pBig, new(big.Int).Add(pBig, one), new(big.Int).Add(pBig, big.NewInt(1<<40)),
		new(big.Int).Sub(new(big.Int).Lsh(one, 256), one),
	} {
		if _, err := new(Element).SetBytes(toBytes(x)); err == nil {
			t.Errorf("SetBytes(%x) accepted a value ≥ p", x)
		}
	}
	for _, n := range []int{0, 31, 33} {
		if _, err := new(Element).SetBytes(make([]byte, n)); err == nil {
			t.Errorf("SetBytes accepted %d bytes", n)
		}
	}
}

func BenchmarkMul(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	y := *x
	for b.Loop() {
		x.Mul(x, &y)
	}
}

func BenchmarkSquare(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	for b.Loop() {
		x.Square(x)
	}
}

func BenchmarkInvert(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	for b.Loop() {
		x.Invert(x)
	}
}
func BenchmarkAdd(b *testing.B) {
	x := new(Element).One()
	y := *x
	for b.Loop() {
		x.Add(x, &y)
	}
}

func TestLookup(t *testing.T) {
	table := make([]Element, 3*5)
	for i := range table {
		table[i].l = [4]uint64{uint64(i), uint64(i) << 8, 1, uint64(i) * 3}
	}
	for idx := uint64(0); idx <= 6; idx++ {
		var x, y, z Element
		LookupPair(&x, &y, table[:10], idx)
		if idx >= 1 && idx <= 5 {
			if x != table[2*(idx-1)] || y != table[2*(idx-1)+1] {
				t.Fatalf("LookupPair(%d) wrong", idx)
			}
		} else if x.IsZero() != 1 || y.IsZero() != 1 {
			t.Fatalf("LookupPair(%d) not zero", idx)
		}
		LookupTriple(&x, &y, &z, table, idx)
		if idx >= 1 && idx <= 5 {
			if x != table[3*(idx-1)] || y != table[3*(idx-1)+1] || z != table[3*(idx-1)+2] {
				t.Fatalf("LookupTriple(%d) wrong", idx)
			}
		} else if x.IsZero() != 1 || y.IsZero() != 1 || z.IsZero() != 1 {
			t.Fatalf("LookupTriple(%d) not zero", idx)
		}
	}
}

// FuzzArithmetic compares the field operations with math/big on arbitrary
// inputs (reduced mod p first).
func FuzzArithmetic(f *testing.F) {
	f.Add(bytes.Repeat([]byte{0xff}, 32), bytes.Repeat([]byte{0xff}, 32))
	f.Add(make([]byte, 32), toBytes(new(big.Int).Sub(pBig, big.NewInt(1))))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x) != 32 || len(y) != 32 {
			return
		}
		a := new(big.Int).Mod(new(big.Int).SetBytes(x), pBig)
		b := new(big.Int).Mod(new(big.Int).SetBytes(y), pBig)
		ea, eb := mustSet(t, a), mustSet(t, b)
		for _, c := range []struct {
			got  *Element
			want *big.Int
		}{
			{new(Element).Mul(ea, eb), new(big.Int).Mul(a, b)},
			{new(Element).Square(ea), new(big.Int).Mul(a, a)},
			{new(Element).Add(ea, eb), new(big.Int).Add(a, b)},
			{new(Element).Sub(ea, eb), new(big.Int).Sub(a, b)},
			{new(Element).Add(new(Element).Half(ea), new(Element).Half(ea)), new(big.Int).Set(a)},
		} {
			if !bytes.Equal(c.got.Bytes(), toBytes(c.want.Mod(c.want, pBig))) {
				t.Fatalf("mismatch for %x, %x", a, b)
			}
		}
	})
}
