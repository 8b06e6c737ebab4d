package x509

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"golang.org/x/crypto/cryptobyte"
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
		if pub, err := ParsePKIXPublicKey(der); err == nil {
			checkPublicKeyRoundTrip(t, pub)
		}
	})
}

func FuzzParsePKCS8PrivateKey(f *testing.F) {
	k := seedKeys(f)
	der, _ := MarshalPKCS8PrivateKey(k)
	f.Add(der)
	f.Fuzz(func(t *testing.T, der []byte) {
		if key, err := ParsePKCS8PrivateKey(der); err == nil {
			checkPrivateKeyRoundTrip(t, key)
		}
	})
}

func FuzzParseECPrivateKey(f *testing.F) {
	k := seedKeys(f)
	der, _ := MarshalECPrivateKey(k)
	f.Add(der)
	f.Fuzz(func(t *testing.T, der []byte) {
		if key, err := ParseECPrivateKey(der); err == nil {
			checkPrivateKeyRoundTrip(t, key)
		}
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
	der, _ := MarshalPKCS8PrivateKeyWithPassword(rand.Reader, k, []byte("pw"), &PBES2Options{PRF: HMACWithSM3Tongsuo, Iterations: 1})
	f.Add(der)
	// openssl-written files: scrypt and DES-EDE3 (their costs make the
	// fuzz body skip decryption, but the parameter parser runs).
	for _, name := range []string{"pbes2_scrypt_sm4-cbc.pem", "pbes2_hmacWithSHA1_des-ede3-cbc.pem", "pbes1_sha1_3des.pem"} {
		if data, err := os.ReadFile("../testdata/keys/" + name); err == nil {
			if b, _ := pem.Decode(data); b != nil {
				f.Add(b.Bytes)
			}
		}
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		if _, _, err := parseEncryptedPrivateKeyInfo(der); err != nil || !cheapKDF(der) {
			return
		}
		if key, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("pw")); err == nil {
			checkPrivateKeyRoundTrip(t, key)
		}
	})
}

// cheapKDF reports whether the PBES2 parameters of der, if any, are cheap
// enough to run inside a fuzz iteration.
func cheapKDF(der []byte) bool {
	p, _, err := parseEncryptedPrivateKeyInfo(der)
	if err != nil {
		return true // fails before any key derivation
	}
	if p.scrypt {
		return p.n*p.r*p.pPar <= 1024
	}
	return p.iterations <= 64
}

// FuzzParsePrivateKeysPEM runs the PEM layer (labels, parameters blocks,
// legacy headers, several keys) with a password; legacy decryption is
// cheap (one MD5 pass), and PBES2 blocks run only with small parameters.
func FuzzParsePrivateKeysPEM(f *testing.F) {
	k := seedKeys(f)
	files, _ := filepath.Glob("../testdata/keys/*.pem")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && !strings.Contains(name, "pbes2_") {
			f.Add(data)
		}
	}
	enc, _ := MarshalPrivateKeyPEMWithPassword(rand.Reader, k, []byte("shangmi-test"), &PBES2Options{Iterations: 2})
	f.Add(append(enc, enc...))
	f.Fuzz(func(t *testing.T, data []byte) {
		for rest := data; ; {
			var b *pem.Block
			b, rest = pem.Decode(rest)
			if b == nil {
				break
			}
			if b.Type == PEMTypeEncryptedPrivateKey && !cheapKDF(b.Bytes) {
				return
			}
		}
		keys, err := ParsePrivateKeysPEM(data, []byte("shangmi-test"))
		if err == nil && len(keys) == 0 {
			t.Fatal("no keys and no error")
		}
		for _, k := range keys {
			checkPrivateKeyRoundTrip(t, k)
		}
		_, _ = ParsePrivateKeysPEM(data, nil)
	})
}

