// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzOpen feeds arbitrary fragments to every suite's Open: it must never panic,
// must fail with one of the record errors, and a fragment that does open must be
// one that Seal produced.
func FuzzOpen(f *testing.F) {
	k := Keys{
		MAC: bytes.Repeat([]byte{1}, 32),
		Key: bytes.Repeat([]byte{2}, 16),
		IV:  bytes.Repeat([]byte{3}, 16),
	}
	keysFor := func(s *Suite) Keys {
		return Keys{MAC: k.MAC[:s.MACLen], Key: k.Key[:s.KeyLen], IV: k.IV[:s.IVLen]}
	}
	for i, id := range supportedIDs {
		s := Lookup(id)
		wr, _ := s.NewRecordProtection(keysFor(s))
		for _, n := range []int{0, 1, 16, 100} {
			frag, _ := wr.Seal(nil, 23, testPlaintext(n), &countReader{})
			f.Add(uint8(i), uint8(23), frag)
			wr, _ = s.NewRecordProtection(keysFor(s)) // keep seq 0
		}
	}
	f.Add(uint8(0), uint8(23), make([]byte, 64))
	f.Add(uint8(0), uint8(23), bytes.Repeat([]byte{0xff}, 4096))

	f.Fuzz(func(t *testing.T, which, typ uint8, fragment []byte) {
		id := supportedIDs[int(which)%len(supportedIDs)]
		s := Lookup(id)
		rd, err := s.NewRecordProtection(keysFor(s))
		if err != nil {
			t.Fatal(err)
		}
		pt, err := rd.Open(typ, fragment)
		if err != nil {
			if !errors.Is(err, ErrBadRecordMAC) && !errors.Is(err, ErrRecordOverflow) {
				t.Fatalf("%s: unexpected error %v", s.Name, err)
			}
			return
		}
		if len(pt) > MaxPlaintext {
			t.Fatalf("%s: %d-byte plaintext accepted", s.Name, len(pt))
		}
	})
}
