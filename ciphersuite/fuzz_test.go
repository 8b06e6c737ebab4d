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
		orig := bytes.Clone(fragment) // Open decrypts in place
		_, pt, err := rd.Open(typ, fragment)
		if err != nil {
			if !errors.Is(err, ErrBadRecordMAC) && !errors.Is(err, ErrRecordOverflow) {
				t.Fatalf("%s: unexpected error %v", s.Name, err)
			}
			return
		}
		if len(pt) > MaxPlaintext {
			t.Fatalf("%s: %d-byte plaintext accepted", s.Name, len(pt))
		}
		// What opens was sealed: a sealer with the same keys, given the
		// record's own IV or explicit nonce as its randomness, writes the
		// same fragment again. A fragment that opens without being a
		// Seal output is a forgery, or an Open that checks too little.
		wr, _ := s.NewRecordProtection(keysFor(s))
		again, err := wr.Seal(nil, typ, bytes.Clone(pt), bytes.NewReader(orig))
		if err != nil || !bytes.Equal(again, orig) {
			t.Fatalf("%s: opened %x, which Seal does not produce (it gives %x, %v)", s.Name, orig, again, err)
		}
	})
}

// FuzzOpenBatch cuts the input into fragments, some of them genuine
// records, and checks that OpenBatch, in place and into a buffer, agrees
// with a loop of Open calls on a second receiver: as many records opened,
// the same plaintexts, and the same error for the record that stops it.
func FuzzOpenBatch(f *testing.F) {
	f.Add(uint8(0), []byte{3, 200, 7}, []byte("some bytes"), uint16(0))
	f.Add(uint8(4), []byte{1, 1, 1, 1}, bytes.Repeat([]byte{9}, 300), uint16(2))
	f.Fuzz(func(t *testing.T, which uint8, genuine []byte, junk []byte, corrupt uint16) {
		id := supportedIDs[int(which)%len(supportedIDs)]
		s := Lookup(id)
		k := Keys{MAC: bytes.Repeat([]byte{1}, s.MACLen), Key: bytes.Repeat([]byte{2}, s.KeyLen), IV: bytes.Repeat([]byte{3}, s.IVLen)}
		wr, _ := s.NewRecordProtection(k)
		var recs []BatchRecord
		for i, n := range genuine {
			if len(recs) == 2*MaxBatch+1 {
				break
			}
			frag, _ := wr.Seal(nil, 23, testPlaintext(int(n)*61), &countReader{next: byte(i)})
			recs = append(recs, BatchRecord{Type: 23, Fragment: frag})
		}
		if len(junk) > 0 {
			// A fragment of junk somewhere, or a genuine one corrupted.
			at := int(corrupt) % (len(recs) + 1)
			if len(recs) > 0 && corrupt&0x8000 != 0 {
				f := recs[at%len(recs)].Fragment
				f[int(corrupt)%len(f)] ^= junk[0] | 1
			} else {
				recs = append(recs[:at], append([]BatchRecord{{Type: 23, Fragment: junk}}, recs[at:]...)...)
			}
		}
		// The reference: Open one by one until the first error.
		ref, _ := s.NewRecordProtection(k)
		var want [][]byte
		var wantErr error
		for _, r := range recs {
			_, pt, err := ref.Open(r.Type, bytes.Clone(r.Fragment))
			if err != nil {
				wantErr = err
				break
			}
			want = append(want, bytes.Clone(pt))
		}
		for _, into := range []bool{false, true} {
			rd, _ := s.NewRecordProtection(k)
			batch := make([]BatchRecord, len(recs))
			total := 0
			for i, r := range recs {
				batch[i] = BatchRecord{Type: r.Type, Fragment: bytes.Clone(r.Fragment)}
				total += len(r.Fragment)
			}
			var dst []byte
			if into {
				dst = make([]byte, total)
			}
			n, err := rd.(BatchProtection).OpenBatch(dst, batch)
			if n != len(want) || !errors.Is(err, wantErr) && !(err == nil && wantErr == nil) {
				t.Fatalf("%s into=%v: OpenBatch = %d, %v; Open loop: %d, %v", s.Name, into, n, err, len(want), wantErr)
			}
			for i := range n {
				if !bytes.Equal(batch[i].Data, want[i]) {
					t.Fatalf("%s into=%v: record %d differs", s.Name, into, i)
				}
			}
		}
	})
}
