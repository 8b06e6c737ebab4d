package smx509

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

// seedPEMs adds the DER of every PEM block of the given type found in the
// repository's testdata to f.
func seedPEMs(f *testing.F, typ string) {
	for _, dir := range []string{"tlcp", "openssl"} {
		files, _ := filepath.Glob(filepath.Join(repoTestdata(f, dir), "*"))
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			for rest := data; ; {
				block, r := pemDecode(rest)
				if block == nil {
					break
				}
				rest = r
				if block.Type == typ {
					f.Add(block.Bytes)
				}
			}
		}
	}
}

func FuzzParseCertificate(f *testing.F) {
	seedPEMs(f, "CERTIFICATE")
	f.Fuzz(func(t *testing.T, der []byte) {
		c, err := ParseCertificate(der)
		if err != nil {
			// Stricter than crypto/x509 only where it is documented.
			if _, stdErr := x509.ParseCertificate(der); stdErr == nil && !stricterThanStdlib(err) {
				t.Fatalf("crypto/x509 parses the certificate, this package refuses it: %v", err)
			}
			return
		}
		// Where crypto/x509 accepts the certificate too, the fields both
		// packages have must agree (this package is more lenient in a few
		// documented places, never stricter in a way that changes values).
		if std, err := x509.ParseCertificate(der); err == nil {
			compareWithStdlib(t, std, c)
		}
		// Whatever parses must be usable without panicking.
		_ = c.CheckSignatureFrom(c)
		_ = c.VerifyHostname("localhost")
		_ = c.IsTLCPSignCert()
		pool := NewCertPool()
		pool.AddCert(c)
		_, _ = c.Verify(VerifyOptions{Roots: pool, CurrentTime: testTime})
	})
}

func FuzzParseCertificateRequest(f *testing.F) {
	seedPEMs(f, "CERTIFICATE REQUEST")
	f.Fuzz(func(t *testing.T, der []byte) {
		if csr, err := ParseCertificateRequest(der); err == nil {
			_ = csr.CheckSignature()
		}
	})
}

func FuzzParseRevocationList(f *testing.F) {
	seedPEMs(f, "X509 CRL")
	f.Fuzz(func(t *testing.T, der []byte) {
		_, _ = ParseRevocationList(der)
	})
}

// stricterThanStdlib reports whether err is one of the documented places
// where this package refuses a certificate that crypto/x509 parses.
func stricterThanStdlib(err error) bool {
	return false
}
