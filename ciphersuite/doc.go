// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package ciphersuite holds the TLCP (GB/T 38636-2020) cipher suite table, the key
// schedule and the record protection of each suite.
//
// # API
//
//	type ID = uint16
//	const ECC_SM4_CBC_SM3 = 0xE013, ECC_SM4_GCM_SM3 = 0xE053, ECDHE_SM4_CBC_SM3 = 0xE011,
//	      ECDHE_SM4_GCM_SM3 = 0xE051, ECC_ZUC128_SM3 = 0xFF13, ECDHE_ZUC128_SM3 = 0xFF11,
//	      and the names-only IBC/IBSDH/RSA/SM1 suites of GB/T 38636 and GM/T 0024
//	type KeyExchange int   // KeyExchangeECC, KeyExchangeECDHE, KeyExchangeIBC, KeyExchangeIBSDH, KeyExchangeRSA
//	type Cipher int        // CipherSM4CBC, CipherSM4GCM, CipherZUC128, CipherSM1
//	type Hash int          // HashSM3, HashSHA256, HashSHA1
//	type Suite struct {
//		ID ID; Name, Alias string; KeyExchange KeyExchange; Cipher Cipher; Hash Hash
//		MACLen, KeyLen, IVLen int  // key-block lengths per direction
//		Supported, OptIn bool      // OptIn: the ZUC suites, never offered by default
//	}
//	func Lookup(id ID) *Suite            // any known suite, nil if unknown
//	func Get(id ID) (*Suite, error)      // supported suites only; error names the suite and why (wraps ErrUnsupported)
//	func Name(id ID) string              // "0xE0A1" for unknown values
//	func All() []*Suite                  // every known suite, code-point order
//	func DefaultPreference() []ID        // E053, E013, E051, E011
//
//	func PRF(dst, secret []byte, label string, seed []byte)                 // P_SM3, fills dst
//	func MasterSecret(premaster, clientRandom, serverRandom []byte) []byte  // 48 bytes
//	type Keys struct{ MAC, Key, IV []byte }
//	func (s *Suite) KeyBlock(master, clientRandom, serverRandom []byte) (client, server Keys)
//	func FinishedVerifyData(master []byte, label string, transcriptHash []byte) []byte // 12 bytes
//	const LabelClientFinished, LabelServerFinished, MasterSecretLen, VerifyDataLen
//
//	type RecordProtection interface {
//		Seal(dst []byte, typ uint8, plaintext []byte, rand io.Reader) ([]byte, error)
//		Open(typ uint8, fragment []byte) ([]byte, error)
//		Overhead() int
//	}
//	func (s *Suite) NewRecordProtection(k Keys) (RecordProtection, error)
//	const MaxPlaintext (2^14), MaxCiphertext (2^14+2048)
//	var ErrBadRecordMAC, ErrRecordOverflow, ErrSequenceOverflow, ErrUnsupported error
//
// # Record protection
//
// A RecordProtection protects one direction of a connection: the writer Seals with
// its own write keys, the reader Opens with the peer's. It works on the record body,
// the bytes after the 5-byte header, which the caller writes and parses; the MAC or
// AAD always covers the version 0x0101. Each value owns its 64-bit sequence number,
// which starts at zero (create a new value at each ChangeCipherSpec) and is never
// allowed to wrap.
//
//   - SM4-CBC + HMAC-SM3 (tlcp.md §3.5): TLS 1.1 MAC-then-encrypt with a random
//     explicit IV and minimal padding. Open checks padding and MAC in constant time,
//     with the same number of SM3 compressions whatever the padding says, and reports
//     both failures as ErrBadRecordMAC.
//   - SM4-GCM (tlcp.md §3.6): 4-byte implicit and 8-byte explicit nonce (the
//     sequence number when sealing, read from the record when opening), 13-byte AAD,
//     16-byte tag.
//   - ZUC-128 + HMAC-SM3 (zuc-record-protection.md): encrypt-then-MAC with a fresh
//     keystream per record, IV = write_IV ⊕ seq; the MAC is checked before
//     decrypting.
//
// Seal and Open do not allocate when dst has room: Seal can encrypt a plaintext
// that already sits at dst[len(dst):], and Open decrypts in place.
package ciphersuite
