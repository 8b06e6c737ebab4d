package x509

import (
	"crypto"
	stdx509 "crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/cryptobyte"
)

// PEM block types this package reads and writes.
const (
	PEMTypePrivateKey          = "PRIVATE KEY"           // PKCS #8
	PEMTypeEncryptedPrivateKey = "ENCRYPTED PRIVATE KEY" // PKCS #8 PBES2
	PEMTypeECPrivateKey        = "EC PRIVATE KEY"        // SEC 1
	PEMTypeSM2PrivateKey       = "SM2 PRIVATE KEY"       // SEC 1, as `openssl ec` (OpenSSL 3) labels SM2 keys
	PEMTypeRSAPrivateKey       = "RSA PRIVATE KEY"       // PKCS #1
	PEMTypePublicKey           = "PUBLIC KEY"            // SubjectPublicKeyInfo
	PEMTypeECParameters        = "EC PARAMETERS"         // SEC 1 ECParameters, read and skipped
	PEMTypeSM2Parameters       = "SM2 PARAMETERS"        // the same for SM2 (OpenSSL 3)
	PEMTypeCertificate         = "CERTIFICATE"
)

// ParsePrivateKeyPEM parses the first private key in pemBytes; see
// ParsePrivateKeysPEM for the forms read. Blocks of other types before the
// key (for example a certificate in a combined file) are skipped. The key
// is returned as a crypto.Signer: *sm2.PrivateKey, *ecdsa.PrivateKey,
// *rsa.PrivateKey or ed25519.PrivateKey.
func ParsePrivateKeyPEM(pemBytes, password []byte) (crypto.Signer, error) {
	keys, err := parsePrivateKeysPEM(pemBytes, password, 1)
	if err != nil {
		return nil, err
	}
	return keys[0], nil
}

// ParsePrivateKeysPEM parses every private key in pemBytes, in order, and
// skips blocks of other types. GmSSL 3 writes a TLCP server's signing and
// encryption keys into one such file, signing key first. The forms read are
// those OpenSSL, Tongsuo and GmSSL write:
//
//   - "PRIVATE KEY": PKCS #8;
//   - "ENCRYPTED PRIVATE KEY": PKCS #8 with PBES2, see
//     ParsePKCS8PrivateKeyWithPassword;
//   - "EC PRIVATE KEY" and "SM2 PRIVATE KEY": SEC 1, see ParseECPrivateKey
//     (the second label implies the SM2 curve, and an "EC PARAMETERS" or
//     "SM2 PARAMETERS" block right before a key names its curve if the key
//     does not);
//   - "RSA PRIVATE KEY": PKCS #1;
//   - any of the four unencrypted labels with legacy "Proc-Type:
//     4,ENCRYPTED" / "DEK-Info" encryption (SM4-CBC, AES-128/192/256-CBC or
//     DES-EDE3-CBC, key from OpenSSL's EVP_BytesToKey).
//
// password is used for encrypted keys only; nil means none was given, and an
// encrypted key then gives an error wrapping ErrPasswordRequired. A wrong
// password gives ErrIncorrectPassword. When pemBytes holds no private key,
// the error says what it holds instead (see DescribePEM).
func ParsePrivateKeysPEM(pemBytes, password []byte) ([]crypto.Signer, error) {
	return parsePrivateKeysPEM(pemBytes, password, -1)
}

