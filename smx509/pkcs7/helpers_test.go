package pkcs7

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
)

// testTime is inside the validity of every certificate used here.
var testTime = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// party is a certificate and its key.
type party struct {
	cert *smx509.Certificate
	key  *sm2.PrivateKey
}

func (p party) signer() Signer { return Signer{Certificate: p.cert, Key: p.key} }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return b
}

// tlcpParty loads one of the repository's testdata/tlcp certificates and
// keys (issued by ca.pem), which the recorded messages were made with.
func tlcpParty(t testing.TB, name string) party {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "tlcp")
	cert, err := smx509.ParseCertificatePEM(read(t, filepath.Join(dir, name+".pem")))
	must(t, err)
	var p party
	p.cert = cert
	if name == "ca" {
		return p
	}
	key, err := x509.ParsePrivateKeyPEM(read(t, filepath.Join(dir, name+".key")), nil)
	must(t, err)
	p.key = key.(*sm2.PrivateKey)
	return p
}

func tlcpRoots(t testing.TB) *smx509.CertPool {
	pool := smx509.NewCertPool()
	pool.AddCert(tlcpParty(t, "ca").cert)
	return pool
}

// testPKI is a root, an intermediate and leaves made in memory, for the
// cases the recorded PKI does not cover.
type testPKI struct {
	root, inter        party
	signer, signer2    party
	encLeaf, encLeaf2  party
	noDigitalSignature party
	expired            party
	otherRoot          party
}

var pkiCache *testPKI

func newTestPKI(t testing.TB) *testPKI {
	if pkiCache != nil {
		return pkiCache
	}
	p := &testPKI{}
	serial := int64(100)
	issue := func(cn string, parent *party, ca bool, ku smx509.KeyUsage, notAfter time.Time) party {
		key, err := sm2.GenerateKey(rand.Reader)
		must(t, err)
		serial++
		tmpl := &smx509.Certificate{
			SerialNumber:          big.NewInt(serial),
			Subject:               pkix.Name{CommonName: cn, Organization: []string{"shangmi pkcs7 test"}},
			NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			NotAfter:              notAfter,
			KeyUsage:              ku,
			BasicConstraintsValid: true,
			IsCA:                  ca,
			SubjectKeyId:          []byte(cn),
		}
		if !ca {
			tmpl.ExtKeyUsage = []smx509.ExtKeyUsage{smx509.ExtKeyUsageEmailProtection}
		}
		parentCert, parentKey := tmpl, key
		if parent != nil {
			parentCert, parentKey = parent.cert, parent.key
		}
		der, err := smx509.CreateCertificate(rand.Reader, tmpl, parentCert, key.Public(), parentKey)
		must(t, err)
		cert, err := smx509.ParseCertificate(der)
		must(t, err)
		return party{cert, key}
	}
	far := time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC)
	p.root = issue("pkcs7 root", nil, true, smx509.KeyUsageCertSign|smx509.KeyUsageCRLSign, far)
	p.inter = issue("pkcs7 intermediate", &p.root, true, smx509.KeyUsageCertSign|smx509.KeyUsageCRLSign, far)
	p.signer = issue("pkcs7 signer", &p.inter, false, smx509.KeyUsageDigitalSignature, far)
	p.signer2 = issue("pkcs7 signer 2", &p.inter, false, smx509.KeyUsageDigitalSignature|smx509.KeyUsageContentCommitment, far)
	p.encLeaf = issue("pkcs7 recipient", &p.inter, false, smx509.KeyUsageKeyEncipherment, far)
	p.encLeaf2 = issue("pkcs7 recipient 2", &p.inter, false, smx509.KeyUsageKeyEncipherment, far)
	p.noDigitalSignature = issue("pkcs7 enc only", &p.inter, false, smx509.KeyUsageKeyEncipherment, far)
	p.expired = issue("pkcs7 expired", &p.inter, false, smx509.KeyUsageDigitalSignature, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	p.otherRoot = issue("pkcs7 other root", nil, true, smx509.KeyUsageCertSign, far)
	pkiCache = p
	return p
}

func (p *testPKI) roots() *smx509.CertPool {
	pool := smx509.NewCertPool()
	pool.AddCert(p.root.cert)
	return pool
}

func (p *testPKI) verifyOptions() VerifyOptions {
	inter := smx509.NewCertPool()
	inter.AddCert(p.inter.cert)
	return VerifyOptions{Roots: p.roots(), Intermediates: inter, CurrentTime: testTime}
}
