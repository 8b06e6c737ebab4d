// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/internal/impl"
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
			if *g.b != *w.b || g.h != w.h || g.htab != w.htab || g.nonceSize != w.nonceSize || g.tagSize != w.tagSize {
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
	if n := testing.AllocsPerRun(100, func() { NewGCMWithKey(key) }); n != 1 {
		t.Errorf("NewGCMWithKey allocates %v times, want 1", n)
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
