package main

// Point formulas of primitives/sm2/internal/sm2ec in Jacobian coordinates
// (x = X/Z², y = Y/Z³) over the field emitters of fe.go, each a single
// function: the inputs are read through SI and DI, every intermediate lives
// in a 32-byte stack slot, and the result is copied out at the end, so the
// output may alias an input. The formulas, and the reasons for choosing
// them, are those of jacobian.go, whose Go code they follow step by step.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// frame hands out 32-byte stack slots for field elements.
type frame struct {
	base   Mem
	n, max int
}

func newFrame(slots int) *frame {
	return &frame{base: AllocLocal(32 * slots), max: slots}
}

func (f *frame) slot() Mem {
	if f.n == f.max {
		panic("frame: out of slots")
	}
	m := f.base.Offset(32 * f.n)
	f.n++
	return m
}

// Memory-to-memory field operations. Each loads its operands, computes in
// t0…t7, AX, BX, DX (CX for products) and stores the result, so operands may
// alias the destination.

// interleave, when set, is called after every field multiplication and
// squaring, to weave independent code (a table scan on vector registers)
// into the integer instruction stream.
var interleave func()

// baseEntries is the number of points per window of the fixed-base table
// (sm2ec.baseEntries).
const baseEntries = 64

func fMul(fl flavor, dst, a, b Mem) {
	store(mul(fl, a, b), dst)
	if interleave != nil {
		interleave()
	}
}

func fSqr(fl flavor, dst, a Mem) {
	store(sqr(fl, a), dst)
	if interleave != nil {
		interleave()
	}
}

// fMulSubMul sets dst = a·b - c·d mod p with a single Montgomery reduction:
// the 512-bit c·d is kept in tmp (64 bytes), subtracted from a·b, and p·2^256
// added back on a borrow, which leaves the difference in [0, p·2^256) where
// the reduction's result is below 2p as usual. It saves a reduction and a
// subtraction against two multiplications and fSub.
func fMulSubMul(fl flavor, dst, a, b, c, d, tmp Mem) {
	if fl == adx {
		productADX(c, d)
	} else {
		productMULQ(c, d)
	}
	for i := range 8 {
		MOVQ(t[i], tmp.Offset(8*i))
	}
	if fl == adx {
		productADX(a, b)
	} else {
		productMULQ(a, b)
	}
	Comment("t = a·b - c·d, plus p·2^256 on a borrow")
	SUBQ(tmp, t[0])
	for i := 1; i < 8; i++ {
		SBBQ(tmp.Offset(8*i), t[i])
	}
	SBBQ(RAX, RAX)
	MOVQ(pLimb(1), RBX)
	ANDQ(RAX, RBX)
	MOVQ(pLimb(3), RDX)
	ANDQ(RAX, RDX)
	ADDQ(RAX, t[4])
	ADCQ(RBX, t[5])
	ADCQ(RAX, t[6])
	ADCQ(RDX, t[7])
	store(reduce(fl), dst)
	if interleave != nil {
		interleave()
	}
}

// fMulSub sets dst = a·b - v mod p (a·a for fSqrSub): subtracting the
// reduced v from the Montgomery product is subtracting v·2^256 from the
// 512-bit product, that is v from its high half, with p added back on a
// borrow; the reduction then proceeds as usual. It saves the loads, stores
// and final subtraction of a separate fSub.
func fMulSub(fl flavor, dst, a, b, v Mem) {
	if fl == adx {
		productADX(a, b)
	} else {
		productMULQ(a, b)
	}
	subHigh(fl, dst, v)
}

func fSqrSub(fl flavor, dst, a, v Mem) {
	if fl == adx {
		squareADX(a)
	} else {
		squareMULQ(a)
	}
	subHigh(fl, dst, v)
}

