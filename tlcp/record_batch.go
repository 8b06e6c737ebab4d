// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"sync"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// Batched records.
//
// A Write of more than one record seals up to batchRecords of them in one
// ciphersuite.BatchProtection.SealBatch call, into one buffer with their
// headers, and hands that buffer to the transport in one Write: one system
// call instead of one per record, and the multi-buffer kernels for the CBC
// and ZUC suites. A bulk receiver reads as much as a batch holds in one
// transport Read, and opens every whole record the read delivered in one
// OpenBatch call; it never waits for more records to fill a batch. When
// the caller's Read buffer can take the plaintexts, or most of them, they
// are decrypted straight into it; a buffer that takes fewer than half of
// the records that arrived has them opened in place as one batch.
//
// Memory: the batch buffers (batchBufSize, about 257 KiB) come from a pool
// and are held only while a Write runs, or while a streaming receiver has
// unread bytes in one: a Read that leaves nothing unread gives it back, so
// a connection waiting for data, or whose reader has paused, holds a
// buffer of one record at most, as before.

// batchRecords is the most records sealed or opened in one batch.
const batchRecords = ciphersuite.MaxBatch

// batchBufSize holds batchRecords records of 2^14 bytes under any of the
// suites, headers included (CBC adds the most: IV, MAC and a block of
// padding).
const batchBufSize = batchRecords * (recordHeaderLen + maxPlaintext + 64)

// oneRecordSize is the buffer that any single record fits in.
const oneRecordSize = recordHeaderLen + maxCiphertext

var batchBufPool = sync.Pool{New: func() any {
	b := make([]byte, batchBufSize)
	return &b
}}

// inputBuffer holds the bytes read from the transport and not yet
// processed, buf[off:end]. A connection reads into a buffer of its own,
// sized for one record. Once a read fills all the space it was given (the
// peer is streaming), reads go to a batch-sized buffer from batchBufPool;
// it goes back to the pool when everything in it has been processed and
// the last read was not a large one, so that a connection waiting for data
// holds one only if it was streaming until the moment it began to wait.
type inputBuffer struct {
	buf       []byte
	off, end  int
	own       []byte  // the connection's own buffer
	pooled    *[]byte // a batch buffer while held
	streaming bool    // the last read filled its space, or a good part of a batch buffer
}

// Len returns the number of unprocessed bytes.
func (b *inputBuffer) Len() int { return b.end - b.off }

// Bytes returns the unprocessed bytes, valid until the next space call.
func (b *inputBuffer) Bytes() []byte { return b.buf[b.off:b.end] }

// Next consumes n bytes and returns them; they stay valid until the next
// space call.
func (b *inputBuffer) Next(n int) []byte {
	p := b.buf[b.off : b.off+n : b.off+n]
	b.off += n
	return p
}

// space returns the free space the next transport read goes to: at least
// need bytes (need is at most one record), and as much as a batch takes
// if bulk is allowed and the last read came back full.
func (b *inputBuffer) space(need int, bulk bool) []byte {
	if b.Len() == 0 {
		b.off, b.end = 0, 0
		if b.pooled != nil && !b.streaming {
			// Nothing in it is referenced any more: the records it held
			// have been delivered before a read is asked for.
			batchBufPool.Put(b.pooled)
			b.pooled, b.buf = nil, b.own
		}
	}
	if b.buf == nil {
		b.buf = b.own
	}
	// A read that filled the connection's buffer in the middle of a record
	// larger than that buffer says the buffer is too small for the
	// records, not that the peer streams: the buffer grows (below), so
	// that the next record of that size comes in one read, as with
	// crypto/tls, instead of in two with a batch buffer taken and given
	// back for each. Once it holds a whole record, a full read means
	// streaming.
	grow := b.Len()+need > len(b.own)
	if bulk && b.streaming && b.pooled == nil && !grow {
		b.pooled = batchBufPool.Get().(*[]byte)
		to := *b.pooled
		b.end = copy(to, b.buf[b.off:b.end])
		b.off, b.buf = 0, to
	}
	if free := len(b.buf) - b.end; b.off > 0 && (free < need || free < len(b.buf)/4) {
		// Slide the unread bytes, a partial record, to the front.
		b.end = copy(b.buf, b.buf[b.off:b.end])
		b.off = 0
	}
	if len(b.buf)-b.end < need {
		// Only the connection's own buffer can be too small: it starts
		// small (handshake records are) and doubles up to one record.
		size := min(oneRecordSize, max(2*len(b.own), b.Len()+need, 512))
		own := make([]byte, max(size, b.Len()+need))
		b.end = copy(own, b.buf[b.off:b.end])
		b.off, b.own, b.buf = 0, own, own
	}
	return b.buf[b.end:]
}

