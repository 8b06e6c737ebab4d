// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/rand"
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

// sealEach seals recs one by one with rp's Seal.
func sealEach(rp RecordProtection, recs []BatchRecord, rnd io.Reader) (int, error) {
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

// OpenBatch opens the records one after another, each with the
// constant-time check of Open, not in the lanes of sm3.HMACBatch: a CBC
// record's MAC covers the plaintext up to the padding, whose length is
// secret until the MAC has been checked, and a batch hashes each message
// to its own end, so its lanes would take as long as the padding says
// (the Lucky13 timing signal). Open instead does the same SM3 compressions
// for every padding length, by feeding dummy blocks after the real data,
// which the multi-buffer engine cannot do. The batch still saves the copy
// into the caller's buffer when dst is given; the decryption was parallel
// already, CBC decryption being independent per block.
func (c *cbcRecord) OpenBatch(dst []byte, recs []BatchRecord) (int, error) {
	off := 0
	for i := range recs {
		r := &recs[i]
		pt, err := c.open(openDst(dst, off), r.Type, r.Fragment)
		if err != nil {
			return i, err
		}
		r.Data = pt
		off += len(pt)
	}
	return len(recs), nil
}