func subHigh(fl flavor, dst, v Mem) {
	Comment("t -= v·2^256, plus p·2^256 on a borrow")
	SUBQ(limb(v, 0), t[4])
	SBBQ(limb(v, 1), t[5])
	SBBQ(limb(v, 2), t[6])
	SBBQ(limb(v, 3), t[7])
	SBBQ(RAX, RAX)
	MOVQ(pLimb(1), RBX)
	ANDQ(RAX, RBX)
	MOVQ(pLimb(3), RDX)
	ANDQ(RAX, RDX)
	ADDQ(RAX, t[4])
	ADCQ(RBX, t[5])
	ADCQ(RAX, t[6])
	ADCQ(RDX, t[7])
	store(reduce(fl), dst)
	if interleave != nil {
		interleave()
	}
}

// fAdd sets dst = a + b mod p.
func fAdd(dst, a, b Mem) {
	v := fe{t[0], t[1], t[2], t[3]}
	load(a, v)
	ADDQ(limb(b, 0), v[0])
	ADCQ(limb(b, 1), v[1])
	ADCQ(limb(b, 2), v[2])
	ADCQ(limb(b, 3), v[3])
	MOVQ(U32(0), RAX)
	ADCQ(Imm(0), RAX)
	store(finalSub(v, RAX, fe{t[4], t[5], t[6], t[7]}), dst)
}

// fSub sets dst = a - b mod p: on a borrow, p is added back, masked in.
func fSub(dst, a, b Mem) {
	v := fe{t[0], t[1], t[2], t[3]}
	load(a, v)
	SUBQ(limb(b, 0), v[0])
	SBBQ(limb(b, 1), v[1])
	SBBQ(limb(b, 2), v[2])
	SBBQ(limb(b, 3), v[3])
	SBBQ(RAX, RAX) // all ones on a borrow
	addMaskedP(v, RAX)
	store(v, dst)
}

// addMaskedP adds p & mask to v, modulo 2^256.
func addMaskedP(v fe, mask GPPhysical) {
	MOVQ(pLimb(1), t[5])
	ANDQ(mask, t[5])
	MOVQ(pLimb(3), t[7])
	ANDQ(mask, t[7])
	ADDQ(mask, v[0])
	ADCQ(t[5], v[1])
	ADCQ(mask, v[2])
	ADCQ(t[7], v[3])
}

// fHalf sets dst = a/2 mod p: (a + p)/2 for odd a, a/2 for even a.
func fHalf(dst, a Mem) {
	v := fe{t[0], t[1], t[2], t[3]}
	load(a, v)
	MOVQ(v[0], RAX)
	ANDQ(Imm(1), RAX)
	NEGQ(RAX)
	MOVQ(pLimb(1), t[5])
	ANDQ(RAX, t[5])
	MOVQ(pLimb(3), t[7])
	ANDQ(RAX, t[7])
	ADDQ(RAX, v[0])
	ADCQ(t[5], v[1])
	ADCQ(RAX, v[2])
	ADCQ(t[7], v[3])
	MOVQ(U32(0), RBX)
	ADCQ(Imm(0), RBX)
	SHRQ(Imm(1), v[1], v[0])
	SHRQ(Imm(1), v[2], v[1])
	SHRQ(Imm(1), v[3], v[2])
	SHRQ(Imm(1), RBX, v[3])
	store(v, dst)
}

func fCopy(dst, src Mem) {
	v := fe{t[0], t[1], t[2], t[3]}
	load(src, v)
	store(v, dst)
}

// orLimbs sets r to the OR of the limbs of a (zero iff a = 0, as elements are
// fully reduced).
func orLimbs(a Mem, r GPPhysical) {
	MOVQ(limb(a, 0), r)
	ORQ(limb(a, 1), r)
	ORQ(limb(a, 2), r)
	ORQ(limb(a, 3), r)
}

// jacobian operands: X, Y, Z at offsets 0, 32, 64.
func coord(p Mem, i int) Mem { return p.Offset(32 * i) }

