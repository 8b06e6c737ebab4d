// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3_test

import (
	"crypto/hmac"
	"encoding"
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
