package sm2ec

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// TestWNAFTableIsGenerated regenerates the table of odd multiples of G with
// gen_table.go -wnaf and checks that the committed copy is identical.
func TestWNAFTableIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	out := filepath.Join(t.TempDir(), "wnaf.bin")
	cmd := exec.Command(goTool, "run", "gen_table.go", "-wnaf", "-o", out)
	// Build the generator for the machine running the go tool, also when
	// this test runs under an emulator with GOARCH set for the target.
	cmd.Env = append(os.Environ(), "GOOS=", "GOARCH=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_table.go -wnaf: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wnafTableBytes) {
		t.Fatal("p256_wnaf_table.bin differs from the output of gen_table.go -wnaf; run go generate")
	}
}

// TestWNAFTable checks the loaded table against the package's own
// arithmetic: entry i of chunk k must be (2i+1)·2^(64k)·G.
func TestWNAFTable(t *testing.T) { eachImpl(t, testWNAFTable) }

func testWNAFTable(t *testing.T) {
	gt := getGenTable()
	for k := range gt {
		for i := range genEntries {
			m := new(big.Int).Lsh(big.NewInt(int64(2*i+1)), uint(64*k))
			want, _ := new(Point).ScalarBaseMult(scalar32(m))
			var got Point
			got.x, got.y = gt[k][2*i], gt[k][2*i+1]
			got.z.One()
			if got.Equal(want) != 1 {
				t.Fatalf("table entry %d of chunk %d is not %d·2^%d·G", i, k, 2*i+1, 64*k)
			}
		}
	}
}

// TestWNAFForm checks the defining properties of the recoding for both
// widths in use: the digits sum to the scalar, are odd and bounded, and any
// two nonzero digits are at least w positions apart.
func TestWNAFForm(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ks := testScalars(r)
	for range 200 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
			if r.IntN(3) == 0 {
				b[i] = 0 // sparse scalars exercise long zero runs
			}
		}
		ks = append(ks, new(big.Int).SetBytes(b))
	}
	for _, w := range []uint{pubWindow, genWindow} {
		for _, k := range ks {
			k = new(big.Int).Mod(k, new(big.Int).Lsh(bigOne, 256))
			var d wnafDigits
			n := wnaf(&d, scalar32(k), w)
			sum := new(big.Int)
			last := -1
			for i := len(d) - 1; i >= 0; i-- {
				sum.Lsh(sum, 1).Add(sum, big.NewInt(int64(d[i])))
			}
			for i := range d {
				if d[i] == 0 {
					continue
				}
				if i >= n || d[i]%2 == 0 || int(d[i]) >= 1<<(w-1) || int(d[i]) <= -(1<<(w-1)) {
					t.Fatalf("w=%d k=%x: bad digit %d at %d (n = %d)", w, k, d[i], i, n)
				}
				if last >= 0 && i-last < int(w) {
					t.Fatalf("w=%d k=%x: digits at %d and %d", w, k, last, i)
				}
				last = i
			}
			if sum.Cmp(k) != 0 || (k.Sign() != 0 && last != n-1) || (k.Sign() == 0 && n != 0) {
				t.Fatalf("w=%d: wNAF of %x sums to %x, length %d", w, k, sum, n)
			}
		}
	}
}

// TestDoubleScalarMultRandom compares DoubleScalarMultVarTime with the
// constant-time multiplications on many random and sparse scalars.
func TestDoubleScalarMultRandom(t *testing.T) { eachImpl(t, testDoubleScalarMultRandom) }

func testDoubleScalarMultRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	q, _ := new(Point).ScalarBaseMult(scalar32(hexInt("fedcba9876543210")))
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := range n {
		s, u := make([]byte, 32), make([]byte, 32)
		for j := range s {
			s[j], u[j] = byte(r.Uint32()), byte(r.Uint32())
			if i%3 == 0 && r.IntN(2) == 0 {
				s[j] = 0xff
			}
			if i%5 == 0 && r.IntN(2) == 0 {
				u[j] = 0
			}
		}
		got, _ := new(Point).DoubleScalarMultVarTime(s, q, u)
		a, _ := new(Point).ScalarBaseMult(s)
		b, _ := new(Point).ScalarMult(q, u)
		if want := a.Add(a, b); got.Equal(want) != 1 {
			t.Fatalf("DoubleScalarMultVarTime(%x, Q, %x) wrong", s, u)
		}
	}
}

