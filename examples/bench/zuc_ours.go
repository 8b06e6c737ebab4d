// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/cipher"
	"hash"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/zuc"
)

func oursZUC() *zucAPI {
	var batch zuc.Batch
	var eia []zuc.EIA3Message
	keys := make([][]byte, 1)
	return &zucAPI{
		newCipher: zuc.NewCipher,
		newEEA3:   zuc.NewEEA3,
		newEIA3: func(key []byte, count, bearer, direction uint32) (hash.Hash, error) {
			return zuc.NewEIA3(key, count, bearer, direction)
		},
		newMAC256: zuc.NewMAC256,
		batch: &zucBatchAPI{
			xor: func(key []byte, ivs, bufs [][]byte) error {
				keys[0] = key
				return batch.XORKeyStream(keys, ivs, bufs, bufs)
			},
			eia3: func(key []byte, counts []uint32, msgs [][]byte, macs [][4]byte) error {
				eia = eia[:0]
				for i, m := range msgs {
					eia = append(eia, zuc.EIA3Message{Key: key, Count: counts[i], Bearer: 5, Direction: 1,
						Bits: 8 * len(m), Message: m})
				}
				if err := batch.EIA3(eia); err != nil {
					return err
				}
				for i := range eia {
					macs[i] = eia[i].MAC
				}
				return nil
			},
			lanes: zuc.Lanes(),
		},
	}
}

// zucResetBench: Cipher.Reset with a new IV and 16 bytes of keystream, the
// per-record cost of the ZUC TLCP suites.
func zucResetBench() setupFunc {
	return func() (benchFunc, error) {
		key, iv := randBytes(16), randBytes(16)
		s, err := zuc.NewCipher(key, iv)
		if err != nil {
			return nil, err
		}
		c := s.(*zuc.Cipher)
		buf := make([]byte, 16)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				iv[15] = byte(i)
				if err := c.Reset(iv); err != nil {
					fail(b, err)
				}
				c.XORKeyStream(buf, buf)
			}
		}, nil
	}
}

var _ cipher.Stream = (*zuc.Cipher)(nil)