// emitDouble emits in-place doubling of the point in the slots x, y, z,
// using the scratch slots of fr. It is dbl-2001-b rearranged around 2Y
// (4M+4S), see jacobian.go.
func emitDouble(fl flavor, x, y, z Mem, s [7]Mem) {
	delta, y2, gamma4, beta4, alpha, tmp := s[0], s[1], s[2], s[3], s[4], s[5]
	fSqr(fl, delta, z)
	fAdd(y2, y, y)
	fSqr(fl, gamma4, y2)
	fMul(fl, beta4, x, gamma4)
	// alpha = 3(X - delta)(X + delta); x's slot is free after this.
	fSub(alpha, x, delta)
	fAdd(delta, x, delta)
	fMul(fl, alpha, alpha, delta)
	fAdd(delta, alpha, alpha)
	fAdd(alpha, alpha, delta)
	// Z3 = 2Y·Z
	fMul(fl, z, y2, z)
	// X3 = alpha² - 2·beta'
	fAdd(y2, beta4, beta4)
	fSqrSub(fl, x, alpha, y2)
	// Y3 = alpha·(beta' - X3) - gamma'²/2
	fSub(beta4, beta4, x)
	fHalf(delta, gamma4)
	fMulSubMul(fl, y, alpha, beta4, gamma4, delta, tmp)
}

