package x509_test

import (
	"crypto/rand"
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
