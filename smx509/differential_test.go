package smx509

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"reflect"
	"testing"
)

// TestDifferentialSystemRoots parses every certificate of the system bundle
// with this package and with crypto/x509 and compares the fields both
// expose. It exercises the parser on a few hundred real RSA and ECDSA
// certificates.
func TestDifferentialSystemRoots(t *testing.T) {
	var data []byte
	for _, f := range systemBundles {
		if d, err := os.ReadFile(f); err == nil {
			data = d
			break
		}
	}
	if data == nil {
		t.Skip("no system certificate bundle")
	}
	n := 0
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		std, stdErr := x509.ParseCertificate(block.Bytes)
		ours, err := ParseCertificate(block.Bytes)
		if (stdErr == nil) != (err == nil) {
			t.Errorf("disagreement: crypto/x509 %v, smx509 %v", stdErr, err)
			continue
		}
		if err != nil {
			continue
		}
		n++
		name := std.Subject.String()
		check := func(field string, a, b any) {
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: %s differs: crypto/x509 %v, smx509 %v", name, field, a, b)
			}
		}
		check("Subject", std.Subject.String(), ours.Subject.String())
		check("Issuer", std.Issuer.String(), ours.Issuer.String())
		check("SerialNumber", std.SerialNumber.String(), ours.SerialNumber.String())
		check("NotBefore", std.NotBefore, ours.NotBefore)
		check("NotAfter", std.NotAfter, ours.NotAfter)
		check("Version", std.Version, ours.Version)
		check("KeyUsage", int(std.KeyUsage), int(ours.KeyUsage))
		check("IsCA", std.IsCA, ours.IsCA)
		check("BasicConstraintsValid", std.BasicConstraintsValid, ours.BasicConstraintsValid)
		check("MaxPathLen", std.MaxPathLen, ours.MaxPathLen)
		check("SubjectKeyId", std.SubjectKeyId, ours.SubjectKeyId)
		check("AuthorityKeyId", std.AuthorityKeyId, ours.AuthorityKeyId)
		check("DNSNames", std.DNSNames, ours.DNSNames)
		check("PermittedDNSDomains", std.PermittedDNSDomains, ours.PermittedDNSDomains)
		check("CRLDistributionPoints", std.CRLDistributionPoints, ours.CRLDistributionPoints)
		check("SignatureAlgorithm", int(std.SignatureAlgorithm), int(ours.SignatureAlgorithm))
		check("PublicKeyAlgorithm", int(std.PublicKeyAlgorithm), int(ours.PublicKeyAlgorithm))
		check("PublicKey", std.PublicKey, ours.PublicKey)
		check("Extensions", len(std.Extensions), len(ours.Extensions))
		var eku []int
		for _, u := range std.ExtKeyUsage {
			eku = append(eku, int(u))
		}
		var oursEKU []int
		for _, u := range ours.ExtKeyUsage {
			oursEKU = append(oursEKU, int(u))
		}
		check("ExtKeyUsage", eku, oursEKU)
		check("self-signature", std.CheckSignatureFrom(std) == nil, ours.CheckSignatureFrom(ours) == nil)
		compareWithStdlib(t, std, ours)
	}
	t.Logf("compared %d certificates", n)
}
