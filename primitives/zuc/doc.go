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
// The keystream and MAC kernels are chosen once, at start-up, in a small
// architecture-specific dispatch file. Today every architecture runs the
// generic Go code in core_generic.go; the build tag purego forces it even
// once assembly kernels exist. The generic code looks up ZUC's S-boxes in
// tables with secret-dependent indices, as every portable ZUC does; the MAC
// accumulation is free of tables and branches.
package zuc
