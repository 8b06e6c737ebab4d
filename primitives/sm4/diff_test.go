// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// plainBlock hides the fast-path methods of *Block, so crypto/cipher runs
// its own generic modes over it: the reference for differential tests.
type plainBlock struct{ cipher.Block }

func newTestBlock(t testing.TB, r *rand.ChaCha8) (*Block, cipher.Block) {
	t.Helper()
	key := make([]byte, KeySize)
	r.Read(key)
	b, err := NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	return b.(*Block), plainBlock{b}
}

// randBytes returns n random bytes starting at a random offset into a larger
// buffer, so that unaligned slices are exercised too.
func randBytes(r *rand.ChaCha8, n int) []byte {
	off := int(r.Uint64() % 16)
	b := make([]byte, off+n)
	r.Read(b)
	return b[off:]
}

func newRand(t testing.TB) *rand.ChaCha8 {
	var seed [32]byte
	copy(seed[:], t.Name())
	return rand.NewChaCha8(seed)
}

func TestFastPathsTaken(t *testing.T) {
	b, err := NewCipher(make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	iv := make([]byte, 16)
	if _, ok := cipher.NewCBCEncrypter(b, iv).(*cbcEncrypter); !ok {
		t.Error("cipher.NewCBCEncrypter did not use Block.NewCBCEncrypter")
	}
	if _, ok := cipher.NewCBCDecrypter(b, iv).(*cbcDecrypter); !ok {
		t.Error("cipher.NewCBCDecrypter did not use Block.NewCBCDecrypter")
	}
	if _, ok := cipher.NewCTR(b, iv).(*ctr); !ok {
		t.Error("cipher.NewCTR did not use Block.NewCTR")
	}
	for name, f := range map[string]func(cipher.Block) (cipher.AEAD, error){
		"NewGCM":              cipher.NewGCM,
		"NewGCMWithNonceSize": func(b cipher.Block) (cipher.AEAD, error) { return cipher.NewGCMWithNonceSize(b, 8) },
		"NewGCMWithTagSize":   func(b cipher.Block) (cipher.AEAD, error) { return cipher.NewGCMWithTagSize(b, 12) },
	} {
		a, err := f(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := a.(*gcm); !ok {
			t.Errorf("cipher.%s returned %T, not this package's GCM", name, a)
		}
	}
	// The reference wrapper must really hide them.
	if _, ok := cipher.NewCTR(plainBlock{b}, iv).(*ctr); ok {
		t.Error("plainBlock does not hide NewCTR")
	}
}

func TestCBCDifferential(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for range 200 {
				fast, ref := newTestBlock(t, r)
				iv := randBytes(r, 16)
				n := int(r.Uint64()%301) * BlockSize
				src := randBytes(r, n)

				want := make([]byte, n)
				cipher.NewCBCEncrypter(ref, iv).CryptBlocks(want, src)
				got := make([]byte, n)
				enc := cipher.NewCBCEncrypter(fast, iv)
				// Split across calls to check chaining between them.
				k := int(r.Uint64()%uint64(n/BlockSize+1)) * BlockSize
				enc.CryptBlocks(got[:k], src[:k])
				enc.CryptBlocks(got[k:], src[k:])
				if !bytes.Equal(got, want) {
					t.Fatalf("CBC encrypt of %d bytes differs", n)
				}

				dec := cipher.NewCBCDecrypter(fast, iv)
				buf := bytes.Clone(want)
				dec.CryptBlocks(buf[:k], buf[:k])
				dec.CryptBlocks(buf[k:], buf[k:])
				if !bytes.Equal(buf, src) {
					t.Fatalf("CBC in-place decrypt of %d bytes (split at %d) differs", n, k)
				}
				out := make([]byte, n)
				cipher.NewCBCDecrypter(fast, iv).CryptBlocks(out, want)
				if !bytes.Equal(out, src) {
					t.Fatalf("CBC decrypt of %d bytes differs", n)
				}
			}
		})
	})
}

