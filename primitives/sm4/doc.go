// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package sm4 implements the SM4 block cipher (GB/T 32907-2016) and the
// modes of operation used with it: CBC, CTR and GCM through the block's
// crypto/cipher fast-path methods, CCM (NIST SP 800-38C), XTS in both the
// IEEE Std 1619 and the GB/T 17964-2021 flavours, and [CBCEncryptMulti],
// which CBC-encrypts up to 16 independent messages at once.
//
// The block returned by [NewCipher] is meant to be used through the standard
// constructors cipher.NewCBCEncrypter, cipher.NewCBCDecrypter, cipher.NewCTR
// and cipher.NewGCM (with its WithNonceSize and WithTagSize variants). They
// notice that the block has NewCBCEncrypter, NewCBCDecrypter, NewCTR and
// NewGCM methods and hand the work to this package, which runs whole modes
// in assembly where the CPU allows. [NewGCMWithKey] is NewCipher and
// cipher.NewGCM in one allocation, for code that makes many short-lived
// keys (a TLS or TLCP handshake makes four).
//
// # Implementations
//
// On amd64 the package chooses, once, the best of four kernel flavours the
// CPU supports: GFNI with AVX-512 (16 blocks per register, three registers'
// worth of blocks in flight, fused CTR, CBC decryption, XTS and GCM with
// VPCLMULQDQ), GFNI with AVX2, VAES with AVX2, and AES-NI with AVX (the
// S-box through AESENCLAST between two affine maps). Serial work (one
// block, CBC encryption, CCM's CBC-MAC) goes through a single-block kernel
// that keeps the state in the S-box's input domain, which takes an affine
// step off every round's critical path. On arm64 it uses the SM4E and SM4EKEY
// instructions where present, otherwise NEON with the S-box through AESE;
// GHASH uses PMULL. With the purego build tag, or on other architectures,
// everything is portable Go.
//
// golang.org/x/sys/cpu reports GFNI and VAES only together with AVX-512,
// so on CPUs that have them without AVX-512 the AES-NI kernels run.
//
// # Timing
//
// The assembly kernels, including the key schedules on amd64 (GFNI or
// AES-NI S-box) and arm64 (SM4EKEY, or the AESE S-box of the NEON kernel),
// neither branch on nor index memory with keys or data, and GHASH uses
// carry-less multiplication instructions: with any of them the package is
// constant time.
//
// The portable implementation, used with purego, on other architectures,
// and on amd64 CPUs without AES-NI, uses 1 KiB lookup tables that combine
// the S-box with the linear transform L, indexed by bytes of the secret
// state, and its key schedule indexes the S-box with key bytes. Like any
// table-driven block cipher it may leak information through cache timing
// to an attacker who shares the CPU. Its GHASH is computed without
// secret-dependent memory accesses or branches.
package sm4
