// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/rand"
	"crypto/subtle"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm4"
)

// SealBatch seals the records MaxBatch at a time: their HMAC-SM3 tags in
// the lanes of sm3.HMACBatch, then their CBC encryptions, each record a
// separate chain from its own explicit IV, in the lanes of
// sm4.CBCEncryptMulti. One CBC chain is serial, so this is where batching
// gains the most: the per-record Seal keeps the vector units mostly idle.
func (c *cbcRecord) SealBatch(recs []BatchRecord, rnd io.Reader) (int, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	done := 0
	for len(recs) > 0 {
		k := min(len(recs), MaxBatch)
		n, err := c.sealBatch(recs[:k], rnd)
		done += n
		if err != nil {
			return done, err
		}
		recs = recs[k:]
	}
	return done, nil
}

// sealEach seals recs one by one with rp's Seal, none if one is too long.
func sealEach(rp RecordProtection, recs []BatchRecord, rnd io.Reader) (int, error) {
	for i := range recs {
		if len(recs[i].Data) > MaxPlaintext {
			return 0, ErrRecordOverflow
		}
	}
	for i := range recs {
		r := &recs[i]
		f, err := rp.Seal(r.Fragment[:0], r.Type, r.Data, rnd)
		if err != nil {
			return i, err
		}
		r.Fragment = f
	}
	return len(recs), nil
}

// sealBatch seals up to MaxBatch records.
func (c *cbcRecord) sealBatch(recs []BatchRecord, rnd io.Reader) (int, error) {
	for i := range recs {
		if len(recs[i].Data) > MaxPlaintext {
			return 0, ErrRecordOverflow
		}
	}
	k := c.seq.available(len(recs))
	if k < 2 {
		// Seal reports the exhausted sequence number, if that is why.
		return sealEach(c, recs[:min(len(recs), k+1)], rnd)
	}
	if c.batch == nil {
		c.batch = new(batchScratch)
	}
	s := c.batch
	// Every IV first, in one read, so that a failing reader leaves the
	// batch as it was.
	ivs := s.ivBuf[:k*cbcBlock]
	if _, err := io.ReadFull(rnd, ivs); err != nil {
		return 0, err
	}

	var lens [MaxBatch]int
	for i := range k {
		r := &recs[i]
		n := len(r.Data)
		out := fragmentSlot(r, c.SealedLen(n))
		data := out[cbcBlock : cbcBlock+n]
		moveTo(data, r.Data)
		putHeader(&s.hdr[i], c.seq+seqNum(i), r.Type, n)
		s.mac.Add(&c.key, s.hdr[i][:], data)
		r.Fragment, lens[i] = out, n
	}
	s.mac.Sum(s.sum[:k])
	for i := range k {
		out, n := recs[i].Fragment, lens[i]
		copy(out[cbcBlock+n:], s.sum[i][:])
		padLen := byte(cbcPadLen(n))
		pad := out[cbcBlock+n+cbcMACLen:]
		for j := range pad {
			pad[j] = padLen
		}
		iv := ivs[i*cbcBlock : (i+1)*cbcBlock]
		copy(out, iv)
		s.ivs[i], s.dst[i] = iv, out[cbcBlock:]
	}
	sm4.CBCEncryptMulti(c.block, s.ivs[:k], s.dst[:k], s.dst[:k])
	s.clearLanes(k)
	c.seq += seqNum(k)
	if k < len(recs) {
		return k, ErrSequenceOverflow
	}
	return k, nil
}

// OpenBatch opens the records MaxBatch at a time. CBC decryption is
// parallel within a record already; what batching adds is the MACs: they
// run in the lanes of sm3.HMACBatch through AddSecretLength, which
// hashes each record's data up to its secret end (the padding is not
// authenticated until the MAC is) with the same compressions for every
// padding length, so a batch costs what its fragment lengths say and
// nothing else (the Lucky13 defence of Open, kept per record). MAC-then-
// encrypt means every record of a batch is decrypted before any is
// checked; a record after a bad one is decrypted but neither returned nor
// kept track of.
func (c *cbcRecord) OpenBatch(dst []byte, recs []BatchRecord) (int, error) {
	done, off := 0, 0
	for len(recs) > 0 {
		k := min(len(recs), MaxBatch)
		n, used, err := c.openBatch(openDst(dst, off), recs[:k])
		done += n
		off += used
		if err != nil {
			return done, err
		}
		recs = recs[k:]
	}
	return done, nil
}

