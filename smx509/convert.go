package smx509

import (
	"crypto/x509"
	"errors"
)

// ToX509 returns c as a crypto/x509 certificate, for use with APIs that need
// one (crypto/tls, for instance). It fails for SM2 certificates, which
// crypto/x509 cannot represent.
func (c *Certificate) ToX509() (*x509.Certificate, error) {
	if c.PublicKeyAlgorithm == SM2 || c.SignatureAlgorithm == SM2WithSM3 {
		return nil, errors.New("x509: SM2 certificates cannot be converted to crypto/x509")
	}
	return x509.ParseCertificate(c.Raw)
}

// FromX509 returns the smx509 form of a crypto/x509 certificate, parsed from
// its DER.
func FromX509(c *x509.Certificate) (*Certificate, error) {
	if c == nil || len(c.Raw) == 0 {
		return nil, errors.New("x509: certificate has no raw DER")
	}
	return ParseCertificate(c.Raw)
}
