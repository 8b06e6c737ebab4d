// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"flag"
	"fmt"
	"image/color"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The scaling group: full handshakes per second against the number of
// concurrent clients, and bulk MB/s against the number of connections
// sending at once, for every stack of connStacks, at GOMAXPROCS 1 and 2.
// One server on loopback TCP, the clients in this process. Each point runs
// for -scaletime, -rounds times (at most 3); the median is kept. Figures
// are per CPU-second of the process (both ends) and per elapsed second:
// the first says what contention costs (a lock that made cores spin would
// lower it), the second what the machine delivers with that many cores.
var (
	scaleTime = flag.Duration("scaletime", 400*time.Millisecond, "scaling group: duration of one point")
	chartDir  = flag.String("charts", ".", "scaling group: directory the SVG charts are written to")
)

var (
	scaleClients = []int{1, 4, 16, 64, 256}
	scaleConns   = []int{1, 2, 4, 8, 16, 32, 64}
	scaleProcs   = []int{1, 2}
)

func init() {
	register(&group{name: "scaling", custom: runScaling})
}

type scalePoint struct {
	x           int
	cpu, wall   float64 // per CPU-second, per elapsed second
	err         error
	procs       int
	stack, kind string
}

func runScaling(w, progress io.Writer, rounds int) {
	rounds = min(max(rounds, 1), 3)
	var hs, bulk []scalePoint
	for _, st := range connStacks {
		s, err := st.mk()
		for _, p := range scaleProcs {
			for _, c := range scaleClients {
				fmt.Fprintf(progress, "scaling: %s, GOMAXPROCS=%d, %d clients handshaking\n", st.name, p, c)
				pt := scalePoint{x: c, procs: p, stack: st.name, kind: "handshakes", err: err}
				if err == nil {
					pt.cpu, pt.wall, pt.err = medianPoint(rounds, func() (float64, time.Duration, time.Duration, error) {
						return scaleHandshakes(s, p, c)
					})
				}
				hs = append(hs, pt)
			}
			for _, c := range scaleConns {
				fmt.Fprintf(progress, "scaling: %s, GOMAXPROCS=%d, %d connections sending\n", st.name, p, c)
				pt := scalePoint{x: c, procs: p, stack: st.name, kind: "bulk", err: err}
				if err == nil {
					pt.cpu, pt.wall, pt.err = medianPoint(rounds, func() (float64, time.Duration, time.Duration, error) {
						n, cpu, wall, err := scaleBulk(s, p, c)
						return n / 1e6, cpu, wall, err
					})
				}
				bulk = append(bulk, pt)
			}
		}
	}
	for _, ch := range []struct {
		name, file, title, ylabel, xlabel, what, xname string
		pts                                            []scalePoint
	}{
		{"scaling-handshakes", "scaling-handshakes.svg", "Full handshakes per CPU-second", "handshakes / CPU-s", "concurrent clients",
			"full handshakes per second against concurrent clients: no resumption, each client dialling, handshaking and closing in a loop.", "clients", hs},
		{"scaling-bulk", "scaling-bulk.svg", "Bulk transfer per CPU-second", "MB / CPU-s", "connections sending at once",
			"bulk MB/s against connections sending at once: each established connection writing 256 KiB at a time, the server reading and discarding.", "conns", bulk},
	} {
		heading(w, ch.name)
		printScale(w, ch.xname, ch.pts)
		note(w, ch.what)
		note(w, fmt.Sprintf("One server on loopback TCP, the clients in this process; each point %v, the median of %d; per CPU-s: per CPU-second of the process", *scaleTime, rounds))
		note(w, "(both ends), what contention costs; per s: per elapsed second, what the machine delivers with that many cores.")
		path := filepath.Join(*chartDir, ch.file)
		if err := drawScale(path, ch.title, ch.xlabel, ch.ylabel, ch.pts); err != nil {
			note(w, fmt.Sprintf("chart %s: %v", path, err))
		} else {
			note(w, fmt.Sprintf("chart: %s", path))
		}
	}
}

// medianPoint runs f rounds times and returns the median rates.
func medianPoint(rounds int, f func() (float64, time.Duration, time.Duration, error)) (cpu, wall float64, err error) {
	var cs, ws []float64
	for range rounds {
		n, c, wl, err := f()
		if err != nil {
			return 0, 0, err
		}
		if c > 0 {
			cs = append(cs, n/c.Seconds())
		}
		ws = append(ws, n/wl.Seconds())
	}
	return median(cs), median(ws), nil
}

// timed runs work under GOMAXPROCS procs and returns the process CPU time
// and the elapsed time it took.
func timed(procs int, work func()) (cpu, wall time.Duration) {
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	runtime.GC()
	c0, _ := processCPU()
	t0 := time.Now()
	work()
	wall = time.Since(t0)
	c1, _ := processCPU()
	return c1 - c0, wall
}

