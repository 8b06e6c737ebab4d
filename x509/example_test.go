package x509_test

import (
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	smx "github.com/shangmi-go/shangmi/x509"
)

// An SM2 key written as PKCS #8 PEM, encrypted for GmSSL/Tongsuo (SM4-CBC with
// PBKDF2-HMAC-SM3), and read back.
func ExampleMarshalPrivateKeyPEMWithPassword() {
	key, _ := sm2.GenerateKey(rand.Reader)
	pemBytes, err := smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, key, []byte("password"), nil)
	if err != nil {
		panic(err)
	}
	signer, err := smx.ParsePrivateKeyPEM(pemBytes, []byte("password"))
	if err != nil {
		panic(err)
	}
	fmt.Println(key.Equal(signer))
	// Output: true
}

func ExampleParsePKIXPublicKey() {
	key, _ := sm2.GenerateKey(rand.Reader)
	der, _ := smx.MarshalPKIXPublicKey(key.Public())
	pub, err := smx.ParsePKIXPublicKey(der)
	if err != nil {
		panic(err)
	}
	_, isSM2 := pub.(*sm2.PublicKey)
	fmt.Println(isSM2)
	// Output: true
}

// Loading a key that `openssl pkcs8 -topk8 -v2 aes-256-cbc` encrypted
// (PBES2: PBKDF2-HMAC-SHA256, AES-256-CBC). The same call reads the SEC 1
// "SM2 PRIVATE KEY" that `openssl ec` writes, legacy DEK-Info encryption,
// and GmSSL's and Tongsuo's SM4/HMAC-SM3 files.
func ExampleParsePrivateKeyPEM_openSSLEncrypted() {
	const keyPEM = `-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAilP7pTsj9cOwICCAAw
DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEI5142eZmxfB0i490WUJB4cEgZDn
876mjuUGDQF1piJ1kXTkdZgMVg4A6KDtYEd95aTKHwMAb4CUl8/3+RDgbEpYWttx
MLIFWjB+YN9Gq0GZl98xq52cLKsA0sbvdvEAUlh07bR80pNQwjECgFQt/02+qSh5
3vpZXe+J0UShZDYDsZNlGJOu6XhGCgSRMsf7qMnUzMXuXg1KbJAXVLKCZA5P19I=
-----END ENCRYPTED PRIVATE KEY-----
`
	fmt.Println(smx.DescribePEM([]byte(keyPEM)))

	if _, err := smx.ParsePrivateKeyPEM([]byte(keyPEM), nil); errors.Is(err, smx.ErrPasswordRequired) {
		fmt.Println("needs a password")
	}
	key, err := smx.ParsePrivateKeyPEM([]byte(keyPEM), []byte("correct-horse"))
	if err != nil {
		panic(err)
	}
	sm2Key := key.(*sm2.PrivateKey)
	fmt.Printf("SM2 key, public key %x...\n", sm2Key.PublicKey().Bytes()[:10])
	// Output:
	// 1 encrypted private key (PKCS #8, PBES2: PBKDF2-HMAC-SHA256, 2048 iterations, AES-256-CBC)
	// needs a password
	// SM2 key, public key 04717340ee6f12cdad5a...
}

// Writing an encrypted key that `openssl pkey -passin` reads: the default
// (nil options) is GmSSL's SM4-CBC with PBKDF2-HMAC-SM3, which OpenSSL 3.0
// cannot read.
func ExamplePBES2OptionsForOpenSSL() {
	key, _ := sm2.GenerateKey(rand.Reader)
	pemBytes, err := smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, key, []byte("password"), smx.PBES2OptionsForOpenSSL())
	if err != nil {
		panic(err)
	}
	fmt.Println(smx.DescribePEM(pemBytes))
	// Output: 1 encrypted private key (PKCS #8, PBES2: PBKDF2-HMAC-SHA256, 100000 iterations, AES-256-CBC)
}
