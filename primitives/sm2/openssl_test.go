package sm2

import (
	"bytes"
	"crypto/rand"
	"encoding/asn1"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Minimal SPKI and PKCS#8 marshalling for the OpenSSL interoperability
// tests (the x509 package is separate and not imported here).

var (
	oidECPublicKey = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidSM2Curve    = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 301}
)

type testAlgorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.ObjectIdentifier
}

func marshalTestSPKI(pub *PublicKey) []byte {
	b, err := asn1.Marshal(struct {
		Algorithm testAlgorithmIdentifier
		PublicKey asn1.BitString
	}{
		testAlgorithmIdentifier{oidECPublicKey, oidSM2Curve},
		asn1.BitString{Bytes: pub.Bytes(), BitLength: 65 * 8},
	})
	if err != nil {
		panic(err)
	}
	return b
}

func marshalTestPKCS8(priv *PrivateKey) []byte {
	ecKey, err := asn1.Marshal(struct {
		Version    int
		PrivateKey []byte
		PublicKey  asn1.BitString `asn1:"optional,explicit,tag:1"`
	}{1, priv.Bytes(), asn1.BitString{Bytes: priv.PublicKey().Bytes(), BitLength: 65 * 8}})
	if err != nil {
		panic(err)
	}
	b, err := asn1.Marshal(struct {
		Version    int
		Algorithm  testAlgorithmIdentifier
		PrivateKey []byte
	}{0, testAlgorithmIdentifier{oidECPublicKey, oidSM2Curve}, ecKey})
	if err != nil {
		panic(err)
	}
	return b
}

type opensslEnv struct {
	t   *testing.T
	bin string
	dir string
}

func newOpenSSL(t *testing.T) *opensslEnv {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not found")
	}
	return &opensslEnv{t, bin, t.TempDir()}
}

func (o *opensslEnv) write(name string, data []byte) string {
	p := filepath.Join(o.dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		o.t.Fatal(err)
	}
	return p
}

func (o *opensslEnv) run(args ...string) []byte {
	o.t.Helper()
	cmd := exec.Command(o.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		o.t.Fatalf("openssl %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

func (o *opensslEnv) keyFiles(priv *PrivateKey) (privPEM, pubPEM string) {
	privPEM = o.write("priv.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: marshalTestPKCS8(priv)}))
	pubPEM = o.write("pub.pem", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: marshalTestSPKI(priv.PublicKey())}))
	return
}

func TestOpenSSLSignatures(t *testing.T) { eachImpl(t, testOpenSSLSignatures) }

func testOpenSSLSignatures(t *testing.T) {
	o := newOpenSSL(t)
	priv, err := GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	privPEM, pubPEM := o.keyFiles(priv)
	// OpenSSL must read our key as the same key.
	if out := o.run("pkey", "-in", privPEM, "-pubout", "-outform", "DER"); !bytes.Equal(out, marshalTestSPKI(priv.PublicKey())) {
		t.Fatal("openssl derived a different public key from our PKCS#8")
	}
	for i, msg := range [][]byte{[]byte("hello, SM2"), {}, bytes.Repeat([]byte{0xa5}, 1000)} {
		msgFile := o.write("msg", msg)
		// Ours → OpenSSL.
		sig, err := SignASN1(rand.Reader, priv, msg, nil)
		if err != nil {
			t.Fatal(err)
		}
		sigFile := o.write("sig", sig)
		o.run("pkeyutl", "-verify", "-pubin", "-inkey", pubPEM, "-rawin", "-in", msgFile,
			"-sigfile", sigFile, "-digest", "sm3", "-pkeyopt", "distid:"+DefaultUID)
		// OpenSSL → ours.
		osig := o.run("pkeyutl", "-sign", "-inkey", privPEM, "-rawin", "-in", msgFile,
			"-digest", "sm3", "-pkeyopt", "distid:"+DefaultUID)
		if !VerifyASN1(priv.PublicKey(), msg, nil, osig) {
			t.Fatalf("message %d: OpenSSL's signature does not verify", i)
		}
		if VerifyASN1(priv.PublicKey(), msg, []byte("another id"), osig) {
			t.Fatalf("message %d: OpenSSL's signature verified with the wrong ID", i)
		}
		// A non-default ID, both ways.
		uid := []byte("alice@example.com")
		sig, _ = SignASN1(rand.Reader, priv, msg, uid)
		o.write("sig", sig)
		o.run("pkeyutl", "-verify", "-pubin", "-inkey", pubPEM, "-rawin", "-in", msgFile,
			"-sigfile", sigFile, "-digest", "sm3", "-pkeyopt", "distid:"+string(uid))
		osig = o.run("pkeyutl", "-sign", "-inkey", privPEM, "-rawin", "-in", msgFile,
			"-digest", "sm3", "-pkeyopt", "distid:"+string(uid))
		if !VerifyASN1(priv.PublicKey(), msg, uid, osig) {
			t.Fatalf("message %d: OpenSSL's signature with a custom ID does not verify", i)
		}
	}
}

func TestOpenSSLEncryption(t *testing.T) { eachImpl(t, testOpenSSLEncryption) }

func testOpenSSLEncryption(t *testing.T) {
	o := newOpenSSL(t)
	priv, err := GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	privPEM, pubPEM := o.keyFiles(priv)
	for _, n := range []int{1, 32, 48, 100} {
		msg := make([]byte, n)
		rand.Read(msg)
		msgFile := o.write("msg", msg)
		// OpenSSL → ours (GM/T 0009 ASN.1, C1C3C2).
		ct := o.run("pkeyutl", "-encrypt", "-pubin", "-inkey", pubPEM, "-in", msgFile)
		got, err := DecryptASN1(priv, ct)
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("decrypting OpenSSL's %d-byte ciphertext: %x, %v", n, got, err)
		}
		if got, err := priv.Decrypt(nil, ct, nil); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("crypto.Decrypter on OpenSSL's ciphertext: %v", err)
		}
		// Ours → OpenSSL.
		ours, err := EncryptASN1(rand.Reader, priv.PublicKey(), msg)
		if err != nil {
			t.Fatal(err)
		}
		ctFile := o.write("ct", ours)
		if out := o.run("pkeyutl", "-decrypt", "-inkey", privPEM, "-in", ctFile); !bytes.Equal(out, msg) {
			t.Fatalf("OpenSSL decrypted our %d-byte ciphertext to %x", n, out)
		}
	}
}
