//go:build ignore

// gen_table writes p256_table.bin, the fixed-base table used by
// ScalarBaseMult: for each of the 37 windows k of its odd 7-bit digits, the
// odd multiples j·2^(7k)·G for j = 1, 3, …, 127, each as 32-byte big-endian
// affine x then y.
//
// With -wnaf it writes p256_wnaf_table.bin instead: for k = 0…3 the odd
// multiples 1·G_k, 3·G_k, …, 127·G_k of G_k = 2^(64k)·G (same layout), which
// signature verification adds for the width-8 NAF digits of the G scalar,
// whole (k = 0 only) or split into four 64-bit chunks.
//
// It deliberately uses only math/big affine arithmetic, independent of the
// package's own field and point code, so that regenerating the table (as
// TestTableIsGenerated does) cross-checks both.
package main

import (
	"flag"
	"log"
	"math/big"
	"os"
)

func hexInt(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic(s)
	}
	return v
}

var (
	p  = hexInt("fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff")
	gx = hexInt("32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7")
	gy = hexInt("bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0")
)

type point struct{ x, y *big.Int } // never the identity here

func add(a, b point) point {
	var lambda *big.Int
	if a.x.Cmp(b.x) == 0 {
		if a.y.Cmp(b.y) != 0 {
			log.Fatal("unexpected P + (-P)")
		}
		// (3x² - 3) / 2y
		num := new(big.Int).Mul(a.x, a.x)
		num.Sub(num, big.NewInt(1)).Mul(num, big.NewInt(3))
		den := new(big.Int).Lsh(a.y, 1)
		lambda = num.Mul(num, den.ModInverse(den, p))
	} else {
		num := new(big.Int).Sub(b.y, a.y)
		den := new(big.Int).Sub(b.x, a.x)
		den.Mod(den, p)
		lambda = num.Mul(num, den.ModInverse(den, p))
	}
	lambda.Mod(lambda, p)
	x := new(big.Int).Mul(lambda, lambda)
	x.Sub(x, a.x).Sub(x, b.x).Mod(x, p)
	y := new(big.Int).Sub(a.x, x)
	y.Mul(y, lambda).Sub(y, a.y).Mod(y, p)
	return point{x, y}
}

func main() {
	out := flag.String("o", "", "output file (default p256_table.bin, or p256_wnaf_table.bin with -wnaf)")
	wnaf := flag.Bool("wnaf", false, "write the table of odd multiples of G")
	flag.Parse()
	if *out == "" {
		*out = "p256_table.bin"
		if *wnaf {
			*out = "p256_wnaf_table.bin"
		}
	}
	var buf []byte
	if *wnaf {
		g := point{gx, gy}
		for k := 0; k < 4; k++ {
			if k > 0 {
				for range 64 {
					g = add(g, g)
				}
			}
			g2 := add(g, g)
			q := g
			for i := 0; i < 64; i++ {
				buf = append(buf, q.x.FillBytes(make([]byte, 32))...)
				buf = append(buf, q.y.FillBytes(make([]byte, 32))...)
				q = add(q, g2)
			}
		}
		if err := os.WriteFile(*out, buf, 0o644); err != nil {
			log.Fatal(err)
		}
		return
	}
	const windows, entries = 37, 64
	base := point{gx, gy}
	for k := 0; k < windows; k++ {
		twice := add(base, base)
		q := base
		for j := 1; j <= entries; j++ {
			buf = append(buf, q.x.FillBytes(make([]byte, 32))...)
			buf = append(buf, q.y.FillBytes(make([]byte, 32))...)
			if j < entries {
				q = add(q, twice)
			}
		}
		// Next window base: 2^7 · base = 127·base + base.
		base = add(q, base)
	}
	if err := os.WriteFile(*out, buf, 0o644); err != nil {
		log.Fatal(err)
	}
}
