package sm2ec

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// A slow affine reference on math/big; nil stands for the identity.
type refPoint struct{ x, y *big.Int }

func hexInt(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }

var (
	refP   = hexInt("fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff")
	refN   = hexInt("fffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123")
	refA   = new(big.Int).Sub(refP, big.NewInt(3))
	refB   = hexInt("28e9fa9e9d9f5e344d5a9e4bcf6509a7f39789f515ab8f92ddbcbd414d940e93")
	refG   = &refPoint{hexInt("32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7"), hexInt("bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0")}
	bigOne = big.NewInt(1)
)

func refAdd(a, b *refPoint) *refPoint {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	var l *big.Int
	if a.x.Cmp(b.x) == 0 {
		if new(big.Int).Add(a.y, b.y).Mod(new(big.Int).Add(a.y, b.y), refP).Sign() == 0 {
			return nil
		}
		num := new(big.Int).Mul(a.x, a.x)
		num.Mul(num, big.NewInt(3)).Add(num, refA)
		den := new(big.Int).Lsh(a.y, 1)
		l = num.Mul(num, den.ModInverse(den, refP))
	} else {
		num := new(big.Int).Sub(b.y, a.y)
		den := new(big.Int).Sub(b.x, a.x)
		den.Mod(den, refP)
		l = num.Mul(num, den.ModInverse(den, refP))
	}
	l.Mod(l, refP)
	x := new(big.Int).Mul(l, l)
	x.Sub(x, a.x).Sub(x, b.x).Mod(x, refP)
	y := new(big.Int).Sub(a.x, x)
	y.Mul(y, l).Sub(y, a.y).Mod(y, refP)
	return &refPoint{x, y}
}

func refMul(q *refPoint, k *big.Int) *refPoint {
	var acc *refPoint
	for i := k.BitLen() - 1; i >= 0; i-- {
		acc = refAdd(acc, acc)
		if k.Bit(i) == 1 {
			acc = refAdd(acc, q)
		}
	}
	return acc
}

func refBytes(q *refPoint) []byte {
	if q == nil {
		return []byte{0}
	}
	out := []byte{4}
	out = append(out, q.x.FillBytes(make([]byte, 32))...)
	return append(out, q.y.FillBytes(make([]byte, 32))...)
}

func scalar32(k *big.Int) []byte {
	return new(big.Int).Mod(k, new(big.Int).Lsh(bigOne, 256)).FillBytes(make([]byte, 32))
}

func testScalars(r *rand.Rand) []*big.Int {
	ks := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(15), big.NewInt(16), big.NewInt(17),
		big.NewInt(31), big.NewInt(32), big.NewInt(33), big.NewInt(63), big.NewInt(64),
		new(big.Int).Sub(refN, bigOne), new(big.Int).Sub(refN, big.NewInt(2)), refN, new(big.Int).Add(refN, bigOne),
		new(big.Int).Sub(new(big.Int).Lsh(bigOne, 256), bigOne), new(big.Int).Lsh(bigOne, 255),
		hexInt("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
		hexInt("5555555555555555555555555555555555555555555555555555555555555555")}
	for range 12 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		ks = append(ks, new(big.Int).SetBytes(b))
	}
	return ks
}

func TestScalarMultAgainstReference(t *testing.T) { eachImpl(t, testScalarMultAgainstReference) }

func testScalarMultAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	q := refMul(refG, hexInt("123456789abcdef0fedcba9876543210deadbeef"))
	qp, err := new(Point).SetBytes(refBytes(q))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range testScalars(r) {
		want := refBytes(refMul(refG, k))
		got, err := new(Point).ScalarBaseMult(scalar32(k))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("ScalarBaseMult(%x) = %x, want %x", k, got.Bytes(), want)
		}
		got.ScalarMult(NewGenerator(), scalar32(k))
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("ScalarMult(G, %x) = %x, want %x", k, got.Bytes(), want)
		}
		got.ScalarMultVarTime(NewGenerator(), scalar32(k))
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("ScalarMultVarTime(G, %x) = %x, want %x", k, got.Bytes(), want)
		}
		wantQ := refBytes(refMul(q, k))
		got.ScalarMult(qp, scalar32(k))
		if !bytes.Equal(got.Bytes(), wantQ) {
			t.Fatalf("ScalarMult(Q, %x) = %x, want %x", k, got.Bytes(), wantQ)
		}
		k2 := new(big.Int).Xor(k, hexInt("0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"))
		wantD := refBytes(refAdd(refMul(refG, k2), refMul(q, k)))
		got.DoubleScalarMultVarTime(scalar32(k2), qp, scalar32(k))
		if !bytes.Equal(got.Bytes(), wantD) {
			t.Fatalf("DoubleScalarMultVarTime(%x, Q, %x) = %x, want %x", k2, k, got.Bytes(), wantD)
		}
	}
}