func pointKernels() {
	for _, fl := range []flavor{adx, mulq} {
		sfx := fl.suffix()
		// The point formulas, the fused fixed-base step among them, are
		// bound by throughput: they take the MULX reduction (see
		// mulxReduce).
		mulxReduce = true

		TEXT("pointDouble"+sfx, 0, "func(out, a *[12]uint64, n int)")
		Pragma("noescape")
		Doc("pointDouble" + sfx + " sets out = 2^n·a (n ≥ 1 doublings), mapping the identity to itself.")
		{
			fr := newFrame(10)
			x, y, z := fr.slot(), fr.slot(), fr.slot()
			s := [7]Mem{fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot()}
			Load(Param("a"), RSI)
			Load(Param("n"), RDI)
			fCopy(x, coord(Mem{Base: RSI}, 0))
			fCopy(y, coord(Mem{Base: RSI}, 1))
			fCopy(z, coord(Mem{Base: RSI}, 2))
			Label("dblLoop" + sfx)
			emitDouble(fl, x, y, z, s)
			DECQ(RDI)
			JNZ(LabelRef("dblLoop" + sfx))
			Load(Param("out"), RDI)
			fCopy(coord(Mem{Base: RDI}, 0), x)
			fCopy(coord(Mem{Base: RDI}, 1), y)
			fCopy(coord(Mem{Base: RDI}, 2), z)
			RET()
		}

		TEXT("pointAdd"+sfx, 0, "func(out, a, b *[12]uint64) int")
		Pragma("noescape")
		Doc("pointAdd"+sfx+" sets out = a + b (add-1998-cmo-2, 12M+4S) and returns 1 if",
			"a and b are the same point other than the identity, when out is wrong;",
			"see jacobianPoint.add.")
		{
			fr := newFrame(16)
			Load(Param("a"), RSI)
			Load(Param("b"), RDI)
			a, b := Mem{Base: RSI}, Mem{Base: RDI}
			x3, y3, z3 := emitAdd(fl, fr, coord(a, 0), coord(a, 1), coord(a, 2), coord(b, 0), coord(b, 1), coord(b, 2), true)
			Load(Param("out"), RDI)
			copyPoint(Mem{Base: RDI}, x3, y3, z3)
			RET()
		}

		TEXT("pointAddAffine"+sfx, 0, "func(out, a *[12]uint64, b *[8]uint64) int")
		Pragma("noescape")
		Doc("pointAddAffine"+sfx+" sets out = a + b for an affine b (madd-2004-hmv, 8M+3S)",
			"and returns 1 if a == b, when out is wrong; the identity a gives a wrong",
			"result too. See jacobianPoint.addAffine.")
		{
			fr := newFrame(12)
			Load(Param("a"), RSI)
			Load(Param("b"), RDI)
			a, b := Mem{Base: RSI}, Mem{Base: RDI}
			x3, y3, z3 := emitAddAffine(fl, fr, coord(a, 0), coord(a, 1), coord(a, 2), coord(b, 0), coord(b, 1), true)
			Load(Param("out"), RDI)
			copyPoint(Mem{Base: RDI}, x3, y3, z3)
			RET()
		}

		TEXT("pointAddSelect"+sfx, 0, "func(p, t *[12]uint64, neg, keep int)")
		Pragma("noescape")
		Doc("pointAddSelect"+sfx+" is jacobianPoint.addSelectGeneric: one window step of a",
			"constant-time multiplication.")
		{
			fr := newFrame(18)
			ty, zero := fr.slot(), fr.slot()
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			a, b := Mem{Base: RSI}, Mem{Base: RDI}
			condNeg(ty, coord(b, 1), zero)
			x3, y3, z3 := emitAdd(fl, fr, coord(a, 0), coord(a, 1), coord(a, 2), coord(b, 0), ty, coord(b, 2), false)
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			selectResult(Mem{Base: RSI}, [3]Mem{x3, y3, z3}, [3]Mem{coord(Mem{Base: RDI}, 0), ty, coord(Mem{Base: RDI}, 2)})
			RET()
		}

		TEXT("pointAddAffineSelect"+sfx, 0, "func(p *[12]uint64, t *[8]uint64, neg, keep int)")
		Pragma("noescape")
		Doc("pointAddAffineSelect"+sfx+" is jacobianPoint.addAffineSelectGeneric: one window",
			"step of a constant-time fixed-base multiplication.")
		{
			fr := newFrame(15)
			ty, zero, one := fr.slot(), fr.slot(), fr.slot()
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			a, b := Mem{Base: RSI}, Mem{Base: RDI}
			condNeg(ty, coord(b, 1), zero)
			x3, y3, z3 := emitAddAffine(fl, fr, coord(a, 0), coord(a, 1), coord(a, 2), coord(b, 0), ty, false)
			// one = R mod p, the Montgomery form of 1.
			for i, v := range []uint64{1, 0xffffffff, 0, 0x100000000} {
				MOVQ(U64(v), RAX)
				MOVQ(RAX, limb(one, i))
			}
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			selectResult(Mem{Base: RSI}, [3]Mem{x3, y3, z3}, [3]Mem{coord(Mem{Base: RDI}, 0), ty, one})
			RET()
		}

		TEXT("pointAddComplete"+sfx, 0, "func(p, t *[12]uint64, neg, keep int)")
		Pragma("noescape")
		Doc("pointAddComplete"+sfx+" is jacobianPoint.addCompleteGeneric: a window step on",
			"the unified formula, right for every accumulator.")
		{
			fr := newFrame(26)
			ty, zero := fr.slot(), fr.slot()
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			a, b := Mem{Base: RSI}, Mem{Base: RDI}
			condNeg(ty, coord(b, 1), zero)
			x3, y3, z3 := emitAddUnified(fl, fr, coord(a, 0), coord(a, 1), coord(a, 2), coord(b, 0), ty, coord(b, 2))
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			selectResult(Mem{Base: RSI}, [3]Mem{x3, y3, z3}, [3]Mem{coord(Mem{Base: RDI}, 0), ty, coord(Mem{Base: RDI}, 2)})
			RET()
		}

		TEXT("pointAddAffineComplete"+sfx, 0, "func(p *[12]uint64, t *[8]uint64, neg, keep int)")
		Pragma("noescape")
		Doc("pointAddAffineComplete"+sfx+" is jacobianPoint.addAffineCompleteGeneric: a",
			"window step on the unified mixed formula, right for every accumulator.")
		{
			fr := newFrame(24)
			ty, zero, one := fr.slot(), fr.slot(), fr.slot()
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			a, b := Mem{Base: RSI}, Mem{Base: RDI}
			condNeg(ty, coord(b, 1), zero)
			x3, y3, z3 := emitAddAffineUnified(fl, fr, coord(a, 0), coord(a, 1), coord(a, 2), coord(b, 0), ty)
			for i, v := range []uint64{1, 0xffffffff, 0, 0x100000000} {
				MOVQ(U64(v), RAX)
				MOVQ(RAX, limb(one, i))
			}
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			selectResult(Mem{Base: RSI}, [3]Mem{x3, y3, z3}, [3]Mem{coord(Mem{Base: RDI}, 0), ty, one})
			RET()
		}

		for _, wide := range []bool{false, true} {
			if fl != adx {
				break
			}
			vec := "AVX2"
			if wide {
				vec = "AVX512"
			}
			name := "pointAddAffineNegLookup" + vec + "ADX"
			TEXT(name, 0, "func(p *[12]uint64, t *[8]uint64, neg int, next *[8]uint64, table *[8]uint64, idx uint64)")
			Pragma("noescape")
			Doc(name+" sets p = p + t, or p - t if neg is 1, with the incomplete",
				"mixed addition (the window step of ScalarBaseMult, whose odd digits",
				"need no selection), followed by lookupAffine"+vec+"(next, table, baseEntries,",
				"idx), with the table scan woven into the field arithmetic so that it runs",
				"on the vector units meanwhile.")
			fr := newFrame(14)
			ty, zero := fr.slot(), fr.slot()
			scan := newInterleavedScan(baseEntries, wide)
			scan.start()
			interleave = scan.chunk
			Load(Param("p"), RSI)
			Load(Param("t"), RDI)
			a, b := Mem{Base: RSI}, Mem{Base: RDI}
			condNeg(ty, coord(b, 1), zero)
			x3, y3, z3 := emitAddAffine(fl, fr, coord(a, 0), coord(a, 1), coord(a, 2), coord(b, 0), ty, false)
			interleave = nil
			Load(Param("p"), RSI)
			copyPoint(Mem{Base: RSI}, x3, y3, z3)
			scan.finish()
			RET()
		}
	}
	mulxReduce = false
}

