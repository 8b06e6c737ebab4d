// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// Record size limits (tlcp/INTEROP.md §1.3, ZUC.md).
const (
	MaxPlaintext     = 1 << 14             // largest plaintext fragment
	MaxCiphertext    = MaxPlaintext + 2048 // largest protected fragment
	maxZUCCiphertext = MaxPlaintext + 32   // largest ZUC-128 fragment
)

// recordVersion is the TLCP protocol version, part of every MAC and AAD.
const recordVersion = 0x0101

// Errors of the record layer. tlcp sends bad_record_mac (20) for ErrBadRecordMAC and
// record_overflow (22) for ErrRecordOverflow; ErrSequenceOverflow means the
// connection has used up its sequence numbers and must be closed.
var (
	ErrBadRecordMAC     = errors.New("ciphersuite: bad record MAC")
	ErrRecordOverflow   = errors.New("ciphersuite: record overflow")
	ErrSequenceOverflow = errors.New("ciphersuite: sequence number exhausted")
)

// RecordProtection protects the records of one direction of a connection and owns
// its 64-bit sequence number, which starts at zero. One interface serves both
// protocols: Suite.NewRecordProtection makes the TLCP protections (the content type
// travels in the record header and is authenticated with it), and
// TLS13Suite.NewRecordProtection the TLS 1.3 ones (the content type travels inside
// the encrypted fragment, and the header says application_data). Use one value only
// to Seal (the writing side) or only to Open (the reading side). A RecordProtection
// is not safe for concurrent use. Seal and Open do not allocate when dst has enough
// capacity.
type RecordProtection interface {
	// Seal appends to dst the protected fragment (the record body after the 5-byte
	// header) for a record of content type typ carrying plaintext, and returns the
	// extended slice. plaintext may alias dst[len(dst):] exactly (in place); any
	// other overlap is handled as well, at the cost of a copy. rand supplies the
	// CBC explicit IVs; nil means crypto/rand.Reader. len(plaintext) must not
	// exceed MaxPlaintext (ErrRecordOverflow).
	Seal(dst []byte, typ uint8, plaintext []byte, rand io.Reader) ([]byte, error)

	// Open authenticates and decrypts fragment (the record body) of a record
	// whose header carries type typ, in place, and returns the record's content
	// type and its plaintext, a sub-slice of fragment. The content type is typ
	// for TLCP and the inner content type for TLS 1.3. Every authentication or
	// format failure is ErrBadRecordMAC; an oversized fragment or plaintext is
	// ErrRecordOverflow; a TLS 1.3 record that authenticates but carries no
	// content type is ErrMissingContentType. The sequence number advances only
	// on success; after an error the connection must be closed.
	Open(typ uint8, fragment []byte) (contentType uint8, plaintext []byte, err error)

	// Overhead returns the largest number of bytes Seal adds to a plaintext.
	Overhead() int

	// Sequence returns the sequence number of the next record, which is the
	// number of records sealed or opened so far.
	Sequence() uint64
}

// NewRecordProtection returns the record protection of suite s for one direction,
// keyed with that direction's write keys (client keys for client-to-server records).
func (s *Suite) NewRecordProtection(k Keys) (RecordProtection, error) {
	if err := s.supportedErr(); err != nil {
		return nil, err
	}
	if len(k.MAC) != s.MACLen || len(k.Key) != s.KeyLen || len(k.IV) != s.IVLen {
		return nil, fmt.Errorf("ciphersuite: %s needs MAC/key/IV lengths %d/%d/%d, got %d/%d/%d",
			s.Name, s.MACLen, s.KeyLen, s.IVLen, len(k.MAC), len(k.Key), len(k.IV))
	}
	// Each case checks its own error so that a failure returns a nil interface,
	// not one holding a nil pointer.
	switch s.Cipher {
	case CipherSM4CBC:
		c, err := newCBC(k, sm3.New)
		if err != nil {
			return nil, err
		}
		return c, nil
	case CipherSM4GCM:
		g, err := newGCM(k)
		if err != nil {
			return nil, err
		}
		return g, nil
	case CipherZUC128:
		z, err := newZUC(k, sm3.New)
		if err != nil {
			return nil, err
		}
		return z, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupported, s.Name)
}

// newHMAC returns the record MAC, ready for the first record. crypto/hmac
// snapshots the keyed inner and outer hash states on its first Reset (two
// small allocations) and restores them on every later Reset and Sum; taking
// that snapshot here means no record, the first included, allocates.
func newHMAC(newHash func() hash.Hash, key []byte) hash.Hash {
	h := hmac.New(newHash, key)
	h.Reset()
	return h
}

// seqNum is a direction's record sequence number.
type seqNum uint64

// check refuses the last value, so that the counter can never wrap (tlcp/INTEROP.md §1.4).
func (s seqNum) check() error {
	if s == math.MaxUint64 {
		return ErrSequenceOverflow
	}
	return nil
}

// putHeader writes the 13 bytes that TLCP authenticates with each record:
// seq || type || version || length (tlcp/INTEROP.md §1.5, §1.6).
func putHeader(b *[13]byte, seq seqNum, typ uint8, n int) {
	binary.BigEndian.PutUint64(b[0:8], uint64(seq))
	b[8] = typ
	binary.BigEndian.PutUint16(b[9:11], recordVersion)
	binary.BigEndian.PutUint16(b[11:13], uint16(n))
}

// appendSpace returns in grown by n bytes (whole) and those n bytes
// (added), reallocating only when in's capacity is too small.
func appendSpace(in []byte, n int) (whole, added []byte) {
	whole = slices.Grow(in, n)[:len(in)+n]
	return whole, whole[len(in):]
}

// moveTo copies src to the start of dst unless it is already there. copy handles
// overlap, so src may be anywhere in or around dst.
func moveTo(dst, src []byte) {
	if len(src) == 0 || &dst[0] == &src[0] {
		return
	}
	copy(dst, src)
}