func TestGroupLaw(t *testing.T) { eachImpl(t, testGroupLaw) }

func testGroupLaw(t *testing.T) {
	g := NewGenerator()
	inf := NewPoint()
	var a, b Point
	if a.Add(g, inf).Equal(g) != 1 || a.Add(inf, g).Equal(g) != 1 || a.Add(inf, inf).IsIdentity() != 1 {
		t.Fatal("identity is not neutral")
	}
	if a.Double(inf).IsIdentity() != 1 {
		t.Fatal("2·O != O")
	}
	if a.Add(g, b.Negate(g)).IsIdentity() != 1 {
		t.Fatal("G + -G != O")
	}
	if a.Add(g, g).Equal(b.Double(g)) != 1 {
		t.Fatal("G + G != 2G")
	}
	if !bytes.Equal(NewPoint().Bytes(), []byte{0}) {
		t.Fatal("identity encoding")
	}
	if _, err := NewPoint().BytesX(); err == nil {
		t.Fatal("BytesX of identity succeeded")
	}
}

func TestEncoding(t *testing.T) { eachImpl(t, testEncoding) }

func testEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, k := range testScalars(r)[1:] {
		ref := refMul(refG, k)
		if ref == nil {
			continue
		}
		p, err := new(Point).SetBytes(refBytes(ref))
		if err != nil {
			t.Fatal(err)
		}
		c := p.BytesCompressed()
		if c[0] != 2+byte(ref.y.Bit(0)) || !bytes.Equal(c[1:], ref.x.FillBytes(make([]byte, 32))) {
			t.Fatalf("compressed encoding wrong: %x", c)
		}
		p2, err := new(Point).SetBytes(c)
		if err != nil || p2.Equal(p) != 1 {
			t.Fatalf("compressed round trip failed: %v", err)
		}
	}
	good := NewGenerator().Bytes()
	bad := [][]byte{nil, {0}, good[:64], append(append([]byte{}, good...), 0), {5}}
	offCurve := append([]byte{}, good...)
	offCurve[64] ^= 1
	bad = append(bad, offCurve)
	prefix := append([]byte{}, good...)
	prefix[0] = 6
	bad = append(bad, prefix)
	bigX := append([]byte{4}, refP.FillBytes(make([]byte, 32))...)
	bad = append(bad, append(bigX, make([]byte, 32)...))
	bad = append(bad, append([]byte{2}, refP.FillBytes(make([]byte, 32))...))
	// An x with no point: x = 0 gives y² = b; try a few until one fails.
	for x := int64(0); x < 20; x++ {
		enc := append([]byte{2}, big.NewInt(x).FillBytes(make([]byte, 32))...)
		rhs := new(big.Int).Exp(big.NewInt(x), big.NewInt(3), refP)
		rhs.Sub(rhs, big.NewInt(3*x)).Add(rhs, refB).Mod(rhs, refP)
		if big.Jacobi(rhs, refP) == -1 {
			bad = append(bad, enc)
		}
	}
	for _, b := range bad {
		if _, err := new(Point).SetBytes(b); err == nil {
			t.Errorf("SetBytes(%x) accepted an invalid encoding", b)
		}
	}
}

func TestWNAF(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range testScalars(r) {
		k = new(big.Int).Mod(k, new(big.Int).Lsh(bigOne, 256))
		var d wnafDigits
		wnaf(&d, scalar32(k), 5)
		sum := new(big.Int)
		for i := len(d) - 1; i >= 0; i-- {
			sum.Lsh(sum, 1).Add(sum, big.NewInt(int64(d[i])))
		}
		if sum.Cmp(k) != 0 {
			t.Fatalf("wNAF of %x sums to %x", k, sum)
		}
	}
}

// TestTableIsGenerated regenerates the fixed-base table with gen_table.go and
// checks that the committed copy is identical.
func TestTableIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	out := filepath.Join(t.TempDir(), "table.bin")
	cmd := exec.Command(goTool, "run", "gen_table.go", "-o", out)
	// Build the generator for the machine running the go tool, also when
	// this test runs under an emulator with GOARCH set for the target.
	cmd.Env = append(os.Environ(), "GOOS=", "GOARCH=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_table.go: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, baseTableBytes) {
		t.Fatal("p256_table.bin differs from the output of gen_table.go; run go generate")
	}
}

