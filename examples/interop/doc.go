// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package interop checks package tlcp against a third-party TLCP
// implementation, the gmtls package of github.com/tjfoc/gmsm v1.4.1, in both
// directions: this project's client against its server and its client
// against this project's server, on ECC_SM4_CBC_SM3 (0xE013), with and
// without client authentication, using the double certificates in
// testdata/tlcp.
//
// gmtls gets only ECC_SM4_CBC_SM3 right: its ECDHE suite panics on the
// server side and it has no GCM suites. Every gmtls endpoint here is
// therefore restricted to 0xE013, and every call into gmtls is guarded so
// that a panic there becomes a test failure instead of killing the binary.
//
// The package lives in its own module so that the main module never depends
// on gmsm. Run it with
//
//	cd examples/interop && go test ./...
//
// Everything runs over 127.0.0.1 with deadlines; no other network access is
// needed once the module cache holds gmsm.
package interop
