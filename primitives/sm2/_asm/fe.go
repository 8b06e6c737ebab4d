package main

// Emitters for arithmetic modulo p = 2^256 - 2^224 - 2^96 + 2^64 - 1 on
// elements in the Montgomery domain (R = 2^256), four little-endian 64-bit
// limbs, always fully reduced (below p), the representation of
// primitives/sm2/internal/field.
//
// Register conventions shared by every emitter here:
//
//	R8-R15   the accumulator t0…t7 of a 512-bit product
//	AX BX DX scratch (DX is the implicit MULX/MULQ operand)
//	CX       scratch; zero while an ADX product runs (ADCX/ADOX have no
//	         immediate form)
//	SI DI    left alone: callers keep pointers or counters there
//
// Operands are memory references (a pointer register or the stack), so that
// the point formulas in point.go can run entirely on stack temporaries.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// flavor selects the multiplication instructions.
type flavor int

const (
	// adx uses MULX with the two carry chains of ADCX (CF) and ADOX (OF)
	// (BMI2 and ADX).
	adx flavor = iota
	// mulq uses MULQ and ADD/ADC only, for CPUs without BMI2/ADX.
	mulq
)

func (f flavor) suffix() string {
	if f == adx {
		return "ADX"
	}
	return "MULQ"
}

var t = [8]GPPhysical{R8, R9, R10, R11, R12, R13, R14, R15}

// fe is a field element held in four registers, least significant first.
type fe [4]GPPhysical

func limb(m Mem, i int) Mem { return m.Offset(8 * i) }

// productADX sets t0…t7 = a·b.
func productADX(a, b Mem) {
	Comment("t = a·b, rows of a[i]·b with ADCX (low halves) and ADOX (high halves)")
	XORQ(RCX, RCX)
	MOVQ(limb(a, 0), RDX)
	MULXQ(limb(b, 0), t[0], t[1])
	MULXQ(limb(b, 1), RAX, t[2])
	ADDQ(RAX, t[1])
	MULXQ(limb(b, 2), RAX, t[3])
	ADCQ(RAX, t[2])
	MULXQ(limb(b, 3), RAX, t[4])
	ADCQ(RAX, t[3])
	ADCQ(Imm(0), t[4])
	for i := 1; i < 4; i++ {
		MOVQ(limb(a, i), RDX)
		XORQ(t[i+4], t[i+4]) // also clears CF and OF
		for j := 0; j < 4; j++ {
			MULXQ(limb(b, j), RAX, RBX)
			ADCXQ(RAX, t[i+j])
			ADOXQ(RBX, t[i+j+1])
		}
		ADCXQ(RCX, t[i+4])
	}
}

// productMULQ sets t0…t7 = a·b with MULQ, one row of a[i]·b at a time,
// carrying the high word of each product in BX.
func productMULQ(a, b Mem) {
	Comment("t = a·b, rows of a[i]·b with MULQ")
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			MOVQ(limb(b, j), RAX)
			MULQ(limb(a, i))
			switch {
			case i == 0 && j == 0:
				MOVQ(RAX, t[0])
				MOVQ(RDX, RBX)
			case i == 0:
				ADDQ(RBX, RAX)
				ADCQ(Imm(0), RDX)
				MOVQ(RAX, t[j])
				MOVQ(RDX, RBX)
			case j == 0:
				ADDQ(RAX, t[i])
				ADCQ(Imm(0), RDX)
				MOVQ(RDX, RBX)
			default:
				ADDQ(RBX, t[i+j])
				ADCQ(Imm(0), RDX)
				ADDQ(RAX, t[i+j])
				ADCQ(Imm(0), RDX)
				MOVQ(RDX, RBX)
			}
		}
		MOVQ(RBX, t[i+4])
	}
}

