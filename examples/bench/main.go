// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

func main() {
	// testing.Benchmark reads its duration from the -test.benchtime flag,
	// which exists only after testing.Init.
	testing.Init()
	only := flag.String("only", "", "comma-separated groups to run: "+strings.Join(groupOrder, ","))
	rounds := flag.Int("rounds", 5, "measurement rounds; every row is measured once per round per implementation")
	per := flag.Duration("time", 100*time.Millisecond, "target duration of one measurement")
	list := flag.Bool("list", false, "list the registered groups and rows and exit")
	match := flag.String("rows", "", "regular expression: run only the rows whose name matches")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measurements to this file")
	clock := flag.String("clock", defaultClock(), "what a measurement's duration is: cpu (CPU time of the whole process; robust on a shared machine) or wall (elapsed time)")
	spread := flag.Float64("spread", 1.5, "a row whose per-round ratios range wider than this factor (max/min) is measured for another -rounds rounds; 0 turns it off")
	inPlace := flag.Bool("inplace", false, "run from the executable as built, without first copying it to a fresh file (see the README: the page-cache effect)")
	flag.Parse()
	if !*inPlace && !*list {
		runFromFreshCopy() // returns only if it cannot (or already did)
	}
	noteFreshCopy()

	sel, err := selectGroups(*only)
	if err == nil && *match != "" {
		sel, err = filterRows(sel, *match)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *list {
		for _, g := range sel {
			fmt.Printf("%s (%s)\n", g.name, strings.Join(g.cols, ", "))
			for _, r := range g.rows {
				fmt.Printf("  %s\n", r.name)
			}
		}
		return
	}
	if *rounds < 1 {
		fmt.Fprintln(os.Stderr, "bench: -rounds must be at least 1")
		os.Exit(2)
	}
	switch *clock {
	case "wall":
		useCPUClock = false
	case "cpu":
		if _, ok := processCPU(); !ok {
			fmt.Fprintln(os.Stderr, "bench: -clock cpu is not available on this system")
			os.Exit(2)
		}
		useCPUClock = true
	default:
		fmt.Fprintln(os.Stderr, "bench: -clock must be cpu or wall")
		os.Exit(2)
	}
	if err := setBenchTime(*per); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *update != "" {
		*markdown = true
	}
	// out is stdout and, for -update, a copy of everything printed.
	var copyOut, header bytes.Buffer
	var out io.Writer = os.Stdout
	if *update != "" {
		out = io.MultiWriter(os.Stdout, &copyOut)
	}
	printHeader(io.MultiWriter(out, &header), *rounds, *per, *spread)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		defer f.Close()
	}
	results := run(sel, *rounds, os.Stderr)
	if *spread > 0 {
		repeatWide(results, *rounds, *spread, os.Stderr)
	}
	for _, gr := range results {
		printGroup(out, gr)
	}
	for _, g := range sel {
		if g.custom != nil {
			g.custom(out, os.Stderr, *rounds)
		}
	}
	pprof.StopCPUProfile()
	if *update != "" {
		for _, path := range strings.Split(*update, ",") {
			n, err := updateFile(path, copyOut.Bytes(), header.Bytes())
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: -update:", err)
				os.Exit(1)
			}
			fmt.Fprintf(os.Stderr, "bench: %s: %d tables replaced\n", path, n)
		}
	}
}

// useCPUClock makes throughput per CPU-second of the whole process instead
// of per elapsed second. On a machine shared with other work, elapsed time
// includes the time this process waited for a core; CPU time does not. For
// the rows that run two goroutines (handshakes and bulk transfer over
// net.Pipe) it counts both ends' work, as a server's capacity would.
var useCPUClock = false

// ranFromCopy is set when this process runs from a fresh copy of the
// executable (fresh_linux.go).
var ranFromCopy bool

func defaultClock() string {
	if _, ok := processCPU(); ok {
		return "cpu"
	}
	return "wall"
}

func setBenchTime(d time.Duration) error {
	return flag.Set("test.benchtime", d.String())
}

