// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"math/rand/v2"
	"testing"
)

// secretCase is one message of a secret-length test batch.
type secretCase struct {
	key        int
	secret     bool
	head, body []byte
	n, minN    int
}

func (c *secretCase) want(keys [][]byte) []byte {
	h := hmac.New(New, keys[c.key])
	h.Write(c.head)
	if c.secret {
		h.Write(c.body[:c.n])
	} else {
		h.Write(c.body)
	}
	return h.Sum(nil)
}

func randomSecretCase(rng *rand.Rand, nkeys int) secretCase {
	c := secretCase{key: rng.IntN(nkeys), secret: rng.IntN(4) != 0}
	c.head = randomBytes(rng, []int{0, 1, 13, 13, 13, 63, 64, 65, 130}[rng.IntN(9)])
	c.body = randomBytes(rng, randomLength(rng, 17000))
	span := min(len(c.body), []int{0, 1, 255, 255, MaxSecretSpan, rng.IntN(MaxSecretSpan + 1)}[rng.IntN(6)])
	c.minN = len(c.body) - span
	c.n = c.minN + rng.IntN(span+1)
	switch rng.IntN(4) {
	case 0:
		c.n = c.minN
	case 1:
		c.n = len(c.body)
	}
	c.head, c.body = unaligned(rng, c.head), unaligned(rng, c.body)
	return c
}

func TestHMACBatchSecretLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	keys := make([][]byte, 4)
	hkeys := make([]*HMACKey, len(keys))
	for i := range keys {
		keys[i] = randomBytes(rng, []int{0, 32, 64, 100}[i])
		hkeys[i] = NewHMACKey(keys[i])
	}
	forEachImpl(t, func(t *testing.T) {
		b := new(HMACBatch)
		for iter := range 300 {
			n := 1 + rng.IntN(MaxBatch)
			if iter < MaxBatch {
				n = iter + 1
			}
			cases := make([]secretCase, n)
			for i := range cases {
				c := &cases[i]
				*c = randomSecretCase(rng, len(keys))
				if c.secret {
					b.AddSecretLength(hkeys[c.key], c.head, c.body, c.n, c.minN)
				} else {
					b.Add(hkeys[c.key], c.head, c.body)
				}
			}
			macs := make([][Size]byte, n)
			b.Sum(macs)
			for i := range cases {
				c := &cases[i]
				if want := c.want(keys); !bytes.Equal(macs[i][:], want) {
					t.Fatalf("iter %d, batch of %d, message %d (secret %v, head %d, body %d, n %d, minN %d): %x, want %x",
						iter, n, i, c.secret, len(c.head), len(c.body), c.n, c.minN, macs[i], want)
				}
			}
		}
	})
}

// TestHMACBatchSecretLengthEveryN checks every n of a range, at every
// alignment of the range to the blocks, in one batch and alone.
func TestHMACBatchSecretLengthEveryN(t *testing.T) {
	key := []byte("secret-length key")
	k := NewHMACKey(key)
	forEachImpl(t, func(t *testing.T) {
		b := new(HMACBatch)
		for _, bodyLen := range []int{0, 5, 255, 300, 1000} {
			for shift := range 64 {
				body := bytes.Repeat([]byte{byte(shift)}, bodyLen+shift)
				head := []byte("0123456789abc")
				minN := max(0, len(body)-255)
				for n := minN; n <= len(body); {
					var ns []int
					for len(ns) < MaxBatch && n <= len(body) {
						ns = append(ns, n)
						n++
					}
					for _, v := range ns {
						b.AddSecretLength(k, head, body, v, minN)
					}
					macs := make([][Size]byte, len(ns))
					b.Sum(macs)
					for i, v := range ns {
						h := hmac.New(New, key)
						h.Write(head)
						h.Write(body[:v])
						if want := h.Sum(nil); !bytes.Equal(macs[i][:], want) {
							t.Fatalf("body %d, n %d: %x, want %x", len(body), v, macs[i], want)
						}
					}
				}
			}
		}
	})
}