// release gives the batch buffer back to the pool when nothing in it is
// unread, at the end of a Read that consumed everything: a receiver that
// stops calling Read in the middle of a stream (a proxy waiting for its
// other side, a bulk reader between transfers) then holds no batch buffer
// while it waits. It stays streaming, so that its next read takes one from
// the pool again; a Get and a Put per Read cost nothing beside the batch.
func (b *inputBuffer) release() {
	if b.pooled != nil && b.Len() == 0 {
		batchBufPool.Put(b.pooled)
		b.pooled, b.buf, b.off, b.end = nil, b.own, 0, 0
	}
}

// shrink drops the connection's own buffer if nothing is unread in it and
// it has grown beyond what a handshake record needs to start with; the
// next read makes a new one, as small as that read needs.
func (b *inputBuffer) shrink() {
	if b.Len() == 0 && b.pooled == nil && len(b.own) > 512 {
		b.own, b.buf, b.off, b.end = nil, nil, 0, 0
	}
}

// commit records that a read of the space last returned delivered n bytes
// of the offered avail.
func (b *inputBuffer) commit(n, avail int) {
	b.end += n
	b.streaming = n == avail || n >= batchBufSize/4
}

// batchRecsPool holds the record arrays of batches in progress.
var batchRecsPool = sync.Pool{New: func() any { return new([batchRecords]ciphersuite.BatchRecord) }}

// recordBatches is the batching state of a connection. The read side
// (everything but seal) is guarded by c.in, seal by c.out.
//
// recs are the records of the last in-place OpenBatch that nextRecord has
// not handed out yet, and err the error that ends them, if one did. The
// plaintexts alias c.rawInput, which is not read into again until the
// queue is empty.
type recordBatches struct {
	// The records of a read batch, from batchRecsPool while a batch is
	// open or queued (on the heap in any case: OpenBatch is an interface
	// call), so that an idle connection does not carry them; a write
	// batch takes its own from the pool for the length of the Write.
	recs *[batchRecords]ciphersuite.BatchRecord

	next, n int
	err     error

	// dst is the buffer of the Read in progress: when it can hold the
	// plaintexts, they are opened straight into it, and direct says so.
	dst      []byte
	direct   bool
	trailing int // empty records after the last data of a direct batch
}

// nextQueued returns the next queued record or, after the last, the error
// that stopped the batch; ok is false when the queue is empty. The caller
// reports the error to the peer.
func (c *Conn) nextQueued() (typ recordType, data []byte, err error, ok bool) {
	q := &c.rb
	if q.next < q.n {
		r := &q.recs[q.next]
		typ, data = recordType(r.Type), r.Data
		if q.next++; q.next == q.n {
			clear(q.recs[:q.n])
			q.next, q.n = 0, 0
		}
		return typ, data, nil, true
	}
	if q.err != nil {
		err, q.err = q.err, nil
		return 0, nil, err, true
	}
	return 0, nil, nil, false
}

// batchOpener returns the protection to open the record at the front of
// c.rawInput with as part of a batch, or nil to open it alone: only
// application data after the handshake is batched, so that no
// ChangeCipherSpec or handshake key change can fall inside a batch. A TLS
// 1.3 KeyUpdate can, inside an application_data record: OpenBatch stops
// after it.
func (c *Conn) batchOpener(typ recordType) ciphersuite.BatchProtection {
	if typ != recordTypeApplicationData || !c.isHandshakeComplete.Load() {
		return nil
	}
	bp, _ := c.in.rp.(ciphersuite.BatchProtection)
	return bp
}

