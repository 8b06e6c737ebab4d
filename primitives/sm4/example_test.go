// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4_test

import (
	"crypto/cipher"
	"encoding/hex"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm4"
)

func ExampleNewCipher() {
	key, _ := hex.DecodeString("0123456789abcdeffedcba9876543210")
	block, err := sm4.NewCipher(key)
	if err != nil {
		panic(err)
	}
	out := make([]byte, sm4.BlockSize)
	block.Encrypt(out, key) // GB/T 32907-2016 example 1 encrypts the key itself
	fmt.Printf("%x\n", out)
	// Output: 681edf34d206965e86b3e94f536e4246
}

func ExampleNewCipher_gcm() {
	key, _ := hex.DecodeString("0123456789abcdeffedcba9876543210")
	block, err := sm4.NewCipher(key)
	if err != nil {
		panic(err)
	}
	// crypto/cipher hands GCM to the sm4 package's own implementation.
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	nonce := make([]byte, aead.NonceSize()) // never reuse a nonce with the same key
	sealed := aead.Seal(nil, nonce, []byte("hello, SM4"), []byte("header"))
	plaintext, err := aead.Open(nil, nonce, sealed, []byte("header"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", plaintext)
	// Output: hello, SM4
}

func ExampleNewCCM() {
	key, _ := hex.DecodeString("0123456789abcdeffedcba9876543210")
	block, _ := sm4.NewCipher(key)
	aead, err := sm4.NewCCM(block, 12, 16)
	if err != nil {
		panic(err)
	}
	nonce := make([]byte, 12)
	sealed := aead.Seal(nil, nonce, []byte("hello, CCM"), nil)
	fmt.Println(len(sealed))
	// Output: 26
}

func ExampleNewXTSGB() {
	key := make([]byte, 32) // data key ‖ tweak key
	x, err := sm4.NewXTSGB(key)
	if err != nil {
		panic(err)
	}
	sector := make([]byte, 512)
	if err := x.Encrypt(sector, sector, 42); err != nil {
		panic(err)
	}
	if err := x.Decrypt(sector, sector, 42); err != nil {
		panic(err)
	}
	fmt.Println(sector[0], len(sector))
	// Output: 0 512
}

func ExampleCBCEncryptMulti() {
	key, _ := hex.DecodeString("0123456789abcdeffedcba9876543210")
	block, _ := sm4.NewCipher(key)
	// Three independent messages, each with its own IV, of different
	// lengths (whole blocks; CBC padding is the caller's business).
	ivs := [][]byte{make([]byte, 16), make([]byte, 16), make([]byte, 16)}
	ivs[1][0], ivs[2][0] = 1, 2
	msgs := [][]byte{make([]byte, 64), make([]byte, 16), make([]byte, 32)}
	out := [][]byte{make([]byte, 64), make([]byte, 16), make([]byte, 32)}
	sm4.CBCEncryptMulti(block, ivs, out, msgs)

	// The same as one CBC encrypter per message.
	want := make([]byte, 16)
	cipher.NewCBCEncrypter(block, ivs[1]).CryptBlocks(want, msgs[1])
	fmt.Println(hex.EncodeToString(out[1]) == hex.EncodeToString(want))
	// Output: true
}
