// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

// maxLanes is the most ZUC instances a multi-lane kernel runs at once
// (sixteen 32-bit lanes of a 512-bit register).
const maxLanes = 16

// laneState holds up to maxLanes ZUC states side by side, the layout the
// multi-lane kernels work on: cell j of every lane's LFSR is one row, so
// that one vector load gives a cell of all lanes. A kernel with fewer
// lanes uses the first columns.
type laneState struct {
	lfsr   [16][maxLanes]uint32
	r1, r2 [maxLanes]uint32
}

// put stores s as lane l.
func (ls *laneState) put(l int, s *state) {
	for j := range s.lfsr {
		ls.lfsr[j][l] = s.lfsr[j]
	}
	ls.r1[l], ls.r2[l] = s.r1, s.r2
}

// get copies lane l into s.
func (ls *laneState) get(l int, s *state) {
	for j := range s.lfsr {
		s.lfsr[j] = ls.lfsr[j][l]
	}
	s.r1, s.r2 = ls.r1[l], ls.r2[l]
}

// lanesInitGeneric is the multi-lane initialisation for n lanes, one lane
// at a time.
func lanesInitGeneric(ls *laneState, n int) {
	var s state
	for l := range n {
		ls.get(l, &s)
		initialiseGeneric(&s)
		ls.put(l, &s)
	}
}

// lanesKeyStreamGeneric writes the next 16·blocks keystream words of each
// of the n lanes to ks[l*stride:], one lane at a time.
func lanesKeyStreamGeneric(ls *laneState, n int, ks []uint32, stride, blocks int) {
	var s state
	for l := range n {
		ls.get(l, &s)
		genKeyStreamGeneric(&s, ks[l*stride:l*stride+blocks*blockWords])
		ls.put(l, &s)
	}
}

// testLanes, when a test sets it, makes the generic code pose as a
// multi-lane kernel of that many lanes on a CPU without one, so that the
// scheduling in [Batch] runs, and is tested, everywhere.
var testLanes = 0
