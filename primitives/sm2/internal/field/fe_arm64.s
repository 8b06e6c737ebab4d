//go:build !purego

#include "textflag.h"

// Montgomery multiplication and squaring modulo
// p = 2^256 - 2^224 - 2^96 + 2^64 - 1 (R = 2^256) on arm64.
//
// Algorithm: the 512-bit product t0…t7 is formed row by row (MUL gives the
// low and UMULH the high half of each 64×64 product, ADDS/ADCS carry), then
// t0…t3 is reduced one limb at a time. Since p ≡ -1 mod 2^64 the quotient
// digit m of each step is the low limb itself, and adding m·p and dropping
// that limb adds m·(p+1)/2^64 = m·(2^192 - 2^160 - 2^32 + 1): m at limbs 0
// and 3 of the 4-limb window, less m<<32 and m>>32 at limbs 0-1 and 2-3. The
// window may pass 2^256 between the add and the subtract chain, but each
// step's result is below 2^256, so arithmetic modulo 2^256 is exact. The
// high half is added and p subtracted once if the sum (below 2p) is at
// least p, selecting with CSEL. Nothing branches on data.
//
// Registers:
//	R0, R1        pointers (out, a, b), then scratch
//	R2-R5         a0…a3
//	R6-R9         b0…b3 (feMulARM64); the squaring counter (feSqrARM64)
//	R10-R17       t0…t7
//	R19-R26       scratch products (low halves R19-R22, high R23-R26)
//	R0, R1        m<<32 and m>>32 during the reduction

// t = a·b (a in R2-R5), rows of a[i]·b.
#define PRODUCT(b0, b1, b2, b3) \
	MUL   R2, b0, R10 \
	UMULH R2, b0, R11 \
	MUL   R2, b1, R19 \
	UMULH R2, b1, R12 \
	MUL   R2, b2, R20 \
	UMULH R2, b2, R13 \
	MUL   R2, b3, R21 \
	UMULH R2, b3, R14 \
	ADDS  R19, R11, R11 \
	ADCS  R20, R12, R12 \
	ADCS  R21, R13, R13 \
	ADC   ZR, R14, R14 \
	ROW(R3, b0, b1, b2, b3, R11, R12, R13, R14, R15) \
	ROW(R4, b0, b1, b2, b3, R12, R13, R14, R15, R16) \
	ROW(R5, b0, b1, b2, b3, R13, R14, R15, R16, R17)

// (u4:u3:u2:u1:u0) += ai·b, u4 fresh.
#define ROW(ai, b0, b1, b2, b3, u0, u1, u2, u3, u4) \
	MUL   ai, b0, R19 \
	MUL   ai, b1, R20 \
	MUL   ai, b2, R21 \
	MUL   ai, b3, R22 \
	UMULH ai, b0, R23 \
	UMULH ai, b1, R24 \
	UMULH ai, b2, R25 \
	UMULH ai, b3, R26 \
	ADDS  R19, u0, u0 \
	ADCS  R20, u1, u1 \
	ADCS  R21, u2, u2 \
	ADCS  R22, u3, u3 \
	ADC   ZR, ZR, u4 \
	ADDS  R23, u1, u1 \
	ADCS  R24, u2, u2 \
	ADCS  R25, u3, u3 \
	ADC   R26, u4, u4

// One reduction step on the window (w0, w1, w2, w3) with m = w0; the
// result is the window (w1, w2, w3, w0).
#define REDSTEP(w0, w1, w2, w3) \
	LSL  $32, w0, R0 \
	LSR  $32, w0, R1 \
	ADDS w0, w1, w1 \
	ADCS ZR, w2, w2 \
	ADCS ZR, w3, w3 \
	ADC  ZR, w0, w0 \
	SUBS R0, w1, w1 \
	SBCS R1, w2, w2 \
	SBCS R0, w3, w3 \
	SBC  R1, w0, w0

// t0…t3 = t·2^-256 mod p, fully reduced; uses R19-R23 and R0, R1.
#define REDUCE \
	REDSTEP(R10, R11, R12, R13) \
	REDSTEP(R11, R12, R13, R10) \
	REDSTEP(R12, R13, R10, R11) \
	REDSTEP(R13, R10, R11, R12) \
	ADDS  R14, R10, R10 \
	ADCS  R15, R11, R11 \
	ADCS  R16, R12, R12 \
	ADCS  R17, R13, R13 \
	ADC   ZR, ZR, R19 \
	MOVD  $-1, R0 \
	MOVD  $0xffffffff00000000, R1 \
	MOVD  $0xfffffffeffffffff, R20 \
	SUBS  R0, R10, R21 \
	SBCS  R1, R11, R22 \
	SBCS  R0, R12, R23 \
	SBCS  R20, R13, R24 \
	SBCS  ZR, R19, R19 \
	CSEL  CS, R21, R10, R10 \
	CSEL  CS, R22, R11, R11 \
	CSEL  CS, R23, R12, R12 \
	CSEL  CS, R24, R13, R13

// func feMulARM64(out, a, b *Element)
TEXT ·feMulARM64(SB), NOSPLIT, $0-24
	MOVD a+8(FP), R0
	MOVD b+16(FP), R1
	LDP  0(R0), (R2, R3)
	LDP  16(R0), (R4, R5)
	LDP  0(R1), (R6, R7)
	LDP  16(R1), (R8, R9)
	PRODUCT(R6, R7, R8, R9)
	REDUCE
	MOVD out+0(FP), R0
	STP  (R10, R11), 0(R0)
	STP  (R12, R13), 16(R0)
	RET

// func feSqrARM64(out, a *Element, n int)
//
// n ≥ 1 squarings; the value stays in R2-R5 between them. The squaring is
// the multiplication with b = a.
TEXT ·feSqrARM64(SB), NOSPLIT, $0-24
	MOVD a+8(FP), R0
	MOVD n+16(FP), R6
	LDP  0(R0), (R2, R3)
	LDP  16(R0), (R4, R5)

loop:
	PRODUCT(R2, R3, R4, R5)
	REDUCE
	MOVD R10, R2
	MOVD R11, R3
	MOVD R12, R4
	MOVD R13, R5
	SUBS $1, R6, R6
	BNE  loop

	MOVD out+0(FP), R0
	STP  (R2, R3), 0(R0)
	STP  (R4, R5), 16(R0)
	RET
