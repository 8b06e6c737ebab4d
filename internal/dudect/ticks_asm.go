// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build (amd64 || arm64) && !purego

package dudect

// ticks reads the CPU's time stamp counter (amd64) or virtual counter
// (arm64).
//
//go:noescape
func ticks() uint64

// Counter names what ticks counts.
const Counter = counterName
