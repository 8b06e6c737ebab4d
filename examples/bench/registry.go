// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"fmt"
	"io"
	"sync"
	"testing"
)

// A benchFunc runs b.N operations. Its setup has already happened, so only the
// work being compared is timed. On failure it calls fail, which records the
// reason (testing.Benchmark discards b's own output).
type benchFunc func(b *testing.B)

// A setupFunc prepares one implementation of one row (keys, buffers,
// certificates) outside the timed loop. It returns nil, nil when the row has
// no analogue in that implementation.
type setupFunc func() (benchFunc, error)

type unit int

const (
	mbPerSec unit = iota
	opsPerSec
)

func (u unit) String() string {
	if u == mbPerSec {
		return "MB/s"
	}
	return "ops/s"
}

// A row is one measured operation with up to three implementations, one per
// column of its group. A nil setup leaves the cell blank.
type row struct {
	name  string
	unit  unit
	bytes int64 // bytes processed per op, for MB/s
	impls []setupFunc
}

// A group is one table: sm3, sm4, ... Its columns name the implementations;
// the ratio column is column 0 divided by column 1 (throughput over
// throughput, so above 1 means column 0 is faster).
type group struct {
	name  string
	cols  []string
	ratio string
	rows  []*row
	// note is printed under the table (e.g. what "raw" means).
	note string
	// extra, if set, adds facts known only after setup (sizes, names).
	extra func() string
	// custom, if set, is a group that is not a table of throughputs (the
	// memory and scaling groups): it runs after the tables, writing its
	// own results to w and its progress to progress.
	custom func(w, progress io.Writer, rounds int)
}

var groups []*group

// register adds a group to the table; the order of the -only list and of the
// output follows groupOrder, not init order.
func register(g *group) { groups = append(groups, g) }

var groupOrder = []string{"sm3", "sm4", "zuc", "sm2", "x509", "records", "tlcp", "tls13", "pq", "cms"}

func orderedGroups() []*group {
	var out []*group
	for _, name := range groupOrder {
		for _, g := range groups {
			if g.name == name {
				out = append(out, g)
			}
		}
	}
	for _, g := range groups {
		known := false
		for _, name := range groupOrder {
			known = known || g.name == name
		}
		if !known {
			out = append(out, g)
		}
	}
	return out
}

// lastFailure holds the error reported by the benchmark that is running now.
// Measurements run one at a time, so one slot is enough; testing.Benchmark
// discards b.Fatal's message, which is why fail records it here.
var (
	failMu      sync.Mutex
	lastFailure error
)

func fail(b *testing.B, err error) {
	failMu.Lock()
	if lastFailure == nil {
		lastFailure = err
	}
	failMu.Unlock()
	b.FailNow()
}

func failf(b *testing.B, format string, args ...any) {
	fail(b, fmt.Errorf(format, args...))
}

// takeFailure returns and clears the recorded error.
func takeFailure() error {
	failMu.Lock()
	defer failMu.Unlock()
	err := lastFailure
	lastFailure = nil
	return err
}
