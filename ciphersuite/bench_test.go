// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/cipher"
	"crypto/hmac"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/primitives/zuc"
)

// Each suite's Seal and Open of a 16 KiB record sit beside the bare primitives
// doing the same work (Raw), so the record layer's own overhead reads off
// directly. Seal works in place, as tlcp uses it.

const benchSize = 16 << 10

func BenchmarkRecord(b *testing.B) {
	key, macKey, iv := make([]byte, 16), make([]byte, 32), make([]byte, 16)
	hdr := make([]byte, 13)

	for _, bs := range []struct {
		name string
		id   ID
	}{
		{name: "SM4-CBC-SM3", id: ECC_SM4_CBC_SM3},
		{name: "SM4-GCM", id: ECC_SM4_GCM_SM3},
		{name: "ZUC128-SM3", id: ECC_ZUC128_SM3},
	} {
		b.Run(bs.name+"/Seal", func(b *testing.B) {
			wr, _ := pair(b, bs.id)
			buf := make([]byte, benchSize, benchSize+wr.Overhead())
			rnd := &countReader{}
			run(b, func() {
				if _, err := wr.Seal(buf[:0], 23, buf[:benchSize], rnd); err != nil {
					b.Fatal(err)
				}
				setSeq(b, wr, 0)
			})
		})
		b.Run(bs.name+"/Open", func(b *testing.B) {
			wr, rd := pair(b, bs.id)
			frag, _ := wr.Seal(nil, 23, testPlaintext(benchSize), nil)
			buf := make([]byte, len(frag))
			run(b, func() {
				copy(buf, frag) // Open works in place
				if _, _, err := rd.Open(23, buf); err != nil {
					b.Fatal(err)
				}
				setSeq(b, rd, 0)
			})
		})
	}

	// CBC: HMAC over header and data, CBC over data + MAC + a block of padding.
	cbcLen := benchSize + 32 + 16
	b.Run("SM4-CBC-SM3/RawSeal", func(b *testing.B) {
		blk, _ := sm4.NewCipher(key)
		h := hmac.New(sm3.New, macKey)
		buf := make([]byte, cbcLen)
		enc := cipher.NewCBCEncrypter(blk, iv)
		run(b, func() {
			h.Reset()
			h.Write(hdr)
			h.Write(buf[:benchSize])
			h.Sum(buf[benchSize:benchSize])
			enc.CryptBlocks(buf, buf)
		})
	})
	b.Run("SM4-CBC-SM3/RawOpen", func(b *testing.B) {
		blk, _ := sm4.NewCipher(key)
		h := hmac.New(sm3.New, macKey)
		frag := make([]byte, cbcLen)
		buf := make([]byte, cbcLen)
		dec := cipher.NewCBCDecrypter(blk, iv)
		var sum [32]byte
		run(b, func() {
			copy(buf, frag)
			dec.CryptBlocks(buf, buf)
			h.Reset()
			h.Write(hdr)
			h.Write(buf[:benchSize])
			h.Sum(sum[:0])
		})
	})

	b.Run("SM4-GCM/RawSeal", func(b *testing.B) {
		blk, _ := sm4.NewCipher(key)
		aead, _ := cipher.NewGCM(blk)
		buf := make([]byte, benchSize, benchSize+16)
		nonce := make([]byte, 12)
		run(b, func() { aead.Seal(buf[:0], nonce, buf, hdr) })
	})
	b.Run("SM4-GCM/RawOpen", func(b *testing.B) {
		blk, _ := sm4.NewCipher(key)
		aead, _ := cipher.NewGCM(blk)
		nonce := make([]byte, 12)
		sealed := aead.Seal(nil, nonce, make([]byte, benchSize), hdr)
		buf := make([]byte, len(sealed))
		run(b, func() {
			copy(buf, sealed)
			if _, err := aead.Open(buf[:0], nonce, buf, hdr); err != nil {
				b.Fatal(err)
			}
		})
	})

	// ZUC: a fresh keystream, then HMAC over the ciphertext (the same work both
	// ways).
	b.Run("ZUC128-SM3/Raw", func(b *testing.B) {
		s, _ := zuc.NewCipher(key, iv)
		z := s.(*zuc.Cipher)
		h := hmac.New(sm3.New, macKey)
		buf := make([]byte, benchSize+32)
		run(b, func() {
			z.Reset(iv)
			z.XORKeyStream(buf[:benchSize], buf[:benchSize])
			h.Reset()
			h.Write(hdr)
			h.Write(buf[:benchSize])
			h.Sum(buf[benchSize:benchSize])
		})
	})
}

// run times f over 16 KiB operations, reporting allocations and CPU time.
func run(b *testing.B, f func()) {
	b.SetBytes(benchSize)
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		f()
	}
	cpu.report(b)
}

// BenchmarkRecordBatch seals and opens MaxBatch 16 KiB records per
// operation with SealBatch and OpenBatch; compare its per-byte rate with
// BenchmarkRecord's one-record Seal and Open.
func BenchmarkRecordBatch(b *testing.B) {
	for _, bs := range []struct {
		name string
		id   ID
	}{
		{name: "SM4-CBC-SM3", id: ECC_SM4_CBC_SM3},
		{name: "SM4-GCM", id: ECC_SM4_GCM_SM3},
		{name: "ZUC128-SM3", id: ECC_ZUC128_SM3},
	} {
		b.Run(bs.name+"/Seal", func(b *testing.B) {
			wr, _ := batchPair(b, bs.id)
			recs := make([]BatchRecord, MaxBatch)
			pt := testPlaintext(benchSize)
			frags := make([][]byte, MaxBatch)
			for i := range frags {
				frags[i] = make([]byte, 0, wr.SealedLen(benchSize))
			}
			rnd := &countReader{}
			runBatch(b, func() {
				for i := range recs {
					recs[i] = BatchRecord{Type: 23, Data: pt, Fragment: frags[i]}
				}
				if _, err := wr.SealBatch(recs, rnd); err != nil {
					b.Fatal(err)
				}
				setSeq(b, wr, 0)
			})
		})
		b.Run(bs.name+"/Open", func(b *testing.B) {
			wr, rd := batchPair(b, bs.id)
			sealed, _ := sealRecords(b, wr, []int{benchSize, benchSize, benchSize, benchSize, benchSize, benchSize, benchSize, benchSize,
				benchSize, benchSize, benchSize, benchSize, benchSize, benchSize, benchSize, benchSize})
			recs := cloneRecords(sealed)
			runBatch(b, func() {
				for i := range recs {
					copy(recs[i].Fragment, sealed[i].Fragment)
				}
				if _, err := rd.OpenBatch(nil, recs); err != nil {
					b.Fatal(err)
				}
				setSeq(b, rd, 0)
			})
		})
	}
}

func runBatch(b *testing.B, f func()) {
	b.SetBytes(benchSize * MaxBatch)
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		f()
	}
	cpu.report(b)
}
