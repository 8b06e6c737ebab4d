// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import (
	"bytes"
	"crypto/hmac"
	"encoding"
	"encoding/hex"
	"hash"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/internal/testvec"
)

var (
	_ hash.Hash                  = (*digest)(nil)
	_ hash.Cloner                = (*digest)(nil)
	_ encoding.BinaryMarshaler   = (*digest)(nil)
	_ encoding.BinaryAppender    = (*digest)(nil)
	_ encoding.BinaryUnmarshaler = (*digest)(nil)
)

type sm3Vector struct {
	ID      string      `json:"id"`
	Message testvec.Hex `json:"message_hex"`
	Repeat  *struct {
		Unit  testvec.Hex `json:"unit_hex"`
		Count int         `json:"count"`
	} `json:"message_repeat"`
	Digest testvec.Hex `json:"digest_hex"`
}

func (v *sm3Vector) message() []byte {
	if v.Repeat != nil {
		return bytes.Repeat(v.Repeat.Unit, v.Repeat.Count)
	}
	return v.Message
}

// forEachImpl runs f as a subtest once per block kernel the CPU supports.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	impl.ForEach("sm3", func(name string) { t.Run(name, f) })
}

func TestVectors(t *testing.T) {
	vectors, err := testvec.Load[sm3Vector]("sm3.json")
	if err != nil {
		t.Fatal(err)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, v := range vectors {
			msg := v.message()
			if got := Sum(msg); !bytes.Equal(got[:], v.Digest) {
				t.Errorf("%s: Sum = %x, want %x", v.ID, got, v.Digest)
			}
			// Streamed in uneven pieces, and with Sum called midway, which
			// must not disturb the state.
			h := New()
			rest := msg
			for i := 1; len(rest) > 0; i = i*3 + 1 {
				n := min(i, len(rest))
				h.Write(rest[:n])
				rest = rest[n:]
				h.Sum(nil)
			}
			if got := h.Sum(nil); !bytes.Equal(got, v.Digest) {
				t.Errorf("%s: streamed = %x, want %x", v.ID, got, v.Digest)
			}
			if got := refSum(msg); !bytes.Equal(got[:], v.Digest) {
				t.Errorf("%s: reference = %x, want %x", v.ID, got, v.Digest)
			}
		}
	})
}

func TestHMACVectors(t *testing.T) {
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
		for _, v := range vectors {
			m := hmac.New(New, v.Key)
			m.Write(v.Message)
			if got := m.Sum(nil); !bytes.Equal(got, v.MAC) {
				t.Errorf("%s: HMAC-SM3 = %x, want %x", v.ID, got, v.MAC)
			}
		}
	})
}

func TestKDFVectors(t *testing.T) {
	type kdfVector struct {
		ID     string      `json:"id"`
		Kind   string      `json:"kind"`
		Z      testvec.Hex `json:"z_hex"`
		Bits   int         `json:"klen_bits"`
		Output testvec.Hex `json:"output_hex"`
	}
	vectors, err := testvec.Load[kdfVector]("sm2.json")
	if err != nil {
		t.Fatal(err)
	}
	forEachImpl(t, func(t *testing.T) {
		n := 0
		for _, v := range vectors {
			if v.Kind != "kdf" {
				continue
			}
			n++
			if v.Bits%8 != 0 {
				t.Fatalf("%s: klen of %d bits is not whole bytes", v.ID, v.Bits)
			}
			if got := KDF(v.Z, v.Bits/8); !bytes.Equal(got, v.Output) {
				t.Errorf("%s: KDF = %x, want %x", v.ID, got, v.Output)
			}
			if got := refKDF(v.Z, v.Bits/8); !bytes.Equal(got, v.Output) {
				t.Errorf("%s: reference KDF = %x, want %x", v.ID, got, v.Output)
			}
			// The same input split into parts at every point.
			for i := 0; i <= len(v.Z); i++ {
				got := make([]byte, len(v.Output))
				KDFInto(got, v.Z[:i], nil, v.Z[i:])
				if !bytes.Equal(got, v.Output) {
					t.Errorf("%s: KDFInto split at %d = %x, want %x", v.ID, i, got, v.Output)
				}
			}
		}
		if n == 0 {
			t.Fatal("sm2.json has no kdf vectors")
		}
	})
}

