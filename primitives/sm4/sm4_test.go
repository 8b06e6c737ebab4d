// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"crypto/cipher"
	"fmt"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/internal/testvec"
)

type blockVector struct {
	ID         string      `json:"id"`
	Key        testvec.Hex `json:"key_hex"`
	Plaintext  testvec.Hex `json:"plaintext_hex"`
	Ciphertext testvec.Hex `json:"ciphertext_hex"`
	Iterations int         `json:"iterations"`
	RoundKeys  []string    `json:"round_keys_hex"`
}

func TestBlockVectors(t *testing.T) {
	vs, err := testvec.Load[blockVector]("sm4.json")
	if err != nil {
		t.Fatal(err)
	}
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			for _, v := range vs {
				t.Run(v.ID, func(t *testing.T) {
					if v.Iterations > 1000 && testing.Short() {
						t.Skip("long iteration case skipped in -short mode")
					}
					b, err := NewCipher(v.Key)
					if err != nil {
						t.Fatal(err)
					}
					if v.RoundKeys != nil {
						enc := b.(*Block).enc
						for i, want := range v.RoundKeys {
							if got := fmt.Sprintf("%08x", enc[i]); got != want {
								t.Errorf("rk%d = %s, want %s", i, got, want)
							}
						}
					}
					n := max(v.Iterations, 1)
					buf := bytes.Clone(v.Plaintext)
					for range n {
						b.Encrypt(buf, buf)
					}
					if !bytes.Equal(buf, v.Ciphertext) {
						t.Fatalf("Encrypt^%d = %x, want %x", n, buf, v.Ciphertext)
					}
					for range n {
						b.Decrypt(buf, buf)
					}
					if !bytes.Equal(buf, v.Plaintext) {
						t.Fatalf("Decrypt^%d = %x, want %x", n, buf, v.Plaintext)
					}
					// The multi-block kernel must agree with the one-block path.
					if n == 1 {
						many := bytes.Repeat(v.Plaintext, 7)
						b.(*Block).encryptBlocks(many, many)
						if !bytes.Equal(many, bytes.Repeat(v.Ciphertext, 7)) {
							t.Fatalf("multi-block encryption = %x", many)
						}
					}
				})
			}
		})
	})
}

var _ cipher.Block = (*Block)(nil)
