// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dudect

import (
	"crypto/subtle"
	"math/rand/v2"
	"testing"
	"time"
)

var sink byte

// leaky compares like bytes.Equal: it stops at the first difference.
func leaky(a, b *[64]byte) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type pair struct{ a, b [64]byte }

// input makes class 0 equal pairs and class 1 pairs that differ in the
// first byte: a secret-dependent early exit shows, a constant-time
// comparison does not.
func input(class int, rnd *rand.Rand) pair {
	var p pair
	for i := range p.a {
		p.a[i] = byte(rnd.Uint32())
	}
	p.b = p.a
	if class == 1 {
		p.b[0] ^= 1
	}
	return p
}

// TestDetectsLeak: the harness finds an early-exit comparison within a
// short run, far above Threshold.
func TestDetectsLeak(t *testing.T) {
	res := Measure(Options{Duration: 300 * time.Millisecond}, input, func(p *pair) {
		if leaky(&p.a, &p.b) {
			sink++
		}
	})
	t.Logf("early exit: %s", res)
	if res.MaxT < 3*Threshold {
		t.Fatalf("an early-exit comparison measured max |t| = %.1f, want > %d", res.MaxT, 3*Threshold)
	}
}

// TestConstantTimeCompare: subtle.ConstantTimeCompare stays under the
// threshold on the same inputs.
func TestConstantTimeCompare(t *testing.T) {
	Test(t, false, input, func(p *pair) {
		sink += byte(subtle.ConstantTimeCompare(p.a[:], p.b[:]))
	})
}

// TestWelch checks the statistic on known values.
func TestWelch(t *testing.T) {
	var w welch
	for i := range 2 * minPerClass {
		w.add(i%2, float64(i%2)*10+float64(i%7))
	}
	if got := w.t(); got > -50 {
		t.Fatalf("t = %.1f for classes 10 apart, want strongly negative", got)
	}
	var z welch
	for i := range 2 * minPerClass {
		z.add(i%2, float64(i%7))
	}
	if got := z.t(); got < -3 || got > 3 {
		t.Fatalf("t = %.1f for equal classes", got)
	}
}
