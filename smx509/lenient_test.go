package smx509

import (
	"bytes"
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	smx "github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// rebuildTBS re-encodes a TBSCertificate, letting edit replace any of its
// top-level elements (by index), and signs the result with key under the
// given outer algorithm identifier DER.
func rebuildSigned(t *testing.T, c *Certificate, key *sm2.PrivateKey, algID []byte, edit func(i int, elem []byte) []byte) []byte {
	t.Helper()
	in := cryptobyte.String(c.RawTBSCertificate)
	if !in.ReadASN1(&in, cbasn1.SEQUENCE) {
		t.Fatal("bad TBS")
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		for i := 0; !in.Empty(); i++ {
			var elem cryptobyte.String
			var tag cbasn1.Tag
			if !in.ReadAnyASN1Element(&elem, &tag) {
				t.Fatal("bad TBS element")
			}
			b.AddBytes(edit(i, elem))
		}
	})
	tbs := b.BytesOrPanic()
	sig, err := sm2.SignASN1(rand.Reader, key, tbs, nil)
	must(t, err)
	var out cryptobyte.Builder
	out.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(tbs)
		b.AddBytes(algID)
		b.AddASN1BitString(sig)
	})
	return out.BytesOrPanic()
}

// TestLenientSM2Encodings covers the deviations the package documentation
// promises to accept.
func TestLenientSM2Encodings(t *testing.T) {
	key := testKey(t, kindSM2, "root").(*sm2.PrivateKey)
	rt := caTemplate("lenient")
	c := issue(t, rt, rt, key.Public(), key)

	algNULL := []byte{0x30, 0x0c, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75, 0x05, 0x00}
	der := rebuildSigned(t, c, key, algNULL, func(i int, e []byte) []byte {
		if i == 2 { // signature AlgorithmIdentifier
			return algNULL
		}
		return e
	})
	nc, err := ParseCertificate(der)
	must(t, err)
	if nc.SignatureAlgorithm != SM2WithSM3 {
		t.Fatalf("NULL parameters: %v", nc.SignatureAlgorithm)
	}
	must(t, nc.CheckSignatureFrom(nc))

	// Negative serial number.
	algStd := []byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75}
	der = rebuildSigned(t, c, key, algStd, func(i int, e []byte) []byte {
		if i == 1 {
			var b cryptobyte.Builder
			b.AddASN1BigInt(big.NewInt(-12345))
			return b.BytesOrPanic()
		}
		return e
	})
	neg, err := ParseCertificate(der)
	must(t, err)
	if neg.SerialNumber.Int64() != -12345 {
		t.Fatalf("serial %v", neg.SerialNumber)
	}

	// Public key algorithm written as sm2p256v1 itself (early GmSSL).
	legacySPKI := append([]byte{0x30, 0x52, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d, 0x05, 0x00, 0x03, 0x42, 0x00},
		key.PublicKey().Bytes()...)
	der = rebuildSigned(t, c, key, algStd, func(i int, e []byte) []byte {
		if bytes.Equal(e, c.RawSubjectPublicKeyInfo) {
			return legacySPKI
		}
		return e
	})
	leg, err := ParseCertificate(der)
	must(t, err)
	if leg.PublicKeyAlgorithm != SM2 || !key.PublicKey().Equal(leg.PublicKey) {
		t.Fatalf("legacy SPKI: %v", leg.PublicKeyAlgorithm)
	}
	must(t, leg.CheckSignatureFrom(leg))

	// Mismatched inner and outer algorithm identifiers stay an error.
	der = rebuildSigned(t, c, key, algNULL, func(i int, e []byte) []byte { return e })
	if _, err := ParseCertificate(der); err == nil {
		t.Fatal("inner/outer algorithm mismatch accepted")
	}
}

func TestStrictDER(t *testing.T) {
	key := testKey(t, kindSM2, "root")
	rt := caTemplate("strict")
	c := issue(t, rt, rt, key.Public(), key)
	// Non-minimal length encoding of the outer SEQUENCE (three length
	// bytes where two suffice).
	if c.Raw[1] != 0x82 {
		t.Skip("certificate length is not in two-byte form")
	}
	n := len(c.Raw) - 4
	bad := append([]byte{0x30, 0x83, 0x00, byte(n >> 8), byte(n)}, c.Raw[4:]...)
	if _, err := ParseCertificate(bad); err == nil {
		t.Fatal("non-minimal length accepted")
	}
	if _, err := ParseCertificate(append(append([]byte(nil), c.Raw...), 0)); err == nil {
		t.Fatal("trailing data accepted")
	}
	for i := 0; i < len(c.Raw); i += 7 {
		if _, err := ParseCertificate(c.Raw[:i]); err == nil {
			t.Fatalf("truncation at %d accepted", i)
		}
	}
	certs, err := ParseCertificates(append(append([]byte(nil), c.Raw...), c.Raw...))
	must(t, err)
	if len(certs) != 2 {
		t.Fatal("ParseCertificates")
	}
}

// TestCFCAStyleRequest: a request whose challengePassword attribute value is
// not wrapped in a SET (as CFCA writes them) still parses and verifies.
func TestCFCAStyleRequest(t *testing.T) {
	key := testKey(t, kindSM2, "csr").(*sm2.PrivateKey)
	spki, err := smx.MarshalPKIXPublicKey(key.Public())
	must(t, err)
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(0)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier([]int{2, 5, 4, 3})
					b.AddASN1(cbasn1.UTF8String, func(b *cryptobyte.Builder) { b.AddBytes([]byte("cfca style")) })
				})
			})
		})
		b.AddBytes(spki)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier([]int{1, 2, 840, 113549, 1, 9, 7}) // challengePassword
				b.AddASN1(cbasn1.PrintableString, func(b *cryptobyte.Builder) { b.AddBytes([]byte("111111")) })
			})
		})
	})
	tbs := b.BytesOrPanic()
	sig, err := sm2.SignASN1(rand.Reader, key, tbs, nil)
	must(t, err)
	var out cryptobyte.Builder
	out.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(tbs)
		// With NULL parameters, as CFCA writes them.
		b.AddBytes([]byte{0x30, 0x0c, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75, 0x05, 0x00})
		b.AddASN1BitString(sig)
	})
	csr, err := ParseCertificateRequest(out.BytesOrPanic())
	must(t, err)
	must(t, csr.CheckSignature())
	if csr.Subject.CommonName != "cfca style" {
		t.Fatal(csr.Subject)
	}
}
