// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/dudect"
)

// TestConstantTimeFinished measures the Finished check (readPeerFinished,
// the path both protocols take): a peer's verify data wrong in its first
// byte is refused in the time one wrong in its last byte is, so the check
// tells an attacker nothing about how much of a forged Finished was right.
func TestConstantTimeFinished(t *testing.T) {
	want := bytes.Repeat([]byte{0xa5}, 12)
	record := func(bad int) []byte {
		v := bytes.Clone(want)
		v[bad] ^= 1
		msg := append([]byte{byte(typeFinished), 0, 0, 12}, v...)
		return append([]byte{byte(recordTypeHandshake), 1, 1, 0, byte(len(msg))}, msg...)
	}
	first, last := record(0), record(11)
	type in struct {
		c  *Conn
		th *transcriptHash
	}
	var sink int
	var lastErr error
	dudect.Test(t, false, func(class int, _ *rand.Rand) in {
		src := first
		if class == 1 {
			src = last
		}
		c := Server(&memConn{in: bytes.NewBuffer(bytes.Clone(src)), out: new(bytes.Buffer)}, &Config{})
		return in{c, newTranscript(false)}
	}, func(x *in) {
		if err := x.c.readPeerFinished(x.th, want); err != nil {
			sink++
			lastErr = err
		}
	})
	if sink == 0 || lastErr == nil || !strings.Contains(lastErr.Error(), "Finished is incorrect") {
		t.Fatalf("the measured check did not refuse the Finished for its verify data: %v", lastErr)
	}
}
