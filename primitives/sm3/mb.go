// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import (
	"encoding/binary"
	"unsafe"
)

// The multi-buffer engine hashes up to maxLanes independent messages at
// once with the kernels chosen in the dispatch file. SM3 compresses the
// blocks of one message strictly one after another, so a single message
// cannot use more than one lane; several messages can, one per lane, each
// vector instruction doing the same step of every message's round.
//
// Each lane holds a message as a list of parts (for HMAC: the 13-byte
// record header and the record body) and a starting chaining value that
// may already cover a prefix (the HMAC key block). The engine repeatedly
// asks every lane for its next run of whole blocks: in place in a part
// when one has at least a block left, otherwise a block assembled in the
// lane's own buffer from the end of one part and the start of the next,
// or the final one or two blocks with the padding. All lanes then advance
// by the shortest run, so most calls compress many blocks straight from
// the messages and the assembled blocks cost one short call each.
//
// Finished lanes keep their columns and hash a copy of another lane's
// blocks. When only one or two lanes are left, the engine finishes them
// with the one-message kernel, which is then faster: a batch never costs
// more than hashing its messages one by one.
//
// Which lanes are active and how far each has come depends only on the
// message lengths, never on their contents.

// testHookBlocks, set by tests, sees the kernel width, block pointers and
// block count of each compression call that hashes a secret-length
// message's tail, and of every multi-buffer call, so that a test can check
// that they do not depend on the secret length.
var testHookBlocks func(w int, p *[16]uintptr, n int)

// hookBlocks reports a compression call to testHookBlocks, the block
// pointers as integers so that they do not move the engine to the heap.
func hookBlocks(w int, p *[16]*byte, n int) {
	var a [16]uintptr
	for i, b := range p {
		a[i] = uintptr(unsafe.Pointer(b))
	}
	testHookBlocks(w, &a, n)
}

// maxLanes is the widest multi-buffer kernel on any architecture.
const maxLanes = 16

// mbLane is the progress of one message through the engine.
type mbLane struct {
	parts [][]byte // the message; parts[pi][off:] is next
	pi    int
	off   int
	total uint64 // length of the whole message, prefix included, for the padding

	// buf holds blocks that do not lie whole in one part: an assembled
	// block of data (mid), or the final one or two blocks (final > 0,
	// counting those not yet compressed, from buf[bufAt:]).
	buf   [2 * BlockSize]byte
	bufAt int
	final int
	mid   bool
	done  bool
	raw   bool // the message is whole blocks, hashed without the padding

	h [8]uint32 // the chaining value while it is not in the kernels' st
}

// mbEngine runs up to maxLanes lanes. While the kernels run them, st
// holds their chaining values transposed, word j of lane i at st[j][i],
// which is the layout the kernels take.
type mbEngine struct {
	st   [8][16]uint32
	lane [maxLanes]mbLane
	n    int // lanes in use
}

// reset empties the engine and wipes what it held of the messages.
func (e *mbEngine) reset() {
	for i := range e.lane[:e.n] {
		l := &e.lane[i]
		clear(l.buf[:])
		l.parts = nil
		clear(l.h[:])
	}
	clear(e.st[:])
	e.n = 0
}

// add appends a lane that starts from chaining value h, which covers
// prefix bytes already, and hashes the concatenation of parts.
func (e *mbEngine) add(h *[8]uint32, prefix uint64, parts [][]byte) {
	l := &e.lane[e.n]
	e.n++
	l.parts, l.pi, l.off, l.total, l.h = parts, 0, 0, prefix, *h
	l.bufAt, l.final, l.mid, l.done, l.raw = 0, 0, false, false, false
	for _, p := range parts {
		l.total += uint64(len(p))
	}
}

// addRaw appends a lane like add, for a message of whole blocks that is a
// prefix of a longer one: its blocks are compressed and the padding is not,
// so that lane[i].h ends as the chaining value after them.
func (e *mbEngine) addRaw(h *[8]uint32, prefix uint64, parts [][]byte) {
	e.add(h, prefix, parts)
	l := &e.lane[e.n-1]
	l.raw = true
	l.done = l.exhausted()
}

// exhausted reports whether lane l has consumed all of its parts.
func (l *mbLane) exhausted() bool {
	for l.pi < len(l.parts) && l.off == len(l.parts[l.pi]) {
		l.pi++
		l.off = 0
	}
	return l.pi == len(l.parts)
}

