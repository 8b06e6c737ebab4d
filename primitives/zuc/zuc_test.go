// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"bytes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/internal/testvec"
)

type vec128 struct {
	ID          string      `json:"id"`
	Kind        string      `json:"kind"`
	Key         testvec.Hex `json:"key_hex"`
	IV          testvec.Hex `json:"iv_hex"`
	Words       []string    `json:"keystream_words_hex"`
	WordAt      *wordAt     `json:"keystream_word_at"`
	Count       uint32      `json:"count"`
	Bearer      uint32      `json:"bearer"`
	Direction   uint32      `json:"direction"`
	LengthBits  int         `json:"length_bits"`
	Plaintext   testvec.Hex `json:"plaintext_hex"`
	Ciphertext  testvec.Hex `json:"ciphertext_hex"`
	Message     testvec.Hex `json:"message_hex"`
	MAC         testvec.Hex `json:"mac_hex"`
	KnownMisses []any       `json:"known_mismatch"`
}

type wordAt struct {
	Index int    `json:"index_1based"`
	Word  string `json:"word_hex"`
}

type vec256 struct {
	ID         string      `json:"id"`
	Kind       string      `json:"kind"`
	Key        testvec.Hex `json:"key_hex"`
	IV23       testvec.Hex `json:"iv23_hex"`
	IV25       testvec.Hex `json:"iv25_hex"`
	Words      []string    `json:"keystream_words_hex"`
	TagBits    int         `json:"tag_bits"`
	LengthBits int         `json:"length_bits"`
	Plaintext  testvec.Hex `json:"plaintext_hex"`
	Ciphertext testvec.Hex `json:"ciphertext_hex"`
	Message    testvec.Hex `json:"message_hex"`
	MAC        testvec.Hex `json:"mac_hex"`
	Mismatch   []any       `json:"known_mismatch"`
}

func load[T any](t *testing.T, name string) []T {
	t.Helper()
	v, err := testvec.Load[T](name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// forEachImpl runs f as a subtest once per implementation the CPU has.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	impl.ForEach("zuc", func(name string) { t.Run(name, f) })
}

// keystream returns n keystream bytes of s.
func keystream(s cipher.Stream, n int) []byte {
	b := make([]byte, n)
	s.XORKeyStream(b, b)
	return b
}

func wordsHex(ks []byte) []string {
	var w []string
	for i := 0; i+4 <= len(ks); i += 4 {
		w = append(w, hex.EncodeToString(ks[i:i+4]))
	}
	return w
}

func maskBits(b []byte, bits int) []byte {
	b = bytes.Clone(b[:(bits+7)/8])
	if r := bits % 8; r != 0 {
		b[len(b)-1] &= 0xff << (8 - r)
	}
	return b
}

func TestZUC128Vectors(t *testing.T) {
	vs := load[vec128](t, "zuc128.json")
	forEachImpl(t, func(t *testing.T) {
		var nks, neea, neia int
		for _, v := range vs {
			switch v.Kind {
			case "keystream":
				nks++
				s, err := NewCipher(v.Key, v.IV)
				if err != nil {
					t.Fatalf("%s: %v", v.ID, err)
				}
				n := len(v.Words)
				if v.WordAt != nil {
					n = max(n, v.WordAt.Index)
				}
				got := wordsHex(keystream(s, 4*n))
				for i, w := range v.Words {
					if got[i] != w {
						t.Errorf("%s: z%d = %s, want %s", v.ID, i+1, got[i], w)
					}
				}
				if v.WordAt != nil && got[v.WordAt.Index-1] != v.WordAt.Word {
					t.Errorf("%s: z%d = %s, want %s", v.ID, v.WordAt.Index, got[v.WordAt.Index-1], v.WordAt.Word)
				}
			case "eea3":
				neea++
				dst := make([]byte, len(v.Plaintext))
				if err := EEA3Bits(v.Key, v.Count, v.Bearer, v.Direction, dst, v.Plaintext, v.LengthBits); err != nil {
					t.Fatalf("%s: %v", v.ID, err)
				}
				want := maskBits(v.Ciphertext, v.LengthBits)
				if !bytes.Equal(dst[:len(want)], want) {
					t.Errorf("%s: encrypt\n got %x\nwant %x", v.ID, dst, want)
				}
				// Decryption, in place, through the Stream.
				buf := bytes.Clone(v.Ciphertext)
				s, err := NewEEA3(v.Key, v.Count, v.Bearer, v.Direction)
				if err != nil {
					t.Fatal(err)
				}
				s.XORKeyStream(buf, buf)
				if got, want := maskBits(buf, v.LengthBits), maskBits(v.Plaintext, v.LengthBits); !bytes.Equal(got, want) {
					t.Errorf("%s: decrypt\n got %x\nwant %x", v.ID, got, want)
				}
			case "eia3":
				neia++
				h, err := NewEIA3(v.Key, v.Count, v.Bearer, v.Direction)
				if err != nil {
					t.Fatal(err)
				}
				got, err := h.FinishBits(nil, v.Message, v.LengthBits)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, v.MAC) {
					t.Errorf("%s: MAC %x, want %x", v.ID, got, v.MAC)
				}
				// Same through Write of the leading whole bytes.
				whole := v.LengthBits / 8
				h.Write(v.Message[:whole])
				got, _ = h.FinishBits(nil, v.Message[whole:], v.LengthBits%8)
				if !bytes.Equal(got, v.MAC) {
					t.Errorf("%s: Write+FinishBits MAC %x, want %x", v.ID, got, v.MAC)
				}
				if v.LengthBits%8 == 0 {
					if got := h.Sum(nil); !bytes.Equal(got, v.MAC) {
						t.Errorf("%s: Sum %x, want %x", v.ID, got, v.MAC)
					}
				}
			default:
				t.Fatalf("%s: unknown kind %q", v.ID, v.Kind)
			}
		}
		if nks != 6 || neea != 5 || neia != 10 {
			t.Errorf("ran %d keystream, %d eea3, %d eia3 cases", nks, neea, neia)
		}
	})
}

