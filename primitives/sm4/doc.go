// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package sm4 implements the SM4 block cipher (GB/T 32907-2016) and the
// modes of operation used with it: CBC, CTR and GCM through the block's
// crypto/cipher fast-path methods, CCM (NIST SP 800-38C) and XTS in both the
// IEEE Std 1619 and the GB/T 17964-2021 flavours.
//
// The block returned by [NewCipher] is meant to be used through the standard
// constructors cipher.NewCBCEncrypter, cipher.NewCBCDecrypter, cipher.NewCTR
// and cipher.NewGCM (with its WithNonceSize and WithTagSize variants). They
// notice that the block has NewCBCEncrypter, NewCBCDecrypter, NewCTR and
// NewGCM methods and hand the work to this package, which processes several
// blocks per call to the block kernel and computes GHASH itself.
//
// # Timing
//
// The portable implementation uses 1 KiB lookup tables that combine the
// S-box with the linear transform L, indexed by bytes of the secret state
// (and the key schedule indexes the S-box with key bytes).
// Like any table-driven block cipher it may leak information through
// cache timing to an attacker who shares the CPU; the dispatch point in
// sm4_amd64.go and sm4_arm64.go is where constant-time vector kernels
// (AES-NI/GFNI based S-box evaluation) will plug in. The GHASH used by GCM
// is computed without secret-dependent memory accesses or branches.
package sm4
