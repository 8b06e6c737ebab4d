package field

import (
	"runtime"
	"syscall"
	"testing"
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

func BenchmarkCPUMul(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	y := *x
	cpuLoop(b, func() { x.Mul(x, &y) })
}

func BenchmarkCPUSquare(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	cpuLoop(b, func() { x.Square(x) })
}

func BenchmarkCPUInvert(b *testing.B) {
	x := new(Element).One()
	x.Add(x, x)
	cpuLoop(b, func() { x.Invert(x) })
}
