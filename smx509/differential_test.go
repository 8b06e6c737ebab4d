package smx509

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"reflect"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
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

// TestStricterThanStdlib pins the one documented way this package refuses
// what crypto/x509 parses (trailingData), in the places fuzzing found it:
// data after the last field of a TBSCertificate (for its version), an
// Extension, a Certificate or a TBSCertList. Each case is built from a certificate or CRL both packages
// parse, with the TBS rewritten (the signature no longer verifies, which
// parsing does not check). It also pins a place where this package is as
// lenient as crypto/x509: an extension's critical FALSE encoded, which DER
// forbids and certificates in use carry.
func TestStricterThanStdlib(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		Subject:      pkix.Name{CommonName: "stricter"},
		NotBefore:    time.Unix(1e9, 0),
		NotAfter:     time.Unix(2e9, 0),
		KeyUsage:     x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		IsCA:         true, BasicConstraintsValid: true,
	}
	certDER, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(certDER)
	if err != nil {
		t.Fatal(err)
	}
	crlDER, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{
		Number: big.NewInt(1), ThisUpdate: time.Unix(1.5e9, 0), NextUpdate: time.Unix(1.6e9, 0),
	}, ca, key)
	if err != nil {
		t.Fatal(err)
	}
	// rewrite splits the TBS of a signed structure into its elements,
	// lets edit change them, and puts the structure back together.
	rewrite := func(der []byte, edit func([][]byte) [][]byte) []byte {
		in := cryptobyte.String(der)
		var outer, tbs cryptobyte.String
		if !in.ReadASN1(&outer, cbasn1.SEQUENCE) || !outer.ReadASN1(&tbs, cbasn1.SEQUENCE) {
			t.Fatal("bad DER")
		}
		var elems [][]byte
		for !tbs.Empty() {
			var e cryptobyte.String
			if !tbs.ReadAnyASN1Element(&e, new(cbasn1.Tag)) {
				t.Fatal("bad TBS")
			}
			elems = append(elems, e)
		}
		var b cryptobyte.Builder
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				for _, e := range edit(elems) {
					b.AddBytes(e)
				}
			})
			b.AddBytes(outer) // signatureAlgorithm and signature
		})
		return b.BytesOrPanic()
	}
	extra := []byte{0x30, 0x03, 0x02, 0x01, 0x05} // SEQUENCE { INTEGER 5 }
	// withExtension replaces the certificate's extensions (the TBS's last
	// element, [3]) by one Extension of the given content.
	withExtension := func(content ...[]byte) func([][]byte) [][]byte {
		return func(e [][]byte) [][]byte {
			var b cryptobyte.Builder
			b.AddASN1(cbasn1.Tag(3).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						for _, c := range content {
							b.AddBytes(c)
						}
					})
				})
			})
			return append(e[:len(e)-1:len(e)-1], b.BytesOrPanic())
		}
	}
	extOID := []byte{0x06, 0x03, 0x2a, 0x03, 0x04}   // 1.2.3.4, unknown to both
	extValue := []byte{0x04, 0x03, 0x02, 0x01, 0x07} // OCTET STRING { INTEGER 7 }
	explicitFalse := []byte{0x01, 0x01, 0x00}        // critical BOOLEAN FALSE
	lenient := rewrite(certDER, withExtension(extOID, explicitFalse, extValue))
	if c, err := ParseCertificate(lenient); err != nil || len(c.Extensions) != 1 || c.Extensions[0].Critical {
		t.Errorf("an extension with critical FALSE encoded: %v", err)
	}
	if _, err := x509.ParseCertificate(lenient); err != nil {
		t.Errorf("crypto/x509 refuses critical FALSE encoded: %v", err)
	}
	for _, tc := range []struct {
		name  string
		der   []byte
		crl   bool
		want  error
		check func(std any) // what crypto/x509 made of it
	}{
		{name: "v3 certificate, data after extensions", der: rewrite(certDER, func(e [][]byte) [][]byte {
			return append(e, extra)
		}), want: errTBSTrailingFields},
		{name: "v1 certificate carrying extensions", der: rewrite(certDER, func(e [][]byte) [][]byte {
			return e[1:] // drop [0] version: a v1 certificate, extensions still there
		}), want: errTBSTrailingFields, check: func(std any) {
			if c := std.(*x509.Certificate); c.Version != 1 || c.IsCA || len(c.Extensions) != 0 {
				t.Errorf("crypto/x509: version %d, IsCA %v, %d extensions", c.Version, c.IsCA, len(c.Extensions))
			}
		}},
		{name: "extension with data after its value", der: rewrite(certDER, withExtension(extOID, extValue, extra)),
			want: errExtensionTrailingFields},
		{name: "certificate, data after the signature", der: func() []byte {
			in := cryptobyte.String(certDER)
			var outer cryptobyte.String
			in.ReadASN1(&outer, cbasn1.SEQUENCE)
			var b cryptobyte.Builder
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddBytes(outer); b.AddBytes(extra) })
			return b.BytesOrPanic()
		}(), want: trailingData("malformed certificate")},
		{name: "CRL, data after crlExtensions", der: rewrite(crlDER, func(e [][]byte) [][]byte {
			return append(e, extra)
		}), crl: true, want: errCRLTrailingFields},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var std any
			var stdErr, err error
			if tc.crl {
				std, stdErr = x509.ParseRevocationList(tc.der)
				_, err = ParseRevocationList(tc.der)
			} else {
				std, stdErr = x509.ParseCertificate(tc.der)
				_, err = ParseCertificate(tc.der)
			}
			if stdErr != nil {
				t.Fatalf("crypto/x509 no longer parses it (%v): the case is no longer stricter", stdErr)
			}
			if !errors.Is(err, tc.want) || !stricterThanStdlib(err) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.check != nil {
				tc.check(std)
			}
		})
	}
	// The unmodified structures parse in both.
	if _, err := ParseCertificate(certDER); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseRevocationList(crlDER); err != nil {
		t.Fatal(err)
	}
}
