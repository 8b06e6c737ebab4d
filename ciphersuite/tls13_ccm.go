// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import "github.com/shangmi-go/shangmi/primitives/sm4"

// Batches of TLS_SM4_CCM_SM3 records.
//
// A CCM record's CBC-MAC is one serial chain of SM4 encryptions, so one
// record at a time runs at the latency of a block, several times slower
// than its counter-mode half. The records of a batch have their own nonces
// (the sequence number is in each), so their MACs run side by side in
// sm4.CCMSealMulti and sm4.CCMOpenMulti, one block of every record per pass
// of the bulk kernel.

// ccmScratch is what a batch of CCM records needs besides the records: the
// per-record nonces and headers (the additional data) and the lane slices.
type ccmScratch struct {
	nonce  [MaxBatch][12]byte
	hdr    [MaxBatch][5]byte
	nonces [MaxBatch][]byte
	ads    [MaxBatch][]byte
	dst    [MaxBatch][]byte
	src    [MaxBatch][]byte
}

func (p *tls13Record) scratch() *ccmScratch {
	if p.batch == nil {
		p.batch = new(ccmScratch)
	}
	return p.batch
}

// clearLanes drops the slices into the caller's buffers.
func (s *ccmScratch) clearLanes(k int) {
	clear(s.nonces[:k])
	clear(s.ads[:k])
	clear(s.dst[:k])
	clear(s.src[:k])
}

// lane sets up lane i for the record with sequence number seq, header
// type typ and protected fragment length n.
func (p *tls13Record) lane(s *ccmScratch, i int, seq seqNum, typ uint8, n int, dst, src []byte) {
	p.nonceAt(&s.nonce[i], seq)
	s.hdr[i] = tls13Header(typ, n)
	s.nonces[i], s.ads[i], s.dst[i], s.src[i] = s.nonce[i][:], s.hdr[i][:], dst, src
}

// sealCCM seals up to MaxBatch records as Seal would, one after another.
func (p *tls13Record) sealCCM(recs []BatchRecord) (int, error) {
	for i := range recs {
		if len(recs[i].Data) > MaxPlaintext {
			return 0, ErrRecordOverflow
		}
	}
	k := p.seq.available(len(recs))
	if k < 2 {
		// Seal reports the exhausted sequence number, if that is why.
		return sealEach(p, recs[:min(len(recs), k+1)], nil)
	}
	s := p.scratch()
	for i := range k {
		r := &recs[i]
		n := len(r.Data)
		out := fragmentSlot(r, n+1+tls13TagLen)
		inner := out[:n+1]
		moveTo(inner, r.Data)
		inner[n] = r.Type
		p.lane(s, i, p.seq+seqNum(i), recordTypeApplicationData, len(out), out, inner)
		r.Fragment = out
	}
	sm4.CCMSealMulti(p.aead, s.dst[:k], s.nonces[:k], s.src[:k], s.ads[:k])
	s.clearLanes(k)
	p.seq += seqNum(k)
	if k < len(recs) {
		return k, ErrSequenceOverflow
	}
	return k, nil
}

// openCCMBatch is OpenBatch for SM4-CCM: the records go MaxBatch at a
// time through openCCM, except a record that Open refuses before
// decrypting (by its length, or for the sequence number), which is opened
// alone so that it fails as it does there, and a lone record.
func (p *tls13Record) openCCMBatch(dst []byte, recs []BatchRecord) (int, error) {
	done, off := 0, 0
	for done < len(recs) {
		rest := recs[done:]
		k := 0
		for k < min(len(rest), MaxBatch) && len(rest[k].Fragment) >= tls13TagLen && len(rest[k].Fragment) <= MaxTLS13Ciphertext {
			k++
		}
		if k = p.seq.available(k); k < 2 {
			r := &rest[0]
			typ, pt, err := p.open(openDst(dst, off), r.Type, r.Fragment)
			if err != nil {
				return done, err
			}
			changed := typ != r.Type
			r.Type, r.Data = typ, pt
			done++
			off += len(pt)
			if changed {
				return done, nil
			}
			continue
		}
		n, used, more, err := p.openCCM(openDst(dst, off), rest[:k])
		done += n
		off += used
		if err != nil || !more {
			return done, err
		}
	}
	return done, nil
}

// openCCM opens two to MaxBatch records whose lengths Open accepts, with
// the sequence numbers to match, as Open would one after another: it
// returns how many opened, the bytes of dst their data took, whether the
// caller may go on with the records after them (all opened, none changed
// the content type), and the error of the one that failed.
//
// Every record is decrypted and checked in the lanes before any is looked
// at. A record after one that changes the content type (a KeyUpdate may be
// the reason) must stay as it was, to be opened again: CCMOpenMulti leaves
// it so if it failed (it is under the new key), and one that authenticated
// under the same key is sealed again, in place, to the same fragment.
func (p *tls13Record) openCCM(dst []byte, recs []BatchRecord) (opened, used int, more bool, err error) {
	s := p.scratch()
	k := len(recs)
	defer s.clearLanes(k)
	off := 0
	for i := range recs {
		f := recs[i].Fragment
		m := len(f) - tls13TagLen
		out := f[:m]
		if dst != nil {
			out = dst[off : off+m]
			off += m
		}
		p.lane(s, i, p.seq+seqNum(i), recs[i].Type, len(f), out, f)
	}
	ok := sm4.CCMOpenMulti(p.aead, s.dst[:k], s.nonces[:k], s.src[:k], s.ads[:k])
	for i := range ok {
		inner := s.dst[i]
		// The checks of open, in its order (see there).
		if len(inner) > MaxPlaintext+1 {
			p.seq += seqNum(i)
			return i, used, false, ErrRecordOverflow
		}
		j := len(inner) - 1
		for j >= 0 && inner[j] == 0 {
			j--
		}
		if j < 0 {
			p.seq += seqNum(i)
			return i, used, false, ErrMissingContentType
		}
		r := &recs[i]
		typ, data := inner[j], inner[:j]
		if dst != nil {
			// One plaintext after another: the type byte and padding
			// of the records before leave a gap to close.
			data = dst[used : used+j]
			copy(data, inner[:j])
		}
		changed := typ != r.Type
		r.Type, r.Data = typ, data
		used += j
		if changed {
			p.seq += seqNum(i + 1)
			if i+1 < ok {
				p.restore(s, dst == nil, i+1, ok)
			}
			return i + 1, used, false, nil
		}
	}
	p.seq += seqNum(ok)
	if ok < k {
		return ok, used, false, ErrBadRecordMAC
	}
	return k, used, true, nil
}

// restore puts lanes from to to of an opened batch back as they were
// received: in place, by sealing them again (CCM is deterministic, so the
// fragment comes out the same), else by clearing their plaintexts.
func (p *tls13Record) restore(s *ccmScratch, inPlace bool, from, to int) {
	if !inPlace {
		for i := from; i < to; i++ {
			clear(s.dst[i])
		}
		return
	}
	sm4.CCMSealMulti(p.aead, s.src[from:to], s.nonces[from:to], s.dst[from:to], s.ads[from:to])
}
