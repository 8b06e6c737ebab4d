// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12kdf

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"testing"
)

// The known answers of golang.org/x/crypto/pkcs12's tests: a 3DES key
// (two hash outputs, so the I update runs), and an input whose I_j gets a
// leading zero byte, which broke implementations over big.Int.
func TestDeriveVectors(t *testing.T) {
	pw, err := BMPPassword([]byte("sesame"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pw, salt []byte
		want     string
	}{
		{pw, bytes.Repeat([]byte{0xff}, 8), "7cd9fd3e2b3be7691a44e3bef0f9ea0fb9b897d4e325d9d1"},
		{[]byte{0, 0}, []byte("\xf3\x7e\x05\xb5\x18\x32\x4b\x4b"), "00f759ff47d14dd03665d5943cb3c4a39a2555c02aed66e1"},
	} {
		got := Derive(sha1.New, tc.pw, tc.salt, 2048, KeyMaterial, 24)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("Derive = %x, want %s", got, tc.want)
		}
	}
}

func TestBMPPassword(t *testing.T) {
	for in, want := range map[string]string{"": "0000", "a": "00610000", "密码": "5bc678010000"} {
		got, err := BMPPassword([]byte(in))
		if err != nil || hex.EncodeToString(got) != want {
			t.Errorf("BMPPassword(%q) = %x, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"\xff", "😀"} {
		if _, err := BMPPassword([]byte(bad)); err == nil {
			t.Errorf("BMPPassword(%q) accepted", bad)
		}
	}
}
