// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

// HMACs of messages whose length is a secret.
//
// A MAC-then-encrypt record (TLCP's SM4-CBC suites, TLS 1.0–1.2's CBC
// suites) is decrypted before its MAC is checked, and where its data ends
// depends on the padding, which is secret until the check has passed. A
// MAC computed over just the data would take as many compressions as the
// padding says, and an attacker who can time it learns about the padding
// (Lucky13). AddSecretLength hashes such a message with work that depends
// only on the range its length may lie in:
//
//   - The blocks that lie wholly before the shortest possible end are
//     hashed as any message's blocks (the prefix). Their contents may
//     depend on the length (a record header carries it), their positions
//     do not.
//   - Every block that may hold the end of the message or its padding (the
//     tail: at most seven blocks for MaxSecretSpan) is built with masks from bytes at
//     public positions: data before the end, 0x80 at the end, zeros after
//     it, and the bit length in the last eight bytes of the one block where
//     the padding really ends. Every tail block is compressed, and the
//     chaining value after that final one is kept by a masked select.
//
// Both parts run in the lanes of the multi-buffer engine like any other
// message of the batch, so a batch of records is checked at the speed of
// the lanes and still in time that does not depend on their padding.

// MaxSecretSpan is the widest range of lengths, len(body) - minN, that
// AddSecretLength accepts. A TLCP or TLS CBC record needs 255 (the padding
// can be 1 to 256 bytes).
const MaxSecretSpan = 320

// secretMsg is a message of an HMACBatch added with AddSecretLength.
type secretMsg struct {
	on         bool
	head, body []byte
	n, minN    int
	prefix     [2][]byte // the whole blocks before the shortest end
	pre        int       // len(prefix[0]) + len(prefix[1])
	tail       int       // number of tail blocks
	h          [8]uint32 // the chaining value kept from the tail
}

// AddSecretLength appends to b the message head || body[:n], to be MACed
// under k, where n is secret: Sum computes its MAC with the same
// compressions, of blocks at the same addresses, for every n in
// [minN, len(body)], and reads n only through masks. The message can be
// in a batch with any others. n outside that range gives a wrong MAC and
// nothing worse (it is not checked, which would branch on it).
//
// For a TLCP record, head is the 13-byte seq || type || version ||
// length header (its length field the secret n, written without
// branches), body is the decrypted fragment without its padding length
// byte and MAC (the longest data the record could carry), and minN is 256
// bytes less than len(body) (or 0).
//
// The batch keeps the slices until Sum. AddSecretLength panics if b is
// full (see Add), if minN is negative or above len(body), or if
// len(body) - minN exceeds MaxSecretSpan: all of them public values.
func (b *HMACBatch) AddSecretLength(k *HMACKey, head, body []byte, n, minN int) {
	if minN < 0 || minN > len(body) || len(body)-minN > MaxSecretSpan {
		panic("sm3: AddSecretLength length range out of bounds")
	}
	if b.n == MaxBatch {
		panic("sm3: HMACBatch.Add on a full batch")
	}
	s := &b.secret[b.n]
	s.init(head, body, n, minN)
	b.keys[b.n] = k
	b.parts[b.n] = s.prefix[:]
	b.n++
	b.secrets++
}

// SumSecretLength sets mac to the HMAC under k of head || body[:n], where n
// is secret, with the same work for every n in [minN, len(body)], as
// AddSecretLength does in a batch: this is the one-record form, for a
// record opened on its own (it needs no HMACBatch, which is large). It
// panics on the public bounds AddSecretLength panics on.
func (k *HMACKey) SumSecretLength(mac *[Size]byte, head, body []byte, n, minN int) {
	if minN < 0 || minN > len(body) || len(body)-minN > MaxSecretSpan {
		panic("sm3: SumSecretLength length range out of bounds")
	}
	var s secretMsg
	var blk [BlockSize]byte
	s.init(head, body, n, minN)
	k.macSecret(mac, &s, &blk)
	clear(blk[:])
	clear(s.h[:])
}

// init sets s to the message head || body[:n] of secret length n in
// [minN, len(body)].
func (s *secretMsg) init(head, body []byte, n, minN int) {
	s.on, s.head, s.body, s.n, s.minN = true, head, body, n, minN
	clear(s.h[:])
	// The prefix ends at the last block boundary at or before the shortest
	// end; the tail runs from there to the block holding the bit length
	// after the longest.
	s.pre = (len(head) + minN) &^ (BlockSize - 1)
	if s.pre <= len(head) {
		s.prefix = [2][]byte{head[:s.pre], nil}
	} else {
		s.prefix = [2][]byte{head, body[:s.pre-len(head)]}
	}
	s.tail = (len(head)+len(body)+8)/BlockSize - s.pre/BlockSize + 1
}

