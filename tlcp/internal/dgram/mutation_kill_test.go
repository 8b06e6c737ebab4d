// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dgram

// Tests written for the mutants of internal/mutation that survived the
// existing tests: each fails if its check is removed.

import (
	"testing"
	"time"
)

// TestCookieStaleSecretDropped: a jar left unused for two rotation periods
// or more keeps no previous secret, so that a cookie made before the pause
// is refused (mutant dgram-cookie-prev-age): a cookie lives at most two
// periods, however seldom the jar is used. TestCookie rotates once per
// period and never reaches that case.
func TestCookieStaleSecretDropped(t *testing.T) {
	now := time.Unix(1000, 0)
	j := &CookieJar{Now: func() time.Time { return now }}
	c, err := j.Cookie("1.2.3.4:5", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2*CookieRotation - time.Second)
	if !j.Verify("1.2.3.4:5", []byte("hello"), c) {
		t.Fatal("cookie of the previous secret refused within two periods")
	}

	now = time.Unix(5000, 0)
	j = &CookieJar{Now: func() time.Time { return now }}
	if c, err = j.Cookie("1.2.3.4:5", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * CookieRotation)
	if j.Verify("1.2.3.4:5", []byte("hello"), c) {
		t.Fatal("cookie accepted two periods after its secret was made, the jar unused meanwhile")
	}
}
