// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// TestCBCOpenConstantWork checks Open's Lucky13 defence: for records of one
// size, whatever their padding length and whether the padding or the MAC is
// bad, Open hands sm3's SumSecretLength (whose own tests check that its
// compressions depend on nothing but these public arguments) the same
// header and body lengths, the same body and the same shortest length, and
// it gets the result right.
func TestCBCOpenConstantWork(t *testing.T) {
	defer func() { testHookSecretMAC = nil }()
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	iv := make([]byte, 16)
	var seen string
	testHookSecretMAC = func(hdr, body []byte, minN int) {
		seen = fmt.Sprintf("hdr %d, body %d, minN %d", len(hdr), len(body), minN)
	}
	for _, size := range []int{64, 80, 128, 320, 1024, 16384 + 256, MaxCiphertext} {
		payloadLen := size - 16
		var want string
		check := func(what string, frag []byte, wantErr error) {
			t.Helper()
			c, err := newCBC(k, sm3.New)
			if err != nil {
				t.Fatal(err)
			}
			seen = ""
			_, _, err = c.Open(23, frag)
			if !errors.Is(err, wantErr) && !(wantErr == nil && err == nil) {
				t.Fatalf("size %d, %s: Open = %v, want %v", size, what, err, wantErr)
			}
			if want == "" {
				want = seen
			}
			if seen != want {
				t.Errorf("size %d, %s: the MAC was given %s, want %s", size, what, seen, want)
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