func TestZUC256Vectors(t *testing.T) {
	vs := load[vec256](t, "zuc256.json")
	forEachImpl(t, func(t *testing.T) {
		var n, mismatch int
		for _, v := range vs {
			if len(v.Mismatch) > 0 {
				mismatch++
			}
			for _, iv := range [][]byte{v.IV23, v.IV25} {
				n++
				switch v.Kind {
				case "keystream":
					s, err := NewCipher(v.Key, iv)
					if err != nil {
						t.Fatalf("%s: %v", v.ID, err)
					}
					got := wordsHex(keystream(s, 4*len(v.Words)))
					for i, w := range v.Words {
						if got[i] != w {
							t.Errorf("%s (IV %d bytes): z%d = %s, want %s", v.ID, len(iv), i+1, got[i], w)
						}
					}
				case "encrypt":
					s, err := NewCipher(v.Key, iv)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]byte, len(v.Plaintext))
					s.XORKeyStream(got, v.Plaintext)
					if !bytes.Equal(maskBits(got, v.LengthBits), maskBits(v.Ciphertext, v.LengthBits)) {
						t.Errorf("%s (IV %d bytes):\n got %x\nwant %x", v.ID, len(iv), got, v.Ciphertext)
					}
				case "mac":
					h, err := NewMAC256(v.Key, iv, v.TagBits/8)
					if err != nil {
						t.Fatal(err)
					}
					if h.Size() != v.TagBits/8 {
						t.Errorf("%s: Size %d", v.ID, h.Size())
					}
					got, err := h.(*MAC256).FinishBits(nil, v.Message, v.LengthBits)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, v.MAC) {
						t.Errorf("%s (IV %d bytes): tag %x, want %x", v.ID, len(iv), got, v.MAC)
					}
					if v.LengthBits%8 == 0 {
						h.Write(v.Message[:v.LengthBits/8])
						if got := h.Sum(nil); !bytes.Equal(got, v.MAC) {
							t.Errorf("%s (IV %d bytes): Sum %x, want %x", v.ID, len(iv), got, v.MAC)
						}
					}
				default:
					t.Fatalf("%s: unknown kind %q", v.ID, v.Kind)
				}
			}
		}
		if n != 2*51 || mismatch != 7 {
			t.Errorf("ran %d cases, %d known gmsm mismatches (want 102, 7)", n, mismatch)
		}
	})
}