// TestHMACBatchSecretLengthConstantWork checks the timing property: for
// the same buffers and ranges, every compression call of a batch (kernel
// width, block addresses, block count) is the same whatever the secret
// lengths are.
func TestHMACBatchSecretLengthConstantWork(t *testing.T) {
	defer func() { testHookBlocks = nil }()
	rng := rand.New(rand.NewPCG(13, 14))
	forEachImpl(t, func(t *testing.T) {
		for iter := range 60 {
			nmsg := 1 + rng.IntN(MaxBatch)
			cases := make([]secretCase, nmsg)
			for i := range cases {
				cases[i] = randomSecretCase(rng, 1)
			}
			k := NewHMACKey([]byte("k"))
			var trace bytes.Buffer
			testHookBlocks = func(w int, p *[16]uintptr, n int) {
				fmt.Fprintf(&trace, "%d %d %v\n", w, n, p[:w])
			}
			b := new(HMACBatch) // the same addresses in every run
			run := func() string {
				trace.Reset()
				for i := range cases {
					c := &cases[i]
					if c.secret {
						b.AddSecretLength(k, c.head, c.body, c.n, c.minN)
					} else {
						b.Add(k, c.head, c.body)
					}
				}
				macs := make([][Size]byte, nmsg)
				b.Sum(macs)
				return trace.String()
			}
			want := run()
			for range 4 {
				for i := range cases {
					if c := &cases[i]; c.secret {
						c.n = c.minN + rng.IntN(len(c.body)-c.minN+1)
					}
				}
				if got := run(); got != want {
					t.Fatalf("iter %d: the compressions changed with the secret lengths:\n%s\nwant\n%s", iter, got, want)
				}
			}
		}
	})
}

func TestAddSecretLengthLimits(t *testing.T) {
	k := NewHMACKey(nil)
	body := make([]byte, 1000)
	for _, c := range []struct{ body, minN int }{{1000, -1}, {1000, 1001}, {1000, 1000 - MaxSecretSpan - 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("body %d, minN %d: no panic", c.body, c.minN)
				}
			}()
			var b HMACBatch
			b.AddSecretLength(k, nil, body[:c.body], c.body, c.minN)
		}()
	}
	var b HMACBatch
	for range MaxBatch {
		b.AddSecretLength(k, nil, body, 1000, 1000-MaxSecretSpan)
	}
	defer func() {
		if recover() == nil {
			t.Error("AddSecretLength on a full batch did not panic")
		}
	}()
	b.AddSecretLength(k, nil, body, 1000, 1000)
}

// FuzzAddSecretLength compares AddSecretLength, alone and in a batch with
// other messages, with crypto/hmac over head || body[:n].
func FuzzAddSecretLength(f *testing.F) {
	f.Add([]byte("key"), []byte("0123456789abc"), bytes.Repeat([]byte{7}, 300), uint16(20), uint16(255))
	f.Add([]byte{}, []byte{}, []byte{}, uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, key, head, body []byte, back, span uint16) {
		s := min(int(span), MaxSecretSpan, len(body))
		minN := len(body) - s
		n := len(body) - min(int(back), s)
		h := hmac.New(New, key)
		h.Write(head)
		h.Write(body[:n])
		want := h.Sum(nil)
		k := NewHMACKey(key)
		for _, others := range []int{0, 1, 2, MaxBatch - 1} {
			var b HMACBatch
			for range others {
				b.Add(k, head)
			}
			b.AddSecretLength(k, head, body, n, minN)
			macs := make([][Size]byte, others+1)
			b.Sum(macs)
			if !bytes.Equal(macs[others][:], want) {
				t.Fatalf("with %d others: %x, want %x", others, macs[others], want)
			}
		}
	})
}

// TestSumSecretLength checks the one-record form against crypto/hmac for
// every n of a range at every alignment, that its tail compressions read
// the same blocks whatever n is, and its bounds.
func TestSumSecretLength(t *testing.T) {
	defer func() { testHookBlocks = nil }()
	key := []byte("secret-length key")
	k := NewHMACKey(key)
	head := []byte("0123456789abc")
	for _, bodyLen := range []int{0, 5, 255, 300, 1000} {
		for shift := range 64 {
			body := bytes.Repeat([]byte{byte(shift)}, bodyLen+shift)
			minN := max(0, len(body)-255)
			var first string
			for n := minN; n <= len(body); n++ {
				var trace bytes.Buffer
				testHookBlocks = func(w int, p *[16]uintptr, c int) { fmt.Fprintf(&trace, "%d %d|", w, c) }
				var mac [Size]byte
				k.SumSecretLength(&mac, head, body, n, minN)
				testHookBlocks = nil
				h := hmac.New(New, key)
				h.Write(head)
				h.Write(body[:n])
				if want := h.Sum(nil); !bytes.Equal(mac[:], want) {
					t.Fatalf("body %d, n %d: %x, want %x", len(body), n, mac, want)
				}
				if n == minN {
					first = trace.String()
				} else if trace.String() != first {
					t.Fatalf("body %d: the tail compressions changed with n = %d", len(body), n)
				}
			}
		}
	}
	for _, bad := range [][2]int{{-1, 10}, {11, 10}, {0, MaxSecretSpan + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("minN %d, body %d: no panic", bad[0], bad[1])
				}
			}()
			var mac [Size]byte
			k.SumSecretLength(&mac, head, make([]byte, bad[1]), 0, bad[0])
		}()
	}
}