func TestNormalizeEncodeAffine(t *testing.T) { eachImpl(t, testNormalizeEncodeAffine) }

func testNormalizeEncodeAffine(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	var out [65]byte
	for _, k := range testScalars(r) {
		p, _ := new(Point).ScalarMult(NewGenerator(), scalar32(k))
		want := p.Bytes()
		var two field.Element
		two.One()
		two.Add(&two, &two)
		p.x.Mul(&p.x, &two)
		p.y.Mul(&p.y, &two)
		p.z.Mul(&p.z, &two)
		if p.IsIdentity() == 0 && p.EncodeAffine(&out) {
			t.Fatalf("EncodeAffine accepted Z ≠ 1 for k = %x", k)
		}
		p.Normalize()
		if p.IsIdentity() == 1 {
			if !bytes.Equal(want, []byte{0}) || p.EncodeAffine(&out) || p.Equal(NewPoint()) != 1 {
				t.Fatalf("Normalize of the identity")
			}
			continue
		}
		if !p.EncodeAffine(&out) || !bytes.Equal(out[:], want) || !bytes.Equal(p.Bytes(), want) {
			t.Fatalf("normalized encoding of %x·G = %x, want %x", k, out, want)
		}
	}
}

// TestXModNEqual covers both candidates x = c and x = c + n, the latter
// with a point whose x lies in [n, p), which no random scalar would give.
func TestXModNEqual(t *testing.T) { eachImpl(t, testXModNEqual) }

func testXModNEqual(t *testing.T) {
	var z field.Element
	z.One()
	z.Add(&z, &z)
	z.Add(&z, &z) // Z = 4, so the check really works projectively
	scale := func(p *Point) *Point {
		q := *p
		q.x.Mul(&q.x, &z)
		q.y.Mul(&q.y, &z)
		q.z.Mul(&q.z, &z)
		return &q
	}
	g := scale(NewGenerator())
	gx := refG.x.FillBytes(make([]byte, 32))
	if !g.XModNEqualVarTime(gx) {
		t.Fatal("x(G) not matched")
	}
	other := new(big.Int).Add(refG.x, bigOne).FillBytes(make([]byte, 32))
	if g.XModNEqualVarTime(other) || NewPoint().XModNEqualVarTime(gx) {
		t.Fatal("false match")
	}
	// Find x ≥ n on the curve.
	for x := new(big.Int).Set(refN); ; x.Add(x, bigOne) {
		enc := append([]byte{2}, x.FillBytes(make([]byte, 32))...)
		p, err := new(Point).SetBytes(enc)
		if err != nil {
			continue
		}
		p = scale(p)
		c := new(big.Int).Sub(x, refN)
		if !p.XModNEqualVarTime(scalar32(c)) {
			t.Fatalf("x = %x not matched by x - n", x)
		}
		if p.XModNEqualVarTime(scalar32(x)[:31]) || p.XModNEqualVarTime(scalar32(c.Add(c, bigOne))) {
			t.Fatal("false match above n")
		}
		break
	}
}

// TestScalarMultProjectiveInput checks that ScalarMult gives the same result
// for a point in affine form (mixed additions for the table) and for the
// same point with Z ≠ 1 (full additions).
func TestScalarMultProjectiveInput(t *testing.T) { eachImpl(t, testScalarMultProjectiveInput) }

func testScalarMultProjectiveInput(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	q, _ := new(Point).SetBytes(refBytes(refMul(refG, hexInt("abcdef0123456789"))))
	var z field.Element
	z.One()
	z.Add(&z, &z)
	z.Add(&z, &z)
	z.Add(&z, &z)
	qz := *q
	qz.x.Mul(&qz.x, &z)
	qz.y.Mul(&qz.y, &z)
	qz.z.Mul(&qz.z, &z)
	for _, k := range testScalars(r) {
		a, _ := new(Point).ScalarMult(q, scalar32(k))
		b, _ := new(Point).ScalarMult(&qz, scalar32(k))
		if a.Equal(b) != 1 || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("ScalarMult differs between affine and projective input for k = %x", k)
		}
	}
	// The identity as input gives the identity.
	o, _ := new(Point).ScalarMult(NewPoint(), scalar32(hexInt("1234")))
	if o.IsIdentity() != 1 {
		t.Fatal("s·O is not O")
	}
}

