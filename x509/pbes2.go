package x509

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
	"golang.org/x/crypto/scrypt"
)

// PBES2Cipher names the block cipher (always in CBC mode) of a PBES2
// encryption scheme.
type PBES2Cipher int

const (
	SM4CBC    PBES2Cipher = iota // 1.2.156.10197.1.104.2, GmSSL's and Tongsuo's default
	AES128CBC                    // 2.16.840.1.101.3.4.1.2
	AES192CBC                    // 2.16.840.1.101.3.4.1.22
	AES256CBC                    // 2.16.840.1.101.3.4.1.42, OpenSSL's default

	// desEDE3CBC (1.2.840.113549.3.7) is read, never written: OpenSSL
	// writes it on request (-v2 des-ede3-cbc) and in old files.
	desEDE3CBC
)

// PBKDF2PRF names the HMAC used as the PBKDF2 pseudo-random function.
type PBKDF2PRF int

const (
	// HMACWithSM3 is HMAC-SM3 under 1.2.156.10197.1.401.2 in GmSSL's
	// layout (an explicit key length, no NULL parameter). GmSSL reads only
	// this form; OpenSSL 3.0 and Tongsuo cannot read it.
	HMACWithSM3    PBKDF2PRF = iota
	HMACWithSHA256           // OpenSSL's default
	HMACWithSHA384
	HMACWithSHA512
	// HMACWithSM3Tongsuo is HMAC-SM3 under 1.2.156.10197.1.401.3.1 (the
	// identifier of GM/T 0091-2020 table A.1) in OpenSSL's layout, as
	// `tongsuo pkcs8 -topk8 -v2 sm4 -v2prf hmacWithSM3` writes it. Tongsuo
	// reads only this form; GmSSL and OpenSSL 3.0 cannot read it.
	HMACWithSM3Tongsuo

	// Read, never written: obsolete (SHA-1, MD5) or rare PRFs that OpenSSL
	// or Tongsuo write when asked to.
	hmacWithSHA1 // RFC 8018's default, implied by an absent PRF
	hmacWithMD5
	hmacWithSHA224
	hmacWithSHA512_224
	hmacWithSHA512_256
	hmacWithSHA3_224
	hmacWithSHA3_256
	hmacWithSHA3_384
	hmacWithSHA3_512
)

// PBES2Options configures MarshalPKCS8PrivateKeyWithPassword. The zero value
// (or nil) means SM4-CBC, PBKDF2-HMAC-SM3 in GmSSL's layout, 100000
// iterations and a 16-byte salt: the file GmSSL 3 writes and reads.
// PBES2OptionsForOpenSSL and PBES2OptionsForTongsuo return the options for
// files that those tools must read.
type PBES2Options struct {
	Cipher     PBES2Cipher
	PRF        PBKDF2PRF
	Iterations int
	SaltSize   int
}

// PBES2OptionsForOpenSSL returns the options of `openssl pkcs8 -topk8`'s
// default: PBKDF2-HMAC-SHA256 and AES-256-CBC. OpenSSL 3, Tongsuo, Go's
// ecosystem and most other PKCS #8 readers read such a file; GmSSL does not.
func PBES2OptionsForOpenSSL() *PBES2Options {
	return &PBES2Options{Cipher: AES256CBC, PRF: HMACWithSHA256}
}

// PBES2OptionsForTongsuo returns SM4-CBC with PBKDF2-HMAC-SM3 in the form
// Tongsuo writes and reads (see HMACWithSM3Tongsuo).
func PBES2OptionsForTongsuo() *PBES2Options {
	return &PBES2Options{Cipher: SM4CBC, PRF: HMACWithSM3Tongsuo}
}

const (
	defaultPBKDF2Iterations = 100000
	defaultPBKDF2SaltSize   = 16
	// maxPBKDF2Iterations bounds the work an untrusted file can demand of
	// the parser; it is far above what any tool writes by default.
	maxPBKDF2Iterations = 10_000_000

	// Bounds on scrypt parameters read from a file: memory is 128·N·r
	// bytes, so these allow 256 MiB, eight times what OpenSSL itself
	// accepts by default, and far above its -scrypt default (N=16384, r=8,
	// p=1: 16 MiB).
	maxScryptMemory = 256 << 20
	maxScryptP      = 16
)

