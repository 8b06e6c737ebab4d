// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import "sync/atomic"

// Handshake flights, one buffer for both protocols.
//
// The handshake messages a side sends before it waits for the peer (a TLCP
// server's ServerHello … ServerHelloDone, a TLS 1.3 server's ServerHello …
// Finished, a client's Certificate … Finished) are still one message per
// record (INTEROP.md §1.7), but the records of a flight are collected and
// handed to the transport in one Write when the side next reads, or at
// the end of the flight: one system call, and over a synchronous
// transport one hand-over to the peer, per flight instead of per message.
// Alerts are never held back: one goes out at once, in the same write as
// what is pending before it. A record held outside a flight (a TLS 1.3
// server's ticket, sendPendingTicketLocked) likewise goes out with the
// next record written.

// flightBuffer is the pending flight, guarded by c.out; pending can be
// read with c.in alone, so that a read need not take c.out to learn that
// there is nothing to flush.
type flightBuffer struct {
	buf       []byte
	buffering bool
	pending   atomic.Bool
}

// startFlight makes the records written from now on wait for the next
// read or finishFlight. It is called by the handshake, with c.in held.
func (c *Conn) startFlight() {
	c.out.Lock()
	defer c.out.Unlock()
	c.flight.buffering = true
	c.flight.pending.Store(true)
}

// finishFlight sends what is pending and stops collecting. c.in is held.
func (c *Conn) finishFlight() error {
	if c.dg != nil {
		return c.dgFinishFlight()
	}
	c.out.Lock()
	defer c.out.Unlock()
	c.flight.buffering = false
	c.flight.pending.Store(false)
	return c.flushFlightLocked()
}

// flushFlight sends the records collected so far, before the handshake
// reads: the peer answers only what it has received. c.in is held.
func (c *Conn) flushFlight() error {
	if !c.flight.pending.Load() {
		return nil
	}
	c.out.Lock()
	defer c.out.Unlock()
	return c.flushFlightLocked()
}

// flushFlightLocked writes what is pending. Outside a flight the buffer
// is dropped afterwards: it may have grown to hold a batch of records
// behind a ticket, which a connection should not keep. c.out is held.
func (c *Conn) flushFlightLocked() error {
	f := &c.flight
	if len(f.buf) == 0 {
		if !f.buffering {
			// A flight flushed before its last read (flushFlight) leaves
			// an empty buffer that finishFlight must still drop.
			f.buf = nil
		}
		return nil
	}
	_, err := c.conn.Write(f.buf)
	clear(f.buf) // it held handshake messages, Finished among them
	f.buf = f.buf[:0]
	if !f.buffering {
		f.buf = nil
	}
	if err != nil {
		return c.out.setErrorLocked(err)
	}
	return nil
}

// holdLocked adds whole records to the pending flight. c.out is held.
func (c *Conn) holdLocked(b []byte) {
	if c.flight.buf == nil {
		c.flight.buf = make([]byte, 0, max(2*len(b), 512))
	}
	c.flight.buf = append(c.flight.buf, b...)
}

// sendRecordLocked hands one or more whole records of type typ to the
// transport, or to the pending flight. c.out must be held.
func (c *Conn) sendRecordLocked(typ recordType, b []byte) error {
	if c.flight.buffering && typ != recordTypeAlert {
		c.holdLocked(b)
		return nil
	}
	if len(c.flight.buf) > 0 {
		c.holdLocked(b)
		return c.flushFlightLocked()
	}
	_, err := c.conn.Write(b)
	return err
}
