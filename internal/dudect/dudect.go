// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package dudect measures whether an operation's running time depends on
// its secret input, after Reparaz, Balasch and Verbauwhede, "Dude, is my
// code constant time?" (DATE 2017).
//
// An operation is run on inputs of two classes — typically one fixed,
// chosen to hit an edge case (a scalar with many zero windows, the longest
// CBC padding, a key of zero bytes), and one random — in an order drawn at
// random, so that anything else the machine does falls on both classes
// alike. Each run is timed with the CPU's counter. Welch's t-test then
// compares the two classes' times: on the raw times, on the times cropped
// at a ladder of percentiles (which removes the long tail interrupts and
// other processes add, and brings out differences hidden under it), and,
// as a second-order test, on the squared distances to each class's mean.
// The largest |t| is the result. Under the null hypothesis (no
// dependence) it stays within a few units however long the run; a real
// dependence makes it grow with the square root of the number of
// measurements. Following dudect, |t| above 4.5 is evidence of a leak;
// the tests of this module fail above Threshold, well above the noise a
// loaded machine adds, and print the value either way.
//
// Tests use Test, which runs for a few seconds; setting SHANGMI_DUDECT to a
// duration (e.g. SHANGMI_DUDECT=10m) makes every target run that long, for
// the long runs whose results the README records:
//
//	SHANGMI_DUDECT=10m go test -run ConstantTime -timeout 0 -v ./...
package dudect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"testing"
	"time"
)

// Threshold is the |t| above which Test fails. dudect reads 4.5 as "probably
// not constant time"; the short runs in CI share a busy machine, so they
// fail only well above that, and the value is printed for a reader to judge.
const Threshold = 10

// DefaultDuration is how long Test measures a target when SHANGMI_DUDECT is
// not set.
const DefaultDuration = 2 * time.Second

// Options control a measurement.
type Options struct {
	// Duration is the measuring time; 0 means SHANGMI_DUDECT or
	// DefaultDuration.
	Duration time.Duration
	// Batch is the largest number of inputs made, then timed, at a time;
	// 0 means 4096. Slow operations get smaller batches.
	Batch int
	// Seed seeds the class draw and the inputs; 0 means a random seed.
	Seed uint64
}

// Result is the outcome of a measurement.
type Result struct {
	N     [2]int     // measurements of class 0 and class 1 (all tests)
	Mean  [2]float64 // mean counter ticks per operation, by class
	MaxT  float64    // the largest |t| of all the tests
	Test  string     // the test that gave MaxT
	Tests int        // number of tests with enough measurements
}

func (r Result) String() string {
	return fmt.Sprintf("max |t| = %.2f (%s; %d tests), n = %d/%d, mean %.0f/%.0f ticks (%s)",
		r.MaxT, r.Test, r.Tests, r.N[0], r.N[1], r.Mean[0], r.Mean[1], Counter)
}

// Duration returns the measuring time set by SHANGMI_DUDECT, or def.
func Duration(def time.Duration) time.Duration {
	if s := os.Getenv("SHANGMI_DUDECT"); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d
		}
	}
	return def
}

// Long reports whether SHANGMI_DUDECT asks for a long run.
func Long() bool { return os.Getenv("SHANGMI_DUDECT") != "" }

// welch accumulates the two classes of one test (Welford's method).
type welch struct {
	n    [2]float64
	mean [2]float64
	m2   [2]float64
}

func (w *welch) add(class int, x float64) {
	w.n[class]++
	d := x - w.mean[class]
	w.mean[class] += d / w.n[class]
	w.m2[class] += d * (x - w.mean[class])
}

// t returns Welch's t statistic, or 0 while a class has too few values.
func (w *welch) t() float64 {
	if w.n[0] < minPerClass || w.n[1] < minPerClass {
		return 0
	}
	v0 := w.m2[0] / (w.n[0] - 1)
	v1 := w.m2[1] / (w.n[1] - 1)
	den := math.Sqrt(v0/w.n[0] + v1/w.n[1])
	if den == 0 {
		return 0
	}
	return (w.mean[0] - w.mean[1]) / den
}

// minPerClass is the fewest values per class before a test counts.
const minPerClass = 500

// crops is the number of percentile crops, as in dudect.
const crops = 100