func TestKDFLengths(t *testing.T) {
	if got := KDF([]byte("z"), 0); got == nil || len(got) != 0 {
		t.Errorf("KDF(z, 0) = %#v, want empty non-nil", got)
	}
	if got := KDF([]byte("z"), -1); got != nil {
		t.Errorf("KDF(z, -1) = %x, want nil", got)
	}
	if bits.UintSize == 64 {
		tooLong := uint64(MaxKDFLen) + 1
		if got := KDF([]byte("z"), int(tooLong)); got != nil {
			t.Errorf("KDF above MaxKDFLen returned %d bytes", len(got))
		}
	}
	// Every z length around the one- and two-block tail boundaries, and
	// every output length up to a few blocks, against the reference.
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]byte, 200)
	for i := range z {
		z[i] = byte(rng.Uint32())
	}
	forEachImpl(t, func(t *testing.T) {
		for zl := 0; zl <= len(z); zl++ {
			for _, kl := range []int{1, 31, 32, 33, 64, 100} {
				if got, want := KDF(z[:zl], kl), refKDF(z[:zl], kl); !bytes.Equal(got, want) {
					t.Fatalf("KDF(z[:%d], %d) = %x, want %x", zl, kl, got, want)
				}
			}
		}
	})
}

// TestStreamingRandomSplits checks every kernel against the reference on
// random lengths up to 4 KiB, written at random offsets from the start of
// a buffer (so unaligned), in random pieces, with the state saved and
// restored at a random point.
func TestStreamingRandomSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 4096+64)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	forEachImpl(t, func(t *testing.T) {
		for range 300 {
			off := rng.IntN(64)
			m := buf[off : off+rng.IntN(4097)]
			want := refSum(m)
			if got := Sum(m); got != want {
				t.Fatalf("len %d at offset %d: Sum %x, reference %x", len(m), off, got, want)
			}
			h := New()
			saveAt := rng.IntN(len(m) + 1)
			saved := false
			for written := 0; written < len(m); {
				var n int
				switch rng.IntN(3) {
				case 0:
					n = rng.IntN(4)
				case 1:
					n = rng.IntN(130)
				default:
					n = rng.IntN(1500)
				}
				n = min(n, len(m)-written)
				h.Write(m[written : written+n])
				written += n
				if !saved && written >= saveAt {
					state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					h = New()
					if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
						t.Fatal(err)
					}
					saved = true
				}
			}
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("len %d: streamed %x, reference %x", len(m), got, want)
			}
			h.Reset()
			h.Write(m)
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("len %d: after Reset %x, reference %x", len(m), got, want)
			}
		}
	})
}

func TestMarshalRoundTrip(t *testing.T) {
	msg := make([]byte, 3*BlockSize+7)
	for i := range msg {
		msg[i] = byte(i*7 + 1)
	}
	want := Sum(msg)
	forEachImpl(t, func(t *testing.T) {
		for i := 0; i <= len(msg); i++ {
			h := New()
			h.Write(msg[:i])
			state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if len(state) != marshaledSize {
				t.Fatalf("split %d: state is %d bytes, want %d", i, len(state), marshaledSize)
			}
			prefix := []byte("prefix")
			appended, err := h.(encoding.BinaryAppender).AppendBinary(prefix)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(appended[:len(prefix)], []byte("prefix")) || !bytes.Equal(appended[len(prefix):], state) {
				t.Fatalf("split %d: AppendBinary differs from MarshalBinary", i)
			}

			h2 := New()
			h2.Write([]byte("state to be overwritten"))
			if err := h2.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
				t.Fatalf("split %d: %v", i, err)
			}
			h2.Write(msg[i:])
			if got := h2.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("split %d: resumed digest %x, want %x", i, got, want)
			}
			// The marshaled form is canonical: re-marshaling the restored
			// state gives the same bytes.
			h3 := New()
			h3.(encoding.BinaryUnmarshaler).UnmarshalBinary(state)
			again, _ := h3.(encoding.BinaryMarshaler).MarshalBinary()
			if !bytes.Equal(again, state) {
				t.Fatalf("split %d: state not canonical", i)
			}

			c, err := h.(hash.Cloner).Clone()
			if err != nil {
				t.Fatal(err)
			}
			c.Write(msg[i:])
			if got := c.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("split %d: clone digest %x, want %x", i, got, want)
			}
		}
	})
}

