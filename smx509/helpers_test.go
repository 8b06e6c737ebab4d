package smx509

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// testTime is inside every generated certificate's validity.
var testTime = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

type keyKind string

const (
	kindSM2     keyKind = "SM2"
	kindECDSA   keyKind = "ECDSA-P256"
	kindRSA     keyKind = "RSA-2048"
	kindEd25519 keyKind = "Ed25519"
)

var allKinds = []keyKind{kindSM2, kindECDSA, kindRSA, kindEd25519}

var keyCache = map[string]crypto.Signer{}

// testKey returns a key of the given kind; the same name gives the same key
// within one test binary, which keeps RSA generation cheap.
func testKey(t testing.TB, kind keyKind, name string) crypto.Signer {
	t.Helper()
	id := string(kind) + "/" + name
	if k, ok := keyCache[id]; ok {
		return k
	}
	var k crypto.Signer
	var err error
	switch kind {
	case kindSM2:
		k, err = sm2.GenerateKey(rand.Reader)
	case kindECDSA:
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case kindRSA:
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	case kindEd25519:
		_, k, err = ed25519.GenerateKey(rand.Reader)
	}
	must(t, err)
	keyCache[id] = k
	return k
}

var serial int64

func nextSerial() *big.Int {
	serial++
	return big.NewInt(serial)
}

func caTemplate(cn string) *Certificate {
	return &Certificate{
		SerialNumber:          nextSerial(),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"shangmi test"}},
		NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              KeyUsageCertSign | KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            -1,
	}
}

func leafTemplate(cn string, ku KeyUsage) *Certificate {
	return &Certificate{
		SerialNumber:          nextSerial(),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              ku,
		ExtKeyUsage:           []ExtKeyUsage{ExtKeyUsageServerAuth, ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost", "server.example.com"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
}

// issue creates and parses a certificate.
func issue(t testing.TB, template, parent *Certificate, pub crypto.PublicKey, parentKey crypto.Signer) *Certificate {
	t.Helper()
	der, err := CreateCertificate(rand.Reader, template, parent, pub, parentKey)
	must(t, err)
	cert, err := ParseCertificate(der)
	must(t, err)
	return cert
}

// repoTestdata returns the path of the repository's testdata directory.
func repoTestdata(t testing.TB, elem ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	must(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir, "testdata"}, elem...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustFail(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: expected an error, got none", what)
	}
}

func pemCert(c *Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func pemDecode(data []byte) (*pem.Block, []byte) { return pem.Decode(data) }
