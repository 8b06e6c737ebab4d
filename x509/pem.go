package x509

import (
	"crypto"
	stdx509 "crypto/x509"
	"encoding/pem"
	"errors"
	"io"
)

// PEM block types this package reads and writes.
const (
	PEMTypePrivateKey          = "PRIVATE KEY"           // PKCS #8
	PEMTypeEncryptedPrivateKey = "ENCRYPTED PRIVATE KEY" // PKCS #8 PBES2
	PEMTypeECPrivateKey        = "EC PRIVATE KEY"        // SEC 1
	PEMTypeRSAPrivateKey       = "RSA PRIVATE KEY"       // PKCS #1
	PEMTypePublicKey           = "PUBLIC KEY"            // SubjectPublicKeyInfo
)

// ParsePrivateKeyPEM parses the first private key in pemBytes: PKCS #8
// (plain or, with password, PBES2-encrypted), SEC 1 "EC PRIVATE KEY" or
// PKCS #1 "RSA PRIVATE KEY". Blocks of other types before the key (for
// example a certificate in a combined file) are skipped. The key is returned
// as a crypto.Signer: *sm2.PrivateKey, *ecdsa.PrivateKey, *rsa.PrivateKey or
// ed25519.PrivateKey.
func ParsePrivateKeyPEM(pemBytes, password []byte) (crypto.Signer, error) {
	rest := pemBytes
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("x509: no private key found in PEM data")
		}
		var key any
		var err error
		switch block.Type {
		case PEMTypePrivateKey:
			key, err = ParsePKCS8PrivateKey(block.Bytes)
		case PEMTypeEncryptedPrivateKey:
			if password == nil {
				return nil, errors.New("x509: private key is encrypted and no password was given")
			}
			key, err = ParsePKCS8PrivateKeyWithPassword(block.Bytes, password)
		case PEMTypeECPrivateKey:
			key, err = ParseECPrivateKey(block.Bytes)
		case PEMTypeRSAPrivateKey:
			if _, legacy := block.Headers["DEK-Info"]; legacy {
				return nil, errors.New("x509: legacy PEM encryption (DEK-Info) is not supported; convert the key to encrypted PKCS #8")
			}
			key, err = stdx509.ParsePKCS1PrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, errors.New("x509: private key cannot sign (it is a key-agreement-only key)")
		}
		return signer, nil
	}
}

// MarshalPrivateKeyPEM returns key as an unencrypted PKCS #8 "PRIVATE KEY"
// PEM block.
func MarshalPrivateKeyPEM(key any) ([]byte, error) {
	der, err := MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypePrivateKey, Bytes: der}), nil
}

// MarshalPrivateKeyPEMWithPassword returns key as an "ENCRYPTED PRIVATE KEY"
// PEM block; see MarshalPKCS8PrivateKeyWithPassword.
func MarshalPrivateKeyPEMWithPassword(rand io.Reader, key any, password []byte, opts *PBES2Options) ([]byte, error) {
	der, err := MarshalPKCS8PrivateKeyWithPassword(rand, key, password, opts)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypeEncryptedPrivateKey, Bytes: der}), nil
}

// ParsePublicKeyPEM parses the first "PUBLIC KEY" block in pemBytes.
func ParsePublicKeyPEM(pemBytes []byte) (any, error) {
	rest := pemBytes
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("x509: no PUBLIC KEY block found in PEM data")
		}
		if block.Type == PEMTypePublicKey {
			return ParsePKIXPublicKey(block.Bytes)
		}
	}
}

// MarshalPublicKeyPEM returns pub as a "PUBLIC KEY" PEM block.
func MarshalPublicKeyPEM(pub any) ([]byte, error) {
	der, err := MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypePublicKey, Bytes: der}), nil
}