// emitAdd emits the Jacobian addition a + b (add-1998-cmo-2) over the given
// coordinates, with scratch slots from fr, and returns the slots of the
// result. With flag it stores the equality flag as the return value.
func emitAdd(fl flavor, fr *frame, ax, ay, az, bx, by, bz Mem, flag bool) (x3, y3, z3 Mem) {
	z1z1, z2z2, u1, _, s1, s2, h, r := fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot()
	hh, hhh, v, tt := fr.slot(), fr.slot(), fr.slot(), fr.slot()
	x3, z3 = fr.slot(), fr.slot()
	y3 = v
	tmp := fr.slot()
	fr.slot() // second half of tmp
	fSqr(fl, z1z1, az)
	fSqr(fl, z2z2, bz)
	fMul(fl, u1, ax, z2z2)
	fMul(fl, s1, ay, bz)
	fMul(fl, s1, s1, z2z2)
	fMul(fl, s2, by, az)
	fMulSub(fl, h, bx, z1z1, u1)
	fMulSub(fl, r, s2, z1z1, s1)
	if flag {
		equalFlag(h, r, az, bz)
	}
	fSqr(fl, hh, h)
	fMul(fl, hhh, h, hh)
	fMul(fl, v, u1, hh)
	fMul(fl, tt, az, bz)
	fMul(fl, z3, tt, h)
	fSqrSub(fl, tt, r, hhh)
	fAdd(u1, v, v)
	fSub(x3, tt, u1)
	fSub(v, v, x3)
	fMulSubMul(fl, y3, v, r, s1, hhh, tmp)
	return x3, y3, z3
}

