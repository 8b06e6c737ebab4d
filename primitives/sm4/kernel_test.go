// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// The dispatch functions against the portable loops, for every kernel the
// CPU has: random lengths of 0 to 300 blocks, unaligned slices, in place
// and out of place, and counters about to wrap at 2³², 2⁶⁴ and 2¹²⁸.

// kernelBlocks returns a random length in blocks, biased towards the small
// counts and the edges of kernel groups.
func kernelBlocks(r *rand.ChaCha8) int {
	switch r.Uint64() % 4 {
	case 0:
		return int(r.Uint64() % 20)
	case 1:
		return max(0, 16*int(r.Uint64()%19)+int(r.Uint64()%3)-1) // group edges
	}
	return int(r.Uint64() % 301)
}

// randCounter returns a counter block that is random, or about to carry out
// of its low 32 or 64 bits, or out of all 128.
func randCounter(r *rand.ChaCha8) [2]uint64 {
	c := [2]uint64{r.Uint64(), r.Uint64()}
	switch r.Uint64() % 5 {
	case 0:
		c[1] |= 0xffffff00
	case 1:
		c[1] |= 0xffffffffffffff00
	case 2:
		c[0], c[1] = ^uint64(0), ^uint64(0)-uint64(r.Uint64()%40)
	}
	return c
}

// checkBoth runs f out of place and in place and checks both against want.
func checkBoth(t *testing.T, what string, src, want []byte, f func(dst, src []byte)) {
	t.Helper()
	out := randBytes(rand.NewChaCha8([32]byte{1}), len(src))
	f(out, src)
	if !bytes.Equal(out, want) {
		t.Fatalf("%s of %d bytes differs", what, len(src))
	}
	buf := bytes.Clone(src)
	f(buf, buf)
	if !bytes.Equal(buf, want) {
		t.Fatalf("%s of %d bytes in place differs", what, len(src))
	}
}

func TestKernelsDifferential(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for range 150 {
				b, _ := newTestBlock(t, r)
				n := BlockSize * kernelBlocks(r)
				src := randBytes(r, n)

				want := make([]byte, n)
				cryptBlocksGeneric(&b.enc, want, src)
				checkBoth(t, "ECB", src, want, func(d, s []byte) { cryptBlocks(b, false, d, s) })

				c := randCounter(r)
				wc := c
				ctrBlocksGeneric(b, want, src, &wc)
				var gc [2]uint64
				checkBoth(t, "CTR", src, want, func(d, s []byte) { gc = c; ctrBlocks(b, d, s, &gc) })
				if gc != wc {
					t.Fatalf("CTR counter after %d blocks = %x, want %x", n/16, gc, wc)
				}

				wc = c
				ctr32BlocksGeneric(b, want, src, &wc)
				checkBoth(t, "CTR32", src, want, func(d, s []byte) { gc = c; ctr32Blocks(b, d, s, &gc) })
				if gc != wc {
					t.Fatalf("CTR32 counter after %d blocks = %x, want %x", n/16, gc, wc)
				}

				iv := [16]byte(randBytes(r, 16))
				wiv := iv
				cbcDecryptGeneric(b, &wiv, want, src)
				var giv [16]byte
				checkBoth(t, "CBC decrypt", src, want, func(d, s []byte) { giv = iv; cbcDecryptBlocks(b, &giv, d, s) })
				if giv != wiv {
					t.Fatal("CBC decrypt chaining value differs")
				}

				wiv = iv
				cbcEncryptGeneric(b, &wiv, want, src)
				checkBoth(t, "CBC encrypt", src, want, func(d, s []byte) { giv = iv; cbcEncryptBlocks(b, &giv, d, s) })
				if giv != wiv {
					t.Fatal("CBC encrypt chaining value differs")
				}

				wiv = iv
				cbcMACGeneric(b, &wiv, src)
				giv = iv
				cbcMACBlocks(b, &giv, src)
				if giv != wiv {
					t.Fatalf("CBC-MAC of %d bytes differs", n)
				}

				one := src[:min(n, 16)]
				if len(one) == 16 {
					var w, g [16]byte
					cryptBlockGeneric(&b.enc, w[:], one)
					encryptBlock(b, g[:], one)
					if g != w {
						t.Fatal("single-block encryption differs")
					}
					cryptBlockGeneric(&b.dec, w[:], one)
					decryptBlock(b, g[:], one)
					if g != w {
						t.Fatal("single-block decryption differs")
					}
				}
			}
		})
	})
}