// TestRecordKeystream checks the keystream part of the ZUC-128 record
// protection known-answer values (ciphersuite/ZUC.md):
// C = P XOR ZUC-128(write_key, write_IV XOR seq), the first len(P) bytes of
// each fragment.
func TestRecordKeystream(t *testing.T) {
	key, _ := hex.DecodeString("00112233445566778899aabbccddeeff")
	writeIV, _ := hex.DecodeString("0f1e2d3c4b5a69788796a5b4c3d2e1f0")
	rows := []struct {
		seq      uint64
		p, zucIV string
		fragment string
	}{
		{0, "1400000c0102030405060708090a0b0c", "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
			"358181c40d57f205dc9303804c84de73" + "8a1405df1d19e04a38a1acd7199175ff3f027ac23cbdecbb543d45d3caa36778"},
		{1, "48656c6c6f2c205a5543207265636f7264206c61796572210a", "0f1e2d3c4b5a69788796a5b4c3d2e1f1",
			"afd6d2c749dc8daf09d266a0d35b17f1a13fd7a20361c66786" + "7d3ba43faff99e993383d03a0367001b3acd4be63a09a891816c81b09526541d"},
		{0x0102030405060708, "", "0f1e2d3c4b5a69788694a6b0c6d4e6f8",
			"ef0d449a5e516f3a93081120aa9320fec97ed91b1aeb6f99a622e3d0727b650c"},
	}
	forEachImpl(t, func(t *testing.T) {
		s, err := NewCipher(key, make([]byte, 16))
		if err != nil {
			t.Fatal(err)
		}
		c := s.(*Cipher)
		for _, r := range rows {
			iv := bytes.Clone(writeIV)
			var seq [8]byte
			binary.BigEndian.PutUint64(seq[:], r.seq)
			subtleXOR(iv[8:], seq[:])
			if got := hex.EncodeToString(iv); got != r.zucIV {
				t.Fatalf("seq %d: zuc_iv %s, want %s", r.seq, got, r.zucIV)
			}
			if err := c.Reset(iv); err != nil {
				t.Fatal(err)
			}
			p, _ := hex.DecodeString(r.p)
			frag, _ := hex.DecodeString(r.fragment)
			got := make([]byte, len(p))
			c.XORKeyStream(got, p)
			if !bytes.Equal(got, frag[:len(p)]) {
				t.Errorf("seq %d: C = %x, want %x", r.seq, got, frag[:len(p)])
			}
			if len(frag) != len(p)+32 {
				t.Errorf("seq %d: fragment length %d", r.seq, len(frag))
			}
		}
	})
}

func subtleXOR(dst, src []byte) {
	for i := range src {
		dst[i] ^= src[i]
	}
}

// TestStreamChunking checks that any split of XORKeyStream calls gives the
// keystream of one call, for both variants and across the 64-byte batch
// and the bulk boundaries.
func TestStreamChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	forEachImpl(t, func(t *testing.T) {
		for _, kl := range []int{16, 32} {
			key := make([]byte, kl)
			iv := make([]byte, map[int]int{16: 16, 32: 23}[kl])
			for trial := range 50 {
				fillRand(rng, key)
				fillRand(rng, iv)
				n := rng.IntN(3000)
				src := make([]byte, n)
				fillRand(rng, src)
				s, _ := NewCipher(key, iv)
				want := make([]byte, n)
				s.XORKeyStream(want, src)

				s, _ = NewCipher(key, iv)
				got := make([]byte, n)
				for off := 0; off < n; {
					step := rng.IntN(200)
					if trial%3 == 0 {
						step = rng.IntN(9)
					}
					step = min(step, n-off)
					s.XORKeyStream(got[off:off+step], src[off:off+step])
					off += step
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("key %d bytes, n=%d: chunked keystream differs", kl, n)
				}
			}
		}
	})
}

