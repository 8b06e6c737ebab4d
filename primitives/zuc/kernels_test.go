// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// randState returns a state with random 31-bit cells (never 0, as after
// loading) and random R1, R2.
func randState(rng *rand.Rand) state {
	var s state
	for i := range s.lfsr {
		s.lfsr[i] = 1 + rng.Uint32N(0x7fffffff)
	}
	s.r1, s.r2 = rng.Uint32(), rng.Uint32()
	return s
}

// TestKernelsDifferential runs every kernel of every implementation on
// random states and inputs and compares it with the generic code.
func TestKernelsDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	forEachImpl(t, func(t *testing.T) {
		for trial := range 200 {
			st := randState(rng)

			a, b := st, st
			initialiseGeneric(&a)
			initState(&b)
			if a != b {
				t.Fatalf("trial %d: initState differs", trial)
			}
			var ba, bb [4 * blockWords]byte
			xorKeyStreamGeneric(&a, ba[:], zeroBlock[:])
			b = st
			initStateBlock(&b, &bb)
			if a != b || ba != bb {
				t.Fatalf("trial %d: initStateBlock differs", trial)
			}

			n := 16 * rng.IntN(20)
			ka, kb := make([]uint32, n), make([]uint32, n)
			a, b = st, st
			genKeyStreamGeneric(&a, ka)
			genKeyStream(&b, kb)
			if a != b || !slices.Equal(ka, kb) {
				t.Fatalf("trial %d: genKeyStream(%d words) differs", trial, n)
			}

			// XOR, out of place at an odd offset and in place.
			m := 64 * rng.IntN(20)
			src := make([]byte, m+7)[rng.IntN(8):][:m]
			fillRand(rng, src)
			da, db := make([]byte, m), make([]byte, m+5)[3:][:m]
			a, b = st, st
			xorKeyStreamGeneric(&a, da, src)
			xorKeyStream(&b, db, src)
			if a != b || !bytes.Equal(da, db) {
				t.Fatalf("trial %d: xorKeyStream(%d bytes) differs", trial, m)
			}
			a = st
			xorKeyStream(&a, src, src)
			if a != b || !bytes.Equal(src, da) {
				t.Fatalf("trial %d: in-place xorKeyStream(%d bytes) differs", trial, m)
			}

			// The fused MAC, for each tag size and keystream offset.
			words := []int{1, 2, 4}[rng.IntN(3)]
			off := rng.IntN(5)
			var wa, wb [2 * blockWords]uint32
			for i := range wa {
				wa[i] = rng.Uint32()
			}
			wb = wa
			var ta, tb [4]uint32
			ta[0], ta[1], ta[2], ta[3] = rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32()
			tb = ta
			a, b = st, st
			macBlocksGeneric(&a, &wa, off, words, &ta, src)
			macBlocks(&b, &wb, off, words, &tb, src)
			if a != b || wa != wb || !slices.Equal(ta[:words], tb[:words]) {
				t.Fatalf("trial %d: macBlocks(off %d, %d words, %d bytes) differs", trial, off, words, m)
			}

			ks := make([]uint32, m/4+rng.IntN(8)+4)
			for i := range ks {
				ks[i] = rng.Uint32()
			}
			ta, tb = [4]uint32{}, [4]uint32{}
			macUpdateGeneric(&ta, words, ks, src)
			macUpdate(&tb, words, ks, src)
			if !slices.Equal(ta[:words], tb[:words]) {
				t.Fatalf("trial %d: macUpdate(%d words, %d bytes) differs", trial, words, m)
			}

			xa, xb := make([]byte, m), make([]byte, m)
			xorWordsGeneric(xa, src, ks[:m/4])
			xorWords(xb, src, ks[:m/4])
			if !bytes.Equal(xa, xb) {
				t.Fatalf("trial %d: xorWords(%d bytes) differs", trial, m)
			}
		}
	})
}

