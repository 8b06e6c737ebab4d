// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command share prints the curveSM2MLKEM768 client key share of an SM2
// private scalar and an ML-KEM-768 seed given in hex: the uncompressed SM2
// point, then the ML-KEM-768 encapsulation key (crypto/mlkem's, from the
// seed). For kat.sh, which checks the point again in Python.
//
//	go run ./testdata/tls13/hybrid/share D_HEX SEED_HEX
package main

import (
	"crypto/mlkem"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: share D_HEX SEED_HEX")
		os.Exit(2)
	}
	d, err1 := hex.DecodeString(os.Args[1])
	seed, err2 := hex.DecodeString(os.Args[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "share: arguments must be hex")
		os.Exit(2)
	}
	priv, err := sm2.NewPrivateKey(d)
	if err != nil {
		fmt.Fprintln(os.Stderr, "share:", err)
		os.Exit(1)
	}
	dk, err := mlkem.NewDecapsulationKey768(seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "share:", err)
		os.Exit(1)
	}
	fmt.Printf("%x%x\n", priv.PublicKey().Bytes(), dk.EncapsulationKey().Bytes())
}