func fillRand(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// refMAC is a direct bit-by-bit model of the two MACs, following the
// specifications' text: 128-EIA3 and the ZUC-256 MAC over the first nbits
// of msg, with the keystream taken from a Cipher.
func refMAC(ks []byte, msg []byte, nbits, tagBits int, eia3 bool) []byte {
	bit := func(b []byte, i int) uint64 { return uint64(b[i/8]>>(7-i%8)) & 1 }
	win := func(i, n int) uint64 { // n keystream bits from bit i
		var w uint64
		for j := range n {
			w = w<<1 | bit(ks, i+j)
		}
		return w
	}
	out := make([]byte, tagBits/8)
	for lane := range tagBits / 32 {
		var t uint64
		start := 0
		if !eia3 {
			t = win(32*lane, 32)
			start = tagBits
		}
		for i := range nbits {
			if bit(msg, i) == 1 {
				t ^= win(start+i+32*lane, 32)
			}
		}
		t ^= win(start+nbits+32*lane, 32)
		if eia3 {
			l := (nbits+64+31)/32 - 1
			t ^= win(32*l, 32)
		}
		binary.BigEndian.PutUint32(out[4*lane:], uint32(t))
	}
	return out
}

// TestMACAgainstModel compares the MACs with refMAC on random lengths,
// including lengths that end anywhere in a byte, word and block, and the
// lengths modulo 16 bytes on which a known ZUC-256 implementation fails.
func TestMACAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forEachImpl(t, func(t *testing.T) {
		edges := []int{0, 1, 31, 32, 33, 480, 511, 512, 513, 544, 1023, 1024, 1025, 4096}
		for trial := range 300 + len(edges) {
			nbits := rng.IntN(1400)
			switch {
			case trial < 130:
				nbits = trial * 9
			case trial >= 300:
				nbits = edges[trial-300]
			}
			msg := make([]byte, (nbits+7)/8)
			fillRand(rng, msg)

			key := make([]byte, 16)
			fillRand(rng, key)
			count, bearer, dir := rng.Uint32(), rng.Uint32N(32), rng.Uint32N(2)
			var iv [16]byte
			eia3IV(&iv, count, bearer, dir)
			s, _ := NewCipher(key, iv[:])
			ks := keystream(s, (nbits+64+31)/32*4+8)
			h, _ := NewEIA3(key, count, bearer, dir)
			got, _ := h.FinishBits(nil, msg, nbits)
			if want := refMAC(ks, msg, nbits, 32, true); !bytes.Equal(got, want) {
				t.Fatalf("EIA3 %d bits: %x, want %x", nbits, got, want)
			}

			key = make([]byte, 32)
			fillRand(rng, key)
			iv256 := make([]byte, 23)
			fillRand(rng, iv256)
			for _, size := range []int{4, 8, 16} {
				// The reference needs the MAC's keystream, which uses
				// the MAC constants; build it from the internals.
				var d [16]uint8 = zuc256D
				copy(d[:3], zuc256MACD[map[int]int{4: 0, 8: 1, 16: 2}[size]][:])
				c := &Cipher{zuc256: true, keyed: true}
				loadKey256(&c.pre, key, &d)
				if err := c.Reset(iv256); err != nil {
					t.Fatal(err)
				}
				ks := keystream(c, (nbits+2*8*size+31)/32*4+8)
				m, _ := NewMAC256(key, iv256, size)
				got, _ := m.(*MAC256).FinishBits(nil, msg, nbits)
				if want := refMAC(ks, msg, nbits, 8*size, false); !bytes.Equal(got, want) {
					t.Fatalf("MAC256/%d %d bits: %x, want %x", size, nbits, got, want)
				}
			}
		}
	})
}

