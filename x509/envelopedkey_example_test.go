// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package x509_test

import (
	"crypto/rand"
	"fmt"
	"log"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/x509"
)

// A KMC envelopes an encryption key pair to the holder's signing key; the
// holder unwraps it (here with the key in memory; any crypto.Decrypter,
// such as a key in a cipher machine, does the same).
func ExampleParseSM2EnvelopedKey() {
	signKey, _ := sm2.GenerateKey(rand.Reader)
	encKey, _ := sm2.GenerateKey(rand.Reader)

	der, err := x509.MarshalSM2EnvelopedKey(rand.Reader, signKey.PublicKey(), encKey)
	if err != nil {
		log.Fatal(err)
	}

	env, err := x509.ParseSM2EnvelopedKey(der)
	if err != nil {
		log.Fatal(err)
	}
	key, err := env.Unwrap(rand.Reader, signKey)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(key.Equal(encKey))
	// Output: true
}
