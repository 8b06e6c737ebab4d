// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import (
	"bytes"
	"crypto/hmac"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/internal/testvec"
)

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// randomLength favours the lengths around block and padding boundaries.
func randomLength(rng *rand.Rand, limit int) int {
	switch rng.IntN(4) {
	case 0:
		return rng.IntN(limit + 1)
	case 1:
		return rng.IntN(3 * BlockSize)
	case 2:
		n := rng.IntN(limit/BlockSize+1) * BlockSize
		return max(0, min(limit, n+rng.IntN(17)-8))
	}
	return rng.IntN(16)
}

// unaligned returns a copy of b at an odd offset in a larger buffer.
func unaligned(rng *rand.Rand, b []byte) []byte {
	off := 1 + rng.IntN(63)
	buf := make([]byte, off+len(b)+rng.IntN(8))
	copy(buf[off:], b)
	return buf[off : off+len(b)]
}

func TestSumMulti(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	forEachImpl(t, func(t *testing.T) {
		for iter := range 300 {
			n := rng.IntN(2*maxLanes + 2)
			if iter < 2*maxLanes+2 {
				n = iter
			}
			msgs := make([][]byte, n)
			for i := range msgs {
				msgs[i] = unaligned(rng, randomBytes(rng, randomLength(rng, 4096)))
			}
			dst := make([][Size]byte, n+1)
			SumMulti(dst, msgs)
			for i, m := range msgs {
				if want := Sum(m); dst[i] != want {
					t.Fatalf("%d messages: SumMulti[%d] (len %d) = %x, want %x", n, i, len(m), dst[i], want)
				}
			}
			if dst[n] != ([Size]byte{}) {
				t.Fatalf("SumMulti wrote past the messages")
			}
		}
		// Every lane empty, or all but one.
		for n := 1; n <= maxLanes; n++ {
			msgs := make([][]byte, n)
			msgs[n-1] = randomBytes(rng, 5000)
			dst := make([][Size]byte, n)
			SumMulti(dst, msgs)
			for i, m := range msgs {
				if want := Sum(m); dst[i] != want {
					t.Fatalf("%d messages, %d empty: SumMulti[%d] = %x, want %x", n, n-1, i, dst[i], want)
				}
			}
		}
	})
}

func TestSumMultiVectors(t *testing.T) {
	vectors, err := testvec.Load[sm3Vector]("sm3.json")
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][]byte
	for _, v := range vectors {
		msgs = append(msgs, v.message())
	}
	forEachImpl(t, func(t *testing.T) {
		dst := make([][Size]byte, len(msgs))
		SumMulti(dst, msgs)
		for i, v := range vectors {
			if !bytes.Equal(dst[i][:], v.Digest) {
				t.Errorf("%s: SumMulti = %x, want %x", v.ID, dst[i], v.Digest)
			}
		}
	})
}

func TestSumMultiShortDst(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SumMulti with a short destination did not panic")
		}
	}()
	SumMulti(make([][Size]byte, 1), make([][]byte, 2))
}

func TestHMACBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	keys := make([][]byte, 5)
	hkeys := make([]*HMACKey, len(keys))
	for i := range keys {
		keys[i] = randomBytes(rng, []int{0, 16, 32, 64, 65, 200}[rng.IntN(6)])
		hkeys[i] = NewHMACKey(keys[i])
	}
	forEachImpl(t, func(t *testing.T) {
		b := new(HMACBatch)
		for iter := range 200 {
			n := 1 + rng.IntN(MaxBatch)
			if iter < MaxBatch {
				n = iter + 1
			}
			type msg struct {
				key   int
				parts [][]byte
			}
			msgs := make([]msg, n)
			for i := range msgs {
				m := &msgs[i]
				m.key = rng.IntN(len(keys))
				for range rng.IntN(4) + 1 {
					m.parts = append(m.parts, unaligned(rng, randomBytes(rng, randomLength(rng, 2048))))
				}
				if rng.IntN(2) == 0 {
					// The TLCP record shape: a 13-byte header and a body.
					m.parts = [][]byte{randomBytes(rng, 13), randomBytes(rng, randomLength(rng, 17000))}
				}
				b.Add(hkeys[m.key], m.parts...)
			}
			if b.Len() != n {
				t.Fatalf("Len = %d, want %d", b.Len(), n)
			}
			macs := make([][Size]byte, n)
			b.Sum(macs)
			if b.Len() != 0 {
				t.Fatalf("Len after Sum = %d", b.Len())
			}
			for i, m := range msgs {
				h := hmac.New(New, keys[m.key])
				for _, p := range m.parts {
					h.Write(p)
				}
				if want := h.Sum(nil); !bytes.Equal(macs[i][:], want) {
					t.Fatalf("batch of %d, message %d: %x, want %x", n, i, macs[i], want)
				}
			}
		}
	})
}

