//go:build amd64 && linux

// Command ifmaexp measures an 8-lane AVX-512 IFMA Montgomery multiplication
// modulo the SM2 prime (see gen.go), the experiment behind the decision not
// to ship an IFMA field: it checks the kernel against math/big, then times
// a dependent chain of multiplications in CPU time.
//
//	go run gen.go > ifma_amd64.s && go run .
package main

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"runtime"
	"syscall"
)

// ifmaMul8 sets out = a·b^n·2^(-260n) mod p lane-wise (n chained
// multiplications; out = a·b·2^-260 for n = 1).
//
//go:noescape
func ifmaMul8(out, a, b *[5][8]uint64, n int)

func cpuNow() int64 {
	var r syscall.Rusage
	syscall.Getrusage(1, &r)
	return r.Utime.Nano() + r.Stime.Nano()
}

var p, _ = new(big.Int).SetString("fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff", 16)

func split(x *big.Int) [5]uint64 {
	var l [5]uint64
	m := new(big.Int).SetUint64(1<<52 - 1)
	for i := range l {
		l[i] = new(big.Int).And(new(big.Int).Rsh(x, uint(52*i)), m).Uint64()
	}
	return l
}

func join(l [5]uint64) *big.Int {
	x := new(big.Int)
	for i := 4; i >= 0; i-- {
		x.Lsh(x, 52).Add(x, new(big.Int).SetUint64(l[i]))
	}
	return x
}

func main() {
	runtime.LockOSThread()
	r := rand.New(rand.NewPCG(1, 2))
	var a, b, out [5][8]uint64
	var as, bs [8]*big.Int
	for k := range 8 {
		var buf [32]byte
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
		as[k] = new(big.Int).Mod(new(big.Int).SetBytes(buf[:]), p)
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
		bs[k] = new(big.Int).Mod(new(big.Int).SetBytes(buf[:]), p)
		la, lb := split(as[k]), split(bs[k])
		for i := range 5 {
			a[i][k], b[i][k] = la[i], lb[i]
		}
	}
	ifmaMul8(&out, &a, &b, 3)
	rinv := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), 260), p)
	for k := range 8 {
		want := new(big.Int).Set(as[k])
		for range 3 {
			want.Mul(want, bs[k]).Mul(want, rinv).Mod(want, p)
		}
		var l [5]uint64
		for i := range 5 {
			l[i] = out[i][k]
		}
		if join(l).Cmp(want) != 0 {
			fmt.Println("lane", k, "WRONG", join(l).Text(16), want.Text(16))
			return
		}
	}
	fmt.Println("8-lane IFMA Montgomery multiplication correct")
	n := 10_000_000
	for range 3 {
		t := cpuNow()
		ifmaMul8(&out, &a, &b, n)
		d := float64(cpuNow()-t) / float64(n)
		fmt.Printf("dependent chain: %.2f ns per 8 multiplications = %.2f ns per multiplication (latency-bound)\n", d, d/8)
	}
}
