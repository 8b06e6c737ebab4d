package x509

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	stdx509 "crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func sm2Key(t testing.TB) *sm2.PrivateKey {
	k, err := sm2.GenerateKey(rand.Reader)
	must(t, err)
	return k
}

type equaler interface{ Equal(crypto.PublicKey) bool }

func TestPKIXRoundTrip(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 1024)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	sk := sm2Key(t)
	for name, pub := range map[string]any{"sm2": sk.Public(), "ecdsa": &ec.PublicKey, "rsa": &rk.PublicKey, "ed25519": ed.Public()} {
		t.Run(name, func(t *testing.T) {
			der, err := MarshalPKIXPublicKey(pub)
			must(t, err)
			got, err := ParsePKIXPublicKey(der)
			must(t, err)
			if !got.(equaler).Equal(pub) {
				t.Fatalf("got %T, want %T", got, pub)
			}
		})
	}
}

// TestSM2HeldAsECDSA: an SM2 key held as a crypto/ecdsa key, on sm2.P256() or
// on another package's SM2 curve (as gmsm's keys are), is refused with an
// error that names the conversion; converted, it encodes as the SM2 key.
func TestSM2HeldAsECDSA(t *testing.T) {
	sk := sm2Key(t)
	params := *sm2.P256().Params()
	foreign := sk.ECDSA()
	foreign.Curve = &params // *elliptic.CurveParams is an elliptic.Curve
	for name, key := range map[string]*ecdsa.PrivateKey{"sm2.P256()": sk.ECDSA(), "foreign curve": foreign} {
		t.Run(name, func(t *testing.T) {
			if _, err := MarshalPKIXPublicKey(&key.PublicKey); err == nil || !strings.Contains(err.Error(), "sm2.PublicKeyFromECDSA") {
				t.Errorf("MarshalPKIXPublicKey: %v", err)
			}
			if _, err := MarshalPublicKeyPEM(&key.PublicKey); err == nil || !strings.Contains(err.Error(), "sm2.PublicKeyFromECDSA") {
				t.Errorf("MarshalPublicKeyPEM: %v", err)
			}
			for fn, marshal := range map[string]func(any) ([]byte, error){
				"MarshalPKCS8PrivateKey": MarshalPKCS8PrivateKey,
				"MarshalECPrivateKey":    MarshalECPrivateKey,
				"MarshalPrivateKeyPEM":   MarshalPrivateKeyPEM,
			} {
				if _, err := marshal(key); err == nil || !strings.Contains(err.Error(), "sm2.PrivateKeyFromECDSA") {
					t.Errorf("%s: %v", fn, err)
				}
			}
			if _, err := MarshalPKCS8PrivateKeyWithPassword(rand.Reader, key, []byte("pw"), nil); err == nil || !strings.Contains(err.Error(), "sm2.PrivateKeyFromECDSA") {
				t.Errorf("MarshalPKCS8PrivateKeyWithPassword: %v", err)
			}

			pub, err := sm2.PublicKeyFromECDSA(&key.PublicKey)
			must(t, err)
			der, err := MarshalPKIXPublicKey(pub)
			must(t, err)
			want, err := MarshalPKIXPublicKey(sk.Public())
			must(t, err)
			if !bytes.Equal(der, want) {
				t.Error("the converted public key encodes differently")
			}
			priv, err := sm2.PrivateKeyFromECDSA(key)
			must(t, err)
			for fn, marshal := range map[string]func(any) ([]byte, error){
				"MarshalPKCS8PrivateKey": MarshalPKCS8PrivateKey,
				"MarshalECPrivateKey":    MarshalECPrivateKey,
			} {
				der, err := marshal(priv)
				must(t, err)
				want, err := marshal(sk)
				must(t, err)
				if !bytes.Equal(der, want) {
					t.Errorf("%s: the converted private key encodes differently", fn)
				}
			}
		})
	}
}

func TestSM2SPKIEncoding(t *testing.T) {
	k := sm2Key(t)
	der, err := MarshalPKIXPublicKey(k.Public())
	must(t, err)
	// SEQUENCE { SEQUENCE { id-ecPublicKey, sm2p256v1 }, BIT STRING }
	prefix := []byte{0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
		0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d, 0x03, 0x42, 0x00, 0x04}
	if !bytes.HasPrefix(der, prefix) || len(der) != 0x5b {
		t.Fatalf("unexpected SPKI %x", der)
	}
	// The legacy form with sm2p256v1 as the algorithm is also accepted.
	legacy := append([]byte{0x30, 0x52, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d, 0x05, 0x00, 0x03, 0x42, 0x00}, k.PublicKey().Bytes()...)
	got, err := ParsePKIXPublicKey(legacy)
	must(t, err)
	if !k.PublicKey().Equal(got) {
		t.Fatal("legacy SPKI parsed to a different key")
	}
	// An off-curve point is rejected.
	bad := append([]byte(nil), der...)
	bad[len(bad)-1] ^= 1
	if _, err := ParsePKIXPublicKey(bad); err == nil {
		t.Fatal("off-curve point accepted")
	}
	if _, err := ParsePKIXPublicKey(append(der, 0)); err == nil {
		t.Fatal("trailing data accepted")
	}
}