// tailBlock builds into blk the t-th tail block of s. Which bytes are data,
// which the 0x80 byte, zeros or the bit length depends on s.n, so each byte is
// chosen with masks from values at public positions, and the same bytes are
// read and written whatever s.n is.
func (s *secretMsg) tailBlock(blk *[BlockSize]byte, t int) {
	end := len(s.head) + s.n // secret
	start := s.pre + t*BlockSize
	for j := range blk {
		p := start + j
		var v byte
		switch q := p - len(s.head); {
		case q < 0:
			v = s.head[p]
		case q < len(s.body):
			v = s.body[q]
		}
		before := byte(int64(p-end) >> 63)       // 0xff if p < end
		at := byte(int64(uint64(p^end)-1) >> 63) // 0xff if p == end (both < 2^63)
		blk[j] = v&before | 0x80&at
	}
	// The bit length closes the block that holds byte end+8, the last the
	// padding needs; HMAC's inner hash counts the key block too.
	final := byte(int64(uint64((start/BlockSize)^((end+8)/BlockSize))-1) >> 63)
	bits := uint64(BlockSize+end) << 3
	for q := range 8 {
		blk[BlockSize-8+q] |= byte(bits>>(56-8*q)) & final
	}
}

// keep copies h into s.h if t is the tail block that ends the message,
// without a branch on it.
func (s *secretMsg) keep(h *[8]uint32, t int) {
	end := len(s.head) + s.n
	last := (end+8)/BlockSize - s.pre/BlockSize
	m := uint32(int64(uint64(t^last)-1) >> 63)
	for j := range h {
		s.h[j] = h[j]&m | s.h[j]&^m
	}
}

// secretTails runs the tails of the secret-length messages among lanes
// [0, n) of b.e, whose chaining values are after their prefixes, and leaves
// in each such lane the chaining value after its real end.
func (b *HMACBatch) secretTails(first, n int) {
	e := &b.e
	steps, k := 0, 0
	for i := range n {
		if s := &b.secret[first+i]; s.on {
			steps = max(steps, s.tail)
			k++
		}
	}
	w := multiWidth(k)
	if w == 1 || n > w {
		for i := range n {
			s := &b.secret[first+i]
			if !s.on {
				continue
			}
			h := e.lane[i].h
			for t := range s.tail {
				s.tailBlock(&b.tail[i], t)
				hookOne(&b.tail[i])
				block(&h, b.tail[i][:])
				s.keep(&h, t)
			}
			e.lane[i].h = s.h
			clear(h[:])
		}
		return
	}
	var ptr [16]*byte
	for i := range w {
		if i < n {
			e.load(i)
		}
		// Columns of other messages hash whatever their buffer holds.
		ptr[i] = &b.tail[min(i, n-1)][0]
	}
	for t := range steps {
		for i := range n {
			if s := &b.secret[first+i]; s.on && t < s.tail {
				s.tailBlock(&b.tail[i], t)
			}
		}
		if testHookBlocks != nil {
			hookBlocks(w, &ptr, 1)
		}
		multiBlock(w, &e.st, &ptr, 1)
		for i := range n {
			if s := &b.secret[first+i]; s.on && t < s.tail {
				var h [8]uint32
				for j := range h {
					h[j] = e.st[j][i]
				}
				s.keep(&h, t)
			}
		}
	}
	for i := range n {
		if s := &b.secret[first+i]; s.on {
			e.lane[i].h = s.h
		}
	}
}

// macSecret sets m to the HMAC under k of the secret-length message s, one
// block after another, for the batches that run without lanes.
func (k *HMACKey) macSecret(m *[Size]byte, s *secretMsg, blk *[BlockSize]byte) {
	var d digest
	d.h, d.len = k.inner, BlockSize
	d.Write(s.prefix[0])
	d.Write(s.prefix[1])
	d.flush()
	for t := range s.tail {
		s.tailBlock(blk, t)
		hookOne(blk)
		block(&d.h, blk[:])
		s.keep(&d.h, t)
	}
	inner := stateBytes(&s.h)
	d.h, d.len, d.nx = k.outer, BlockSize, 0
	d.Write(inner[:])
	*m = d.checkSum()
	clear(inner[:])
	clear(d.h[:])
}

// hookOne reports a one-block compression of blk to testHookBlocks.
func hookOne(blk *[BlockSize]byte) {
	if testHookBlocks != nil {
		p := [16]*byte{&blk[0]}
		hookBlocks(1, &p, 1)
	}
}
