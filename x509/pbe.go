// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package x509

import (
	"crypto/cipher"
	"crypto/des"
	"crypto/sha1"
	"encoding/asn1"
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/internal/pkcs12kdf"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// The password-based schemes of PKCS #12 itself (RFC 7292 appendix C),
// which OpenSSL before 3.0 wrote by default and `openssl pkcs12 -legacy`
// still writes. They are read, never written.
var (
	OIDPBEWithSHA1And3KeyTripleDESCBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 3}
	OIDPBEWithSHA1And2KeyTripleDESCBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 4}
	OIDPBEWithSHA1And128BitRC2CBC     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 5}
	OIDPBEWithSHA1And40BitRC2CBC      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 6}
)

type pkcs12PBE struct {
	oid      asn1.ObjectIdentifier
	name     string
	keySize  int
	newBlock func(key []byte) (cipher.Block, error)
}

func newTripleDES2(key []byte) (cipher.Block, error) {
	// Two-key 3DES is K1 K2 K1.
	return des.NewTripleDESCipher(append(key[:16:16], key[:8]...))
}

func newRC2With(bits int) func([]byte) (cipher.Block, error) {
	return func(key []byte) (cipher.Block, error) { return newRC2(key, bits) }
}

var pkcs12PBEs = []pkcs12PBE{
	{OIDPBEWithSHA1And3KeyTripleDESCBC, "pbeWithSHA1And3-KeyTripleDES-CBC", 24, des.NewTripleDESCipher},
	{OIDPBEWithSHA1And2KeyTripleDESCBC, "pbeWithSHA1And2-KeyTripleDES-CBC", 16, newTripleDES2},
	{OIDPBEWithSHA1And128BitRC2CBC, "pbeWithSHA1And128BitRC2-CBC", 16, newRC2With(128)},
	{OIDPBEWithSHA1And40BitRC2CBC, "pbeWithSHA1And40BitRC2-CBC", 5, newRC2With(40)},
}

// DecryptWithPassword decrypts ciphertext under the password-based
// encryption scheme that algorithm, a DER AlgorithmIdentifier, names:
//
//   - PBES2, in every form ParsePKCS8PrivateKeyWithPassword reads; the
//     password is used as given (UTF-8), as OpenSSL and Tongsuo do;
//   - the PKCS #12 schemes pbeWithSHA1And3-KeyTripleDES-CBC,
//     -2-KeyTripleDES-CBC, -128BitRC2-CBC and -40BitRC2-CBC, whose key
//     and IV come from the PKCS #12 key derivation over the password as a
//     BMPString (RFC 7292 B.1).
//
// It is the decryption of the PKCS #12 EncryptedData and shrouded key
// bags. Iteration counts are bounded as for PKCS #8. A wrong password gives
// ErrIncorrectPassword where padding shows it; the caller checks the
// plaintext's structure for the rest.
func DecryptWithPassword(algorithm, ciphertext, password []byte) ([]byte, error) {
	s := cryptobyte.String(algorithm)
	var algo cryptobyte.String
	var oid asn1.ObjectIdentifier
	if !s.ReadASN1(&algo, cbasn1.SEQUENCE) || !s.Empty() || !algo.ReadASN1ObjectIdentifier(&oid) {
		return nil, errors.New("x509: malformed password-based encryption AlgorithmIdentifier")
	}
	if oid.Equal(OIDPBES2) {
		p, err := parsePBES2Params(algo)
		if err != nil {
			return nil, err
		}
		key, err := p.deriveKey(password)
		if err != nil {
			return nil, err
		}
		defer clear(key)
		return decryptCBC(p.cipher, key, p.iv, ciphertext)
	}
	for _, e := range pkcs12PBEs {
		if oid.Equal(e.oid) {
			return e.decrypt(algo, ciphertext, password)
		}
	}
	return nil, errors.New("x509: unsupported password-based encryption scheme " + oid.String())
}

