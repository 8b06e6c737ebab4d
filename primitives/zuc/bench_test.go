// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"fmt"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

var sizes = []struct {
	name string
	n    int
}{{"64", 64}, {"1K", 1024}, {"8K", 8192}}

// benchImpls runs f once per implementation, as a sub-benchmark.
func benchImpls(b *testing.B, f func(b *testing.B)) {
	impl.ForEach("zuc", func(name string) { b.Run(name, f) })
}

func BenchmarkXORKeyStream(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		for _, kl := range []int{16, 32} {
			s, _ := NewCipher(make([]byte, kl), make([]byte, map[int]int{16: 16, 32: 23}[kl]))
			for _, sz := range sizes {
				b.Run(map[int]string{16: "ZUC-128/", 32: "ZUC-256/"}[kl]+sz.name, func(b *testing.B) {
					buf := make([]byte, sz.n)
					b.SetBytes(int64(sz.n))
					for b.Loop() {
						s.XORKeyStream(buf, buf)
					}
				})
			}
		}
	})
}

func BenchmarkReset(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		s, _ := NewCipher(make([]byte, 16), make([]byte, 16))
		c := s.(*Cipher)
		iv := make([]byte, 16)
		for b.Loop() {
			c.Reset(iv)
		}
	})
}

func BenchmarkEIA3(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		h, _ := NewEIA3(make([]byte, 16), 1, 2, 0)
		for _, sz := range sizes {
			b.Run(sz.name, func(b *testing.B) {
				buf := make([]byte, sz.n)
				tag := make([]byte, 0, 4)
				b.SetBytes(int64(sz.n))
				for b.Loop() {
					h.Reset()
					h.Write(buf)
					tag = h.Sum(tag[:0])
				}
			})
		}
	})
}

func BenchmarkMAC256(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		for _, size := range []int{4, 8, 16} {
			h, _ := NewMAC256(make([]byte, 32), make([]byte, 23), size)
			b.Run(map[int]string{4: "32", 8: "64", 16: "128"}[size], func(b *testing.B) {
				buf := make([]byte, 8192)
				tag := make([]byte, 0, 16)
				b.SetBytes(int64(len(buf)))
				for b.Loop() {
					h.Reset()
					h.Write(buf)
					tag = h.Sum(tag[:0])
				}
			})
		}
	})
}

// BenchmarkBatch measures XORKeyStream of a Batch: n messages of size
// bytes under one key, the TLCP record case.
func BenchmarkBatch(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		for _, n := range []int{1, 2, 4, 16, 64} {
			for _, size := range []int{64, 1024, 8192} {
				b.Run(fmt.Sprintf("%dx%d", n, size), func(b *testing.B) {
					key := [][]byte{make([]byte, 16)}
					ivs, bufs := make([][]byte, n), make([][]byte, n)
					for i := range n {
						ivs[i] = make([]byte, 16)
						ivs[i][15] = byte(i)
						bufs[i] = make([]byte, size)
					}
					var bt Batch
					b.SetBytes(int64(n * size))
					for b.Loop() {
						bt.XORKeyStream(key, ivs, bufs, bufs)
					}
				})
			}
		}
	})
}

func BenchmarkKernels(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		s, _ := NewCipher(make([]byte, 16), make([]byte, 16))
		st := s.(*Cipher).st
		ks := make([]uint32, 2048+8)
		b.Run("genKeyStream", func(b *testing.B) {
			b.SetBytes(8192)
			for b.Loop() {
				genKeyStream(&st, ks[:2048])
			}
		})
		b.Run("macUpdate", func(b *testing.B) {
			p := make([]byte, 8192)
			var t [4]uint32
			b.SetBytes(8192)
			for b.Loop() {
				macUpdate(&t, 1, ks, p)
			}
		})
		var ls laneState
		kl := make([]uint32, maxLanes*16*16)
		b.Run("lanesKeyStream", func(b *testing.B) {
			if laneCount() == 0 {
				b.Skip("no multi-lane kernel")
			}
			b.SetBytes(int64(laneCount() * 1024))
			for b.Loop() {
				lanesKeyStream(&ls, kl, 256, 16)
			}
		})
	})
}
