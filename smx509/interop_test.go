package smx509

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	smx "github.com/shangmi-go/shangmi/x509"
)

func loadCert(t testing.TB, path string) *Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	c, err := ParseCertificatePEM(data)
	must(t, err)
	return c
}

func loadPEMBlock(t testing.TB, path, typ string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	for rest := data; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			t.Fatalf("%s: no %s block", path, typ)
		}
		if b.Type == typ {
			return b.Bytes
		}
	}
}

// signedWithDefaultID reports whether cert's signature verifies under the
// default SM2 ID specifically (not the empty-ID fallback).
func signedWithDefaultID(c *Certificate, issuer *Certificate) bool {
	return sm2.VerifyASN1(issuer.PublicKey.(*sm2.PublicKey), c.RawTBSCertificate, nil, c.Signature)
}

// TestTestdataTLCPChains verifies the double-certificate sets in testdata:
// the ones our tool made and the ones the openssl CLI made.
func TestTestdataTLCPChains(t *testing.T) {
	for _, dir := range []string{"tlcp", "openssl"} {
		t.Run(dir, func(t *testing.T) {
			ca := loadCert(t, repoTestdata(t, dir, "ca.pem"))
			roots := NewCertPool()
			roots.AddCert(ca)
			for _, name := range []string{"server_sign", "server_enc", "client_sign", "client_enc"} {
				c := loadCert(t, repoTestdata(t, dir, name+".pem"))
				if !signedWithDefaultID(c, ca) {
					t.Errorf("%s: not signed with the default SM2 ID", name)
				}
				usage := ExtKeyUsageServerAuth
				if strings.HasPrefix(name, "client") {
					usage = ExtKeyUsageClientAuth
				}
				if _, err := c.Verify(VerifyOptions{Roots: roots, DNSName: "localhost", KeyUsages: []ExtKeyUsage{usage}}); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				must(t, c.VerifyHostname("127.0.0.1"))
				isSign := strings.HasSuffix(name, "_sign")
				if c.IsTLCPSignCert() != isSign || c.IsTLCPEncCert() == isSign {
					t.Errorf("%s: IsTLCPSignCert=%v IsTLCPEncCert=%v", name, c.IsTLCPSignCert(), c.IsTLCPEncCert())
				}
				keyPEM, err := os.ReadFile(repoTestdata(t, dir, name+".key"))
				must(t, err)
				key, err := smx.ParsePrivateKeyPEM(keyPEM, nil)
				must(t, err)
				if !key.(*sm2.PrivateKey).PublicKey().Equal(c.PublicKey) {
					t.Errorf("%s: key does not match certificate", name)
				}
			}
			if ca.IsTLCPSignCert() || ca.IsTLCPEncCert() {
				t.Error("CA recognised as a TLCP leaf")
			}
		})
	}
}

func TestTestdataEncryptedKey(t *testing.T) {
	plain, err := os.ReadFile(repoTestdata(t, "tlcp", "server_sign.key"))
	must(t, err)
	enc, err := os.ReadFile(repoTestdata(t, "tlcp", "server_sign_encrypted.key"))
	must(t, err)
	k1, err := smx.ParsePrivateKeyPEM(plain, nil)
	must(t, err)
	k2, err := smx.ParsePrivateKeyPEM(enc, []byte("shangmi-test"))
	must(t, err)
	if !k1.(*sm2.PrivateKey).Equal(k2) {
		t.Fatal("encrypted key differs from the plain one")
	}
	if _, err := smx.ParsePrivateKeyPEM(enc, []byte("wrong")); err == nil {
		t.Fatal("wrong password accepted")
	}
}

// TestOpenSSLEmptyIDCertificates: OpenSSL 3.0 without -sigopt distid signs
// with an empty SM2 ID; such certificates must verify (see package doc).
func TestOpenSSLEmptyIDCertificates(t *testing.T) {
	ca := loadCert(t, repoTestdata(t, "openssl", "noid_ca.pem"))
	leaf := loadCert(t, repoTestdata(t, "openssl", "noid_leaf.pem"))
	if signedWithDefaultID(leaf, ca) || signedWithDefaultID(ca, ca) {
		t.Fatal("testdata noid_* is signed with the default ID; regenerate it without distid")
	}
	must(t, ca.CheckSignatureFrom(ca))
	must(t, leaf.CheckSignatureFrom(ca))
	roots := NewCertPool()
	roots.AddCert(ca)
	if _, err := leaf.Verify(VerifyOptions{Roots: roots, DNSName: "localhost"}); err != nil {
		t.Fatal(err)
	}
}

