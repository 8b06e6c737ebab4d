// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// This program generates sm4_amd64.s, the SM4 and GHASH kernels for amd64,
// with avo. Invoke it as
//
//	go run . -out ../sm4_amd64.s -consts ../sboxconst_test.go
//
// The kernels share one SM4 core (rounds over a state held as one 32-bit
// word of many blocks per register) in four instruction-set flavours; see
// isa. The S-box constants come from package sboxmath, which derives them
// from the S-box table and checks them exhaustively.
package main

import (
	"flag"

	. "github.com/mmcloughlin/avo/build"
)

var constsOut = flag.String("consts", "", "write the S-box constants as a Go test file")

func main() {
	flag.Parse()
	writeConsts(*constsOut)
	ConstraintExpr("!purego")

	for _, s := range isas {
		genECB(s)
		genCTR(s, false)
		genCTR(s, true)
		genCBCDec(s)
	}
	genLatKeys()
	genExpandKey(true)
	genExpandKey(false)
	genLatency(isaGFNI512)
	genLatency(isaGFNI256)
	genLatency(isaAESNI128)
	genGHASH()
	genGCM(isaGFNI512, false)
	genGCM(isaGFNI512, true)
	genXTS(isaGFNI512, false)
	genXTS(isaGFNI512, true)
	genCBCMulti(isaGFNI512)

	Generate()
}
