package smx509

import (
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
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
		csr, err := ParseCertificateRequest(der)
		std, stdErr := x509.ParseCertificateRequest(der)
		if err != nil {
			if stdErr == nil && !stricterThanStdlib(err) {
				t.Fatalf("crypto/x509 parses the request, this package refuses it: %v", err)
			}
			return
		}
		if stdErr == nil {
			compareCSRWithStdlib(t, std, csr)
		}
		_ = csr.CheckSignature()
	})
}

func FuzzParseRevocationList(f *testing.F) {
	seedPEMs(f, "X509 CRL")
	f.Fuzz(func(t *testing.T, der []byte) {
		rl, err := ParseRevocationList(der)
		std, stdErr := x509.ParseRevocationList(der)
		if err != nil {
			if stdErr == nil && !stricterThanStdlib(err) {
				t.Fatalf("crypto/x509 parses the CRL, this package refuses it: %v", err)
			}
			return
		}
		if stdErr == nil {
			compareCRLWithStdlib(t, std, rl)
		}
	})
}

// stricterThanStdlib reports whether err is the one documented way this
// package refuses a certificate or CRL that crypto/x509 parses: data after
// the last field of a structure (trailingData).
func stricterThanStdlib(err error) bool {
	var td trailingData
	return errors.As(err, &td)
}

// compareCSRWithStdlib: where crypto/x509 parses a request too (it knows
// no SM2 key, so these are the other algorithms' requests), every field
// both packages have agrees.
func compareCSRWithStdlib(t *testing.T, std *x509.CertificateRequest, ours *CertificateRequest) {
	t.Helper()
	check := stdlibChecker(t)
	check("Raw", std.Raw, ours.Raw)
	check("RawTBSCertificateRequest", std.RawTBSCertificateRequest, ours.RawTBSCertificateRequest)
	check("RawSubjectPublicKeyInfo", std.RawSubjectPublicKeyInfo, ours.RawSubjectPublicKeyInfo)
	check("RawSubject", std.RawSubject, ours.RawSubject)
	check("Version", std.Version, ours.Version)
	check("Signature", std.Signature, ours.Signature)
	check("Subject", std.Subject, ours.Subject)
	check("Extensions", std.Extensions, ours.Extensions)
	check("DNSNames", std.DNSNames, ours.DNSNames)
	check("EmailAddresses", std.EmailAddresses, ours.EmailAddresses)
	check("IPAddresses", std.IPAddresses, ours.IPAddresses)
	check("URIs", std.URIs, ours.URIs)
	if ours.SignatureAlgorithm != SM2WithSM3 {
		check("SignatureAlgorithm", int(std.SignatureAlgorithm), int(ours.SignatureAlgorithm))
	}
	if ours.PublicKeyAlgorithm != SM2 {
		check("PublicKeyAlgorithm", int(std.PublicKeyAlgorithm), int(ours.PublicKeyAlgorithm))
		if k, ok := std.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); ok && !k.Equal(ours.PublicKey) {
			t.Errorf("PublicKey differs: crypto/x509 %T, smx509 %T", std.PublicKey, ours.PublicKey)
		}
	}
}

// compareCRLWithStdlib: crypto/x509 parses CRLs whatever their signature
// algorithm, so SM2 CRLs are compared too: issuer, numbering, validity and
// every entry must agree.
func compareCRLWithStdlib(t *testing.T, std *x509.RevocationList, ours *RevocationList) {
	t.Helper()
	check := stdlibChecker(t)
	check("Raw", std.Raw, ours.Raw)
	check("RawTBSRevocationList", std.RawTBSRevocationList, ours.RawTBSRevocationList)
	check("RawIssuer", std.RawIssuer, ours.RawIssuer)
	check("Issuer", std.Issuer, ours.Issuer)
	check("AuthorityKeyId", std.AuthorityKeyId, ours.AuthorityKeyId)
	check("Signature", std.Signature, ours.Signature)
	check("Number", std.Number, ours.Number)
	check("ThisUpdate", std.ThisUpdate, ours.ThisUpdate)
	check("NextUpdate", std.NextUpdate, ours.NextUpdate)
	check("Extensions", std.Extensions, ours.Extensions)
	if ours.SignatureAlgorithm != SM2WithSM3 {
		check("SignatureAlgorithm", int(std.SignatureAlgorithm), int(ours.SignatureAlgorithm))
	}
	if len(std.RevokedCertificateEntries) != len(ours.RevokedCertificateEntries) {
		t.Fatalf("entries: crypto/x509 %d, smx509 %d", len(std.RevokedCertificateEntries), len(ours.RevokedCertificateEntries))
	}
	for i, e := range std.RevokedCertificateEntries {
		o := ours.RevokedCertificateEntries[i]
		check(fmt.Sprintf("entry %d Raw", i), e.Raw, o.Raw)
		check(fmt.Sprintf("entry %d SerialNumber", i), e.SerialNumber, o.SerialNumber)
		check(fmt.Sprintf("entry %d RevocationTime", i), e.RevocationTime, o.RevocationTime)
		check(fmt.Sprintf("entry %d ReasonCode", i), e.ReasonCode, o.ReasonCode)
		check(fmt.Sprintf("entry %d Extensions", i), e.Extensions, o.Extensions)
	}
}
