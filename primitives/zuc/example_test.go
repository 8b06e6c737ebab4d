// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/zuc"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func ExampleNewCipher() {
	// ZUC-128 test set 3 of the 3GPP implementors' test data.
	key := mustHex("3d4c4be96a82fdaeb58f641db17b455b")
	iv := mustHex("84319aa8de6915ca1f6bda6bfbd8c766")
	s, err := zuc.NewCipher(key, iv)
	if err != nil {
		panic(err)
	}
	ks := make([]byte, 8)
	s.XORKeyStream(ks, ks) // keystream XOR zeros = keystream
	fmt.Printf("%x\n", ks)
	// Output: 14f1c2723279c419
}

// A protocol that starts a new keystream for every record keeps one Cipher
// per direction and resets it with the record's IV.
func ExampleCipher_Reset() {
	key := mustHex("00112233445566778899aabbccddeeff")
	writeIV := mustHex("0f1e2d3c4b5a69788796a5b4c3d2e1f0")
	s, err := zuc.NewCipher(key, writeIV)
	if err != nil {
		panic(err)
	}
	c := s.(*zuc.Cipher)

	records := [][]byte{
		mustHex("1400000c0102030405060708090a0b0c"), // seq 0: a Finished message
		[]byte("Hello, ZUC record layer!\n"),        // seq 1: application data
	}
	var iv [16]byte
	for seq, record := range records {
		// zuc_iv = write_IV XOR (0^64 || seq)
		copy(iv[:], writeIV)
		binary.BigEndian.PutUint64(iv[8:], binary.BigEndian.Uint64(iv[8:])^uint64(seq))
		if err := c.Reset(iv[:]); err != nil {
			panic(err)
		}
		c.XORKeyStream(record, record)
		fmt.Printf("seq %d: %x\n", seq, record)
	}
	// Output:
	// seq 0: 358181c40d57f205dc9303804c84de73
	// seq 1: afd6d2c749dc8daf09d266a0d35b17f1a13fd7a20361c66786
}

func ExampleEEA3Bits() {
	// 128-EEA3 test set 1: a 193-bit message.
	key := mustHex("173d14ba5003731d7a60049470f00a29")
	plaintext := mustHex("6cf65340735552ab0c9752fa6f9025fe0bd675d9005875b200")
	ciphertext := make([]byte, len(plaintext))
	if err := zuc.EEA3Bits(key, 0x66035492, 15, 0, ciphertext, plaintext, 193); err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", ciphertext)
	// Output: a6c85fc66afb8533aafc2518dfe784940ee1e4b030238cc800
}

func ExampleNewEIA3() {
	// 128-EIA3 test set 2: a 90-bit message.
	key := mustHex("47054125561eb2dda94059da05097850")
	msg := make([]byte, 12)
	h, err := zuc.NewEIA3(key, 0x561eb2dd, 0x14, 0)
	if err != nil {
		panic(err)
	}
	macI, err := h.FinishBits(nil, msg, 90)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", macI)
	// Output: 6719a088
}

func ExampleNewMAC256() {
	// ZUC-256 MAC, 2018 specification test vector: zero key and IV, 400
	// zero bits, 64-bit tag.
	h, err := zuc.NewMAC256(make([]byte, 32), make([]byte, 23), 8)
	if err != nil {
		panic(err)
	}
	h.Write(make([]byte, 50))
	fmt.Printf("%x\n", h.Sum(nil))
	// Output: 673e54990034d38c
}

// A TLCP record layer with several records queued under a ZUC-128 suite
// encrypts them in one call: one key, one IV per record (write_IV XOR the
// sequence number), each record XORed in place. The records and results
// are those of the Cipher.Reset example.
func ExampleBatch_XORKeyStream() {
	key := mustHex("00112233445566778899aabbccddeeff")
	writeIV := mustHex("0f1e2d3c4b5a69788796a5b4c3d2e1f0")
	records := [][]byte{
		mustHex("1400000c0102030405060708090a0b0c"),
		[]byte("Hello, ZUC record layer!\n"),
	}
	ivs := make([][]byte, len(records))
	for seq := range records {
		iv := make([]byte, 16)
		copy(iv, writeIV)
		binary.BigEndian.PutUint64(iv[8:], binary.BigEndian.Uint64(iv[8:])^uint64(seq))
		ivs[seq] = iv
	}

	// A long-lived Batch reuses its scratch space: no allocations after
	// the first call.
	var b zuc.Batch
	if err := b.XORKeyStream([][]byte{key}, ivs, records, records); err != nil {
		panic(err)
	}
	for seq, r := range records {
		fmt.Printf("seq %d: %x\n", seq, r)
	}
	// Output:
	// seq 0: 358181c40d57f205dc9303804c84de73
	// seq 1: afd6d2c749dc8daf09d266a0d35b17f1a13fd7a20361c66786
}

// 3GPP packets, each with its own key, COUNT, BEARER, DIRECTION and bit
// length, authenticated together.
func ExampleBatch_EIA3() {
	msgs := []zuc.EIA3Message{
		// 128-EIA3 test sets 1 and 2.
		{Key: make([]byte, 16), Bits: 1, Message: []byte{0}},
		{Key: mustHex("47054125561eb2dda94059da05097850"), Count: 0x561eb2dd, Bearer: 0x14,
			Bits: 90, Message: make([]byte, 12)},
	}
	var b zuc.Batch
	if err := b.EIA3(msgs); err != nil {
		panic(err)
	}
	for _, m := range msgs {
		fmt.Printf("%x\n", m.MAC)
	}
	// Output:
	// c8a9595e
	// 6719a088
}
