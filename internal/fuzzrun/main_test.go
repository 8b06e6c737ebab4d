// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"path/filepath"
	"testing"
	"time"
)

// TestLogTotals: runs appended to the log add up per target, and a failed
// run is remembered.
func TestLogTotals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.tsv")
	tg := target{pkg: "example.com/m/p", dir: "p", name: "FuzzX"}
	for _, r := range []result{
		{time: 4 * time.Minute, execs: 10, coverage: "40.0% of statements", result: "ok"},
		{time: 7 * time.Minute, execs: 5, coverage: "41.5% of statements", result: "FAIL"},
	} {
		if err := appendLog(path, tg, r); err != nil {
			t.Fatal(err)
		}
	}
	m, err := readLog(path)
	if err != nil {
		t.Fatal(err)
	}
	got := m[tg.id()]
	if got.time != 11*time.Minute || got.execs != 15 || got.runs != 2 || !got.failed || got.coverage != "41.5% of statements" {
		t.Fatalf("totals %+v", got)
	}
}

// TestElapsedLine: the fuzzer's last status line gives the time and the
// executions.
func TestElapsedLine(t *testing.T) {
	out := "fuzz: elapsed: 3s, execs: 1200 (400/sec), new interesting: 2 (total: 9)\n" +
		"fuzz: elapsed: 10m0s, execs: 987654 (1646/sec), new interesting: 31 (total: 40)\nPASS\n"
	m := elapsedRE.FindAllStringSubmatch(out, -1)
	if len(m) != 2 || m[1][1] != "10m0s" || m[1][2] != "987654" {
		t.Fatalf("matches %q", m)
	}
	if n := newRE.FindAllStringSubmatch(out, -1); n[len(n)-1][1] != "31" {
		t.Fatalf("new %q", n)
	}
}
