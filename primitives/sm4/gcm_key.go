// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import "crypto/cipher"

// gcmWithBlock is an SM4-GCM and its block cipher in one allocation.
type gcmWithBlock struct {
	gcm
	block Block
}

// NewGCMWithKey returns SM4 in Galois/Counter Mode with the standard
// 12-byte nonce and 16-byte tag under key: what cipher.NewGCM returns for
// NewCipher(key), set up for callers that make many short-lived keys (a
// TLS or TLCP handshake makes four). The cipher and the mode are one
// allocation (on CPUs with carry-less multiplication: elsewhere the
// portable GHASH key is a second one), and like any SM4-GCM it computes
// the powers of H beyond the first only when a message first needs them.
func NewGCMWithKey(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, KeySizeError(len(key))
	}
	gb := new(gcmWithBlock)
	gb.block.init(key)
	g := &gb.gcm
	g.b, g.nonceSize, g.tagSize = &gb.block, gcmStandardNonceSize, gcmTagSize
	g.initHashKey()
	return g, nil
}
