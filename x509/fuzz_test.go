package x509

import (
	"crypto/rand"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

func seedKeys(f *testing.F) *sm2.PrivateKey {
	k, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	return k
}

func FuzzParsePKIXPublicKey(f *testing.F) {
	k := seedKeys(f)
	der, _ := MarshalPKIXPublicKey(k.Public())
	f.Add(der)
	f.Fuzz(func(t *testing.T, der []byte) {
		_, _ = ParsePKIXPublicKey(der)
	})
}

func FuzzParsePKCS8PrivateKey(f *testing.F) {
	k := seedKeys(f)
	der, _ := MarshalPKCS8PrivateKey(k)
	f.Add(der)
	f.Fuzz(func(t *testing.T, der []byte) {
		_, _ = ParsePKCS8PrivateKey(der)
	})
}

func FuzzParseECPrivateKey(f *testing.F) {
	k := seedKeys(f)
	der, _ := MarshalECPrivateKey(k)
	f.Add(der)
	f.Fuzz(func(t *testing.T, der []byte) {
		_, _ = ParseECPrivateKey(der)
	})
}

// FuzzParsePKCS8PrivateKeyWithPassword exercises the PBES2 parameter parser
// and, when the iteration count is small, the decryption path.
func FuzzParsePKCS8PrivateKeyWithPassword(f *testing.F) {
	k := seedKeys(f)
	for _, c := range []PBES2Cipher{SM4CBC, AES128CBC} {
		der, _ := MarshalPKCS8PrivateKeyWithPassword(rand.Reader, k, []byte("pw"), &PBES2Options{Cipher: c, Iterations: 1})
		f.Add(der)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		p, _, err := parseEncryptedPrivateKeyInfo(der)
		if err != nil || p.iterations > 64 {
			return
		}
		_, _ = ParsePKCS8PrivateKeyWithPassword(der, []byte("pw"))
	})
}