// DescribePasswordEncryption names the scheme of a DER AlgorithmIdentifier
// the way DecryptWithPassword would use it, e.g. "PBES2: PBKDF2-HMAC-SM3,
// 2048 iterations, SM4-CBC", or says why it cannot be used.
func DescribePasswordEncryption(algorithm []byte) string {
	s := cryptobyte.String(algorithm)
	var algo cryptobyte.String
	var oid asn1.ObjectIdentifier
	if !s.ReadASN1(&algo, cbasn1.SEQUENCE) || !s.Empty() || !algo.ReadASN1ObjectIdentifier(&oid) {
		return "malformed AlgorithmIdentifier"
	}
	if oid.Equal(OIDPBES2) {
		p, err := parsePBES2Params(algo)
		if err != nil {
			return err.Error()
		}
		return p.String()
	}
	for _, e := range pkcs12PBEs {
		if oid.Equal(e.oid) {
			_, iter, err := parsePKCS12PBEParams(algo)
			if err != nil {
				return e.name + ": " + err.Error()
			}
			return fmt.Sprintf("%s, %d iterations", e.name, iter)
		}
	}
	return "unsupported scheme " + oid.String()
}

var errMalformedPKCS12PBE = errors.New("x509: malformed PKCS #12 PBE parameters")

// parsePKCS12PBEParams parses pkcs-12PbeParams: SEQUENCE { salt OCTET
// STRING, iterations INTEGER }.
func parsePKCS12PBEParams(algo cryptobyte.String) (salt []byte, iterations int, err error) {
	var params cryptobyte.String
	if !algo.ReadASN1(&params, cbasn1.SEQUENCE) || !algo.Empty() ||
		!params.ReadASN1Bytes(&salt, cbasn1.OCTET_STRING) ||
		!params.ReadASN1Integer(&iterations) || !params.Empty() || iterations <= 0 {
		return nil, 0, errMalformedPKCS12PBE
	}
	if iterations > maxPBKDF2Iterations {
		return nil, 0, fmt.Errorf("x509: PKCS #12 PBE iteration count %d is unreasonably large (limit %d)", iterations, maxPBKDF2Iterations)
	}
	return salt, iterations, nil
}

func (e *pkcs12PBE) decrypt(algo cryptobyte.String, ciphertext, password []byte) ([]byte, error) {
	salt, iterations, err := parsePKCS12PBEParams(algo)
	if err != nil {
		return nil, err
	}
	bmp, err := pkcs12kdf.BMPPassword(password)
	if err != nil {
		return nil, err
	}
	defer clear(bmp)
	key := pkcs12kdf.Derive(sha1.New, bmp, salt, iterations, pkcs12kdf.KeyMaterial, e.keySize)
	defer clear(key)
	iv := pkcs12kdf.Derive(sha1.New, bmp, salt, iterations, pkcs12kdf.IV, 8)
	c := &cbcCipher{name: e.name, keySize: e.keySize, blockSize: 8, newBlock: e.newBlock}
	return decryptCBC(c, key, iv, ciphertext)
}

// encryptPKCS12PBE is the inverse of pkcs12PBE.decrypt, for tests that
// need the legacy forms beyond the recorded files.
func encryptPKCS12PBE(oid asn1.ObjectIdentifier, salt []byte, iterations int, plaintext, password []byte) (algorithm, ciphertext []byte, err error) {
	for _, e := range pkcs12PBEs {
		if !oid.Equal(e.oid) {
			continue
		}
		bmp, err := pkcs12kdf.BMPPassword(password)
		if err != nil {
			return nil, nil, err
		}
		key := pkcs12kdf.Derive(sha1.New, bmp, salt, iterations, pkcs12kdf.KeyMaterial, e.keySize)
		iv := pkcs12kdf.Derive(sha1.New, bmp, salt, iterations, pkcs12kdf.IV, 8)
		block, err := e.newBlock(key)
		if err != nil {
			return nil, nil, err
		}
		ct := pad(plaintext, 8)
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, ct)
		var b cryptobyte.Builder
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(oid)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1OctetString(salt)
				b.AddASN1Int64(int64(iterations))
			})
		})
		algorithm, err := b.Bytes()
		return algorithm, ct, err
	}
	return nil, nil, errors.New("x509: not a PKCS #12 PBE scheme")
}