func BenchmarkScalarBaseMult(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	var p Point
	for b.Loop() {
		p.ScalarBaseMult(s)
	}
}

func BenchmarkScalarMult(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	g := NewGenerator()
	var p Point
	for b.Loop() {
		p.ScalarMult(g, s)
	}
}

func BenchmarkDoubleScalarMultVarTime(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	g := NewGenerator()
	var p Point
	for b.Loop() {
		p.DoubleScalarMultVarTime(s, g, s)
	}
}

// TestScalarMultNearOrder covers the scalars for which the last window of
// ScalarMult adds a point to itself (s = n + 2d for a negative last digit d).
func TestScalarMultNearOrder(t *testing.T) { eachImpl(t, testScalarMultNearOrder) }

func testScalarMultNearOrder(t *testing.T) {
	q := refMul(refG, big.NewInt(0x1234567))
	qp, err := new(Point).SetBytes(refBytes(q))
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 40; i++ {
		for _, k := range []*big.Int{new(big.Int).Sub(refN, big.NewInt(i)), new(big.Int).Add(refN, big.NewInt(i))} {
			want := refBytes(refMul(q, k))
			got, _ := new(Point).ScalarMult(qp, scalar32(k))
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("ScalarMult(Q, n%+d) = %x, want %x", new(big.Int).Sub(k, refN), got.Bytes(), want)
			}
			got.ScalarMultVarTime(qp, scalar32(k))
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("ScalarMultVarTime(Q, n%+d) wrong", new(big.Int).Sub(k, refN))
			}
		}
	}
}

// TestScalarBaseMultTopWindow covers scalars s ≡ 2d·2^252 (mod n), those
// closest to making the top window of ScalarBaseMult add a point to itself,
// and their neighbours.
func TestScalarBaseMultTopWindow(t *testing.T) { eachImpl(t, testScalarBaseMultTopWindow) }

func testScalarBaseMultTopWindow(t *testing.T) {
	// Only the top window nonzero (the accumulator is still the identity
	// there), and the largest scalars.
	for d := int64(0); d < 16; d++ {
		for _, k := range []*big.Int{new(big.Int).Lsh(big.NewInt(d), 252), new(big.Int).Lsh(big.NewInt(2*d+1), 251)} {
			want := refBytes(refMul(refG, new(big.Int).Mod(k, refN)))
			if got, _ := new(Point).ScalarBaseMult(scalar32(k)); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("ScalarBaseMult(%x) = %x, want %x", k, got.Bytes(), want)
			}
		}
	}
	// The odd scalar whose top window adds the accumulator to itself
	// (L = 15·2^252 - n before the top digit 15, see ScalarBaseMult), its
	// even complement (which is made odd into it), and their neighbours.
	dbl := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(15), 253), refN)
	for delta := int64(-2); delta <= 2; delta++ {
		for _, k := range []*big.Int{new(big.Int).Add(dbl, big.NewInt(delta)), new(big.Int).Sub(refN, new(big.Int).Add(dbl, big.NewInt(delta)))} {
			want := refBytes(refMul(refG, new(big.Int).Mod(k, refN)))
			if got, _ := new(Point).ScalarBaseMult(scalar32(k)); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("ScalarBaseMult(%x) = %x, want %x", k, got.Bytes(), want)
			}
		}
	}
	for i := int64(1); i <= 3; i++ {
		k := new(big.Int).Sub(new(big.Int).Lsh(bigOne, 256), big.NewInt(i))
		want := refBytes(refMul(refG, new(big.Int).Mod(k, refN)))
		if got, _ := new(Point).ScalarBaseMult(scalar32(k)); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("ScalarBaseMult(2^256-%d) wrong", i)
		}
	}
	for d := int64(-16); d <= 16; d++ {
		base := new(big.Int).Lsh(big.NewInt(2*d), 252)
		base.Mod(base, refN)
		for delta := int64(-1); delta <= 1; delta++ {
			k := new(big.Int).Add(base, big.NewInt(delta))
			k.Mod(k, refN)
			want := refBytes(refMul(refG, k))
			got, _ := new(Point).ScalarBaseMult(scalar32(k))
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("ScalarBaseMult(%x) = %x, want %x", k, got.Bytes(), want)
			}
			// The same values plus n (ScalarBaseMult accepts any 256 bits).
			k2 := new(big.Int).Add(k, refN)
			if k2.BitLen() <= 256 {
				got.ScalarBaseMult(scalar32(k2))
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("ScalarBaseMult(%x + n) wrong", k)
				}
			}
		}
	}
}