// checkCBCFragment returns the error Open reports for a fragment of an
// impossible length, or nil. The lengths are public.
func checkCBCFragment(f []byte) error {
	if len(f) > MaxCiphertext {
		return ErrRecordOverflow
	}
	if len(f) < cbcMinFragment || len(f)%cbcBlock != 0 {
		return ErrBadRecordMAC
	}
	return nil
}

// testHookSecretMAC, set by tests, sees the public arguments of every
// record's AddSecretLength call.
var testHookSecretMAC func(hdr, body []byte, minN int)

// openBatch opens up to MaxBatch records and also returns the bytes of dst
// the plaintexts took.
func (c *cbcRecord) openBatch(dst []byte, recs []BatchRecord) (opened, used int, err error) {
	// The records that can be opened at all: up to the first one of a
	// bad length, or without a sequence number.
	k := len(recs)
	for i := range recs {
		if err = checkCBCFragment(recs[i].Fragment); err != nil {
			k = i
			break
		}
	}
	if a := c.seq.available(k); a < k {
		k, err = a, ErrSequenceOverflow
	}
	if k < 2 {
		for i := range k {
			pt, oerr := c.open(openDst(dst, used), recs[i].Type, recs[i].Fragment)
			if oerr != nil {
				return i, used, oerr
			}
			recs[i].Data = pt
			used += len(pt)
		}
		return k, used, err
	}
	if c.batch == nil {
		c.batch = new(batchScratch)
	}
	s := c.batch

	// Decrypt every record, in place or into dst. Where a plaintext lands
	// in dst must not depend on the padding of the records before it, so
	// record i goes where it would if every record before it carried as
	// much data as its fragment allows, and moves down once its length is
	// public (after the MACs).
	gapped := 0
	for i := range k {
		f := recs[i].Fragment
		var payload []byte
		if dst == nil {
			c.dec.CryptBlocks(f, f)
			payload = f[cbcBlock:]
		} else {
			// As in open: the IV block first, so that dec chains from it.
			payload = dst[gapped : gapped+len(f)-cbcBlock]
			c.dec.CryptBlocks(payload[:cbcBlock], f[:cbcBlock])
			c.dec.CryptBlocks(payload, f[cbcBlock:])
		}
		gapped += len(payload)

		toRemove, good := cbcPadding(payload, cbcMACLen)
		n := len(payload) - cbcMACLen - toRemove // secret until the MAC is checked
		s.pt[i], s.ptLen[i], s.good[i] = payload, n, good
		putHeader(&s.hdr[i], c.seq+seqNum(i), recs[i].Type, n)
		maxN := len(payload) - cbcMACLen - 1
		body, minN := payload[:maxN], max(0, maxN-maxPaddingLen)
		if testHookSecretMAC != nil {
			testHookSecretMAC(s.hdr[i][:], body, minN)
		}
		s.mac.AddSecretLength(&c.key, s.hdr[i][:], body, n, minN)
	}
	s.mac.Sum(s.sum[:k])

	// The MACs in order, each compared in constant time; the first bad
	// one ends the batch.
	for i := range k {
		c.extractMAC(s.pt[i], s.ptLen[i])
		good := s.good[i] & subtle.ConstantTimeCompare(s.sum[i][:], c.peer[:])
		if good != 1 {
			k, err = i, ErrBadRecordMAC
			break
		}
		if s.ptLen[i] > MaxPlaintext {
			k, err = i, ErrRecordOverflow
			break
		}
	}
	for i := range k {
		pt := s.pt[i][:s.ptLen[i]]
		if dst != nil {
			// Now public: close the gap to the plaintexts before it.
			pt = dst[used : used+len(pt)]
			copy(pt, s.pt[i])
		}
		recs[i].Data = pt
		used += len(pt)
	}
	clear(s.pt[:])
	clear(s.ptLen[:])
	clear(s.good[:])
	clear(c.local[:])
	clear(c.peer[:])
	s.clearLanes(len(recs))
	c.seq += seqNum(k)
	return k, used, err
}
