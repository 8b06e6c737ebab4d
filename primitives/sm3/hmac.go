// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm3

// HMAC-SM3 in batches, for a record layer that MACs many records at once.
// HMAC (GM/T 0042-2015, the construction of RFC 2104 and FIPS 198-1) is
//
//	SM3((K ^ opad) || SM3((K ^ ipad) || message))
//
// with the key K padded to one block. The chaining values after the
// K ^ ipad and K ^ opad blocks depend on the key alone; HMACKey keeps them,
// so each MAC costs the message blocks and one outer block. HMACBatch runs
// the inner hashes of all its messages through the multi-buffer engine,
// then all the outer ones.

// MaxBatch is the number of messages an HMACBatch holds.
const MaxBatch = 16

// MaxBatchParts is the number of parts, over all its messages, that an
// HMACBatch holds: four per message on average.
const MaxBatchParts = 4 * MaxBatch

// An HMACKey is an HMAC-SM3 key, prepared once (for a TLCP connection, once
// per direction) and then used for any number of MACs, in any number of
// batches at the same time; it is not modified after SetKey.
type HMACKey struct {
	inner, outer [8]uint32
}

// NewHMACKey returns key prepared for HMAC-SM3. Keys of any length are
// accepted; as HMAC specifies, one longer than a block is hashed first.
func NewHMACKey(key []byte) *HMACKey {
	k := new(HMACKey)
	k.SetKey(key)
	return k
}

// SetKey sets k to key, as NewHMACKey does.
func (k *HMACKey) SetKey(key []byte) {
	var b [BlockSize]byte
	if len(key) > BlockSize {
		s := Sum(key)
		copy(b[:], s[:])
		clear(s[:])
	} else {
		copy(b[:], key)
	}
	for i := range b {
		b[i] ^= 0x36
	}
	k.inner = iv
	block(&k.inner, b[:])
	for i := range b {
		b[i] ^= 0x36 ^ 0x5c
	}
	k.outer = iv
	block(&k.outer, b[:])
	clear(b[:])
}

// MAC appends to b the HMAC-SM3 under k of the concatenation of parts. It
// costs the message's blocks and one outer block: the key's two blocks
// were compressed by SetKey. It does not allocate when b has room.
func (k *HMACKey) MAC(b []byte, parts ...[]byte) []byte {
	var m [Size]byte
	k.mac(&m, parts)
	b = append(b, m[:]...)
	clear(m[:])
	return b
}

// Sum sets *mac to the HMAC-SM3 under k of the concatenation of parts: MAC
// into an array the caller holds, for code that chains MACs (a P_hash or
// HKDF-Expand feeds each output into the next input) and so never needs
// one as a slice it owns. mac may be one of the parts: it is written only
// after the message has been read. Sum does not allocate.
//
// A message of at most shortMax bytes (what chained MACs hash) is laid out
// once and hashed with one final call per half, as sumShort does; a longer
// one goes through a digest, one block after another.
func (k *HMACKey) Sum(mac *[Size]byte, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > shortMax {
		k.macLong(mac, parts)
		return
	}
	var buf [2 * BlockSize]byte
	n = 0
	for _, p := range parts {
		n += copy(buf[n:], p)
	}
	// The inner digest goes through mac, which is written last either way.
	final(&k.inner, &buf, n, uint64(BlockSize+n)<<3, mac)
	copy(buf[:], mac[:])
	final(&k.outer, &buf, Size, (BlockSize+Size)<<3, mac)
	clear(buf[:n])
}

// mac is Sum with the parts as a slice.
func (k *HMACKey) mac(m *[Size]byte, parts [][]byte) { k.Sum(m, parts...) }

// macLong is Sum through a digest, for a message longer than shortMax.
func (k *HMACKey) macLong(m *[Size]byte, parts [][]byte) {
	var d digest
	d.h, d.len = k.inner, BlockSize
	for _, p := range parts {
		d.Write(p)
	}
	inner := d.checkSum()
	d.h, d.len, d.nx = k.outer, BlockSize, 0
	d.Write(inner[:])
	*m = d.checkSum()
	clear(inner[:])
	clear(d.x[:])
}

