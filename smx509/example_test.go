package smx509_test

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

// A self-signed SM2 CA issues a TLCP signing certificate, which is then
// verified for a host name.
func ExampleCreateCertificate() {
	caKey, _ := sm2.GenerateKey(rand.Reader)
	ca := &smx509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Example SM2 CA"},
		NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              smx509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, _ := smx509.CreateCertificate(rand.Reader, ca, ca, caKey.Public(), caKey)
	caCert, _ := smx509.ParseCertificate(caDER)

	signKey, _ := sm2.GenerateKey(rand.Reader)
	leafDER, err := smx509.CreateCertificate(rand.Reader, &smx509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "server"},
		NotBefore:    ca.NotBefore,
		NotAfter:     ca.NotAfter,
		KeyUsage:     smx509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}, caCert, signKey.Public(), caKey)
	if err != nil {
		panic(err)
	}
	leaf, _ := smx509.ParseCertificate(leafDER)

	roots := smx509.NewCertPool()
	roots.AddCert(caCert)
	chains, err := leaf.Verify(smx509.VerifyOptions{
		Roots:       roots,
		DNSName:     "localhost",
		CurrentTime: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
	})
	fmt.Println(leaf.SignatureAlgorithm, len(chains[0]), err, leaf.IsTLCPSignCert())
	// Output: SM2-SM3 2 <nil> true
}

// Verifying the server signing certificate of the TLCP test PKI in testdata.
func ExampleCertificate_Verify() {
	caPEM, err := os.ReadFile("../testdata/tlcp/ca.pem")
	if err != nil {
		panic(err)
	}
	leafPEM, err := os.ReadFile("../testdata/tlcp/server_sign.pem")
	if err != nil {
		panic(err)
	}
	roots := smx509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	leaf, err := smx509.ParseCertificatePEM(leafPEM)
	if err != nil {
		panic(err)
	}
	_, err = leaf.Verify(smx509.VerifyOptions{
		Roots:       roots,
		DNSName:     "localhost",
		KeyUsages:   []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth},
		CurrentTime: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
	})
	fmt.Println(err, leaf.IsTLCPSignCert(), leaf.IsTLCPEncCert())
	// Output: <nil> true false
}

// A certificate's SM2 key is an *sm2.PublicKey. The key encodings that
// crypto/x509 keeps beside its certificates (MarshalPKIXPublicKey and the
// rest) are in this module's package x509, not in smx509.
func ExampleCertificate_publicKey() {
	certPEM, err := os.ReadFile("../testdata/tlcp/server_sign.pem")
	if err != nil {
		panic(err)
	}
	cert, err := smx509.ParseCertificatePEM(certPEM)
	if err != nil {
		panic(err)
	}
	pub := cert.PublicKey.(*sm2.PublicKey)
	spki, err := smx.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err)
	}
	fmt.Println(cert.PublicKeyAlgorithm, len(pub.Bytes()), string(spki) == string(cert.RawSubjectPublicKeyInfo))
	// Output: SM2 65 true
}
