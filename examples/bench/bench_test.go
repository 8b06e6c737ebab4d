// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRows runs every registered implementation of every row for a single
// iteration, so a broken setup or loop shows up in go test rather than as an
// "error" cell in a long benchmark run.
func TestRows(t *testing.T) {
	old := flag.Lookup("test.benchtime").Value.String()
	if err := flag.Set("test.benchtime", "1x"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("test.benchtime", old) })

	if len(orderedGroups()) == 0 {
		t.Fatal("no groups registered")
	}
	for _, g := range orderedGroups() {
		for _, r := range g.rows {
			for i, col := range g.cols {
				if i >= len(r.impls) || r.impls[i] == nil {
					continue
				}
				t.Run(g.name+"/"+r.name+"/"+col, func(t *testing.T) {
					fn, err := safeSetup(r.impls[i])
					if err != nil {
						t.Fatalf("setup: %v", err)
					}
					if fn == nil {
						t.Fatal("setup returned no benchmark")
					}
					tput, _, _, err := measure(fn, r)
					if err != nil {
						t.Fatal(err)
					}
					if tput <= 0 {
						t.Fatalf("throughput %v", tput)
					}
				})
			}
		}
	}
}

func TestMedianAndRatio(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd = %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median even = %v", m)
	}
	a := &cell{byRnd: map[int]float64{0: 10, 1: 30, 2: 50}}
	b := &cell{byRnd: map[int]float64{0: 10, 1: 10, 2: 100}}
	if r, ok := ratio(a, b); !ok || r != 1 {
		t.Errorf("ratio = %v, %v; want 1 (median of 1, 3, 0.5)", r, ok)
	}
}

func TestSelectGroups(t *testing.T) {
	if _, err := selectGroups("nosuchgroup"); err == nil {
		t.Error("unknown group accepted")
	}
	gs, err := selectGroups("sm3,sm3")
	if err != nil || len(gs) != 1 || gs[0].name != "sm3" {
		t.Errorf("selectGroups(sm3,sm3) = %v, %v", gs, err)
	}
}

func TestFilterRows(t *testing.T) {
	sm3 := orderedGroups()[0]
	want, total := 0, len(sm3.rows)
	for _, r := range sm3.rows {
		if strings.HasPrefix(r.name, "SM3 ") {
			want++
		}
	}
	if want == 0 || want == total {
		t.Fatalf("the sm3 group has %d rows, %d of them named SM3 …: the test needs some of each", total, want)
	}
	gs, err := filterRows(orderedGroups(), "^SM3 ")
	if err != nil || len(gs) != 1 || gs[0].name != "sm3" || len(gs[0].rows) != want {
		t.Fatalf("filterRows(^SM3 ) = %v, %v; want the sm3 group with %d rows", gs, err, want)
	}
	if _, err := filterRows(orderedGroups(), "no such row"); err == nil {
		t.Error("empty selection accepted")
	}
	if len(orderedGroups()[0].rows) != total {
		t.Error("filterRows modified the registered group")
	}
}

// TestCustomGroups runs the memory and scaling groups at a tiny size, so
// that a broken stack or chart shows up in go test.
func TestCustomGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("opens connections for every stack")
	}
	oldConns, oldTime, oldDir := *memConns, *scaleTime, *chartDir
	*memConns, *scaleTime, *chartDir = 20, 5*time.Millisecond, t.TempDir()
	oldClients, oldConnsList := scaleClients, scaleConns
	scaleClients, scaleConns = []int{1, 4}, []int{1, 2}
	t.Cleanup(func() {
		*memConns, *scaleTime, *chartDir = oldConns, oldTime, oldDir
		scaleClients, scaleConns = oldClients, oldConnsList
	})
	var out strings.Builder
	runMemory(&out, io.Discard, 1)
	runScaling(&out, io.Discard, 1)
	if strings.Contains(out.String(), "error") {
		t.Fatalf("a stack failed:\n%s", out.String())
	}
	for _, f := range []string{"scaling-handshakes.svg", "scaling-bulk.svg"} {
		if fi, err := os.Stat(filepath.Join(*chartDir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("chart %s: %v", f, err)
		}
	}
}

// TestUpdateFile checks that -update replaces a group's table and the
// notes under it, occurrence by occurrence, keeps the prose around them,
// and writes the run's header between the markers.
func TestUpdateFile(t *testing.T) {
	doc := "intro\n<!-- bench-run -->\nold header\n<!-- /bench-run -->\n\n#### sm3\n\n| row | x |\n| --- | ---: |\n| a | 1 |\n\nold note  \n\nprose stays\n\n#### sm4\n\n| row | x |\n| --- | ---: |\n| b | 2 |\n\n#### sm4\n\n| row | y |\n| --- | ---: |\n| c | 3 |\n"
	out := "header\n\n#### sm3\n\n| row | x |\n| --- | ---: |\n| a | 9 |\n\nnew note  \n\n#### sm4\n\n| row | x |\n| --- | ---: |\n| b | 8 |\n\n"
	path := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := updateFile(path, []byte(out), []byte("run header\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "intro\n<!-- bench-run -->\n```\nrun header\n```\n<!-- /bench-run -->\n\n#### sm3\n\n| row | x |\n| --- | ---: |\n| a | 9 |\n\nnew note  \n\nprose stays\n\n#### sm4\n\n| row | x |\n| --- | ---: |\n| b | 8 |\n\n#### sm4\n\n| row | y |\n| --- | ---: |\n| c | 3 |\n"
	if n != 2 || string(got) != want {
		t.Errorf("replaced %d, got:\n%s\nwant:\n%s", n, got, want)
	}
}
