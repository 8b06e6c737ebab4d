// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command fuzzrun runs the module's fuzz targets one after another for a
// set time each, keeps what the fuzzer found interesting as seed corpus,
// measures the coverage the kept corpus reaches, and appends a row per
// run to a log, so that a campaign of many hours can be spread over
// several sittings and its total read back:
//
//	go run ./internal/fuzzrun [-fuzztime 10m] [-parallel 1] [-todo] [-only regexp] [-log testdata/fuzz-runs.tsv]
//	go run ./internal/fuzzrun -report   # totals per target, from the log
//
// For each target it runs `go test -run=^$ -fuzz=^Target$`, copies the new
// entries of Go's fuzz cache for the target into the package's
// testdata/fuzz/Target (where plain `go test`, and so CI, runs them), and
// then runs the target over that corpus alone with -coverpkg set to its
// package, whose statement coverage is the figure recorded. With -todo it
// skips the targets whose logged time already reaches -fuzztime. A target
// that fails stops nothing: the failure is logged (Go has written the
// failing input under testdata/fuzz) and the run goes on; the command
// exits 1 at the end if any failed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type target struct {
	pkg  string // import path
	dir  string // directory, relative to the module root
	name string
}

func (t target) id() string { return t.dir + " " + t.name }

func main() {
	fuzztime := flag.Duration("fuzztime", 10*time.Minute, "time each target is fuzzed")
	parallel := flag.Int("parallel", 1, "fuzzing workers per target")
	only := flag.String("only", "", "run only the targets whose \"dir Name\" matches this regexp")
	todo := flag.Bool("todo", false, "skip targets whose logged time already reaches -fuzztime")
	logPath := flag.String("log", "testdata/fuzz-runs.tsv", "the campaign log, relative to the module root")
	report := flag.Bool("report", false, "print the totals per target from the log and exit")
	flag.Parse()

	root, err := moduleRoot()
	if err != nil {
		fatal(err)
	}
	if err := os.Chdir(root); err != nil {
		fatal(err)
	}
	done, err := readLog(*logPath)
	if err != nil {
		fatal(err)
	}
	targets, err := listTargets()
	if err != nil {
		fatal(err)
	}
	if *report {
		printReport(targets, done)
		return
	}
	var re *regexp.Regexp
	if *only != "" {
		if re, err = regexp.Compile(*only); err != nil {
			fatal(err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cache, err := goEnv("GOCACHE")
	if err != nil {
		fatal(err)
	}
	failed := 0
	for _, t := range targets {
		if re != nil && !re.MatchString(t.id()) {
			continue
		}
		if *todo && done[t.id()].passed >= *fuzztime {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		r := runTarget(ctx, t, *fuzztime, *parallel, cache)
		if ctx.Err() != nil && r.result != "FAIL" {
			// Interrupted: a partial run is not a run of -fuzztime.
			break
		}
		if r.result == "FAIL" {
			failed++
		}
		fmt.Printf("%-28s %-34s %6s %10d execs %4d new %5d kept  %s  %s\n",
			t.dir, t.name, r.time.Round(time.Second), r.execs, r.newInputs, r.kept, r.coverage, r.result)
		if err := appendLog(*logPath, t, r); err != nil {
			fatal(err)
		}
	}
	if failed > 0 {
		fmt.Printf("%d target(s) failed: the failing inputs are under their testdata/fuzz\n", failed)
		os.Exit(1)
	}
}

type result struct {
	time            time.Duration
	execs           int64
	newInputs, kept int
	coverage        string
	result          string // ok or FAIL
	load            string
}

var (
	elapsedRE = regexp.MustCompile(`fuzz: elapsed: (\w+), execs: (\d+) `)
	newRE     = regexp.MustCompile(`new interesting: (\d+)`)
	coverRE   = regexp.MustCompile(`coverage: ([\d.]+% of statements)`)
)

func runTarget(ctx context.Context, t target, d time.Duration, parallel int, cache string) result {
	r := result{result: "ok", load: loadAverage()}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "test", "-run=^$", "-fuzz=^"+t.name+"$",
		"-fuzztime="+d.String(), "-parallel="+strconv.Itoa(parallel), "./"+t.dir)
	out, err := cmd.CombinedOutput()
	r.time = time.Since(start)
	if err != nil && ctx.Err() == nil {
		r.result = "FAIL"
		os.Stdout.Write(tail(out, 40))
	}
	// The fuzzer's own clock, without the instrumented build before it.
	if m := elapsedRE.FindAllSubmatch(out, -1); len(m) > 0 {
		last := m[len(m)-1]
		if e, err := time.ParseDuration(string(last[1])); err == nil {
			r.time = e
		}
		r.execs, _ = strconv.ParseInt(string(last[2]), 10, 64)
	}
	if m := newRE.FindAllSubmatch(out, -1); len(m) > 0 {
		r.newInputs, _ = strconv.Atoi(string(m[len(m)-1][1]))
	}
	kept, err := keepCorpus(t, cache)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzrun:", err)
	}
	r.kept = kept
	cov := exec.CommandContext(ctx, "go", "test", "-count=1", "-run=^"+t.name+"$", "-coverpkg="+t.pkg, "./"+t.dir)
	covOut, _ := cov.CombinedOutput()
	if m := coverRE.FindSubmatch(covOut); m != nil {
		r.coverage = string(m[1])
	} else {
		r.coverage = "coverage ?"
	}
	return r
}

// keepCorpus copies the cache's entries for t that the package's corpus
// does not have yet, and returns the size of the corpus.
func keepCorpus(t target, cache string) (int, error) {
	from := filepath.Join(cache, "fuzz", t.pkg, t.name)
	to := filepath.Join(t.dir, "testdata", "fuzz", t.name)
	entries, err := os.ReadDir(from)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		dst := filepath.Join(to, e.Name())
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return 0, err
		}
		if err := os.MkdirAll(to, 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return 0, err
		}
	}
	kept, err := os.ReadDir(to)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	return len(kept), nil
}

