// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
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
