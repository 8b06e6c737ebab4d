// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/dtlcp"
)

// The dtlcp group: DTLCP (tlcp/dtlcp) beside TLCP over a stream, to show
// what the datagram layer costs: handshakes with the cookie exchange, and
// 1 KiB application-data records, each a Write and the peer's Read. The
// comparison with gotlcp's dtlcp, which the module proxy does not serve,
// is in examples/interop/dtlcppeer (run by examples/interop/dtlcp.sh).

func init() {
	register(&group{
		name:  "dtlcp",
		cols:  []string{"DTLCP", "TLCP"},
		ratio: "dtlcp/tlcp",
		note: "DTLCP: client + server over an in-memory datagram pipe in one process (the server's HelloVerifyRequest exchange included);\n" +
			"TLCP: the same configs over net.Pipe. records: one 1 KiB Write and the peer's Read per op, both ends counted",
		rows: []*row{
			{name: "full handshake ECC_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{dtlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, false), tlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, false)}},
			{name: "resumed handshake ECC_SM4_GCM_SM3", unit: opsPerSec,
				impls: []setupFunc{dtlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, true), tlcpHandshake(ciphersuite.ECC_SM4_GCM_SM3, true)}},
			{name: "1 KiB records ECC_SM4_GCM_SM3", unit: mbPerSec, bytes: 1024,
				impls: []setupFunc{dtlcpRecords(ciphersuite.ECC_SM4_GCM_SM3), tlcpRecords(ciphersuite.ECC_SM4_GCM_SM3)}},
			{name: "1 KiB records ECC_SM4_CBC_SM3", unit: mbPerSec, bytes: 1024,
				impls: []setupFunc{dtlcpRecords(ciphersuite.ECC_SM4_CBC_SM3), tlcpRecords(ciphersuite.ECC_SM4_CBC_SM3)}},
		},
	})
}

// dgPipe is one end of an in-memory datagram pipe: each Write is one
// datagram, read whole by the other end's Read. Buffers are made as
// needed up to the depth and then reused, so that the pipe allocates
// nothing per datagram; a full pipe blocks the writer.
type dgPipe struct {
	out, outFree chan []byte
	in, inFree   chan []byte
	made         *atomic.Int32
	done         chan struct{}
	deadline     atomic.Pointer[time.Time]
	timer        *time.Timer
}

func newDgPipe() (*dgPipe, *dgPipe) {
	const depth = 64
	ab, abFree, ba, baFree := make(chan []byte, depth), make(chan []byte, depth), make(chan []byte, depth), make(chan []byte, depth)
	done := make(chan struct{})
	return &dgPipe{out: ab, outFree: abFree, in: ba, inFree: baFree, made: new(atomic.Int32), done: done},
		&dgPipe{out: ba, outFree: baFree, in: ab, inFree: abFree, made: new(atomic.Int32), done: done}
}

func (p *dgPipe) Read(b []byte) (int, error) {
	var timeout <-chan time.Time
	if dl := p.deadline.Load(); dl != nil && !dl.IsZero() {
		d := time.Until(*dl)
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

func (p *dgPipe) Write(b []byte) (int, error) {
	var buf []byte
	select {
	case buf = <-p.outFree:
	case <-p.done:
		return 0, net.ErrClosed
	default:
		if p.made.Add(1) <= int32(cap(p.outFree)) {
			buf = make([]byte, 0, max(len(b), 2048))
		} else {
			select {
			case buf = <-p.outFree:
			case <-p.done:
				return 0, net.ErrClosed
			}
		}
	}
	// A recycled buffer too small for b grows once; datagrams of one
	// connection keep to a few sizes.
	buf = append(buf[:0], b...)
	p.out <- buf
	return len(b), nil
}

func (p *dgPipe) ReadFrom(b []byte) (int, net.Addr, error) {
	n, err := p.Read(b)
	return n, p.RemoteAddr(), err
}

func (p *dgPipe) WriteTo(b []byte, _ net.Addr) (int, error) { return p.Write(b) }
func (p *dgPipe) Close() error                              { return nil }
func (p *dgPipe) LocalAddr() net.Addr                       { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (p *dgPipe) RemoteAddr() net.Addr                      { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2} }
func (p *dgPipe) SetDeadline(t time.Time) error             { return p.SetReadDeadline(t) }
func (p *dgPipe) SetReadDeadline(t time.Time) error         { p.deadline.Store(&t); return nil }
func (p *dgPipe) SetWriteDeadline(time.Time) error          { return nil }

// dtlcpPair makes a client and a server over a datagram pipe and runs the
// handshake; stop ends the pipe.
func dtlcpPair(srv, cli *tlcp.Config) (cc, sc *dtlcp.Conn, stop func(), err error) {
	a, b := newDgPipe()
	stop = func() { close(a.done) }
	cc, sc = dtlcp.Client(a, nil, cli), dtlcp.Server(b, nil, srv)
	done := make(chan error, 1)
	go func() { done <- sc.Handshake() }()
	cerr := cc.Handshake()
	if cerr != nil {
		stop()
	}
	if serr := <-done; cerr == nil && serr != nil {
		cerr = serr
	}
	if cerr != nil {
		return nil, nil, nil, cerr
	}
	return cc, sc, stop, nil
}

func dtlcpHandshake(suite uint16, resume bool) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := tlcpConfigs(suite, resume)
		if err != nil {
			return nil, err
		}
		srv.MinVersion, srv.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLCP
		cli.MinVersion, cli.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLCP
		if resume {
			// One full handshake fills both caches.
			_, _, stop, err := dtlcpPair(srv, cli)
			if err != nil {
				return nil, err
			}
			stop()
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cc, _, stop, err := dtlcpPair(srv, cli)
				if err != nil {
					fail(b, err)
				}
				if got := cc.ConnectionState().DidResume; got != resume {
					failf(b, "resumed = %v, want %v", got, resume)
				}
				stop()
			}
		}, nil
	}
}

// recordLoop times one 1 KiB Write and the peer's Read per op.
func recordLoop(w, r net.Conn) benchFunc {
	return func(b *testing.B) {
		msg := make([]byte, 1024)
		got := make(chan error, 1)
		n := b.N
		go func() {
			buf := make([]byte, 2048)
			for left := n * len(msg); left > 0; {
				m, err := r.Read(buf)
				if err != nil {
					got <- err
					return
				}
				left -= m
			}
			got <- nil
		}()
		b.ResetTimer()
		for range n {
			if _, err := w.Write(msg); err != nil {
				fail(b, err)
			}
		}
		if err := <-got; err != nil {
			fail(b, err)
		}
	}
}

func dtlcpRecords(suite uint16) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := tlcpConfigs(suite, false)
		if err != nil {
			return nil, err
		}
		cc, sc, _, err := dtlcpPair(srv, cli)
		if err != nil {
			return nil, err
		}
		return recordLoop(cc, sc), nil
	}
}

func tlcpRecords(suite uint16) setupFunc {
	return func() (benchFunc, error) {
		srv, cli, err := tlcpConfigs(suite, false)
		if err != nil {
			return nil, err
		}
		cc, sc, err := tlcpPipe(srv, cli)
		if err != nil {
			return nil, err
		}
		return recordLoop(cc, sc), nil
	}
}
