// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command bench compares shangmi's implementations with gmsm's and with the
// closest Go standard library analogue, in one process, interleaved round by
// round so that the noise of a shared machine hits every column alike.
//
//	go run . -only sm3,sm4 -rounds 5 -time 100ms
//	go run -tags purego .
//	go run . -only sm4 -rows GCM -cpuprofile /tmp/cpu.out
//
// See README.md.
package main
