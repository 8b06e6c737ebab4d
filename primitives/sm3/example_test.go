// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3_test

import (
	"bytes"
	"crypto/hmac"
	"encoding"
	"encoding/binary"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

func ExampleSum() {
	fmt.Printf("%x\n", sm3.Sum([]byte("abc")))
	// Output: 66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0
}

func ExampleNew() {
	h := sm3.New()
	h.Write([]byte("ab"))
	h.Write([]byte("c"))
	fmt.Printf("%x\n", h.Sum(nil))
	// Output: 66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0
}

// A partly hashed stream can be saved and resumed later, for example in
// another process.
func ExampleNew_marshal() {
	h := sm3.New()
	h.Write([]byte("ab"))
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err)
	}

	resumed := sm3.New()
	if err := resumed.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		panic(err)
	}
	resumed.Write([]byte("c"))
	fmt.Printf("%x\n", resumed.Sum(nil))
	// Output: 66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0
}

// HMAC-SM3 (GM/T 0042-2015) is crypto/hmac over sm3.New.
func ExampleNew_hmac() {
	mac := hmac.New(sm3.New, []byte("key"))
	mac.Write([]byte("message"))
	fmt.Printf("%x\n", mac.Sum(nil))
	// Output: 34c90b291a80b7fd7f2be43d683935bab9d149164666c4ef8857c815cf2ef832
}

func ExampleKDF() {
	// In SM2 encryption z is x2 || y2, the coordinates of [k]P_B.
	z := []byte("shared secret")
	key := sm3.KDF(z, 16)
	fmt.Println(len(key))
	// Output: 16
}

// Several messages hashed at once: on CPUs with a multi-buffer kernel they
// run side by side in the lanes of vector registers.
func ExampleSumMulti() {
	msgs := [][]byte{[]byte("abc"), []byte(""), []byte("a longer message, of any length")}
	sums := make([][sm3.Size]byte, len(msgs))
	sm3.SumMulti(sums, msgs)
	for i, s := range sums {
		fmt.Println(s == sm3.Sum(msgs[i]), fmt.Sprintf("%x", s[:8]))
	}
	// Output:
	// true 66c7f0f462eeedd9
	// true 1ab21d8355cfa17f
	// true 7eb87d7b1a7d7803
}

// A TLCP record layer MACs every record as seq || type || version ||
// length followed by the record body, under the MAC key of its connection
// direction. The key is prepared once; a batch then computes the MACs of up
// to MaxBatch records together, without allocating, and can be reused.
func ExampleHMACBatch() {
	key := sm3.NewHMACKey([]byte("client write MAC key, 32 bytes!!")) // once per direction

	bodies := [][]byte{[]byte("first record"), []byte("second record"), make([]byte, 16384)}
	var headers [3][13]byte // kept until Sum: the batch holds the slices, not copies
	var batch sm3.HMACBatch
	for seq, body := range bodies {
		h := &headers[seq]
		binary.BigEndian.PutUint64(h[0:], uint64(seq))
		h[8] = 23                                 // application_data
		binary.BigEndian.PutUint16(h[9:], 0x0101) // TLCP
		binary.BigEndian.PutUint16(h[11:], uint16(len(body)))
		batch.Add(key, h[:], body)
	}
	macs := make([][sm3.Size]byte, batch.Len())
	batch.Sum(macs)

	// The same MACs one at a time with crypto/hmac.
	for seq, body := range bodies {
		m := hmac.New(sm3.New, []byte("client write MAC key, 32 bytes!!"))
		m.Write(headers[seq][:])
		m.Write(body)
		fmt.Println(hmac.Equal(macs[seq][:], m.Sum(nil)))
	}
	// Output:
	// true
	// true
	// true
}

// KDFInto fills a caller's buffer, so that SM2 can derive its keystream
// without allocating; z may be given in parts.
func ExampleKDFInto() {
	x2, y2 := []byte("x coordinate"), []byte("y coordinate")
	var key [16]byte
	sm3.KDFInto(key[:], x2, y2)
	fmt.Println(string(sm3.KDF([]byte("x coordinatey coordinate"), 16)) == string(key[:]))
	// Output: true
}

// A TLCP receiver checks the MACs of decrypted SM4-CBC records. Until the
// MAC is verified, where a record's data ends (before the MAC and the
// padding) is secret, so each MAC is added with AddSecretLength: the
// batch does the same work whatever the padding says.
func ExampleHMACBatch_AddSecretLength() {
	const macKey = "server write MAC key, 32 bytes!!"
	key := sm3.NewHMACKey([]byte(macKey))

	// A decrypted record: 5 bytes of data, its MAC, then padding bytes
	// each holding the padding length (here 10, so 11 bytes).
	data := []byte("hello")
	var hdr [13]byte
	binary.BigEndian.PutUint16(hdr[9:], 0x0101)
	hdr[8] = 23
	binary.BigEndian.PutUint16(hdr[11:], uint16(len(data)))
	m := hmac.New(sm3.New, []byte(macKey))
	m.Write(hdr[:])
	m.Write(data)
	payload := append(append(data, m.Sum(nil)...), bytes.Repeat([]byte{10}, 11)...)

	// The receiver learns n from the padding (in constant time) and
	// writes it into the header without branching on it. The longest data
	// the record could hold is everything but the MAC and one padding
	// byte; the shortest, 255 bytes less.
	padLen := int(payload[len(payload)-1])
	n := len(payload) - sm3.Size - padLen - 1
	binary.BigEndian.PutUint16(hdr[11:], uint16(n))
	body := payload[:len(payload)-sm3.Size-1]
	var batch sm3.HMACBatch
	batch.AddSecretLength(key, hdr[:], body, n, max(0, len(body)-255))
	var mac [1][sm3.Size]byte
	batch.Sum(mac[:])
	fmt.Println(hmac.Equal(mac[0][:], payload[n:n+sm3.Size]))
	// Output: true
}
