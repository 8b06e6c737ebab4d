package smx509

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// benchTemplateFields fills the fields shared by the SM2 and the ECDSA
// certificates, so the two DER encodings have the same shape and nearly the
// same size (both keys are 65-byte points, both signatures ~71 bytes).
func benchLeafDER(b *testing.B) (sm2DER, ecdsaDER []byte) {
	notBefore := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	notAfter := time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC)
	subject := pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi"}, CommonName: "shangmi test server"}
	issuer := pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi"}, CommonName: "shangmi Test Root CA"}
	dns := []string{"localhost", "server.example.com"}
	ips := []net.IP{net.IPv4(127, 0, 0, 1)}

	smCA, _ := sm2.GenerateKey(rand.Reader)
	smLeaf, _ := sm2.GenerateKey(rand.Reader)
	smCAT := &Certificate{SerialNumber: big.NewInt(1), Subject: issuer, NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage: KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	smCADER, err := CreateCertificate(rand.Reader, smCAT, smCAT, smCA.Public(), smCA)
	must(b, err)
	smCACert, _ := ParseCertificate(smCADER)
	sm2DER, err = CreateCertificate(rand.Reader, &Certificate{SerialNumber: big.NewInt(2), Subject: subject,
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: KeyUsageDigitalSignature,
		ExtKeyUsage: []ExtKeyUsage{ExtKeyUsageServerAuth}, BasicConstraintsValid: true, DNSNames: dns, IPAddresses: ips},
		smCACert, smLeaf.Public(), smCA)
	must(b, err)

	ecCA, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecLeaf, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecCAT := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: issuer, NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	ecCADER, err := x509.CreateCertificate(rand.Reader, ecCAT, ecCAT, ecCA.Public(), ecCA)
	must(b, err)
	ecCACert, _ := x509.ParseCertificate(ecCADER)
	ecdsaDER, err = x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: subject,
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, DNSNames: dns, IPAddresses: ips},
		ecCACert, ecLeaf.Public(), ecCA)
	must(b, err)
	return sm2DER, ecdsaDER
}

func BenchmarkParseCertificateSM2(b *testing.B) {
	der, _ := benchLeafDER(b)
	b.ReportMetric(float64(len(der)), "bytes/cert")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCertificate(der); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCertificateStdlibECDSA is the reference: crypto/x509 parsing
// an ECDSA P-256 certificate of the same shape.
func BenchmarkParseCertificateStdlibECDSA(b *testing.B) {
	_, der := benchLeafDER(b)
	b.ReportMetric(float64(len(der)), "bytes/cert")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x509.ParseCertificate(der); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCertificateECDSA is this package parsing the ECDSA one.
func BenchmarkParseCertificateECDSA(b *testing.B) {
	_, der := benchLeafDER(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCertificate(der); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyChainSM2 verifies leaf → intermediate → root, all SM2
// (two signature verifications per call).
func BenchmarkVerifyChainSM2(b *testing.B) {
	rootKey := testKey(b, kindSM2, "root")
	interKey := testKey(b, kindSM2, "inter")
	rt := caTemplate("Bench Root")
	root := issue(b, rt, rt, rootKey.Public(), rootKey)
	inter := issue(b, caTemplate("Bench Intermediate"), root, interKey.Public(), rootKey)
	leaf := issue(b, leafTemplate("bench", KeyUsageDigitalSignature), inter, testKey(b, kindSM2, "leaf").Public(), interKey)
	opts := VerifyOptions{Roots: NewCertPool(), Intermediates: NewCertPool(), CurrentTime: testTime, DNSName: "localhost"}
	opts.Roots.AddCert(root)
	opts.Intermediates.AddCert(inter)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := leaf.Verify(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyChainStdlibECDSA is the same chain shape in crypto/x509
// with ECDSA P-256, for reference.
func BenchmarkVerifyChainStdlibECDSA(b *testing.B) {
	rootKey := testKey(b, kindECDSA, "root")
	interKey := testKey(b, kindECDSA, "inter")
	rt := caTemplate("Bench Root")
	root := issue(b, rt, rt, rootKey.Public(), rootKey)
	inter := issue(b, caTemplate("Bench Intermediate"), root, interKey.Public(), rootKey)
	leaf := issue(b, leafTemplate("bench", KeyUsageDigitalSignature), inter, testKey(b, kindECDSA, "leaf").Public(), interKey)
	xr, _ := root.ToX509()
	xi, _ := inter.ToX509()
	xl, _ := leaf.ToX509()
	opts := x509.VerifyOptions{Roots: x509.NewCertPool(), Intermediates: x509.NewCertPool(), CurrentTime: testTime, DNSName: "localhost"}
	opts.Roots.AddCert(xr)
	opts.Intermediates.AddCert(xi)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := xl.Verify(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSM2PublicKeyDecode is the share of BenchmarkParseCertificateSM2
// spent in sm2.NewPublicKey (point decoding and validation), shown
// separately because it dominates the difference to crypto/x509.
func BenchmarkSM2PublicKeyDecode(b *testing.B) {
	k, _ := sm2.GenerateKey(rand.Reader)
	enc := k.PublicKey().Bytes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sm2.NewPublicKey(enc); err != nil {
			b.Fatal(err)
		}
	}
}
