package smx509

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"io"
	"net"
	"net/url"

	smx "github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// CertificateRequest is a PKCS #10 certificate signing request.
type CertificateRequest struct {
	Raw                      []byte // Complete ASN.1 DER content (CSR, signature algorithm and signature).
	RawTBSCertificateRequest []byte // Certificate request info part of raw ASN.1 DER content.
	RawSubjectPublicKeyInfo  []byte // DER encoded SubjectPublicKeyInfo.
	RawSubject               []byte // DER encoded Subject.

	Version            int
	Signature          []byte
	SignatureAlgorithm SignatureAlgorithm

	PublicKeyAlgorithm PublicKeyAlgorithm
	PublicKey          any

	Subject pkix.Name

	// Extensions holds the requested extensions (the PKCS #9
	// extensionRequest attribute); ExtraExtensions is added to created
	// requests and overrides extensions derived from other fields.
	Extensions      []pkix.Extension
	ExtraExtensions []pkix.Extension

	// Subject alternative names, from the requested extensions.
	DNSNames       []string
	EmailAddresses []string
	IPAddresses    []net.IP
	URIs           []*url.URL
}

// ParseCertificateRequest parses a single certificate request from DER.
func ParseCertificateRequest(der []byte) (*CertificateRequest, error) {
	csr := &CertificateRequest{}
	errMalformed := errors.New("x509: malformed certificate request")

	input := cryptobyte.String(der)
	if !input.ReadASN1Element(&input, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	csr.Raw = input
	if len(csr.Raw) != len(der) {
		return nil, errors.New("x509: trailing data")
	}
	if !input.ReadASN1(&input, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	var info cryptobyte.String
	if !input.ReadASN1Element(&info, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	csr.RawTBSCertificateRequest = info
	if !info.ReadASN1(&info, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	if !info.ReadASN1Integer(&csr.Version) || csr.Version != 0 {
		return nil, errors.New("x509: unsupported certificate request version")
	}

	var subjectSeq cryptobyte.String
	if !info.ReadASN1Element(&subjectSeq, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	csr.RawSubject = subjectSeq
	err := parseName(subjectSeq, nil, &csr.Subject)
	if err != nil {
		return nil, err
	}

	var spki cryptobyte.String
	if !info.ReadASN1Element(&spki, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	csr.RawSubjectPublicKeyInfo = spki
	csr.PublicKey, csr.PublicKeyAlgorithm, err = parseSPKI(spki)
	if err != nil {
		return nil, err
	}

	// attributes [0] IMPLICIT SET OF Attribute. OpenSSL always writes it,
	// possibly empty; some encoders omit it, which is tolerated.
	var attrs cryptobyte.String
	var hasAttrs bool
	if !info.ReadOptionalASN1(&attrs, &hasAttrs, cbasn1.Tag(0).Constructed().ContextSpecific()) || !info.Empty() {
		return nil, errMalformed
	}
	for !attrs.Empty() {
		var attr, values cryptobyte.String
		var oid asn1.ObjectIdentifier
		if !attrs.ReadASN1(&attr, cbasn1.SEQUENCE) || !attr.ReadASN1ObjectIdentifier(&oid) {
			return nil, errMalformed
		}
		if !oid.Equal(oidExtensionRequest) {
			// Other attributes are not interpreted, so their shape is
			// not checked: CFCA's SM2 requests carry challengePassword
			// and a key-escrow attribute whose values lack the SET
			// wrapper PKCS #10 requires.
			continue
		}
		if !attr.ReadASN1(&values, cbasn1.SET) || !attr.Empty() {
			return nil, errMalformed
		}
		var extSeq cryptobyte.String
		if !values.ReadASN1Element(&extSeq, cbasn1.SEQUENCE) || !values.Empty() {
			return nil, errMalformed
		}
		exts, err := readExtensions(extSeq)
		if err != nil {
			return nil, err
		}
		csr.Extensions = append(csr.Extensions, exts...)
		for _, e := range exts {
			if e.Id.Equal(oidExtensionSubjectAltName) {
				csr.DNSNames, csr.EmailAddresses, csr.IPAddresses, csr.URIs, err = parseSANExtension(e.Value, nil)
				if err != nil {
					return nil, err
				}
			}
		}
	}

	var sigAI cryptobyte.String
	if !input.ReadASN1(&sigAI, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	ai, err := parseAlgorithmIdentifier(sigAI)
	if err != nil {
		return nil, err
	}
	csr.SignatureAlgorithm = getSignatureAlgorithm(ai)
	var sig asn1.BitString
	if !input.ReadASN1BitString(&sig) || !input.Empty() {
		return nil, errMalformed
	}
	csr.Signature = sig.RightAlign()
	return csr, nil
}

// CheckSignature reports whether the signature on c is valid (made by the
// key in the request). SM2 signatures are accepted with the default or the
// empty signer ID, as for certificates.
func (c *CertificateRequest) CheckSignature() error {
	return checkSignature(c.SignatureAlgorithm, c.RawTBSCertificateRequest, c.Signature, c.PublicKey, true)
}

// CreateCertificateRequest creates a new certificate request based on a
// template and returns it in DER form. The fields used are
// SignatureAlgorithm, Subject, DNSNames, EmailAddresses, IPAddresses, URIs
// and ExtraExtensions. priv signs the request (SM2 keys with SM2-with-SM3 and
// the default signer ID).
func CreateCertificateRequest(rand io.Reader, template *CertificateRequest, priv any) ([]byte, error) {
	key, err := asSigner(priv)
	if err != nil {
		return nil, err
	}
	sigAlgo, err := signingParams(key, template.SignatureAlgorithm)
	if err != nil {
		return nil, err
	}
	spki, err := smx.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	subject := template.RawSubject
	if len(subject) == 0 {
		if subject, err = asn1.Marshal(template.Subject.ToRDNSequence()); err != nil {
			return nil, err
		}
	}

	var exts []pkix.Extension
	if len(template.DNSNames)+len(template.EmailAddresses)+len(template.IPAddresses)+len(template.URIs) > 0 &&
		!oidInExtensions(oidExtensionSubjectAltName, template.ExtraExtensions) {
		var uris []string
		for _, u := range template.URIs {
			uris = append(uris, u.String())
		}
		e, err := buildExt(oidExtensionSubjectAltName, false, func(b *cryptobyte.Builder) {
			addGeneralNames(b, template.DNSNames, template.EmailAddresses, template.IPAddresses, uris)
		})
		if err != nil {
			return nil, err
		}
		exts = append(exts, e)
	}
	exts = append(exts, template.ExtraExtensions...)

	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(0)
		b.AddBytes(subject)
		b.AddBytes(spki)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			if len(exts) == 0 {
				return
			}
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(oidExtensionRequest)
				b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {
					addExtensions(b, exts)
				})
			})
		})
	})
	tbs, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	signature, err := signData(rand, key, sigAlgo, tbs)
	if err != nil {
		return nil, err
	}
	return wrapSigned(tbs, sigAlgo, signature)
}
