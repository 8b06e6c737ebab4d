// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/dudect"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// TestConstantTimeCBCOpen measures the CBC record open on 1 KiB records
// whose plaintext length is secret until the MAC is checked (Lucky13):
// the shortest padding against the longest, and good padding against bad
// (which must fail in the same time as a good record succeeds).
func TestConstantTimeCBCOpen(t *testing.T) {
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	iv := bytes.Repeat([]byte{7}, 16)
	const payloadLen = 1024 - 16
	record := func(padLen int, spoil bool) []byte {
		n := payloadLen - cbcMACLen - padLen - 1
		pad := padding(padLen)
		if spoil {
			pad[0] ^= 0x40
		}
		return sealCBC(k, 0, 23, testPlaintext(n), pad, iv)
	}
	// Paddings whose records are exactly payloadLen long: (n+33+pad) % 16 == 0
	// holds for pad ≡ 15 (mod 16) here.
	short, long := record(15, false), record(255, false)
	bad := record(15, true)
	type in struct {
		c    *cbcRecord
		frag []byte
	}
	make := func(a, b []byte) func(int, *rand.Rand) in {
		return func(class int, _ *rand.Rand) in {
			c, err := newCBC(k, sm3.New)
			if err != nil {
				panic(err)
			}
			src := a
			if class == 1 {
				src = b
			}
			return in{c, bytes.Clone(src)}
		}
	}
	var sink int
	open := func(x *in) {
		_, pt, _ := x.c.Open(23, x.frag)
		sink += len(pt)
	}
	t.Run("short vs long padding", func(t *testing.T) { dudect.Test(t, false, make(short, long), open) })
	t.Run("good vs bad padding", func(t *testing.T) { dudect.Test(t, false, make(short, bad), open) })
	_ = sink
}

// TestConstantTimeGCMOpen: whether a record's tag is good is public (the
// record is refused), but where a bad tag differs must not show: a tag
// wrong in its first byte is refused in the time one wrong in its last
// byte is (the comparison does not stop early).
func TestConstantTimeGCMOpen(t *testing.T) {
	s := Lookup(ECC_SM4_GCM_SM3)
	k := randomKeys(t, s)
	sealer, err := s.NewRecordProtection(k)
	if err != nil {
		t.Fatal(err)
	}
	good, err := sealer.Seal(nil, 23, testPlaintext(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	firstByte, lastByte := bytes.Clone(good), bytes.Clone(good)
	firstByte[len(good)-16] ^= 1
	lastByte[len(good)-1] ^= 1
	type in struct {
		p    RecordProtection
		frag []byte
	}
	var sink int
	dudect.Test(t, false, func(class int, _ *rand.Rand) in {
		p, err := s.NewRecordProtection(k)
		if err != nil {
			panic(err)
		}
		src := firstByte
		if class == 1 {
			src = lastByte
		}
		return in{p, bytes.Clone(src)}
	}, func(x *in) {
		_, pt, _ := x.p.Open(23, x.frag)
		sink += len(pt)
	})
	_ = sink
}