// ErrIncorrectPassword is returned when an encrypted private key does not
// decrypt to a well-formed key. It is the only error for that case, whatever
// the reason (wrong password, wrong padding, corrupt ciphertext).
var ErrIncorrectPassword = errors.New("x509: decryption password incorrect")

// ErrPasswordRequired is returned (wrapped, with a description of the
// encryption) when a private key is encrypted and no password was given.
var ErrPasswordRequired = errors.New("x509: the private key is encrypted and no password was given")

// cbcCipher describes a block cipher in CBC mode as PBES2 and legacy PEM
// encryption use it.
type cbcCipher struct {
	id        PBES2Cipher
	oid       asn1.ObjectIdentifier
	name      string // OpenSSL's name, as in a DEK-Info header
	keySize   int
	blockSize int
	newBlock  func(key []byte) (cipher.Block, error)
	write     bool
}

var cbcCiphers = []*cbcCipher{
	{SM4CBC, OIDSM4CBC, "SM4-CBC", 16, 16, sm4.NewCipher, true},
	{AES128CBC, OIDAES128CBC, "AES-128-CBC", 16, 16, aes.NewCipher, true},
	{AES192CBC, OIDAES192CBC, "AES-192-CBC", 24, 16, aes.NewCipher, true},
	{AES256CBC, OIDAES256CBC, "AES-256-CBC", 32, 16, aes.NewCipher, true},
	{desEDE3CBC, OIDDESEDE3CBC, "DES-EDE3-CBC", 24, 8, des.NewTripleDESCipher, false},
}

func cipherByOID(oid asn1.ObjectIdentifier) *cbcCipher {
	for _, c := range cbcCiphers {
		if oid.Equal(c.oid) {
			return c
		}
	}
	return nil
}

func cipherByName(name string) *cbcCipher {
	for _, c := range cbcCiphers {
		if strings.EqualFold(name, c.name) {
			return c
		}
	}
	return nil
}

// pbkdf2PRF describes a PBKDF2 pseudo-random function.
type pbkdf2PRF struct {
	id   PBKDF2PRF
	oid  asn1.ObjectIdentifier
	name string
	h    func() hash.Hash
	// gmsslLayout: write an explicit key length and no NULL parameter.
	gmsslLayout bool
	write       bool
}

func sha3New224() hash.Hash { return sha3.New224() }
func sha3New256() hash.Hash { return sha3.New256() }
func sha3New384() hash.Hash { return sha3.New384() }
func sha3New512() hash.Hash { return sha3.New512() }

var pbkdf2PRFs = []*pbkdf2PRF{
	{HMACWithSM3, OIDHMACWithSM3, "HMAC-SM3", sm3.New, true, true},
	{HMACWithSM3Tongsuo, OIDHMACWithSM3Tongsuo, "HMAC-SM3", sm3.New, false, true},
	{HMACWithSHA256, OIDHMACWithSHA256, "HMAC-SHA256", sha256.New, false, true},
	{HMACWithSHA384, OIDHMACWithSHA384, "HMAC-SHA384", sha512.New384, false, true},
	{HMACWithSHA512, OIDHMACWithSHA512, "HMAC-SHA512", sha512.New, false, true},
	{hmacWithSHA1, OIDHMACWithSHA1, "HMAC-SHA1", sha1.New, false, false},
	{hmacWithSHA1, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 8, 1, 2}, "HMAC-SHA1", sha1.New, false, false},
	{hmacWithMD5, asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 6}, "HMAC-MD5", md5.New, false, false},
	{hmacWithMD5, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 8, 1, 1}, "HMAC-MD5", md5.New, false, false},
	{hmacWithSHA224, asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}, "HMAC-SHA224", sha256.New224, false, false},
	{hmacWithSHA512_224, asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 12}, "HMAC-SHA512/224", sha512.New512_224, false, false},
	{hmacWithSHA512_256, asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 13}, "HMAC-SHA512/256", sha512.New512_256, false, false},
	{hmacWithSHA3_224, asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 13}, "HMAC-SHA3-224", sha3New224, false, false},
	{hmacWithSHA3_256, asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 14}, "HMAC-SHA3-256", sha3New256, false, false},
	{hmacWithSHA3_384, asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 15}, "HMAC-SHA3-384", sha3New384, false, false},
	{hmacWithSHA3_512, asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 16}, "HMAC-SHA3-512", sha3New512, false, false},
}