func TestHMACBatchVectors(t *testing.T) {
	type hmacVector struct {
		ID      string      `json:"id"`
		Key     testvec.Hex `json:"key_hex"`
		Message testvec.Hex `json:"message_hex"`
		MAC     testvec.Hex `json:"mac_hex"`
	}
	vectors, err := testvec.Load[hmacVector]("hmac_sm3.json")
	if err != nil {
		t.Fatal(err)
	}
	forEachImpl(t, func(t *testing.T) {
		var b HMACBatch
		for len(vectors) > 0 {
			n := min(len(vectors), MaxBatch)
			for _, v := range vectors[:n] {
				b.Add(NewHMACKey(v.Key), v.Message)
			}
			macs := make([][Size]byte, n)
			b.Sum(macs)
			for i, v := range vectors[:n] {
				if !bytes.Equal(macs[i][:], v.MAC) {
					t.Errorf("%s: HMACBatch = %x, want %x", v.ID, macs[i], v.MAC)
				}
			}
			vectors = vectors[n:]
		}
	})
}

func TestHMACBatchLimits(t *testing.T) {
	k := NewHMACKey(nil)
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	var b HMACBatch
	for range MaxBatch {
		b.Add(k, nil)
	}
	mustPanic("Add to a full batch", func() { b.Add(k, nil) })
	mustPanic("Sum into a short slice", func() { b.Sum(make([][Size]byte, MaxBatch-1)) })
	b.Reset()
	if b.Len() != 0 {
		t.Fatal("Reset left messages")
	}
	b.Add(k, make([][]byte, MaxBatchParts)...)
	mustPanic("Add beyond MaxBatchParts", func() { b.Add(k, nil) })
	b.Reset()
	b.Add(k)
	var mac [1][Size]byte
	b.Sum(mac[:])
	h := hmac.New(New, nil)
	if !bytes.Equal(mac[0][:], h.Sum(nil)) {
		t.Error("MAC of a message without parts differs from crypto/hmac's of the empty message")
	}
}

func TestKDFEveryLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	forEachImpl(t, func(t *testing.T) {
		for _, zl := range []int{0, 3, 32, 51, 52, 55, 56, 64, 65, 100, 128, 130} {
			z := randomBytes(rng, zl)
			want := refKDF(z, 2048)
			got := make([]byte, 2049)
			for n := 0; n <= 2048; n++ {
				got[n] = 0xaa
				KDFInto(got[:n], z[:zl/2], z[zl/2:])
				if !bytes.Equal(got[:n], want[:n]) || got[n] != 0xaa {
					t.Fatalf("z %d bytes, %d out: KDFInto = %x, want %x", zl, n, got[:n], want[:n])
				}
			}
		}
	})
}

func TestBatchAllocations(t *testing.T) {
	msgs := make([][]byte, MaxBatch)
	for i := range msgs {
		msgs[i] = make([]byte, 100*i)
	}
	dst := make([][Size]byte, len(msgs))
	k := NewHMACKey([]byte("key"))
	b := new(HMACBatch)
	hdr := make([]byte, 13)
	macs := make([][Size]byte, MaxBatch)
	kdfOut := make([]byte, 1024)
	forEachImpl(t, func(t *testing.T) {
		if n := testing.AllocsPerRun(10, func() { SumMulti(dst, msgs) }); n != 0 {
			t.Errorf("SumMulti allocates %v times", n)
		}
		if n := testing.AllocsPerRun(10, func() {
			for i := range MaxBatch {
				b.Add(k, hdr, msgs[i])
			}
			b.Sum(macs)
		}); n != 0 {
			t.Errorf("HMACBatch allocates %v times", n)
		}
		if n := testing.AllocsPerRun(10, func() { KDFInto(kdfOut, msgs[1][:64]) }); n != 0 {
			t.Errorf("KDFInto of 1 KiB allocates %v times", n)
		}
	})
}

