// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

//go:generate go run gen.go -output sm4_rounds.go
//go:generate sh -c "cd _asm && go run . -pkg sm4 -out ../sm4_amd64.s -stubs ../sm4_amd64.go -consts ../sboxconst_test.go"
//go:generate sh -c "cd _asm && go run ./arm64 -out ../sm4_arm64.s -stubs ../sm4_arm64.go"

import (
	"crypto/cipher"
	"strconv"

	"github.com/shangmi-go/shangmi/internal/alias"
)

// BlockSize is the SM4 block size in bytes.
const BlockSize = 16

// KeySize is the SM4 key size in bytes.
const KeySize = 16

// rounds is the number of SM4 rounds; there is one 32-bit round key per round.
const rounds = 32

// KeySizeError is returned by [NewCipher] for a key that is not 16 bytes.
type KeySizeError int

func (k KeySizeError) Error() string {
	return "sm4: invalid key size " + strconv.Itoa(int(k))
}

// Block is an SM4 cipher instance for one key, made by [NewCipher]. Besides
// [cipher.Block] it implements the methods crypto/cipher looks for to hand
// CBC, CTR and GCM to an implementation that works on many blocks at a time.
// A Block is safe for concurrent use.
type Block struct {
	enc  [rounds]uint32 // round keys rk0…rk31
	dec  [rounds]uint32 // the same keys in reverse order
	arch archKeys       // the keys in the forms some kernels want
}

// NewCipher returns an SM4 [cipher.Block] (a *[Block]) for a 16-byte key.
func NewCipher(key []byte) (cipher.Block, error) {
	if len(key) != KeySize {
		return nil, KeySizeError(len(key))
	}
	b := new(Block)
	b.init(key)
	return b, nil
}

func (b *Block) init(key []byte) {
	if !expandKeyArch(key, &b.enc, &b.dec) {
		expandKey(key, &b.enc, &b.dec)
	}
	b.arch.init(&b.enc, &b.dec)
}

// BlockSize returns [BlockSize].
func (b *Block) BlockSize() int { return BlockSize }

// Encrypt encrypts the first block of src into dst. dst and src must overlap
// entirely or not at all.
func (b *Block) Encrypt(dst, src []byte) {
	if len(src) < BlockSize {
		panic("sm4: input not full block")
	}
	if len(dst) < BlockSize {
		panic("sm4: output not full block")
	}
	if alias.InexactOverlap(dst[:BlockSize], src[:BlockSize]) {
		panic("sm4: invalid buffer overlap")
	}
	encryptBlock(b, dst, src)
}

// Decrypt decrypts the first block of src into dst. dst and src must overlap
// entirely or not at all.
func (b *Block) Decrypt(dst, src []byte) {
	if len(src) < BlockSize {
		panic("sm4: input not full block")
	}
	if len(dst) < BlockSize {
		panic("sm4: output not full block")
	}
	if alias.InexactOverlap(dst[:BlockSize], src[:BlockSize]) {
		panic("sm4: invalid buffer overlap")
	}
	decryptBlock(b, dst, src)
}

// encryptBlocks encrypts whole blocks of src into dst (ECB) through the
// bulk kernel. The tests use it to check that kernel directly.
func (b *Block) encryptBlocks(dst, src []byte) {
	cryptBlocks(b, false, dst, src)
}