// listTargets asks go test for every package's fuzz targets.
func listTargets() ([]target, error) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	wd, _ := os.Getwd()
	var ts []target
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, dir, _ := strings.Cut(line, " ")
		rel, err := filepath.Rel(wd, dir)
		if err != nil {
			return nil, err
		}
		if !hasFuzz(dir) {
			continue
		}
		lo, err := exec.Command("go", "test", "-list=^Fuzz", "./"+rel).Output()
		if err != nil {
			return nil, fmt.Errorf("go test -list ./%s: %v", rel, err)
		}
		for _, name := range strings.Fields(string(lo)) {
			if strings.HasPrefix(name, "Fuzz") {
				ts = append(ts, target{pkg: pkg, dir: rel, name: name})
			}
		}
	}
	return ts, nil
}

func hasFuzz(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte("\nfunc Fuzz")) {
			return true
		}
	}
	return false
}

const logHeader = "date\tdir\ttarget\tseconds\texecs\tnew\tkept\tcoverage\tresult\tload\tgo\n"

func appendLog(path string, t target, r result) error {
	_, err := os.Stat(path)
	fresh := errors.Is(err, os.ErrNotExist)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if fresh {
		io.WriteString(f, logHeader)
	}
	goVersion, _ := goEnv("GOVERSION")
	_, err = fmt.Fprintf(f, "%s\t%s\t%s\t%.0f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n",
		time.Now().UTC().Format(time.RFC3339), t.dir, t.name, r.time.Seconds(), r.execs,
		r.newInputs, r.kept, r.coverage, r.result, r.load, goVersion)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

type total struct {
	time     time.Duration
	passed   time.Duration // in runs that ended ok: what counts toward 10 minutes
	execs    int64
	runs     int
	coverage string // the last run's
	failed   bool
}

func readLog(path string) (map[string]total, error) {
	m := map[string]total{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		fields := strings.Split(sc.Text(), "\t")
		if first || len(fields) < 9 {
			continue
		}
		id := fields[1] + " " + fields[2]
		secs, _ := strconv.ParseFloat(fields[3], 64)
		execs, _ := strconv.ParseInt(fields[4], 10, 64)
		t := m[id]
		d := time.Duration(secs * float64(time.Second))
		t.time += d
		t.execs += execs
		t.runs++
		t.coverage = fields[7]
		t.failed = t.failed || fields[8] == "FAIL"
		if fields[8] != "FAIL" {
			t.passed += d
		}
		m[id] = t
	}
	return m, sc.Err()
}

func printReport(targets []target, done map[string]total) {
	var all time.Duration
	met := 0
	sort.Slice(targets, func(i, j int) bool { return targets[i].id() < targets[j].id() })
	fmt.Println("| package | target | time | executions | coverage of its package (kept corpus) |")
	fmt.Println("|---|---|---:|---:|---|")
	for _, t := range targets {
		d := done[t.id()]
		all += d.time
		if d.passed >= 10*time.Minute {
			met++
		}
		cov := d.coverage
		if d.runs == 0 {
			cov = "not run"
		}
		if d.failed {
			cov += fmt.Sprintf(" (a run failed; %s in runs that passed)", d.passed.Round(time.Second))
		}
		fmt.Printf("| %s | %s | %s | %d | %s |\n", t.dir, t.name, d.time.Round(time.Second), d.execs, cov)
	}
	fmt.Printf("\n%d targets, %d of them fuzzed for 10 minutes or more in runs that passed; %.1f hours in all.\n", len(targets), met, all.Hours())
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out)), err
}

// moduleRoot asks the go command for the main module's directory.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %v (run inside the module)", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func tail(b []byte, n int) []byte {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "fuzzrun:", err)
	os.Exit(2)
}