// TestSumThenWrite checks that Sum leaves the state alone at every split,
// including those on a block boundary, where Write holds the last block
// back for Sum.
func TestSumThenWrite(t *testing.T) {
	msg := make([]byte, 3*BlockSize+7)
	for i := range msg {
		msg[i] = byte(i*5 + 3)
	}
	want := refSum(msg)
	forEachImpl(t, func(t *testing.T) {
		for i := 0; i <= len(msg); i++ {
			h := New()
			h.Write(msg[:i])
			if got, w := h.Sum(nil), refSum(msg[:i]); !bytes.Equal(got, w[:]) {
				t.Fatalf("split %d: first Sum %x, reference %x", i, got, w)
			}
			h.Write(msg[i:])
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("split %d: Sum after more writes %x, reference %x", i, got, want)
			}
		}
	})
}

func TestUnmarshalRejects(t *testing.T) {
	h := New()
	h.Write([]byte("some data"))
	good, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
	bad := map[string][]byte{
		"empty":        nil,
		"short magic":  []byte("sm3"),
		"magic only":   []byte(magic),
		"sha256 magic": append([]byte("sha\x03"), good[4:]...),
		"wrong magic":  append([]byte("sm3\x02"), good[4:]...),
		"truncated":    good[:len(good)-1],
		"extended":     append(append([]byte{}, good...), 0),
		"no length":    good[:len(good)-8],
	}
	for name, b := range bad {
		d := New()
		if err := d.(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err == nil {
			t.Errorf("%s: UnmarshalBinary accepted %d bytes", name, len(b))
		} else if !strings.HasPrefix(err.Error(), "sm3: ") {
			t.Errorf("%s: error %q lacks the package prefix", name, err)
		}
	}
}

func TestAllocations(t *testing.T) {
	msg := make([]byte, 1000)
	out := make([]byte, 0, Size)
	kdfOut := make([]byte, 200)
	state := make([]byte, 0, marshaledSize)
	forEachImpl(t, func(t *testing.T) {
		h := New()
		if n := testing.AllocsPerRun(10, func() {
			h.Reset()
			h.Write(msg[:1])
			h.Write(msg)
			out = h.Sum(out[:0])
		}); n != 0 {
			t.Errorf("Write/Sum allocate %v times", n)
		}
		if n := testing.AllocsPerRun(10, func() {
			s := Sum(msg)
			out = append(out[:0], s[:]...)
		}); n != 0 {
			t.Errorf("Sum allocates %v times", n)
		}
		if n := testing.AllocsPerRun(10, func() {
			KDFInto(kdfOut, msg[:64])
			KDFInto(kdfOut, msg[:32], msg[32:64])
		}); n != 0 {
			t.Errorf("KDFInto allocates %v times", n)
		}
		if n := testing.AllocsPerRun(10, func() {
			state, _ = h.(encoding.BinaryAppender).AppendBinary(state[:0])
			h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state)
		}); n != 0 {
			t.Errorf("AppendBinary/UnmarshalBinary allocate %v times", n)
		}
	})
}

// TestOpenSSL compares digests, HMACs and the KDF (OpenSSL's X9.63 KDF
// with no shared info is the same construction) with the openssl CLI on
// random inputs.
func TestOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	run := func(stdin []byte, args ...string) string {
		t.Helper()
		cmd := exec.Command("openssl", args...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("openssl %s: %v", strings.Join(args, " "), err)
		}
		return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(string(out)), ":", ""))
	}
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	for _, n := range []int{0, 1, 55, 56, 64, 119, 1000, 4097, 1 << 16} {
		msg := random(n)
		cmd := exec.Command("openssl", "dgst", "-sm3", "-binary")
		cmd.Stdin = bytes.NewReader(msg)
		raw, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := Sum(msg); !bytes.Equal(got[:], raw) {
			t.Errorf("len %d: Sum = %x, openssl dgst -sm3 = %x", n, got, raw)
		}

		key := random(1 + rng.IntN(150))
		file := filepath.Join(dir, "msg")
		if err := os.WriteFile(file, msg, 0o600); err != nil {
			t.Fatal(err)
		}
		wantMAC := run(nil, "mac", "-digest", "SM3", "-macopt", "hexkey:"+hex.EncodeToString(key), "-in", file, "HMAC")
		m := hmac.New(New, key)
		m.Write(msg)
		if got := hex.EncodeToString(m.Sum(nil)); got != wantMAC {
			t.Errorf("len %d, key %d: HMAC-SM3 = %s, openssl = %s", n, len(key), got, wantMAC)
		}
	}
	for _, zl := range []int{1, 32, 51, 52, 64, 100} {
		z := random(zl)
		kl := 1 + rng.IntN(200)
		wantKDF := run(nil, "kdf", "-keylen", strconv.Itoa(kl), "-kdfopt", "digest:SM3",
			"-kdfopt", "hexsecret:"+hex.EncodeToString(z), "X963KDF")
		if got := hex.EncodeToString(KDF(z, kl)); got != wantKDF {
			t.Errorf("z %d bytes, %d out: KDF = %s, openssl X963KDF = %s", zl, kl, got, wantKDF)
		}
	}
}