func TestCTRDifferential(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for i := range 200 {
				fast, ref := newTestBlock(t, r)
				iv := randBytes(r, 16)
				if i%4 == 0 {
					// Counters about to carry across the 64-bit halves.
					for j := range 15 {
						iv[j] = 0xff
					}
				}
				n := int(r.Uint64() % (300*BlockSize + 1))
				src := randBytes(r, n)
				want := make([]byte, n)
				cipher.NewCTR(ref, iv).XORKeyStream(want, src)

				got := bytes.Clone(src)
				s := cipher.NewCTR(fast, iv)
				for rest := got; len(rest) > 0; {
					k := min(len(rest), int(r.Uint64()%1200))
					s.XORKeyStream(rest[:k], rest[:k])
					rest = rest[k:]
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("CTR of %d bytes (iv %x) differs", n, iv)
				}
			}
		})
	})
}

func TestGCMDifferential(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for i := range 300 {
				fast, ref := newTestBlock(t, r)
				var a, b cipher.AEAD
				var err1, err2 error
				if i%2 == 0 {
					ns := 1 + int(r.Uint64()%70)
					a, err1 = cipher.NewGCMWithNonceSize(fast, ns)
					b, err2 = cipher.NewGCMWithNonceSize(ref, ns)
				} else {
					ts := 12 + int(r.Uint64()%5)
					a, err1 = cipher.NewGCMWithTagSize(fast, ts)
					b, err2 = cipher.NewGCMWithTagSize(ref, ts)
				}
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				nonce := randBytes(r, a.NonceSize())
				pt := randBytes(r, int(r.Uint64()%(300*BlockSize+1)))
				ad := randBytes(r, int(r.Uint64()%80))
				want := b.Seal(nil, nonce, pt, ad)
				got := a.Seal(nil, nonce, pt, ad)
				if !bytes.Equal(got, want) {
					t.Fatalf("Seal (nonce %d, pt %d, ad %d) differs", len(nonce), len(pt), len(ad))
				}
				// In place, with a prefix in dst.
				buf := append([]byte("prefix"), pt...)
				buf = slicesGrow(buf, a.Overhead())
				sealed := a.Seal(buf[:6], nonce, buf[6:], ad)
				if !bytes.Equal(sealed[6:], want) {
					t.Fatal("in-place Seal differs")
				}
				opened, err := a.Open(sealed[6:6], nonce, sealed[6:], ad)
				if err != nil || !bytes.Equal(opened, pt) {
					t.Fatalf("in-place Open: %v", err)
				}
			}
		})
	})
}

func slicesGrow(b []byte, n int) []byte {
	out := make([]byte, len(b), len(b)+n)
	copy(out, b)
	return out
}

func TestOpenSSL(t *testing.T) {
	path, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not found")
	}
	r := newRand(t)
	n := 20
	if testing.Short() {
		n = 4
	}
	for i := range n {
		key, iv := randBytes(r, 16), randBytes(r, 16)
		b, _ := NewCipher(key)
		pt := randBytes(r, BlockSize*(1+int(r.Uint64()%40)))
		ctrLen := 1 + int(r.Uint64()%700)
		for _, mode := range []string{"ecb", "cbc", "ctr"} {
			in := pt
			if mode == "ctr" {
				in = randBytes(r, ctrLen)
			}
			args := []string{"enc", "-sm4-" + mode, "-K", hex.EncodeToString(key), "-nopad"}
			if mode != "ecb" {
				args = append(args, "-iv", hex.EncodeToString(iv))
			}
			cmd := exec.Command(path, args...)
			cmd.Stdin = bytes.NewReader(in)
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("openssl %v: %v", args, err)
			}
			got := make([]byte, len(in))
			switch mode {
			case "ecb":
				b.(*Block).encryptBlocks(got, in)
			case "cbc":
				cipher.NewCBCEncrypter(b, iv).CryptBlocks(got, in)
			case "ctr":
				cipher.NewCTR(b, iv).XORKeyStream(got, in)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("case %d: sm4-%s of %d bytes differs from openssl", i, mode, len(in))
			}

			// Decryption of random data, which exercises CBC's multi-block
			// decryption path against an independent implementation.
			if mode == "ctr" {
				continue
			}
			cmd = exec.Command(path, append(args, "-d")...)
			cmd.Stdin = bytes.NewReader(in)
			want, err = cmd.Output()
			if err != nil {
				t.Fatalf("openssl %v -d: %v", args, err)
			}
			switch mode {
			case "ecb":
				for j := 0; j < len(in); j += BlockSize {
					b.Decrypt(got[j:], in[j:])
				}
			case "cbc":
				cipher.NewCBCDecrypter(b, iv).CryptBlocks(got, in)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("case %d: sm4-%s decryption of %d bytes differs from openssl", i, mode, len(in))
			}
		}
	}
}

