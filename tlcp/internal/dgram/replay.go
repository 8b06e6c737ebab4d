// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dgram

// ReplayWindow is the anti-replay window of one epoch (RFC 6347 §4.1.2.6):
// the highest sequence number authenticated so far and a bitmap of the 64
// below it. Check before opening a record, Mark after it authenticates, so
// that a forged record cannot move the window.
type ReplayWindow struct {
	top  uint64 // highest sequence number marked
	bits uint64 // bit i: top-i was marked
	any  bool
}

// WindowSize is the number of sequence numbers the window remembers.
const WindowSize = 64

// Check reports whether a record with sequence number seq may be new.
func (w *ReplayWindow) Check(seq uint64) bool {
	if !w.any || seq > w.top {
		return true
	}
	d := w.top - seq
	return d < WindowSize && w.bits&(1<<d) == 0
}

// Mark notes seq as received.
func (w *ReplayWindow) Mark(seq uint64) {
	switch {
	case !w.any:
		w.any, w.top, w.bits = true, seq, 1
	case seq > w.top:
		d := seq - w.top
		if d >= WindowSize {
			w.bits = 0
		} else {
			w.bits <<= d
		}
		w.bits |= 1
		w.top = seq
	default:
		if d := w.top - seq; d < WindowSize {
			w.bits |= 1 << d
		}
	}
}