// emitAddAffine emits the mixed addition a + (bx, by) (madd-2004-hmv) and
// returns the slots of the result; see emitAdd.
func emitAddAffine(fl flavor, fr *frame, ax, ay, az, bx, by Mem, flag bool) (x3, y3, z3 Mem) {
	z1z1, u2, s2, h, r, hh, hhh, v, tmp, _, tt := fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot()
	z3 = fr.slot()
	fSqr(fl, z1z1, az)
	fMul(fl, s2, by, az)
	fMulSub(fl, h, bx, z1z1, ax)
	fMulSub(fl, r, s2, z1z1, ay)
	if flag {
		equalFlag(h, r, az, Mem{})
	}
	fSqr(fl, hh, h)
	fMul(fl, hhh, h, hh)
	fMul(fl, v, ax, hh)
	fMul(fl, z3, az, h)
	fSqrSub(fl, tt, r, hhh)
	fAdd(u2, v, v)
	fSub(tt, tt, u2)
	fSub(v, v, tt)
	fMulSubMul(fl, v, v, r, ay, hhh, tmp)
	return tt, v, z3
}

// emitAddUnified emits the unified addition a + b of jacobian.go
// (addUnifiedGeneric), right for all a, b other than the identity, and
// returns the slots of the result.
func emitAddUnified(fl flavor, fr *frame, ax, ay, az, bx, by, bz Mem) (x3, y3, z3 Mem) {
	z1z1, z2z2, u1, u2, s1, s2, zc, zc4 := fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot()
	// b's own values first, then those of a's Z, and a's X and Y (the
	// last to be ready after a previous operation) last.
	fSqr(fl, z2z2, bz)
	fMul(fl, s1, bz, z2z2)
	fSqr(fl, z1z1, az)
	fMul(fl, u2, bx, z1z1)
	fMul(fl, s2, by, az)
	fMul(fl, s2, s2, z1z1)
	fMul(fl, zc, az, bz)
	fSqr(fl, zc4, zc)
	fSqr(fl, zc4, zc4)
	fMul(fl, u1, ax, z2z2)
	fMul(fl, s1, ay, s1)
	return emitUnifiedTail(fl, fr, u1, u2, s1, s2, zc, zc4)
}

// emitAddAffineUnified is emitAddUnified for an affine b
// (addAffineUnifiedGeneric).
func emitAddAffineUnified(fl flavor, fr *frame, ax, ay, az, bx, by Mem) (x3, y3, z3 Mem) {
	z1z1, u2, s2, zc4 := fr.slot(), fr.slot(), fr.slot(), fr.slot()
	fSqr(fl, z1z1, az)
	fMul(fl, u2, bx, z1z1)
	fMul(fl, s2, by, az)
	fMul(fl, s2, s2, z1z1)
	fSqr(fl, zc4, z1z1)
	return emitUnifiedTail(fl, fr, ax, u2, ay, s2, az, zc4)
}