// TestLanesKernels compares the multi-lane kernels with the generic code
// run on each lane, with a random state in every lane.
func TestLanesKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	forEachImpl(t, func(t *testing.T) {
		n := laneCount()
		if n == 0 {
			t.Skip("no multi-lane kernel")
		}
		for trial := range 30 {
			var ls, want laneState
			for l := range maxLanes {
				s := randState(rng)
				ls.put(l, &s)
			}
			want = ls
			lanesInitGeneric(&want, n)
			lanesInit(&ls)
			for l := range n {
				var a, b state
				want.get(l, &a)
				ls.get(l, &b)
				if a != b {
					t.Fatalf("trial %d: lanesInit lane %d differs", trial, l)
				}
			}
			blocks := 1 + rng.IntN(4)
			stride := blocks*blockWords + rng.IntN(3)*blockWords
			ka := make([]uint32, n*stride)
			kb := make([]uint32, n*stride)
			lanesKeyStreamGeneric(&want, n, ka, stride, blocks)
			lanesKeyStream(&ls, kb, stride, blocks)
			for l := range n {
				var a, b state
				want.get(l, &a)
				ls.get(l, &b)
				if a != b {
					t.Fatalf("trial %d: lanesKeyStream lane %d state differs", trial, l)
				}
				if !slices.Equal(ka[l*stride:][:16*blocks], kb[l*stride:][:16*blocks]) {
					t.Fatalf("trial %d: lanesKeyStream lane %d keystream differs", trial, l)
				}
			}
		}
	})
}

func FuzzBatch(f *testing.F) {
	f.Add([]byte("some records"), uint8(3), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, n uint8, cut uint16) {
		k := 1 + int(n)%40
		key := make([]byte, 16)
		copy(key, data)
		ivs, src, dst, want := make([][]byte, k), make([][]byte, k), make([][]byte, k), make([][]byte, k)
		for i := range k {
			ivs[i] = make([]byte, 16)
			ivs[i][15], ivs[i][0] = byte(i), byte(cut)
			l := (int(cut) * (i + 1)) % (len(data) + 1)
			src[i] = data[:l]
			dst[i] = make([]byte, l)
			s, _ := NewCipher(key, ivs[i])
			want[i] = make([]byte, l)
			s.XORKeyStream(want[i], src[i])
		}
		var b Batch
		if err := b.XORKeyStream([][]byte{key}, ivs, dst, src); err != nil {
			t.Fatal(err)
		}
		for i := range k {
			if !bytes.Equal(dst[i], want[i]) {
				t.Fatalf("message %d of %d (%d bytes) differs", i, k, len(src[i]))
			}
		}
	})
}

// TestMACDifferential computes 128-EIA3 and the three ZUC-256 MACs of
// messages of 0 to 4 KiB (and bit lengths) with random Write splits on
// every implementation and compares the tags with the generic code's.
func TestMACDifferential(t *testing.T) {
	type tc struct {
		key16, key32, iv, msg []byte
		nbits                 int
		splits                []int
	}
	rng := rand.New(rand.NewPCG(25, 26))
	var cases []tc
	for range 60 {
		c := tc{key16: make([]byte, 16), key32: make([]byte, 32), iv: make([]byte, 23), msg: make([]byte, rng.IntN(4097))}
		fillRand(rng, c.key16)
		fillRand(rng, c.key32)
		fillRand(rng, c.iv)
		fillRand(rng, c.msg)
		c.nbits = 8*len(c.msg) - rng.IntN(8)
		if c.nbits < 0 {
			c.nbits = 0
		}
		for off := 0; off < c.nbits/8; {
			step := min(rng.IntN(300), c.nbits/8-off)
			c.splits = append(c.splits, step)
			off += step
		}
		cases = append(cases, c)
	}
	tags := func() [][]byte {
		var out [][]byte
		for _, c := range cases {
			hs := []interface {
				Write([]byte) (int, error)
				FinishBits(b, p []byte, nbits int) ([]byte, error)
			}{}
			e, _ := NewEIA3(c.key16, 5, 3, 1)
			hs = append(hs, e)
			for _, size := range []int{4, 8, 16} {
				m, _ := NewMAC256(c.key32, c.iv, size)
				hs = append(hs, m.(*MAC256))
			}
			for _, h := range hs {
				off := 0
				for _, s := range c.splits {
					h.Write(c.msg[off : off+s])
					off += s
				}
				tag, err := h.FinishBits(nil, c.msg[off:], c.nbits-8*off)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, tag)
			}
		}
		return out
	}
	impl.Select("zuc", "generic")
	want := tags()
	impl.Reset("zuc")
	forEachImpl(t, func(t *testing.T) {
		got := tags()
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				c := cases[i/4]
				t.Fatalf("case %d (%d bits, MAC %d): %x, generic %x", i/4, c.nbits, i%4, got[i], want[i])
			}
		}
	})
}
