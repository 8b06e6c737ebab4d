// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

// Handshake flights.
//
// The handshake messages a side sends before it waits for the peer (the
// server's ServerHello … ServerHelloDone, the client's Certificate …
// Finished, ChangeCipherSpec and Finished) are still one message per record
// (INTEROP.md §1.7), but the records of a flight are collected and handed
// to the transport in one Write when the side next reads, or at the end of
// the handshake: one system call, and over a synchronous transport one
// hand-over to the peer, per flight instead of per message. Alerts are
// never held back: one flushes what is pending and goes out after it.

// startFlight makes the records written from now on wait for the next
// read or finishFlight. It is called by the handshake, with c.in held.
func (c *Conn) startFlight() {
	c.out.Lock()
	defer c.out.Unlock()
	c.rb.buffering = true
	c.rb.flightPending.Store(true)
}

// finishFlight sends what is pending and stops collecting. c.in is held.
func (c *Conn) finishFlight() error {
	c.out.Lock()
	defer c.out.Unlock()
	err := c.flushFlightLocked()
	c.rb.buffering = false
	c.rb.flight = nil
	c.rb.flightPending.Store(false)
	return err
}

// flushFlight sends the records collected so far, before the handshake
// reads: the peer answers only what it has received. c.in is held.
func (c *Conn) flushFlight() error {
	if !c.rb.flightPending.Load() {
		return nil
	}
	c.out.Lock()
	defer c.out.Unlock()
	return c.flushFlightLocked()
}

func (c *Conn) flushFlightLocked() error {
	if len(c.rb.flight) == 0 {
		return nil
	}
	_, err := c.conn.Write(c.rb.flight)
	clear(c.rb.flight) // it held handshake messages, Finished among them
	c.rb.flight = c.rb.flight[:0]
	if err != nil {
		return c.out.setErrorLocked(err)
	}
	return nil
}

// sendRecord hands the records of one writeRecordLocked call on: TLS 1.3
// collects its flights (and a held ticket) in its own buffer (writeRaw),
// TLCP in the pending flight. c.out must be held.
func (c *Conn) sendRecord(typ recordType, b []byte) error {
	if c.tls13.buffering || len(c.tls13.sendBuf) > 0 {
		_, err := c.writeRaw(b)
		return err
	}
	return c.sendRecordLocked(typ, b)
}

// sendRecordLocked hands one or more whole records of type typ to the
// transport, or to the pending flight. c.out must be held.
func (c *Conn) sendRecordLocked(typ recordType, b []byte) error {
	if c.rb.buffering && typ != recordTypeAlert {
		if c.rb.flight == nil {
			c.rb.flight = make([]byte, 0, max(2*len(b), 512))
		}
		c.rb.flight = append(c.rb.flight, b...)
		return nil
	}
	if err := c.flushFlightLocked(); err != nil {
		return err
	}
	_, err := c.conn.Write(b)
	return err
}
