// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"io"
	"math"

	"github.com/shangmi-go/shangmi/internal/alias"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// Batches of records.
//
// One record is a chain of dependent steps: a CBC encryption block after
// block, an SM3 compression after compression, a ZUC keystream word after
// word. The records of one direction, though, are independent of each other
// (each CBC record has its own explicit IV, each ZUC record its own IV), so
// a connection that has several to send, or has received several, can run
// them side by side in the lanes of the multi-buffer kernels: sm4's
// CBCEncryptMulti, sm3's HMACBatch, zuc's Batch.

// MaxBatch is the number of records SealBatch and OpenBatch process side by
// side; longer lists are taken MaxBatch records at a time. It is the lane
// count of the widest multi-buffer kernels (sm3.MaxBatch, sm4.MaxCBCLanes).
const MaxBatch = 16

// A BatchRecord is one record of a SealBatch or OpenBatch call.
type BatchRecord struct {
	// Type is the record's content type: for SealBatch the type to
	// protect, for OpenBatch the type in the received header, which
	// OpenBatch replaces with the content type Open returns (the inner
	// one of a TLS 1.3 record).
	Type uint8

	// Data is the plaintext. SealBatch reads it; it must either not
	// overlap any buffer of the batch or sit exactly where Seal would put
	// the plaintext in Fragment (in place). OpenBatch sets it.
	Data []byte

	// Fragment is the protected record body (the bytes after the 5-byte
	// header). For SealBatch the caller sets it to the buffer to seal
	// into, whose capacity, from index 0, should be at least
	// SealedLen(len(Data)) (else a new buffer is allocated), and
	// SealBatch sets it to the sealed fragment. For OpenBatch the caller
	// sets it to the received fragment, which OpenBatch may overwrite.
	Fragment []byte
}

// A BatchProtection is a RecordProtection that can also seal or open many
// records of its direction in one call, sharing the vector units between
// them. Every RecordProtection that Suite.NewRecordProtection or
// TLS13Suite.NewRecordProtection returns is a BatchProtection.
//
// A batch gives the records consecutive sequence numbers, exactly as a loop
// of Seal or Open calls would, and produces the same fragments and
// plaintexts; the protections' constant-time properties hold per record as
// they do for Seal and Open. Neither method allocates once the
// BatchProtection has handled its first batch, when the buffers have room.
type BatchProtection interface {
	RecordProtection

	// SealedLen returns the length of the fragment that Seal makes of an
	// n-byte plaintext (n at most MaxPlaintext): a caller can lay out
	// several records, headers included, before sealing them.
	SealedLen(n int) int

	// SealBatch seals every record of recs in order, as Seal does with
	// dst = Fragment[:0], and sets each Fragment to the sealed fragment.
	// rand supplies the CBC explicit IVs (nil means crypto/rand.Reader);
	// all of a batch's IVs are read before anything is written. It returns
	// the number of records sealed, len(recs) when err is nil; on an error
	// the records before the returned count are sealed and their sequence
	// numbers used, the rest are untouched.
	SealBatch(recs []BatchRecord, rand io.Reader) (int, error)

	// OpenBatch authenticates and decrypts the records of recs in order,
	// as Open does, and sets each Type and Data to the content type and
	// plaintext. It stops at the first record that fails: it returns how
	// many opened, and that record's error (nil if all opened). It also
	// stops, with a nil error, after a record whose content type is not
	// the type its header carries (a TLS 1.3 handshake message or alert),
	// since what that record says, a KeyUpdate, may change how the
	// records behind it are opened; they are left untouched, and the
	// returned count is then below len(recs). Records after a failing one are
	// not returned, and the sequence number advances past the opened
	// records only; GCM and ZUC records after it are neither authenticated
	// nor decrypted, while CBC (MAC-then-encrypt) records of the same
	// batch of MaxBatch may have been decrypted, in place or in dst's
	// scratch space, before the MACs were checked.
	//
	// With dst nil, every record is opened in place (Data is a sub-slice
	// of Fragment). Otherwise the plaintexts are written one after another
	// from dst[0], so that on success dst[:total] holds the data of every
	// record in order; len(dst) must be at least the sum of the fragment
	// lengths, since the space after the plaintexts may be used as
	// scratch, and dst must not overlap any fragment. Whatever OpenBatch
	// returns, dst beyond the opened plaintexts holds nothing of value.
	OpenBatch(dst []byte, recs []BatchRecord) (int, error)
}

