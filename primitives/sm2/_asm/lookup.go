package main

// Constant-time table lookups: every entry is loaded and combined under a
// mask computed from comparing a running counter with the index, so the
// memory access pattern does not depend on the index. Entries are numbered
// from 1; index 0 (or any index above n) yields all zeros.
//
// AVX2: the mask is a vector compare, applied with VPAND/VPOR. AVX-512: the
// compare writes an opmask and a merge-masked register move keeps the entry
// (the loads themselves are never masked).

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func lookupKernels() {
	// words is the entry size in 64-bit words: 8 for affine points, 12 for
	// Jacobian ones.
	for _, words := range []int{8, 12} {
		name := "Affine"
		if words == 12 {
			name = "Jacobian"
		}
		sig := "func(out *[8]uint64, table *[8]uint64, n int, idx uint64)"
		if words == 12 {
			sig = "func(out *[12]uint64, table *[12]uint64, n int, idx uint64)"
		}

		TEXT("lookup"+name+"AVX2", NOSPLIT, sig)
		Pragma("noescape")
		Doc("lookup"+name+"AVX2 sets out to entry idx (from 1) of the n entries at table, or to",
			"zero if there is none, reading every entry. n must be a positive multiple of 2.")
		{
			tab := Load(Param("table"), RSI)
			n := Load(Param("n"), RCX)
			VPBROADCASTQ(NewParamAddr("idx", 24), Y15)
			// Counter starts at 1 and steps by 1.
			MOVQ(U32(1), RAX)
			// VMOVQ, not MOVQ: a legacy-SSE write to an XMM register while the
			// upper halves of the YMM registers are dirty (Y15 just above)
			// stalls for longer than the whole scan takes on the AMD EPYC of
			// examples/bench/README.md ("Design measurements").
			VMOVQ(RAX, X14)
			VPBROADCASTQ(X14, Y14)
			VMOVDQU(Y14, Y13)
			ymms := words / 4
			acc := []VecPhysical{Y0, Y1, Y2}[:ymms]
			for _, a := range acc {
				VPXOR(a, a, a)
			}
			Label("loop" + name + "AVX2")
			for e := 0; e < 2; e++ {
				mask := []VecPhysical{Y12, Y11}[e]
				VPCMPEQQ(Y14, Y15, mask)
				VPADDQ(Y13, Y14, Y14)
				for k := 0; k < ymms; k++ {
					tmp := []VecPhysical{Y3, Y4, Y5, Y6, Y7, Y8}[e*3+k]
					VPAND(Mem{Base: RSI}.Offset(8*words*e+32*k), mask, tmp)
					VPOR(tmp, acc[k], acc[k])
				}
			}
			ADDQ(U32(16*words), tab)
			SUBQ(Imm(2), n)
			JNZ(LabelRef("loop" + name + "AVX2"))
			Load(Param("out"), RDI)
			for k, a := range acc {
				VMOVDQU(a, Mem{Base: RDI}.Offset(32*k))
			}
			VZEROUPPER()
			RET()
		}

		TEXT("lookup"+name+"AVX512", NOSPLIT, sig)
		Pragma("noescape")
		Doc("lookup" + name + "AVX512 is lookup" + name + "AVX2 with AVX-512 (F and VL).")
		{
			tab := Load(Param("table"), RSI)
			n := Load(Param("n"), RCX)
			VPBROADCASTQ(NewParamAddr("idx", 24), Z15)
			MOVQ(U32(1), RAX)
			VPBROADCASTQ(RAX, Z14)
			VMOVDQA64(Z14, Z13)
			VPXORQ(Z0, Z0, Z0)
			if words == 12 {
				VPXORQ(Y1, Y1, Y1)
			}
			Label("loop" + name + "AVX512")
			for e := 0; e < 2; e++ {
				k := []OpmaskPhysical{K1, K2}[e]
				VPCMPEQQ(Z14, Z15, k)
				VPADDQ(Z13, Z14, Z14)
				z := []VecPhysical{Z2, Z3}[e]
				VMOVDQU64(Mem{Base: RSI}.Offset(8*words*e), z)
				VMOVDQA64(z, k, Z0)
				if words == 12 {
					y := []VecPhysical{Y4, Y5}[e]
					VMOVDQU64(Mem{Base: RSI}.Offset(8*words*e+64), y)
					VMOVDQA64(y, k, Y1)
				}
			}
			ADDQ(U32(16*words), tab)
			SUBQ(Imm(2), n)
			JNZ(LabelRef("loop" + name + "AVX512"))
			Load(Param("out"), RDI)
			VMOVDQU64(Z0, Mem{Base: RDI})
			if words == 12 {
				VMOVDQU64(Y1, Mem{Base: RDI}.Offset(64))
			}
			VZEROUPPER()
			RET()
		}
	}
}
