// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dgram

import "fmt"

// Reassembly bounds. A handshake has at most a handful of messages in
// flight from one side (a TLCP server's flight is five), so messages
// further ahead than Window are dropped, to be retransmitted; the bytes
// held for incomplete messages are bounded by MaxBuffered, each message
// by the limit its type has (the caller's MaxLen).
const (
	Window      = 8
	MaxBuffered = 1 << 18
)

// Status says what Add did with a fragment.
type Status int

const (
	Stored Status = iota // kept (possibly adding nothing new)
	Old                  // of a message already delivered: the peer retransmits
	Ahead                // too far ahead, or over the buffer bound: dropped
)

// partial is one message being put together.
type partial struct {
	typ    uint8
	seq    uint16 // message_seq as it came, for the transcript
	body   []byte
	have   []byte // one bit per body byte
	filled int
}

// has reports whether byte i is in. A message that came whole in its
// first fragment has no bitmap: every byte is.
func (p *partial) has(i int) bool { return p.have == nil || p.have[i>>3]&(1<<(i&7)) != 0 }

// Reassembler puts the peer's handshake messages together from their
// fragments, which may come out of order, duplicated, or overlapping (a
// retransmission cut to a smaller MTU), and hands them out in message_seq
// order (RFC 6347 §4.2.2, §4.2.3). Overlapping bytes must agree: a peer
// whose fragments of one message disagree is refused, as is a fragment
// whose type or length differ from the message's first.
type Reassembler struct {
	// MaxLen bounds the body of a message of type typ.
	MaxLen func(typ uint8) int

	next     uint16
	slots    [Window]*partial
	buffered int
}

// Next is the message_seq of the next message to be delivered.
func (r *Reassembler) Next() uint16 { return r.next }

// SetNext makes seq the next message_seq expected, dropping what is held:
// a server learns it from the ClientHello it answers.
func (r *Reassembler) SetNext(seq uint16) {
	r.slots = [Window]*partial{}
	r.buffered = 0
	r.next = seq
}

// Add takes one fragment of message h.Seq.
func (r *Reassembler) Add(h HandshakeHeader, frag []byte) (Status, error) {
	return r.AddAs(h, frag, h.Seq)
}

// AddAs takes one fragment as part of message seq, whatever its header
// says; the header's message_seq is kept for the transcript. Package tlcp
// uses it for one known peer bug (INTEROP.md §11.7).
func (r *Reassembler) AddAs(h HandshakeHeader, frag []byte, seq uint16) (Status, error) {
	if seq < r.next {
		return Old, nil
	}
	ahead := int(seq - r.next)
	if ahead >= Window {
		return Ahead, nil
	}
	p := r.slots[ahead]
	if p == nil {
		limit := MaxBuffered
		if r.MaxLen != nil {
			limit = r.MaxLen(h.Type)
		}
		if h.Length > limit {
			return 0, fmt.Errorf("dtlcp: handshake message %d of %d bytes, over the limit of %d for its type", h.Seq, h.Length, limit)
		}
		if r.buffered+h.Length > MaxBuffered {
			return Ahead, nil
		}
		p = &partial{typ: h.Type, seq: h.Seq, body: make([]byte, h.Length)}
		r.slots[ahead] = p
		r.buffered += h.Length
		if h.Offset == 0 && h.FragLen == h.Length {
			// Whole at once, the usual case: no bitmap needed.
			copy(p.body, frag)
			p.filled = h.Length
			return Stored, nil
		}
		p.have = make([]byte, (h.Length+7)/8)
	}
	if h.Type != p.typ || h.Length != len(p.body) {
		return 0, fmt.Errorf("dtlcp: fragments of handshake message %d disagree on its type or length", seq)
	}
	for i, b := range frag {
		j := h.Offset + i
		if p.has(j) {
			if p.body[j] != b {
				return 0, fmt.Errorf("dtlcp: overlapping fragments of handshake message %d disagree at byte %d", seq, j)
			}
			continue
		}
		p.body[j] = b
		p.have[j>>3] |= 1 << (j & 7)
		p.filled++
	}
	return Stored, nil
}

// Complete reports whether the next message is whole.
func (r *Reassembler) Complete() bool {
	p := r.slots[0]
	return p != nil && p.filled == len(p.body)
}

// Take returns the next message if it is whole: its type, the message_seq
// its fragments carried, and its body, and moves on to the one after.
func (r *Reassembler) Take() (typ uint8, seq uint16, body []byte, ok bool) {
	if !r.Complete() {
		return 0, 0, nil, false
	}
	p := r.slots[0]
	copy(r.slots[:], r.slots[1:])
	r.slots[Window-1] = nil
	r.buffered -= len(p.body)
	r.next++
	return p.typ, p.seq, p.body, true
}

// Pending reports whether any fragment of an undelivered message is held.
func (r *Reassembler) Pending() bool {
	for _, p := range r.slots {
		if p != nil {
			return true
		}
	}
	return false
}
