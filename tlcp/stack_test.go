// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"net"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// A server typically runs each handshake in a new goroutine, whose stack
// starts at 2 KiB (or the runtime's running average) and is copied to a
// twice larger one each time it runs out. Growing to 8 KiB costs a resumed
// handshake about a tenth of its time, so both of its sides are kept
// within 4 KiB: the deepest point is the key block's PRF under the
// kilobyte frame of the AVX2 SM3 kernel (see
// ciphersuite.Master.NewRecordProtections). This test catches a change
// that pushes them over again.

// stackPad uses about 64 bytes of stack per level, then calls f.
//
//go:noinline
func stackPad(n int, f func()) byte {
	var buf [32]byte
	// Through a pointer, so that buf is not optimised away.
	p := &buf
	p[3] = byte(n)
	if n > 0 {
		return stackPad(n-1, f) + buf[3]
	}
	f()
	return buf[3]
}

// stackMoves reports whether running f, after headroom more levels of
// stackPad, moves a goroutine whose stack has first been grown to 4 KiB.
func stackMoves(headroom int, f func()) bool {
	moved := make(chan bool, 1)
	go func() {
		var x int
		stackPad(25, func() {}) // 2 KiB is too small for this: the stack grows to 4 KiB
		before := uintptr(unsafe.Pointer(&x))
		stackPad(headroom, f)
		moved <- uintptr(unsafe.Pointer(&x)) != before
	}()
	return <-moved
}

func TestResumedHandshakeFits4KiBStack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation enlarges frames")
	}
	// No GC: it could shrink the stack and move it.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if stackMoves(0, func() {}) {
		t.Skip("the stack moves without a handshake: stackPad does not grow it as expected")
	}
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	// The test's own closures take about 100 bytes more than a plain go
	// statement would. On amd64 there are some 450 bytes to spare beyond
	// that (7 levels); with -tags purego much less, because of the
	// portable SM4-GCM's frames under the Finished record.
	const headroom = 0
	for _, side := range []string{"server", "client"} {
		c, s := net.Pipe()
		client, server := Client(c, ccfg), Server(s, scfg)
		ours, peer := server, client
		if side == "client" {
			ours, peer = client, server
		}
		errc := make(chan error, 1)
		go func() { errc <- peer.Handshake() }()
		var err error
		moved := stackMoves(headroom, func() { err = ours.Handshake() })
		if perr := <-errc; err != nil || perr != nil {
			t.Fatal(err, perr)
		}
		c.Close()
		s.Close()
		if !client.didResume {
			t.Fatal("the handshake did not resume")
		}
		if moved {
			t.Errorf("the %s side of a resumed handshake grew a 4 KiB goroutine stack: look for large frames on the way to the key block's PRF", side)
		}
	}
}
