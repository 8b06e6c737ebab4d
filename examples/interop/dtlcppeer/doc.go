// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package dtlcppeer runs shangmi's tlcp/dtlcp against gotlcp's dtlcp
// package (gitee.com/Trisia/gotlcp), both directions, over loopback UDP,
// and compares the two over an in-memory datagram pipe.
//
// The Go module proxy does not serve gotlcp, so this module is not built
// in CI and its go.mod has no replace for gotlcp: ../dtlcp.sh adds one,
// pointing at a gotlcp checkout given as its argument, in a copy of
// go.mod, and runs the tests with it:
//
//	bash examples/interop/dtlcp.sh /work/peers/src/gotlcp            # interop cells
//	BENCH=1 bash examples/interop/dtlcp.sh /work/peers/src/gotlcp    # and the comparison
package dtlcppeer
