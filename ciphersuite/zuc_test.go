// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"testing"
)

func TestZUCRecordKAT(t *testing.T) {
	// ZUC.md, "Known-answer values".
	k := Keys{
		MAC: unhex(t, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
		Key: unhex(t, "00112233445566778899aabbccddeeff"),
		IV:  unhex(t, "0f1e2d3c4b5a69788796a5b4c3d2e1f0"),
	}
	for _, tc := range []struct {
		seq       uint64
		typ       uint8
		plaintext string
		zucIV     string
		fragment  string
	}{
		{0, 22, "1400000c0102030405060708090a0b0c", "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
			"358181c40d57f205dc9303804c84de73 8a1405df1d19e04a38a1acd7199175ff3f027ac23cbdecbb543d45d3caa36778"},
		{1, 23, "48656c6c6f2c205a5543207265636f7264206c61796572210a", "0f1e2d3c4b5a69788796a5b4c3d2e1f1",
			"afd6d2c749dc8daf09d266a0d35b17f1a13fd7a20361c66786 7d3ba43faff99e993383d03a0367001b3acd4be63a09a891816c81b09526541d"},
		{0x0102030405060708, 23, "", "0f1e2d3c4b5a69788694a6b0c6d4e6f8",
			"ef0d449a5e516f3a93081120aa9320fec97ed91b1aeb6f99a622e3d0727b650c"},
	} {
		for _, id := range []ID{ECC_ZUC128_SM3, ECDHE_ZUC128_SM3} {
			wr, err := Lookup(id).NewRecordProtection(k)
			if err != nil {
				t.Fatal(err)
			}
			rd, _ := Lookup(id).NewRecordProtection(k)
			setSeq(t, wr, tc.seq)
			setSeq(t, rd, tc.seq)
			pt := unhex(t, tc.plaintext)
			frag, err := wr.Seal(nil, tc.typ, pt, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := wr.(*zucRecord).zucIV[:]; !bytes.Equal(got, unhex(t, tc.zucIV)) {
				t.Errorf("seq %#x: zuc_iv = %x, want %s", tc.seq, got, tc.zucIV)
			}
			if want := unhex(t, tc.fragment); !bytes.Equal(frag, want) {
				t.Errorf("seq %#x: fragment = %x\n             want %x", tc.seq, frag, want)
			}
			_, got, err := rd.Open(tc.typ, frag)
			if err != nil || !bytes.Equal(got, pt) {
				t.Errorf("seq %#x: Open = %x, %v", tc.seq, got, err)
			}
		}
	}
}

func TestZUCMACBeforeDecrypt(t *testing.T) {
	// A record with a bad MAC is left as it was: nothing was decrypted.
	wr, rd := pair(t, ECC_ZUC128_SM3)
	frag, _ := wr.Seal(nil, 23, []byte("secret"), nil)
	frag[len(frag)-1] ^= 1
	orig := append([]byte{}, frag...)
	if _, _, err := rd.Open(23, frag); err == nil {
		t.Fatal("bad MAC accepted")
	}
	if !bytes.Equal(frag, orig) {
		t.Error("Open changed a record whose MAC failed")
	}
}
