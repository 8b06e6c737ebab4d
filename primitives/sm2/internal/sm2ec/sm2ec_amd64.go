//go:build !purego

package sm2ec

//go:generate sh -c "cd ../../_asm && go run . -gen sm2ec -pkg sm2ec -out ../internal/sm2ec/sm2ec_amd64.s"

import (
	"golang.org/x/sys/cpu"

	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// The amd64 dispatch point of the package.
//
// usePointADX selects the assembly point formulas built on MULX/ADCX/ADOX,
// usePointMULQ the ones built on MULQ; with both cleared the Go formulas of
// jacobian.go run (over whatever the field package dispatches to).
//
// useLookupAVX512 and useLookupAVX2 select the vector table scans; with
// both cleared the scans of the field package run.
var (
	usePointADX     = cpu.X86.HasBMI2 && cpu.X86.HasADX
	usePointMULQ    = true
	useLookupAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	useLookupAVX2   = cpu.X86.HasAVX2
	// useBaseStepADXAVX512 and useBaseStepADXAVX2 select the fused window
	// step of ScalarBaseMult (the mixed addition of ±t with MULX/ADCX/ADOX,
	// the next window's table scan with AVX-512 or AVX2 meanwhile).
	useBaseStepADXAVX512 = usePointADX && useLookupAVX512
	useBaseStepADXAVX2   = usePointADX && useLookupAVX2
)

func init() {
	impl.Register("sm2", "amd64-point-adx", &usePointADX)
	impl.Register("sm2", "amd64-point-mulq", &usePointMULQ)
	impl.Register("sm2", "amd64-lookup-avx512", &useLookupAVX512)
	impl.Register("sm2", "amd64-lookup-avx2", &useLookupAVX2)
	impl.Register("sm2", "amd64-base-step-adx-avx512", &useBaseStepADXAVX512)
	impl.Register("sm2", "amd64-base-step-adx-avx2", &useBaseStepADXAVX2)
}

// baseStep is one window step of ScalarBaseMult: p.addAffineNeg(t, neg),
// then next = entry idx of table (64 affine points), the table scan
// running alongside the addition where a fused kernel exists.
func (p *jacobianPoint) baseStep(t *affinePoint, neg int, next *affinePoint, table []field.Element, idx uint64) {
	if useBaseStepADXAVX512 {
		pointAddAffineNegLookupAVX512ADX(p, t, neg, next, &table[:2*baseEntries][0], idx)
		return
	} else if useBaseStepADXAVX2 {
		pointAddAffineNegLookupAVX2ADX(p, t, neg, next, &table[:2*baseEntries][0], idx)
		return
	}
	p.addAffineNeg(t, neg)
	lookupAffine(next, table, idx)
}

// lookupAffine sets out to entry idx (from 1) of a table of affine points
// stored flat as x1, y1, x2, y2, …, or to zero for idx 0, reading every
// entry. The table has a positive even number of entries.
func lookupAffine(out *affinePoint, table []field.Element, idx uint64) {
	if useLookupAVX512 {
		lookupAffineAVX512(out, &table[0], len(table)/2, idx)
	} else if useLookupAVX2 {
		lookupAffineAVX2(out, &table[0], len(table)/2, idx)
	} else {
		field.LookupPair(&out.x, &out.y, table, idx)
	}
}

// lookupJacobian is lookupAffine for a flat table of Jacobian points.
func lookupJacobian(out *jacobianPoint, table []field.Element, idx uint64) {
	if useLookupAVX512 {
		lookupJacobianAVX512(out, &table[0], len(table)/3, idx)
	} else if useLookupAVX2 {
		lookupJacobianAVX2(out, &table[0], len(table)/3, idx)
	} else {
		field.LookupTriple(&out.x, &out.y, &out.z, table, idx)
	}
}

func (p *jacobianPoint) double(a *jacobianPoint) { p.doubleN(a, 1) }

// doubleN sets p = 2^n·a, n ≥ 1.
func (p *jacobianPoint) doubleN(a *jacobianPoint, n int) {
	if usePointADX {
		pointDoubleADX(p, a, n)
	} else if usePointMULQ {
		pointDoubleMULQ(p, a, n)
	} else {
		p.doubleGeneric(a)
		for range n - 1 {
			p.doubleGeneric(p)
		}
	}
}

func (p *jacobianPoint) add(a, b *jacobianPoint) int {
	if usePointADX {
		return pointAddADX(p, a, b)
	} else if usePointMULQ {
		return pointAddMULQ(p, a, b)
	}
	return p.addGeneric(a, b)
}

func (p *jacobianPoint) addAffine(a *jacobianPoint, b *affinePoint) int {
	if usePointADX {
		return pointAddAffineADX(p, a, b)
	} else if usePointMULQ {
		return pointAddAffineMULQ(p, a, b)
	}
	return p.addAffineGeneric(a, b)
}

func (p *jacobianPoint) addAffineSelect(t *affinePoint, neg, keep int) {
	if usePointADX {
		pointAddAffineSelectADX(p, t, neg, keep)
	} else if usePointMULQ {
		pointAddAffineSelectMULQ(p, t, neg, keep)
	} else {
		p.addAffineSelectGeneric(t, neg, keep)
	}
}

func (p *jacobianPoint) addSelect(t *jacobianPoint, neg, keep int) {
	if usePointADX {
		pointAddSelectADX(p, t, neg, keep)
	} else if usePointMULQ {
		pointAddSelectMULQ(p, t, neg, keep)
	} else {
		p.addSelectGeneric(t, neg, keep)
	}
}

func (p *jacobianPoint) addComplete(t *jacobianPoint, neg, keep int) {
	if usePointADX {
		pointAddCompleteADX(p, t, neg, keep)
	} else if usePointMULQ {
		pointAddCompleteMULQ(p, t, neg, keep)
	} else {
		p.addCompleteGeneric(t, neg, keep)
	}
}

func (p *jacobianPoint) addAffineComplete(t *affinePoint, neg, keep int) {
	if usePointADX {
		pointAddAffineCompleteADX(p, t, neg, keep)
	} else if usePointMULQ {
		pointAddAffineCompleteMULQ(p, t, neg, keep)
	} else {
		p.addAffineCompleteGeneric(t, neg, keep)
	}
}
