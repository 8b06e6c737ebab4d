package sm2ec

import (
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

func BenchmarkJacDouble(b *testing.B) {
	var p jacobianPoint
	p.fromAffine(&generator)
	for b.Loop() {
		p.double(&p)
	}
}

func BenchmarkJacDouble5(b *testing.B) {
	var p jacobianPoint
	p.fromAffine(&generator)
	for b.Loop() {
		p.doubleN(&p, 5)
	}
}

func BenchmarkJacAdd(b *testing.B) {
	var p, q jacobianPoint
	p.fromAffine(&generator)
	q.double(&p)
	for b.Loop() {
		p.add(&p, &q)
	}
}

func BenchmarkJacAddAffine(b *testing.B) {
	var p jacobianPoint
	p.fromAffine(&generator)
	p.double(&p)
	for b.Loop() {
		p.addAffine(&p, &generator)
	}
}

func BenchmarkLookupPair32(b *testing.B) {
	t := getBaseTable()
	var x, y field.Element
	for i := 0; b.Loop(); i++ {
		field.LookupPair(&x, &y, t[0][:], uint64(i&31))
	}
}

func BenchmarkLookupTriple16(b *testing.B) {
	var t [48]field.Element
	var x, y, z field.Element
	for i := 0; b.Loop(); i++ {
		field.LookupTriple(&x, &y, &z, t[:], uint64(i&15))
	}
}