// parsePrivateKeysPEM parses up to limit keys (all if limit < 0).
func parsePrivateKeysPEM(pemBytes, password []byte, limit int) ([]crypto.Signer, error) {
	total := 0
	for rest := pemBytes; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if isPrivateKeyType(block.Type) {
			total++
		}
	}
	if total == 0 {
		return nil, errors.New("x509: no private key found in PEM data; it holds " + DescribePEM(pemBytes))
	}
	var keys []crypto.Signer
	var curve asn1.ObjectIdentifier // from a parameters block just before
	for rest := pemBytes; len(keys) != limit; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type == PEMTypeECParameters || block.Type == PEMTypeSM2Parameters {
			// Only a named curve is remembered; anything else is
			// left for the key's own parameters to settle.
			curve, _ = parseECParameters(cryptobyte.String(block.Bytes))
			continue
		}
		hint := curve
		curve = nil
		if !isPrivateKeyType(block.Type) {
			continue
		}
		var signer crypto.Signer
		key, err := parsePrivateKeyBlock(block, password, hint)
		if err == nil {
			signer, err = asSigner(key)
		}
		if err != nil {
			if total > 1 {
				return nil, fmt.Errorf("x509: private key %d of %d (%s): %w", len(keys)+1, total, block.Type, err)
			}
			return nil, err
		}
		keys = append(keys, signer)
	}
	return keys, nil
}

func isPrivateKeyType(t string) bool {
	switch t {
	case PEMTypePrivateKey, PEMTypeEncryptedPrivateKey, PEMTypeECPrivateKey, PEMTypeSM2PrivateKey, PEMTypeRSAPrivateKey:
		return true
	}
	return false
}

func asSigner(key any) (crypto.Signer, error) {
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("x509: the private key is %s, which cannot sign (a key-agreement-only key)", keyName(key))
	}
	return signer, nil
}

// parsePrivateKeyBlock parses a PEM block whose type isPrivateKeyType.
// curve is the named curve of a parameters block just before it, or nil.
func parsePrivateKeyBlock(block *pem.Block, password []byte, curve asn1.ObjectIdentifier) (any, error) {
	der := block.Bytes
	c, iv, legacy, err := legacyPEMInfo(block)
	if err != nil {
		return nil, err
	}
	if legacy {
		if block.Type == PEMTypeEncryptedPrivateKey {
			return nil, errors.New("x509: ENCRYPTED PRIVATE KEY block has legacy encryption headers as well")
		}
		if password == nil {
			return nil, fmt.Errorf("%w (%s block with legacy PEM encryption, %s)", ErrPasswordRequired, block.Type, c.name)
		}
		der, err = decryptLegacyPEM(c, iv, block.Bytes, password)
		if err != nil {
			return nil, err
		}
		defer clear(der)
	}
	key, err := parseKeyDER(block.Type, der, password, curve)
	if legacy && err != nil {
		// A wrong key that slipped through the padding check.
		return nil, ErrIncorrectPassword
	}
	return key, err
}

func parseKeyDER(typ string, der, password []byte, curve asn1.ObjectIdentifier) (any, error) {
	ctx := "the EC PARAMETERS block before it"
	if typ == PEMTypeSM2PrivateKey {
		if curve != nil && !curve.Equal(OIDNamedCurveSM2) {
			return nil, errors.New("x509: SM2 PRIVATE KEY block follows parameters of another curve")
		}
		curve, ctx = OIDNamedCurveSM2, "its PEM label SM2 PRIVATE KEY"
	}
	switch typ {
	case PEMTypePrivateKey:
		return ParsePKCS8PrivateKey(der)
	case PEMTypeEncryptedPrivateKey:
		if password == nil {
			// An unsupported scheme is reported as such: no
			// password would help.
			p, _, err := parseEncryptedPrivateKeyInfo(der)
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w (PKCS #8, %v)", ErrPasswordRequired, p)
		}
		return ParsePKCS8PrivateKeyWithPassword(der, password)
	case PEMTypeECPrivateKey, PEMTypeSM2PrivateKey:
		return parseECPrivateKey(curve, ctx, der)
	case PEMTypeRSAPrivateKey:
		return stdx509.ParsePKCS1PrivateKey(der)
	}
	return nil, errors.New("x509: " + typ + " is not a private key type")
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
// PEM block; see MarshalPKCS8PrivateKeyWithPassword. opts nil gives GmSSL's
// SM4-CBC/HMAC-SM3 form; PBES2OptionsForOpenSSL() gives a file that
// `openssl pkey -passin` reads.
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
			return nil, errors.New("x509: no PUBLIC KEY block found in PEM data; it holds " + DescribePEM(pemBytes))
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