// TestBlockCreatedUnderOtherKernel uses a Block made while the generic code
// was selected with every kernel, and the other way round: the key forms a
// kernel needs must not depend on the selection at NewCipher time.
func TestBlockCreatedUnderOtherKernel(t *testing.T) {
	key := []byte("0123456789abcdef")
	var made []*Block
	impl.ForEach("sm4", func(string) {
		b, _ := NewCipher(key)
		made = append(made, b.(*Block))
	})
	want := make([]byte, 16)
	cryptBlockGeneric(&made[0].enc, want, key)
	impl.ForEach("sm4", func(name string) {
		for _, b := range made {
			got := make([]byte, 16)
			b.Encrypt(got, key)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: Encrypt with a Block made under another selection differs", name)
			}
		}
	})
}

// TestGHASHDifferential checks the carry-less GHASH kernels against the
// portable GHASH on random lengths, including partial final blocks.
func TestGHASHDifferential(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for range 200 {
				b, _ := newTestBlock(t, r)
				a, _ := b.NewGCM(12, 16)
				g := a.(*gcm)
				data := randBytes(r, int(r.Uint64()%(300*BlockSize+1)))
				y := [16]byte(randBytes(r, 16))
				want := y
				ghashUpdateGeneric(portableKey(g), &want, data)
				ghashUpdate(g, &y, data)
				if y != want {
					t.Fatalf("GHASH of %d bytes differs", len(data))
				}
			}
		})
	})
}

// TestGCMBulkDifferential drives the fused GCM kernels directly, with
// counters about to wrap at 2³², against the separate counter-mode and
// GHASH loops of the portable code.
func TestGCMBulkDifferential(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for i := range 100 {
				b, _ := newTestBlock(t, r)
				a, _ := b.NewGCM(12, 16)
				g := a.(*gcm)
				src := randBytes(r, BlockSize*kernelBlocks(r))
				c := [2]uint64{r.Uint64(), r.Uint64()}
				if i%2 == 0 {
					c[1] |= 0xffffff00
				}
				y0 := [16]byte(randBytes(r, 16))
				for _, open := range []bool{false, true} {
					want := make([]byte, len(src))
					wy, wc := y0, c
					if open {
						ghashUpdateGeneric(portableKey(g), &wy, src)
					}
					ctr32BlocksGeneric(b, want, src, &wc)
					if !open {
						ghashUpdateGeneric(portableKey(g), &wy, want)
					}
					var gy [16]byte
					var gc [2]uint64
					checkBoth(t, "GCM bulk", src, want, func(d, s []byte) {
						gy, gc = y0, c
						var n int
						if open {
							n = gcmOpenBulk(g, &gy, &gc, d, s)
							ghashUpdate(g, &gy, s[n:])
							ctr32Blocks(b, d[n:], s[n:], &gc)
						} else {
							n = gcmSealBulk(g, &gy, &gc, d, s)
							ctr32Blocks(b, d[n:], s[n:], &gc)
							ghashUpdate(g, &gy, d[n:])
						}
					})
					if gy != wy || gc != wc {
						t.Fatalf("GCM bulk (open %v) of %d blocks: state differs", open, len(src)/16)
					}
				}
			}
		})
	})
}

// TestGCMOpenLongRejects checks that Open of a long, modified message (which
// goes through the fused kernel) fails and leaves no plaintext behind.
func TestGCMOpenLongRejects(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			b, _ := newTestBlock(t, r)
			a, _ := b.NewGCM(12, 16)
			nonce := randBytes(r, 12)
			pt := randBytes(r, 4096+37)
			sealed := a.Seal(nil, nonce, pt, nil)
			for _, pos := range []int{0, 300, 4095, len(sealed) - 1} {
				bad := bytes.Clone(sealed)
				bad[pos] ^= 4
				dst := make([]byte, 0, len(bad))
				if out, err := a.Open(dst, nonce, bad, nil); err == nil || out != nil {
					t.Fatalf("Open accepted a flip at byte %d", pos)
				}
				if !bytes.Equal(dst[:cap(dst)], make([]byte, cap(dst))) {
					t.Fatalf("Open left plaintext in dst after a flip at byte %d", pos)
				}
				if _, err := a.Open(bad[:0], nonce, bad, nil); err == nil {
					t.Fatal("in-place Open accepted a modification")
				}
				if bytes.Contains(bad, pt[:16]) || bytes.Contains(bad, pt[1000:1016]) {
					t.Fatal("in-place Open left plaintext behind")
				}
			}
		})
	})
}

