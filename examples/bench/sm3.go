// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"testing"

	gmsm3 "github.com/emmansun/gmsm/sm3"
)

// The multi-buffer rows: 16 messages per op, aggregate MB/s. gmsm and the
// standard library have no multi-buffer API, so their columns hash the same
// messages one after another: the ratio is ours over gmsm's one-message rate.
const (
	multiCount   = 16
	multiLen     = 1 * kib
	recordsLen   = 16 * kib
	recordHeader = 13 // seq || type || version || length
)

func init() {
	register(&group{
		name:  "sm3",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note: "stdlib: SHA-256; KDF stdlib = X9.63 KDF over SHA-256 written here (the standard library has none exported)\n" +
			"KDF: 64-byte z; ours KDFInto into a reused buffer (what sm2 calls), gmsm Kdf and the stdlib analogue allocate their output\n" +
			"16 × 1 KiB: 16 messages per op (ours: SumMulti, the others one by one); HMAC 16 records: 13-byte header + 16 KiB body each, " +
			"16 keys prepared once (ours: HMACBatch, gmsm and stdlib: crypto/hmac one record after another with Reset)",
		rows: []*row{
			{name: "SM3 64 B", unit: mbPerSec, bytes: 64,
				impls: []setupFunc{oursSM3Hash(64), hashBench(gmsm3.New, 64), hashBench(sha256.New, 64)}},
			{name: "SM3 1 KiB", unit: mbPerSec, bytes: 1 * kib,
				impls: []setupFunc{oursSM3Hash(1 * kib), hashBench(gmsm3.New, 1*kib), hashBench(sha256.New, 1*kib)}},
			{name: "SM3 8 KiB", unit: mbPerSec, bytes: 8 * kib,
				impls: []setupFunc{oursSM3Hash(8 * kib), hashBench(gmsm3.New, 8*kib), hashBench(sha256.New, 8*kib)}},
			{name: "KDF 32 B out", unit: mbPerSec, bytes: 32,
				impls: []setupFunc{oursSM3KDF(32), kdfBench(gmsm3.Kdf, 32), kdfBench(x963KDF(sha256.New), 32)}},
			{name: "KDF 1 KiB out", unit: mbPerSec, bytes: 1 * kib,
				impls: []setupFunc{oursSM3KDF(1 * kib), kdfBench(gmsm3.Kdf, 1*kib), kdfBench(x963KDF(sha256.New), 1*kib)}},
			{name: "16 × 1 KiB multi-buffer (aggregate)", unit: mbPerSec, bytes: multiCount * multiLen,
				impls: []setupFunc{oursSM3Multi(), hashEachBench(gmsm3.New), hashEachBench(sha256.New)}},
			{name: "HMAC 16 records × 16 KiB (aggregate)", unit: mbPerSec, bytes: multiCount * (recordHeader + recordsLen),
				impls: []setupFunc{oursHMACRecords(), hmacEachBench(gmsm3.New), hmacEachBench(sha256.New)}},
		},
	})
}

// multiMessages returns the 16 messages of the multi-buffer row.
func multiMessages() [][]byte {
	msgs := make([][]byte, multiCount)
	for i := range msgs {
		msgs[i] = randBytes(multiLen)
	}
	return msgs
}

// hashEachBench hashes the 16 messages one after another with one reused
// hash.Hash.
func hashEachBench(newHash func() hash.Hash) setupFunc {
	return func() (benchFunc, error) {
		h := newHash()
		msgs := multiMessages()
		sum := make([]byte, 0, h.Size())
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, m := range msgs {
					h.Reset()
					h.Write(m)
					sum = h.Sum(sum[:0])
				}
			}
		}, nil
	}
}

// records returns 16 records (header and body) and 16 MAC keys.
func records() (headers, bodies, keys [][]byte) {
	for range multiCount {
		headers = append(headers, randBytes(recordHeader))
		bodies = append(bodies, randBytes(recordsLen))
		keys = append(keys, randBytes(32))
	}
	return headers, bodies, keys
}

// hmacEachBench MACs the 16 records one after another, each under its own
// key, with crypto/hmac instances made (and keyed) once.
func hmacEachBench(newHash func() hash.Hash) setupFunc {
	return func() (benchFunc, error) {
		headers, bodies, keys := records()
		macs := make([]hash.Hash, multiCount)
		for i := range macs {
			macs[i] = hmac.New(newHash, keys[i])
			macs[i].Reset() // crypto/hmac snapshots the keyed state here
		}
		sum := make([]byte, 0, 64)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for r, m := range macs {
					m.Reset()
					m.Write(headers[r])
					m.Write(bodies[r])
					sum = m.Sum(sum[:0])
				}
			}
		}, nil
	}
}
