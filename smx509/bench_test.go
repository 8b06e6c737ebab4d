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
// spent in sm2.NewPublicKey (point decoding and the on-curve check), shown
// separately so that a regression in the primitive is easy to tell from one
// in the parser.
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

// typicalLeafDER returns an SM2 and an ECDSA P-256 leaf in the shape of a
// server certificate from a national CA: six-attribute names, SAN, EKU,
// CRL distribution point and AIA. It mirrors the x509 rows of
// examples/bench, so profiles taken here explain those numbers.
func typicalLeafDER(b testing.TB) (sm2DER, ecdsaDER []byte) {
	name := func(cn, ou string) pkix.Name {
		return pkix.Name{Country: []string{"CN"}, Province: []string{"Beijing"}, Locality: []string{"Beijing"},
			Organization: []string{"Shangmi Test Trust Services Co., Ltd."}, OrganizationalUnit: []string{ou}, CommonName: cn}
	}
	nb, na := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ca := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: name("Shangmi Test Server CA", "Server CA"),
		NotBefore: nb, NotAfter: na, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true, SubjectKeyId: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}}
	leaf := &x509.Certificate{SerialNumber: new(big.Int).SetBytes([]byte{0x5a, 0x13, 0x9f, 0x02, 0x77, 0x41, 0xc8, 0x0e, 0x31, 0x6d, 0x2b, 0xe4}),
		Subject:   name("www.shangmi.example", "Web Services"),
		NotBefore: nb, NotAfter: na, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:              []string{"www.shangmi.example", "shangmi.example", "api.shangmi.example"},
		CRLDistributionPoints: []string{"http://crl.shangmi.example/server-ca.crl"},
		OCSPServer:            []string{"http://ocsp.shangmi.example"},
		IssuingCertificateURL: []string{"http://ca.shangmi.example/server-ca.cer"}}

	conv := func(c *x509.Certificate) *Certificate {
		return &Certificate{SerialNumber: c.SerialNumber, Subject: c.Subject, NotBefore: c.NotBefore, NotAfter: c.NotAfter,
			KeyUsage: KeyUsage(c.KeyUsage), BasicConstraintsValid: c.BasicConstraintsValid, IsCA: c.IsCA,
			MaxPathLenZero: c.MaxPathLenZero, SubjectKeyId: c.SubjectKeyId, DNSNames: c.DNSNames,
			CRLDistributionPoints: c.CRLDistributionPoints, OCSPServer: c.OCSPServer,
			IssuingCertificateURL: c.IssuingCertificateURL,
			ExtKeyUsage:           []ExtKeyUsage{ExtKeyUsageServerAuth, ExtKeyUsageClientAuth}[:len(c.ExtKeyUsage)]}
	}
	smCA, _ := sm2.GenerateKey(rand.Reader)
	smLeaf, _ := sm2.GenerateKey(rand.Reader)
	smCADER, err := CreateCertificate(rand.Reader, conv(ca), conv(ca), smCA.Public(), smCA)
	must(b, err)
	smCACert, err := ParseCertificate(smCADER)
	must(b, err)
	sm2DER, err = CreateCertificate(rand.Reader, conv(leaf), smCACert, smLeaf.Public(), smCA)
	must(b, err)

	ecCA, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecLeaf, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecCADER, err := x509.CreateCertificate(rand.Reader, ca, ca, ecCA.Public(), ecCA)
	must(b, err)
	ecCACert, err := x509.ParseCertificate(ecCADER)
	must(b, err)
	ecdsaDER, err = x509.CreateCertificate(rand.Reader, leaf, ecCACert, ecLeaf.Public(), ecCA)
	must(b, err)
	return sm2DER, ecdsaDER
}

func BenchmarkParseCertificateTypicalSM2(b *testing.B) {
	der, _ := typicalLeafDER(b)
	b.ReportMetric(float64(len(der)), "bytes/cert")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCertificate(der); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseCertificateTypicalStdlibECDSA(b *testing.B) {
	_, der := typicalLeafDER(b)
	b.ReportMetric(float64(len(der)), "bytes/cert")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x509.ParseCertificate(der); err != nil {
			b.Fatal(err)
		}
	}
}