func scaleHandshakes(s *side, procs, clients int) (float64, time.Duration, time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, err
	}
	defer ln.Close()
	go serve(ln, s)
	addr := ln.Addr().String()
	var count atomic.Int64
	var firstErr atomic.Value
	cpu, wall := timed(procs, func() {
		deadline := time.Now().Add(*scaleTime)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					raw, err := net.Dial("tcp", addr)
					if err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
					cc := s.client(i, raw)
					err = cc.Handshake()
					closeAbortive(cc, raw)
					if err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
					count.Add(1)
				}
			}()
		}
		wg.Wait()
	})
	if err, ok := firstErr.Load().(error); ok {
		return 0, 0, 0, err
	}
	return float64(count.Load()), cpu, wall, nil
}

func scaleBulk(s *side, procs, conns int) (float64, time.Duration, time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, err
	}
	defer ln.Close()
	type pair struct {
		client io.WriteCloser
		server io.Reader
		raw    net.Conn
	}
	pairs := make([]pair, conns)
	defer func() {
		for _, p := range pairs {
			if p.raw != nil {
				closeAbortive(p.raw, p.raw)
			}
		}
	}()
	for i := range pairs {
		cc, err := connectPair(ln, s, i, &pairs[i].server)
		if err != nil {
			return 0, 0, 0, err
		}
		pairs[i].client = cc.(io.WriteCloser)
		pairs[i].raw = cc.(interface{ NetConn() net.Conn }).NetConn()
	}
	chunk := randBytes(256 << 10)
	var received atomic.Int64
	var stop atomic.Bool
	cpu, wall := timed(procs, func() {
		var wg sync.WaitGroup
		for i := range pairs {
			wg.Add(2)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					if _, err := pairs[i].client.Write(chunk); err != nil {
						return
					}
				}
				pairs[i].client.Close()
			}()
			go func() {
				defer wg.Done()
				buf := make([]byte, 64<<10)
				for {
					n, err := pairs[i].server.Read(buf)
					received.Add(int64(n))
					if err != nil {
						return
					}
				}
			}()
		}
		time.Sleep(*scaleTime)
		stop.Store(true)
		wg.Wait()
	})
	return float64(received.Load()), cpu, wall, nil
}

func printScale(w io.Writer, xname string, pts []scalePoint) {
	var xs []int
	for _, p := range pts {
		if !slices.Contains(xs, p.x) {
			xs = append(xs, p.x)
		}
	}
	hdr := []string{"stack", "GOMAXPROCS"}
	for _, x := range xs {
		hdr = append(hdr, fmt.Sprintf("%d %s per CPU-s", x, xname), "per s")
	}
	var rows [][]string
	for i := 0; i < len(pts); i += len(xs) {
		line := []string{pts[i].stack, fmt.Sprint(pts[i].procs)}
		for _, p := range pts[i : i+len(xs)] {
			if p.err != nil {
				line = append(line, "error", "")
				continue
			}
			line = append(line, fmt.Sprintf("%.0f", p.cpu), fmt.Sprintf("%.0f", p.wall))
		}
		rows = append(rows, line)
	}
	writeTable(w, hdr, rows)
	for _, p := range pts {
		if p.err != nil {
			note(w, fmt.Sprintf("error: %s, GOMAXPROCS=%d, %d %s: %v", p.stack, p.procs, p.x, xname, p.err))
		}
	}
}

// drawScale writes one line per stack and GOMAXPROCS (dashed for 1) on a
// log2 x axis.
func drawScale(path, title, xlabel, ylabel string, pts []scalePoint) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel + " (log scale)"
	p.Y.Label.Text = ylabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	palette := []color.Color{
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
		color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	}
	var stacks []string
	for _, pt := range pts {
		if !slices.Contains(stacks, pt.stack) {
			stacks = append(stacks, pt.stack)
		}
	}
	for si, st := range stacks {
		for _, procs := range scaleProcs {
			var xy plotter.XYs
			for _, pt := range pts {
				if pt.stack == st && pt.procs == procs && pt.err == nil && pt.cpu > 0 {
					xy = append(xy, plotter.XY{X: float64(pt.x), Y: pt.cpu})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, s, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			c := palette[si%len(palette)]
			l.Color, s.Color = c, c
			l.Width = vg.Points(1.5)
			s.Shape = draw.CircleGlyph{}
			if procs == 1 {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				s.Shape = draw.BoxGlyph{}
			}
			p.Add(l, s)
			p.Legend.Add(fmt.Sprintf("%s, GOMAXPROCS=%d", st, procs), l, s)
		}
	}
	p.Y.Min = 0
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return p.Save(9*vg.Inch, 6*vg.Inch, path)
}