func prfByOID(oid asn1.ObjectIdentifier) *pbkdf2PRF {
	for _, p := range pbkdf2PRFs {
		if oid.Equal(p.oid) {
			return p
		}
	}
	return nil
}

// pbes1Names names the PBES1 (PKCS #5 v1.5) and PKCS #12 password-based
// schemes, so that their refusal says what the file uses.
var pbes1Names = []struct {
	oid  asn1.ObjectIdentifier
	name string
}{
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 1}, "pbeWithMD2AndDES-CBC"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 3}, "pbeWithMD5AndDES-CBC"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 4}, "pbeWithMD2AndRC2-CBC"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 6}, "pbeWithMD5AndRC2-CBC"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 10}, "pbeWithSHA1AndDES-CBC"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 11}, "pbeWithSHA1AndRC2-CBC"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 1}, "pbeWithSHA1And128BitRC4 (PKCS #12)"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 2}, "pbeWithSHA1And40BitRC4 (PKCS #12)"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 3}, "pbeWithSHA1And3-KeyTripleDES-CBC (PKCS #12)"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 4}, "pbeWithSHA1And2-KeyTripleDES-CBC (PKCS #12)"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 5}, "pbeWithSHA1And128BitRC2-CBC (PKCS #12)"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 6}, "pbeWithSHA1And40BitRC2-CBC (PKCS #12)"},
}

// ParsePKCS8PrivateKeyWithPassword decrypts and parses a PKCS #8
// EncryptedPrivateKeyInfo ("ENCRYPTED PRIVATE KEY" in PEM) protected with
// PBES2 (RFC 8018), in every form OpenSSL, Tongsuo and GmSSL write:
//
//   - key derivation PBKDF2 with HMAC-SM3 (under either of its two
//     identifiers), -SHA-1, -SHA-224, -SHA-256, -SHA-384, -SHA-512,
//     -SHA-512/224, -SHA-512/256, -SHA3-224/256/384/512 or -MD5; or scrypt
//     (RFC 7914), with N, r and p bounded so that a file cannot demand more
//     than 256 MiB;
//   - encryption SM4-CBC, AES-128/192/256-CBC or DES-EDE3-CBC.
//
// PBES1 and PKCS #12 schemes are refused with an error that names them.
// A wrong password gives ErrIncorrectPassword. Keys are returned as by
// ParsePKCS8PrivateKey.
func ParsePKCS8PrivateKeyWithPassword(der, password []byte) (any, error) {
	p, encrypted, err := parseEncryptedPrivateKeyInfo(der)
	if err != nil {
		return nil, err
	}
	key, err := p.deriveKey(password)
	if err != nil {
		return nil, err
	}
	plain, err := decryptCBC(p.cipher, key, p.iv, encrypted)
	clear(key)
	if err != nil {
		return nil, err
	}
	defer clear(plain)
	k, err := ParsePKCS8PrivateKey(plain)
	if err != nil {
		return nil, ErrIncorrectPassword
	}
	return k, nil
}

// decryptCBC decrypts and unpads ciphertext. A padding error is reported as
// ErrIncorrectPassword: it is what a wrong key produces.
func decryptCBC(c *cbcCipher, key, iv, ciphertext []byte) ([]byte, error) {
	block, err := c.newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(iv) != bs {
		return nil, fmt.Errorf("x509: %s IV is %d bytes, want %d", c.name, len(iv), bs)
	}
	if len(ciphertext) == 0 || len(ciphertext)%bs != 0 {
		return nil, fmt.Errorf("x509: %s ciphertext of %d bytes is not a whole number of blocks", c.name, len(ciphertext))
	}
	plain := make([]byte, len(ciphertext))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, ciphertext)
	n, ok := unpad(plain, bs)
	if !ok {
		clear(plain)
		return nil, ErrIncorrectPassword
	}
	return plain[:n], nil
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

