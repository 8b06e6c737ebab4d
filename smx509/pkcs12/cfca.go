// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/asn1"
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// oidGMData is the data content type of GM/T 0010 (SM2 cryptographic
// message syntax), which CFCA's file uses for both of its parts.
var oidGMData = asn1.ObjectIdentifier{1, 2, 156, 10197, 6, 1, 4, 2, 1}

var oidSM4 = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104}
var oidSM4CBC = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 2}

// isCFCA reports whether b starts like CFCA's file: a SEQUENCE whose first
// element is INTEGER 1 (a PFX has 3).
func isCFCA(b []byte) bool {
	s := cryptobyte.String(b)
	var seq cryptobyte.String
	var v int
	return s.ReadASN1(&seq, cbasn1.SEQUENCE) && seq.ReadASN1Integer(&v) && v == 1
}

// cfcaCipher is CFCA SADK's password encryption: SM4-CBC with the IV and
// key taken, in that order, from 32 bytes of the SM3 KDF (GB/T 32918.4)
// of the password.
func cfcaCipher(password []byte) (cipher.Block, []byte, error) {
	if len(password) == 0 {
		return nil, nil, errors.New("pkcs12: a CFCA SM2 file needs a non-empty password")
	}
	ivKey := sm3.KDF(password, 32)
	block, err := sm4.NewCipher(ivKey[16:])
	if err != nil {
		return nil, nil, err
	}
	return block, ivKey[:16], nil
}

func parseCFCA(der, password []byte) (*Contents, error) {
	s := cryptobyte.String(der)
	var seq, keyPart, certPart cryptobyte.String
	var version int
	var keyType, alg, certType asn1.ObjectIdentifier
	var encrypted, certDER []byte
	if !s.ReadASN1(&seq, cbasn1.SEQUENCE) || !s.Empty() ||
		!seq.ReadASN1Integer(&version) ||
		!seq.ReadASN1(&keyPart, cbasn1.SEQUENCE) || !seq.ReadASN1(&certPart, cbasn1.SEQUENCE) || !seq.Empty() ||
		!keyPart.ReadASN1ObjectIdentifier(&keyType) || !keyPart.ReadASN1ObjectIdentifier(&alg) ||
		!keyPart.ReadASN1Bytes(&encrypted, cbasn1.OCTET_STRING) || !keyPart.Empty() ||
		!certPart.ReadASN1ObjectIdentifier(&certType) ||
		!certPart.ReadASN1Bytes(&certDER, cbasn1.OCTET_STRING) || !certPart.Empty() {
		return nil, errors.New("pkcs12: malformed CFCA SM2 file")
	}
	if !keyType.Equal(oidGMData) || !certType.Equal(oidGMData) {
		return nil, errors.New("pkcs12: CFCA SM2 file with a content type other than GM/T 0010 data")
	}
	if !alg.Equal(oidSM4) && !alg.Equal(oidSM4CBC) {
		return nil, errors.New("pkcs12: CFCA SM2 file encrypted with " + alg.String() + ", not SM4")
	}
	if len(encrypted) == 0 || len(encrypted)%16 != 0 || len(encrypted) > 64 {
		return nil, fmt.Errorf("pkcs12: CFCA SM2 file's encrypted key is %d bytes", len(encrypted))
	}
	cert, err := smx509.ParseCertificate(certDER)
	if err != nil {
		return nil, fmt.Errorf("pkcs12: CFCA SM2 file's certificate: %w", err)
	}
	block, iv, err := cfcaCipher(password)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, len(encrypted))
	defer clear(plain)
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, encrypted)
	n := int(plain[len(plain)-1])
	if n == 0 || n > 16 || n > len(plain) || subtle.ConstantTimeCompare(plain[len(plain)-n:], padBytes(n)) != 1 {
		return nil, ErrIncorrectPassword
	}
	d := plain[:len(plain)-n]
	if len(d) > 32 {
		return nil, ErrIncorrectPassword
	}
	var scalar [32]byte
	copy(scalar[32-len(d):], d)
	key, err := sm2.NewPrivateKey(scalar[:])
	clear(scalar[:])
	if err != nil {
		return nil, ErrIncorrectPassword
	}
	if !key.PublicKey().Equal(cert.PublicKey) {
		// With the padding right, this is a wrong password once in 2^8
		// or a key that is not the certificate's; both are refused.
		return nil, errors.New("pkcs12: the CFCA SM2 file's key does not match its certificate (or the password is wrong)")
	}
	return &Contents{
		Keys:         []Key{{Key: key}},
		Certificates: []Certificate{{Certificate: cert}},
		Info:         []string{"CFCA SM2 file: SM4-CBC under the SM3 KDF of the password (no MAC)"},
	}, nil
}

func padBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(n)
	}
	return b
}

// EncodeCFCA writes key and cert in CFCA's SM2 file format (see the
// package documentation), which CFCA SADK and gmsm's cfca.ParseSM2 read.
// The format has no MAC and no salt: the same password always gives the
// same encryption key, so prefer a PFX where the reader allows.
func EncodeCFCA(key *sm2.PrivateKey, cert *smx509.Certificate, password string) ([]byte, error) {
	if !key.PublicKey().Equal(cert.PublicKey) {
		return nil, errors.New("pkcs12: the key does not match the certificate")
	}
	block, iv, err := cfcaCipher([]byte(password))
	if err != nil {
		return nil, err
	}
	d := key.Bytes()
	defer clear(d)
	ct := append(d[:32:32], padBytes(16)...)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, ct)
	return marshalCFCA(ct, cert.Raw)
}

// marshalCFCA encodes a CFCA file from its encrypted key and certificate.
func marshalCFCA(encryptedKey, cert []byte) ([]byte, error) {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(1)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(oidGMData)
			b.AddASN1ObjectIdentifier(oidSM4)
			b.AddASN1OctetString(encryptedKey)
		})
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(oidGMData)
			b.AddASN1OctetString(cert)
		})
	})
	return b.Bytes()
}