// TestKeySchedule checks the key schedule of every kernel (SM4EKEY, or the
// GFNI, AES-NI or NEON S-box) against the portable one, for edge keys and
// many random ones.
func TestKeySchedule(t *testing.T) {
	keys := [][]byte{
		make([]byte, KeySize),
		bytes.Repeat([]byte{0xff}, KeySize),
		// MK = FK: K0…K3 are zero, so the first S-box inputs are the CKs.
		{0xa3, 0xb1, 0xba, 0xc6, 0x56, 0xaa, 0x33, 0x50, 0x67, 0x7d, 0x91, 0x97, 0xb2, 0x70, 0x22, 0xdc},
	}
	for i := range 8 * KeySize {
		k := make([]byte, KeySize)
		k[i/8] = 0x80 >> (i % 8)
		keys = append(keys, k)
	}
	r := newRand(t)
	for range 2000 {
		keys = append(keys, randBytes(r, KeySize))
	}
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			for _, key := range keys {
				checkKeySchedule(t, name, key)
			}
		})
	})
}

// checkKeySchedule checks the round keys NewCipher computes for key with
// the selected kernel against the portable schedule, in both orders, and a
// block through the kernel both ways against the portable rounds with the
// portable keys. With a kernel selected the guard is set, so a fall-back
// to the table-based schedule panics rather than passing as a match.
func checkKeySchedule(t *testing.T, name string, key []byte) {
	t.Helper()
	var enc, dec [rounds]uint32
	expandKey(key, &enc, &dec)
	pt := [BlockSize]byte(key) // any block will do; this one varies
	pt[0] ^= 0x5a
	var ct, back [BlockSize]byte
	cryptBlockGeneric(&enc, ct[:], pt[:])

	tablesForbidden = name != "generic"
	defer func() { tablesForbidden = false }()
	c, err := NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	b := c.(*Block)
	if b.enc != enc {
		t.Fatalf("encryption round keys of %x:\n got %08x\nwant %08x", key, b.enc, enc)
	}
	if b.dec != dec {
		t.Fatalf("decryption round keys of %x:\n got %08x\nwant %08x", key, b.dec, dec)
	}
	var got [BlockSize]byte
	b.Encrypt(got[:], pt[:])
	if got != ct {
		t.Fatalf("key %x: Encrypt(%x) = %x, want %x", key, pt, got, ct)
	}
	b.Decrypt(back[:], ct[:])
	if back != pt {
		t.Fatalf("key %x: Decrypt(%x) = %x, want %x", key, ct, back, pt)
	}
}

// FuzzKeySchedule is the differential key schedule test on fuzzed keys.
func FuzzKeySchedule(f *testing.F) {
	f.Add([]byte("0123456789abcdef"))
	f.Add(make([]byte, KeySize))
	f.Fuzz(func(t *testing.T, key []byte) {
		if len(key) != KeySize {
			return
		}
		impl.ForEach("sm4", func(name string) { checkKeySchedule(t, name, key) })
	})
}

// TestGHASHTable: the table NewGCM builds, with whatever kernel is selected
// (the carry-less one-block kernel on amd64), equals the portable one.
func TestGHASHTable(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		rng := rand.NewChaCha8([32]byte{7})
		for i := 0; i < 50; i++ {
			var h [BlockSize]byte
			rng.Read(h[:])
			if i == 0 {
				h = [BlockSize]byte{} // H = 0
			}
			k := newGHASHKey(&h)
			var want, got [16][16]byte
			k.h.putTableEntry(&want[15])
			got[15] = want[15]
			k.table(&want)
			ghashTable(&gcm{hs: k.h}, &got)
			if got != want {
				t.Fatalf("%s: table for H = %x differs from the portable one", name, h)
			}
		}
	})
}