// pad returns plain with PKCS #7 padding in a new slice.
func pad(plain []byte, blockSize int) []byte {
	padLen := blockSize - len(plain)%blockSize
	padded := make([]byte, len(plain)+padLen)
	copy(padded, plain)
	for i := len(plain); i < len(padded); i++ {
		padded[i] = byte(padLen)
	}
	return padded
}

type pbes2Params struct {
	salt []byte
	// PBKDF2
	iterations int
	prf        *pbkdf2PRF
	// scrypt
	scrypt     bool
	n, r, pPar int

	// keyLen is the optional key length of the KDF parameters, 0 if absent.
	keyLen int

	cipher *cbcCipher
	iv     []byte
}

func (p *pbes2Params) deriveKey(password []byte) ([]byte, error) {
	if p.scrypt {
		return scrypt.Key(password, p.salt, p.n, p.r, p.pPar, p.cipher.keySize)
	}
	return pbkdf2.Key(p.prf.h, string(password), p.salt, p.iterations, p.cipher.keySize)
}

// String describes the scheme, e.g. "PBES2: PBKDF2-HMAC-SHA256, AES-256-CBC".
func (p *pbes2Params) String() string {
	if p.scrypt {
		return fmt.Sprintf("PBES2: scrypt N=%d r=%d p=%d, %s", p.n, p.r, p.pPar, p.cipher.name)
	}
	return fmt.Sprintf("PBES2: PBKDF2-%s, %d iterations, %s", p.prf.name, p.iterations, p.cipher.name)
}

var errMalformedEncryptedPKCS8 = errors.New("x509: malformed encrypted PKCS #8 private key")

// readOptionalInt reads an optional INTEGER at the front of s.
func readOptionalInt(s *cryptobyte.String, v *int) (present, ok bool) {
	if !s.PeekASN1Tag(cbasn1.INTEGER) {
		return false, true
	}
	return true, s.ReadASN1Integer(v)
}

func parseEncryptedPrivateKeyInfo(der []byte) (*pbes2Params, []byte, error) {
	input := cryptobyte.String(der)
	var seq, algo cryptobyte.String
	var encrypted []byte
	if !input.ReadASN1(&seq, cbasn1.SEQUENCE) || !input.Empty() ||
		!seq.ReadASN1(&algo, cbasn1.SEQUENCE) ||
		!seq.ReadASN1Bytes(&encrypted, cbasn1.OCTET_STRING) || !seq.Empty() {
		return nil, nil, errMalformedEncryptedPKCS8
	}
	var oid asn1.ObjectIdentifier
	if !algo.ReadASN1ObjectIdentifier(&oid) {
		return nil, nil, errMalformedEncryptedPKCS8
	}
	if !oid.Equal(OIDPBES2) {
		for _, e := range pbes1Names {
			if oid.Equal(e.oid) {
				return nil, nil, fmt.Errorf("x509: the private key is encrypted with %s, an obsolete PBES1-style scheme that is not supported; re-encrypt it with PBES2, e.g. `openssl pkcs8 -topk8 -v2 aes-256-cbc`", e.name)
			}
		}
		return nil, nil, errors.New("x509: unsupported password-based encryption scheme " + oid.String() + " (only PBES2)")
	}
	p, err := parsePBES2Params(algo)
	if err != nil {
		return nil, nil, err
	}
	return p, encrypted, nil
}

