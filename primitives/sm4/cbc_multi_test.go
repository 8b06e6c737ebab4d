// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// multiCase makes lanes random lanes of random lengths (some empty, some
// equal), with unaligned buffers; in place when inPlace.
func multiCase(r *rand.ChaCha8, lanes int, inPlace bool) (ivs, dst, src [][]byte) {
	for i := 0; i < lanes; i++ {
		var n int
		switch r.Uint64() % 4 {
		case 0:
			n = 0
		case 1:
			n = 1 + int(r.Uint64()%4)
		default:
			n = int(r.Uint64() % 301)
		}
		ivs = append(ivs, randBytes(r, BlockSize))
		s := randBytes(r, n*BlockSize)
		src = append(src, s)
		if inPlace {
			dst = append(dst, s)
		} else {
			dst = append(dst, randBytes(r, n*BlockSize+int(r.Uint64()%3)*BlockSize))
		}
	}
	return ivs, dst, src
}

func TestCBCEncryptMulti(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for i := range 150 {
				fast, ref := newTestBlock(t, r)
				lanes := int(r.Uint64() % (MaxCBCLanes + 1))
				ivs, dst, src := multiCase(r, lanes, i%3 == 0)
				want := make([][]byte, lanes)
				for j := range src {
					want[j] = make([]byte, len(src[j]))
					cipher.NewCBCEncrypter(ref, ivs[j]).CryptBlocks(want[j], src[j])
				}
				ivCopy := make([][]byte, lanes)
				for j := range ivs {
					ivCopy[j] = bytes.Clone(ivs[j])
				}
				CBCEncryptMulti(fast, ivs, dst, src)
				for j := range src {
					if !bytes.Equal(dst[j][:len(src[j])], want[j]) {
						t.Fatalf("lane %d of %d (%d blocks) differs", j, lanes, len(src[j])/BlockSize)
					}
					if !bytes.Equal(ivs[j], ivCopy[j]) {
						t.Fatalf("lane %d: IV was modified", j)
					}
				}
			}
		})
	})
}

// TestCBCEncryptMultiOtherBlock runs the lane-by-lane path for a block that
// is not *Block.
func TestCBCEncryptMultiOtherBlock(t *testing.T) {
	r := newRand(t)
	fast, ref := newTestBlock(t, r)
	ivs, dst, src := multiCase(r, 5, false)
	CBCEncryptMulti(ref, ivs, dst, src)
	for j := range src {
		want := make([]byte, len(src[j]))
		cipher.NewCBCEncrypter(fast, ivs[j]).CryptBlocks(want, src[j])
		if !bytes.Equal(dst[j][:len(src[j])], want) {
			t.Fatalf("lane %d differs", j)
		}
	}
}

func TestCBCEncryptMultiPanics(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	iv := make([]byte, 16)
	buf := make([]byte, 256)
	two := func(a, c []byte) [][]byte { return [][]byte{a, c} }
	seventeen := make([][]byte, 17)
	for i := range seventeen {
		seventeen[i] = make([]byte, 16)
	}
	for name, f := range map[string]func(){
		"counts":        func() { CBCEncryptMulti(b, [][]byte{iv}, [][]byte{buf}, two(buf[:16], buf[16:32])) },
		"too many":      func() { CBCEncryptMulti(b, seventeen, seventeen, seventeen) },
		"short IV":      func() { CBCEncryptMulti(b, [][]byte{iv[:15]}, [][]byte{buf[:16]}, [][]byte{buf[16:32]}) },
		"partial block": func() { CBCEncryptMulti(b, [][]byte{iv}, [][]byte{buf[:32]}, [][]byte{buf[32:49]}) },
		"short dst":     func() { CBCEncryptMulti(b, [][]byte{iv}, [][]byte{buf[:16]}, [][]byte{buf[32:64]}) },
		"inexact":       func() { CBCEncryptMulti(b, [][]byte{iv}, [][]byte{buf[16:48]}, [][]byte{buf[:32]}) },
		"lanes overlap": func() { CBCEncryptMulti(b, two(iv, iv), two(buf[:32], buf[16:48]), two(buf[64:96], buf[96:128])) },
		"dst over src":  func() { CBCEncryptMulti(b, two(iv, iv), two(buf[:32], buf[64:96]), two(buf[128:160], buf[16:48])) },
		"8-byte block":  func() { CBCEncryptMulti(blockSize8{b}, [][]byte{iv}, [][]byte{buf[:16]}, [][]byte{buf[16:32]}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
	// Exactly in place is allowed.
	CBCEncryptMulti(b, two(iv, iv), two(buf[:32], buf[64:96]), two(buf[:32], buf[64:96]))
}

func TestCBCEncryptMultiAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	b, _ := NewCipher(make([]byte, 16))
	var ivs, bufs [][]byte
	for i := 0; i < MaxCBCLanes; i++ {
		ivs = append(ivs, make([]byte, 16))
		bufs = append(bufs, make([]byte, 1024+16*i))
	}
	impl.ForEach("sm4", func(name string) {
		for _, lanes := range []int{1, 2, 16} {
			if n := testing.AllocsPerRun(20, func() { CBCEncryptMulti(b, ivs[:lanes], bufs[:lanes], bufs[:lanes]) }); n != 0 {
				t.Errorf("%s, %d lanes: %v allocations per run, want 0", name, lanes, n)
			}
		}
	})
}

func FuzzCBCEncryptMulti(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), bytes.Repeat([]byte{1}, 200), uint8(5), uint8(3))
	f.Fuzz(func(t *testing.T, key, data []byte, lanes, step uint8) {
		if len(key) != 16 {
			return
		}
		b, _ := NewCipher(key)
		n := int(lanes)%MaxCBCLanes + 1
		var ivs, dst, src [][]byte
		for i := 0; i < n; i++ {
			l := (i * int(step) * BlockSize) % (len(data) + 1) &^ (BlockSize - 1)
			s := data[:l]
			ivs = append(ivs, bytes.Repeat([]byte{byte(i)}, 16))
			src = append(src, s)
			dst = append(dst, make([]byte, len(s)))
		}
		CBCEncryptMulti(b, ivs, dst, src)
		for i := range src {
			want := make([]byte, len(src[i]))
			cipher.NewCBCEncrypter(plainBlock{b}, ivs[i]).CryptBlocks(want, src[i])
			if !bytes.Equal(dst[i], want) {
				t.Fatalf("lane %d differs", i)
			}
		}
	})
}
