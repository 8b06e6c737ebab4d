// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package x509

import (
	"crypto"
	"crypto/subtle"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// SM2EnvelopedKey is the key-pair protection structure of GB/T 35276-2017
// (section 7.4), in which a CA's key management centre (KMC) delivers an
// encryption key pair to the holder of a signing key:
//
//	SM2EnvelopedKey ::= SEQUENCE {
//	    symAlgID               AlgorithmIdentifier, -- SM4-ECB
//	    symEncryptedKey        SM2Cipher,           -- the SM4 key, to the signing key
//	    sm2PublicKey           SM2PublicKey,        -- BIT STRING 04 || X || Y
//	    sm2EncryptedPrivateKey BIT STRING }         -- the private key under SM4-ECB
//
// GM/T 0092 (certificate requests) carries the same structure as a
// CSRResponse's encryptedPrivateKey.
type SM2EnvelopedKey struct {
	// SymAlgorithm is OIDSM4ECB (what gmsm and the standard write) or
	// OIDSM4 (which some KMCs write for the same thing).
	SymAlgorithm asn1.ObjectIdentifier
	// EncryptedKey is the GM/T 0009 SM2Cipher DER of the SM4 key.
	EncryptedKey []byte
	PublicKey    *sm2.PublicKey
	// EncryptedPrivateKey is the private scalar under SM4-ECB: 32 bytes,
	// 48 with PKCS #7 padding, or 64 (the scalar right-aligned, as in
	// the 512-bit ECCrefPrivateKey of GM/T 0018).
	EncryptedPrivateKey []byte
}

var errMalformedEnvelopedKey = errors.New("x509: malformed SM2EnvelopedKey")

// ParseSM2EnvelopedKey parses a DER SM2EnvelopedKey. It does not decrypt:
// see SM2EnvelopedKey.Unwrap.
func ParseSM2EnvelopedKey(der []byte) (*SM2EnvelopedKey, error) {
	input := cryptobyte.String(der)
	var seq, alg, params cryptobyte.String
	var encKey cryptobyte.String
	var pub, priv asn1.BitString
	k := &SM2EnvelopedKey{}
	if !input.ReadASN1(&seq, cbasn1.SEQUENCE) || !input.Empty() ||
		!seq.ReadASN1(&alg, cbasn1.SEQUENCE) ||
		!seq.ReadASN1Element(&encKey, cbasn1.SEQUENCE) ||
		!seq.ReadASN1BitString(&pub) || !seq.ReadASN1BitString(&priv) || !seq.Empty() ||
		!alg.ReadASN1ObjectIdentifier(&k.SymAlgorithm) {
		return nil, errMalformedEnvelopedKey
	}
	if !alg.Empty() && (!alg.ReadASN1(&params, cbasn1.NULL) || !alg.Empty()) {
		return nil, errors.New("x509: SM2EnvelopedKey's symmetric algorithm has parameters (only SM4-ECB, without, is defined)")
	}
	if !k.SymAlgorithm.Equal(OIDSM4ECB) && !k.SymAlgorithm.Equal(OIDSM4) {
		return nil, errors.New("x509: SM2EnvelopedKey with symmetric algorithm " + k.SymAlgorithm.String() + " (only SM4-ECB is defined)")
	}
	if pub.BitLength%8 != 0 || priv.BitLength%8 != 0 {
		return nil, errMalformedEnvelopedKey
	}
	var err error
	if k.PublicKey, err = sm2.NewPublicKey(pub.Bytes); err != nil {
		return nil, fmt.Errorf("x509: SM2EnvelopedKey's public key: %w", err)
	}
	switch len(priv.Bytes) {
	case 32, 48, 64:
	default:
		return nil, fmt.Errorf("x509: SM2EnvelopedKey's encrypted private key is %d bytes (want 32, 48 or 64)", len(priv.Bytes))
	}
	k.EncryptedKey = encKey
	k.EncryptedPrivateKey = priv.Bytes
	return k, nil
}

// ErrEnvelopedKeyMismatch is returned by Unwrap when the decrypted private
// key is not the enveloped public key's: the envelope was made for another
// signing key, or it is corrupt.
var ErrEnvelopedKeyMismatch = errors.New("x509: the unwrapped private key does not match the SM2EnvelopedKey's public key (wrong signing key?)")

// Unwrap decrypts the enveloped private key with the holder's signing key:
// an *sm2.PrivateKey or any crypto.Decrypter that takes a GM/T 0009 DER
// SM2 ciphertext, such as a key held in a cipher machine. It checks the
// result against the enveloped public key; check it against the encryption
// certificate too (smx509.UnwrapSM2EnvelopedKey does both).
func (k *SM2EnvelopedKey) Unwrap(rand io.Reader, signKey crypto.Decrypter) (*sm2.PrivateKey, error) {
	if signKey == nil {
		return nil, errors.New("x509: Unwrap needs the signing key")
	}
	symKey, err := signKey.Decrypt(rand, k.EncryptedKey, nil)
	if err != nil {
		return nil, fmt.Errorf("x509: SM2EnvelopedKey's symmetric key does not decrypt with this signing key: %w", err)
	}
	defer clear(symKey)
	if len(symKey) != 16 {
		return nil, fmt.Errorf("x509: SM2EnvelopedKey's symmetric key is %d bytes, want 16", len(symKey))
	}
	block, err := sm4.NewCipher(symKey)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, len(k.EncryptedPrivateKey))
	defer clear(plain)
	for i := 0; i < len(plain); i += 16 {
		block.Decrypt(plain[i:i+16], k.EncryptedPrivateKey[i:i+16])
	}
	var d []byte
	switch len(plain) {
	case 32:
		d = plain
	case 48:
		if subtle.ConstantTimeCompare(plain[32:], []byte{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16}) != 1 {
			return nil, ErrEnvelopedKeyMismatch
		}
		d = plain[:32]
	case 64:
		if subtle.ConstantTimeCompare(plain[:32], make([]byte, 32)) != 1 {
			return nil, ErrEnvelopedKeyMismatch
		}
		d = plain[32:]
	default:
		return nil, errMalformedEnvelopedKey
	}
	priv, err := sm2.NewPrivateKey(d)
	if err != nil || !priv.PublicKey().Equal(k.PublicKey) {
		return nil, ErrEnvelopedKeyMismatch
	}
	return priv, nil
}

