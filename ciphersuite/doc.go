// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package ciphersuite holds the TLCP (GB/T 38636-2020) cipher suite table, the key
// schedule and the record protection of each suite, and the same for the TLS 1.3
// suites of RFC 8998 (TLS_SM4_GCM_SM3, TLS_SM4_CCM_SM3).
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
//	type Master struct{ ... }  // a master secret with its HMAC key schedule done once
//	func NewMaster(master []byte) *Master
//	func (m *Master) KeyBlock(s *Suite, clientRandom, serverRandom []byte) (client, server Keys)
//	func (m *Master) NewRecordProtections(s *Suite, clientRandom, serverRandom []byte) (client, server RecordProtection, err error)
//	func (m *Master) FinishedVerifyData(label string, transcriptHash []byte) []byte
//	const LabelClientFinished, LabelServerFinished, MasterSecretLen, VerifyDataLen
//
//	type RecordProtection interface {
//		Seal(dst []byte, typ uint8, plaintext []byte, rand io.Reader) ([]byte, error)
//		Open(typ uint8, fragment []byte) (contentType uint8, plaintext []byte, err error)
//		Overhead() int
//		Sequence() uint64
//	}
//	func (s *Suite) NewRecordProtection(k Keys) (RecordProtection, error)
//	const MaxPlaintext (2^14), MaxCiphertext (2^14+2048)
//
//	type BatchRecord struct{ Type uint8; Data, Fragment []byte }
//	type BatchProtection interface {  // every RecordProtection above is one
//		RecordProtection
//		SealedLen(n int) int
//		SealBatch(recs []BatchRecord, rand io.Reader) (int, error)
//		OpenBatch(dst []byte, recs []BatchRecord) (int, error)
//	}
//	const MaxBatch = 16
//	var ErrBadRecordMAC, ErrRecordOverflow, ErrSequenceOverflow, ErrUnsupported error
//
// TLS 1.3 (tls13.go, tls13_record.go):
//
//	const TLS_SM4_GCM_SM3 = 0x00C6, TLS_SM4_CCM_SM3 = 0x00C7; CipherSM4CCM
//	type TLS13Suite struct{ ID ID; Name string; Cipher Cipher; Hash Hash; KeyLen, IVLen int }
//	func LookupTLS13(id ID) *TLS13Suite; func TLS13Suites() []*TLS13Suite; func TLS13DefaultPreference() []ID
//	func (s *TLS13Suite) TrafficKey(secret []byte) (key, iv []byte)
//	func (s *TLS13Suite) NewRecordProtection(trafficSecret []byte) (RecordProtection, error)  // a BatchProtection too
//	const MaxTLS13Ciphertext (2^14+256); var ErrMissingContentType error
//
// A TLS 1.3 protection is the same RecordProtection: Seal puts typ inside the
// fragment (the header says application_data), and Open returns the inner
// content type, where a TLCP protection returns the header's.
//
//	// The HKDF-SM3 key schedule, one type per stage (RFC 8446 §7.1):
//	func NewTLS13EarlySecret(psk []byte) *TLS13EarlySecret   // ResumptionBinderKey, HandshakeSecret
//	(*TLS13HandshakeSecret) ClientHandshakeTrafficSecret, ServerHandshakeTrafficSecret, MasterSecret
//	(*TLS13MasterSecret) Client/ServerApplicationTrafficSecret, ExporterMasterSecret, ResumptionMasterSecret
//	func TLS13FinishedVerifyData(baseKey, transcriptHash []byte) []byte   // Finished and PSK binders
//	func TLS13NextTrafficSecret(secret []byte) []byte                      // KeyUpdate
//	func TLS13ResumptionPSK(resumptionMasterSecret, ticketNonce []byte) []byte
//	func TLS13Exporter(exporterMasterSecret []byte, label string, context []byte, length int) []byte
//	func TLS13Extract(salt, ikm []byte) []byte; func TLS13ExpandLabel(secret []byte, label string, context []byte, length int) []byte
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
//   - SM4-CBC + HMAC-SM3 (GB/T 38636 6.3; suites 0xE013, 0xE011): TLS 1.1
//     MAC-then-encrypt. mac = HMAC-SM3(key, seq ‖ type ‖ 01 01 ‖
//     u16(len) ‖ plaintext); the fragment is a random 16-byte IV followed by
//     SM4-CBC(plaintext ‖ mac ‖ minimal padding). Open accepts any padding
//     length, checks padding and MAC in constant time, with the same number of
//     SM3 compressions whatever the padding says, and reports both failures as
//     ErrBadRecordMAC.
//   - SM4-GCM (suites 0xE053, 0xE051): the RFC 5288 layout. Nonce = 4-byte
//     implicit IV from the key block ‖ 8-byte explicit nonce carried in the
//     record (the sequence number when sealing, read from the record when
//     opening, because Tongsuo starts it at a random value); AAD = seq ‖
//     type ‖ 01 01 ‖ u16(len); 16-byte tag.
//   - ZUC-128 + HMAC-SM3 (this project's private suites 0xFF13 and 0xFF11,
//     opt-in): encrypt-then-MAC with a fresh keystream per record under
//     IV = write_IV ⊕ (0^64 ‖ seq); mac = HMAC-SM3(key, seq ‖ type ‖ 01 01 ‖
//     u16(len(C)) ‖ C) is appended and checked before anything is decrypted.
//     The key block gives each direction a 32-byte MAC key, a 16-byte ZUC key
//     and a 16-byte IV. ZUC.md, shipped beside this package's source, is the
//     complete definition with known-answer values.
//   - TLS 1.3 (RFC 8446 §5.2 with RFC 8998's AEADs): each traffic secret
//     expands into a 16-byte SM4 key and a 12-byte IV; the nonce is the IV XOR
//     the 64-bit sequence number; the inner plaintext is the content followed
//     by its content type (no padding is sent; any is accepted); the record
//     header 17 03 03 u16(len) is the additional data; SM4-GCM or SM4-CCM,
//     both with a 16-byte tag. The known-answer values in
//     ../testdata/tls13/hkdf_sm3.json were computed by an independent script
//     (../testdata/tls13/kat.py) and cross-checked with the openssl CLI.
//
// The record formats of the SM4 suites, and where deployed peers read them
// differently, are described in tlcp/INTEROP.md §1.
//
// Seal and Open do not allocate when dst has room: Seal can encrypt a plaintext
// that already sits at dst[len(dst):], and Open decrypts in place.
//
// # Batches
//
// A connection that has many records to send (a large Write) or has received
// many at once (a bulk receiver) can protect them together: SealBatch and
// OpenBatch of the BatchProtection interface give the same fragments and
// plaintexts as a loop of Seal or Open calls, with consecutive sequence
// numbers, and run up to MaxBatch records side by side in the multi-buffer
// kernels where that helps:
//
//   - SM4-CBC: SealBatch computes the records' MACs in the lanes of
//     sm3.HMACBatch and encrypts the records, each its own CBC chain from its
//     own explicit IV, in the lanes of sm4.CBCEncryptMulti. OpenBatch
//     decrypts the records and computes their MACs in the lanes too, with
//     sm3's AddSecretLength: the MAC of a CBC record covers a plaintext
//     whose length is secret until the MAC is verified, and
//     AddSecretLength does the same compressions, of blocks at the same
//     addresses, for every length the padding could give (the Lucky13
//     defence that Open has per record), so a batch costs what its
//     fragment lengths say. Being MAC-then-encrypt, every record of a
//     batch is decrypted before any MAC is checked.
//   - ZUC-128: the keystreams in the lanes of zuc.Batch, the MACs in the
//     lanes of sm3.HMACBatch, both ways (the MAC covers the ciphertext,
//     whose length is public). OpenBatch verifies every MAC before it
//     decrypts anything, and decrypts nothing from the first bad record on.
//   - SM4-GCM: record by record; the GCM kernel is already parallel within
//     a record and fuses GHASH with the encryption.
//
// OpenBatch stops at the first record that fails and reports how many it
// opened, so a receiver delivers exactly the records before a bad one. It
// can write the plaintexts one after another into a caller's buffer (a
// Read's destination) instead of in place, saving a copy.
package ciphersuite
