package sm2ec

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/field"
)

// cpuLoop runs f b.N times and reports the thread CPU time per call, which
// is robust against other processes sharing the machine.
func cpuLoop(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(1, &r0) // RUSAGE_THREAD
	for b.Loop() {
		f()
	}
	syscall.Getrusage(1, &r1)
	ns := (r1.Utime.Nano() + r1.Stime.Nano()) - (r0.Utime.Nano() + r0.Stime.Nano())
	b.ReportMetric(float64(ns)/float64(b.N), "cpu-ns/op")
}

func BenchmarkCPUDouble(b *testing.B) {
	var p jacobianPoint
	p.fromAffine(&generator)
	cpuLoop(b, func() { p.double(&p) })
}

func BenchmarkCPUAdd(b *testing.B) {
	var p, q jacobianPoint
	p.fromAffine(&generator)
	q.double(&p)
	cpuLoop(b, func() { p.add(&p, &q) })
}

func BenchmarkCPUAddAffine(b *testing.B) {
	var p jacobianPoint
	p.fromAffine(&generator)
	p.double(&p)
	cpuLoop(b, func() { p.addAffine(&p, &generator) })
}

func BenchmarkCPUBaseMult(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	var p Point
	cpuLoop(b, func() { p.ScalarBaseMult(s) })
}

func BenchmarkCPUScalarMult(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	g := NewGenerator()
	var p Point
	cpuLoop(b, func() { p.ScalarMult(g, s) })
}

func BenchmarkCPUDoubleScalarMult(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	g := NewGenerator()
	var p Point
	cpuLoop(b, func() { p.DoubleScalarMultVarTime(s, g, s) })
}

func BenchmarkCPUAddComplete(b *testing.B) {
	var p, q jacobianPoint
	p.fromAffine(&generator)
	q.double(&p)
	cpuLoop(b, func() { p.addComplete(&q, 0, 0) })
}

func BenchmarkCPUAddAffineComplete(b *testing.B) {
	var p jacobianPoint
	p.fromAffine(&generator)
	p.double(&p)
	cpuLoop(b, func() { p.addAffineComplete(&generator, 0, 0) })
}

func BenchmarkCPUAddSelect(b *testing.B) {
	var p, q jacobianPoint
	p.fromAffine(&generator)
	q.double(&p)
	cpuLoop(b, func() { p.addSelect(&q, 0, 0) })
}

// BenchmarkCPULookupJacobian16 is the table scan of one ScalarMult window.
func BenchmarkCPULookupJacobian16(b *testing.B) {
	table := make([]field.Element, 3*16)
	var out jacobianPoint
	cpuLoop(b, func() { lookupJacobian(&out, table, 5) })
}

// BenchmarkCPULookupAffine64 is the table scan of one ScalarBaseMult
// window.
func BenchmarkCPULookupAffine64(b *testing.B) {
	table := make([]field.Element, 2*64)
	var out affinePoint
	cpuLoop(b, func() { lookupAffine(&out, table, 5) })
}

func BenchmarkCPUBaseMultBlinded(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	var p Point
	cpuLoop(b, func() { p.ScalarBaseMultBlinded(s) })
}

func BenchmarkCPUScalarMultTableBlinded(b *testing.B) {
	s := scalar32(hexInt("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee"))
	qt, _ := NewPointTable(NewGenerator())
	var p Point
	cpuLoop(b, func() { p.ScalarMultTableBlinded(qt, s) })
}
