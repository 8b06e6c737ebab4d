// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package zuc implements the ZUC stream cipher and the algorithms built on
// it:
//
//   - ZUC-128 (GB/T 33133.1-2016, GM/T 0001-2012) and ZUC-256 (the 2018
//     specification, version 1.1) keystream generators, [NewCipher];
//   - 128-EEA3, the 3GPP confidentiality algorithm (GB/T 33133.2-2021,
//     GM/T 0001.2), [NewEEA3] and [EEA3Bits];
//   - 128-EIA3, the 3GPP integrity algorithm (GB/T 33133.3-2021,
//     GM/T 0001.3), [NewEIA3];
//   - the ZUC-256 MAC with 32-, 64- and 128-bit tags, [NewMAC256].
//
// The ZUC-256 functions take the 184-bit IV either packed into 23 bytes
// (IV17…IV24 as eight 6-bit fields in the last six bytes) or as 25 bytes
// (one 6-bit value per byte); the later 128-bit-IV revisions of ZUC-256 are
// different algorithms and are not implemented.
//
// Keystream words are used big-endian, as in the standards. [NewCipher]
// returns a *[Cipher], whose [Cipher.Reset] starts a new keystream for a new
// IV under the same key without allocating: the TLCP ZUC-128 record suites
// of this module restart the keystream for every record.
//
// The MACs implement [hash.Hash] and [hash.Cloner]. 3GPP messages need not
// be whole bytes; the FinishBits methods take a message length in bits.
//
// [Batch] computes many keystreams or 128-EIA3 MACs at once, one message
// per lane of a multi-lane kernel ([Lanes] of them), for callers with many
// independent messages: the packets of a 3GPP stack, or the records a
// TLCP connection has queued under a ZUC-128 suite (one key, an IV per
// record). Where there is no multi-lane kernel it processes the messages
// one after the other.
//
// # Implementations
//
// The kernels are chosen once, at start-up, in one dispatch file per
// architecture (zuc_asm_amd64.go, zuc_asm_arm64.go); the build tag purego forces
// the generic Go code. Per path:
//
//   - amd64 with AVX-512 (F, BW, VL, VBMI, VBMI2, GFNI, VPCLMULQDQ): S0 by
//     VPERMT2B over the 256-byte table held in four ZMM registers, S1 by
//     VGF2P8AFFINEQB and VGF2P8AFFINEINVQB; 16 lanes. Constant time: no
//     memory access or branch depends on the key, the IV, the keystream
//     or the message.
//   - amd64 with AVX2, AES-NI and PCLMULQDQ: S0 by its three-round
//     structure on nibbles (VPSHUFB lookups in registers), S1 by
//     AESENCLAST between two nibble-table linear maps; 8 lanes. Constant
//     time.
//   - arm64 with NEON, AES and PMULL: S0 by TBL over the table held in
//     sixteen vector registers, S1 by AESE between two TBL linear maps; 4
//     lanes. Constant time.
//   - everything else (other architectures, older CPUs, purego): the
//     generic Go code, which looks up the S-boxes in tables with
//     secret-dependent indices, as every portable ZUC does, so it is not
//     constant time on CPUs with data caches.
//
// On every path the MACs are accumulated without tables or
// message-dependent branches (PCLMULQDQ, PMULL, or a multiplication-based
// carry-less product in the generic code). A single keystream is a chain
// of dependent rounds, so its speed is bounded by the latency of one round
// of the nonlinear function; the multi-lane kernels run as many rounds as
// there are lanes in the time of about one.
package zuc
