// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The memory group: what connections keep on the heap. Every stack opens
// its connections over loopback TCP, both ends in this process, and the
// heap after a garbage collection is compared with the heap before, so a
// figure per connection counts both ends (client and server) of one
// connection, and the server's goroutine parked in Read as a server keeps
// one per connection. Three states:
//
//   - idle: handshake done, one 16-byte request and its 16-byte answer,
//     then nothing; the server's goroutine waits in Read.
//   - paused: the server writes 1 MiB, the client reads 1 byte of it and
//     stops, so the client holds a record it has begun to read and the
//     server's goroutine waits in Write with its output in flight.
//   - in flight: the client has sent its first flight and stalls before its
//     second, so both ends hold a handshake's state.
var (
	memConns      = flag.Int("conns", 10000, "memory group: idle connections per stack (paused and in-flight use a tenth); lowered to what RLIMIT_NOFILE allows")
	memProfileOut = flag.String("memprofile", "", "memory group: write a heap profile of each stack and state to FILE.<stack>.<state>")
)

func init() {
	register(&group{
		name:   "memory",
		custom: runMemory,
	})
}

const memExchange = 16

type memResult struct {
	n                int
	heap, stack, rss float64 // bytes per connection
	err              error
}

func runMemory(w, progress io.Writer, _ int) {
	if *memProfileOut != "" {
		// Sample finely enough to name every buffer a connection keeps.
		runtime.MemProfileRate = 512
	}
	limit := raiseNoFile()
	n := *memConns
	// Two descriptors per connection, beside those open already (the
	// other groups' connections live on) and a margin.
	if spare := limit - openFiles() - 256; limit > 0 && uint64(2*n) > spare {
		n = int(spare / 2)
	}
	var rows [][]string
	for _, st := range connStacks {
		for _, state := range []string{"idle", "paused", "in flight"} {
			k := n
			if state != "idle" {
				k = max(n/10, 1)
			}
			fmt.Fprintf(progress, "memory: %s, %s, %d connections\n", st.name, state, k)
			r := measureMemory(st, state, k)
			if r.err != nil {
				rows = append(rows, []string{st.name, state, fmt.Sprint(k), "error", "", ""})
				fmt.Fprintf(progress, "memory: %s %s: %v\n", st.name, state, r.err)
				continue
			}
			rows = append(rows, []string{st.name, state, fmt.Sprint(r.n),
				fmt.Sprintf("%.0f", r.heap), fmt.Sprintf("%.0f", r.stack), fmt.Sprintf("%.0f", r.rss)})
		}
	}
	heading(w, "memory")
	writeTable(w, []string{"stack", "state", "conns", "heap B/conn", "stacks B/conn", "RSS B/conn"}, rows)
	note(w, "bytes per connection, both ends in this process (client + server + the server's goroutine), after a GC, minus the heap before;")
	note(w, fmt.Sprintf("idle: %d connections after the handshake and one %d-byte exchange each way; paused: %d connections, the server writing 1 MiB, the client", n, memExchange, max(n/10, 1)))
	note(w, fmt.Sprintf("having read 1 byte; in flight: %d handshakes, the client stalled before its second flight. heap = /gc/heap/live:bytes, stacks =", max(n/10, 1)))
	note(w, fmt.Sprintf("/memory/classes/heap/stacks:bytes, RSS from /proc/self/statm (includes freed heap not yet returned: noisier). RLIMIT_NOFILE %d.", limit))
}

// openFiles counts this process's open descriptors.
func openFiles() uint64 {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return uint64(len(fds))
}

// raiseNoFile lifts the soft limit on open files to the hard one and
// returns it (0 if unknown).
func raiseNoFile() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	}
	return rl.Cur
}

type memSample struct{ heap, stacks, rss uint64 }

func sampleMemory() memSample {
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	var m memSample
	if s[0].Value.Kind() == metrics.KindUint64 {
		m.heap = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		m.stacks = s[1].Value.Uint64()
	}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseUint(f[1], 10, 64)
			m.rss = pages * uint64(os.Getpagesize())
		}
	}
	return m
}

func perConn(after, before uint64, n int) float64 {
	return (float64(after) - float64(before)) / float64(n)
}

// stallConn passes its first Write and holds every later one until
// release is closed, then fails it.
type stallConn struct {
	net.Conn
	writes  atomic.Int32
	stalled chan<- struct{}
	release <-chan struct{}
}