// TestMACStreaming checks that random splits of Write give the MAC of one
// Write, that Sum does not change the state, and that Reset equals fresh.
func TestMACStreaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	key16 := make([]byte, 16)
	key32 := make([]byte, 32)
	iv := make([]byte, 25)
	fillRand(rng, key16)
	fillRand(rng, key32)
	fillRand(rng, iv[:17])
	forEachImpl(t, func(t *testing.T) {
		newHashes := func() []hash.Hash {
			e, _ := NewEIA3(key16, 7, 3, 1)
			m4, _ := NewMAC256(key32, iv, 4)
			m8, _ := NewMAC256(key32, iv, 8)
			m16, _ := NewMAC256(key32, iv, 16)
			return []hash.Hash{e, m4, m8, m16}
		}
		for range 40 {
			msg := make([]byte, rng.IntN(1000))
			fillRand(rng, msg)
			one := newHashes()
			split := newHashes()
			for i := range one {
				one[i].Write(msg)
				want := one[i].Sum(nil)
				if again := one[i].Sum(nil); !bytes.Equal(again, want) {
					t.Fatal("Sum changed the state")
				}
				for off := 0; off < len(msg); {
					step := min(rng.IntN(150), len(msg)-off)
					split[i].Write(msg[off : off+step])
					off += step
					if rng.IntN(4) == 0 {
						split[i].Sum(nil)
					}
				}
				if got := split[i].Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("hash %d, %d bytes: split Write gives %x, want %x", i, len(msg), got, want)
				}
				clone, err := one[i].(hash.Cloner).Clone()
				if err != nil {
					t.Fatal(err)
				}
				clone.Write([]byte("more"))
				one[i].Write([]byte("more"))
				if !bytes.Equal(clone.Sum(nil), one[i].Sum(nil)) {
					t.Fatalf("hash %d: clone differs", i)
				}
				one[i].Reset()
				if !bytes.Equal(split[i].Sum(nil), want) || bytes.Equal(clone.Sum(nil), one[i].Sum(nil)) {
					t.Fatalf("hash %d: Reset of one hash changed another", i)
				}
				fresh := newHashes()[i]
				one[i].Write(msg[:len(msg)/2])
				fresh.Write(msg[:len(msg)/2])
				if !bytes.Equal(one[i].Sum(nil), fresh.Sum(nil)) {
					t.Fatalf("hash %d: Reset differs from fresh", i)
				}
			}
		}
	})
}

func TestCipherResetEqualsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	forEachImpl(t, func(t *testing.T) {
		for _, sizes := range [][2]int{{16, 16}, {32, 23}, {32, 25}} {
			key := make([]byte, sizes[0])
			fillRand(rng, key)
			iv1, iv2 := make([]byte, sizes[1]), make([]byte, sizes[1])
			fillRand(rng, iv1)
			fillRand(rng, iv2)
			if sizes[1] == 25 {
				for i := 17; i < 25; i++ {
					iv1[i] &= 0x3f
					iv2[i] &= 0x3f
				}
			}
			s, err := NewCipher(key, iv1)
			if err != nil {
				t.Fatal(err)
			}
			keystream(s, 100) // leave unused bytes behind
			if err := s.(*Cipher).Reset(iv2); err != nil {
				t.Fatal(err)
			}
			fresh, _ := NewCipher(key, iv2)
			if !bytes.Equal(keystream(s, 300), keystream(fresh, 300)) {
				t.Errorf("%v: Reset keystream differs from a fresh cipher", sizes)
			}
		}
	})
}

// TestIV23And25 checks that the two forms of a ZUC-256 IV name the same IV.
func TestIV23And25(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		iv23 := make([]byte, 23)
		fillRand(rng, iv23)
		var a, b [25]uint8
		unpackIV256(&a, iv23)
		iv25 := make([]byte, 25)
		copy(iv25, a[:])
		if !unpackIV256(&b, iv25) || a != b {
			t.Fatal("23- and 25-byte IV forms disagree")
		}
		// Repack and compare.
		var x uint64
		for _, v := range a[17:] {
			x = x<<6 | uint64(v)
		}
		var back [6]byte
		for i := range 6 {
			back[i] = byte(x >> (40 - 8*i))
		}
		if !bytes.Equal(back[:], iv23[17:]) {
			t.Fatal("6-bit fields do not round-trip")
		}
	}
}

