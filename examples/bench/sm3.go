// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/sha256"

	gmsm3 "github.com/emmansun/gmsm/sm3"
)

func init() {
	register(&group{
		name:  "sm3",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note:  "stdlib: SHA-256; KDF stdlib = X9.63 KDF over SHA-256 written here (the standard library has none exported)",
		rows: []*row{
			{name: "SM3 64 B", unit: mbPerSec, bytes: 64,
				impls: []setupFunc{oursSM3Hash(64), hashBench(gmsm3.New, 64), hashBench(sha256.New, 64)}},
			{name: "SM3 1 KiB", unit: mbPerSec, bytes: 1 * kib,
				impls: []setupFunc{oursSM3Hash(1 * kib), hashBench(gmsm3.New, 1*kib), hashBench(sha256.New, 1*kib)}},
			{name: "SM3 8 KiB", unit: mbPerSec, bytes: 8 * kib,
				impls: []setupFunc{oursSM3Hash(8 * kib), hashBench(gmsm3.New, 8*kib), hashBench(sha256.New, 8*kib)}},
			{name: "KDF 1 KiB out", unit: mbPerSec, bytes: 1 * kib,
				impls: []setupFunc{oursSM3KDF(1 * kib), kdfBench(gmsm3.Kdf, 1*kib), kdfBench(x963KDF(sha256.New), 1*kib)}},
		},
	})
}
