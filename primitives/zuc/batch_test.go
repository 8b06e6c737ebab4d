// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// forEachLanes runs f once per implementation and, for the generic code,
// also with the generic kernels posing as multi-lane kernels of 2, 3 and
// 16 lanes, so that the Batch scheduling is tested on every CPU.
func forEachLanes(t *testing.T, f func(t *testing.T)) {
	forEachImpl(t, func(t *testing.T) {
		f(t)
		if laneCount() == 0 {
			for _, n := range []int{2, 3, 16} {
				t.Run(fmt.Sprintf("lanes%d", n), func(t *testing.T) {
					testLanes = n
					defer func() { testLanes = 0 }()
					f(t)
				})
			}
		}
	})
}

// randomLengths returns n message lengths: mostly short, some several
// chunks long, with repeats, so that groups finish at different times.
func randomLengths(rng *rand.Rand, n int) []int {
	lens := make([]int, n)
	for i := range lens {
		switch rng.IntN(6) {
		case 0:
			lens[i] = rng.IntN(8)
		case 1:
			lens[i] = 64 * rng.IntN(40)
		case 2:
			lens[i] = rng.IntN(4097)
		case 3:
			lens[i] = 1024*rng.IntN(3) + rng.IntN(130)
		default:
			lens[i] = rng.IntN(300)
		}
	}
	return lens
}

func TestBatchXORKeyStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	forEachLanes(t, func(t *testing.T) {
		var b Batch
		for trial := range 40 {
			n := 1 + rng.IntN(40)
			if trial < 4 {
				n = trial + 1
			}
			lens := randomLengths(rng, n)
			keys := make([][]byte, n)
			ivs := make([][]byte, n)
			src := make([][]byte, n)
			dst := make([][]byte, n)
			want := make([][]byte, n)
			shared := trial%3 == 0
			for i := range n {
				kl := 16
				if !shared && rng.IntN(3) == 0 || shared && trial%2 == 1 {
					kl = 32
				}
				keys[i] = make([]byte, kl)
				fillRand(rng, keys[i])
				if shared {
					kl = len(keys[0])
					keys[i] = keys[0]
				}
				ivl := map[int]int{16: 16, 32: 23}[kl]
				if kl == 32 && rng.IntN(2) == 0 {
					ivl = 25
				}
				ivs[i] = make([]byte, ivl)
				fillRand(rng, ivs[i])
				if ivl == 25 {
					for k := 17; k < 25; k++ {
						ivs[i][k] &= 0x3f
					}
				}
				src[i] = make([]byte, lens[i])
				fillRand(rng, src[i])
				s, err := NewCipher(keys[i], ivs[i])
				if err != nil {
					t.Fatal(err)
				}
				want[i] = make([]byte, lens[i])
				s.XORKeyStream(want[i], src[i])
				// In place for some, out of place (and unaligned) for others.
				if rng.IntN(2) == 0 {
					dst[i] = src[i]
				} else {
					dst[i] = make([]byte, lens[i]+3)[rng.IntN(4):]
				}
			}
			if shared {
				keys = keys[:1]
			}
			if err := b.XORKeyStream(keys, ivs, dst, src); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if !bytes.Equal(dst[i][:lens[i]], want[i]) {
					t.Fatalf("trial %d: message %d of %d (%d bytes, key %d) differs", trial, i, n, lens[i], len(keys[min(i, len(keys)-1)]))
				}
			}
		}
	})
}

func TestBatchEEA3EIA3(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	forEachLanes(t, func(t *testing.T) {
		var b Batch
		for trial := range 30 {
			n := 1 + rng.IntN(36)
			lens := randomLengths(rng, n)
			enc := make([]EEA3Message, n)
			macs := make([]EIA3Message, n)
			for i := range n {
				key := make([]byte, 16)
				fillRand(rng, key)
				bits := 8*lens[i] - rng.IntN(8)
				if bits < 0 {
					bits = 0
				}
				msg := make([]byte, lens[i])
				fillRand(rng, msg)
				count, bearer, dir := rng.Uint32(), rng.Uint32N(32), rng.Uint32N(2)
				enc[i] = EEA3Message{Key: key, Count: count, Bearer: bearer, Direction: dir,
					Bits: bits, Src: msg, Dst: make([]byte, len(msg))}
				macs[i] = EIA3Message{Key: key, Count: count, Bearer: bearer, Direction: dir,
					Bits: bits, Message: msg}
			}
			if err := b.EEA3(enc); err != nil {
				t.Fatal(err)
			}
			if err := b.EIA3(macs); err != nil {
				t.Fatal(err)
			}
			for i, m := range enc {
				want := make([]byte, len(m.Src))
				if err := EEA3Bits(m.Key, m.Count, m.Bearer, m.Direction, want, m.Src, m.Bits); err != nil {
					t.Fatal(err)
				}
				nb := (m.Bits + 7) / 8
				if !bytes.Equal(m.Dst[:nb], want[:nb]) {
					t.Fatalf("trial %d: EEA3 message %d (%d bits) differs", trial, i, m.Bits)
				}
				h, _ := NewEIA3(m.Key, m.Count, m.Bearer, m.Direction)
				wantMAC, _ := h.FinishBits(nil, m.Src, m.Bits)
				if !bytes.Equal(macs[i].MAC[:], wantMAC) {
					t.Fatalf("trial %d: EIA3 message %d of %d (%d bits): %x, want %x", trial, i, n, m.Bits, macs[i].MAC, wantMAC)
				}
			}
		}
	})
}

