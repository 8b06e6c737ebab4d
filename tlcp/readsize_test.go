// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// countingRecorded is a recordedConn that counts its Reads.
type countingRecorded struct {
	*recordedConn
	reads int
}

func (c *countingRecorded) Read(b []byte) (int, error) {
	c.reads++
	return c.recordedConn.Read(b)
}

// TestRecordsLargerThanBufferOneRead: records of a few KiB, each arriving
// on its own (an RPC, a response), larger than the buffer the connection
// starts with, grow that buffer, so that from the second on each comes in
// one transport read, as crypto/tls's records do, and no batch buffer is
// held between them.
func TestRecordsLargerThanBufferOneRead(t *testing.T) {
	for _, size := range []int{1000, 4096, 9000, maxPlaintext} {
		c, rc, wr := receiver(t, ciphersuite.ECC_SM4_GCM_SM3)
		const n = 20
		lens := make([]int, n)
		for i := range lens {
			lens[i] = size
		}
		wire, starts := sealWire(t, wr, recordTypeApplicationData, lens, 0)
		starts = append(starts, len(wire))
		for i := range n {
			rc.chunks = append(rc.chunks, wire[starts[i]:starts[i+1]])
		}
		cc := &countingRecorded{recordedConn: rc}
		c.conn = cc
		buf := make([]byte, size)
		pos := 0
		for i := range n {
			before := cc.reads
			got := 0
			for got < size {
				m, err := c.Read(buf[got:])
				if err != nil {
					t.Fatalf("size %d, record %d: %v", size, i, err)
				}
				got += m
			}
			for j := range got {
				if buf[j] != streamByte(pos+j) {
					t.Fatalf("size %d: byte %d differs", size, pos+j)
				}
			}
			pos += got
			if reads := cc.reads - before; i >= 2 && reads != 1 {
				t.Fatalf("size %d: record %d took %d transport reads, want 1", size, i, reads)
			}
			if c.rawInput.pooled != nil {
				t.Fatalf("size %d: a batch buffer is held between records", size)
			}
		}
	}
}

// TestSmallReadBufferKeepsBatch: records that arrived together and a Read
// buffer that takes one or two of them (io.Copy's 32 KiB) open as one
// batch in place, queued, rather than one or two at a time into the
// buffer, and so do records of which all but one would fit (the one would
// be opened alone); a buffer that takes them all gets them directly,
// nothing queued. The stream comes out whole either way.
func TestSmallReadBufferKeepsBatch(t *testing.T) {
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		for _, c := range []struct {
			size      int
			minQueued int // the most records a batch queued, at least
			maxQueued int // and at most
		}{
			{32 << 10, ciphersuite.MaxBatch / 2, ciphersuite.MaxBatch},
			{ciphersuite.MaxBatch * maxPlaintext, ciphersuite.MaxBatch / 2, ciphersuite.MaxBatch}, // all but one fit
			{1 << 20, 0, 0},
		} {
			conn, rc, wr := receiver13(t, id)
			lens := slices.Repeat([]int{maxPlaintext}, 4*ciphersuite.MaxBatch)
			wire, _ := sealWire13(t, wr, lens)
			rc.chunks = [][]byte{wire}
			buf := make([]byte, c.size)
			most, pos := 0, 0
			for pos < len(lens)*maxPlaintext {
				m, err := conn.Read(buf)
				if err != nil {
					t.Fatalf("after %d bytes: %v", pos, err)
				}
				most = max(most, conn.rb.n)
				for i := range m {
					if buf[i] != streamByte(pos+i) {
						t.Fatalf("byte %d differs", pos+i)
					}
				}
				pos += m
			}
			if most < c.minQueued || most > c.maxQueued {
				t.Errorf("%s, %d-byte Reads: at most %d records queued, want %d to %d", ciphersuite.Name(id), c.size, most, c.minQueued, c.maxQueued)
			}
		}
	}
}