func TestErrors(t *testing.T) {
	for _, n := range []int{0, 1, 15, 17, 24, 32} {
		_, err := NewCipher(make([]byte, n))
		var ke KeySizeError
		if !errors.As(err, &ke) || int(ke) != n {
			t.Errorf("NewCipher(%d bytes) error = %v, want KeySizeError(%d)", n, err, n)
		}
	}
	b, _ := NewCipher(make([]byte, 16))
	for _, ts := range []int{0, 4, 8, 11, 17} {
		if _, err := cipher.NewGCMWithTagSize(b, ts); err == nil {
			t.Errorf("GCM accepted tag size %d", ts)
		}
		if _, err := b.(*Block).NewGCM(12, ts); err == nil {
			t.Errorf("Block.NewGCM accepted tag size %d", ts)
		}
	}
	if _, err := b.(*Block).NewGCM(0, 16); err == nil {
		t.Error("GCM accepted an empty nonce")
	}
	for _, c := range [][2]int{{6, 16}, {14, 16}, {12, 3}, {12, 5}, {12, 18}, {12, 2}} {
		if _, err := NewCCM(b, c[0], c[1]); err == nil {
			t.Errorf("CCM accepted nonce %d, tag %d", c[0], c[1])
		}
	}
	if _, err := NewCCM(plainBlock{blockSize8{b}}, 12, 16); err == nil {
		t.Error("CCM accepted a 64-bit block")
	}
	for _, n := range []int{0, 16, 31, 33, 64} {
		if _, err := NewXTS(make([]byte, n)); err == nil {
			t.Errorf("NewXTS accepted a %d-byte key", n)
		}
		if _, err := NewXTSGB(make([]byte, n)); err == nil {
			t.Errorf("NewXTSGB accepted a %d-byte key", n)
		}
	}
	x, _ := NewXTS(make([]byte, 32))
	if err := x.Encrypt(make([]byte, 15), make([]byte, 15), 0); err == nil {
		t.Error("XTS accepted 15 bytes")
	}
	if err := x.Decrypt(make([]byte, 16), make([]byte, 17), 0); err == nil {
		t.Error("XTS accepted a short dst")
	}
	if err := x.EncryptWithTweak(make([]byte, 16), make([]byte, 16), make([]byte, 15)); err == nil {
		t.Error("XTS accepted a 15-byte tweak")
	}
	buf := make([]byte, 48)
	if err := x.Encrypt(buf[1:33], buf[0:32], 0); err == nil {
		t.Error("XTS accepted inexactly overlapping buffers")
	}
}

type blockSize8 struct{ cipher.Block }

func (blockSize8) BlockSize() int { return 8 }

// TestAEADRejects checks that every modification of a sealed message, and
// every truncation, fails to open and leaves no plaintext behind.
func TestAEADRejects(t *testing.T) {
	b, _ := NewCipher(bytes.Repeat([]byte{7}, 16))
	g, _ := cipher.NewGCM(b)
	g12, _ := cipher.NewGCMWithTagSize(b, 12)
	c, _ := NewCCM(b, 12, 16)
	c4, _ := NewCCM(b, 7, 4)
	for name, a := range map[string]cipher.AEAD{"GCM": g, "GCM-12": g12, "CCM": c, "CCM-n7-t4": c4} {
		t.Run(name, func(t *testing.T) {
			nonce := make([]byte, a.NonceSize())
			pt := []byte("attack at dawn, bring sm4 and a thermos of tea")
			ad := []byte("header")
			sealed := a.Seal(nil, nonce, pt, ad)
			for i := range sealed {
				bad := bytes.Clone(sealed)
				bad[i] ^= 0x80
				dst := make([]byte, 0, len(bad))
				if out, err := a.Open(dst, nonce, bad, ad); err == nil || out != nil {
					t.Fatalf("Open accepted a flip at byte %d", i)
				}
				if !bytes.Equal(dst[:cap(dst)], make([]byte, cap(dst))) {
					t.Fatalf("Open left plaintext in dst after a flip at byte %d", i)
				}
				// In place: the buffer must not hold plaintext afterwards.
				if _, err := a.Open(bad[:0], nonce, bad, ad); err == nil {
					t.Fatal("in-place Open accepted a modification")
				}
				if bytes.Contains(bad, pt[:16]) {
					t.Fatal("in-place Open left plaintext behind")
				}
			}
			if _, err := a.Open(nil, nonce, sealed, []byte("other")); err == nil {
				t.Error("Open accepted wrong additional data")
			}
			for n := range a.Overhead() {
				if _, err := a.Open(nil, nonce, sealed[:n], ad); err == nil {
					t.Errorf("Open accepted %d bytes", n)
				}
			}
			other := bytes.Clone(nonce)
			other[0] ^= 1
			if _, err := a.Open(nil, other, sealed, ad); err == nil {
				t.Error("Open accepted the wrong nonce")
			}
		})
	}
}

