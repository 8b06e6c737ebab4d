// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bufio"
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
	"text/tabwriter"
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
	flag.Parse()

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
	printHeader(os.Stdout, *rounds, *per)
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
	pprof.StopCPUProfile()
	for _, gr := range results {
		printGroup(os.Stdout, gr)
	}
}

// useCPUClock makes throughput per CPU-second of the whole process instead
// of per elapsed second. On a machine shared with other work, elapsed time
// includes the time this process waited for a core; CPU time does not. For
// the rows that run two goroutines (handshakes and bulk transfer over
// net.Pipe) it counts both ends' work, as a server's capacity would.
var useCPUClock = false

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
	byRnd  map[int]float64
}

type rowResult struct {
	row   *row
	cells []*cell
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
				for _, c := range rr.cells {
					if c.fn == nil || c.err != nil {
						continue
					}
					tput, allocs, err := measure(c.fn, rr.row)
					if err != nil {
						c.err = err
						fmt.Fprintf(progress, "%s / %s: %v\n", gr.g.name, rr.row.name, err)
						continue
					}
					c.tput = append(c.tput, tput)
					c.allocs = append(c.allocs, allocs)
					c.byRnd[rnd] = tput
				}
			}
		}
	}
	return out
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
// row's unit and allocations per operation.
func measure(fn benchFunc, r *row) (tput, allocs float64, err error) {
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
		return 0, 0, err
	}
	if panicked != nil {
		return 0, 0, fmt.Errorf("panic: %v", panicked)
	}
	if res.N == 0 || res.T <= 0 {
		return 0, 0, errors.New("benchmark did not run")
	}
	secs := res.T.Seconds()
	if useCPUClock && lastN == res.N && lastCPU > 0 {
		secs = lastCPU.Seconds()
	}
	switch r.unit {
	case mbPerSec:
		tput = float64(r.bytes) * float64(res.N) / secs / 1e6
	default:
		tput = float64(res.N) / secs
	}
	return tput, float64(res.MemAllocs) / float64(res.N), nil
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

func printHeader(w io.Writer, rounds int, per time.Duration) {
	fmt.Fprintf(w, "shangmi benchmark: ours vs %s vs Go standard library\n", gmsmVersion())
	fmt.Fprintf(w, "go: %s %s/%s, GOMAXPROCS=%d, NumCPU=%d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Fprintf(w, "cpu: %s; features: %s\n", cpuName(), cpuFeatures())
	tags := "none (assembly paths enabled where a package has them)"
	if pureGo {
		tags = "purego (every package restricted to its pure Go code)"
	}
	fmt.Fprintf(w, "build tags: %s\n", tags)
	if useCPUClock {
		fmt.Fprintf(w, "clock: process CPU time (MB/s and ops/s are per CPU-second of this process; -clock wall for elapsed time)\n")
	} else {
		fmt.Fprintf(w, "clock: elapsed (wall) time\n")
	}
	fmt.Fprintf(w, "method: %d rounds, each row's implementations measured one after another for ~%v each (testing.Benchmark); figures are medians over rounds; ratio = median of per-round ratios, (min-max) their range\n", rounds, per)
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
	fmt.Fprintf(w, "\n== %s ==\n", g.name)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"row", "unit"}
	for _, rr := range gr.rows {
		hdr[0] = fmt.Sprintf("%-*s", max(len(hdr[0]), len(rr.row.name)), hdr[0])
	}
	hdr = append(hdr, g.cols...)
	hdr = append(hdr, g.ratio, "(min-max)")
	for _, c := range g.cols {
		hdr = append(hdr, "allocs/op "+c)
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	var errs []string
	width := len("row")
	for _, rr := range gr.rows {
		width = max(width, len(rr.row.name))
	}
	for _, rr := range gr.rows {
		// Pad the name here: tabwriter right-aligns every column, and row
		// names read better left-aligned.
		fields := []string{fmt.Sprintf("%-*s", width, rr.row.name), rr.row.unit.String()}
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
		fmt.Fprintln(tw, strings.Join(fields, "\t")+"\t")
	}
	tw.Flush()
	if g.note != "" {
		fmt.Fprintln(w, g.note)
	}
	if g.extra != nil {
		fmt.Fprintln(w, g.extra())
	}
	for _, e := range errs {
		fmt.Fprintln(w, "error:", e)
	}
}

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
