// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"crypto/cipher"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

func TestAllocations(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	impl.ForEach("sm4", func(name string) { t.Run(name, testAllocations) })
}

func testAllocations(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	iv := make([]byte, 16)
	buf := make([]byte, 1024+16)
	data := buf[:1024]
	odd := buf[:1000]
	nonce := make([]byte, 12)
	ad := make([]byte, 13)
	cbcE := cipher.NewCBCEncrypter(b, iv)
	cbcD := cipher.NewCBCDecrypter(b, iv)
	s := cipher.NewCTR(b, iv)
	g, _ := cipher.NewGCM(b)
	g8, _ := cipher.NewGCMWithNonceSize(b, 8)
	c, _ := NewCCM(b, 12, 16)
	x, _ := NewXTSGB(make([]byte, 32))
	sealedG := g.Seal(nil, nonce, odd, ad)
	sealedC := c.Seal(nil, nonce, odd, ad)
	out := make([]byte, 0, 2048)
	long := make([]byte, 4096+16)
	for name, f := range map[string]func(){
		"Encrypt":       func() { b.Encrypt(data, data) },
		"CBCEncrypt":    func() { cbcE.CryptBlocks(data, data) },
		"CBCDecrypt":    func() { cbcD.CryptBlocks(data, data) },
		"XORKeyStream":  func() { s.XORKeyStream(odd, odd) },
		"GCMSeal":       func() { g.Seal(out[:0], nonce, odd, ad) },
		"GCMSealNonce8": func() { g8.Seal(out[:0], nonce[:8], odd, ad) },
		"GCMOpen": func() {
			if _, err := g.Open(out[:0], nonce, sealedG, ad); err != nil {
				t.Fatal(err)
			}
		},
		"CCMSeal": func() { c.Seal(out[:0], nonce, odd, ad) },
		"CCMOpen": func() {
			if _, err := c.Open(out[:0], nonce, sealedC, ad); err != nil {
				t.Fatal(err)
			}
		},
		"XTSEncrypt":  func() { x.Encrypt(odd, odd, 7) },
		"XTSDecrypt":  func() { x.Decrypt(odd, odd, 7) },
		"GCMSealLong": func() { g.Seal(long[:0], nonce, long[:4096], ad) },
		"Decrypt":     func() { b.Decrypt(data, data) },
	} {
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, n)
		}
	}
}

func FuzzGCMOpen(f *testing.F) {
	b, _ := NewCipher([]byte("0123456789abcdef"))
	g, _ := cipher.NewGCM(b)
	ref, _ := cipher.NewGCM(plainBlock{b})
	nonce := make([]byte, 12)
	f.Add(g.Seal(nil, nonce, []byte("hello"), []byte("ad")), []byte("ad"))
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, ct, ad []byte) {
		impl.ForEach("sm4", func(string) { fuzzGCMOpen(t, g, ref, nonce, ct, ad) })
	})
}

func fuzzGCMOpen(t *testing.T, g, ref cipher.AEAD, nonce, ct, ad []byte) {
	got, err1 := g.Open(nil, nonce, ct, ad)
	want, err2 := ref.Open(nil, nonce, ct, ad)
	if (err1 == nil) != (err2 == nil) || !bytes.Equal(got, want) {
		t.Fatalf("Open disagrees with the reference: %v, %v", err1, err2)
	}
	// Every plaintext must round trip.
	sealed := g.Seal(nil, nonce, ct, ad)
	if pt, err := g.Open(nil, nonce, sealed, ad); err != nil || !bytes.Equal(pt, ct) {
		t.Fatal("round trip failed")
	}
	if !bytes.Equal(sealed, ref.Seal(nil, nonce, ct, ad)) {
		t.Fatal("Seal disagrees with the reference")
	}
}

func FuzzCBC(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte("fedcba9876543210"), bytes.Repeat([]byte{1}, 64))
	f.Fuzz(func(t *testing.T, key, iv, data []byte) {
		if len(key) != 16 || len(iv) != 16 {
			return
		}
		data = data[:len(data)&^15]
		impl.ForEach("sm4", func(string) { fuzzCBC(t, key, iv, data) })
	})
}

func fuzzCBC(t *testing.T, key, iv, data []byte) {
	b, _ := NewCipher(key)
	want := make([]byte, len(data))
	cipher.NewCBCEncrypter(plainBlock{b}, iv).CryptBlocks(want, data)
	got := make([]byte, len(data))
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(got, data)
	if !bytes.Equal(got, want) {
		t.Fatal("CBC encryption differs from the reference")
	}
	cipher.NewCBCDecrypter(b, iv).CryptBlocks(got, got)
	if !bytes.Equal(got, data) {
		t.Fatal("CBC round trip failed")
	}
}

func FuzzCTR(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), bytes.Repeat([]byte{0xff}, 16), bytes.Repeat([]byte{1}, 100), uint8(7))
	f.Fuzz(func(t *testing.T, key, iv, data []byte, split uint8) {
		if len(key) != 16 || len(iv) != 16 {
			return
		}
		impl.ForEach("sm4", func(string) { fuzzCTR(t, key, iv, data, split) })
	})
}

func fuzzCTR(t *testing.T, key, iv, data []byte, split uint8) {
	b, _ := NewCipher(key)
	want := make([]byte, len(data))
	cipher.NewCTR(plainBlock{b}, iv).XORKeyStream(want, data)
	got := bytes.Clone(data)
	k := min(int(split), len(got))
	s := cipher.NewCTR(b, iv)
	s.XORKeyStream(got[:k], got[:k])
	s.XORKeyStream(got[k:], got[k:])
	if !bytes.Equal(got, want) {
		t.Fatal("CTR differs from the reference")
	}
}

func FuzzCCM(f *testing.F) {
	f.Add([]byte("message"), []byte("ad"), uint8(12), uint8(16), []byte("sealed-junk-sealed-junk"))
	f.Fuzz(func(t *testing.T, pt, ad []byte, ns, ts uint8, junk []byte) {
		b, _ := NewCipher([]byte("0123456789abcdef"))
		a, err := NewCCM(b, int(ns), int(ts))
		if err != nil {
			return
		}
		nonce := make([]byte, ns)
		s := a.Seal(nil, nonce, pt, ad)
		if out, err := a.Open(nil, nonce, s, ad); err != nil || !bytes.Equal(out, pt) {
			t.Fatal("CCM round trip failed")
		}
		if !bytes.Equal(junk, s) {
			if _, err := a.Open(nil, nonce, junk, ad); err == nil {
				t.Fatal("CCM opened a forged message")
			}
		}
	})
}

func FuzzXTS(f *testing.F) {
	f.Add(bytes.Repeat([]byte{3}, 32), bytes.Repeat([]byte{9}, 33), uint64(5), false)
	f.Fuzz(func(t *testing.T, key, data []byte, sector uint64, gb bool) {
		newX := NewXTS
		if gb {
			newX = NewXTSGB
		}
		x, err := newX(key)
		if err != nil {
			return
		}
		ct := make([]byte, len(data))
		if err := x.Encrypt(ct, data, sector); err != nil {
			if len(data) >= 16 {
				t.Fatal(err)
			}
			return
		}
		if err := x.Decrypt(ct, ct, sector); err != nil || !bytes.Equal(ct, data) {
			t.Fatal("XTS round trip failed")
		}
	})
}
