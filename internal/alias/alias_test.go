// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package alias

import "testing"

func TestOverlap(t *testing.T) {
	a, b := make([]byte, 100), make([]byte, 100)
	for _, c := range []struct {
		name         string
		x, y         []byte
		any, inexact bool
	}{
		{"disjoint", a, b, false, false},
		{"same", a, a, true, false},
		{"same start, shorter", a[:10], a, true, false},
		{"shifted", a[1:], a, true, true},
		{"shifted back", a, a[99:], true, true},
		{"adjacent", a[:50], a[50:], false, false},
		{"empty", a[:0], a, false, false},
		{"empty at the end", a[100:], a, false, false},
		{"one byte shared", a[:51], a[50:], true, true},
	} {
		if got := AnyOverlap(c.x, c.y); got != c.any {
			t.Errorf("%s: AnyOverlap = %v, want %v", c.name, got, c.any)
		}
		if got := AnyOverlap(c.y, c.x); got != c.any {
			t.Errorf("%s: AnyOverlap (swapped) = %v, want %v", c.name, got, c.any)
		}
		if got := InexactOverlap(c.x, c.y); got != c.inexact {
			t.Errorf("%s: InexactOverlap = %v, want %v", c.name, got, c.inexact)
		}
		if got := InexactOverlap(c.y, c.x); got != c.inexact {
			t.Errorf("%s: InexactOverlap (swapped) = %v, want %v", c.name, got, c.inexact)
		}
	}
}