func TestBadInputs(t *testing.T) {
	k16, k32 := make([]byte, 16), make([]byte, 32)
	for _, c := range []struct {
		name    string
		key, iv []byte
	}{
		{"key 0", nil, make([]byte, 16)},
		{"key 15", make([]byte, 15), make([]byte, 16)},
		{"key 24", make([]byte, 24), make([]byte, 16)},
		{"128 iv 15", k16, make([]byte, 15)},
		{"128 iv 23", k16, make([]byte, 23)},
		{"256 iv 16", k32, make([]byte, 16)},
		{"256 iv 24", k32, make([]byte, 24)},
		{"256 iv 25 high bits", k32, append(make([]byte, 24), 0x40)},
	} {
		if s, err := NewCipher(c.key, c.iv); err == nil || s != nil {
			t.Errorf("NewCipher %s: no error", c.name)
		}
	}
	s, _ := NewCipher(k16, make([]byte, 16))
	if err := s.(*Cipher).Reset(make([]byte, 23)); err == nil {
		t.Error("Reset with a ZUC-256 IV on a ZUC-128 cipher succeeded")
	}
	for _, tag := range []int{0, 1, 2, 3, 5, 12, 32, -4} {
		if _, err := NewMAC256(k32, make([]byte, 23), tag); err == nil {
			t.Errorf("NewMAC256 tag size %d: no error", tag)
		}
	}
	if _, err := NewMAC256(k16, make([]byte, 23), 4); err == nil {
		t.Error("NewMAC256 with a 16-byte key: no error")
	}
	if _, err := NewMAC256(k32, make([]byte, 16), 4); err == nil {
		t.Error("NewMAC256 with a 16-byte IV: no error")
	}
	if _, err := NewEEA3(k32, 0, 0, 0); err == nil {
		t.Error("NewEEA3 with a 32-byte key: no error")
	}
	if _, err := NewEEA3(k16, 0, 32, 0); err == nil {
		t.Error("NewEEA3 with BEARER 32: no error")
	}
	if _, err := NewEIA3(k16, 0, 0, 2); err == nil {
		t.Error("NewEIA3 with DIRECTION 2: no error")
	}
	if _, err := NewEIA3(make([]byte, 17), 0, 0, 0); err == nil {
		t.Error("NewEIA3 with a 17-byte key: no error")
	}
	h, _ := NewEIA3(k16, 0, 0, 0)
	if _, err := h.FinishBits(nil, make([]byte, 2), 17); err == nil {
		t.Error("FinishBits with too short a message: no error")
	}
	if _, err := h.FinishBits(nil, nil, -1); err == nil {
		t.Error("FinishBits with negative length: no error")
	}
	if err := EEA3Bits(k16, 0, 0, 0, make([]byte, 1), make([]byte, 2), 9); err == nil {
		t.Error("EEA3Bits with short dst: no error")
	}
	buf := make([]byte, 10)
	if err := EEA3Bits(k16, 0, 0, 0, buf[1:], buf[:9], 72); err == nil {
		t.Error("EEA3Bits with overlapping buffers: no error")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("XORKeyStream with short dst did not panic")
			}
		}()
		s.XORKeyStream(make([]byte, 3), make([]byte, 4))
	}()
	var zero Cipher
	if err := zero.Reset(make([]byte, 16)); err == nil {
		t.Error("Reset of a zero Cipher succeeded")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("XORKeyStream on a zero Cipher did not panic")
			}
		}()
		zero.XORKeyStream(make([]byte, 4), make([]byte, 4))
	}()
}

