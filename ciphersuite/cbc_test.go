// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// countingSM3 is SM3 that counts the compression-function calls it makes (shared
// by the inner and outer hash of an HMAC through *calls). It does not implement
// encoding.BinaryMarshaler, so crypto/hmac re-hashes ipad/opad on every Reset and
// Sum: a constant cost.
type countingSM3 struct {
	hash.Hash
	buffered int
	calls    *int
}

func newCountingSM3(calls *int) func() hash.Hash {
	return func() hash.Hash { return &countingSM3{Hash: sm3.New(), calls: calls} }
}

func (c *countingSM3) Write(p []byte) (int, error) {
	total := c.buffered + len(p)
	*c.calls += total / sm3Block
	c.buffered = total % sm3Block
	return c.Hash.Write(p)
}

func (c *countingSM3) Sum(b []byte) []byte {
	*c.calls += sm3Compressions(c.buffered)
	return c.Hash.Sum(b)
}

func (c *countingSM3) Reset() {
	c.buffered = 0
	c.Hash.Reset()
}

// TestCBCConstantCompressions checks the Lucky13 defence: for records of one
// length, Open makes the same number of SM3 compressions whether the padding is
// short, long, malformed, or the MAC is wrong.
func TestCBCConstantCompressions(t *testing.T) {
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	iv := make([]byte, 16)
	var calls int
	counted := func() *cbcRecord {
		c, err := newCBC(k, newCountingSM3(&calls))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// The counter agrees with SM3 on a plain MAC computation.
	c := counted()
	calls = 0
	c.mac.Reset()
	c.mac.Write(make([]byte, 100))
	c.mac.Sum(nil)
	// ipad block + 100 bytes (2 blocks with the length) + opad block + 32 bytes (1).
	if calls != 1+2+1+1 {
		t.Fatalf("counter sees %d compressions for a 100-byte HMAC, want 5", calls)
	}

	for _, size := range []int{64, 80, 128, 320, 1024, 16384 + 256, MaxCiphertext} {
		payloadLen := size - 16
		var want int
		first := true
		check := func(what string, frag []byte, wantErr error) {
			t.Helper()
			c := counted()
			calls = 0
			_, _, err := c.Open(23, frag)
			if !errors.Is(err, wantErr) && !(wantErr == nil && err == nil) {
				t.Fatalf("size %d, %s: Open = %v, want %v", size, what, err, wantErr)
			}
			if first {
				want, first = calls, false
				return
			}
			if calls != want {
				t.Errorf("size %d, %s: %d SM3 compressions, want %d", size, what, calls, want)
			}
		}
		for padLen := 0; padLen <= 255 && padLen+1+32 <= payloadLen; padLen++ {
			n := payloadLen - 32 - padLen - 1
			if (n+32+padLen+1)%16 != 0 {
				continue
			}
			pt := testPlaintext(n)
			wantErr := error(nil)
			if n > MaxPlaintext {
				wantErr = ErrRecordOverflow
			}
			check("good", sealCBC(k, 0, 23, pt, padding(padLen), iv), wantErr)

			bad := padding(padLen)
			bad[0] ^= 0x40
			check("bad padding", sealCBC(k, 0, 23, pt, bad, iv), ErrBadRecordMAC)

			wrongMAC := sealCBC(k, 1, 23, pt, padding(padLen), iv) // MAC for seq 1
			check("bad MAC", wrongMAC, ErrBadRecordMAC)
		}
		// Padding claiming more than the record holds, and random garbage.
		check("garbage", bytes.Repeat([]byte{0xff}, size), ErrBadRecordMAC)
		check("zeros", make([]byte, size), ErrBadRecordMAC)
	}
}

func TestCBCPaddingCheck(t *testing.T) {
	// cbcPadding against a plain reading of the rule, for every last byte.
	for _, size := range []int{48, 64, 300} {
		for padLen := 0; padLen < 256; padLen++ {
			for _, corrupt := range []int{-1, 0, padLen / 2, padLen} {
				p := testPlaintext(size)
				for i := 0; i <= padLen && i < size; i++ {
					p[size-1-i] = byte(padLen)
				}
				if corrupt >= 1 && corrupt < size {
					p[size-1-corrupt] ^= 0x10
				}
				wantGood := padLen+1+cbcMACLen <= size
				for i := 0; wantGood && i <= padLen; i++ {
					wantGood = p[size-1-i] == byte(padLen)
				}
				toRemove, good := cbcPadding(p, cbcMACLen)
				switch {
				case wantGood && (good != 1 || toRemove != padLen+1):
					t.Fatalf("size %d padLen %d corrupt %d: got (%d, %d), want good", size, padLen, corrupt, toRemove, good)
				case !wantGood && (good != 0 || toRemove != 1):
					t.Fatalf("size %d padLen %d corrupt %d: got (%d, %d), want bad", size, padLen, corrupt, toRemove, good)
				}
			}
		}
	}
}

func TestExtractMAC(t *testing.T) {
	c := &cbcRecord{}
	for _, size := range []int{48, 64, 100, 288, 289, 500} {
		p := testPlaintext(size)
		lo := max(0, size-cbcMACLen-maxPaddingLen-1)
		for start := lo; start+cbcMACLen <= size; start++ {
			c.extractMAC(p, start)
			if !bytes.Equal(c.peer[:], p[start:start+cbcMACLen]) {
				t.Fatalf("size %d start %d: got %x, want %x", size, start, c.peer, p[start:start+cbcMACLen])
			}
		}
	}
}

// TestCBCBatchConstantWork extends the Lucky13 check to OpenBatch. A
// batch of several records MACs them with sm3's AddSecretLength, whose own
// tests check that its compressions depend on nothing but the arguments
// other than the secret length; here, that OpenBatch passes the same such
// arguments (header and body lengths, where the body lies, the shortest
// length) for records of the same sizes whatever their padding says or
// whether it or the MAC is bad, and MACs every record of a batch even
// when one of them fails.
func TestCBCBatchConstantWork(t *testing.T) {
	defer func() { testHookSecretMAC = nil }()
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	iv := make([]byte, 16)
	// record builds the seq-th record of a batch: a fragment of size bytes
	// with padding padLen, its padding or MAC spoiled if asked.
	record := func(seq, size, padLen int, spoil string) BatchRecord {
		payloadLen := size - 16
		padLen = min(padLen, payloadLen-32-1)
		pt := testPlaintext(payloadLen - 32 - padLen - 1)
		pad := padding(padLen)
		macSeq := uint64(seq)
		switch spoil {
		case "padding":
			pad[0] ^= 0x40
		case "mac":
			macSeq++
		}
		return BatchRecord{Type: 23, Fragment: sealCBC(k, macSeq, 23, pt, pad, iv)}
	}
	sizes := []int{64, 80, 320, 1024, 16400, 16432}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 60 {
		n := 2 + rng.IntN(MaxBatch-1)
		lens := make([]int, n)
		for i := range lens {
			lens[i] = sizes[rng.IntN(len(sizes))]
			lens[i] -= lens[i] % 16
		}
		bad, spoil := -1, ""
		if round%3 != 0 {
			bad = rng.IntN(n)
			spoil = []string{"padding", "mac"}[rng.IntN(2)]
		}
		inPlace := round%2 == 0
		// open runs one batch and returns what its MACs were given.
		open := func(padLen func() int, bad int) string {
			recs := make([]BatchRecord, n)
			for i := range recs {
				sp := ""
				if i == bad {
					sp = spoil
				}
				recs[i] = record(i, lens[i], padLen(), sp)
			}
			var dst []byte
			if !inPlace {
				dst = make([]byte, n*MaxCiphertext)
			}
			var calls []string
			testHookSecretMAC = func(hdr, body []byte, minN int) {
				i := len(calls)
				base := recs[i].Fragment
				if !inPlace {
					base = dst
				}
				off := -1
				for j := range base {
					if len(body) > 0 && &base[j] == &body[0] {
						off = j
					}
				}
				calls = append(calls, fmt.Sprintf("%d %d %d %d", len(hdr), len(body), off, minN))
			}
			c, err := newCBC(k, sm3.New)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.OpenBatch(dst, recs)
			want := n
			if bad >= 0 {
				want = bad
			}
			if got != want || (bad >= 0) != (err != nil) {
				t.Fatalf("round %d: OpenBatch = %d, %v, want %d", round, got, err, want)
			}
			return strings.Join(calls, "\n")
		}
		ref := open(func() int { return 0 }, -1)
		if c := strings.Count(ref, "\n") + 1; c != n {
			t.Fatalf("round %d: %d MACs for %d records", round, c, n)
		}
		got := open(func() int { return rng.IntN(256) }, bad)
		if got != ref {
			t.Errorf("round %d (%d records, bad %d %s): MAC arguments\n%s\nwant\n%s", round, n, bad, spoil, got, ref)
		}
	}
}