// TestDoubleScalarMultSpecialCases exercises the branches of the variable
// time additions: equal points, opposite points and the identity.
func TestDoubleScalarMultSpecialCases(t *testing.T) { eachImpl(t, testDoubleScalarMultSpecialCases) }

func testDoubleScalarMultSpecialCases(t *testing.T) {
	g := NewGenerator()
	negG := new(Point).Negate(g)
	for _, k := range []*big.Int{big.NewInt(1), big.NewInt(7), big.NewInt(64), hexInt("123456789abcdef"),
		new(big.Int).Sub(refN, bigOne), new(big.Int).Rsh(refN, 1)} {
		ks := scalar32(k)
		// k·G + k·G = 2k·G
		got, _ := new(Point).DoubleScalarMultVarTime(ks, g, ks)
		want := refBytes(refMul(refG, new(big.Int).Lsh(k, 1)))
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("k·G + k·G wrong for k = %x", k)
		}
		// k·G + k·(-G) = O
		got.DoubleScalarMultVarTime(ks, negG, ks)
		if got.IsIdentity() != 1 {
			t.Fatalf("k·G - k·G is not the identity for k = %x", k)
		}
		// 0·G + k·G and k·G + 0·G
		zero := make([]byte, 32)
		want = refBytes(refMul(refG, k))
		got.DoubleScalarMultVarTime(zero, g, ks)
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatal("0·G + k·G wrong")
		}
		got.DoubleScalarMultVarTime(ks, g, zero)
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatal("k·G + 0·G wrong")
		}
	}
}

func TestBytesPair(t *testing.T) { eachImpl(t, testBytesPair) }

func testBytesPair(t *testing.T) {
	g := NewGenerator()
	q, _ := new(Point).ScalarBaseMult(scalar32(big.NewInt(12345)))
	a, b := BytesPair(g, q)
	if !bytes.Equal(a, g.Bytes()) || !bytes.Equal(b, q.Bytes()) {
		t.Fatal("BytesPair differs from Bytes")
	}
	a, b = BytesPair(NewPoint(), q)
	if !bytes.Equal(a, []byte{0}) || !bytes.Equal(b, q.Bytes()) {
		t.Fatal("BytesPair with the identity")
	}
}

func TestCtEqLimbs(t *testing.T) {
	a := [4]uint64{1, 2, 3, 4}
	if ctEqLimbs(&a, &a) != 1 {
		t.Fatal("equal limbs reported different")
	}
	for i := range a {
		for _, bit := range []uint{0, 31, 63} {
			b := a
			b[i] ^= 1 << bit
			if ctEqLimbs(&a, &b) != 0 {
				t.Fatalf("limb %d bit %d: different limbs reported equal", i, bit)
			}
		}
	}
}

// FuzzScalarBaseMult compares the fixed-base comb with the variable-base
// multiplication of G, an independent algorithm (Booth windows over a table
// made per call), on arbitrary 32-byte scalars.
func FuzzScalarBaseMult(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Add(scalar32(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(15), 253), refN)))
	f.Fuzz(func(t *testing.T, s []byte) {
		if len(s) != 32 {
			return
		}
		got, err := new(Point).ScalarBaseMult(s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := new(Point).ScalarMult(NewGenerator(), s)
		if err != nil {
			t.Fatal(err)
		}
		if got.Equal(want) != 1 {
			t.Fatalf("ScalarBaseMult(%x) = %x, ScalarMult(G) = %x", s, got.Bytes(), want.Bytes())
		}
		if _, err := got.ScalarBaseMultBlinded(s); err != nil || got.Equal(want) != 1 {
			t.Fatalf("ScalarBaseMultBlinded(%x) = %x, ScalarMult(G) = %x", s, got.Bytes(), want.Bytes())
		}
		// A split the fuzzer steers: the halves are s's bytes reversed
		// and the rest.
		r := slices.Clone(s)
		slices.Reverse(r)
		if got.scalarBaseMultSplit(s, r).Equal(want) != 1 {
			t.Fatalf("scalarBaseMultSplit(%x, %x) = %x, ScalarMult(G) = %x", s, r, got.Bytes(), want.Bytes())
		}
	})
}

// TestScalarBaseMultBlinded checks the split a·G + (s - a)·G, by the comb
// and over a point table, against the reference on the test scalars and on the splits where the two halves
// meet a special case of the addition: a = 0 and a = s (one half the
// identity), a = s/2 (equal halves), a ≥ n (reduced first), s ≡ 0 (opposite
// halves) and the top-window scalars of ScalarBaseMult.
func TestScalarBaseMultBlinded(t *testing.T) { eachImpl(t, testScalarBaseMultBlinded) }

