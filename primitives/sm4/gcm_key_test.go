// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// TestNewGCMWithKey: under every kernel, NewGCMWithKey sets up exactly the
// state NewGCM does (round keys, hash key, carry-less table), and seals
// and opens the same.
func TestNewGCMWithKey(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		rng := rand.NewChaCha8([32]byte{9})
		for i := range 50 {
			key := make([]byte, KeySize)
			rng.Read(key)
			b, _ := NewCipher(key)
			ref, err := cipher.NewGCM(b)
			if err != nil {
				t.Fatal(err)
			}
			a, err := NewGCMWithKey(key)
			if err != nil {
				t.Fatal(err)
			}
			g, w := a.(*gcm), ref.(*gcm)
			g.fullTable()
			w.fullTable()
			if *g.b != *w.b || g.hs != w.hs || *g.portable() != *w.portable() || g.htab != w.htab || g.nonceSize != w.nonceSize || g.tagSize != w.tagSize {
				t.Fatalf("%s: key %x: NewGCMWithKey state differs from NewGCM's", name, key)
			}
			nonce := make([]byte, a.NonceSize())
			rng.Read(nonce)
			msg := make([]byte, i*7)
			rng.Read(msg)
			sealed := a.Seal(nil, nonce, msg, key)
			if want := ref.Seal(nil, nonce, msg, key); !bytes.Equal(sealed, want) {
				t.Fatalf("%s: Seal differs from NewGCM's", name)
			}
			if got, err := a.Open(nil, nonce, sealed, key); err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("%s: Open = %x, %v", name, got, err)
			}
		}
	})
}

func TestNewGCMWithKeyErrors(t *testing.T) {
	for _, n := range []int{0, 15, 17, 32} {
		if a, err := NewGCMWithKey(make([]byte, n)); err == nil || a != nil {
			t.Errorf("NewGCMWithKey(%d-byte key) = %v, %v; want an error", n, a, err)
		}
	}
}

func TestNewGCMWithKeyAllocs(t *testing.T) {
	key := make([]byte, KeySize)
	// The portable GHASH key is a second allocation, where it is used.
	want := 1.0
	if ghashPortable() {
		want = 2
	}
	if n := testing.AllocsPerRun(100, func() { NewGCMWithKey(key) }); n != want {
		t.Errorf("NewGCMWithKey allocates %v times, want %v", n, want)
	}
}

func BenchmarkNewGCM(b *testing.B) {
	key := make([]byte, KeySize)
	b.Run("NewCipher+cipher.NewGCM", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, _ := NewCipher(key)
			cipher.NewGCM(c)
		}
	})
	b.Run("NewGCMWithKey", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewGCMWithKey(key)
		}
	})
}

// portableKey returns g's hash key prepared for the portable GHASH, for
// tests that compare the kernels with it on any CPU.
func portableKey(g *gcm) *ghashKey {
	var h [BlockSize]byte
	g.hs.bytes(&h)
	k := newGHASHKey(&h)
	return &k
}

// TestGCMTableLazy: a GCM sealing and opening short messages computes no
// more of its table than H¹, and the first long one completes it; the
// results are those of a GCM whose table was complete from the start.
func TestGCMTableLazy(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		key := make([]byte, KeySize)
		lazy, _ := NewGCMWithKey(key)
		full, _ := NewGCMWithKey(key)
		full.(*gcm).fullTable()
		nonce := make([]byte, 12)
		for _, n := range []int{0, 1, 16, 100, 127, 128, 255, 256, 4096} {
			msg := make([]byte, n)
			for _, ad := range []int{0, 13, 127, 128, 300} {
				a := make([]byte, ad)
				got := lazy.Seal(nil, nonce, msg, a)
				if want := full.Seal(nil, nonce, msg, a); !bytes.Equal(got, want) {
					t.Fatalf("%s: %d bytes, %d of AD: lazy table seals differently", name, n, ad)
				}
				if _, err := lazy.Open(nil, nonce, got, a); err != nil {
					t.Fatalf("%s: %d bytes, %d of AD: %v", name, n, ad, err)
				}
				if long := n >= tableMinLen || ad >= tableMinLen; !long && lazy.(*gcm).tableDone.Load() {
					t.Fatalf("%s: %d bytes, %d of AD: short messages completed the table", name, n, ad)
				}
				if n >= tableMinLen || ad >= tableMinLen {
					lazy, _ = NewGCMWithKey(key)
				}
			}
		}
	})
}

// TestGCMTableConcurrent: goroutines that share a fresh GCM and all seal
// long messages at once complete its table once and agree (run with -race).
func TestGCMTableConcurrent(t *testing.T) {
	key := []byte("0123456789abcdef")
	ref, _ := NewGCMWithKey(key)
	nonce := make([]byte, 12)
	msg := make([]byte, 1000)
	want := ref.Seal(nil, nonce, msg, nil)
	g, _ := NewGCMWithKey(key)
	errc := make(chan error, 8)
	for range 8 {
		go func() {
			if got := g.Seal(nil, nonce, msg, nil); !bytes.Equal(got, want) {
				errc <- errors.New("a concurrent Seal differs")
				return
			}
			errc <- nil
		}()
	}
	for range 8 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}
