// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/dudect"
	"github.com/shangmi-go/shangmi/internal/impl"
)

// TestConstantTimeZUC measures ZUC-128 set-up and 256 bytes of keystream,
// and a 128-EIA3 MAC, with an all-zero key and IV against random ones, on
// every kernel of this CPU and on the generic code. The kernels must show
// no dependence; the generic code looks the S-boxes up in tables (see the
// package documentation), so its result is logged, not judged.
func TestConstantTimeZUC(t *testing.T) {
	type in struct{ key, iv, msg [32]byte }
	input := func(class int, rnd *rand.Rand) in {
		var x in
		if class == 1 {
			for i := range x.key {
				x.key[i], x.iv[i] = byte(rnd.Uint32()), byte(rnd.Uint32())
			}
		}
		for i := range x.msg {
			x.msg[i] = byte(rnd.Uint32())
		}
		return x
	}
	var sink byte
	for _, name := range append(impl.List("zuc"), "generic") {
		t.Run(name, func(t *testing.T) {
			if !impl.Select("zuc", name) {
				t.Skip("not on this CPU")
			}
			defer impl.Reset("zuc")
			tables := name == "generic"
			t.Run("keystream", func(t *testing.T) {
				buf := make([]byte, 256)
				dudect.Test(t, tables, input, func(x *in) {
					s, err := NewCipher(x.key[:16], x.iv[:16])
					if err != nil {
						panic(err)
					}
					s.XORKeyStream(buf, buf)
					sink ^= buf[0]
				})
			})
			t.Run("EIA3", func(t *testing.T) {
				dudect.Test(t, tables, input, func(x *in) {
					m, err := NewEIA3(x.key[:16], 1, 2, 0)
					if err != nil {
						panic(err)
					}
					m.Write(x.msg[:])
					sink ^= m.Sum(nil)[0]
				})
			})
		})
	}
	_ = sink
}
