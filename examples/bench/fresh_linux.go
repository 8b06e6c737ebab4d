// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// freshEnv names the copy a run re-executed itself from, so that the copy
// does not copy itself again and can remove its file.
const freshEnv = "SHANGMI_BENCH_FRESH_COPY"

// runFromFreshCopy copies the running executable to a new file and
// executes that instead. On the project's VMs one executable file, for as
// long as its pages stayed in the page cache, ran one kernel 2.5× slower
// (the README's page-cache effect), and `go run .` runs the same cached
// binary every time; a copy is written into new pages. It returns only if
// the copy cannot be made or run, or when this process is the copy.
func runFromFreshCopy() {
	if os.Getenv(freshEnv) != "" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	src, err := os.Open(self)
	if err != nil {
		return
	}
	defer src.Close()
	dst, err := os.CreateTemp("", "shangmi-bench-*")
	if err != nil {
		return
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(dst.Name(), 0o700)
	}
	if err == nil {
		env := append(os.Environ(), freshEnv+"="+dst.Name())
		err = syscall.Exec(dst.Name(), append([]string{dst.Name()}, os.Args[1:]...), env)
	}
	// Exec returns only on failure.
	os.Remove(dst.Name())
	fmt.Fprintln(os.Stderr, "bench: running in place, could not run from a fresh copy:", err)
}

// noteFreshCopy removes the copy's file (the running process keeps its
// pages) and says on stderr that the run is from a copy.
func noteFreshCopy() {
	if p := os.Getenv(freshEnv); p != "" {
		os.Remove(p)
		os.Unsetenv(freshEnv)
		fmt.Fprintln(os.Stderr, "bench: running from a fresh copy of the executable (-inplace to run the build itself)")
		ranFromCopy = true
	}
}
