// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command mutation removes the module's security checks one at a time and
// runs the tests that should notice: every mutant must make a test fail.
//
//	go run ./internal/mutation [-list internal/mutation/mutants.txt] [-only regexp] [-n] [-v]
//
// The mutants are applied in a temporary copy of the module, never in the
// checkout, so that an interrupted run leaves the tree as it was and a
// build reading the checkout meanwhile never sees a mutated file. Each
// entry of the list names the file, an exact snippet that must occur in it
// once, its replacement, and the test packages to run (see the list's
// header). The command prints a Markdown table, mutant by mutant, with the
// tests that failed (the mutant is killed) or "SURVIVED", and exits 1 if
// any mutant survived or no longer applies.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

type mutant struct {
	id, file, old, new string
	pkgs               []string
	run                string // optional -run pattern
	line               int    // in the list, for messages
}

func main() {
	list := flag.String("list", "internal/mutation/mutants.txt", "the list of mutants, relative to the module root")
	only := flag.String("only", "", "run only the mutants whose id matches this regexp")
	timeout := flag.Duration("timeout", 15*time.Minute, "time limit for one mutant's tests")
	verbose := flag.Bool("v", false, "print the test output of surviving and broken mutants")
	dry := flag.Bool("n", false, "only check that every snippet applies")
	flag.Parse()

	root, err := moduleRoot()
	if err != nil {
		fatal(err)
	}
	ms, err := parseList(filepath.Join(root, *list))
	if err != nil {
		fatal(err)
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fatal(err)
		}
		var keep []mutant
		for _, m := range ms {
			if re.MatchString(m.id) {
				keep = append(keep, m)
			}
		}
		ms = keep
	}
	// Every snippet is checked before anything runs: a list that no longer
	// matches the code is the first thing to fix.
	for _, m := range ms {
		src, err := os.ReadFile(filepath.Join(root, m.file))
		if err != nil {
			fatal(fmt.Errorf("%s (line %d): %w", m.id, m.line, err))
		}
		if n := bytes.Count(src, []byte(m.old)); n != 1 {
			fatal(fmt.Errorf("%s (line %d): the snippet occurs %d times in %s, want once: %q", m.id, m.line, n, m.file, m.old))
		}
	}

	if *dry {
		fmt.Fprintf(os.Stderr, "mutation: all %d snippets apply\n", len(ms))
		return
	}
	tmp, err := os.MkdirTemp("", "shangmi-mutation-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	// An interrupted run removes its copy too. Ctrl-C reaches the running
	// go test as well (same process group); a signal sent to this command
	// alone leaves that go test to finish in a directory that is gone.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		time.Sleep(time.Second)
		os.RemoveAll(tmp)
		os.Exit(2)
	}()
	if err := copyTree(root, tmp); err != nil {
		fatal(err)
	}

	fmt.Println("| mutant | file | result | failing tests |")
	fmt.Println("|---|---|---|---|")
	bad := 0
	for _, m := range ms {
		start := time.Now()
		result, killers, out := runMutant(tmp, m, *timeout)
		if result != "killed" {
			bad++
		}
		fmt.Printf("| %s | %s | %s | %s |\n", m.id, m.file, result, strings.Join(killers, ", "))
		fmt.Fprintf(os.Stderr, "mutation: %s: %s in %v\n", m.id, result, time.Since(start).Round(time.Second))
		if *verbose && result != "killed" {
			os.Stderr.Write(out)
		}
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "mutation: %d of %d mutants survived or did not build\n", bad, len(ms))
		os.RemoveAll(tmp) // os.Exit skips the deferred removal
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mutation: all %d mutants killed\n", len(ms))
}

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// runMutant applies m in the copy at dir, runs its tests and restores the
// file. result is "killed", "SURVIVED" or "BUILD FAILED" (the mutant is
// not valid Go: fix the list).
func runMutant(dir string, m mutant, timeout time.Duration) (result string, killers []string, out []byte) {
	path := filepath.Join(dir, m.file)
	orig, err := os.ReadFile(path)
	if err != nil {
		fatal(err)
	}
	mutated := bytes.Replace(orig, []byte(m.old), []byte(m.new), 1)
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		fatal(err)
	}
	defer func() {
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			fatal(err)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"test", "-short", "-count=1", "-failfast"}
	if m.run != "" {
		args = append(args, "-run", m.run)
	}
	args = append(args, m.pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if err == nil {
		return "SURVIVED", nil, out
	}
	if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
		return "BUILD FAILED", nil, out
	}
	seen := map[string]bool{}
	for _, sm := range failLine.FindAllSubmatch(out, -1) {
		name := string(sm[1])
		// A subtest's failure also fails its parent: name the deepest.
		if !seen[name] {
			seen[name] = true
			killers = append(killers, name)
		}
	}
	killers = deepest(killers)
	if len(killers) == 0 {
		if ctx.Err() != nil {
			killers = []string{"(timeout)"}
		} else {
			killers = []string{"(package failed: panic or TestMain)"}
		}
	}
	return "killed", killers, out
}

// deepest drops the names that are a prefix (parent) of another.
func deepest(names []string) []string {
	var keep []string
	for _, n := range names {
		parent := false
		for _, o := range names {
			if o != n && strings.HasPrefix(o, n+"/") {
				parent = true
				break
			}
		}
		if !parent {
			keep = append(keep, n)
		}
	}
	sort.Strings(keep)
	if len(keep) > 4 {
		keep = append(keep[:4], fmt.Sprintf("and %d more", len(keep)-4))
	}
	return keep
}

// parseList reads the list: entries start with "== id"; the lines after it
// are "key: value" with keys file, old, new, pkgs (space-separated) and
// run. In old and new, \n, \t and \\ are escapes. '#' starts a comment
// line.
func parseList(name string) ([]mutant, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ms []mutant
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		case strings.HasPrefix(trimmed, "== "):
			id := strings.TrimSpace(trimmed[3:])
			if ids[id] {
				return nil, fmt.Errorf("line %d: duplicate id %s", n, id)
			}
			ids[id] = true
			ms = append(ms, mutant{id: id, line: n})
			continue
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("line %d: a key before the first == entry", n)
		}
		m := &ms[len(ms)-1]
		key, value, ok := strings.Cut(trimmed, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: want key: value", n)
		}
		value = strings.TrimPrefix(value, " ")
		switch key {
		case "file":
			m.file = value
		case "old":
			m.old = unescape(value)
		case "new":
			m.new = unescape(value)
		case "pkgs":
			m.pkgs = strings.Fields(value)
		case "run":
			m.run = value
		default:
			return nil, fmt.Errorf("line %d: unknown key %q", n, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.file == "" || m.old == "" || len(m.pkgs) == 0 || m.old == m.new {
			return nil, fmt.Errorf("line %d: %s needs file, old, new (different from old) and pkgs", m.line, m.id)
		}
	}
	return ms, nil
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a module")
	}
	return filepath.Dir(gomod), nil
}

// copyTree copies the module, without .git and the nested modules, to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() && rel != "." {
			// A nested module (examples/bench, primitives/*/_asm) is
			// not part of the main module's tests.
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutation:", err)
	os.Exit(2)
}
