// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

func oursSM3Hash(size int) setupFunc { return hashBench(sm3.New, size) }

// oursSM3KDF derives into a reused buffer with KDFInto, the zero-allocation
// form that sm2 uses; the other columns' KDFs allocate their output.
func oursSM3KDF(outLen int) setupFunc {
	return func() (benchFunc, error) {
		z := randBytes(64)
		out := make([]byte, outLen)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sm3.KDFInto(out, z)
			}
		}, nil
	}
}

func oursSM3Multi() setupFunc {
	return func() (benchFunc, error) {
		msgs := multiMessages()
		dst := make([][sm3.Size]byte, len(msgs))
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sm3.SumMulti(dst, msgs)
			}
		}, nil
	}
}

func oursHMACRecords() setupFunc {
	return func() (benchFunc, error) {
		headers, bodies, keys := records()
		hk := make([]*sm3.HMACKey, len(keys))
		for i, k := range keys {
			hk[i] = sm3.NewHMACKey(k)
		}
		batch := new(sm3.HMACBatch)
		macs := make([][sm3.Size]byte, multiCount)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for r := range multiCount {
					batch.Add(hk[r], headers[r], bodies[r])
				}
				batch.Sum(macs)
			}
		}, nil
	}
}