// An HMACBatch computes the HMAC-SM3 of up to MaxBatch messages together,
// each under its own HMACKey and each given as up to a few parts that are
// MACed as their concatenation: for a TLCP record, the 13-byte
// seq || type || version || length header and the record body. Add the
// messages, then Sum; Sum leaves the batch empty and ready for reuse.
//
// Messages of different lengths are fine. Where the CPU has a multi-buffer
// kernel the messages are hashed side by side, one per vector lane; once only
// one or two are left, or for a batch of one or two, the one-message code
// runs, so a batch is never slower than computing its MACs one by one.
// Neither Add nor Sum allocates.
//
// The zero value is an empty batch. An HMACBatch must not be copied after
// first use, and is not safe for concurrent use.
type HMACBatch struct {
	n, np   int
	keys    [MaxBatch]*HMACKey
	parts   [MaxBatch][][]byte
	partBuf [MaxBatchParts][]byte
	sums    [MaxBatch][Size]byte
	outer   [MaxBatch][1][]byte
	e       mbEngine

	// The messages added by AddSecretLength, and the blocks their tails
	// are built in (see hmac_secret.go).
	secret  [MaxBatch]secretMsg
	secrets int
	tail    [MaxBatch][BlockSize]byte
}

// Len returns the number of messages in b.
func (b *HMACBatch) Len() int { return b.n }

// Add appends to b the message made of parts, to be MACed under k. The
// batch keeps the slices, not copies: their contents must not change
// until Sum. Add panics if b already holds MaxBatch messages or
// MaxBatchParts parts, which a caller that flushes every MaxBatch messages
// of at most four parts never reaches.
func (b *HMACBatch) Add(k *HMACKey, parts ...[]byte) {
	if b.n == MaxBatch {
		panic("sm3: HMACBatch.Add on a full batch")
	}
	if len(parts) > MaxBatchParts-b.np {
		panic("sm3: HMACBatch.Add beyond MaxBatchParts parts")
	}
	start := b.np
	b.np += copy(b.partBuf[b.np:], parts)
	b.keys[b.n] = k
	b.parts[b.n] = b.partBuf[start:b.np:b.np]
	b.n++
}

// Sum sets macs[i] to the HMAC-SM3 of the i-th message added, for every
// message in b, and empties b. It panics if macs is shorter than b.Len().
func (b *HMACBatch) Sum(macs [][Size]byte) {
	if len(macs) < b.n {
		panic("sm3: HMACBatch.Sum destination shorter than the batch")
	}
	e := &b.e
	for done := 0; done < b.n; {
		n := min(b.n-done, multiLanes())
		if multiWidth(n) == 1 {
			for i := done; i < done+n; i++ {
				if s := &b.secret[i]; s.on {
					b.keys[i].macSecret(&macs[i], s, &b.tail[0])
				} else {
					b.keys[i].mac(&macs[i], b.parts[i])
				}
			}
			done += n
			continue
		}
		for i := range n {
			if b.secret[done+i].on {
				// Only the prefix here; secretTails hashes the rest.
				e.addRaw(&b.keys[done+i].inner, BlockSize, b.parts[done+i])
			} else {
				e.add(&b.keys[done+i].inner, BlockSize, b.parts[done+i])
			}
		}
		e.run()
		if b.secrets > 0 {
			b.secretTails(done, n)
		}
		for i := range n {
			b.sums[i] = stateBytes(&e.lane[i].h)
		}
		e.reset()
		for i := range n {
			b.outer[i][0] = b.sums[i][:]
			e.add(&b.keys[done+i].outer, BlockSize, b.outer[i][:])
		}
		e.run()
		for i := range n {
			macs[done+i] = stateBytes(&e.lane[i].h)
		}
		e.reset()
		done += n
	}
	clear(b.sums[:])
	b.Reset()
}

// Reset empties b, dropping the messages added since the last Sum.
func (b *HMACBatch) Reset() {
	clear(b.keys[:b.n])
	clear(b.parts[:b.n])
	clear(b.partBuf[:b.np])
	clear(b.outer[:])
	if b.secrets > 0 {
		clear(b.secret[:b.n])
		clear(b.tail[:])
		b.secrets = 0
	}
	b.n, b.np = 0, 0
}