// emitUnifiedTail is jacobianPoint.unifiedTail: the unified slope N/M, or
// the chord's (S1 - S2)/(U1 - U2) when N = M = 0, selected without
// branches, and the result from it. None of the inputs is written.
func emitUnifiedTail(fl flavor, fr *frame, u1, u2, s1, s2, zc, zc4 Mem) (x3, y3, z3 Mem) {
	tt, n, bigM, t0, t1, m, m2, q := fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot(), fr.slot()
	x3, z3, flag := fr.slot(), fr.slot(), fr.slot()
	tmp := fr.slot()
	fr.slot() // second half of tmp
	y3 = t1
	fAdd(tt, u1, u2)
	// N = T² - U1·U2 - 3Z⁴
	fMulSubMul(fl, n, tt, tt, u1, u2, tmp)
	fAdd(t0, zc4, zc4)
	fAdd(t0, t0, zc4)
	fSub(n, n, t0)
	fAdd(bigM, s1, s2)
	Comment("flag = all ones if N == 0 && M == 0")
	orLimbs(n, RAX)
	orLimbs(bigM, RBX)
	ORQ(RBX, RAX)
	XORL(EDX, EDX)
	TESTQ(RAX, RAX)
	SETEQ(DL)
	NEGQ(RDX)
	MOVQ(RDX, flag)
	fSub(t0, s1, s2)
	fSub(t1, u1, u2)
	selectSlot(n, t0, n, flag)
	selectSlot(m, t1, bigM, flag)
	// Z3 = m·Z
	fMul(fl, z3, m, zc)
	// X3 = n² - T·m²
	fSqr(fl, m2, m)
	fMul(fl, q, tt, m2)
	fSqrSub(fl, x3, n, q)
	// Y3 = (n·(Q - 2X3) - M·m³)/2, M·m³ = m⁴ or 0 (when M = 0)
	fAdd(t0, x3, x3)
	fSub(t0, q, t0)
	fSqr(fl, m2, m2)
	Comment("m⁴ = 0 on the chord")
	v := fe{t[0], t[1], t[2], t[3]}
	load(m2, v)
	MOVQ(flag, RAX)
	NOTQ(RAX)
	for i := range 4 {
		ANDQ(RAX, v[i])
	}
	store(v, m2)
	fMulSub(fl, y3, n, t0, m2)
	fHalf(y3, y3)
	return x3, y3, z3
}

// selectSlot sets dst = a if the 64-bit word at flag is nonzero and dst = b
// otherwise, without branches.
func selectSlot(dst, a, b, flag Mem) {
	v := fe{t[0], t[1], t[2], t[3]}
	w := fe{t[4], t[5], t[6], t[7]}
	load(b, v)
	load(a, w)
	CMPQ(flag, Imm(0))
	for i := range 4 {
		CMOVQNE(w[i], v[i])
	}
	store(v, dst)
}

func copyPoint(out, x, y, z Mem) {
	fCopy(coord(out, 0), x)
	fCopy(coord(out, 1), y)
	fCopy(coord(out, 2), z)
}

// condNeg sets dst = -src mod p if the parameter neg is 1 and dst = src if
// it is 0, using zero as a scratch slot.
func condNeg(dst, src, zero Mem) {
	for i := range 4 {
		MOVQ(U32(0), limb(zero, i))
	}
	fSub(dst, zero, src)
	load(dst, fe{t[0], t[1], t[2], t[3]})
	load(src, fe{t[4], t[5], t[6], t[7]})
	CMPQ(NewParamAddr("neg", 16), Imm(0))
	for i := range 4 {
		CMOVQEQ(t[4+i], t[i])
	}
	store(fe{t[0], t[1], t[2], t[3]}, dst)
}

// selectResult writes to the point p, without branches: p itself if the
// parameter keep is 1, else t if p is the identity, else sum.
func selectResult(p Mem, sum, alt [3]Mem) {
	Comment("p = keep ? p : (p is the identity ? t : sum)")
	orLimbs(coord(p, 2), RBX)
	for c := range 3 {
		v := fe{t[0], t[1], t[2], t[3]}
		w := fe{t[4], t[5], t[6], t[7]}
		load(sum[c], v)
		load(alt[c], w)
		TESTQ(RBX, RBX)
		for i := range 4 {
			CMOVQEQ(w[i], v[i])
		}
		load(coord(p, c), w)
		CMPQ(NewParamAddr("keep", 24), Imm(0))
		for i := range 4 {
			CMOVQNE(w[i], v[i])
		}
		store(v, coord(p, c))
	}
}

