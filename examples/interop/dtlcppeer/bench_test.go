// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dtlcppeer

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gdtlcp "gitee.com/Trisia/gotlcp/dtlcp"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/dtlcp"
)

// pipeEnd is one end of an in-memory datagram pipe that both libraries
// can run over: a connected net.Conn (ours) and a net.PacketConn
// (gotlcp's). Datagrams go through a fixed set of buffers, so the pipe
// itself allocates nothing; a full pipe blocks the writer (no loss).
type pipeEnd struct {
	data, free    chan []byte // to the peer, and the peer's returned buffers
	in, inFree    chan []byte
	local, remote net.Addr
	done          chan struct{}
	deadline      time.Time
	timer         *time.Timer
	made          atomic.Int32
}

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

func newPipe() (*pipeEnd, *pipeEnd) {
	const n = 64
	ab, abFree, ba, baFree := make(chan []byte, n), make(chan []byte, n), make(chan []byte, n), make(chan []byte, n)
	done := make(chan struct{})
	a := &pipeEnd{data: ab, free: abFree, in: ba, inFree: baFree, local: pipeAddr("a"), remote: pipeAddr("b"), done: done}
	b := &pipeEnd{data: ba, free: baFree, in: ab, inFree: abFree, local: pipeAddr("b"), remote: pipeAddr("a"), done: done}
	return a, b
}

func (p *pipeEnd) Read(b []byte) (int, error) {
	var timeout <-chan time.Time
	if !p.deadline.IsZero() {
		d := time.Until(p.deadline)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		if p.timer == nil {
			p.timer = time.NewTimer(d)
		} else {
			p.timer.Reset(d)
		}
		timeout = p.timer.C
	}
	select {
	case d := <-p.in:
		n := copy(b, d)
		p.inFree <- d
		return n, nil
	case <-timeout:
		return 0, os.ErrDeadlineExceeded
	case <-p.done:
		return 0, net.ErrClosed
	}
}

func (p *pipeEnd) Write(b []byte) (int, error) {
	select {
	case buf := <-p.free:
		buf = append(buf[:0], b...)
		p.data <- buf
		return len(b), nil
	case <-p.done:
		return 0, net.ErrClosed
	default:
	}
	// Buffers are made as needed, up to the pipe's depth, and then
	// recycled: a handshake needs a few, a stream of records the lot.
	var buf []byte
	if p.made.Add(1) <= int32(cap(p.free)) {
		buf = make([]byte, 0, max(len(b), 2048))
	} else {
		select {
		case buf = <-p.free:
		case <-p.done:
			return 0, net.ErrClosed
		}
	}
	// A recycled buffer too small for b grows once.
	buf = append(buf[:0], b...)
	p.data <- buf
	return len(b), nil
}

func (p *pipeEnd) ReadFrom(b []byte) (int, net.Addr, error) {
	n, err := p.Read(b)
	return n, p.remote, err
}
func (p *pipeEnd) WriteTo(b []byte, _ net.Addr) (int, error) { return p.Write(b) }
func (p *pipeEnd) Close() error                              { return nil }
func (p *pipeEnd) LocalAddr() net.Addr                       { return p.local }
func (p *pipeEnd) RemoteAddr() net.Addr                      { return p.remote }
func (p *pipeEnd) SetDeadline(t time.Time) error             { p.deadline = t; return nil }
func (p *pipeEnd) SetReadDeadline(t time.Time) error         { p.deadline = t; return nil }
func (p *pipeEnd) SetWriteDeadline(time.Time) error          { return nil }

// closeBoth ends the pipe.
func closeBoth(p *pipeEnd) { close(p.done) }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// side is one library's way to make a connected client and server.
type side struct {
	name      string
	handshake func(t testing.TB, suite uint16) (client, server net.Conn, stop func())
}

// gotlcp's client answers a HelloVerifyRequest only when its
// retransmission timer expires (INTEROP.md §11.7), and its server always
// sends one: its timer is set short here so that a handshake does not wait
// a second; the CPU clock does not count the wait either way.
var theirTimer = 200 * time.Millisecond