// emptyIDSigner signs like OpenSSL 3.0 without distid.
type emptyIDSigner struct{ *sm2.PrivateKey }

func (s emptyIDSigner) Sign(r io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	return sm2.SignASN1(r, s.PrivateKey, msg, []byte{})
}

// TestEmptyIDCertificateMadeInGo covers both ID forms without depending on
// the openssl CLI or the testdata files.
func TestEmptyIDCertificateMadeInGo(t *testing.T) {
	key := testKey(t, kindSM2, "root").(*sm2.PrivateKey)
	rt := caTemplate("empty ID root")
	root := issue(t, rt, rt, key.Public(), emptyIDSigner{key})
	if signedWithDefaultID(root, root) {
		t.Fatal("emptyIDSigner used the default ID")
	}
	must(t, root.CheckSignatureFrom(root))
	std := issue(t, rt, rt, key.Public(), key)
	if !signedWithDefaultID(std, std) {
		t.Fatal("CreateCertificate did not use the default ID")
	}
	// A signature under some other ID is not accepted (CreateCertificate
	// checks its own output with the same verifier).
	_, err := CreateCertificate(rand.Reader, rt, rt, key.Public(), otherIDSigner{key})
	mustFail(t, err, "signature under a non-standard ID")
}

type otherIDSigner struct{ *sm2.PrivateKey }

func (s otherIDSigner) Sign(r io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	return sm2.SignASN1(r, s.PrivateKey, msg, []byte("alice@example.com"))
}