// equalFlag stores into the return value 1 if h = r = 0 and z1 (and z2,
// unless it is the zero Mem) are nonzero, and 0 otherwise, without
// branches.
func equalFlag(h, r, z1, z2 Mem) {
	Comment("equal = h == 0 && r == 0 && Z1 != 0 && Z2 != 0")
	orLimbs(h, RAX)
	orLimbs(r, RBX)
	ORQ(RBX, RAX)
	XORL(EDX, EDX)
	TESTQ(RAX, RAX)
	SETEQ(DL)
	orLimbs(z1, RAX)
	XORL(EBX, EBX)
	TESTQ(RAX, RAX)
	SETNE(BL)
	ANDQ(RBX, RDX)
	if z2 != (Mem{}) {
		orLimbs(z2, RAX)
		XORL(EBX, EBX)
		TESTQ(RAX, RAX)
		SETNE(BL)
		ANDQ(RBX, RDX)
	}
	Store(RDX, ReturnIndex(0))
}

// interleavedScan emits a table scan of n affine entries (from the
// parameters next, table and idx) in pieces: start before the host code,
// chunk at each hook, finish at the end. Between pieces it keeps its state
// in vector registers (Y/Z13-15: step, counter, index; Y0-Y1 or Z0: the
// result); the table pointer is reloaded into AX for each piece, as the
// host code owns every integer register. wide selects AVX-512 (one ZMM and
// an opmask per entry) over AVX2.
type interleavedScan struct {
	n, done, per int
	wide         bool
}

func newInterleavedScan(n int, wide bool) *interleavedScan {
	// madd has 11 multiplications and squarings: spread the entries over
	// them, a few more in each than needed so that the scan ends early.
	return &interleavedScan{n: n, per: (n + 9) / 10, wide: wide}
}

func (s *interleavedScan) start() {
	idx, err := Param("idx").Resolve()
	if err != nil {
		panic(err)
	}
	if s.wide {
		VPBROADCASTQ(idx.Addr, Z15)
		MOVQ(U32(1), RAX)
		VPBROADCASTQ(RAX, Z14)
		VMOVDQA64(Z14, Z13)
		VPXORQ(Z0, Z0, Z0)
		return
	}
	VPBROADCASTQ(idx.Addr, Y15)
	MOVQ(U32(1), RAX)
	// VMOVQ, not MOVQ: a legacy-SSE write to an XMM register while the
	// upper halves of the YMM registers are dirty (Y15 just above)
	// stalls for longer than the whole scan takes on the AMD EPYC of
	// examples/bench/README.md ("Design measurements").
	VMOVQ(RAX, X14)
	VPBROADCASTQ(X14, Y14)
	VMOVDQU(Y14, Y13)
	VPXOR(Y0, Y0, Y0)
	VPXOR(Y1, Y1, Y1)
}

func (s *interleavedScan) chunk() {
	if s.done == s.n {
		return
	}
	k := min(s.per, s.n-s.done)
	Load(Param("table"), RAX)
	for e := s.done; e < s.done+k; e++ {
		if s.wide {
			VPCMPEQQ(Z14, Z15, K1)
			VPADDQ(Z13, Z14, Z14)
			VMOVDQU64(Mem{Base: RAX}.Offset(64*e), Z2)
			VMOVDQA64(Z2, K1, Z0)
			continue
		}
		VPCMPEQQ(Y14, Y15, Y12)
		VPADDQ(Y13, Y14, Y14)
		VPAND(Mem{Base: RAX}.Offset(64*e), Y12, Y10)
		VPOR(Y10, Y0, Y0)
		VPAND(Mem{Base: RAX}.Offset(64*e+32), Y12, Y11)
		VPOR(Y11, Y1, Y1)
	}
	s.done += k
}

func (s *interleavedScan) finish() {
	for s.done < s.n {
		s.chunk()
	}
	Load(Param("next"), RAX)
	if s.wide {
		VMOVDQU64(Z0, Mem{Base: RAX})
	} else {
		VMOVDQU(Y0, Mem{Base: RAX})
		VMOVDQU(Y1, Mem{Base: RAX}.Offset(32))
	}
	VZEROUPPER()
}
