// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package pkcs12 reads and writes PKCS #12 (RFC 7292) PFX files with the
// SM algorithms and the classic ones, and reads CFCA's SM2 key file. Its
// functions are shaped like software.sslmate.com/src/go-pkcs12's: Decode,
// DecodeChain, Encode and Encoder values (SM, Modern, TongsuoSM) with
// options, plus Parse for every bag and its attributes, DecodeTLCP and
// Encoder.EncodeTLCP for a TLCP signing and encryption pair in one file.
//
// What is read:
//
//   - PFX version 3 in DER (what OpenSSL, Tongsuo, Go and most tools
//     write), with its MAC (HMAC over SM3, SHA-1, SHA-224, SHA-256,
//     SHA-384 or SHA-512, key from the RFC 7292 appendix B derivation), or
//     none; certificate SafeContents in plain Data or in EncryptedData; key
//     bags plain or shrouded (PKCS #8 EncryptedPrivateKeyInfo);
//   - the encryption of EncryptedData and shrouded key bags that
//     x509.DecryptWithPassword reads: PBES2 (PBKDF2 with HMAC-SM3,
//     -SHA-256, ...; SM4-CBC, AES-CBC, 3DES) and the legacy
//     pbeWithSHA1And3-KeyTripleDES-CBC and pbeWithSHA1And40BitRC2-CBC;
//   - CFCA's SM2 file (the ".sm2" of CFCA SADK): SEQUENCE { version 1,
//     SEQUENCE { GM/T 0010 data, sm4, OCTET STRING (the private scalar,
//     SM4-CBC under key and IV from the SM3 KDF of the password) },
//     SEQUENCE { GM/T 0010 data, OCTET STRING (the certificate) } }.
//     Decode and DecodeChain recognize it by its version.
//
// What is written: PFX version 3 in DER; the certificates in EncryptedData
// (or plain Data) and the keys in shrouded key bags under PBES2 with the
// options of x509.PBES2Options; the MAC over SM3, SHA-256 or SHA-1. The SM
// encoder (SM4-CBC, PBKDF2-HMAC-SM3 and an SM3 MAC) writes the file Tongsuo
// reads with the SM options; Modern writes OpenSSL 3's default file.
//
// A TLCP pair is two keys and two certificates in one file, each key
// linked to its certificate by a localKeyId attribute (the SHA-1 of the
// certificate, as OpenSSL computes it), and the roles told apart by the
// certificates' key usage: digitalSignature alone for the signing
// certificate, keyEncipherment, dataEncipherment or keyAgreement for the
// encryption certificate (GB/T 38636 section 6.4.5.2). The friendlyNames
// "sign" and "enc" that EncodeTLCP writes are only a hint for people;
// DecodeTLCP does not need them.
//
// Bounds: a file may hold at most 256 bags and 16 encrypted items, and the
// iteration counts are bounded as in package x509, so a hostile file
// cannot demand unbounded work; parsing allocates in proportion to its
// input.
package pkcs12
