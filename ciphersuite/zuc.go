// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"hash"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/zuc"
)

// zucRecord is this project's ZUC-128 + HMAC-SM3 record protection
// (ZUC.md): C = P ⊕ ZUC-128(key, IV ⊕ seq), fragment = C || MAC,
// MAC = HMAC-SM3(seq || type || version || len(C) || C), encrypt-then-MAC.
type zucRecord struct {
	stream *zuc.Cipher
	mac    hash.Hash
	key    sm3.HMACKey // the MAC key again, for batches
	seq    seqNum
	iv     [zucIVLen]byte // write_IV
	zucIV  [zucIVLen]byte // write_IV ⊕ (0^64 || seq), this record's IV
	hdr    [13]byte
	sum    [zucMACLen]byte

	zucKey [1][]byte // the ZUC key, as zuc.Batch takes it
	batch  *zucBatch // allocated by the first batch of several records
}

// zucBatch is the scratch of a batch of ZUC records: the lanes of the MACs
// and the multi-lane keystream engine.
type zucBatch struct {
	batchScratch
	z zuc.Batch
}

const zucOverhead = zucMACLen

func newZUC(k Keys, newHash func() hash.Hash) (*zucRecord, error) {
	s, err := zuc.NewCipher(k.Key, k.IV)
	if err != nil {
		return nil, err
	}
	c, ok := s.(*zuc.Cipher)
	if !ok {
		return nil, fmt.Errorf("ciphersuite: zuc.NewCipher returned %T, not *zuc.Cipher", s)
	}
	z := &zucRecord{stream: c, mac: newHMAC(newHash, k.MAC)}
	copy(z.iv[:], k.IV)
	z.key.SetKey(k.MAC)
	z.zucKey[0] = append([]byte(nil), k.Key...)
	return z, nil
}

func (z *zucRecord) Overhead() int { return zucOverhead }

func (z *zucRecord) Sequence() uint64 { return uint64(z.seq) }

func (z *zucRecord) SealedLen(n int) int { return n + zucOverhead }

// recordIV sets iv to the ZUC IV of the record with sequence number seq:
// write_IV ⊕ (0^64 ‖ seq).
func (z *zucRecord) recordIV(iv *[zucIVLen]byte, seq seqNum) {
	*iv = z.iv
	binary.BigEndian.PutUint64(iv[8:], binary.BigEndian.Uint64(z.iv[8:])^uint64(seq))
}

// startKeystream starts the fresh keystream of the current record: every record
// has its own IV, so records are independent of each other.
func (z *zucRecord) startKeystream() {
	z.recordIV(&z.zucIV, z.seq)
	if err := z.stream.Reset(z.zucIV[:]); err != nil {
		panic("ciphersuite: ZUC-128 rejected a 16-byte IV: " + err.Error())
	}
}

// macInto writes the record MAC of ciphertext c into b.
func (z *zucRecord) macInto(b []byte, typ uint8, c []byte) {
	putHeader(&z.hdr, z.seq, typ, len(c))
	z.mac.Reset()
	z.mac.Write(z.hdr[:])
	z.mac.Write(c)
	z.mac.Sum(b[:0])
}

func (z *zucRecord) Seal(dst []byte, typ uint8, plaintext []byte, _ io.Reader) ([]byte, error) {
	n := len(plaintext)
	if n > MaxPlaintext {
		return nil, ErrRecordOverflow
	}
	if err := z.seq.check(); err != nil {
		return nil, err
	}
	ret, out := appendSpace(dst, n+zucOverhead)
	c := out[:n]
	src := placePlaintext(c, plaintext)

	z.startKeystream()
	z.stream.XORKeyStream(c, src)
	z.macInto(out[n:], typ, c)

	z.seq++
	return ret, nil
}

func (z *zucRecord) Open(typ uint8, fragment []byte) (uint8, []byte, error) {
	pt, err := z.open(nil, typ, fragment)
	return typ, pt, err
}

// checkZUCFragment returns the error Open gives a fragment for its length
// alone, if any.
func checkZUCFragment(fragment []byte) error {
	if len(fragment) > maxZUCCiphertext {
		return ErrRecordOverflow
	}
	if len(fragment) < zucOverhead {
		return ErrBadRecordMAC
	}
	return nil
}

// open is Open, decrypting into dst (at least len(fragment)-32 bytes, not
// overlapping fragment) instead of in place if dst is not nil.
func (z *zucRecord) open(dst []byte, typ uint8, fragment []byte) ([]byte, error) {
	if err := checkZUCFragment(fragment); err != nil {
		return nil, err
	}
	if err := z.seq.check(); err != nil {
		return nil, err
	}
	n := len(fragment) - zucOverhead
	c := fragment[:n]

	// Nothing is decrypted before the MAC is known to be good.
	z.macInto(z.sum[:], typ, c)
	if subtle.ConstantTimeCompare(z.sum[:], fragment[n:]) != 1 {
		return nil, ErrBadRecordMAC
	}
	out := c
	if dst != nil {
		out = dst[:n]
	}
	z.startKeystream()
	z.stream.XORKeyStream(out, c)

	z.seq++
	return out, nil
}