// openBatch opens the record at the front of c.rawInput, whose header has
// passed checkRecordHeader and which has arrived whole, and with it the
// whole application-data records right behind it, up to batchRecords. A
// record with anything unusual in its header ends the batch before it, to
// be read alone and refused in its turn. Into a Read's buffer, the
// plaintexts of application data are returned as one piece; in place, the
// first record is returned and the others queued. A record whose inner
// type is not application data (TLS 1.3) ends the batch; it is queued, and
// the records behind it, not yet opened, stay in c.rawInput. The caller
// reports an error to the peer.
func (c *Conn) openBatch(bp ciphersuite.BatchProtection) (recordType, []byte, error) {
	q := &c.rb
	if q.recs == nil {
		// Given back by releaseInput once nothing queued is left.
		q.recs = batchRecsPool.Get().(*[batchRecords]ciphersuite.BatchRecord)
	}
	raw := c.rawInput.Bytes()
	dst := q.dst
	var ends [batchRecords]int
	k, used, total := 0, 0, 0
	fits := -1 // how many records fit in dst, if not all
	limit := c.recordLimit()
	for k < batchRecords && len(raw)-used >= recordHeaderLen {
		hdr := raw[used : used+recordHeaderLen]
		n := int(hdr[3])<<8 | int(hdr[4])
		if k > 0 && (recordType(hdr[0]) != recordTypeApplicationData ||
			!c.recordVersionOK(uint16(hdr[1])<<8|uint16(hdr[2])) || n > limit) {
			break
		}
		if len(raw)-used < recordHeaderLen+n {
			break
		}
		if dst != nil && total+n > len(dst) && fits < 0 {
			fits = k // the records from here on do not fit in dst
		}
		start := used + recordHeaderLen
		q.recs[k] = ciphersuite.BatchRecord{Type: hdr[0], Fragment: raw[start : start+n : start+n]}
		used = start + n
		ends[k] = used
		total += n
		k++
	}

	if fits >= 0 {
		// Into the Read's buffer go as many records as fit, the rest
		// to the next Read, when that is most of them and the rest are
		// enough for a batch of their own; otherwise (a Read buffer of
		// one or two records, as io.Copy's, or one that misses a
		// single record) the whole batch is opened in place and
		// queued: the suites whose records share the lanes (CBC, ZUC,
		// CCM) would open the others one or two at a time, and a copy
		// out of the queue costs far less than that.
		if 2*fits >= k && k-fits >= 2 {
			clear(q.recs[fits:k])
			k, used = fits, ends[fits-1]
		} else {
			dst = nil
		}
	}
	opened, err := bp.OpenBatch(dst, q.recs[:k])
	if err != nil {
		err = openFailure(err)
	}
	for i := range opened {
		if len(q.recs[i].Data) > maxPlaintext {
			opened, err = i, errorf(alertRecordOverflow, "tlcp: decrypted record too large")
			break
		}
	}
	if err == nil && opened < k {
		used = ends[opened-1] // OpenBatch stopped after a non-data record
	}
	if opened > 0 && c.vers == VersionTLS13 {
		// Only the last record can have another inner type.
		if ierr := checkInnerType(recordType(q.recs[opened-1].Type)); ierr != nil {
			opened, err = opened-1, ierr
		}
	}
	c.rawInput.Next(used)
	if opened == 0 {
		clear(q.recs[:k])
		return 0, nil, err
	}
	q.err = err
	if dst != nil {
		// A last record that is not application data is queued, its
		// plaintext moved out of the Read's buffer to where its fragment
		// was: the caller may overwrite that buffer before the record is
		// handled.
		data, special := opened, ciphersuite.BatchRecord{}
		if last := &q.recs[opened-1]; recordType(last.Type) != recordTypeApplicationData {
			data--
			pt := last.Fragment[:len(last.Data)]
			copy(pt, last.Data)
			special = ciphersuite.BatchRecord{Type: last.Type, Data: pt}
		}
		// One piece of data for readRecordOrCCS, so the empty records
		// among them are counted here, one by one as it would: a run
		// of too many ends the batch before the one over the limit.
		size, useless := 0, c.uselessRecords
		for i := range data {
			if n := len(q.recs[i].Data); n > 0 {
				size += n
				useless = 0
			} else if useless++; useless > maxUselessRecords {
				uerr := errorf(alertUnexpectedMessage,
					"tlcp: the peer sent more than %d empty records or warnings in a row", maxUselessRecords)
				if i == 0 {
					clear(q.recs[:k])
					q.err = nil
					return 0, nil, uerr
				}
				q.err, special.Data = uerr, nil
				break
			}
		}
		clear(q.recs[:k])
		if special.Data != nil {
			q.recs[0] = special
			q.next, q.n = 0, 1
			if data == 0 {
				typ, pt, err, _ := c.nextQueued()
				return typ, pt, err
			}
		}
		if size == 0 {
			// readRecordOrCCS counts the last one.
			c.uselessRecords = useless - 1
			return recordTypeApplicationData, nil, nil
		}
		// readRecordOrCCS resets the count for the data; the empty
		// records after the last data are counted again by takeDirect.
		q.direct, q.trailing = true, useless
		return recordTypeApplicationData, dst[:size], nil
	}
	clear(q.recs[opened:k])
	q.next, q.n = 0, opened
	typ, data, err, _ := c.nextQueued()
	return typ, data, err
}

