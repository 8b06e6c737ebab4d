// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/aes"

	gmsm4 "github.com/emmansun/gmsm/sm4"
)

func init() {
	const n = 16 * kib
	std := blockCtor(aes.NewCipher)
	gm := blockCtor(gmsm4.NewCipher)
	ours := oursSM4Block() // nil until primitives/sm4 lands
	register(&group{
		name:  "sm4",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note:  "stdlib: AES-128 in the same mode (crypto/aes + crypto/cipher); GCM with 13 bytes of additional data",
		rows: []*row{
			{name: "CBC encrypt 16 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{maybe(ours, func(c blockCtor) setupFunc { return cbcBench(c, 16, n, false) }), cbcBench(gm, 16, n, false), cbcBench(std, 16, n, false)}},
			{name: "CBC decrypt 16 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{maybe(ours, func(c blockCtor) setupFunc { return cbcBench(c, 16, n, true) }), cbcBench(gm, 16, n, true), cbcBench(std, 16, n, true)}},
			{name: "CTR 16 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{maybe(ours, func(c blockCtor) setupFunc { return ctrBench(c, 16, n) }), ctrBench(gm, 16, n), ctrBench(std, 16, n)}},
			{name: "GCM seal 16 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{maybe(ours, func(c blockCtor) setupFunc { return gcmBench(c, 16, n, false) }), gcmBench(gm, 16, n, false), gcmBench(std, 16, n, false)}},
			{name: "GCM open 16 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{maybe(ours, func(c blockCtor) setupFunc { return gcmBench(c, 16, n, true) }), gcmBench(gm, 16, n, true), gcmBench(std, 16, n, true)}},
		},
	})
}

// maybe applies mk to a constructor that may not exist yet.
func maybe(c blockCtor, mk func(blockCtor) setupFunc) setupFunc {
	if c == nil {
		return nil
	}
	return mk(c)
}
