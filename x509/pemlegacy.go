package x509

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// Legacy PEM encryption (RFC 1421 headers as OpenSSL uses them):
//
//	Proc-Type: 4,ENCRYPTED
//	DEK-Info: AES-256-CBC,<IV in hex>
//
// The key is OpenSSL's EVP_BytesToKey with MD5, one iteration and the first
// eight bytes of the IV as salt; the body is the DER key in CBC mode with
// PKCS #7 padding. `openssl ec -aes256`, `openssl ec -sm4`, `openssl rsa
// -traditional -des3` and Tongsuo's tools write it. One MD5 pass makes
// password guessing cheap, so such files are read but never written; use
// MarshalPrivateKeyPEMWithPassword (PBES2) for new files.

// legacyPEMInfo reports whether b uses legacy PEM encryption and, if so, its
// cipher and IV. An error means the headers claim encryption but cannot be
// understood.
func legacyPEMInfo(b *pem.Block) (c *cbcCipher, iv []byte, encrypted bool, err error) {
	procType, hasProcType := b.Headers["Proc-Type"]
	dekInfo, hasDEK := b.Headers["DEK-Info"]
	if !hasProcType && !hasDEK {
		return nil, nil, false, nil
	}
	if hasProcType && strings.ReplaceAll(procType, " ", "") != "4,ENCRYPTED" {
		return nil, nil, true, fmt.Errorf("x509: unsupported PEM Proc-Type %q", procType)
	}
	if !hasDEK {
		return nil, nil, true, errors.New("x509: encrypted PEM block has no DEK-Info header")
	}
	name, ivHex, ok := strings.Cut(dekInfo, ",")
	name = strings.TrimSpace(name)
	if !ok {
		return nil, nil, true, fmt.Errorf("x509: malformed PEM DEK-Info %q", dekInfo)
	}
	c = cipherByName(name)
	if c == nil {
		return nil, nil, true, fmt.Errorf("x509: unsupported legacy PEM cipher %q (supported: SM4-CBC, AES-128-CBC, AES-192-CBC, AES-256-CBC, DES-EDE3-CBC)", name)
	}
	iv, err = hex.DecodeString(strings.TrimSpace(ivHex))
	if err != nil || len(iv) != c.blockSize {
		return nil, nil, true, fmt.Errorf("x509: malformed IV in PEM DEK-Info %q", dekInfo)
	}
	return c, iv, true, nil
}

// decryptLegacyPEM decrypts the body of a legacy-encrypted PEM block. A
// padding failure gives ErrIncorrectPassword; the caller must also report a
// body that does not parse as a key as ErrIncorrectPassword, since a wrong
// key passes the padding check about once in 256 tries.
func decryptLegacyPEM(c *cbcCipher, iv, body, password []byte) ([]byte, error) {
	key := evpBytesToKeyMD5(password, iv[:8], c.keySize)
	plain, err := decryptCBC(c, key, iv, body)
	clear(key)
	return plain, err
}

// evpBytesToKeyMD5 is OpenSSL's EVP_BytesToKey with MD5 and one iteration:
// D_1 = MD5(password || salt), D_i = MD5(D_{i-1} || password || salt), and
// the key is the first keyLen bytes of D_1 || D_2 || ...
func evpBytesToKeyMD5(password, salt []byte, keyLen int) []byte {
	key := make([]byte, 0, keyLen+md5.Size)
	var prev []byte
	for len(key) < keyLen {
		h := md5.New()
		h.Write(prev)
		h.Write(password)
		h.Write(salt)
		key = h.Sum(key)
		prev = key[len(key)-md5.Size:]
	}
	out := make([]byte, keyLen)
	copy(out, key)
	clear(key[:cap(key)])
	return out
}