// splitFuzz cuts data into up to n pieces at the positions given by cuts.
func splitFuzz(data []byte, cuts []byte, n int) [][]byte {
	var out [][]byte
	for i := 0; i < n-1 && i < len(cuts); i++ {
		c := int(cuts[i]) * 16 % (len(data) + 1)
		out = append(out, data[:c])
		data = data[c:]
	}
	return append(out, data)
}

func FuzzSumMulti(f *testing.F) {
	f.Add(bytes.Repeat([]byte("abc"), 100), []byte{1, 2, 3}, uint8(4))
	f.Add([]byte{}, []byte{}, uint8(16))
	f.Add(bytes.Repeat([]byte{0xff}, 3000), []byte{200, 0, 7, 64, 3}, uint8(17))
	f.Fuzz(func(t *testing.T, data, cuts []byte, n uint8) {
		msgs := splitFuzz(data, cuts, int(n%33)+1)
		impl.ForEach("sm3", func(name string) {
			dst := make([][Size]byte, len(msgs))
			SumMulti(dst, msgs)
			for i, m := range msgs {
				if want := refSum(m); dst[i] != want {
					t.Fatalf("%s: SumMulti[%d] (len %d) = %x, reference %x", name, i, len(m), dst[i], want)
				}
			}
		})
	})
}

func FuzzHMACBatch(f *testing.F) {
	f.Add([]byte("key"), bytes.Repeat([]byte("record"), 50), []byte{1, 13, 2, 40}, uint8(3))
	f.Add([]byte{}, []byte{}, []byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, key, data, cuts []byte, n uint8) {
		msgs := splitFuzz(data, cuts, int(n%MaxBatch)+1)
		k := NewHMACKey(key)
		impl.ForEach("sm3", func(name string) {
			var b HMACBatch
			for i, m := range msgs {
				// Message i in i%3+1 parts.
				b.Add(k, splitFuzz(m, []byte{byte(i), byte(i * 5)}, i%3+1)...)
			}
			macs := make([][Size]byte, len(msgs))
			b.Sum(macs)
			for i, m := range msgs {
				h := hmac.New(New, key)
				h.Write(m)
				if want := h.Sum(nil); !bytes.Equal(macs[i][:], want) {
					t.Fatalf("%s: MAC %d = %x, want %x", name, i, macs[i], want)
				}
			}
		})
	})
}

func FuzzKDF(f *testing.F) {
	f.Add([]byte("shared secret"), uint16(1000))
	f.Add(make([]byte, 64), uint16(32))
	f.Add(make([]byte, 61), uint16(2048))
	f.Fuzz(func(t *testing.T, z []byte, n uint16) {
		n %= 4096
		want := refKDF(z, int(n))
		impl.ForEach("sm3", func(name string) {
			if got := KDF(z, int(n)); !bytes.Equal(got, want) {
				t.Fatalf("%s: KDF(%d-byte z, %d) = %x, want %x", name, len(z), n, got, want)
			}
		})
	})
}

// TestAllKernels runs the batch code with every kernel the CPU has enabled
// at once, as in production (impl.ForEach enables them one at a time).
func TestAllKernels(t *testing.T) {
	impl.Reset("sm3")
	rng := rand.New(rand.NewPCG(13, 14))
	for range 50 {
		msgs := make([][]byte, rng.IntN(2*maxLanes+1))
		for i := range msgs {
			msgs[i] = randomBytes(rng, randomLength(rng, 4096))
		}
		dst := make([][Size]byte, len(msgs))
		SumMulti(dst, msgs)
		var b HMACBatch
		k := NewHMACKey([]byte("key"))
		for _, m := range msgs[:min(len(msgs), MaxBatch)] {
			b.Add(k, m[:len(m)/3], m[len(m)/3:])
		}
		macs := make([][Size]byte, b.Len())
		b.Sum(macs)
		for i, m := range msgs {
			if want := refSum(m); dst[i] != want {
				t.Fatalf("SumMulti[%d] = %x, want %x", i, dst[i], want)
			}
			if i < len(macs) {
				h := hmac.New(New, []byte("key"))
				h.Write(m)
				if !bytes.Equal(macs[i][:], h.Sum(nil)) {
					t.Fatalf("HMACBatch[%d] differs from crypto/hmac", i)
				}
			}
		}
		z := randomBytes(rng, rng.IntN(200))
		n := rng.IntN(2048)
		if got, want := KDF(z, n), refKDF(z, n); !bytes.Equal(got, want) {
			t.Fatalf("KDF(%d-byte z, %d) differs from the reference", len(z), n)
		}
	}
}

