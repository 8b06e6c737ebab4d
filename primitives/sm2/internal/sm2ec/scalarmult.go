package sm2ec

import (
	"crypto/rand"
	_ "embed"
	"errors"
	"math/bits"
	"sync"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

//go:generate go run gen_table.go
//go:generate go run gen_table.go -wnaf

// baseTableBytes holds j·2^(7k)·G for k = 0…36 and odd j = 1…127 as
// big-endian affine coordinates; see gen_table.go.
//
//go:embed p256_table.bin
var baseTableBytes []byte

const (
	baseBits    = 7
	baseWindows = 37 // 36 odd 7-bit digits and a top digit cover 256 bits
	baseEntries = 1 << (baseBits - 1)
)

// baseTable holds, per window, the affine points flat as x1, y1, x2, y2, …
// in the layout field.LookupPair scans.
var (
	baseTable     *[baseWindows][2 * baseEntries]field.Element
	baseTableOnce sync.Once
	// baseDoubling is 2·15·2^252·G, the result for the one odd scalar
	// 15·2^253 - n whose top window is a doubling (see ScalarBaseMult).
	baseDoubling jacobianPoint
)

// baseDoublingScalar is 15·2^253 - n in little-endian limbs.
var baseDoublingScalar = [4]uint64{0xac440bf6c62abedd, 0x8dfc2094de39fad4, 0x0000000000000000, 0xe000000100000000}

func loadBaseTable() {
	t := new([baseWindows][2 * baseEntries]field.Element)
	b := baseTableBytes
	for k := range t {
		for j := range t[k] {
			if _, err := t[k][j].SetBytes(b[:32]); err != nil {
				panic("sm2ec: corrupt base table")
			}
			b = b[32:]
		}
	}
	baseTable = t
	// Entry (15+1)/2 of the top window is 15·2^252·G.
	var top jacobianPoint
	top.fromAffine(&affinePoint{t[baseWindows-1][2*7], t[baseWindows-1][2*7+1]})
	baseDoubling.doubleGeneric(&top)
}

func getBaseTable() *[baseWindows][2 * baseEntries]field.Element {
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

// baseDigit returns digit i (0 ≤ i < 36) of the regular recoding of an odd
// k < 2^256 into 7-bit digits, k = k36·2^252 + Σ d_i·2^(7i) with every d_i
// odd in [-127, 127] and k36 = (k >> 252) | 1 in [1, 15], as the table
// index (|d_i| + 1)/2 and the sign, in constant time. It is oddDigit with
// 7-bit digits: d_i is bits 7i…7i+7 of k, with bit 7i set, less 128.
func baseDigit(k *[4]uint64, i int) (idx uint64, neg int) {
	w := window(k, 7*i, 8) | 1
	n := w>>7 ^ 1 // d = w - 128 < 0
	v := (w ^ -n&127) & 127
	return v>>1 + 1, int(n)
}

// ctEqLimbs returns 1 if a == b and 0 otherwise, in constant time.
func ctEqLimbs(a, b *[4]uint64) int {
	return ctEq((a[0]^b[0])|(a[1]^b[1])|(a[2]^b[2])|(a[3]^b[3]), 0)
}

func ctEq(a, b uint64) int {
	x := a ^ b
	return int(1 ^ (x|-x)>>63)
}

// ScalarBaseMult sets p = s·G for a 32-byte big-endian s, in constant time,
// and returns p.
//
// s is reduced mod n and made odd (makeOdd: n - s and a negated result for
// an even s), and recoded into 36 odd signed 7-bit digits and an odd top
// digit (baseDigit). Each window k adds d·2^(7k)·G from the precomputed
// table of odd multiples, so no doublings are needed, and as no digit is
// zero and the accumulator starts at the first table point, the window
// step needs neither the selection of a zero digit nor that of an identity
// accumulator.
//
// The accumulator is Jacobian and the table affine, for the cheap mixed
// addition, which is wrong when it adds a point to itself and when the
// accumulator is the identity. Before window k ≥ 1 the
// accumulator holds L·G with L = Σ_(j<k) d_j·2^(7j) odd and
// |L| ≤ 2^(7k) - 1, and the table point is d·2^(7k)·G with 1 ≤ |d| ≤ 127:
// L ± d·2^(7k) is nonzero (|d·2^(7k)| > |L|) and below 2^(7k+7) ≤ 2^252 < n
// in magnitude for k ≤ 35, so L·G is neither the table point, its negative
// nor the identity there. The top window (d in [1, 15]) can meet the
// doubling case, and the sum can be the identity, for one odd scalar each:
// L·G = d·2^252·G means s = L + d·2^252 ≡ 2d·2^252, so s = 2d·2^252 - n,
// which lies in [1, n] for d ≥ 9 and has the top digit d only for d = 15
// (L = 15·2^252 - n); L·G = -d·2^252·G means s ≡ 0, so s = n. The top
// window therefore takes the same fused step as the others (a separate
// complete addition, run once per multiplication, was slower with its code
// cold), and its result is replaced by the
// precomputed 2·15·2^252·G, or by the identity, when s is one of the two.
//
// 64 entries per window (a 148 KiB table) rather than 32: 37 additions
// instead of 43, each scan of 4 KiB costing less than the addition saved.
// The odd recoding replaced Booth digits, whose zero digits and identity
// accumulator each cost a selection in every step. (The measurements are
// in examples/bench/README.md, "Design measurements".)
//
// A scalar multiplied again and again, such as a long-term key, should go
// to ScalarBaseMultBlinded instead.
func (p *Point) ScalarBaseMult(s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	l := scalarLimbs(s)
	var acc jacobianPoint
	baseMult(&acc, &l)
	acc.toProjective(p)
	return p, nil
}

// ScalarBaseMultBlinded is ScalarBaseMult for a scalar that is multiplied
// again and again, such as a long-term private key: it sets p = s·G as
// a·G + b·G with a uniform at random and b = s - a mod n, drawing a from
// crypto/rand, at twice ScalarBaseMult's cost.
//
// The comb of ScalarBaseMult runs the same instructions for every s, but on
// data fixed by s: the table entries it selects and every value the
// accumulator takes. Some of issue 33's timing runs found one key measured
// against another fixed key differing by about 0.1 % of the time, with no
// branch or address that depends on s; a data-dependent power draw that
// moves the clock (the class of Hertzbleed) is what is left. Such a
// difference is an average over many
// multiplications of the same data. A scalar used once (a nonce, an
// ephemeral key) never repeats its data; a repeated one does, unless it is
// split afresh every time: each of a and b is uniform and independent of s,
// so the digits, the entries and the accumulators of both combs are too.
func (p *Point) ScalarBaseMultBlinded(s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	var rb [32]byte
	rand.Read(rb[:])
	return p.scalarBaseMultSplit(s, rb[:]), nil
}

// scalarBaseMultSplit sets p = (r mod n)·G + (s - r mod n)·G for 32-byte s
// and r; the tests choose r.
func (p *Point) scalarBaseMultSplit(s, r []byte) *Point {
	a, b := splitScalar(s, r)
	var acc, other jacobianPoint
	baseMult(&acc, &a)
	baseMult(&other, &b)
	acc.addHalves(&other)
	acc.toProjective(p)
	return p
}

// splitScalar returns a = r mod n and b = s - a mod n, the halves of a
// blinded multiplication, for 32-byte s and r.
func splitScalar(s, r []byte) (a, b [4]uint64) {
	l := scalarLimbs(s)
	reduceModN(&l)
	a = scalarLimbs(r)
	reduceModN(&a) // uniform to within 2^-32 for a random r: r ≥ n has that probability
	return a, subModN(&l, &a)
}

// addHalves sets p = p + q for the two products of a blinded
// multiplication: either may be the identity (a half of zero) and they may
// be equal or opposite, which the complete addition covers.
func (p *jacobianPoint) addHalves(q *jacobianPoint) {
	p.addComplete(q, 0, q.z.IsZero())
}

// randomElement sets e to a nonzero field element from crypto/rand.
func randomElement(e *field.Element) {
	var b [32]byte
	for {
		rand.Read(b[:])
		// Values ≥ p (probability about 2^-32) are drawn again; the loop
		// depends on the random bytes alone.
		if _, err := e.SetBytes(b[:]); err == nil {
			break
		}
	}
	var one field.Element
	one.One()
	e.Select(&one, e, e.IsZero())
}

// subModN returns a - b mod n for a, b < n, in constant time.
func subModN(a, b *[4]uint64) [4]uint64 {
	var d [4]uint64
	var borrow, carry uint64
	d[0], borrow = bits.Sub64(a[0], b[0], 0)
	d[1], borrow = bits.Sub64(a[1], b[1], borrow)
	d[2], borrow = bits.Sub64(a[2], b[2], borrow)
	d[3], borrow = bits.Sub64(a[3], b[3], borrow)
	mask := -borrow
	d[0], carry = bits.Add64(d[0], nOrder[0]&mask, 0)
	d[1], carry = bits.Add64(d[1], nOrder[1]&mask, carry)
	d[2], carry = bits.Add64(d[2], nOrder[2]&mask, carry)
	d[3], _ = bits.Add64(d[3], nOrder[3]&mask, carry)
	return d
}

// baseMult sets acc = l·G for a 256-bit l, the comb of ScalarBaseMult.
func baseMult(acc *jacobianPoint, l *[4]uint64) {
	table := getBaseTable()
	reduceModN(l)
	flip := makeOdd(l)
	var idx [baseWindows]uint64
	var negs [baseWindows]int
	for k := range baseWindows - 1 {
		idx[k], negs[k] = baseDigit(l, k)
	}
	idx[baseWindows-1] = (l[3]>>60|1)>>1 + 1
	// Constant-time lookups of entry idx, each but the first two done
	// during the previous window's addition.
	var t, next affinePoint
	lookupAffine(&t, table[0][:], idx[0])
	acc.x = t.x
	acc.y.Neg(&t.y)
	acc.y.Select(&acc.y, &t.y, negs[0])
	acc.z.One()
	lookupAffine(&t, table[1][:], idx[1])
	for k := 1; k < baseWindows-1; k++ {
		acc.baseStep(&t, negs[k], &next, table[k+1][:], idx[k+1])
		t = next
	}
	// The top window; the scan for a next entry is wasted (idx 0).
	acc.baseStep(&t, 0, &next, table[0][:], 0)
	acc.selectFrom(&baseDoubling, acc, ctEqLimbs(l, &baseDoublingScalar))
	var id jacobianPoint
	id.x.One()
	id.y.One()
	acc.selectFrom(&id, acc, ctEqLimbs(l, &nOrder))
	var negY field.Element
	negY.Neg(&acc.y)
	acc.y.Select(&negY, &acc.y, flip)
}

// nOrder is the group order n in little-endian limbs.
var nOrder = [4]uint64{0x53bbf40939d54123, 0x7203df6b21c6052b, 0xffffffffffffffff, 0xfffffffeffffffff}

// reduceModN subtracts n from l once if l ≥ n, in constant time. Any 256-bit
// value is below 2n, so the result is fully reduced.
func reduceModN(l *[4]uint64) {
	var t [4]uint64
	var b uint64
	t[0], b = bits.Sub64(l[0], nOrder[0], 0)
	t[1], b = bits.Sub64(l[1], nOrder[1], b)
	t[2], b = bits.Sub64(l[2], nOrder[2], b)
	t[3], b = bits.Sub64(l[3], nOrder[3], b)
	keep := -b // all ones if l < n
	for i := range l {
		l[i] = t[i] ^ (keep & (l[i] ^ t[i]))
	}
}

// ScalarMult sets p = s·q for a 32-byte big-endian s, in constant time, and
// returns p. It uses signed 5-bit windows over a table of q, 2q, …, 16q in
// Jacobian coordinates, rescaled by a random factor in every call.
//
// The Jacobian addition is wrong for equal inputs, so it is worth knowing
// when the accumulator A can equal the table point T = d·q. With s reduced
// below n, after the doublings of window i the accumulator is 32·P·q where
// K = 32·P + d is the integer value of the windows from i up, 0 ≤ K ≤ n.
// A = T means 32·P ≡ d, i.e. K ≡ 2d (mod n). As integers K = 2d would need
// 32·P = d with |d| ≤ 16, impossible unless d = 0 (no addition); so only
// K = n + 2d remains, which needs K close to n and so can only happen in
// the last window (i = 0, K = s, for a handful of s just below n). Only that
// window therefore uses the complete addition; A = -T simply gives the
// identity, which the incomplete formula gets right.
//
// (An affine table, from one shared inversion as DoubleScalarMult makes
// its tables, does not pay here: the inversion and the conversions cost
// about what the 52 cheaper mixed additions save.)
func (p *Point) ScalarMult(q *Point, s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	l := scalarLimbs(s)
	reduceModN(&l)

	var multiples [16]jacobianPoint
	multiples[0].fromProjective(q)
	multiples[1].double(&multiples[0])
	// A point in affine form (Z = 1), such as a parsed public key or C1,
	// allows the cheaper mixed addition. Whether Z = 1 depends on how q was
	// made, not on its value or on s, so branching on it leaks nothing
	// secret. The addition never meets equal inputs here, as i·q ≠ q for
	// 2 ≤ i ≤ 15 when q is not the identity.
	var one field.Element
	one.One()
	if q.z.Equal(&one) == 1 {
		a := affinePoint{q.x, q.y}
		for i := 2; i < 16; i++ {
			multiples[i].addAffine(&multiples[i-1], &a)
		}
	} else {
		for i := 2; i < 16; i++ {
			multiples[i].add(&multiples[i-1], &multiples[0])
		}
	}
	// The multiples are fixed by q, which a peer may choose and repeat
	// (C1 of a decryption, the public key of an ECDH), and s selects among
	// them: rescaled by a fresh random λ, (X·λ², Y·λ³, Z·λ), every entry
	// and so every value of the accumulator is new in each call, and no
	// average over repeated calls can depend on s through the data (see
	// ScalarBaseMultBlinded). That costs 50 multiplications, about 1 %.
	var lambda field.Element
	randomElement(&lambda)
	var l2, l3 field.Element
	l2.Square(&lambda)
	l3.Mul(&l2, &lambda)
	var table [3 * 16]field.Element
	for i := range multiples {
		table[3*i].Mul(&multiples[i].x, &l2)
		table[3*i+1].Mul(&multiples[i].y, &l3)
		table[3*i+2].Mul(&multiples[i].z, &lambda)
	}

	var acc, t jacobianPoint
	acc.x.One()
	acc.y.One()
	const windows = 52 // ⌈257/5⌉
	for k := windows - 1; k >= 0; k-- {
		if k != windows-1 {
			acc.doubleN(&acc, 5)
		}
		d, neg := booth(window(&l, 5*k-1, 6), 5)
		// The all-zero entry for d == 0 is never used: keep is set.
		lookupJacobian(&t, table[:], d)
		if k > 0 {
			acc.addSelect(&t, neg, ctEq(d, 0))
		} else {
			// The last window, where the doubling case is covered as
			// well.
			acc.addComplete(&t, neg, ctEq(d, 0))
		}
	}
	acc.toProjective(p)
	return p, nil
}

// wnafDigits holds a width-w NAF of a 256-bit scalar, least significant
// digit first; 257 digits always suffice.
type wnafDigits [257]int8

// wnaf writes into out the width-w non-adjacent form of the 256-bit s: odd
// digits in (-2^(w-1), 2^(w-1)) separated by at least w-1 zeros. It returns
// the number of digits, after which out holds zeros. It runs in variable
// time and is only for public scalars.
func wnaf(out *wnafDigits, s []byte, w uint) int {
	var k [5]uint64
	l := scalarLimbs(s)
	copy(k[:], l[:])
	*out = wnafDigits{}
	mod := uint64(1) << w
	n := 0
	for k != [5]uint64{} {
		if k[0]&1 == 1 {
			d := int64(k[0] & (mod - 1))
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
			out[n] = int8(d)
		}
		n++
		// k >>= 1; the digit just taken made k even, and it stays even
		// over the w-1 zeros that follow, so shift those out at once.
		shift := uint(1)
		if out[n-1] != 0 {
			shift = w
		}
		for i := 0; i < 4; i++ {
			k[i] = k[i]>>shift | k[i+1]<<(64-shift)
		}
		k[4] >>= shift
		if k != [5]uint64{} {
			n += int(shift) - 1
		}
	}
	return n
}

// pubWindow is the NAF width for the public point in verification and
// ScalarMultVarTime: 2^(pubWindow-2) = 8 odd multiples, computed per call.
const pubWindow = 5

// oddMultiples sets t to q, 3q, 5q, …, 15q.
func oddMultiples(t *[1 << (pubWindow - 2)]jacobianPoint, q *Point) {
	t[0].fromProjective(q)
	var q2 jacobianPoint
	q2.double(&t[0])
	for i := 1; i < len(t); i++ {
		t[i].addVarTime(&t[i-1], &q2)
	}
}

// addDigit adds d·q to acc for an odd NAF digit d, with table holding the
// odd multiples of q.
func addDigit(acc *jacobianPoint, table *[1 << (pubWindow - 2)]jacobianPoint, d int8) {
	if d > 0 {
		acc.addVarTime(acc, &table[d/2])
	} else {
		neg := table[(-d)/2]
		neg.y.Neg(&neg.y)
		acc.addVarTime(acc, &neg)
	}
}

// scalarMultVarTime returns s·q in Jacobian coordinates using a width-5
// NAF. For public s and q only.
func scalarMultVarTime(q *Point, s []byte) jacobianPoint {
	var table [1 << (pubWindow - 2)]jacobianPoint
	oddMultiples(&table, q)
	var digits wnafDigits
	n := wnaf(&digits, s, pubWindow)
	var acc jacobianPoint
	acc.x.One()
	acc.y.One()
	for i := n - 1; i >= 0; i-- {
		if i != n-1 {
			acc.double(&acc)
		}
		if d := digits[i]; d != 0 {
			addDigit(&acc, &table, d)
		}
	}
	return acc
}

// ScalarMultVarTime sets p = s·q and returns p. It takes variable time and
// must only be used when s and q are public.
func (p *Point) ScalarMultVarTime(q *Point, s []byte) (*Point, error) {
	if len(s) != 32 {
		return nil, errScalarLength
	}
	acc := scalarMultVarTime(q, s)
	acc.toProjective(p)
	return p, nil
}

//go:embed p256_wnaf_table.bin
var wnafTableBytes []byte

// genWindow is the NAF width for G in verification. Its table of odd
// multiples is fixed, so it can be much larger than the public key's: 64
// affine points (4 KiB) per chunk cut the additions for G from about 256/6
// to 256/9.
const genWindow = 8

// genEntries is the number of odd multiples per chunk of the G table.
const genEntries = 1 << (genWindow - 2)

var (
	// genTable[k] holds the odd multiples of 2^(64k)·G flat as x, y pairs:
	// chunk 0 serves the whole 256-bit G scalar, all four chunks serve the
	// scalar split into 64-bit parts (see DoubleScalarMultTableVarTime).
	genTable     *[tableChunks][2 * genEntries]field.Element
	genTableOnce sync.Once
)

func getGenTable() *[tableChunks][2 * genEntries]field.Element {
	genTableOnce.Do(func() {
		t := new([tableChunks][2 * genEntries]field.Element)
		b := wnafTableBytes
		for k := range t {
			for i := range t[k] {
				if _, err := t[k][i].SetBytes(b[:32]); err != nil {
					panic("sm2ec: corrupt wNAF table")
				}
				b = b[32:]
			}
		}
		genTable = t
	})
	return genTable
}

// doubleScalarMultVarTime returns s·G + t·q in Jacobian coordinates, with
// one chain of doublings shared by a width-5 NAF of t and a width-8 NAF of
// s over the fixed table.
func doubleScalarMultVarTime(s []byte, q *Point, t []byte) jacobianPoint {
	gt := getGenTable()
	var table [1 << (pubWindow - 2)]jacobianPoint
	oddMultiples(&table, q)
	var ds, dt wnafDigits
	n := max(wnaf(&ds, s, genWindow), wnaf(&dt, t, pubWindow))
	var acc jacobianPoint
	acc.x.One()
	acc.y.One()
	for i := n - 1; i >= 0; i-- {
		if i != n-1 {
			acc.double(&acc)
		}
		if d := dt[i]; d != 0 {
			addDigit(&acc, &table, d)
		}
		if d := ds[i]; d != 0 {
			addAffineDigit(&acc, gt[0][:], d)
		}
	}
	return acc
}

// DoubleScalarMultVarTime sets p = s·G + t·q and returns p. It takes
// variable time and exists for signature verification, where s, t and q are
// all public.
func (p *Point) DoubleScalarMultVarTime(s []byte, q *Point, t []byte) (*Point, error) {
	if len(s) != 32 || len(t) != 32 {
		return nil, errScalarLength
	}
	acc := doubleScalarMultVarTime(s, q, t)
	acc.toProjective(p)
	return p, nil
}
