package scalar

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"testing"
)

var nBig, _ = new(big.Int).SetString("fffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123", 16)

func toBytes(x *big.Int) []byte { return x.FillBytes(make([]byte, 32)) }

func TestArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	one := big.NewInt(1)
	xs := []*big.Int{big.NewInt(0), one, big.NewInt(2), new(big.Int).Sub(nBig, one),
		new(big.Int).Sub(nBig, big.NewInt(2)), new(big.Int).Rsh(nBig, 1), new(big.Int).Lsh(one, 255)}
	for range 300 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		x := new(big.Int).SetBytes(b)
		xs = append(xs, x.Mod(x, nBig))
	}
	set := func(x *big.Int) *Scalar {
		s, err := new(Scalar).SetBytes(toBytes(x))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	check := func(op string, got *Scalar, want *big.Int) {
		t.Helper()
		want = new(big.Int).Mod(want, nBig)
		if !bytes.Equal(got.Bytes(), toBytes(want)) {
			t.Fatalf("%s = %x, want %x", op, got.Bytes(), toBytes(want))
		}
	}
	for i, a := range xs {
		b := xs[(i*5+1)%len(xs)]
		sa, sb := set(a), set(b)
		check("roundtrip", sa, a)
		check("Add", new(Scalar).Add(sa, sb), new(big.Int).Add(a, b))
		check("Sub", new(Scalar).Sub(sa, sb), new(big.Int).Sub(a, b))
		check("Neg", new(Scalar).Neg(sa), new(big.Int).Neg(a))
		check("Mul", new(Scalar).Mul(sa, sb), new(big.Int).Mul(a, b))
		check("Square", new(Scalar).Square(sa), new(big.Int).Mul(a, a))
		inv := new(big.Int).ModInverse(a, nBig)
		if inv == nil {
			inv = new(big.Int)
		}
		check("Invert", new(Scalar).Invert(sa), inv)
		if (sa.IsZero() == 1) != (a.Sign() == 0) || (sa.Equal(sb) == 1) != (a.Cmp(b) == 0) {
			t.Fatal("IsZero/Equal wrong")
		}
		check("Select", new(Scalar).Select(sa, sb, 1), a)
		check("Select", new(Scalar).Select(sa, sb, 0), b)
	}
	// Reduced loading of values ≥ n, up to 2^256-1.
	for _, x := range []*big.Int{nBig, new(big.Int).Add(nBig, one), new(big.Int).Sub(new(big.Int).Lsh(one, 256), one), big.NewInt(5)} {
		s, err := new(Scalar).SetReducedBytes(toBytes(x))
		if err != nil {
			t.Fatal(err)
		}
		check("SetReducedBytes", s, x)
		if x.Cmp(nBig) >= 0 {
			if _, err := new(Scalar).SetBytes(toBytes(x)); err == nil {
				t.Errorf("SetBytes(%x) accepted a value ≥ n", x)
			}
		}
	}
	if _, err := new(Scalar).SetBytes(make([]byte, 31)); err == nil {
		t.Error("SetBytes accepted 31 bytes")
	}
}

func BenchmarkInvert(b *testing.B) {
	x := new(Scalar).One()
	x.Add(x, x)
	for b.Loop() {
		x.Invert(x)
	}
}

// FuzzArithmetic compares Mul and Add with math/big on arbitrary inputs.
func FuzzArithmetic(f *testing.F) {
	f.Add(bytes.Repeat([]byte{0xff}, 32), bytes.Repeat([]byte{0xff}, 32))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x) != 32 || len(y) != 32 {
			return
		}
		a := new(big.Int).Mod(new(big.Int).SetBytes(x), nBig)
		b := new(big.Int).Mod(new(big.Int).SetBytes(y), nBig)
		sa, _ := new(Scalar).SetReducedBytes(x)
		sb, _ := new(Scalar).SetReducedBytes(y)
		want := new(big.Int).Mul(a, b)
		if got := new(Scalar).Mul(sa, sb).Bytes(); !bytes.Equal(got, toBytes(want.Mod(want, nBig))) {
			t.Fatalf("Mul mismatch for %x, %x", a, b)
		}
		want.Add(a, b)
		if got := new(Scalar).Add(sa, sb).Bytes(); !bytes.Equal(got, toBytes(want.Mod(want, nBig))) {
			t.Fatalf("Add mismatch for %x, %x", a, b)
		}
	})
}

func BenchmarkMul(b *testing.B) {
	var x, y Scalar
	x.One()
	y.Add(&x, &x)
	for b.Loop() {
		x.Mul(&x, &y)
	}
}