// TestHMACKeyMAC: HMACKey.MAC of split parts equals crypto/hmac of their
// concatenation, for keys shorter and longer than a block.
func TestHMACKeyMAC(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		key := make([]byte, rng.IntN(150))
		msg := make([]byte, rng.IntN(300))
		for j := range key {
			key[j] = byte(rng.Uint32())
		}
		for j := range msg {
			msg[j] = byte(rng.Uint32())
		}
		cut := rng.IntN(len(msg) + 1)
		h := hmac.New(New, key)
		h.Write(msg)
		want := h.Sum(nil)
		got := NewHMACKey(key).MAC([]byte("prefix"), msg[:cut], nil, msg[cut:])
		if string(got) != "prefix"+string(want) {
			t.Fatalf("key %d bytes, message %d bytes cut at %d: MAC differs", len(key), len(msg), cut)
		}
	}
}

// TestHMACKeySum: HMACKey.Sum equals crypto/hmac for every message length
// across the one-call layout's limit (shortMax), in three parts, through
// every kernel, and does not allocate.
func TestHMACKeySum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	forEachImpl(t, func(t *testing.T) {
		for n := 0; n <= shortMax+70; n++ {
			key, msg := randomBytes(rng, rng.IntN(100)), randomBytes(rng, n)
			h := hmac.New(New, key)
			h.Write(msg)
			want := h.Sum(nil)
			c1 := rng.IntN(n + 1)
			c2 := c1 + rng.IntN(n-c1+1)
			var got [Size]byte
			NewHMACKey(key).Sum(&got, msg[:c1], msg[c1:c2], msg[c2:])
			if !bytes.Equal(got[:], want) {
				t.Fatalf("key %d bytes, message %d bytes cut at %d, %d: Sum differs", len(key), n, c1, c2)
			}
		}
	})
	// The output may be one of the parts, as a P_hash chains A(i).
	for _, n := range []int{0, 40, shortMax - Size, shortMax - Size + 1, 300} {
		k := NewHMACKey([]byte("chain"))
		msg := randomBytes(rng, n)
		var a [Size]byte
		copy(a[:], randomBytes(rng, Size))
		h := hmac.New(New, []byte("chain"))
		h.Write(a[:])
		h.Write(msg)
		want := h.Sum(nil)
		k.Sum(&a, a[:], msg)
		if !bytes.Equal(a[:], want) {
			t.Fatalf("Sum into its own first part (%d more bytes) differs", n)
		}
	}
	k := NewHMACKey([]byte("key"))
	short, long := make([]byte, shortMax), make([]byte, 300)
	var mac [Size]byte
	if n := testing.AllocsPerRun(100, func() {
		k.Sum(&mac, short)
		k.Sum(&mac, mac[:], long)
	}); n != 0 {
		t.Errorf("Sum allocates %v times", n)
	}
}

// TestKDFShort covers the one-call path for one output block of a short
// z, around its limit and the one- and two-block layouts, with z in parts.
func TestKDFShort(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	forEachImpl(t, func(t *testing.T) {
		for zl := 0; zl <= kdfShortMax+20; zl++ {
			z := randomBytes(rng, zl)
			for _, n := range []int{1, 16, 31, 32, 33} {
				want := refKDF(z, n)
				got := make([]byte, n)
				cut := rng.IntN(zl + 1)
				KDFInto(got, z[:cut], z[cut:])
				if !bytes.Equal(got, want) {
					t.Fatalf("KDF(%d-byte z in two parts, %d) = %x, want %x", zl, n, got, want)
				}
			}
		}
	})
}