// squareADX sets t0…t7 = a².
func squareADX(a Mem) {
	Comment("t = a², cross products once, then doubled (CF chain) while the squares are added (OF chain)")
	XORQ(RCX, RCX)
	MOVQ(limb(a, 0), RDX)
	MULXQ(limb(a, 1), t[1], t[2])
	MULXQ(limb(a, 2), RAX, t[3])
	ADDQ(RAX, t[2])
	MULXQ(limb(a, 3), RAX, t[4])
	ADCQ(RAX, t[3])
	ADCQ(Imm(0), t[4])

	MOVQ(limb(a, 1), RDX)
	XORQ(t[5], t[5])
	MULXQ(limb(a, 2), RAX, RBX)
	ADCXQ(RAX, t[3])
	ADOXQ(RBX, t[4])
	MULXQ(limb(a, 3), RAX, RBX)
	ADCXQ(RAX, t[4])
	ADOXQ(RBX, t[5])
	ADCXQ(RCX, t[5])

	MOVQ(limb(a, 2), RDX)
	MULXQ(limb(a, 3), RAX, t[6])
	ADDQ(RAX, t[5])
	ADCQ(Imm(0), t[6])

	XORQ(t[7], t[7])
	MOVQ(limb(a, 0), RDX)
	MULXQ(RDX, t[0], RAX)
	ADCXQ(t[1], t[1])
	ADOXQ(RAX, t[1])
	for i := 1; i < 4; i++ {
		MOVQ(limb(a, i), RDX)
		MULXQ(RDX, RAX, RBX)
		ADCXQ(t[2*i], t[2*i])
		ADOXQ(RAX, t[2*i])
		ADCXQ(t[2*i+1], t[2*i+1])
		ADOXQ(RBX, t[2*i+1])
	}
}

// squareMULQ sets t0…t7 = a² with MULQ.
func squareMULQ(a Mem) {
	Comment("t = a² with MULQ: cross products, doubled, plus the squares")
	// a0·(a1, a2, a3) at limbs 1…4.
	MOVQ(limb(a, 0), RAX)
	MULQ(limb(a, 1))
	MOVQ(RAX, t[1])
	MOVQ(RDX, t[2])
	MOVQ(limb(a, 0), RAX)
	MULQ(limb(a, 2))
	ADDQ(RAX, t[2])
	ADCQ(Imm(0), RDX)
	MOVQ(RDX, t[3])
	MOVQ(limb(a, 0), RAX)
	MULQ(limb(a, 3))
	ADDQ(RAX, t[3])
	ADCQ(Imm(0), RDX)
	MOVQ(RDX, t[4])
	// a1·(a2, a3) at limbs 3…5.
	MOVQ(limb(a, 1), RAX)
	MULQ(limb(a, 2))
	ADDQ(RAX, t[3])
	ADCQ(Imm(0), RDX)
	MOVQ(RDX, RBX)
	MOVQ(limb(a, 1), RAX)
	MULQ(limb(a, 3))
	ADDQ(RBX, t[4])
	ADCQ(Imm(0), RDX)
	ADDQ(RAX, t[4])
	ADCQ(Imm(0), RDX)
	MOVQ(RDX, t[5])
	// a2·a3 at limbs 5, 6.
	MOVQ(limb(a, 2), RAX)
	MULQ(limb(a, 3))
	ADDQ(RAX, t[5])
	ADCQ(Imm(0), RDX)
	MOVQ(RDX, t[6])
	// Double.
	XORQ(t[7], t[7])
	for i := 1; i < 7; i++ {
		if i == 1 {
			ADDQ(t[1], t[1])
		} else {
			ADCQ(t[i], t[i])
		}
	}
	ADCQ(Imm(0), t[7])
	// Add the squares a[i]² at limbs 2i, 2i+1. MULQ clobbers the flags, so
	// the carry between squares is kept in CX.
	MOVQ(limb(a, 0), RAX)
	MULQ(RAX)
	MOVQ(RAX, t[0])
	ADDQ(RDX, t[1])
	MOVQ(U32(0), RCX)
	ADCQ(Imm(0), RCX)
	for i := 1; i < 4; i++ {
		MOVQ(limb(a, i), RAX)
		MULQ(RAX)
		ADDQ(RCX, RAX)
		ADCQ(Imm(0), RDX)
		ADDQ(RAX, t[2*i])
		ADCQ(RDX, t[2*i+1])
		if i < 3 {
			MOVQ(U32(0), RCX)
			ADCQ(Imm(0), RCX)
		}
	}
}