func FuzzSM3(f *testing.F) {
	f.Add([]byte(""), uint16(0))
	f.Add([]byte("abc"), uint16(1))
	f.Add(bytes.Repeat([]byte("abcd"), 16), uint16(64))
	f.Add(bytes.Repeat([]byte{0xff}, 200), uint16(0x1234))
	f.Fuzz(func(t *testing.T, msg []byte, splits uint16) {
		want := refSum(msg)
		impl.ForEach("sm3", func(name string) {
			if got := Sum(msg); got != want {
				t.Fatalf("%s: Sum = %x, reference %x", name, got, want)
			}
			// Write in pieces whose sizes come from the splits seed.
			h := New()
			s := uint(splits)
			for rest := msg; len(rest) > 0; {
				n := min(int(s%131)+1, len(rest))
				s = s*0x9e37 + 1
				h.Write(rest[:n])
				rest = rest[n:]
			}
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("%s: streamed = %x, reference %x", name, got, want)
			}
			// Saved and resumed at a point chosen by the seed.
			at := 0
			if len(msg) > 0 {
				at = int(splits) % (len(msg) + 1)
			}
			h.Reset()
			h.Write(msg[:at])
			state, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
			r := New()
			if err := r.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			r.Write(msg[at:])
			if got := r.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("%s: resumed at %d = %x, reference %x", name, at, got, want)
			}
		})
	})
}

// FuzzUnmarshal feeds arbitrary saved states: they must be rejected with an
// error or, if accepted, give a usable digest whose own saved state loads
// back to the same result.
func FuzzUnmarshal(f *testing.F) {
	h := New()
	h.Write([]byte("seed"))
	good, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
	f.Add(good)
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, state []byte) {
		d := New()
		if err := d.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
			return
		}
		again, err := d.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		d2 := New()
		if err := d2.(encoding.BinaryUnmarshaler).UnmarshalBinary(again); err != nil {
			t.Fatalf("re-marshaled state rejected: %v", err)
		}
		d.Write(state)
		d2.Write(state)
		if !bytes.Equal(d.Sum(nil), d2.Sum(nil)) {
			t.Fatal("state did not survive a round trip")
		}
	})
}

// refSum is a deliberately plain SM3, written straight from the text of
// GB/T 32905-2016 with the 68-word W and 64-word W' arrays, to check the
// unrolled code against something that shares none of its tricks.
func refSum(msg []byte) [Size]byte {
	padded := append([]byte{}, msg...)
	padded = append(padded, 0x80)
	for len(padded)%64 != 56 {
		padded = append(padded, 0)
	}
	l := uint64(len(msg)) * 8
	for i := 7; i >= 0; i-- {
		padded = append(padded, byte(l>>(8*i)))
	}
	v := [8]uint32{init0, init1, init2, init3, init4, init5, init6, init7}
	rotl := bits.RotateLeft32
	p0 := func(x uint32) uint32 { return x ^ rotl(x, 9) ^ rotl(x, 17) }
	p1 := func(x uint32) uint32 { return x ^ rotl(x, 15) ^ rotl(x, 23) }
	for ; len(padded) > 0; padded = padded[64:] {
		var w [68]uint32
		var w1 [64]uint32
		for j := 0; j < 16; j++ {
			b := padded[4*j:]
			w[j] = uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		}
		for j := 16; j < 68; j++ {
			w[j] = p1(w[j-16]^w[j-9]^rotl(w[j-3], 15)) ^ rotl(w[j-13], 7) ^ w[j-6]
		}
		for j := 0; j < 64; j++ {
			w1[j] = w[j] ^ w[j+4]
		}
		a, b, c, d, e, f, g, h := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		for j := 0; j < 64; j++ {
			var tj, ff, gg uint32
			if j < 16 {
				tj = 0x79cc4519
				ff = a ^ b ^ c
				gg = e ^ f ^ g
			} else {
				tj = 0x7a879d8a
				ff = (a & b) | (a & c) | (b & c)
				gg = (e & f) | (^e & g)
			}
			ss1 := rotl(rotl(a, 12)+e+rotl(tj, j%32), 7)
			ss2 := ss1 ^ rotl(a, 12)
			tt1 := ff + d + ss2 + w1[j]
			tt2 := gg + h + ss1 + w[j]
			d = c
			c = rotl(b, 9)
			b = a
			a = tt1
			h = g
			g = rotl(f, 19)
			f = e
			e = p0(tt2)
		}
		v[0] ^= a
		v[1] ^= b
		v[2] ^= c
		v[3] ^= d
		v[4] ^= e
		v[5] ^= f
		v[6] ^= g
		v[7] ^= h
	}
	var out [Size]byte
	for i, x := range v {
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(x>>24), byte(x>>16), byte(x>>8), byte(x)
	}
	return out
}

