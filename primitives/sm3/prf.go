// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

import "encoding/binary"

// The TLS 1.2 PRF over HMAC-SM3, the one TLCP (GB/T 38636-2020) uses for
// its master secret, key block and Finished messages. A handshake runs it
// five or six times on short inputs, about ten HMACs of one to three
// blocks each, so what counts is the work around the compressions: here
// every message is laid out once, already padded, in a buffer on the stack
// and compressed with one call per HMAC half, with no digest state, no
// copies of the running hash and no per-part bookkeeping.
//
// The chain A(i) is strictly sequential and the output blocks need it, so a
// single PRF has at most two independent HMACs at a time; that is below
// where the multi-buffer kernels beat the one-message one (see multiWidth),
// and all of it runs on the one-message kernel.

// prfMaxSeed is the longest label || seed1 || seed2 for which A(i) || seed
// and its padding fit the two blocks of PRF's buffer. TLCP's longest is 77
// bytes ("key expansion" and two randoms). The buffer is no larger because
// PRF runs deep in a handshake goroutine's first stack, together with the
// kilobyte frame of the AVX2 compression kernel.
const prfMaxSeed = prfBuf - Size - 9

const prfBuf = 2 * BlockSize

// PRF fills dst with PRF(secret, label, seed1 || seed2) = P_SM3(secret,
// label || seed1 || seed2) (RFC 5246 §5 with HMAC-SM3; GB/T 38636-2020
// 5.4.2), for the secret k was set to. The seed comes in two parts so that
// callers need not concatenate the two randoms. PRF does not allocate.
func (k *HMACKey) PRF(dst []byte, label string, seed1, seed2 []byte) {
	if len(dst) == 0 {
		return
	}
	if len(label)+len(seed1)+len(seed2) > prfMaxSeed {
		k.prfLong(dst, label, seed1, seed2)
		return
	}

	// m holds the message of an output block, A(i) || seed, padded; s a
	// 32-byte message, A(i) or an inner hash, padded for the 96 bytes that
	// key block and message make.
	var m [prfBuf]byte
	var s [BlockSize]byte
	var h [8]uint32
	s[Size] = 0x80
	binary.BigEndian.PutUint64(s[BlockSize-8:], (BlockSize+Size)<<3)

	// A(1) = HMAC(seed): laid out in m without the room for A(i) first.
	n := copy(m[:], label)
	n += copy(m[n:], seed1)
	n += copy(m[n:], seed2)
	h = k.inner
	compress(&h, m[:padTo(&m, n, BlockSize+n)])
	k.finish(&h, &s)

	// From here m is A(i) || seed, laid out again: the padding of A(1)'s
	// message may lie beyond where the new one ends.
	clear(m[:])
	n = Size + copy(m[Size:], label)
	n += copy(m[n:], seed1)
	n += copy(m[n:], seed2)
	blocks := padTo(&m, n, BlockSize+n)
	for {
		putState(m[:Size], &h)
		h = k.inner
		compress(&h, m[:blocks])
		k.finish(&h, &s)
		if len(dst) <= Size {
			putState(s[:Size], &h) // s is free until the next A(i)
			copy(dst, s[:Size])
			break
		}
		putState(dst, &h)
		dst = dst[Size:]

		// A(i+1) = HMAC(A(i)).
		copy(s[:Size], m[:Size])
		h = k.inner
		block(&h, s[:])
		k.finish(&h, &s)
	}
	clear(m[:])
	clear(s[:Size])
	clear(h[:])
}

// finish turns the inner hash in h into the HMAC: h becomes the hash of
// the outer key block and the inner digest, which is written to s (a
// padded 32-byte message) on the way.
func (k *HMACKey) finish(h *[8]uint32, s *[BlockSize]byte) {
	putState(s[:Size], h)
	*h = k.outer
	block(h, s[:])
}

// compress is block for a message of a few blocks, one block per call:
// alternating between one- and two-block calls, as HMACs of two-block
// messages do, costs blockAVX2 about the time of a block more per switch
// on Zen 5 than calls of one size, and a single-block call is as fast per
// block as a two-block one.
func compress(h *[8]uint32, p []byte) {
	for len(p) > 0 {
		block(h, p[:BlockSize])
		p = p[BlockSize:]
	}
}

// padTo pads the n-byte message at the start of m, which is total bytes
// long counting the key block hashed before it, and returns the length in
// bytes of the padded message (GB/T 32905-2016, 5.2). The bytes after the
// message must be zero; n+9 must fit m.
func padTo(m *[prfBuf]byte, n, total int) int {
	m[n] = 0x80
	end := (n + 8 + BlockSize) &^ (BlockSize - 1)
	binary.BigEndian.PutUint64(m[end-8:], uint64(total)<<3)
	return end
}

// putState writes the chaining value h to b[:32] as the big-endian digest.
func putState(b []byte, h *[8]uint32) {
	_ = b[Size-1]
	for i, v := range h {
		binary.BigEndian.PutUint32(b[4*i:], v)
	}
}

// prfLong is PRF for seeds too long for PRF's buffer, which TLCP never
// makes: the same construction over HMACKey.MAC.
func (k *HMACKey) prfLong(dst []byte, label string, seed1, seed2 []byte) {
	lb := []byte(label)
	var a, out [Size]byte
	k.MAC(a[:0], lb, seed1, seed2)
	for len(dst) > 0 {
		k.MAC(out[:0], a[:], lb, seed1, seed2)
		dst = dst[copy(dst, out[:]):]
		k.MAC(a[:0], a[:])
	}
	clear(a[:])
	clear(out[:])
}
