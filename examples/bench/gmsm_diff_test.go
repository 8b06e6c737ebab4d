// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

// Differential fuzz targets against gmsm (issue 33, item 2): the same
// inputs through this module's primitives and gmsm's, which share no
// code. The seeds run with go test; go test -fuzz explores from them.

import (
	"bytes"
	"crypto/cipher"
	"testing"

	gmsm2 "github.com/emmansun/gmsm/sm2"
	gmsm3 "github.com/emmansun/gmsm/sm3"
	gmsm4 "github.com/emmansun/gmsm/sm4"
	gmzuc "github.com/emmansun/gmsm/zuc"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/primitives/zuc"
)

func FuzzGmsmSM3(f *testing.F) {
	f.Add([]byte("abc"))
	f.Add(bytes.Repeat([]byte("abcd"), 16))
	f.Add(make([]byte, 1000))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if ours, theirs := sm3.Sum(msg), gmsm3.Sum(msg); ours != theirs {
			t.Fatalf("SM3(%x): ours %x, gmsm %x", msg, ours, theirs)
		}
	})
}

// FuzzGmsmSM4GCM: SM4 blocks and SM4-GCM seal and open through both.
func FuzzGmsmSM4GCM(f *testing.F) {
	f.Add(make([]byte, 16), make([]byte, 12), []byte("plaintext"), []byte("ad"), uint16(0))
	f.Add(bytes.Repeat([]byte{7}, 16), bytes.Repeat([]byte{9}, 12), make([]byte, 300), []byte{}, uint16(5))
	f.Fuzz(func(t *testing.T, key, nonce, pt, ad []byte, flip uint16) {
		if len(key) != 16 || len(nonce) != 12 {
			return
		}
		ob, err := sm4.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := gmsm4.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		var b1, b2 [16]byte
		copy(b1[:], pt)
		ob.Encrypt(b2[:], b1[:])
		tb.Encrypt(b1[:], b1[:])
		if b1 != b2 {
			t.Fatalf("SM4 block differs")
		}
		og, _ := sm4.NewGCMWithKey(key)
		tg, _ := cipher.NewGCM(tb)
		ct := og.Seal(nil, nonce, pt, ad)
		if want := tg.Seal(nil, nonce, pt, ad); !bytes.Equal(ct, want) {
			t.Fatalf("SM4-GCM seal: ours %x, gmsm %x", ct, want)
		}
		ct[int(flip)%len(ct)] ^= byte(flip>>8) | 1
		_, oerr := og.Open(nil, nonce, ct, ad)
		_, terr := tg.Open(nil, nonce, ct, ad)
		if oerr == nil || terr == nil {
			t.Fatalf("a corrupted SM4-GCM ciphertext opened: ours %v, gmsm %v", oerr, terr)
		}
	})
}

func FuzzGmsmZUC(f *testing.F) {
	f.Add(make([]byte, 16), make([]byte, 16), []byte("message"))
	f.Add(bytes.Repeat([]byte{0xff}, 16), bytes.Repeat([]byte{0xff}, 16), make([]byte, 500))
	f.Fuzz(func(t *testing.T, key, iv, msg []byte) {
		if len(key) != 16 || len(iv) != 16 {
			return
		}
		ours, err := zuc.NewCipher(key, iv)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := gmzuc.NewCipher(key, iv)
		if err != nil {
			t.Fatal(err)
		}
		a, b := make([]byte, len(msg)), make([]byte, len(msg))
		ours.XORKeyStream(a, msg)
		ts.XORKeyStream(b, msg)
		if !bytes.Equal(a, b) {
			t.Fatalf("ZUC-128 keystream differs for key %x iv %x", key, iv)
		}
	})
}

// FuzzGmsmSM2Verify: for one key, both verifiers agree on every (message,
// signature), starting from genuine signatures of each side.
func FuzzGmsmSM2Verify(f *testing.F) {
	d := bytes.Repeat([]byte{0x5a}, 32)
	ours, err := sm2.NewPrivateKey(d)
	if err != nil {
		f.Fatal(err)
	}
	theirs, err := gmsm2.NewPrivateKey(d)
	if err != nil {
		f.Fatal(err)
	}
	pub := &theirs.PublicKey
	for _, msg := range [][]byte{[]byte("abc"), {}, make([]byte, 100)} {
		s1, _ := sm2.SignASN1(nil, ours, msg, nil)
		f.Add(msg, s1)
		s2, _ := theirs.Sign(nil, msg, gmsm2.DefaultSM2SignerOpts)
		f.Add(msg, s2)
	}
	f.Fuzz(func(t *testing.T, msg, sig []byte) {
		a := sm2.VerifyASN1(ours.PublicKey(), msg, nil, sig)
		b := gmsm2.VerifyASN1WithSM2(pub, nil, msg, sig)
		if a != b {
			t.Fatalf("verify(%x, %x): ours %v, gmsm %v", msg, sig, a, b)
		}
	})
}