// TestPointTable checks the cached table and the multiplication that uses
// it against DoubleScalarMultVarTime, including the cancelling and doubling
// cases of the variable-time additions.
func TestPointTable(t *testing.T) { eachImpl(t, testPointTable) }

func testPointTable(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	if _, err := NewPointTable(NewPoint()); err == nil {
		t.Fatal("table of the identity accepted")
	}
	g := NewGenerator()
	negG := new(Point).Negate(g)
	q, _ := new(Point).ScalarMult(g, scalar32(hexInt("5555aaaa5555aaaa")))
	for _, pt := range []*Point{q, g, negG} {
		qt, err := NewPointTable(pt)
		if err != nil {
			t.Fatal(err)
		}
		for j := range qt.t {
			for i := range cachedEntries {
				m := new(big.Int).Lsh(big.NewInt(int64(2*i+1)), uint(64*j))
				want, _ := new(Point).ScalarMult(pt, scalar32(m))
				var got Point
				got.x, got.y = qt.t[j][2*i], qt.t[j][2*i+1]
				got.z.One()
				if got.Equal(want) != 1 {
					t.Fatalf("table entry %d of chunk %d wrong", i, j)
				}
			}
		}
		ks := testScalars(r)
		for i, k := range ks {
			s := scalar32(ks[(i*7+3)%len(ks)])
			u := scalar32(k)
			got, _ := new(Point).DoubleScalarMultTableVarTime(s, qt, u)
			want, _ := new(Point).DoubleScalarMultVarTime(s, pt, u)
			if got.Equal(want) != 1 {
				t.Fatalf("DoubleScalarMultTableVarTime(%x, _, %x) wrong", s, u)
			}
			// s·G + s·(±G) exercises doubling and cancellation.
			got.DoubleScalarMultTableVarTime(u, qt, u)
			want.DoubleScalarMultVarTime(u, pt, u)
			if got.Equal(want) != 1 {
				t.Fatalf("DoubleScalarMultTableVarTime(%x, _, %x) wrong", u, u)
			}
			// The constant-time multiplication with the table, against
			// ScalarMult and the math/big reference.
			got.ScalarMultTable(qt, u)
			want.ScalarMult(pt, u)
			if got.Equal(want) != 1 {
				t.Fatalf("ScalarMultTable(_, %x) wrong", u)
			}
		}
		for _, k := range tableEdgeScalars() {
			got, _ := new(Point).ScalarMultTable(qt, scalar32(k))
			want, _ := new(Point).ScalarMult(pt, scalar32(k))
			if got.Equal(want) != 1 {
				t.Fatalf("ScalarMultTable(_, %x) wrong", k)
			}
			s := scalar32(new(big.Int).Sub(refN, k))
			got.DoubleScalarMultTableVarTime(s, qt, scalar32(k))
			want.DoubleScalarMultVarTime(s, pt, scalar32(k))
			if got.Equal(want) != 1 {
				t.Fatalf("DoubleScalarMultTableVarTime(n-%x, _, %x) wrong", k, k)
			}
		}
	}
}

// tableEdgeScalars are scalars whose 64-bit chunks sit at the edges of the
// recodings: zero and all-ones chunks, even and odd ones, 0, 1, n-1, n,
// n+1 and 2^256-1.
func tableEdgeScalars() []*big.Int {
	one := big.NewInt(1)
	ks := []*big.Int{big.NewInt(0), one, big.NewInt(2), new(big.Int).Sub(refN, one), refN,
		new(big.Int).Add(refN, one), new(big.Int).Sub(new(big.Int).Lsh(one, 256), one)}
	for mask := 0; mask < 81; mask++ {
		// Each chunk 0, 1, 2^64-1 or 2^64-2 (base-3 digits pick 0, odd, even).
		k := new(big.Int)
		m := mask
		for j := range 4 {
			var c *big.Int
			switch m % 3 {
			case 0:
				c = new(big.Int)
			case 1:
				c = new(big.Int).SetUint64(^uint64(0))
			case 2:
				c = new(big.Int).SetUint64(^uint64(1))
			}
			m /= 3
			k.Or(k, c.Lsh(c, uint(64*j)))
		}
		ks = append(ks, k)
	}
	return ks
}

