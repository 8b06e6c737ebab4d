package x509

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/asn1"
	"errors"
	"hash"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// PBES2Cipher names the block cipher (always in CBC mode) of a PBES2
// encryption scheme.
type PBES2Cipher int

const (
	SM4CBC    PBES2Cipher = iota // 1.2.156.10197.1.104.2, GmSSL's and Tongsuo's default
	AES128CBC                    // 2.16.840.1.101.3.4.1.2
	AES192CBC                    // 2.16.840.1.101.3.4.1.22
	AES256CBC                    // 2.16.840.1.101.3.4.1.42, OpenSSL's default
)

// PBKDF2PRF names the HMAC used as the PBKDF2 pseudo-random function.
type PBKDF2PRF int

const (
	HMACWithSM3    PBKDF2PRF = iota // 1.2.156.10197.1.401.2; OpenSSL 3.0 cannot read it
	HMACWithSHA256                  // OpenSSL's default
	HMACWithSHA384
	HMACWithSHA512
	hmacWithSHA1 // parse only: RFC 8018's default, obsolete for new files
)

// PBES2Options configures MarshalPKCS8PrivateKeyWithPassword. The zero value
// (or nil) means SM4-CBC, PBKDF2-HMAC-SM3, 100000 iterations and a 16-byte salt.
// For files that OpenSSL 3.0 must read, use HMACWithSHA256: OpenSSL knows
// SM4-CBC but not HMAC-SM3 as a PBKDF2 PRF.
type PBES2Options struct {
	Cipher     PBES2Cipher
	PRF        PBKDF2PRF
	Iterations int
	SaltSize   int
}

const (
	defaultPBKDF2Iterations = 100000
	defaultPBKDF2SaltSize   = 16
	// maxPBKDF2Iterations bounds the work an untrusted file can demand of
	// the parser; it is far above what any tool writes by default.
	maxPBKDF2Iterations = 10_000_000
)

// ErrIncorrectPassword is returned when an encrypted private key does not
// decrypt to a well-formed key. It is the only error for that case, whatever
// the reason (wrong password, wrong padding, corrupt ciphertext).
var ErrIncorrectPassword = errors.New("x509: decryption password incorrect")

var cipherOIDs = []struct {
	c       PBES2Cipher
	oid     asn1.ObjectIdentifier
	keySize int
}{
	{SM4CBC, OIDSM4CBC, 16},
	{AES128CBC, OIDAES128CBC, 16},
	{AES192CBC, OIDAES192CBC, 24},
	{AES256CBC, OIDAES256CBC, 32},
}

var prfOIDs = []struct {
	p   PBKDF2PRF
	oid asn1.ObjectIdentifier
	h   func() hash.Hash
}{
	{HMACWithSM3, OIDHMACWithSM3, sm3.New},
	{HMACWithSM3, oidHMACWithSM3GmSSL, sm3.New},
	{HMACWithSHA256, OIDHMACWithSHA256, sha256.New},
	{HMACWithSHA384, OIDHMACWithSHA384, sha512.New384},
	{HMACWithSHA512, OIDHMACWithSHA512, sha512.New},
	{hmacWithSHA1, OIDHMACWithSHA1, sha1.New},
}

func newCBCBlock(c PBES2Cipher, key []byte) (cipher.Block, error) {
	if c == SM4CBC {
		return sm4.NewCipher(key)
	}
	return aes.NewCipher(key)
}