// TestCCMOtherBlock runs CCM over a block that is not *Block, which takes
// the interface path instead of the bulk kernel.
func TestCCMOtherBlock(t *testing.T) {
	r := newRand(t)
	for range 50 {
		fast, ref := newTestBlock(t, r)
		ns := 7 + int(r.Uint64()%7)
		ts := 4 + 2*int(r.Uint64()%7)
		a, _ := NewCCM(fast, ns, ts)
		b, _ := NewCCM(ref, ns, ts)
		nonce := randBytes(r, ns)
		pt := randBytes(r, int(r.Uint64()%600))
		ad := randBytes(r, int(r.Uint64()%300))
		s1, s2 := a.Seal(nil, nonce, pt, ad), b.Seal(nil, nonce, pt, ad)
		if !bytes.Equal(s1, s2) {
			t.Fatal("CCM over *Block and over a plain cipher.Block differ")
		}
		if out, err := b.Open(nil, nonce, s1, ad); err != nil || !bytes.Equal(out, pt) {
			t.Fatal("CCM Open over a plain cipher.Block failed")
		}
	}
}

// TestCCMLongAD covers the 6-byte form of the associated-data length
// (0xff 0xfe ‖ 32-bit length) through a round trip.
func TestCCMLongAD(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	a, _ := NewCCM(b, 13, 16)
	ad := make([]byte, 1<<16)
	nonce := make([]byte, 13)
	s := a.Seal(nil, nonce, []byte("x"), ad)
	if _, err := a.Open(nil, nonce, s, ad); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Open(nil, nonce, s, ad[1:]); err == nil {
		t.Fatal("accepted shorter AD")
	}
}

func TestCCMMaxLength(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	a, _ := NewCCM(b, 13, 16) // two-byte length field: at most 65535 bytes
	nonce := make([]byte, 13)
	a.Seal(nil, nonce, make([]byte, 65535), nil)
	defer func() {
		if recover() == nil {
			t.Error("Seal of 65536 bytes with a 2-byte length field did not panic")
		}
	}()
	a.Seal(nil, nonce, make([]byte, 65536), nil)
}

func TestXTSRoundTrip(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for i := range 100 {
				key := randBytes(r, 32)
				newX := NewXTS
				if i%2 == 1 {
					newX = NewXTSGB
				}
				x, _ := newX(key)
				n := 16 + int(r.Uint64()%600)
				pt := randBytes(r, n)
				ct := make([]byte, n)
				sector := r.Uint64()
				if err := x.Encrypt(ct, pt, sector); err != nil {
					t.Fatal(err)
				}
				tw := sectorTweak(sector)
				ct2 := bytes.Clone(pt)
				if err := x.EncryptWithTweak(ct2, ct2, tw[:]); err != nil || !bytes.Equal(ct, ct2) {
					t.Fatal("Encrypt and EncryptWithTweak of the sector tweak differ")
				}
				// Each block is independent of the ones after it, except for
				// the stolen pair at the end.
				if n >= 64 {
					ct3 := make([]byte, 32)
					x.Encrypt(ct3, pt[:32], sector)
					if !bytes.Equal(ct3, ct[:32]) {
						t.Fatal("XTS prefix differs")
					}
				}
				if err := x.Decrypt(ct2, ct2, sector); err != nil || !bytes.Equal(ct2, pt) {
					t.Fatalf("XTS round trip of %d bytes failed", n)
				}
			}
		})
	})
}

