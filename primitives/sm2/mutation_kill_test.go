// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm2

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// TestDecryptRefusesZeroKDF: GB/T 32918.4 §7.1 B4: decryption fails if
// t = KDF(x2 || y2, klen) is all zero, even when C3 matches. For a 1-byte
// message a C1 with t = 00 turns up after about 256 tries, so the case is
// built here and the well-formed ciphertext (C3 = SM3(x2 || M || y2)) must
// still be refused (mutant sm2-decrypt-zero-kdf of internal/mutation).
func TestDecryptRefusesZeroKDF(t *testing.T) {
	priv, err := GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for try := 0; try < 20000; try++ {
		k := make([]byte, 32)
		rand.Read(k)
		k[0] &= 0x7f // below n
		var c1, s sm2ec.Point
		if _, err := c1.ScalarBaseMult(k); err != nil {
			continue
		}
		if _, err := s.ScalarMult(priv.PublicKey().point, k); err != nil {
			continue
		}
		var xy [65]byte
		if !s.Normalize().EncodeAffine(&xy) {
			continue
		}
		var kdf [1]byte
		sm3.KDFInto(kdf[:], xy[1:])
		if kdf[0] != 0 {
			continue
		}
		msg := []byte{0x42} // C2 = M xor t = M
		c3 := hashC3(xy[1:33], msg, xy[33:])
		ct := append(c1.Normalize().Bytes(), c3[:]...)
		ct = append(ct, msg...)
		if _, err := Decrypt(priv, ct, nil); !errors.Is(err, ErrDecryption) {
			t.Fatalf("a ciphertext whose KDF output is all zero decrypted (err %v)", err)
		}
		return
	}
	t.Fatal("no C1 with an all-zero 1-byte KDF output in 20000 tries")
}
