// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

// ExplicitSequence is implemented by the TLCP record protections
// (Suite.NewRecordProtection). A datagram protocol (DTLCP, GM/T 0128-2023,
// as DTLS 1.2, RFC 6347 §4.1) carries each record's sequence number in its
// header, epoch (16 bits) || sequence number (48 bits), and puts that
// 64-bit value where TLCP puts its implicit counter: in the MAC input and
// the AEAD additional data, and, for SM4-GCM, in the explicit nonce of
// the records it seals. Records arrive out of order and with gaps, so the
// reading side sets the number from each record before Open; the writing
// side sets it once per epoch and lets Seal count from there.
type ExplicitSequence interface {
	SetSequence(seq uint64)
}

func (c *cbcRecord) SetSequence(seq uint64) { c.seq = seqNum(seq) }

func (g *gcmRecord) SetSequence(seq uint64) { g.seq = seqNum(seq) }

func (z *zucRecord) SetSequence(seq uint64) { z.seq = seqNum(seq) }