// reduce sets t0…t3 = t·2^-256 mod p for the product t0…t7 of two reduced
// elements, fully reduced.
//
// Montgomery reduction one limb at a time: since p ≡ -1 mod 2^64 the
// quotient digit m of each step is the low limb itself, and adding m·p then
// dropping that limb adds m·(p+1)/2^64 = m·(2^192 - 2^160 - 2^32 + 1), which
// is m at limbs 0 and 3 less m·2^32 at limbs 0-1 and 2-3: shifts and
// add/subtract chains, no multiplication. The 4-limb window may pass 2^256
// between the two chains, but the step's result is below 2^256, so working
// modulo 2^256 is exact. The window rotates through t0…t3.
func reduce(f flavor) fe {
	Comment("Montgomery reduction of t0…t3 (p ≡ -1 mod 2^64: the quotient digit is the limb)")
	w := []GPPhysical{t[0], t[1], t[2], t[3]}
	if f == adx {
		MOVL(U32(32), ECX) // shift count for SHLX/SHRX (BMI2)
	}
	for range 4 {
		m := w[0]
		if f == adx && mulxReduce {
			// The amount added is w·(2^160 - 1) with w = m·(2^32 - 1),
			// as (p+1)/2^64 = (2^160 - 1)(2^32 - 1): w, 96 bits, comes
			// from one MULX, and the window (w1, w2, w3, m), which is the
			// old window plus m·2^192, less w and less m·2^160 = (m << 32)
			// at limb 2 and (m >> 32) at limb 3, is one borrow chain of
			// four: half the carry-flag instructions of the form below,
			// for more latency (the MULX is on the path from one digit to
			// the next). See mulxReduce.
			MOVQ(m, RDX)
			MULXQ(mask32(), RAX, RBX)
			SUBQ(RAX, w[1])
			SBBQ(RBX, w[2])
			SHLXQ(RCX, m, RAX)
			SHRXQ(RCX, m, RBX)
			SBBQ(RAX, w[3])
			SBBQ(RBX, m)
			w = append(w[1:], m)
			continue
		}
		if f == adx {
			SHLXQ(RCX, m, RAX)
			SHRXQ(RCX, m, RBX)
		} else {
			MOVQ(m, RAX)
			SHLQ(Imm(32), RAX)
			MOVQ(m, RBX)
			SHRQ(Imm(32), RBX)
		}
		ADDQ(m, w[1])
		ADCQ(Imm(0), w[2])
		ADCQ(Imm(0), w[3])
		ADCQ(Imm(0), m)
		SUBQ(RAX, w[1])
		SBBQ(RBX, w[2])
		SBBQ(RAX, w[3])
		SBBQ(RBX, m)
		w = append(w[1:], m)
	}
	Comment("Add the high half; the sum is below 2p")
	ADDQ(t[4], t[0])
	ADCQ(t[5], t[1])
	ADCQ(t[6], t[2])
	ADCQ(t[7], t[3])
	MOVQ(U32(0), RAX)
	ADCQ(Imm(0), RAX)
	return finalSub(fe{t[0], t[1], t[2], t[3]}, RAX, fe{t[4], t[5], t[6], t[7]})
}

var pData, mask32Data *Mem

// mulxReduce selects the reduction rounds with MULX (ADX flavour only),
// for the point formulas: they are bound by throughput (the out-of-order
// core already overlaps whatever a formula leaves independent), and there
// the MULX form is a little faster. A lone chain of squarings is bound by
// latency, where it is slower, so the field kernels keep the shift form.
// The measurements are in examples/bench/README.md ("Design measurements").
var mulxReduce bool