func selectGroups(only string) ([]*group, error) {
	all := orderedGroups()
	if only == "" {
		return all, nil
	}
	var out []*group
	for _, name := range strings.Split(only, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		found := false
		for _, g := range all {
			if g.name == name {
				if !slices.Contains(out, g) {
					out = append(out, g)
				}
				found = true
			}
		}
		if !found {
			var names []string
			for _, g := range all {
				names = append(names, g.name)
			}
			return nil, fmt.Errorf("unknown or not yet available group %q (have: %s)", name, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// filterRows keeps the rows whose name matches expr, and the groups that
// still have rows.
func filterRows(sel []*group, expr string) ([]*group, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	var out []*group
	for _, g := range sel {
		ng := *g
		ng.rows = nil
		for _, r := range g.rows {
			if re.MatchString(r.name) {
				ng.rows = append(ng.rows, r)
			}
		}
		if len(ng.rows) > 0 {
			out = append(out, &ng)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no row matches %q", expr)
	}
	return out, nil
}

// cell is one implementation of one row: its prepared benchmark and what
// each round measured.
type cell struct {
	fn     benchFunc
	err    error
	tput   []float64 // per round; NaN-free, only successful rounds
	allocs []float64
	util   []float64 // per round: CPU time / elapsed time of the measurement
	byRnd  map[int]float64
}

type rowResult struct {
	row   *row
	cells []*cell
	// repeated is set when the row's ratios ranged wider than -spread and
	// it was measured for more rounds: the range that caused it.
	repeated         bool
	firstLo, firstHi float64
	rounds           int
}

type groupResult struct {
	g    *group
	rows []*rowResult
}

// run prepares every selected implementation once, then measures
// round-robin: for each round, for each row, each implementation in column
// order.
func run(sel []*group, rounds int, progress io.Writer) []*groupResult {
	var out []*groupResult
	for _, g := range sel {
		gr := &groupResult{g: g}
		for _, r := range g.rows {
			rr := &rowResult{row: r}
			for i := range g.cols {
				c := &cell{byRnd: map[int]float64{}}
				if i < len(r.impls) && r.impls[i] != nil {
					c.fn, c.err = safeSetup(r.impls[i])
					if c.err != nil {
						fmt.Fprintf(progress, "setup %s / %s / %s: %v\n", g.name, r.name, g.cols[i], c.err)
					}
				}
				rr.cells = append(rr.cells, c)
			}
			gr.rows = append(gr.rows, rr)
		}
		out = append(out, gr)
	}
	for rnd := 0; rnd < rounds; rnd++ {
		fmt.Fprintf(progress, "round %d/%d\n", rnd+1, rounds)
		for _, gr := range out {
			for _, rr := range gr.rows {
				measureRound(gr, rr, rnd, progress)
			}
		}
	}
	return out
}

// measureRound measures each implementation of one row once, as round rnd.
func measureRound(gr *groupResult, rr *rowResult, rnd int, progress io.Writer) {
	for _, c := range rr.cells {
		if c.fn == nil || c.err != nil {
			continue
		}
		tput, allocs, util, err := measure(c.fn, rr.row)
		if err != nil {
			c.err = err
			fmt.Fprintf(progress, "%s / %s: %v\n", gr.g.name, rr.row.name, err)
			continue
		}
		c.tput = append(c.tput, tput)
		c.allocs = append(c.allocs, allocs)
		c.util = append(c.util, util)
		c.byRnd[rnd] = tput
	}
	rr.rounds = rnd + 1
}

// repeatWide measures once more, for as many rounds again, every row whose
// per-round ratios range wider than the factor spread: a slow phase of a
// shared machine that hit one column of a few rounds then weighs less in
// the median, and the output says which rows needed it and what their
// range had been.
func repeatWide(out []*groupResult, rounds int, spread float64, progress io.Writer) {
	for _, gr := range out {
		for _, rr := range gr.rows {
			if len(rr.cells) < 2 {
				continue
			}
			rs := ratios(rr.cells[0], rr.cells[1])
			if len(rs) < 2 || slices.Min(rs) <= 0 || slices.Max(rs)/slices.Min(rs) <= spread {
				continue
			}
			rr.repeated, rr.firstLo, rr.firstHi = true, slices.Min(rs), slices.Max(rs)
			fmt.Fprintf(progress, "%s / %s: ratios %.2f-%.2f range wider than x%.2f, %d more rounds\n",
				gr.g.name, rr.row.name, rr.firstLo, rr.firstHi, spread, rounds)
			for rnd := rounds; rnd < 2*rounds; rnd++ {
				measureRound(gr, rr, rnd, progress)
			}
		}
	}
}

// safeSetup turns a panic in a setup function into an error so that one
// broken implementation does not take the whole table down.
func safeSetup(s setupFunc) (fn benchFunc, err error) {
	defer func() {
		if r := recover(); r != nil {
			fn, err = nil, fmt.Errorf("setup panicked: %v", r)
		}
	}()
	return s()
}

// measure runs fn through testing.Benchmark and returns throughput in the
// row's unit, allocations per operation and the share of the elapsed time
// the process spent on a CPU (below 1 when it waited for a core, or for
// something in the harness; up to GOMAXPROCS for parallel rows).
func measure(fn benchFunc, r *row) (tput, allocs, util float64, err error) {
	takeFailure()
	var (
		panicked any
		// testing.Benchmark calls the function several times with growing
		// b.N and reports the last call; keep the CPU time of each call so
		// that the last one can be matched with the result.
		lastN   int
		lastCPU time.Duration
	)
	res := testing.Benchmark(func(b *testing.B) {
		defer func() {
			if p := recover(); p != nil {
				panicked = p
				b.FailNow()
			}
		}()
		c0, ok0 := processCPU()
		fn(b)
		c1, ok1 := processCPU()
		lastN, lastCPU = b.N, 0
		if ok0 && ok1 {
			lastCPU = c1 - c0
		}
	})
	if err := takeFailure(); err != nil {
		return 0, 0, 0, err
	}
	if panicked != nil {
		return 0, 0, 0, fmt.Errorf("panic: %v", panicked)
	}
	if res.N == 0 || res.T <= 0 {
		return 0, 0, 0, errors.New("benchmark did not run")
	}
	secs := res.T.Seconds()
	if lastN == res.N && lastCPU > 0 {
		util = lastCPU.Seconds() / secs
	}
	if useCPUClock {
		// Never fall back to the elapsed time silently: a row on another
		// clock than its neighbours would not be comparable with them.
		if lastN != res.N || lastCPU <= 0 {
			return 0, 0, 0, errors.New("no process CPU time for the measured run")
		}
		secs = lastCPU.Seconds()
	}
	switch r.unit {
	case mbPerSec:
		tput = float64(r.bytes) * float64(res.N) / secs / 1e6
	default:
		tput = float64(res.N) / secs
	}
	return tput, float64(res.MemAllocs) / float64(res.N), util, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ratio is the median over rounds of column 0 / column 1, each round's
// figures taken from the same round so slow phases of the machine cancel.
func ratio(a, b *cell) (float64, bool) {
	rs := ratios(a, b)
	if len(rs) == 0 {
		return 0, false
	}
	return median(rs), true
}

// ratios returns the per-round ratios of a over b.
func ratios(a, b *cell) []float64 {
	var rs []float64
	for rnd, x := range a.byRnd {
		if y, ok := b.byRnd[rnd]; ok && y > 0 {
			rs = append(rs, x/y)
		}
	}
	return rs
}

func printHeader(w io.Writer, rounds int, per time.Duration, spread float64) {
	fmt.Fprintf(w, "shangmi benchmark: ours vs %s vs Go standard library\n", gmsmVersion())
	fmt.Fprintf(w, "go: %s %s/%s, GOMAXPROCS=%d, NumCPU=%d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Fprintf(w, "cpu: %s; features: %s\n", cpuName(), cpuFeatures())
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		// Other work on the machine: the CPU clock leaves out the time
		// this process waited for a core, not the caches others shared.
		if f := strings.Fields(string(b)); len(f) >= 3 {
			fmt.Fprintf(w, "load average at the start: %s %s %s (on %d cores; a quiet machine is near 0)\n", f[0], f[1], f[2], runtime.NumCPU())
		}
	}
	tags := "none (assembly paths enabled where a package has them)"
	if pureGo {
		tags = "purego (every package restricted to its pure Go code)"
	}
	fmt.Fprintf(w, "build tags: %s\n", tags)
	if ranFromCopy {
		fmt.Fprintf(w, "executable: a fresh copy of the build (guards against the page-cache effect, see the README)\n")
	} else {
		fmt.Fprintf(w, "executable: the build itself (-inplace, or the copy failed: see stderr)\n")
	}
	if useCPUClock {
		fmt.Fprintf(w, "clock: process CPU time (MB/s and ops/s are per CPU-second of this process; -clock wall for elapsed time)\n")
	} else {
		fmt.Fprintf(w, "clock: elapsed (wall) time\n")
	}
	fmt.Fprintf(w, "method: %d rounds, each row's implementations measured one after another for ~%v each (testing.Benchmark); figures are medians over rounds; ratio = median of per-round ratios, (min-max) their range\n", rounds, per)
	if spread > 0 {
		fmt.Fprintf(w, "repeats: a row whose per-round ratios range wider than x%.2f (max/min) is measured for %d more rounds, and says so under its table\n", spread, rounds)
	}
}

func gmsmVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/emmansun/gmsm" {
				return "gmsm " + m.Version
			}
		}
	}
	return "gmsm"
}

// cpuName reads the model name Linux reports; elsewhere GOARCH has to do.
func cpuName() string {
	f, err := os.Open("/proc/cpuinfo")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

func printGroup(w io.Writer, gr *groupResult) {
	g := gr.g
	if len(gr.rows) == 0 {
		return // a custom group prints itself
	}
	heading(w, g.name)
	hdr := []string{"row", "unit"}
	hdr = append(hdr, g.cols...)
	hdr = append(hdr, g.ratio, "(min-max)")
	for _, c := range g.cols {
		hdr = append(hdr, "allocs/op "+c)
	}
	var errs []string
	var lines [][]string
	for _, rr := range gr.rows {
		fields := []string{rr.row.name, rr.row.unit.String()}
		for i, c := range rr.cells {
			fields = append(fields, fmtCell(c))
			if c.err != nil {
				errs = append(errs, fmt.Sprintf("%s / %s: %v", rr.row.name, g.cols[i], c.err))
			}
		}
		if len(rr.cells) >= 2 {
			if rs := ratios(rr.cells[0], rr.cells[1]); len(rs) > 0 {
				fields = append(fields, fmt.Sprintf("%.2fx", median(rs)),
					fmt.Sprintf("%.2f-%.2f", slices.Min(rs), slices.Max(rs)))
			} else {
				fields = append(fields, "-", "-")
			}
		}
		for _, c := range rr.cells {
			if len(c.allocs) == 0 {
				fields = append(fields, "-")
			} else {
				fields = append(fields, fmtAllocs(median(c.allocs)))
			}
		}
		lines = append(lines, fields)
	}
	writeTable(w, hdr, lines)
	for _, rr := range gr.rows {
		if rr.repeated {
			rs := ratios(rr.cells[0], rr.cells[1])
			note(w, fmt.Sprintf("repeated: %q: its ratios ranged %.2f-%.2f over the first %d rounds (wider than -spread), so it ran %d rounds; figures above are over all of them (now %.2f-%.2f)",
				rr.row.name, rr.firstLo, rr.firstHi, rr.rounds/2, rr.rounds, slices.Min(rs), slices.Max(rs)))
		}
		for i, c := range rr.cells {
			if u := median(c.util); len(c.util) > 0 && u < waitUtil {
				note(w, fmt.Sprintf("waits: %q / %s: the process was on a CPU for only %.0f%% of the elapsed time (a harness that waits, or a busy machine)",
					rr.row.name, g.cols[i], 100*u))
			}
		}
	}
	if g.note != "" {
		note(w, g.note)
	}
	if g.extra != nil {
		note(w, g.extra())
	}
	for _, e := range errs {
		note(w, "error: "+e)
	}
}

// waitUtil is the CPU/elapsed share under which a cell is reported as
// waiting. Every row keeps at least one goroutine running, so on a machine
// with a free core this share is near 1 or above; crypto/tls's TLS 1.3
// handshake, when the harness closed it with tls.Conn.Close over net.Pipe,
// ran at 0.2%.
const waitUtil = 0.1

func fmtCell(c *cell) string {
	switch {
	case c.err != nil:
		return "error"
	case len(c.tput) == 0:
		return "-"
	}
	v := median(c.tput)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func fmtAllocs(a float64) string {
	if r := math.Round(a); math.Abs(a-r) < 0.005 {
		return fmt.Sprintf("%d", int64(r))
	}
	return fmt.Sprintf("%.2f", a)
}
