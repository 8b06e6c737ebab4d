// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/subtle"
	"io"
)

// SealBatch seals the records MaxBatch at a time: their keystreams (one
// key, an IV per record) in the lanes of zuc.Batch, then their HMAC-SM3
// tags in the lanes of sm3.HMACBatch.
func (z *zucRecord) SealBatch(recs []BatchRecord, rnd io.Reader) (int, error) {
	done := 0
	for len(recs) > 0 {
		k := min(len(recs), MaxBatch)
		n, err := z.sealBatch(recs[:k], rnd)
		done += n
		if err != nil {
			return done, err
		}
		recs = recs[k:]
	}
	return done, nil
}

func (z *zucRecord) scratch() *zucBatch {
	if z.batch == nil {
		z.batch = new(zucBatch)
	}
	return z.batch
}

func (z *zucRecord) sealBatch(recs []BatchRecord, rnd io.Reader) (int, error) {
	for i := range recs {
		if len(recs[i].Data) > MaxPlaintext {
			return 0, ErrRecordOverflow
		}
	}
	k := z.seq.available(len(recs))
	if k < 2 {
		// Seal reports the exhausted sequence number, if that is why.
		return sealEach(z, recs[:min(len(recs), k+1)], rnd)
	}
	s := z.scratch()
	for i := range k {
		r := &recs[i]
		n := len(r.Data)
		out := fragmentSlot(r, n+zucOverhead)
		s.src[i] = placePlaintext(out[:n], r.Data)
		s.dst[i] = out[:n]
		z.recordIV(&s.iv[i], z.seq+seqNum(i))
		s.ivs[i] = s.iv[i][:]
		r.Fragment = out
	}
	if err := s.z.XORKeyStream(z.zucKey[:], s.ivs[:k], s.dst[:k], s.src[:k]); err != nil {
		panic("ciphersuite: zuc.Batch rejected a record: " + err.Error())
	}
	for i := range k {
		putHeader(&s.hdr[i], z.seq+seqNum(i), recs[i].Type, len(s.dst[i]))
		s.mac.Add(&z.key, s.hdr[i][:], s.dst[i])
	}
	s.mac.Sum(s.sum[:k])
	for i := range k {
		copy(recs[i].Fragment[len(s.dst[i]):], s.sum[i][:])
	}
	s.clearLanes(k)
	z.seq += seqNum(k)
	if k < len(recs) {
		return k, ErrSequenceOverflow
	}
	return k, nil
}

// OpenBatch checks the MACs of the records MaxBatch at a time in the lanes
// of sm3.HMACBatch (encrypt-then-MAC: the MAC covers the ciphertext, whose
// length is public, so the batch leaks nothing a single Open would not),
// finds the first record whose MAC fails, and decrypts only the records
// before it, their keystreams in the lanes of zuc.Batch.
func (z *zucRecord) OpenBatch(dst []byte, recs []BatchRecord) (int, error) {
	done, off := 0, 0
	for len(recs) > 0 {
		k := min(len(recs), MaxBatch)
		n, used, err := z.openBatch(openDst(dst, off), recs[:k])
		done += n
		off += used
		if err != nil {
			return done, err
		}
		recs = recs[k:]
	}
	return done, nil
}

// openBatch opens up to MaxBatch records and also returns the bytes of dst
// the plaintexts took.
func (z *zucRecord) openBatch(dst []byte, recs []BatchRecord) (opened, used int, err error) {
	if len(recs) == 1 {
		r := &recs[0]
		pt, err := z.open(dst, r.Type, r.Fragment)
		if err != nil {
			return 0, 0, err
		}
		r.Data = pt
		return 1, len(pt), nil
	}
	// The records that can be opened at all: up to the first one of a
	// bad length, or without a sequence number.
	k := len(recs)
	for i := range recs {
		if err = checkZUCFragment(recs[i].Fragment); err != nil {
			k = i
			break
		}
	}
	if a := z.seq.available(k); a < k {
		k, err = a, ErrSequenceOverflow
	}
	s := z.scratch()
	for i := range k {
		c := recs[i].Fragment[:len(recs[i].Fragment)-zucOverhead]
		putHeader(&s.hdr[i], z.seq+seqNum(i), recs[i].Type, len(c))
		s.mac.Add(&z.key, s.hdr[i][:], c)
	}
	s.mac.Sum(s.sum[:k])
	// Nothing is decrypted before its MAC is known to be good, and nothing
	// after the first bad one.
	for i := range k {
		f := recs[i].Fragment
		if subtle.ConstantTimeCompare(s.sum[i][:], f[len(f)-zucOverhead:]) != 1 {
			k, err = i, ErrBadRecordMAC
			break
		}
	}
	for i := range k {
		c := recs[i].Fragment[:len(recs[i].Fragment)-zucOverhead]
		out := c
		if dst != nil {
			out = dst[used : used+len(c)]
		}
		s.src[i], s.dst[i] = c, out
		z.recordIV(&s.iv[i], z.seq+seqNum(i))
		s.ivs[i] = s.iv[i][:]
		recs[i].Data = out
		used += len(c)
	}
	if xerr := s.z.XORKeyStream(z.zucKey[:], s.ivs[:k], s.dst[:k], s.src[:k]); xerr != nil {
		panic("ciphersuite: zuc.Batch rejected a record: " + xerr.Error())
	}
	s.clearLanes(len(recs))
	z.seq += seqNum(k)
	return k, used, err
}
