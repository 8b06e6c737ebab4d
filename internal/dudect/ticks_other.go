// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !(amd64 || arm64) || purego

package dudect

import "time"

var epoch = time.Now()

// ticks falls back to the monotonic clock where there is no counter
// instruction to read (or assembly is not allowed).
func ticks() uint64 { return uint64(time.Since(epoch)) }

// Counter names what ticks counts.
const Counter = "monotonic clock (ns)"
