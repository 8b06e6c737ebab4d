// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/cipher"
	"hash"

	"github.com/shangmi-go/shangmi/primitives/zuc"
)

func oursZUC() *zucAPI {
	return &zucAPI{
		newCipher: zuc.NewCipher,
		newEEA3:   zuc.NewEEA3,
		newEIA3: func(key []byte, count, bearer, direction uint32) (hash.Hash, error) {
			return zuc.NewEIA3(key, count, bearer, direction)
		},
	}
}

var _ cipher.Stream = (*zuc.Cipher)(nil)