// ParsePKCS8PrivateKeyWithPassword decrypts and parses a PKCS #8
// EncryptedPrivateKeyInfo ("ENCRYPTED PRIVATE KEY" in PEM) protected with
// PBES2 (RFC 8018): PBKDF2 with HMAC-SM3, -SHA-1, -SHA-256, -SHA-384 or
// -SHA-512, and SM4-CBC or AES-CBC. Keys are returned as by
// ParsePKCS8PrivateKey.
func ParsePKCS8PrivateKeyWithPassword(der, password []byte) (any, error) {
	p, encrypted, err := parseEncryptedPrivateKeyInfo(der)
	if err != nil {
		return nil, err
	}
	if p.iterations > maxPBKDF2Iterations {
		return nil, errors.New("x509: PBKDF2 iteration count is unreasonably large")
	}
	key, err := pbkdf2.Key(p.prf, string(password), p.salt, p.iterations, p.keySize)
	if err != nil {
		return nil, err
	}
	block, err := newCBCBlock(p.cipher, key)
	clear(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(encrypted) == 0 || len(encrypted)%bs != 0 || len(p.iv) != bs {
		return nil, errors.New("x509: malformed encrypted PKCS #8 private key")
	}
	plain := make([]byte, len(encrypted))
	cipher.NewCBCDecrypter(block, p.iv).CryptBlocks(plain, encrypted)
	defer clear(plain)
	n, ok := unpad(plain, bs)
	if !ok {
		return nil, ErrIncorrectPassword
	}
	k, err := ParsePKCS8PrivateKey(plain[:n])
	if err != nil {
		return nil, ErrIncorrectPassword
	}
	return k, nil
}

// unpad checks PKCS #7 padding without branching on the padding bytes.
func unpad(b []byte, blockSize int) (int, bool) {
	padLen := int(b[len(b)-1])
	good := subtle.ConstantTimeLessOrEq(1, padLen) & subtle.ConstantTimeLessOrEq(padLen, blockSize)
	for i := 1; i <= blockSize; i++ {
		inPad := subtle.ConstantTimeLessOrEq(i, padLen)
		same := subtle.ConstantTimeByteEq(b[len(b)-i], byte(padLen))
		good &= same | (inPad ^ 1)
	}
	if good != 1 {
		return 0, false
	}
	return len(b) - padLen, true
}

type pbes2Params struct {
	salt       []byte
	iterations int
	keySize    int
	prf        func() hash.Hash
	cipher     PBES2Cipher
	iv         []byte
}

func parseEncryptedPrivateKeyInfo(der []byte) (*pbes2Params, []byte, error) {
	errMalformed := errors.New("x509: malformed encrypted PKCS #8 private key")
	input := cryptobyte.String(der)
	var seq, algo, pbes2, kdf, kdfParams, enc cryptobyte.String
	var oid, kdfOID, encOID asn1.ObjectIdentifier
	var encrypted []byte
	if !input.ReadASN1(&seq, cbasn1.SEQUENCE) || !input.Empty() ||
		!seq.ReadASN1(&algo, cbasn1.SEQUENCE) ||
		!seq.ReadASN1Bytes(&encrypted, cbasn1.OCTET_STRING) || !seq.Empty() ||
		!algo.ReadASN1ObjectIdentifier(&oid) {
		return nil, nil, errMalformed
	}
	if !oid.Equal(OIDPBES2) {
		return nil, nil, errors.New("x509: unsupported password-based encryption scheme " + oid.String() + " (only PBES2)")
	}
	if !algo.ReadASN1(&pbes2, cbasn1.SEQUENCE) || !algo.Empty() ||
		!pbes2.ReadASN1(&kdf, cbasn1.SEQUENCE) ||
		!pbes2.ReadASN1(&enc, cbasn1.SEQUENCE) || !pbes2.Empty() ||
		!kdf.ReadASN1ObjectIdentifier(&kdfOID) {
		return nil, nil, errMalformed
	}
	if !kdfOID.Equal(OIDPBKDF2) {
		return nil, nil, errors.New("x509: unsupported key derivation function " + kdfOID.String() + " (only PBKDF2)")
	}
	p := &pbes2Params{prf: sha1.New}
	var keyLen int
	var hasKeyLen, hasPRF bool
	var keyLenField, prfField cryptobyte.String
	if !kdf.ReadASN1(&kdfParams, cbasn1.SEQUENCE) || !kdf.Empty() ||
		!kdfParams.ReadASN1Bytes(&p.salt, cbasn1.OCTET_STRING) ||
		!kdfParams.ReadASN1Integer(&p.iterations) ||
		!kdfParams.ReadOptionalASN1(&keyLenField, &hasKeyLen, cbasn1.INTEGER) ||
		!kdfParams.ReadOptionalASN1(&prfField, &hasPRF, cbasn1.SEQUENCE) ||
		!kdfParams.Empty() || p.iterations <= 0 {
		return nil, nil, errMalformed
	}
	if hasKeyLen {
		// ReadOptionalASN1 stripped the header; re-wrap to reuse the
		// INTEGER parser and its minimal-encoding checks.
		var b cryptobyte.Builder
		b.AddASN1(cbasn1.INTEGER, func(b *cryptobyte.Builder) { b.AddBytes(keyLenField) })
		s := cryptobyte.String(b.BytesOrPanic())
		if !s.ReadASN1Integer(&keyLen) {
			return nil, nil, errMalformed
		}
	}
	if hasPRF {
		var prfOID asn1.ObjectIdentifier
		if !prfField.ReadASN1ObjectIdentifier(&prfOID) {
			return nil, nil, errMalformed
		}
		p.prf = nil
		for _, e := range prfOIDs {
			if prfOID.Equal(e.oid) {
				p.prf = e.h
			}
		}
		if p.prf == nil {
			return nil, nil, errors.New("x509: unsupported PBKDF2 PRF " + prfOID.String())
		}
	}
	if !enc.ReadASN1ObjectIdentifier(&encOID) ||
		!enc.ReadASN1Bytes(&p.iv, cbasn1.OCTET_STRING) || !enc.Empty() {
		return nil, nil, errMalformed
	}
	found := false
	for _, e := range cipherOIDs {
		if encOID.Equal(e.oid) {
			p.cipher, p.keySize, found = e.c, e.keySize, true
		}
	}
	if !found {
		return nil, nil, errors.New("x509: unsupported PBES2 cipher " + encOID.String())
	}
	if hasKeyLen && keyLen != p.keySize {
		return nil, nil, errors.New("x509: PBKDF2 key length does not match the cipher")
	}
	return p, encrypted, nil
}

// MarshalPKCS8PrivateKeyWithPassword encrypts key with a key derived from
// password and returns a DER PKCS #8 EncryptedPrivateKeyInfo using PBES2.
// opts may be nil; see PBES2Options for the defaults.
func MarshalPKCS8PrivateKeyWithPassword(rand io.Reader, key any, password []byte, opts *PBES2Options) ([]byte, error) {
	if opts == nil {
		opts = &PBES2Options{}
	}
	iterations := opts.Iterations
	if iterations == 0 {
		iterations = defaultPBKDF2Iterations
	}
	saltSize := opts.SaltSize
	if saltSize == 0 {
		saltSize = defaultPBKDF2SaltSize
	}
	if iterations < 0 || iterations > maxPBKDF2Iterations || saltSize < 8 || saltSize > 64 {
		return nil, errors.New("x509: unreasonable PBKDF2 iteration count or salt size")
	}
	var cipherOID, prfOID asn1.ObjectIdentifier
	var keySize int
	var prf func() hash.Hash
	for _, e := range cipherOIDs {
		if e.c == opts.Cipher {
			cipherOID, keySize = e.oid, e.keySize
		}
	}
	for _, e := range prfOIDs {
		if e.p == opts.PRF && opts.PRF != hmacWithSHA1 && prf == nil {
			prfOID, prf = e.oid, e.h
		}
	}
	if cipherOID == nil || prf == nil {
		return nil, errors.New("x509: unknown PBES2 cipher or PRF")
	}

	plain, err := MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	defer clear(plain)

	salt := make([]byte, saltSize)
	iv := make([]byte, 16)
	if _, err := io.ReadFull(rand, salt); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(rand, iv); err != nil {
		return nil, err
	}
	dk, err := pbkdf2.Key(prf, string(password), salt, iterations, keySize)
	if err != nil {
		return nil, err
	}
	block, err := newCBCBlock(opts.Cipher, dk)
	clear(dk)
	if err != nil {
		return nil, err
	}
	padLen := block.BlockSize() - len(plain)%block.BlockSize()
	padded := make([]byte, len(plain)+padLen)
	copy(padded, plain)
	for i := len(plain); i < len(padded); i++ {
		padded[i] = byte(padLen)
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(padded, padded)

	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDPBES2)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(OIDPBKDF2)
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1OctetString(salt)
						b.AddASN1Int64(int64(iterations))
						if opts.PRF == HMACWithSM3 {
							// GmSSL's layout: an explicit key length
							// and a PRF identifier without parameters;
							// GmSSL rejects a NULL there.
							b.AddASN1Int64(int64(keySize))
							b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
								b.AddASN1ObjectIdentifier(prfOID)
							})
							return
						}
						// OpenSSL's layout for the SHA-2 PRFs:
						// no key length, NULL parameters.
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1ObjectIdentifier(prfOID)
							b.AddASN1NULL()
						})
					})
				})
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(cipherOID)
					b.AddASN1OctetString(iv)
				})
			})
		})
		b.AddASN1OctetString(padded)
	})
	return b.Bytes()
}
