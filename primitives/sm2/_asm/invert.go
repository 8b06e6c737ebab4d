package main

// The matrix updates of the safegcd inversion of
// primitives/sm2/internal/field (invert.go): after each batch of 60
// divsteps, (f, g) = T·(f, g)/2^60 and (d, e) = T·(d, e)/2^60 mod p, on
// numbers held as five signed 60-bit limbs (int60x5). The Go code builds
// each signed 64×64 → 128-bit product from an unsigned one and two sign
// corrections; here it is one IMULQ, which roughly halves the instruction
// count of an update. The arithmetic is otherwise that of the Go code, step
// by step, so that it can be read against it.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// acc128 is a signed 128-bit accumulator in two registers.
type acc128 struct{ hi, lo GPPhysical }

// mulAcc emits acc (+)= a·b, signed, with a loaded into AX (RDX:RAX is
// clobbered); set replaces acc instead of adding to it.
func mulAcc(acc acc128, a, b Mem, set bool) {
	MOVQ(a, RAX)
	IMULQ(b)
	if set {
		MOVQ(RAX, acc.lo)
		MOVQ(RDX, acc.hi)
		return
	}
	ADDQ(RAX, acc.lo)
	ADCQ(RDX, acc.hi)
}

// mulAccReg is mulAcc with a register a.
func mulAccReg(acc acc128, a GPPhysical, b Mem) {
	MOVQ(a, RAX)
	IMULQ(b)
	ADDQ(RAX, acc.lo)
	ADCQ(RDX, acc.hi)
}

// shr60 emits acc >>= 60 (arithmetic).
func shr60(acc acc128) {
	SHRQ(Imm(60), acc.hi, acc.lo)
	SARQ(Imm(60), acc.hi)
}

// storeLimb stores the low 60 bits of acc.lo to m, through CX.
func storeLimb(acc acc128, m Mem) {
	MOVQ(acc.lo, RCX)
	SHLQ(Imm(4), RCX)
	SHRQ(Imm(4), RCX)
	MOVQ(RCX, m)
}

// The matrix T = (u v; q r) at offsets 0, 8, 16, 24.
func tu(t GPPhysical) Mem { return Mem{Base: t} }
func tv(t GPPhysical) Mem { return Mem{Base: t, Disp: 8} }
func tq(t GPPhysical) Mem { return Mem{Base: t, Disp: 16} }
func tr(t GPPhysical) Mem { return Mem{Base: t, Disp: 24} }

var pSigned60Data *Mem

// pSigned60 returns a reference to limb i of p as five signed 60-bit limbs.
func pSigned60(i int) Mem {
	if pSigned60Data == nil {
		m := GLOBL("pSigned60", RODATA|NOPTR)
		for j, v := range []uint64{0xfffffffffffffff, 0xffffff00000000f, 0xfffffffffffffff, 0xfffefffffffffff, 0xffff} {
			DATA(8*j, U64(v))
		}
		pSigned60Data = &m
	}
	return pSigned60Data.Offset(8 * i)
}