// next returns where lane l's next run of blocks starts and how many whole
// blocks it has there (at least one).
func (l *mbLane) next() (*byte, int) {
	if l.final > 0 {
		return &l.buf[l.bufAt], l.final
	}
	if !l.exhausted() {
		if p := l.parts[l.pi][l.off:]; len(p) >= BlockSize {
			return &p[0], len(p) / BlockSize
		}
	}
	// Assemble a block from what is left of this part and the next ones.
	n := 0
	for n < BlockSize && l.pi < len(l.parts) {
		c := copy(l.buf[n:BlockSize], l.parts[l.pi][l.off:])
		n += c
		l.off += c
		if l.off == len(l.parts[l.pi]) {
			l.pi++
			l.off = 0
		}
	}
	if n == BlockSize {
		l.mid = true
		return &l.buf[0], 1
	}
	// The message ends here: pad it (GB/T 32905-2016, 5.2).
	l.buf[n] = 0x80
	clear(l.buf[n+1:])
	blocks := 1
	if n+1 > BlockSize-8 {
		blocks = 2
	}
	binary.BigEndian.PutUint64(l.buf[blocks*BlockSize-8:], l.total<<3)
	l.bufAt = 0
	l.final = blocks
	return &l.buf[0], blocks
}

// advance records that n blocks of the run returned by next were
// compressed.
func (l *mbLane) advance(n int) {
	switch {
	case l.final > 0:
		l.final -= n
		l.bufAt += n * BlockSize
		l.done = l.final == 0
	case l.mid:
		l.mid = false
	default:
		l.off += n * BlockSize
	}
	if l.raw {
		l.done = l.exhausted()
	}
}

// finish hashes what is left of lane l one block after another with the
// one-message kernel. The lane is between runs: at a block boundary of its
// message or with final blocks pending.
func (l *mbLane) finish() {
	if l.final > 0 {
		block(&l.h, l.buf[l.bufAt:l.bufAt+l.final*BlockSize])
		l.final = 0
		l.done = true
		return
	}
	var d digest
	d.h = l.h
	d.len = l.total
	for i := l.pi; i < len(l.parts); i++ {
		d.len -= uint64(len(l.parts[i]))
	}
	d.len += uint64(l.off)
	for i := l.pi; i < len(l.parts); i++ {
		p := l.parts[i]
		if i == l.pi {
			p = p[l.off:]
		}
		d.Write(p)
	}
	if l.raw {
		d.flush()
	} else {
		d.pad()
	}
	l.h = d.h
	clear(d.x[:])
	l.done = true
}

// run hashes every lane to its end, leaving the final chaining values in
// lane[i].h. Lane i runs in column i of the kernels.
func (e *mbEngine) run() {
	// The block pointers are a local array: stored in e, pointers into e
	// would make escape analysis move every engine to the heap.
	var ptr [16]*byte
	loaded := false
	for {
		k := 0
		for i := range e.lane[:e.n] {
			if !e.lane[i].done {
				k++
			}
		}
		w := multiWidth(k)
		if k == 0 || w == 1 || e.n > w {
			break
		}
		if !loaded {
			for i := range e.lane[:e.n] {
				e.load(i)
			}
			loaded = true
		}
		run := 1 << 30
		var some *byte
		for i := range e.lane[:e.n] {
			if l := &e.lane[i]; !l.done {
				p, n := l.next()
				ptr[i] = p
				run = min(run, n)
				some = p
			}
		}
		// Columns without a lane hash a copy of some lane's blocks, which
		// are valid memory for the whole run; the result is dropped.
		for i := range w {
			if i >= e.n || e.lane[i].done {
				ptr[i] = some
			}
		}
		if testHookBlocks != nil {
			hookBlocks(w, &ptr, run)
		}
		multiBlock(w, &e.st, &ptr, run)
		for i := range e.lane[:e.n] {
			if l := &e.lane[i]; !l.done {
				l.advance(run)
				if l.done {
					e.store(i)
				}
			}
		}
	}
	// Whatever is left, one lane at a time.
	for i := range e.lane[:e.n] {
		if l := &e.lane[i]; !l.done {
			if loaded {
				e.store(i)
			}
			l.finish()
		}
	}
}

// load puts lane i's chaining value into column i, store takes it back.
func (e *mbEngine) load(i int) {
	for j, v := range e.lane[i].h {
		e.st[j][i] = v
	}
}

func (e *mbEngine) store(i int) {
	for j := range e.lane[i].h {
		e.lane[i].h[j] = e.st[j][i]
	}
}
