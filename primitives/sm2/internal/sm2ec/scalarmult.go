package sm2ec

import (
	_ "embed"
	"errors"
	"math/bits"
	"sync"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

//go:generate go run gen_table.go

// baseTableBytes holds j·2^(6k)·G for k = 0…42 and j = 1…32 as big-endian
// affine coordinates; see gen_table.go.
//
//go:embed p256_table.bin
var baseTableBytes []byte

const (
	baseWindows = 43 // ⌈257/6⌉ signed 6-bit windows cover a 256-bit scalar
	baseEntries = 32
)

var (
	baseTable     *[baseWindows][baseEntries]affinePoint
	baseTableOnce sync.Once
)

func loadBaseTable() {
	t := new([baseWindows][baseEntries]affinePoint)
	b := baseTableBytes
	for k := range t {
		for j := range t[k] {
			if _, err := t[k][j].x.SetBytes(b[:32]); err != nil {
				panic("sm2ec: corrupt base table")
			}
			if _, err := t[k][j].y.SetBytes(b[32:64]); err != nil {
				panic("sm2ec: corrupt base table")
			}
			b = b[64:]
		}
	}
	baseTable = t
}

func getBaseTable() *[baseWindows][baseEntries]affinePoint {
	baseTableOnce.Do(loadBaseTable)
	return baseTable
}

var errScalarLength = errors.New("sm2ec: scalar must be 32 bytes")

// scalarLimbs loads a 32-byte big-endian scalar into little-endian limbs.
func scalarLimbs(s []byte) [4]uint64 {
	var l [4]uint64
	for i := 0; i < 4; i++ {
		b := s[24-8*i:]
		l[i] = uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
			uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
	}
	return l
}

// window returns bits [start, start+width) of s, with bits below 0 and above
// 255 reading as zero. start and width are public.
func window(s *[4]uint64, start, width int) uint64 {
	mask := uint64(1)<<width - 1
	if start < 0 {
		return (s[0] << uint(-start)) & mask
	}
	w, off := start/64, uint(start%64)
	if w >= 4 {
		return 0
	}
	v := s[w] >> off
	if off+uint(width) > 64 && w+1 < 4 {
		v |= s[w+1] << (64 - off)
	}
	return v & mask
}

// booth recodes a (w+1)-bit window (w bits plus the top bit of the window
// below) into a digit magnitude in [0, 2^(w-1)] and a sign bit, in constant
// time: the window value v stands for v/2 rounded up, minus 2^w if its top
// bit is set.
func booth(v uint64, w uint) (digit uint64, neg int) {
	sign := v >> w // top bit
	mask := -sign
	// For negative digits use the complement 2^(w+1) - 1 - v.
	d := (((uint64(1)<<(w+1))-1-v)&mask | v&^mask)
	d = (d >> 1) + (d & 1)
	return d, int(sign)
}

func ctEq(a, b uint64) int {
	x := a ^ b
	return int(1 ^ (x|-x)>>63)
}

// ScalarBaseMult sets p = s·G for a 32-byte big-endian s, in constant time,
// and returns p.
func (p *Point) ScalarBaseMult(s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	table := getBaseTable()
	l := scalarLimbs(s)
	acc := NewPoint()
	var t affinePoint
	var negY field.Element
	var sum Point
	for k := 0; k < baseWindows; k++ {
		d, neg := booth(window(&l, 6*k-1, 7), 6)
		// Constant-time lookup of entry d-1 (nothing matches when d == 0).
		t = table[k][0]
		for j := 1; j < baseEntries; j++ {
			c := ctEq(d, uint64(j+1))
			t.x.Select(&table[k][j].x, &t.x, c)
			t.y.Select(&table[k][j].y, &t.y, c)
		}
		negY.Neg(&t.y)
		t.y.Select(&negY, &t.y, neg)
		sum.addAffine(acc, &t)
		acc.Select(acc, &sum, ctEq(d, 0))
	}
	*p = *acc
	return p, nil
}

// ScalarMult sets p = s·q for a 32-byte big-endian s, in constant time, and
// returns p. It uses signed 5-bit windows over a table of q, 2q, …, 16q.
func (p *Point) ScalarMult(q *Point, s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	var table [16]Point
	table[0] = *q
	table[1].Double(q)
	for i := 2; i < 16; i++ {
		table[i].Add(&table[i-1], q)
	}
	l := scalarLimbs(s)
	acc := NewPoint()
	var t Point
	var negY field.Element
	const windows = 52 // ⌈257/5⌉
	for k := windows - 1; k >= 0; k-- {
		if k != windows-1 {
			acc.Double(acc)
			acc.Double(acc)
			acc.Double(acc)
			acc.Double(acc)
			acc.Double(acc)
		}
		d, neg := booth(window(&l, 5*k-1, 6), 5)
		t.x.Zero()
		t.y.One()
		t.z.Zero()
		for j := range table {
			t.Select(&table[j], &t, ctEq(d, uint64(j+1)))
		}
		negY.Neg(&t.y)
		t.y.Select(&negY, &t.y, neg)
		acc.Add(acc, &t)
	}
	*p = *acc
	return p, nil
}

// wnaf returns the width-w non-adjacent form of the 256-bit s, least
// significant digit first: odd digits in (-2^(w-1), 2^(w-1)) separated by at
// least w-1 zeros. It runs in variable time and is only for public scalars.
func wnaf(s []byte, w uint) []int8 {
	var k [5]uint64
	l := scalarLimbs(s)
	copy(k[:], l[:])
	out := make([]int8, 0, 258)
	mod := uint64(1) << w
	for k != [5]uint64{} {
		var d int64
		if k[0]&1 == 1 {
			d = int64(k[0] & (mod - 1))
			if d >= int64(mod/2) {
				d -= int64(mod)
			}
			// k -= d
			var b uint64
			if d > 0 {
				k[0], b = bits.Sub64(k[0], uint64(d), 0)
				for i := 1; i < 5 && b != 0; i++ {
					k[i], b = bits.Sub64(k[i], 0, b)
				}
			} else {
				var c uint64
				k[0], c = bits.Add64(k[0], uint64(-d), 0)
				for i := 1; i < 5 && c != 0; i++ {
					k[i], c = bits.Add64(k[i], 0, c)
				}
			}
		}
		out = append(out, int8(d))
		// k >>= 1
		for i := 0; i < 4; i++ {
			k[i] = k[i]>>1 | k[i+1]<<63
		}
		k[4] >>= 1
	}
	return out
}

// oddMultiples returns q, 3q, 5q, …, (2n-1)q.
func oddMultiples(q *Point, n int) []Point {
	t := make([]Point, n)
	t[0] = *q
	var q2 Point
	q2.Double(q)
	for i := 1; i < n; i++ {
		t[i].Add(&t[i-1], &q2)
	}
	return t
}

// ScalarMultVarTime sets p = s·q and returns p. It takes variable time and
// must only be used when s and q are public.
func (p *Point) ScalarMultVarTime(q *Point, s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	const w = 5
	table := oddMultiples(q, 1<<(w-2))
	digits := wnaf(s, w)
	acc := NewPoint()
	var neg Point
	started := false
	for i := len(digits) - 1; i >= 0; i-- {
		if started {
			acc.Double(acc)
		}
		if d := digits[i]; d > 0 {
			acc.Add(acc, &table[d/2])
			started = true
		} else if d < 0 {
			acc.Add(acc, neg.Negate(&table[(-d)/2]))
			started = true
		}
	}
	*p = *acc
	return p, nil
}

// DoubleScalarMultVarTime sets p = s·G + t·q and returns p. It takes
// variable time and exists for signature verification, where s, t and q are
// all public.
func (p *Point) DoubleScalarMultVarTime(s []byte, q *Point, t []byte) (*Point, error) {
	if len(s) != 32 || len(t) != 32 {
		return nil, errScalarLength
	}
	var acc Point
	acc.ScalarMultVarTime(q, t)
	// Add s·G straight from the fixed-base table, indexing it directly since
	// s is public.
	table := getBaseTable()
	l := scalarLimbs(s)
	var a affinePoint
	for k := 0; k < baseWindows; k++ {
		d, neg := booth(window(&l, 6*k-1, 7), 6)
		if d == 0 {
			continue
		}
		a = table[k][d-1]
		if neg == 1 {
			a.y.Neg(&a.y)
		}
		acc.addAffine(&acc, &a)
	}
	*p = acc
	return p, nil
}