// Measure times op on inputs made by input, of class 0 or 1 drawn at
// random, and returns the t-tests' result. input is called outside the
// timed region; it must return the input by value (or a pointer to memory
// it just made), so that both classes are read from fresh memory and a
// fixed class is not favoured by the cache.
func Measure[T any](opts Options, input func(class int, rnd *rand.Rand) T, op func(*T)) Result {
	batch := opts.Batch
	if batch <= 0 {
		batch = 4096
	}
	seed := opts.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	duration := opts.Duration
	if duration <= 0 {
		duration = Duration(DefaultDuration)
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// A collection in the middle of a batch costs what it costs whichever
	// class is running; collecting between batches only lowers the noise.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	// The first batch is small: it measures how long an input and an
	// operation take, so that a batch of slow ones (an SM2 decryption with
	// its encryption made as the input) stays a small part of the run.
	first := min(batch, 256)
	classes := make([]int, first)
	inputs := make([]T, first)
	times := make([]uint64, first)
	run := func() {
		for i := range inputs {
			classes[i] = rnd.IntN(2)
			inputs[i] = input(classes[i], rnd)
		}
		for i := range inputs {
			start := ticks()
			op(&inputs[i])
			times[i] = ticks() - start
		}
		clear(inputs) // let the collector have what the inputs hold
		runtime.GC()
	}

	// The first batch warms up caches and sets the crop thresholds; its
	// times are not used.
	began := time.Now()
	run()
	if per := time.Since(began) / time.Duration(first); per > 0 {
		batch = max(first, min(batch, int(duration/8/per)))
	}
	sorted := append([]uint64(nil), times...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var thresholds [crops]float64
	for k := range thresholds {
		p := 1 - math.Pow(0.5, 10*float64(k+1)/crops)
		thresholds[k] = float64(sorted[int(p*float64(len(sorted)-1))])
	}

	classes, inputs, times = make([]int, batch), make([]T, batch), make([]uint64, batch)

	var raw, second welch
	var cropped [crops]welch
	var res Result
	// Slow operations on a loaded machine may not reach minPerClass in the
	// time asked for: the run is then extended, up to four times as long.
	start := time.Now()
	deadline, limit := start.Add(duration), start.Add(4*duration)
	for now := time.Now(); now.Before(deadline) || (now.Before(limit) && (raw.n[0] < 2*minPerClass || raw.n[1] < 2*minPerClass)); now = time.Now() {
		run()
		for i, d := range times {
			c := classes[i]
			x := float64(d)
			raw.add(c, x)
			res.N[c]++
			for k := range cropped {
				if x < thresholds[k] {
					cropped[k].add(c, x)
				}
			}
			// The second-order test needs each class's mean: use the
			// raw test's, once it has settled.
			if raw.n[0] > 10000 && raw.n[1] > 10000 {
				dev := x - raw.mean[c]
				second.add(c, dev*dev)
			}
		}
	}
	res.Mean = raw.mean
	consider := func(w *welch, name string) {
		t := w.t()
		if w.n[0] >= minPerClass && w.n[1] >= minPerClass {
			res.Tests++
		}
		if math.Abs(t) > res.MaxT {
			res.MaxT, res.Test = math.Abs(t), name
		}
	}
	consider(&raw, "raw")
	for k := range cropped {
		consider(&cropped[k], fmt.Sprintf("cropped below %.0f ticks", thresholds[k]))
	}
	consider(&second, "second order")
	return res
}

// Test runs Measure for the test's duration, logs the result, and fails t
// if it is above Threshold, unless expectLeak is set: then it only logs
// (for the table-based fallbacks, whose leak is documented and measured,
// not hidden).
func Test[T any](t *testing.T, expectLeak bool, input func(class int, rnd *rand.Rand) T, op func(*T)) Result {
	t.Helper()
	if testing.Short() && !Long() {
		// The short runs are CI's emulated (qemu-user) and race-detector
		// passes, whose timings say nothing about the hardware's.
		t.Skip("timing is not measured in -short mode (set SHANGMI_DUDECT to measure anyway)")
	}
	res := Measure(Options{}, input, op)
	t.Logf("%s", res)
	if res.Tests == 0 {
		t.Fatalf("too few measurements (%d/%d) for a t-test: make the operation shorter or the run longer", res.N[0], res.N[1])
	}
	if res.MaxT > Threshold && !expectLeak {
		// A burst of load from other processes can, rarely, push one run
		// over the threshold (go test ./... runs packages side by side on
		// few cores). A dependence on the secret shows again in a fresh
		// run with fresh inputs; an accident of scheduling does not.
		t.Logf("above %d: measuring again", Threshold)
		again := Measure(Options{}, input, op)
		t.Logf("%s", again)
		if again.MaxT > Threshold {
			t.Errorf("timing depends on the secret class, in two runs: %s; %s", res, again)
		}
		res = again
	}
	return res
}
