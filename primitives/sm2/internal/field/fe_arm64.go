// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package field

// The kernels of fe_arm64.s, written by hand (short enough not to need a
// generator). Elements are four little-endian limbs in the Montgomery
// domain, fully reduced, as in the Go code; outputs may alias inputs. Both
// run in constant time.

// feMulARM64 sets out = a·b·R⁻¹ mod p.
//
//go:noescape
func feMulARM64(out, a, b *Element)

// feSqrARM64 sets out = a^(2^n) (n squarings in the Montgomery domain) for
// n ≥ 1.
//
//go:noescape
func feSqrARM64(out, a *Element, n int)