func testScalarBaseMultBlinded(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	dbl := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(15), 253), refN)
	half := new(big.Int).ModInverse(big.NewInt(2), refN)
	qt, err := NewPointTable(NewGenerator())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range append(testScalars(r), dbl, new(big.Int).Sub(refN, dbl)) {
		kn := new(big.Int).Mod(k, refN)
		want := refBytes(refMul(refG, kn))
		got, err := new(Point).ScalarBaseMultBlinded(scalar32(k))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("ScalarBaseMultBlinded(%x) = %x, want %x", k, got.Bytes(), want)
		}
		halfK := new(big.Int).Mul(kn, half)
		halfK.Mod(halfK, refN)
		for _, a := range []*big.Int{big.NewInt(0), kn, k, halfK, new(big.Int).Add(kn, refN),
			new(big.Int).Sub(refN, bigOne), refN, dbl, new(big.Int).Sub(new(big.Int).Lsh(bigOne, 256), bigOne)} {
			if a.BitLen() > 256 {
				continue
			}
			if got.scalarBaseMultSplit(scalar32(k), scalar32(a)); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("scalarBaseMultSplit(%x, %x) = %x, want %x", k, a, got.Bytes(), want)
			}
			if got.scalarMultTableSplit(qt, scalar32(k), scalar32(a)); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("scalarMultTableSplit(G, %x, %x) = %x, want %x", k, a, got.Bytes(), want)
			}
		}
		if got.ScalarMultTableBlinded(qt, scalar32(k)); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("ScalarMultTableBlinded(G, %x) = %x, want %x", k, got.Bytes(), want)
		}
	}
}

// TestBlindingRandomizes checks that the blinded multiplications do vary
// their data: the same product, computed twice, comes out in different
// projective coordinates (with probability 1 - 2^-256 each).
func TestBlindingRandomizes(t *testing.T) { eachImpl(t, testBlindingRandomizes) }

func testBlindingRandomizes(t *testing.T) {
	s := scalar32(hexInt("0100000000000000000000000000000080000000000000000000000000000001"))
	q, _ := new(Point).ScalarBaseMult(scalar32(big.NewInt(12345)))
	q.Normalize()
	qt, err := NewPointTable(q)
	if err != nil {
		t.Fatal(err)
	}
	for name, mul := range map[string]func(*Point) (*Point, error){
		"ScalarBaseMult":         func(p *Point) (*Point, error) { return p.ScalarBaseMult(s) },
		"ScalarBaseMultBlinded":  func(p *Point) (*Point, error) { return p.ScalarBaseMultBlinded(s) },
		"ScalarMult":             func(p *Point) (*Point, error) { return p.ScalarMult(q, s) },
		"ScalarMultTableBlinded": func(p *Point) (*Point, error) { return p.ScalarMultTableBlinded(qt, s) },
	} {
		a, err := mul(new(Point))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := mul(new(Point))
		if a.Equal(b) != 1 {
			t.Fatalf("%s: two calls disagree", name)
		}
		same := a.z.Equal(&b.z) == 1
		if name == "ScalarBaseMult" {
			// The unblinded comb, a scalar used once, repeats itself.
			if !same {
				t.Fatalf("%s: representation changed between calls", name)
			}
		} else if same {
			t.Fatalf("%s: the same Z in two calls: not blinded", name)
		}
	}
}

// TestSetBytesRejectsUnreducedX: an X of p or more is refused, in both
// encodings, even where X mod p is a point's: SM2's b is a square, so
// (0, √b) is on the curve, and a decoder that let a failed X through as
// zero (mutant sm2-point-x-below-p) would take 04 ‖ p ‖ √b for it.
func TestSetBytesRejectsUnreducedX(t *testing.T) {
	fromHex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const sqrtB = "fd4511e81736a60f07e88a83d6cf5a167fae6d1a9c9330e76e232e00f5cdc154"
	zero := make([]byte, 32)
	onCurve := append(append([]byte{4}, zero...), fromHex(sqrtB)...)
	if _, err := new(Point).SetBytes(onCurve); err != nil {
		t.Fatalf("(0, √b) refused: %v", err)
	}
	for _, x := range []string{
		"fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff", // p
		"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // 2^256 - 1
	} {
		for _, enc := range [][]byte{
			append(append([]byte{4}, fromHex(x)...), fromHex(sqrtB)...),
			append([]byte{2}, fromHex(x)...),
			append([]byte{3}, fromHex(x)...),
		} {
			if _, err := new(Point).SetBytes(enc); err == nil {
				t.Errorf("X = %s accepted in %x…", x, enc[:1])
			}
		}
	}
}