func BenchmarkDoubleScalarMultTableVarTime(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	u := scalar32(hexInt("0badf00d0badf00d0badf00d0badf00d0badf00d0badf00d0badf00d0badf0"))
	q, _ := new(Point).ScalarBaseMult(u)
	q.Normalize()
	qt, _ := NewPointTable(q)
	var p Point
	for b.Loop() {
		p.DoubleScalarMultTableVarTime(s, qt, u)
	}
}

func BenchmarkNewPointTable(b *testing.B) {
	q, _ := new(Point).ScalarBaseMult(scalar32(hexInt("1234")))
	for b.Loop() {
		NewPointTable(q)
	}
}

// TestChunkRecodings checks the 64-bit recodings: the width-w NAF (digits
// odd, bounded, w-1 zeros after each, summing to k) and the regular one
// (13 odd digits in [-31, 31], the top one in [1, 17], summing to k).
func TestChunkRecodings(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	ks := []uint64{0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 1<<63 - 1, 1 << 63, 1<<63 + 1, ^uint64(0), ^uint64(1), ^uint64(0) >> 5}
	for range 500 {
		ks = append(ks, r.Uint64(), r.Uint64()>>r.IntN(64))
	}
	for _, k := range ks {
		for _, w := range []uint{cachedWindow, genWindow} {
			var d [65]int8
			n := chunkWNAF(&d, k, w)
			sum, last := new(big.Int), -100
			for i := 64; i >= 0; i-- {
				sum.Lsh(sum, 1).Add(sum, big.NewInt(int64(d[i])))
				if d[i] != 0 {
					if di := int(d[i]); di%2 == 0 || di >= 1<<(w-1) || di <= -(1<<(w-1)) || i >= n {
						t.Fatalf("chunkWNAF(%x, %d): bad digit %d at %d", k, w, d[i], i)
					}
					if last >= 0 && last-i < int(w) {
						t.Fatalf("chunkWNAF(%x, %d): digits too close", k, w)
					}
					last = i
				}
			}
			if sum.Cmp(new(big.Int).SetUint64(k)) != 0 {
				t.Fatalf("chunkWNAF(%x, %d) sums to %x", k, w, sum)
			}
		}
		odd := k | 1
		var d [13]int8
		recodeRegular(&d, odd)
		sum := new(big.Int)
		for i := 12; i >= 0; i-- {
			sum.Lsh(sum, 5).Add(sum, big.NewInt(int64(d[i])))
			if d[i]%2 == 0 || d[i] > 31 || d[i] < -31 {
				t.Fatalf("recodeRegular(%x): bad digit %d", odd, d[i])
			}
		}
		if d[12] < 1 || d[12] > 17 {
			t.Fatalf("recodeRegular(%x): top digit %d", odd, d[12])
		}
		if sum.Cmp(new(big.Int).SetUint64(odd)) != 0 {
			t.Fatalf("recodeRegular(%x) sums to %x", odd, sum)
		}
	}
}

// TestScalarMultTableReference compares ScalarMultTable with the math/big
// reference directly.
func TestScalarMultTableReference(t *testing.T) { eachImpl(t, testScalarMultTableReference) }

func testScalarMultTableReference(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	q := refMul(refG, hexInt("fedcba98765432100123456789abcdef"))
	qp, _ := new(Point).SetBytes(refBytes(q))
	qt, err := NewPointTable(qp)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range append(testScalars(r), tableEdgeScalars()[:20]...) {
		want := refBytes(refMul(q, k))
		got, _ := new(Point).ScalarMultTable(qt, scalar32(k))
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("ScalarMultTable(Q, %x) = %x, want %x", k, got.Bytes(), want)
		}
	}
}

func BenchmarkCPUScalarMultTable(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	qt, _ := NewPointTable(NewGenerator())
	var p Point
	cpuLoop(b, func() { p.ScalarMultTable(qt, s) })
}

func BenchmarkCPUDoubleScalarMultTable(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	u := scalar32(hexInt("0badf00d0badf00d0badf00d0badf00d0badf00d0badf00d0badf00d0badf0"))
	q, _ := new(Point).ScalarBaseMult(u)
	q.Normalize()
	qt, _ := NewPointTable(q)
	var p Point
	cpuLoop(b, func() { p.DoubleScalarMultTableVarTime(s, qt, u) })
}

func BenchmarkCPUNewPointTable(b *testing.B) {
	q, _ := new(Point).ScalarBaseMult(scalar32(hexInt("1234")))
	cpuLoop(b, func() { NewPointTable(q) })
}