// takeDirect reports whether the last record read went straight into the
// Read buffer, and how many bytes it left there. c.in must be held.
func (c *Conn) takeDirect() (int, bool) {
	if !c.rb.direct {
		return 0, false
	}
	c.rb.direct = false
	c.uselessRecords = c.rb.trailing
	n := c.input.Len()
	c.input.Reset(nil)
	return n, true
}

// batchSealer returns the protection to seal data with in batches, or nil
// if it is one record or the protection cannot batch.
func (c *Conn) batchSealer(data []byte) ciphersuite.BatchProtection {
	if len(data) <= maxPlaintext {
		return nil
	}
	bp, _ := c.out.rp.(ciphersuite.BatchProtection)
	return bp
}

// writeBatchedLocked sends data as records of type typ, sealed
// batchRecords at a time into one pooled buffer that goes to the
// transport in one Write. c.out must be held.
func (c *Conn) writeBatchedLocked(bp ciphersuite.BatchProtection, typ recordType, data []byte) (int, error) {
	bufp := batchBufPool.Get().(*[]byte)
	defer batchBufPool.Put(bufp)
	buf := *bufp
	// The records' array is the pool's for the length of the Write: an
	// idle connection holds none (issue 32's memory per connection).
	recs := batchRecsPool.Get().(*[batchRecords]ciphersuite.BatchRecord)
	defer func() { clear(recs[:]); batchRecsPool.Put(recs) }()
	sent := 0
	for len(data) > 0 {
		k, end := 0, 0
		var ends [batchRecords]int
		for k < batchRecords && len(data) > 0 {
			m := min(len(data), maxPlaintext)
			size := bp.SealedLen(m)
			if end+recordHeaderLen+size > len(buf) {
				break
			}
			c.putRecordHeader(buf[end:end+recordHeaderLen], typ, size)
			start := end + recordHeaderLen
			recs[k] = ciphersuite.BatchRecord{Type: uint8(typ), Data: data[:m], Fragment: buf[start:start:(start + size)]}
			end = start + size
			ends[k] = end
			data = data[m:]
			k++
		}
		sealed, err := bp.SealBatch(recs[:k], c.config.rand())
		if sealed > 0 {
			if werr := c.sendRecordLocked(typ, buf[:ends[sealed-1]]); werr != nil {
				return sent, c.out.setErrorLocked(werr)
			}
			for i := range sealed {
				sent += len(recs[i].Data)
			}
		}
		if err != nil {
			return sent, c.out.setErrorLocked(sealFailure(err))
		}
	}
	return sent, nil
}