var (
	_ BatchProtection = (*cbcRecord)(nil)
	_ BatchProtection = (*gcmRecord)(nil)
	_ BatchProtection = (*zucRecord)(nil)
)

// available returns how many of k records starting at s still get a
// sequence number; the last value is never used (see check).
func (s seqNum) available(k int) int {
	left := uint64(math.MaxUint64 - s)
	if left < uint64(k) {
		return int(left)
	}
	return k
}

// batchScratch is what one batch of CBC or ZUC records needs besides the
// records: the MAC batch and the per-record headers, IVs, MACs and lane
// slices. A RecordProtection allocates it on its first batch, so that a
// connection that never batches (a handshake, an interactive session)
// does not carry it.
type batchScratch struct {
	mac   sm3.HMACBatch
	hdr   [MaxBatch][13]byte
	iv    [MaxBatch][16]byte
	sum   [MaxBatch][sm3.Size]byte
	ivs   [MaxBatch][]byte
	dst   [MaxBatch][]byte
	src   [MaxBatch][]byte
	ivBuf [MaxBatch * 16]byte

	// A CBC OpenBatch's plaintexts (padding and MAC included), their
	// lengths and padding checks, between the decryption and the MACs.
	pt    [MaxBatch][]byte
	ptLen [MaxBatch]int
	good  [MaxBatch]int
}

// clearLanes drops the slices into the caller's buffers and wipes the MACs,
// so that the scratch holds no references or secrets between batches.
func (s *batchScratch) clearLanes(k int) {
	clear(s.ivs[:k])
	clear(s.dst[:k])
	clear(s.src[:k])
	clear(s.sum[:k])
}

// fragmentSlot returns the first size bytes of rec.Fragment's capacity, or
// a new buffer if it is too small.
func fragmentSlot(rec *BatchRecord, size int) []byte {
	out, _ := appendSpace(rec.Fragment[:0], size)
	return out
}

// placePlaintext prepares data for a cipher that writes into out, which is
// where the plaintext belongs in the fragment: it returns the source to
// encrypt from, data itself if data is out (in place) or disjoint from it
// (out of place, saving a copy), else out after copying data there.
func placePlaintext(out, data []byte) []byte {
	if len(data) == 0 || !alias.InexactOverlap(out, data) {
		return data
	}
	copy(out, data)
	return out
}

// openEach is OpenBatch for protections that open records one by one:
// open is their Open, decrypting into dst (when not nil) instead of in
// place. The batch ends after a record whose content type is not the one
// its header carried (a TLS 1.3 handshake message or alert): a KeyUpdate
// changes the key of the records behind it.
func openEach(open func(dst []byte, typ uint8, fragment []byte) (uint8, []byte, error), dst []byte, recs []BatchRecord) (int, error) {
	off := 0
	for i := range recs {
		r := &recs[i]
		typ, pt, err := open(openDst(dst, off), r.Type, r.Fragment)
		if err != nil {
			return i, err
		}
		changed := typ != r.Type
		r.Type, r.Data = typ, pt
		off += len(pt)
		if changed {
			return i + 1, nil
		}
	}
	return len(recs), nil
}

// openDst returns where record i of an OpenBatch with destination dst
// decrypts to, given that off bytes of dst are already taken, or nil to
// open in place.
func openDst(dst []byte, off int) []byte {
	if dst == nil {
		return nil
	}
	return dst[off:]
}