func TestPKCS8AndSEC1RoundTrip(t *testing.T) {
	sk := sm2Key(t)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 1024)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	for name, key := range map[string]any{"sm2": sk, "ecdsa": ec, "rsa": rk, "ed25519": ed} {
		t.Run(name, func(t *testing.T) {
			der, err := MarshalPKCS8PrivateKey(key)
			must(t, err)
			got, err := ParsePKCS8PrivateKey(der)
			must(t, err)
			want := key
			if !got.(interface{ Equal(crypto.PrivateKey) bool }).Equal(want) {
				t.Fatal("PKCS #8 round trip changed the key")
			}
			if name == "rsa" || name == "ed25519" {
				return
			}
			der, err = MarshalECPrivateKey(key)
			must(t, err)
			got, err = ParseECPrivateKey(der)
			must(t, err)
			if !got.(interface{ Equal(crypto.PrivateKey) bool }).Equal(want) {
				t.Fatal("SEC 1 round trip changed the key")
			}
		})
	}
	// crypto/x509 cannot read SM2 PKCS #8; ours reads its ECDSA output.
	der, _ := stdx509.MarshalPKCS8PrivateKey(ec)
	got, err := ParsePKCS8PrivateKey(der)
	must(t, err)
	if !ec.Equal(got) {
		t.Fatal("stdlib PKCS #8 ECDSA key not read back")
	}
}

func TestSEC1Leniency(t *testing.T) {
	sk := sm2Key(t)
	der, err := MarshalECPrivateKey(sk)
	must(t, err)
	// Mismatched embedded public key is refused.
	other := sm2Key(t)
	bad := bytes.Replace(der, sk.PublicKey().Bytes(), other.PublicKey().Bytes(), 1)
	if _, err := ParseECPrivateKey(bad); err == nil {
		t.Fatal("mismatched public key accepted")
	}
	// A scalar written without its leading zero bytes (some encoders do
	// this) still parses to the same key.
	short := sm2ECPrivateKeyWithScalar(t, sk, 31)
	if _, err := ParseECPrivateKey(short); err != nil && sk.Bytes()[0] == 0 {
		t.Fatal(err)
	}
}

// sm2ECPrivateKeyWithScalar re-encodes sk with its scalar cut to n bytes when
// the cut bytes are zero (else unchanged).
func sm2ECPrivateKeyWithScalar(t *testing.T, sk *sm2.PrivateKey, n int) []byte {
	d := sk.Bytes()
	for len(d) > n && d[0] == 0 {
		d = d[1:]
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(1)
		b.AddASN1OctetString(d)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDNamedCurveSM2)
		})
	})
	return b.BytesOrPanic()
}

func TestEncryptedPKCS8(t *testing.T) {
	sk := sm2Key(t)
	for _, opts := range []*PBES2Options{
		nil,
		{Cipher: SM4CBC, PRF: HMACWithSHA256, Iterations: 1000},
		{Cipher: AES128CBC, PRF: HMACWithSM3, Iterations: 1000},
		{Cipher: AES256CBC, PRF: HMACWithSHA512, Iterations: 1000, SaltSize: 8},
		{Cipher: AES192CBC, PRF: HMACWithSHA384, Iterations: 1000},
	} {
		der, err := MarshalPKCS8PrivateKeyWithPassword(rand.Reader, sk, []byte("secret"), opts)
		must(t, err)
		got, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("secret"))
		must(t, err)
		if !sk.Equal(got) {
			t.Fatalf("%+v: different key", opts)
		}
		if _, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("Secret")); err != ErrIncorrectPassword {
			t.Fatalf("%+v: wrong password gave %v", opts, err)
		}
	}
}