func invertKernels() {
	divstepsKernel()
	TEXT("updateFGIMUL", NOSPLIT, "func(f, gv *[5]int64, t *[4]int64)")
	Pragma("noescape")
	Doc("updateFGIMUL is updateFGGeneric: (f, g) = T·(f, g) / 2^60, exactly.")
	{
		f, g, t := Load(Param("f"), RSI).(GPPhysical), Load(Param("gv"), RDI).(GPPhysical), Load(Param("t"), R8).(GPPhysical)
		fa, ga := acc128{R9, R10}, acc128{R11, R12}
		for i := 0; i < 5; i++ {
			fi, gi := Mem{Base: f, Disp: 8 * i}, Mem{Base: g, Disp: 8 * i}
			mulAcc(fa, tu(t), fi, i == 0)
			mulAcc(fa, tv(t), gi, false)
			mulAcc(ga, tq(t), fi, i == 0)
			mulAcc(ga, tr(t), gi, false)
			if i > 0 {
				storeLimb(fa, Mem{Base: f, Disp: 8 * (i - 1)})
				storeLimb(ga, Mem{Base: g, Disp: 8 * (i - 1)})
			}
			if i < 4 {
				shr60(fa)
				shr60(ga)
			}
		}
		// The top limbs take the whole (signed) remainder.
		SHRQ(Imm(60), fa.hi, fa.lo)
		SHRQ(Imm(60), ga.hi, ga.lo)
		MOVQ(fa.lo, Mem{Base: f, Disp: 32})
		MOVQ(ga.lo, Mem{Base: g, Disp: 32})
		RET()
	}

	TEXT("updateDEIMUL", NOSPLIT, "func(d, e *[5]int64, t *[4]int64)")
	Pragma("noescape")
	Doc("updateDEIMUL is updateDEGeneric: (d, e) = T·(d, e) / 2^60 mod p, both",
		"kept in (-2p, p).")
	{
		d, e, t := Load(Param("d"), RSI).(GPPhysical), Load(Param("e"), RDI).(GPPhysical), Load(Param("t"), R8).(GPPhysical)
		da, ea := acc128{R9, R10}, acc128{R11, R12}
		md, me := R13, R14
		Comment("md = u&sd + v&se, me = q&sd + r&se, for the signs sd, se of d and e")
		MOVQ(Mem{Base: d, Disp: 32}, RBX)
		SARQ(Imm(63), RBX) // sd
		MOVQ(Mem{Base: e, Disp: 32}, RCX)
		SARQ(Imm(63), RCX) // se
		MOVQ(tu(t), md)
		ANDQ(RBX, md)
		MOVQ(tv(t), RAX)
		ANDQ(RCX, RAX)
		ADDQ(RAX, md)
		MOVQ(tq(t), me)
		ANDQ(RBX, me)
		MOVQ(tr(t), RAX)
		ANDQ(RCX, RAX)
		ADDQ(RAX, me)
		Comment("The low limbs' products, then md -= (md - cd) mod 2^60 (p⁻¹ ≡ -1 mod 2^60)")
		d0, e0 := Mem{Base: d}, Mem{Base: e}
		mulAcc(da, tu(t), d0, true)
		mulAcc(da, tv(t), e0, false)
		mulAcc(ea, tq(t), d0, true)
		mulAcc(ea, tr(t), e0, false)
		for _, c := range []struct {
			m   GPPhysical
			acc acc128
		}{{md, da}, {me, ea}} {
			MOVQ(c.m, RAX)
			SUBQ(c.acc.lo, RAX)
			SHLQ(Imm(4), RAX)
			SHRQ(Imm(4), RAX)
			SUBQ(RAX, c.m)
		}
		mulAccReg(da, md, pSigned60(0))
		mulAccReg(ea, me, pSigned60(0))
		shr60(da)
		shr60(ea)
		for i := 1; i < 5; i++ {
			di, ei := Mem{Base: d, Disp: 8 * i}, Mem{Base: e, Disp: 8 * i}
			mulAcc(da, tu(t), di, false)
			mulAcc(da, tv(t), ei, false)
			mulAccReg(da, md, pSigned60(i))
			mulAcc(ea, tq(t), di, false)
			mulAcc(ea, tr(t), ei, false)
			mulAccReg(ea, me, pSigned60(i))
			storeLimb(da, Mem{Base: d, Disp: 8 * (i - 1)})
			storeLimb(ea, Mem{Base: e, Disp: 8 * (i - 1)})
			if i < 4 {
				shr60(da)
				shr60(ea)
			}
		}
		SHRQ(Imm(60), da.hi, da.lo)
		SHRQ(Imm(60), ea.hi, ea.lo)
		MOVQ(da.lo, Mem{Base: d, Disp: 32})
		MOVQ(ea.lo, Mem{Base: e, Disp: 32})
		RET()
	}
}

// divstepsKernel emits divsteps30CMOV, the 30 divsteps of divsteps30
// unrolled, each with conditional moves where the Go code masks: the
// parity of g, the sign of δ and their conjunction (the swap) each set the
// flags once and select among values computed beforehand. The chain from
// one g to the next is then TEST, CMOV, ADD, SHR, four cycles, against six
// for the masks, and the swap's new f is the old g (one CMOV) rather than
// f + (g - f). CMOV does not branch, so the time does not depend on the
// values.
func divstepsKernel() {
	TEXT("divsteps30CMOV", NOSPLIT, "func(nd int64, f, gv uint64) (ndOut int64, fOut, gOut uint64, fr, gr int64)")
	Pragma("noescape")
	Doc("divsteps30CMOV is divsteps30 with the matrix rows returned packed:",
		"fr = u + v·2^32, gr = q + r·2^32.")
	nd, f, g := RAX, RBX, RCX
	fr, gr := RDX, RSI
	x, y, m, a := RDI, R8, R9, R10
	gold, grold, zero := R11, R12, R13
	Load(Param("nd"), nd)
	Load(Param("f"), f)
	Load(Param("gv"), g)
	MOVQ(U32(1), fr)
	MOVQ(U64(1<<32), gr)
	XORL(zero.As32(), zero.As32())
	for range 30 {
		// x = -f, y = -fr; m = 1 if δ > 0 (nd < 0).
		MOVQ(f, x)
		NEGQ(x)
		MOVQ(fr, y)
		NEGQ(y)
		MOVQ(nd, m)
		SHRQ(Imm(63), m)
		// x, y = f, fr unless δ > 0.
		TESTQ(nd, nd)
		CMOVQGE(f, x)
		CMOVQGE(fr, y)
		// a = -nd - 2 (after a swap), nd = nd - 2 (otherwise).
		MOVQ(nd, a)
		NOTQ(a)
		LEAQ(Mem{Base: a, Disp: -1}, a)
		LEAQ(Mem{Base: nd, Disp: -2}, nd)
		// For even g nothing is added.
		TESTQ(U32(1), g)
		CMOVQEQ(zero, x)
		CMOVQEQ(zero, y)
		MOVQ(g, gold)
		MOVQ(gr, grold)
		ADDQ(x, g)
		ADDQ(y, gr)
		// The swap: g odd and δ > 0.
		TESTQ(m, gold)
		CMOVQNE(gold, f)
		CMOVQNE(grold, fr)
		CMOVQNE(a, nd)
		SHRQ(Imm(1), g)
		ADDQ(fr, fr)
	}
	Store(nd, ReturnIndex(0))
	Store(f, ReturnIndex(1))
	Store(g, ReturnIndex(2))
	Store(fr, ReturnIndex(3))
	Store(gr, ReturnIndex(4))
	RET()
}