// mask32 returns a reference to the constant 2^32 - 1 in read-only data.
func mask32() Mem {
	if mask32Data == nil {
		m := GLOBL("mask32", RODATA|NOPTR)
		DATA(0, U64(0xffffffff))
		mask32Data = &m
	}
	return *mask32Data
}

// pLimb returns a reference to limb i of p in read-only data.
func pLimb(i int) Mem {
	if pData == nil {
		m := GLOBL("p", RODATA|NOPTR)
		for j, v := range []uint64{0xffffffffffffffff, 0xffffffff00000000, 0xffffffffffffffff, 0xfffffffeffffffff} {
			DATA(8*j, U64(v))
		}
		pData = &m
	}
	return pData.Offset(8 * i)
}

// finalSub reduces the 257-bit value c:v, below 2p, to v mod p, using the
// four registers of tmp, and returns v.
func finalSub(v fe, c GPPhysical, tmp fe) fe {
	Comment("Subtract p if the value is at least p, in constant time")
	for i := range 4 {
		MOVQ(v[i], tmp[i])
	}
	SUBQ(I8(-1), tmp[0])
	SBBQ(pLimb(1), tmp[1])
	SBBQ(I8(-1), tmp[2])
	SBBQ(pLimb(3), tmp[3])
	SBBQ(Imm(0), c)
	for i := range 4 {
		CMOVQCC(tmp[i], v[i])
	}
	return v
}

// mul emits v = a·b·R⁻¹ mod p.
func mul(f flavor, a, b Mem) fe {
	if f == adx {
		productADX(a, b)
	} else {
		productMULQ(a, b)
	}
	return reduce(f)
}

// sqr emits v = a²·R⁻¹ mod p.
func sqr(f flavor, a Mem) fe {
	if f == adx {
		squareADX(a)
	} else {
		squareMULQ(a)
	}
	return reduce(f)
}

func store(v fe, m Mem) {
	for i := range 4 {
		MOVQ(v[i], limb(m, i))
	}
}

func load(m Mem, v fe) {
	for i := range 4 {
		MOVQ(limb(m, i), v[i])
	}
}

// fieldKernels emits the kernels of primitives/sm2/internal/field.
func fieldKernels() {
	for _, f := range []flavor{adx, mulq} {
		TEXT("feMul"+f.suffix(), NOSPLIT, "func(out, a, b *[4]uint64)")
		Pragma("noescape")
		Doc("feMul" + f.suffix() + " sets out = a·b·R⁻¹ mod p.")
		Load(Param("a"), RSI)
		Load(Param("b"), RDI)
		v := mul(f, Mem{Base: RSI}, Mem{Base: RDI})
		Load(Param("out"), RDI)
		store(v, Mem{Base: RDI})
		RET()

		TEXT("feSqr"+f.suffix(), NOSPLIT, "func(out, a *[4]uint64, n int)")
		Pragma("noescape")
		Doc("feSqr"+f.suffix()+" sets out = a^(2^n) in the Montgomery domain, n ≥ 1.",
			"Between squarings the value round-trips through a stack slot, which",
			"store-to-load forwarding (or memory renaming) makes cheap.")
		tmp := AllocLocal(32)
		Load(Param("a"), RSI)
		Load(Param("n"), RDI)
		v = sqr(f, Mem{Base: RSI})
		store(v, tmp)
		DECQ(RDI)
		JZ(LabelRef("sqrDone" + f.suffix()))
		Label("sqrLoop" + f.suffix())
		v = sqr(f, tmp)
		store(v, tmp)
		DECQ(RDI)
		JNZ(LabelRef("sqrLoop" + f.suffix()))
		Label("sqrDone" + f.suffix())
		Load(Param("out"), RSI)
		store(v, Mem{Base: RSI})
		RET()
	}
}