// TestEncryptedPKCS8OpenSSL: files written by `openssl pkcs8 -topk8` with
// SM4-CBC and AES-256-CBC (OpenSSL 3.0 has no HMAC-SM3 PRF) decrypt here, and
// ours decrypt there.
func TestEncryptedPKCS8OpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	dir := t.TempDir()
	sk := sm2Key(t)
	plain, err := MarshalPrivateKeyPEM(sk)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "k.pem"), plain, 0o600))
	for _, cipher := range []string{"sm4-cbc", "aes-256-cbc"} {
		out := filepath.Join(dir, cipher+".pem")
		cmd := exec.Command("openssl", "pkcs8", "-topk8", "-in", filepath.Join(dir, "k.pem"), "-v2", cipher, "-v2prf", "hmacWithSHA256", "-passout", "pass:pw", "-out", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl: %v\n%s", err, b)
		}
		data, err := os.ReadFile(out)
		must(t, err)
		got, err := ParsePrivateKeyPEM(data, []byte("pw"))
		must(t, err)
		if !sk.Equal(got) {
			t.Fatalf("%s: different key", cipher)
		}
	}
	for _, c := range []PBES2Cipher{SM4CBC, AES256CBC} {
		enc, err := MarshalPrivateKeyPEMWithPassword(rand.Reader, sk, []byte("pw"), &PBES2Options{Cipher: c, PRF: HMACWithSHA256, Iterations: 2048})
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, "ours.pem"), enc, 0o600))
		b, err := exec.Command("openssl", "pkcs8", "-in", filepath.Join(dir, "ours.pem"), "-passin", "pass:pw").CombinedOutput()
		if err != nil {
			t.Fatalf("openssl could not decrypt ours (%v): %s", err, b)
		}
		got, err := ParsePrivateKeyPEM(b, nil)
		must(t, err)
		if !sk.Equal(got) {
			t.Fatal("openssl decrypted a different key")
		}
	}
}

func TestParsePrivateKeyPEMForms(t *testing.T) {
	sk := sm2Key(t)
	sec1, _ := MarshalECPrivateKey(sk)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 1024)
	for name, data := range map[string][]byte{
		"sec1": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}),
		"cert-then-key": append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}),
			pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})...),
	} {
		got, err := ParsePrivateKeyPEM(data, nil)
		must(t, err)
		if !sk.Equal(got) {
			t.Fatalf("%s: different key", name)
		}
	}
	ecPEM, _ := MarshalPrivateKeyPEM(ec)
	if got, err := ParsePrivateKeyPEM(ecPEM, nil); err != nil || !ec.Equal(got) {
		t.Fatalf("ecdsa: %v", err)
	}
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: stdx509.MarshalPKCS1PrivateKey(rk)})
	if got, err := ParsePrivateKeyPEM(rsaPEM, nil); err != nil || !rk.Equal(got) {
		t.Fatalf("rsa: %v", err)
	}
	enc, _ := MarshalPrivateKeyPEMWithPassword(rand.Reader, sk, []byte("x"), &PBES2Options{Iterations: 1000})
	if _, err := ParsePrivateKeyPEM(enc, nil); err == nil {
		t.Fatal("encrypted key without password accepted")
	}
	if _, err := ParsePrivateKeyPEM([]byte("nothing"), nil); err == nil {
		t.Fatal("junk accepted")
	}
	pubPEM, err := MarshalPublicKeyPEM(sk.Public())
	must(t, err)
	pub, err := ParsePublicKeyPEM(pubPEM)
	must(t, err)
	if !sk.PublicKey().Equal(pub) {
		t.Fatal("public key PEM round trip")
	}
}

func TestUnpad(t *testing.T) {
	block := make([]byte, 16)
	for pad := 1; pad <= 16; pad++ {
		for i := range block {
			block[i] = 0xAA
		}
		for i := 16 - pad; i < 16; i++ {
			block[i] = byte(pad)
		}
		if n, ok := unpad(block, 16); !ok || n != 16-pad {
			t.Fatalf("pad %d: n=%d ok=%v", pad, n, ok)
		}
		if pad > 1 {
			block[16-pad] ^= 1
			if _, ok := unpad(block, 16); ok {
				t.Fatalf("pad %d: corrupt padding accepted", pad)
			}
		}
	}
	block[15] = 0
	if _, ok := unpad(block, 16); ok {
		t.Fatal("zero padding accepted")
	}
	block[15] = 17
	if _, ok := unpad(block, 16); ok {
		t.Fatal("oversized padding accepted")
	}
}

// TestEncryptedPKCS8GmSSLLayout pins the HMAC-SM3 profile to the layout GmSSL
// writes and reads: PBKDF2 params {salt, iterations, keyLength 16,
// {hmac-sm3}} (no NULL), cipher {sm4-cbc, iv}.
func TestEncryptedPKCS8GmSSLLayout(t *testing.T) {
	sk := sm2Key(t)
	der, err := MarshalPKCS8PrivateKeyWithPassword(rand.Reader, sk, []byte("pw"), &PBES2Options{Iterations: 1000})
	must(t, err)
	prf := []byte{0x02, 0x01, 0x10, 0x30, 0x0b, 0x06, 0x09, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x02}
	if !bytes.Contains(der, prf) {
		t.Fatalf("PBKDF2 parameters not in GmSSL layout: %x", der)
	}
	sm4 := []byte{0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x68, 0x02, 0x04, 0x10}
	if !bytes.Contains(der, sm4) {
		t.Fatalf("cipher not sm4-cbc with 16-byte IV: %x", der)
	}
}