// parsePBES2Params parses what follows the PBES2 identifier in its
// AlgorithmIdentifier: PBES2-params (RFC 8018 A.4).
func parsePBES2Params(algo cryptobyte.String) (*pbes2Params, error) {
	var pbes2, kdf, kdfParams, enc cryptobyte.String
	var kdfOID, encOID asn1.ObjectIdentifier
	if !algo.ReadASN1(&pbes2, cbasn1.SEQUENCE) || !algo.Empty() ||
		!pbes2.ReadASN1(&kdf, cbasn1.SEQUENCE) ||
		!pbes2.ReadASN1(&enc, cbasn1.SEQUENCE) || !pbes2.Empty() ||
		!kdf.ReadASN1ObjectIdentifier(&kdfOID) ||
		!kdf.ReadASN1(&kdfParams, cbasn1.SEQUENCE) || !kdf.Empty() {
		return nil, errMalformedEncryptedPKCS8
	}
	p := &pbes2Params{}
	switch {
	case kdfOID.Equal(OIDPBKDF2):
		if err := p.parsePBKDF2(kdfParams); err != nil {
			return nil, err
		}
	case kdfOID.Equal(OIDScrypt):
		if err := p.parseScrypt(kdfParams); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("x509: unsupported PBES2 key derivation function " + kdfOID.String() + " (supported: PBKDF2, scrypt)")
	}
	if !enc.ReadASN1ObjectIdentifier(&encOID) ||
		!enc.ReadASN1Bytes(&p.iv, cbasn1.OCTET_STRING) || !enc.Empty() {
		return nil, errMalformedEncryptedPKCS8
	}
	p.cipher = cipherByOID(encOID)
	if p.cipher == nil {
		return nil, errors.New("x509: unsupported PBES2 cipher " + encOID.String() + " (supported: SM4-CBC, AES-128/192/256-CBC, DES-EDE3-CBC)")
	}
	if len(p.iv) != p.cipher.blockSize {
		return nil, fmt.Errorf("x509: PBES2 %s IV is %d bytes, want %d", p.cipher.name, len(p.iv), p.cipher.blockSize)
	}
	if p.keyLen != 0 && p.keyLen != p.cipher.keySize {
		return nil, fmt.Errorf("x509: PBES2 key length %d does not match %s", p.keyLen, p.cipher.name)
	}
	return p, nil
}

// parsePBKDF2 parses PBKDF2-params (RFC 8018 A.2):
//
//	SEQUENCE { salt OCTET STRING, iterationCount INTEGER,
//	           keyLength INTEGER OPTIONAL, prf AlgorithmIdentifier DEFAULT hmacWithSHA1 }
//
// The PRF's parameters are NULL (OpenSSL, Tongsuo) or absent (GmSSL); both
// are accepted.
func (p *pbes2Params) parsePBKDF2(s cryptobyte.String) error {
	if !s.ReadASN1Bytes(&p.salt, cbasn1.OCTET_STRING) ||
		!s.ReadASN1Integer(&p.iterations) || p.iterations <= 0 {
		return errMalformedEncryptedPKCS8
	}
	if _, ok := readOptionalInt(&s, &p.keyLen); !ok || p.keyLen < 0 {
		return errMalformedEncryptedPKCS8
	}
	var prfField cryptobyte.String
	var hasPRF bool
	if !s.ReadOptionalASN1(&prfField, &hasPRF, cbasn1.SEQUENCE) || !s.Empty() {
		return errMalformedEncryptedPKCS8
	}
	p.prf = prfByOID(OIDHMACWithSHA1)
	if hasPRF {
		var prfOID asn1.ObjectIdentifier
		if !prfField.ReadASN1ObjectIdentifier(&prfOID) {
			return errMalformedEncryptedPKCS8
		}
		if !prfField.Empty() && (!prfField.ReadASN1(new(cryptobyte.String), cbasn1.NULL) || !prfField.Empty()) {
			return errMalformedEncryptedPKCS8
		}
		p.prf = prfByOID(prfOID)
		if p.prf == nil {
			return errors.New("x509: unsupported PBKDF2 PRF " + prfOID.String())
		}
	}
	if p.iterations > maxPBKDF2Iterations {
		return fmt.Errorf("x509: PBKDF2 iteration count %d is unreasonably large (limit %d)", p.iterations, maxPBKDF2Iterations)
	}
	return nil
}

