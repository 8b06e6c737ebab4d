// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

// iv is the initial chaining value.
var iv = [8]uint32{init0, init1, init2, init3, init4, init5, init6, init7}

// SumMulti sets dst[i] to the SM3 digest of msgs[i], for every message. Where
// the CPU has a multi-buffer kernel (AVX-512: 16 messages at once, AVX2: 8,
// NEON: 4) the messages are hashed side by side, one per vector lane, which
// is several times faster than one after another; lengths may differ, and
// when only one or two messages are left the one-message code takes over,
// so a batch is never slower than a loop over [Sum]. SumMulti does not
// allocate. It panics if dst is shorter than msgs.
func SumMulti(dst [][Size]byte, msgs [][]byte) {
	if len(dst) < len(msgs) {
		panic("sm3: SumMulti destination shorter than the messages")
	}
	for len(msgs) > 0 {
		n := min(len(msgs), multiLanes())
		if multiWidth(n) == 1 {
			for i := range n {
				dst[i] = Sum(msgs[i])
			}
		} else {
			sumLanes(dst, msgs[:n])
		}
		msgs, dst = msgs[n:], dst[n:]
	}
}

// sumLanes hashes up to multiLanes() messages with the engine, which lives
// in this function's frame so that the short cases do not pay for it.
func sumLanes(dst [][Size]byte, msgs [][]byte) {
	var e mbEngine
	for i := range msgs {
		e.add(&iv, 0, msgs[i:i+1])
	}
	e.run()
	for i := range msgs {
		dst[i] = stateBytes(&e.lane[i].h)
	}
	e.reset()
}

// stateBytes returns a chaining value as the big-endian digest.
func stateBytes(h *[8]uint32) [Size]byte {
	var s [Size]byte
	for i, v := range h {
		s[4*i], s[4*i+1], s[4*i+2], s[4*i+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	return s
}