// MarshalSM2EnvelopedKey envelopes key to the signing public key to, as a
// KMC does: a fresh SM4 key encrypts the 32-byte scalar under SM4-ECB
// (without padding, as gmsm writes it) and is itself encrypted to to.
func MarshalSM2EnvelopedKey(rand io.Reader, to *sm2.PublicKey, key *sm2.PrivateKey) ([]byte, error) {
	if to == nil || key == nil {
		return nil, errors.New("x509: MarshalSM2EnvelopedKey needs the recipient's public key and the key to envelope")
	}
	symKey := make([]byte, 16)
	defer clear(symKey)
	if _, err := io.ReadFull(rand, symKey); err != nil {
		return nil, err
	}
	block, err := sm4.NewCipher(symKey)
	if err != nil {
		return nil, err
	}
	d := key.Bytes()
	defer clear(d)
	ct := make([]byte, len(d))
	for i := 0; i < len(d); i += 16 {
		block.Encrypt(ct[i:i+16], d[i:i+16])
	}
	encKey, err := sm2.EncryptASN1(rand, to, symKey)
	if err != nil {
		return nil, err
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDSM4ECB)
			b.AddASN1NULL()
		})
		b.AddBytes(encKey)
		b.AddASN1BitString(key.PublicKey().Bytes())
		b.AddASN1BitString(ct)
	})
	return b.Bytes()
}