func TestBatchVectors(t *testing.T) {
	vs := load[vec128](t, "zuc128.json")
	forEachLanes(t, func(t *testing.T) {
		var enc []EEA3Message
		var macs []EIA3Message
		var wantCT, wantMAC [][]byte
		for _, v := range vs {
			switch v.Kind {
			case "eea3":
				enc = append(enc, EEA3Message{Key: v.Key, Count: v.Count, Bearer: v.Bearer, Direction: v.Direction,
					Bits: v.LengthBits, Src: v.Plaintext, Dst: make([]byte, len(v.Plaintext))})
				wantCT = append(wantCT, maskBits(v.Ciphertext, v.LengthBits))
			case "eia3":
				macs = append(macs, EIA3Message{Key: v.Key, Count: v.Count, Bearer: v.Bearer, Direction: v.Direction,
					Bits: v.LengthBits, Message: v.Message})
				wantMAC = append(wantMAC, v.MAC)
			}
		}
		var b Batch
		if err := b.EEA3(enc); err != nil {
			t.Fatal(err)
		}
		if err := b.EIA3(macs); err != nil {
			t.Fatal(err)
		}
		for i := range enc {
			if got := enc[i].Dst[:len(wantCT[i])]; !bytes.Equal(got, wantCT[i]) {
				t.Errorf("EEA3 vector %d: %x, want %x", i, got, wantCT[i])
			}
		}
		for i := range macs {
			if !bytes.Equal(macs[i].MAC[:], wantMAC[i]) {
				t.Errorf("EIA3 vector %d: %x, want %x", i, macs[i].MAC, wantMAC[i])
			}
		}
	})
}

func TestBatchBadInputs(t *testing.T) {
	var b Batch
	k := make([]byte, 16)
	iv := make([]byte, 16)
	buf := make([]byte, 10)
	for name, f := range map[string]func() error{
		"counts": func() error { return b.XORKeyStream([][]byte{k}, [][]byte{iv, iv}, [][]byte{buf}, [][]byte{buf}) },
		"keys": func() error {
			return b.XORKeyStream([][]byte{k, k}, [][]byte{iv, iv, iv}, make([][]byte, 3), make([][]byte, 3))
		},
		"key size": func() error { return b.XORKeyStream([][]byte{k[:15]}, [][]byte{iv}, [][]byte{buf}, [][]byte{buf}) },
		"iv size":  func() error { return b.XORKeyStream([][]byte{k}, [][]byte{iv[:15]}, [][]byte{buf}, [][]byte{buf}) },
		"256 iv": func() error {
			return b.XORKeyStream([][]byte{make([]byte, 32)}, [][]byte{iv}, [][]byte{buf}, [][]byte{buf})
		},
		"256 iv bits": func() error {
			return b.XORKeyStream([][]byte{make([]byte, 32)}, [][]byte{bytes.Repeat([]byte{0xff}, 25)}, [][]byte{buf}, [][]byte{buf})
		},
		"short dst":   func() error { return b.XORKeyStream([][]byte{k}, [][]byte{iv}, [][]byte{buf[:3]}, [][]byte{buf}) },
		"overlap":     func() error { return b.XORKeyStream([][]byte{k}, [][]byte{iv}, [][]byte{buf[1:]}, [][]byte{buf[:9]}) },
		"eea3 key":    func() error { return b.EEA3([]EEA3Message{{Key: k[:8], Bits: 8, Src: buf, Dst: buf}}) },
		"eea3 bearer": func() error { return b.EEA3([]EEA3Message{{Key: k, Bearer: 32, Bits: 8, Src: buf, Dst: buf}}) },
		"eea3 bits":   func() error { return b.EEA3([]EEA3Message{{Key: k, Bits: 81, Src: buf, Dst: buf}}) },
		"eea3 neg":    func() error { return b.EEA3([]EEA3Message{{Key: k, Bits: -1, Src: buf, Dst: buf}}) },
		"eea3 over":   func() error { return b.EEA3([]EEA3Message{{Key: k, Bits: 72, Src: buf[:9], Dst: buf[1:]}}) },
		"eia3 dir":    func() error { return b.EIA3([]EIA3Message{{Key: k, Direction: 2, Bits: 8, Message: buf}}) },
		"eia3 bits":   func() error { return b.EIA3([]EIA3Message{{Key: k, Bits: 81, Message: buf}}) },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Empty batches are fine.
	if err := b.XORKeyStream([][]byte{k}, nil, nil, nil); err != nil {
		t.Error(err)
	}
	if err := b.EIA3(nil); err != nil {
		t.Error(err)
	}
}

func TestBatchAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts are slow to measure")
	}
	const n = 20
	key := make([]byte, 16)
	ivs := make([][]byte, n)
	bufs := make([][]byte, n)
	enc := make([]EEA3Message, n)
	macs := make([]EIA3Message, n)
	for i := range n {
		ivs[i] = make([]byte, 16)
		ivs[i][15] = byte(i)
		bufs[i] = make([]byte, 100*i)
		enc[i] = EEA3Message{Key: key, Count: uint32(i), Bits: 800 * i, Src: bufs[i], Dst: bufs[i]}
		macs[i] = EIA3Message{Key: key, Count: uint32(i), Bits: 800*i - 3*(i%2), Message: bufs[i]}
	}
	forEachLanes(t, func(t *testing.T) {
		var b Batch
		for name, f := range map[string]func(){
			"XORKeyStream":  func() { b.XORKeyStream([][]byte{key}, ivs, bufs, bufs) },
			"XORKeyStream1": func() { b.XORKeyStream([][]byte{key}, ivs[5:6], bufs[5:6], bufs[5:6]) },
			"EEA3":          func() { b.EEA3(enc) },
			"EIA3":          func() { b.EIA3(macs) },
		} {
			f()
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%s: %v allocations", name, a)
			}
		}
	})
}
