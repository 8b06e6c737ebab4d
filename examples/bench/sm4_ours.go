// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm4"
)

func oursSM4Block() blockCtor { return sm4.NewCipher }

// oursXTSBench encrypts a data unit of size bytes per op with its sector
// number (IEEE Std 1619 tweaks).
func oursXTSBench(size int) setupFunc {
	return func() (benchFunc, error) {
		x, err := sm4.NewXTS(randBytes(32))
		if err != nil {
			return nil, err
		}
		buf := randBytes(size)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := x.Encrypt(buf, buf, uint64(i)); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

// oursCBCMultiBench CBC-encrypts lanes independent messages of size bytes
// per op with sm4.CBCEncryptMulti.
func oursCBCMultiBench(lanes, size int) setupFunc {
	return func() (benchFunc, error) {
		blk, err := sm4.NewCipher(randBytes(16))
		if err != nil {
			return nil, err
		}
		var ivs, bufs [][]byte
		for range lanes {
			ivs = append(ivs, randBytes(16))
			bufs = append(bufs, randBytes(size))
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sm4.CBCEncryptMulti(blk, ivs, bufs, bufs)
			}
		}, nil
	}
}
