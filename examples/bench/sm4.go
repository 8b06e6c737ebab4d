// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/aes"
	"crypto/cipher"
	"testing"

	gmcipher "github.com/emmansun/gmsm/cipher"
	gmsm4 "github.com/emmansun/gmsm/sm4"
)

// The sm4 group is two tables. The first sets our SM4 beside gmsm's and
// beside AES-128 in the standard library, in the same mode, at the sizes a
// protocol sees (one block, a short record, a 16 KiB record, a 1 MiB bulk
// buffer). The second sets our SM4 beside AES-128 alone, for the rows with
// sizes, and prints ours/AES: AES-128 on this CPU is the hardware reference
// (AES-NI runs a whole round in one instruction; SM4 has no such
// instruction on amd64 and is computed from GFNI or AES-NI pieces).

// sm4Sizes are the message sizes of the size rows.
var sm4Sizes = []struct {
	label string
	n     int
}{{"64 B", 64}, {"1 KiB", kib}, {"16 KiB", 16 * kib}, {"1 MiB", 1 << 20}}

func init() {
	std := blockCtor(aes.NewCipher)
	gm := blockCtor(gmsm4.NewCipher)
	ours := oursSM4Block() // nil until primitives/sm4 lands

	type mode struct {
		name string
		mk   func(c blockCtor, n int) setupFunc
	}
	modes := []mode{
		{"CBC encrypt", func(c blockCtor, n int) setupFunc { return cbcBench(c, 16, n, false) }},
		{"CBC decrypt", func(c blockCtor, n int) setupFunc { return cbcBench(c, 16, n, true) }},
		{"CTR", func(c blockCtor, n int) setupFunc { return ctrBench(c, 16, n) }},
		{"GCM seal", func(c blockCtor, n int) setupFunc { return gcmBench(c, 16, n, false) }},
		{"GCM open", func(c blockCtor, n int) setupFunc { return gcmBench(c, 16, n, true) }},
	}

	main := &group{
		name:  "sm4",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note: "stdlib: AES-128 in the same mode (crypto/aes + crypto/cipher; the standard library has no XTS); GCM with 13 bytes of additional data.\n" +
			"Encrypt 1 block: Block.Encrypt of one 16-byte block (the latency of a block). XTS: one 16 KiB data unit per op with its sector number (gmsm: a BlockMode made once, whose tweak runs on).\n" +
			"CBC encrypt 16 x 16 KiB: sixteen independent messages with their own IVs; ours with sm4.CBCEncryptMulti, gmsm and stdlib one CBC encrypter per message, one message after another.\n" +
			"ECB: gmsm's ECB encrypter only; ours is internal to primitives/sm4 and measured by its BenchmarkEncryptBlocks (go test -bench EncryptBlocks ./primitives/sm4), the standard library has none.",
	}
	main.rows = append(main.rows, &row{name: "Encrypt 1 block", unit: mbPerSec, bytes: 16,
		impls: []setupFunc{maybe(ours, blockEncryptBench), blockEncryptBench(gm), blockEncryptBench(std)}})
	for _, m := range modes {
		for _, sz := range sm4Sizes {
			main.rows = append(main.rows, &row{name: m.name + " " + sz.label, unit: mbPerSec, bytes: int64(sz.n),
				impls: []setupFunc{maybe(ours, func(c blockCtor) setupFunc { return m.mk(c, sz.n) }), m.mk(gm, sz.n), m.mk(std, sz.n)}})
		}
	}
	const xtsLen = 16 * kib
	main.rows = append(main.rows,
		&row{name: "XTS encrypt 16 KiB", unit: mbPerSec, bytes: xtsLen,
			impls: []setupFunc{oursXTSBench(xtsLen), gmsmXTSBench(xtsLen), nil}},
		&row{name: "ECB encrypt 16 KiB", unit: mbPerSec, bytes: 16 * kib,
			impls: []setupFunc{nil, gmsmECBBench(16 * kib), nil}},
		&row{name: "CBC encrypt 16 x 16 KiB", unit: mbPerSec, bytes: 16 * 16 * kib,
			impls: []setupFunc{oursCBCMultiBench(16, 16*kib), cbcSerialBench(gm, 16, 16*kib), cbcSerialBench(std, 16, 16*kib)}},
	)
	register(main)

	vsAES := &group{
		name:  "sm4",
		cols:  []string{"ours", "AES-128"},
		ratio: "ours/AES",
		note:  "The size rows again, ours beside AES-128 in the standard library (the hardware reference on this CPU), measured separately from the table above.",
	}
	for _, m := range modes {
		for _, sz := range sm4Sizes {
			vsAES.rows = append(vsAES.rows, &row{name: m.name + " " + sz.label, unit: mbPerSec, bytes: int64(sz.n),
				impls: []setupFunc{maybe(ours, func(c blockCtor) setupFunc { return m.mk(c, sz.n) }), m.mk(std, sz.n)}})
		}
	}
	register(vsAES)
}

// maybe applies mk to a constructor that may not exist yet.
func maybe(c blockCtor, mk func(blockCtor) setupFunc) setupFunc {
	if c == nil {
		return nil
	}
	return mk(c)
}

// blockEncryptBench encrypts one block in place per op.
func blockEncryptBench(newBlock blockCtor) setupFunc {
	return func() (benchFunc, error) {
		blk, err := newBlock(randBytes(16))
		if err != nil {
			return nil, err
		}
		buf := randBytes(blk.BlockSize())
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				blk.Encrypt(buf, buf)
			}
		}, nil
	}
}

// cbcSerialBench CBC-encrypts lanes messages of size bytes one after
// another per op, each through its own BlockMode made once.
func cbcSerialBench(newBlock blockCtor, lanes, size int) setupFunc {
	return func() (benchFunc, error) {
		blk, err := newBlock(randBytes(16))
		if err != nil {
			return nil, err
		}
		var bms []cipher.BlockMode
		var bufs [][]byte
		for range lanes {
			bms = append(bms, cipher.NewCBCEncrypter(blk, randBytes(16)))
			bufs = append(bufs, randBytes(size))
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for j, bm := range bms {
					bm.CryptBlocks(bufs[j], bufs[j])
				}
			}
		}, nil
	}
}

// gmsmXTSBench encrypts a data unit of size bytes per op with one gmsm XTS
// encrypter; its tweak carries on from op to op.
func gmsmXTSBench(size int) setupFunc {
	return func() (benchFunc, error) {
		bm, err := gmcipher.NewXTSEncrypterWithSector(gmsm4.NewCipher, randBytes(16), randBytes(16), 1)
		if err != nil {
			return nil, err
		}
		buf := randBytes(size)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				bm.CryptBlocks(buf, buf)
			}
		}, nil
	}
}

// gmsmECBBench encrypts size bytes in place per op with gmsm's ECB mode.
func gmsmECBBench(size int) setupFunc {
	return func() (benchFunc, error) {
		blk, err := gmsm4.NewCipher(randBytes(16))
		if err != nil {
			return nil, err
		}
		bm := gmcipher.NewECBEncrypter(blk)
		buf := randBytes(size)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				bm.CryptBlocks(buf, buf)
			}
		}, nil
	}
}