// FuzzLegacyPEM drives legacy PEM decryption with arbitrary DEK-Info
// headers and bodies, with the password that decrypts the seed.
func FuzzLegacyPEM(f *testing.F) {
	data, err := os.ReadFile("../testdata/keys/legacy_aes256.pem")
	if err != nil {
		f.Fatal(err)
	}
	block, _ := pem.Decode(data)
	f.Add(block.Type, block.Headers["DEK-Info"], block.Bytes)
	for _, c := range []string{"sm4", "des3"} {
		data, _ := os.ReadFile("../testdata/keys/legacy_" + c + ".pem")
		if b, _ := pem.Decode(data); b != nil {
			f.Add(b.Type, b.Headers["DEK-Info"], b.Bytes)
		}
	}
	f.Fuzz(func(t *testing.T, typ, dekInfo string, body []byte) {
		b := &pem.Block{Type: typ, Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": dekInfo}, Bytes: body}
		if !isPrivateKeyType(typ) || typ == PEMTypeEncryptedPrivateKey {
			return
		}
		if key, err := parsePrivateKeyBlock(b, []byte("shangmi-test"), nil); err == nil {
			checkPrivateKeyRoundTrip(t, key)
		}
	})
}

// FuzzDescribePEM: describing any input never panics and never says
// nothing.
func FuzzDescribePEM(f *testing.F) {
	files, _ := filepath.Glob("../testdata/keys/*.pem")
	for _, name := range files[:min(len(files), 12)] {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte{0x30, 0x03, 0x30, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		if DescribePEM(data) == "" {
			t.Fatal("empty description")
		}
	})
}

// FuzzParseECParameters covers the named and explicit curve parser.
func FuzzParseECParameters(f *testing.F) {
	data, err := os.ReadFile("../testdata/keys/sec1_sm2_explicit.pem")
	if err != nil {
		f.Fatal(err)
	}
	block, _ := pem.Decode(data)
	f.Add(block.Bytes)
	f.Add(sm2CurveElement)
	f.Fuzz(func(t *testing.T, der []byte) {
		// Whatever the parameters parse to, the named form of it parses
		// back to the same curve (the explicit form is only ever SM2).
		if oid, err := parseECParameters(cryptobyte.String(der)); err == nil {
			var b cryptobyte.Builder
			b.AddASN1ObjectIdentifier(oid)
			named, err := b.Bytes()
			if err != nil {
				t.Fatalf("parsed curve %v does not re-encode: %v", oid, err)
			}
			if again, err := parseECParameters(cryptobyte.String(named)); err != nil || !again.Equal(oid) {
				t.Fatalf("curve %v re-parses to %v, %v", oid, again, err)
			}
			if !bytes.Equal(named, der) && !oid.Equal(OIDNamedCurveSM2) {
				t.Fatalf("explicit parameters parsed to %v, not SM2", oid)
			}
		}
		if key, err := ParseECPrivateKey(der); err == nil {
			checkPrivateKeyRoundTrip(t, key)
		}
	})
}

// checkPrivateKeyRoundTrip: a key that parsed is written by both
// marshallers and read back as the same key, and its public half as the
// same public key. This is what makes a parser's leniency safe: whatever
// form was accepted, the key it became is one the package can write
// canonically and read again.
func checkPrivateKeyRoundTrip(t *testing.T, key any) {
	t.Helper()
	type equaler interface{ Equal(crypto.PrivateKey) bool }
	k, ok := key.(equaler)
	if !ok {
		t.Fatalf("parsed key %T has no Equal method", key)
	}
	der, err := MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("parsed %T does not marshal to PKCS #8: %v", key, err)
	}
	again, err := ParsePKCS8PrivateKey(der)
	if err != nil || !k.Equal(again) {
		t.Fatalf("%T: PKCS #8 round trip gives %T, %v", key, again, err)
	}
	if again, err := MarshalPKCS8PrivateKey(again); err != nil || !bytes.Equal(again, der) {
		t.Fatalf("%T: PKCS #8 encoding is not stable: %v", key, err)
	}
	if sm2Key, ok := key.(*sm2.PrivateKey); ok {
		sec1, err := MarshalECPrivateKey(sm2Key)
		if err != nil {
			t.Fatalf("SM2 key does not marshal to SEC 1: %v", err)
		}
		if again, err := ParseECPrivateKey(sec1); err != nil || !sm2Key.Equal(again) {
			t.Fatalf("SEC 1 round trip gives %T, %v", again, err)
		}
	}
	if s, ok := key.(crypto.Signer); ok {
		checkPublicKeyRoundTrip(t, s.Public())
	}
}

// checkPublicKeyRoundTrip: a public key that parsed marshals to a
// SubjectPublicKeyInfo that parses to the same key, and that encoding is
// stable.
func checkPublicKeyRoundTrip(t *testing.T, pub any) {
	t.Helper()
	type equaler interface{ Equal(crypto.PublicKey) bool }
	p, ok := pub.(equaler)
	if !ok {
		t.Fatalf("parsed public key %T has no Equal method", pub)
	}
	der, err := MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatalf("parsed %T does not marshal: %v", pub, err)
	}
	again, err := ParsePKIXPublicKey(der)
	if err != nil || !p.Equal(again) {
		t.Fatalf("%T: SubjectPublicKeyInfo round trip gives %T, %v", pub, again, err)
	}
	if again, err := MarshalPKIXPublicKey(again); err != nil || !bytes.Equal(again, der) {
		t.Fatalf("%T: SubjectPublicKeyInfo encoding is not stable: %v", pub, err)
	}
}