func TestSetIVAndMisc(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	iv1, iv2 := bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{2}, 16)
	pt := bytes.Repeat([]byte{9}, 48)
	type ivSetter interface{ SetIV([]byte) }

	enc := cipher.NewCBCEncrypter(b, iv1)
	if enc.BlockSize() != BlockSize || b.BlockSize() != BlockSize {
		t.Fatal("wrong BlockSize")
	}
	enc.CryptBlocks(make([]byte, 48), pt)
	enc.(ivSetter).SetIV(iv2)
	got := make([]byte, 48)
	enc.CryptBlocks(got, pt)
	want := make([]byte, 48)
	cipher.NewCBCEncrypter(b, iv2).CryptBlocks(want, pt)
	if !bytes.Equal(got, want) {
		t.Error("SetIV on the encrypter did not restart the chain")
	}
	dec := cipher.NewCBCDecrypter(b, iv1)
	if dec.BlockSize() != BlockSize {
		t.Fatal("wrong BlockSize")
	}
	dec.CryptBlocks(make([]byte, 48), want)
	dec.(ivSetter).SetIV(iv2)
	dec.CryptBlocks(got, want)
	if !bytes.Equal(got, pt) {
		t.Error("SetIV on the decrypter did not restart the chain")
	}
	if KeySizeError(5).Error() != "sm4: invalid key size 5" {
		t.Error("unexpected KeySizeError text")
	}
}

func TestPanics(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	buf := make([]byte, 64)
	for name, f := range map[string]func(){
		"Encrypt short src":   func() { b.Encrypt(buf, buf[:15]) },
		"Encrypt short dst":   func() { b.Encrypt(buf[:15], buf) },
		"Encrypt overlap":     func() { b.Encrypt(buf[1:], buf) },
		"Decrypt short src":   func() { b.Decrypt(buf, buf[:15]) },
		"Decrypt short dst":   func() { b.Decrypt(buf[:15], buf) },
		"Decrypt overlap":     func() { b.Decrypt(buf[1:], buf) },
		"CBC short IV":        func() { cipher.NewCBCEncrypter(b, buf[:15]) },
		"CBC dec short IV":    func() { cipher.NewCBCDecrypter(b, buf[:15]) },
		"CTR short IV":        func() { cipher.NewCTR(b, buf[:15]) },
		"CBC partial block":   func() { cipher.NewCBCEncrypter(b, buf[:16]).CryptBlocks(buf, buf[:17]) },
		"CBC dec partial":     func() { cipher.NewCBCDecrypter(b, buf[:16]).CryptBlocks(buf, buf[:17]) },
		"CBC short dst":       func() { cipher.NewCBCEncrypter(b, buf[:16]).CryptBlocks(buf[:16], buf[:32]) },
		"CBC overlap":         func() { cipher.NewCBCDecrypter(b, buf[:16]).CryptBlocks(buf[16:48], buf[:32]) },
		"CTR short dst":       func() { cipher.NewCTR(b, buf[:16]).XORKeyStream(buf[:3], buf[:4]) },
		"CTR overlap":         func() { cipher.NewCTR(b, buf[:16]).XORKeyStream(buf[1:], buf[:32]) },
		"GCM wrong nonce":     func() { g, _ := cipher.NewGCM(b); g.Seal(nil, buf[:11], nil, nil) },
		"GCM open bad nonce":  func() { g, _ := cipher.NewGCM(b); g.Open(nil, buf[:11], buf, nil) },
		"CCM wrong nonce":     func() { c, _ := NewCCM(b, 12, 16); c.Seal(nil, buf[:11], nil, nil) },
		"CCM open bad nonce":  func() { c, _ := NewCCM(b, 12, 16); c.Open(nil, buf[:11], buf, nil) },
		"GCM overlap with AD": func() { g, _ := cipher.NewGCM(b); g.Seal(buf[:0], buf[:12], buf[:4], buf[:4]) },
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
}