func sides(t testing.TB) []side {
	// Configurations (certificates, keys, pools) are made once, outside
	// the clock.
	oursS := ourServerConfig(t, false)
	oursS.SessionCacheSize = -1
	oursS.MinVersion, oursS.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLCP
	oursC := map[uint16]*tlcp.Config{}
	theirsS := theirServerConfig(t, false)
	theirsS.SessionCache = nil
	theirsS.InitialRetransmitTimeout = 200 * time.Millisecond
	theirsC := map[uint16]*gdtlcp.Config{}
	for _, suite := range suites {
		c := ourClientConfig(t, suite, false)
		c.MinVersion, c.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLCP
		oursC[suite] = c
		g := theirClientConfig(t, suite, false)
		g.InitialRetransmitTimeout = theirTimer
		theirsC[suite] = g
	}
	ours := side{name: "shangmi", handshake: func(t testing.TB, suite uint16) (net.Conn, net.Conn, func()) {
		a, b := newPipe()
		c := dtlcp.Client(a, nil, oursC[suite])
		s := dtlcp.Server(b, nil, oursS)
		errc := make(chan error, 1)
		go func() { errc <- s.Handshake() }()
		if err := c.Handshake(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		return c, s, func() { closeBoth(a) }
	}}
	theirs := side{name: "gotlcp", handshake: func(t testing.TB, suite uint16) (net.Conn, net.Conn, func()) {
		a, b := newPipe()
		c := gdtlcp.Client(a, b.local, theirsC[suite])
		s := gdtlcp.Server(b, a.local, theirsS)
		errc := make(chan error, 1)
		go func() { errc <- s.Handshake() }()
		if err := c.Handshake(); err != nil {
			t.Fatalf("gotlcp client: %v (server: %v)", err, <-errc)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		return c, s, func() { closeBoth(a) }
	}}
	return []side{ours, theirs}
}

// handshakesPerCPUSecond makes n full handshakes.
func handshakesPerCPUSecond(t testing.TB, s side, suite uint16, n int) float64 {
	// Certificates, keys and configs are made outside the clock.
	start := cpuNow()
	for range n {
		_, _, stop := s.handshake(t, suite)
		stop()
	}
	return float64(n) / (cpuNow() - start).Seconds()
}

// records sends n records of size bytes from client to server, and
// returns records per CPU-second and heap allocations per record.
func records(t testing.TB, s side, suite uint16, n, size int) (perSec, allocs float64) {
	c, srv, stop := s.handshake(t, suite)
	defer stop()
	msg := make([]byte, size)
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for i := 0; i < n; i++ {
			if _, err := srv.Read(buf); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	// Warm up the buffers.
	for range 16 {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := cpuNow()
	for i := 16; i < n; i++ {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cpu := cpuNow() - start
	runtime.ReadMemStats(&after)
	m := n - 16
	return float64(m) / cpu.Seconds(), float64(after.Mallocs-before.Mallocs) / float64(m)
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	sort.Float64s(y)
	return y[len(y)/2]
}

// TestCompare measures both libraries, interleaved round by round, with
// the process CPU clock (both ends of the pipe run in this process): full
// handshakes and 1 KiB application-data records, and the heap
// allocations per record of both ends. BENCH=1 runs it.
func TestCompare(t *testing.T) {
	if os.Getenv("BENCH") != "1" {
		t.Skip("BENCH=1 runs the comparison")
	}
	rounds := 5
	ss := sides(t)
	type row struct {
		name string
		run  func(s side) (float64, float64)
	}
	rows := []row{
		{"full handshake ECC_SM4_GCM_SM3, handshakes/CPU-s", func(s side) (float64, float64) {
			return handshakesPerCPUSecond(t, s, ciphersuite.ECC_SM4_GCM_SM3, 20), 0
		}},
		{"full handshake ECC_SM4_CBC_SM3, handshakes/CPU-s", func(s side) (float64, float64) {
			return handshakesPerCPUSecond(t, s, ciphersuite.ECC_SM4_CBC_SM3, 20), 0
		}},
		{"1 KiB records ECC_SM4_GCM_SM3, records/CPU-s", func(s side) (float64, float64) {
			return records(t, s, ciphersuite.ECC_SM4_GCM_SM3, 20000, 1024)
		}},
		{"1 KiB records ECC_SM4_CBC_SM3, records/CPU-s", func(s side) (float64, float64) {
			return records(t, s, ciphersuite.ECC_SM4_CBC_SM3, 20000, 1024)
		}},
	}
	fmt.Printf("%d rounds, interleaved; medians; process CPU clock; %s %s/%s\n", rounds, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, r := range rows {
		vals := make([][]float64, len(ss))
		allocs := make([][]float64, len(ss))
		var ratios []float64
		for range rounds {
			var v [2]float64
			for i, s := range ss {
				x, a := r.run(s)
				vals[i] = append(vals[i], x)
				allocs[i] = append(allocs[i], a)
				v[i] = x
			}
			ratios = append(ratios, v[0]/v[1])
		}
		if strings.Contains(r.name, "records") {
			fmt.Printf("%-52s shangmi %9.0f (%.1f allocs/rec)  gotlcp %9.0f (%.1f allocs/rec)  ratio %.2fx (%.2f-%.2f)\n",
				r.name, median(vals[0]), median(allocs[0]), median(vals[1]), median(allocs[1]), median(ratios), slices.Min(ratios), slices.Max(ratios))
		} else {
			fmt.Printf("%-52s shangmi %9.0f  gotlcp %9.0f  ratio %.2fx (%.2f-%.2f)\n",
				r.name, median(vals[0]), median(vals[1]), median(ratios), slices.Min(ratios), slices.Max(ratios))
		}
	}
}