func TestOpenSSLRequestAndCRL(t *testing.T) {
	csr, err := ParseCertificateRequest(loadPEMBlock(t, repoTestdata(t, "openssl", "server_sign.csr"), "CERTIFICATE REQUEST"))
	must(t, err)
	must(t, csr.CheckSignature())
	if csr.PublicKeyAlgorithm != SM2 || csr.SignatureAlgorithm != SM2WithSM3 || csr.Subject.CommonName != "shangmi openssl server" {
		t.Errorf("unexpected CSR %+v", csr)
	}

	ca := loadCert(t, repoTestdata(t, "openssl", "ca.pem"))
	revoked := loadCert(t, repoTestdata(t, "openssl", "client_enc.pem"))
	crl, err := ParseRevocationList(loadPEMBlock(t, repoTestdata(t, "openssl", "ca.crl"), "X509 CRL"))
	must(t, err)
	must(t, crl.CheckSignatureFrom(ca))
	if len(crl.RevokedCertificateEntries) != 1 ||
		crl.RevokedCertificateEntries[0].SerialNumber.Cmp(revoked.SerialNumber) != 0 ||
		crl.RevokedCertificateEntries[0].ReasonCode != 1 || crl.Number == nil {
		t.Errorf("unexpected CRL %+v", crl)
	}
	other := loadCert(t, repoTestdata(t, "openssl", "noid_ca.pem"))
	mustFail(t, crl.CheckSignatureFrom(other), "CRL checked against the wrong CA")
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	must(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
}

func runOpenSSL(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("openssl", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestOpenSSLReadsOurs: the openssl CLI parses and verifies what we create.
func TestOpenSSLReadsOurs(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	dir := t.TempDir()
	key := testKey(t, kindSM2, "root").(*sm2.PrivateKey)
	leafKey := testKey(t, kindSM2, "leaf").(*sm2.PrivateKey)
	rt := caTemplate("Go Root")
	root := issue(t, rt, rt, key.Public(), key)
	leaf := issue(t, leafTemplate("go leaf", KeyUsageDigitalSignature), root, leafKey.Public(), key)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", root.Raw)
	writePEM(t, filepath.Join(dir, "leaf.pem"), "CERTIFICATE", leaf.Raw)

	text := runOpenSSL(t, "x509", "-in", filepath.Join(dir, "leaf.pem"), "-noout", "-text")
	for _, want := range []string{"SM2-with-SM3", "CN = go leaf", "DNS:localhost", "IP Address:127.0.0.1", "Digital Signature"} {
		if !strings.Contains(text, want) {
			t.Errorf("openssl x509 -text lacks %q:\n%s", want, text)
		}
	}
	out := runOpenSSL(t, "verify", "-vfyopt", "distid:1234567812345678", "-CAfile", filepath.Join(dir, "ca.pem"), filepath.Join(dir, "leaf.pem"))
	if !strings.Contains(out, "OK") {
		t.Errorf("openssl verify: %s", out)
	}

	csrDER, err := CreateCertificateRequest(rand.Reader, &CertificateRequest{Subject: pkix.Name{CommonName: "go csr"}, DNSNames: []string{"localhost"}}, leafKey)
	must(t, err)
	writePEM(t, filepath.Join(dir, "req.pem"), "CERTIFICATE REQUEST", csrDER)
	out = runOpenSSL(t, "req", "-in", filepath.Join(dir, "req.pem"), "-noout", "-verify", "-vfyopt", "distid:1234567812345678", "-text")
	if !strings.Contains(out, "CN = go csr") {
		t.Errorf("openssl req: %s", out)
	}

	crlDER, err := CreateRevocationList(rand.Reader, &RevocationList{
		Number: big.NewInt(1), ThisUpdate: time.Now(), NextUpdate: time.Now().Add(time.Hour),
		RevokedCertificateEntries: []RevocationListEntry{{SerialNumber: leaf.SerialNumber, RevocationTime: time.Now(), ReasonCode: 1}},
	}, root, key)
	must(t, err)
	writePEM(t, filepath.Join(dir, "crl.pem"), "X509 CRL", crlDER)
	out = runOpenSSL(t, "crl", "-in", filepath.Join(dir, "crl.pem"), "-noout", "-text")
	if !strings.Contains(out, "Key Compromise") || !bytes.Contains([]byte(out), []byte("SM2-with-SM3")) {
		t.Errorf("openssl crl: %s", out)
	}

	// And our private keys, plain and encrypted with a PRF OpenSSL 3.0 knows.
	keyPEM, err := smx.MarshalPrivateKeyPEM(leafKey)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "leaf.key"), keyPEM, 0o600))
	runOpenSSL(t, "pkey", "-in", filepath.Join(dir, "leaf.key"), "-noout")
	encPEM, err := smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, leafKey, []byte("pw"), &smx.PBES2Options{Cipher: smx.SM4CBC, PRF: smx.HMACWithSHA256, Iterations: 2048})
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "leaf.enc.key"), encPEM, 0o600))
	out = runOpenSSL(t, "pkey", "-in", filepath.Join(dir, "leaf.enc.key"), "-passin", "pass:pw", "-pubout")
	pub, err := smx.ParsePublicKeyPEM([]byte(out))
	must(t, err)
	if !leafKey.PublicKey().Equal(pub) {
		t.Error("openssl decrypted a different key")
	}
}

// TestOpenSSLLiveEmptyIDRequest: a request signed by the openssl CLI without
// distid (empty ID) is accepted, as certificates are.
func TestOpenSSLLiveEmptyIDRequest(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "k.pem")
	req := filepath.Join(dir, "req.pem")
	runOpenSSL(t, "genpkey", "-algorithm", "SM2", "-out", key)
	runOpenSSL(t, "req", "-new", "-key", key, "-sm3", "-subj", "/CN=empty id request", "-out", req)
	csr, err := ParseCertificateRequest(loadPEMBlock(t, req, "CERTIFICATE REQUEST"))
	must(t, err)
	must(t, csr.CheckSignature())
	if sm2.VerifyASN1(csr.PublicKey.(*sm2.PublicKey), csr.RawTBSCertificateRequest, nil, csr.Signature) {
		t.Fatal("openssl used the default ID without distid; the empty-ID path was not exercised")
	}
}