func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts are slow to measure")
	}
	key, iv := make([]byte, 16), make([]byte, 16)
	s, _ := NewCipher(key, iv)
	c := s.(*Cipher)
	buf := make([]byte, 1000)
	h, _ := NewEIA3(key, 1, 2, 1)
	m, _ := NewMAC256(make([]byte, 32), make([]byte, 23), 16)
	tag := make([]byte, 0, 16)
	forEachImpl(t, func(t *testing.T) {
		for name, f := range map[string]func(){
			"XORKeyStream": func() { s.XORKeyStream(buf, buf) },
			"Reset":        func() { c.Reset(iv); c.XORKeyStream(buf[:33], buf[:33]) },
			"EIA3":         func() { h.Reset(); h.Write(buf); tag = h.Sum(tag[:0]) },
			"EIA3Bits":     func() { tag, _ = h.FinishBits(tag[:0], buf, 8*len(buf)-3) },
			"MAC256":       func() { m.Reset(); m.Write(buf); tag = m.Sum(tag[:0]) },
			"EEA3Bits":     func() { EEA3Bits(key, 1, 2, 1, buf, buf, 8*len(buf)-5) },
		} {
			if n := testing.AllocsPerRun(20, f); n != 0 {
				t.Errorf("%s: %v allocations", name, n)
			}
		}
	})
}

func FuzzXORKeyStream(f *testing.F) {
	f.Add(make([]byte, 16), make([]byte, 16), []byte("hello"), uint8(3))
	f.Add(make([]byte, 32), make([]byte, 23), make([]byte, 200), uint8(65))
	f.Fuzz(func(t *testing.T, key, iv, msg []byte, split uint8) {
		s, err := NewCipher(key, iv)
		if err != nil {
			return
		}
		want := make([]byte, len(msg))
		s.XORKeyStream(want, msg)
		s2, _ := NewCipher(key, iv)
		got := bytes.Clone(msg)
		k := min(int(split), len(got))
		s2.XORKeyStream(got[:k], got[:k])
		s2.XORKeyStream(got[k:], got[k:])
		if !bytes.Equal(got, want) {
			t.Fatal("in-place split XORKeyStream differs")
		}
		s3, _ := NewCipher(key, iv)
		s3.XORKeyStream(got, got)
		if !bytes.Equal(got, msg) {
			t.Fatal("decryption does not invert encryption")
		}
		// Every kernel the CPU has writes the generic code's keystream
		// (want came from the CPU's choice; ForEach starts with generic).
		impl.ForEach("zuc", func(name string) {
			s, _ := NewCipher(key, iv)
			out := make([]byte, len(msg))
			s.XORKeyStream(out, msg)
			if !bytes.Equal(out, want) {
				t.Fatalf("%s: XORKeyStream differs from the default kernel's", name)
			}
		})
	})
}

func FuzzMAC(f *testing.F) {
	f.Add([]byte("abc"), uint16(20), uint16(1))
	f.Fuzz(func(t *testing.T, msg []byte, nbits, split uint16) {
		key16, key32 := make([]byte, 16), make([]byte, 32)
		key16[3], key32[30] = 9, 7
		if int(nbits) > 8*len(msg) {
			nbits = uint16(8 * len(msg))
		}
		h, _ := NewEIA3(key16, 1, 2, 1)
		got, err := h.FinishBits(nil, msg, int(nbits))
		if err != nil {
			t.Fatal(err)
		}
		var iv [16]byte
		eia3IV(&iv, 1, 2, 1)
		s, _ := NewCipher(key16, iv[:])
		ks := keystream(s, (int(nbits)+64+31)/32*4+8)
		if want := refMAC(ks, msg, int(nbits), 32, true); !bytes.Equal(got, want) {
			t.Fatalf("EIA3 %d bits: %x, want %x", nbits, got, want)
		}
		m, _ := NewMAC256(key32, make([]byte, 23), 8)
		k := min(int(split), len(msg))
		m.Write(msg[:k])
		m.Write(msg[k:])
		m2, _ := NewMAC256(key32, make([]byte, 23), 8)
		m2.Write(msg)
		if !bytes.Equal(m.Sum(nil), m2.Sum(nil)) {
			t.Fatal("split Write differs")
		}
	})
}