// refKDF is the KDF written as the standard states it.
func refKDF(z []byte, keyLen int) []byte {
	var out []byte
	for ct := uint32(1); len(out) < keyLen; ct++ {
		in := append(append([]byte{}, z...), byte(ct>>24), byte(ct>>16), byte(ct>>8), byte(ct))
		s := refSum(in)
		out = append(out, s[:]...)
	}
	return out[:keyLen]
}

var sink byte

func benchmarkHash(b *testing.B, size int) {
	msg := make([]byte, size)
	out := make([]byte, 0, Size)
	h := New()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		h.Reset()
		h.Write(msg)
		out = h.Sum(out[:0])
	}
	sink = out[0]
}

func BenchmarkHash8Bytes(b *testing.B) { benchmarkHash(b, 8) }
func BenchmarkHash1K(b *testing.B)     { benchmarkHash(b, 1024) }
func BenchmarkHash8K(b *testing.B)     { benchmarkHash(b, 8192) }

func BenchmarkKDF1K(b *testing.B) {
	z := make([]byte, 64)
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		sink = KDF(z, 1024)[0]
	}
}

// TestSumShort: Sum's one-call path for messages of up to two blocks with
// their padding agrees with the streaming digest at every length around it.
func TestSumShort(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		msg := make([]byte, shortMax+70)
		for i := range msg {
			msg[i] = byte(i*31 + 7)
		}
		for n := 0; n <= len(msg); n++ {
			h := New()
			h.Write(msg[:n])
			if got, want := Sum(msg[:n]), h.Sum(nil); !bytes.Equal(got[:], want) {
				t.Fatalf("Sum of %d bytes = %x, want %x", n, got, want)
			}
		}
	})
}

// TestFinal checks final, on every kernel, against the generic code and
// the reference for every tail length it takes, with garbage after the
// tail and a chaining value from a real prefix.
func TestFinal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	msg := make([]byte, 3*BlockSize+shortMax)
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	forEachImpl(t, func(t *testing.T) {
		for _, blocks := range []int{0, 1, 3} {
			h := iv
			if blocks > 0 {
				blockGeneric(&h, msg[:blocks*BlockSize])
			}
			for n := 0; n <= shortMax; n++ {
				var x [2 * BlockSize]byte
				for i := range x {
					x[i] = byte(rng.Uint32())
				}
				copy(x[:], msg[blocks*BlockSize:blocks*BlockSize+n])
				bits := uint64(blocks*BlockSize+n) << 3
				h0 := h
				var got, gen [Size]byte
				final(&h, &x, n, bits, &got)
				finalGeneric(&h, &x, n, bits, &gen)
				if h != h0 {
					t.Fatalf("%d blocks, n %d: final changed h", blocks, n)
				}
				want := refSum(msg[:blocks*BlockSize+n])
				if got != want || gen != want {
					t.Fatalf("%d blocks, n %d: final %x, generic %x, reference %x", blocks, n, got, gen, want)
				}
			}
		}
	})
}

// TestKDF64 checks the one-call KDF block of a 64-byte z against the
// reference hash of z || ct, for counters whose bytes reach every value
// class, on every implementation.
func TestKDF64(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	forEachImpl(t, func(t *testing.T) {
		for i := range 200 {
			var z [64]byte
			for j := range z {
				z[j] = byte(rng.Uint32())
			}
			cts := []uint32{0, 1, 2, 0x80, 0xff, 0x100, 0x7fffffff, 0x80000000, 0xffffffff, rng.Uint32()}
			ct := cts[i%len(cts)]
			var got [Size]byte
			kdf64(&iv, &z, ct, &got)
			msg := append(z[:], byte(ct>>24), byte(ct>>16), byte(ct>>8), byte(ct))
			if want := refSum(msg); got != want {
				t.Fatalf("kdf64(%x, %#x) = %x, want %x", z, ct, got, want)
			}
		}
	})
}
