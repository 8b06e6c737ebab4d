// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// refPRF is P_SM3 written out from RFC 5246 §5 over crypto/hmac.
func refPRF(out, secret, seed []byte) {
	mac := func(parts ...[]byte) []byte {
		h := hmac.New(New, secret)
		for _, p := range parts {
			h.Write(p)
		}
		return h.Sum(nil)
	}
	a := mac(seed)
	for len(out) > 0 {
		out = out[copy(out, mac(a, seed)):]
		a = mac(a)
	}
}

func checkPRF(t *testing.T, name string, secret []byte, label string, seed1, seed2 []byte, n int) {
	t.Helper()
	want := make([]byte, n)
	refPRF(want, secret, append(append([]byte(label), seed1...), seed2...))
	// Guard bytes around dst catch writes past its end.
	buf := bytes.Repeat([]byte{0xa5}, n+8)
	NewHMACKey(secret).PRF(buf[:n], label, seed1, seed2)
	if !bytes.Equal(buf[:n], want) {
		t.Fatalf("%s: PRF(secret %d B, label %q, seeds %d+%d B, %d B) = %x, want %x",
			name, len(secret), label, len(seed1), len(seed2), n, buf[:n], want)
	}
	if !bytes.Equal(buf[n:], bytes.Repeat([]byte{0xa5}, 8)) {
		t.Fatalf("%s: PRF wrote past dst", name)
	}
}

func TestPRF(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	impl.ForEach("sm3", func(name string) {
		// Every seed length across the padding boundaries and past the
		// buffer, as the TLCP callers split it and otherwise.
		for seedLen := 0; seedLen <= prfMaxSeed+70; seedLen++ {
			seed := randomBytes(rng, seedLen)
			cut := rng.IntN(seedLen + 1)
			label := string(seed[:cut/2])
			checkPRF(t, name, randomBytes(rng, rng.IntN(100)), label, seed[cut/2:cut], seed[cut:], rng.IntN(130))
		}
		for n := range 200 {
			checkPRF(t, name, randomBytes(rng, 48), "key expansion", randomBytes(rng, 32), randomBytes(rng, 32), n)
		}
		checkPRF(t, name, randomBytes(rng, 48), "client finished", randomBytes(rng, 32), nil, 12)
	})
}

func TestPRFAllocs(t *testing.T) {
	k := NewHMACKey(make([]byte, 48))
	r1, r2 := make([]byte, 32), make([]byte, 32)
	dst := make([]byte, 128)
	long := make([]byte, 300)
	if n := testing.AllocsPerRun(100, func() {
		k.PRF(dst, "key expansion", r1, r2)
		k.PRF(dst, "long", long, nil)
	}); n != 0 {
		t.Errorf("PRF allocates %v times", n)
	}
}

func FuzzPRF(f *testing.F) {
	f.Add([]byte("secret"), "key expansion", []byte("seed one"), []byte("seed two"), uint8(40))
	f.Fuzz(func(t *testing.T, secret []byte, label string, seed1, seed2 []byte, n uint8) {
		impl.ForEach("sm3", func(name string) {
			checkPRF(t, name, secret, label, seed1, seed2, int(n))
		})
	})
}

func BenchmarkPRF(b *testing.B) {
	k := NewHMACKey(make([]byte, 48))
	r := make([]byte, 32)
	for _, c := range []struct {
		name  string
		label string
		seed2 []byte
		n     int
	}{
		{"KeyBlockGCM", "key expansion", r, 40},
		{"Finished", "client finished", nil, 12},
	} {
		b.Run(c.name, func(b *testing.B) {
			dst := make([]byte, c.n)
			for b.Loop() {
				k.PRF(dst, c.label, r, c.seed2)
			}
		})
	}
}

func ExampleHMACKey_PRF() {
	// The key block of a TLCP connection with SM4-GCM: two 16-byte write
	// keys and two 4-byte implicit nonces (GB/T 38636-2020 6.5).
	master := NewHMACKey(make([]byte, 48)) // the 48-byte master secret
	clientRandom, serverRandom := make([]byte, 32), make([]byte, 32)
	keyBlock := make([]byte, 40)
	master.PRF(keyBlock, "key expansion", serverRandom, clientRandom)
	fmt.Println(hex.EncodeToString(keyBlock[:16]))
	// Output: 06bd8bc3482630d00ac87c683900ef62
}