// parseScrypt parses scrypt-params (RFC 7914 section 7.1):
//
//	SEQUENCE { salt OCTET STRING, costParameter INTEGER, blockSize INTEGER,
//	           parallelizationParameter INTEGER, keyLength INTEGER OPTIONAL }
func (p *pbes2Params) parseScrypt(s cryptobyte.String) error {
	p.scrypt = true
	if !s.ReadASN1Bytes(&p.salt, cbasn1.OCTET_STRING) ||
		!s.ReadASN1Integer(&p.n) || !s.ReadASN1Integer(&p.r) || !s.ReadASN1Integer(&p.pPar) {
		return errMalformedEncryptedPKCS8
	}
	if _, ok := readOptionalInt(&s, &p.keyLen); !ok || p.keyLen < 0 || !s.Empty() {
		return errMalformedEncryptedPKCS8
	}
	if p.n <= 1 || p.n&(p.n-1) != 0 || p.r <= 0 || p.pPar <= 0 {
		return errors.New("x509: invalid scrypt parameters")
	}
	if p.pPar > maxScryptP || p.r > maxScryptMemory/128 || p.n > maxScryptMemory/128/p.r {
		return fmt.Errorf("x509: scrypt parameters N=%d r=%d p=%d demand too much memory or time (limit %d MiB, p <= %d)", p.n, p.r, p.pPar, maxScryptMemory>>20, maxScryptP)
	}
	return nil
}

// MarshalPKCS8PrivateKeyWithPassword encrypts key with a key derived from
// password and returns a DER PKCS #8 EncryptedPrivateKeyInfo using PBES2
// with PBKDF2. opts may be nil; see PBES2Options for the defaults and
// PBES2OptionsForOpenSSL for files that OpenSSL must read.
func MarshalPKCS8PrivateKeyWithPassword(rand io.Reader, key any, password []byte, opts *PBES2Options) ([]byte, error) {
	plain, err := MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	defer clear(plain)
	algorithm, encrypted, err := EncryptWithPassword(rand, plain, password, opts)
	if err != nil {
		return nil, err
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(algorithm)
		b.AddASN1OctetString(encrypted)
	})
	return b.Bytes()
}

// EncryptWithPassword encrypts plaintext with PBES2 and PBKDF2 as opts
// says (nil: see PBES2Options), and returns the DER AlgorithmIdentifier of
// the scheme and the ciphertext. It is the encryption of
// MarshalPKCS8PrivateKeyWithPassword, for formats that carry other content
// under the same scheme (the EncryptedData of a PKCS #12 file).
func EncryptWithPassword(rand io.Reader, plaintext, password []byte, opts *PBES2Options) (algorithm, ciphertext []byte, err error) {
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
		return nil, nil, errors.New("x509: unreasonable PBKDF2 iteration count or salt size")
	}
	var c *cbcCipher
	for _, e := range cbcCiphers {
		if e.id == opts.Cipher && e.write {
			c = e
		}
	}
	var prf *pbkdf2PRF
	for _, e := range pbkdf2PRFs {
		if e.id == opts.PRF && e.write {
			prf = e
		}
	}
	if c == nil || prf == nil {
		return nil, nil, errors.New("x509: unknown or read-only PBES2 cipher or PRF")
	}

	salt := make([]byte, saltSize)
	iv := make([]byte, c.blockSize)
	if _, err := io.ReadFull(rand, salt); err != nil {
		return nil, nil, err
	}
	if _, err := io.ReadFull(rand, iv); err != nil {
		return nil, nil, err
	}
	dk, err := pbkdf2.Key(prf.h, string(password), salt, iterations, c.keySize)
	if err != nil {
		return nil, nil, err
	}
	block, err := c.newBlock(dk)
	clear(dk)
	if err != nil {
		return nil, nil, err
	}
	padded := pad(plaintext, block.BlockSize())
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(padded, padded)

	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(OIDPBES2)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(OIDPBKDF2)
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1OctetString(salt)
					b.AddASN1Int64(int64(iterations))
					if prf.gmsslLayout {
						// GmSSL's layout: an explicit key length
						// and a PRF identifier without parameters;
						// GmSSL rejects a NULL there.
						b.AddASN1Int64(int64(c.keySize))
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1ObjectIdentifier(prf.oid)
						})
						return
					}
					// OpenSSL's (and Tongsuo's) layout: no key
					// length, NULL parameters.
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1ObjectIdentifier(prf.oid)
						b.AddASN1NULL()
					})
				})
			})
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(c.oid)
				b.AddASN1OctetString(iv)
			})
		})
	})
	algorithm, err = b.Bytes()
	if err != nil {
		return nil, nil, err
	}
	return algorithm, padded, nil
}