func (c *stallConn) Write(b []byte) (int, error) {
	if c.writes.Add(1) == 1 {
		return c.Conn.Write(b)
	}
	if c.writes.Load() == 2 {
		c.stalled <- struct{}{}
	}
	<-c.release
	return 0, errors.New("stalled")
}

func measureMemory(st stack, state string, n int) (res memResult) {
	s, err := st.mk()
	if err != nil {
		return memResult{err: err}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return memResult{err: err}
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		raws    []net.Conn
		ready   = make(chan error, n)
		release = make(chan struct{})
		stalled = make(chan struct{}, n)
	)
	track := func(c net.Conn) {
		mu.Lock()
		raws = append(raws, c)
		mu.Unlock()
	}
	defer func() {
		close(release)
		ln.Close()
		mu.Lock()
		for _, c := range raws {
			closeAbortive(c, c)
		}
		mu.Unlock()
		wg.Wait()
	}()
	before := sampleMemory()
	// The server: one goroutine per connection, as a server has.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			track(c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc := s.server(c)
				if err := sc.Handshake(); err != nil {
					if state != "in flight" {
						ready <- err
					}
					return
				}
				switch state {
				case "idle":
					var buf [memExchange]byte
					if _, err := io.ReadFull(sc, buf[:]); err != nil {
						ready <- err
						return
					}
					if _, err := sc.Write(buf[:]); err != nil {
						ready <- err
						return
					}
					ready <- nil
					sc.Read(buf[:1]) // parked until the end
				case "paused":
					ready <- nil
					sc.Write(make([]byte, 1<<20)) // blocks: the client stops reading
				}
			}()
		}
	}()
	addr := ln.Addr().String()
	// Clients: a few at a time, so that the handshakes do not all wait for
	// the same two cores at once.
	var next atomic.Int64
	var cwg sync.WaitGroup
	var firstErr atomic.Value
	for range 4 {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				raw, err := net.Dial("tcp", addr)
				if err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				track(raw)
				// A handshake that cannot finish (a server out of
				// descriptors) fails instead of hanging the run.
				raw.SetDeadline(time.Now().Add(time.Minute))
				if state == "in flight" {
					sc := &stallConn{Conn: raw, stalled: stalled, release: release}
					cc := s.client(i, sc)
					wg.Add(1)
					go func() { defer wg.Done(); cc.Handshake() }()
					continue
				}
				cc := s.client(i, raw)
				if err := cc.Handshake(); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				raw.SetDeadline(time.Time{})
				var buf [memExchange]byte
				switch state {
				case "idle":
					if _, err := cc.Write(buf[:]); err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
					if _, err := io.ReadFull(cc, buf[:]); err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
				case "paused":
					if _, err := io.ReadFull(cc, buf[:1]); err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
				}
				keep(cc)
			}
		}()
	}
	cwg.Wait()
	if err, ok := firstErr.Load().(error); ok {
		return memResult{err: err}
	}
	timeout := time.After(2 * time.Minute)
	for range n {
		var err error
		select {
		case err = <-ready:
		case <-stalled:
		case <-timeout:
			err = errors.New("timed out waiting for the connections")
		}
		if state == "in flight" {
			// The servers sent their flights before the clients could
			// stall; ready carries only failures here.
		}
		if err != nil {
			return memResult{err: err}
		}
	}
	if state == "paused" {
		// Let the servers' writes fill the socket buffers and block.
		time.Sleep(200 * time.Millisecond)
	}
	after := sampleMemory()
	if *memProfileOut != "" {
		if f, err := os.Create(*memProfileOut + "." + sanitize(st.name+"."+state)); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	res = memResult{n: n,
		heap:  perConn(after.heap, before.heap, n),
		stack: perConn(after.stacks, before.stacks, n),
		rss:   perConn(after.rss, before.rss, n)}
	dropKept()
	return res
}

var (
	keptMu sync.Mutex
	kept   []any
)

// keep holds a client connection until the sample is taken: nothing else
// refers to it, and a collected client would not be an open connection.
func keep(c any) {
	keptMu.Lock()
	kept = append(kept, c)
	keptMu.Unlock()
}

func dropKept() {
	keptMu.Lock()
	kept = nil
	keptMu.Unlock()
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, s)
}
