// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// Keys held outside the process.
//
// A Certificate's PrivateKey is used through one of three interfaces,
// according to its role and the suite:
//
//   - the signing key as a crypto.Signer (ServerKeyExchange,
//     CertificateVerify);
//   - the server's encryption key as a crypto.Decrypter (the ECC suites'
//     ClientKeyExchange);
//   - either side's encryption key as an SM2KeyExchanger (the ECDHE suites).
//
// *sm2.PrivateKey does all three. A key that does only some of them is used
// for what it can do: an encryption key without SM2KeyExchanger makes a
// server choose, and a client offer, ECC suites only.

// SM2KeyExchanger is an SM2 encryption key that can take part in the SM2
// key exchange of GB/T 32918.3-2016, with which the ECDHE suites agree the
// premaster secret (INTEROP.md §4.1). The exchange computes with the static
// private key and an ephemeral one together (t = d + x̄·r mod n), so a key
// held in an HSM or cipher machine must run the whole exchange there: the
// ephemeral key is made and kept where the static key is.
//
// *sm2.PrivateKey is used as an SM2KeyExchanger directly (through
// sm2.NewKeyExchange). Other implementations are for keys held elsewhere;
// the key agreement functions of GM/T 0018 (SDF) map onto it:
// SDF_GenerateAgreementDataWithECC is NewKeyExchange with initiator set
// followed by Init, SDF_GenerateKeyWithECC is Complete, and
// SDF_GenerateAgreementDataAndKeyWithECC is the responder's NewKeyExchange
// and Respond. The premaster secret leaves the device: TLCP derives its
// record keys from it in the process.
type SM2KeyExchanger interface {
	// Public returns the key's public key, an *sm2.PublicKey that must
	// be the one in the encryption certificate.
	Public() crypto.PublicKey
	// NewKeyExchange starts one exchange with the key as this side's
	// static key. TLCP calls it with uid nil (the default identifier
	// 1234567812345678 of GM/T 0009), keyLen 48, and initiator true on
	// the server, false on the client.
	NewKeyExchange(uid []byte, keyLen int, initiator bool) (SM2KeyExchange, error)
}

// SM2KeyExchange is one side of one SM2 key exchange, as NewKeyExchange of
// an SM2KeyExchanger returns it. Its methods are those of *sm2.KeyExchange,
// which implements it; see there for what each computes. TLCP uses them in
// this order:
//
//   - server (initiator A): Init(rand) gives R_A, sent in
//     ServerKeyExchange; Complete(P_B, nil, R_B, nil) with the client's
//     encryption key and ephemeral key from ClientKeyExchange gives the
//     premaster.
//   - client (responder B): Respond(rand, P_A, nil, R_A) with the server's
//     encryption key and ephemeral key gives the premaster;
//     EphemeralPublicKey then returns R_B, sent in ClientKeyExchange.
//
// No confirmation hashes are exchanged in TLCP: Complete gets sB nil, and
// the S_A and S_B results are ignored (an implementation may return nil).
// A failure of Complete or Respond ends the handshake with
// illegal_parameter and the returned error.
type SM2KeyExchange interface {
	Init(rand io.Reader) (*sm2.PublicKey, error)
	EphemeralPublicKey() *sm2.PublicKey
	Respond(rand io.Reader, peerPub *sm2.PublicKey, peerUID []byte, peerR *sm2.PublicKey) (key, sB []byte, err error)
	Complete(peerPub *sm2.PublicKey, peerUID []byte, peerR *sm2.PublicKey, sB []byte) (key, sA []byte, err error)
}

// sm2KeyExchanger adapts *sm2.PrivateKey to SM2KeyExchanger.
type sm2KeyExchanger struct{ k *sm2.PrivateKey }

func (s sm2KeyExchanger) Public() crypto.PublicKey { return s.k.Public() }

func (s sm2KeyExchanger) NewKeyExchange(uid []byte, keyLen int, initiator bool) (SM2KeyExchange, error) {
	ke, err := sm2.NewKeyExchange(s.k, uid, keyLen, initiator)
	if err != nil {
		return nil, err
	}
	return ke, nil
}

// isSM2Public reports whether pub is an SM2 public key.
func isSM2Public(pub crypto.PublicKey) bool {
	_, ok := pub.(*sm2.PublicKey)
	return ok
}

// signerOf returns the crypto.Signer of a signing certificate's key.
func signerOf(key crypto.PrivateKey) (crypto.Signer, bool) {
	s, ok := key.(crypto.Signer)
	if !ok || !isSM2Public(s.Public()) {
		return nil, false
	}
	return s, true
}

// decrypterOf returns the crypto.Decrypter of an encryption key, for the
// ECC suites.
func decrypterOf(key crypto.PrivateKey) (crypto.Decrypter, bool) {
	d, ok := key.(crypto.Decrypter)
	if !ok || !isSM2Public(d.Public()) {
		return nil, false
	}
	return d, true
}

// keyExchangerOf returns the SM2KeyExchanger of an encryption key, for the
// ECDHE suites.
func keyExchangerOf(key crypto.PrivateKey) (SM2KeyExchanger, bool) {
	switch k := key.(type) {
	case *sm2.PrivateKey:
		return sm2KeyExchanger{k}, true
	case SM2KeyExchanger:
		if isSM2Public(k.Public()) {
			return k, true
		}
	}
	return nil, false
}

// eccDecrypterOpts is what a crypto.Decrypter holding the server's
// encryption key is called with: the ciphertext is the GM/T 0009 DER form
// SEQUENCE { x, y, C3, C2 } of GB/T 32918.4 (C1C3C2), exactly one DER
// element (bytes some clients append after it are removed first, D15).
var eccDecrypterOpts = &sm2.DecrypterOpts{Order: sm2.C1C3C2, ASN1: true}

// decryptPremaster decrypts the ECC ClientKeyExchange ciphertext with the
// encryption key.
func decryptPremaster(cfg *Config, key crypto.PrivateKey, ciphertext []byte) ([]byte, error) {
	if k, ok := key.(*sm2.PrivateKey); ok {
		// DecryptASN1 tolerates bytes after the SEQUENCE (D15).
		return sm2.DecryptASN1(k, ciphertext)
	}
	d, ok := decrypterOf(key)
	if !ok {
		return nil, fmt.Errorf("tlcp: the encryption key (%T) is not an SM2 crypto.Decrypter", key)
	}
	in := cryptobyte.String(ciphertext)
	var der cryptobyte.String
	if !in.ReadASN1Element(&der, asn1.SEQUENCE) {
		return nil, sm2.ErrDecryption
	}
	return d.Decrypt(cfg.rand(), der, eccDecrypterOpts)
}

// errKeyMismatch is wrapped by the errors of a key whose public key is not
// its certificate's.
var errKeyMismatch = errors.New("does not match the certificate's public key")
