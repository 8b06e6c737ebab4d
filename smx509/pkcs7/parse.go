package pkcs7

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"math/big"

	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// Message is a parsed ContentInfo. Exactly one of the typed fields is set,
// the one Type names; for Data, Content holds the octets.
type Message struct {
	Type ContentType
	// Family is the identifier family the content type was written in.
	Family Family
	// ContentTypeOID is the content type as written.
	ContentTypeOID asn1.ObjectIdentifier

	Content            []byte // Data
	Signed             *SignedData
	Enveloped          *EnvelopedData
	SignedAndEnveloped *SignedAndEnvelopedData
	Digested           *DigestedData
	Encrypted          *EncryptedData

	// Raw is the DER of the whole ContentInfo (after any BER conversion).
	Raw []byte
}

// Attribute is one attribute of a signer or of an unprotected attribute
// set, with each value kept as its DER.
type Attribute struct {
	Type   asn1.ObjectIdentifier
	Values [][]byte
}

// ParseError is returned for a message that is not well-formed; Field
// names where parsing stopped.
type ParseError struct {
	Field string
}

func (e *ParseError) Error() string { return "pkcs7: malformed " + e.Field }

func malformed(field string) error { return &ParseError{Field: field} }

// Parse parses a DER (or BER, see the package documentation) ContentInfo of
// any of the six content types. Use ParsePEM for PEM input. The Message
// refers to data (unless it was BER and converted): data must not be
// modified while the Message is in use.
func Parse(data []byte) (*Message, error) {
	der, err := normalize(data)
	if err != nil {
		return nil, err
	}
	m := &Message{Raw: der}
	s := cryptobyte.String(der)
	var ci, oidBytes cryptobyte.String
	if !s.ReadASN1(&ci, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, malformed("ContentInfo")
	}
	if !ci.ReadASN1ObjectIdentifier(&m.ContentTypeOID) {
		_ = oidBytes
		return nil, malformed("ContentInfo contentType")
	}
	m.Type, m.Family = contentTypeOf(m.ContentTypeOID)
	if m.Type == UnknownContentType {
		return nil, fmt.Errorf("pkcs7: unsupported content type %v", m.ContentTypeOID)
	}
	var content cryptobyte.String
	var present bool
	if !ci.ReadOptionalASN1(&content, &present, cbasn1.Tag(0).Constructed().ContextSpecific()) || !ci.Empty() {
		return nil, malformed("ContentInfo content")
	}
	if !present {
		if m.Type == Data {
			return m, nil
		}
		return nil, malformed("ContentInfo: " + m.Type.String() + " without content")
	}
	switch m.Type {
	case Data:
		var octets cryptobyte.String
		if !content.ReadASN1(&octets, cbasn1.OCTET_STRING) || !content.Empty() {
			return nil, malformed("data")
		}
		m.Content = octets
	case SignedDataType:
		m.Signed, err = parseSignedData(content)
	case EnvelopedDataType:
		m.Enveloped, err = parseEnvelopedData(content)
	case SignedAndEnvelopedDataType:
		m.SignedAndEnveloped, err = parseSignedAndEnvelopedData(content)
	case DigestedDataType:
		m.Digested, err = parseDigestedData(content)
	case EncryptedDataType:
		m.Encrypted, err = parseEncryptedData(content)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// marshalContentInfo returns the DER of a ContentInfo of type oid whose
// content is SEQUENCE { version, what body writes }, the shape of every
// content type but data.
func marshalContentInfo(oid asn1.ObjectIdentifier, version int, body func(b *cryptobyte.Builder)) ([]byte, error) {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(oid)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1Int64(int64(version))
				body(b)
			})
		})
	})
	return b.Bytes()
}

// readAlgorithm reads an AlgorithmIdentifier. Parameters, when present,
// are kept as their DER (FullBytes); an explicit NULL is kept too.
func readAlgorithm(s *cryptobyte.String, out *pkix.AlgorithmIdentifier) bool {
	var alg cryptobyte.String
	if !s.ReadASN1(&alg, cbasn1.SEQUENCE) || !alg.ReadASN1ObjectIdentifier(&out.Algorithm) {
		return false
	}
	if alg.Empty() {
		return true
	}
	var params cryptobyte.String
	var tag cbasn1.Tag
	if !alg.ReadAnyASN1Element(&params, &tag) || !alg.Empty() {
		return false
	}
	out.Parameters = asn1.RawValue{FullBytes: params}
	return true
}

// hasNoParameters reports whether an AlgorithmIdentifier has absent or NULL
// parameters, which writers use interchangeably for SM3 and SM2.
func hasNoParameters(a pkix.AlgorithmIdentifier) bool {
	p := a.Parameters.FullBytes
	return len(p) == 0 || (len(p) == 2 && p[0] == 5 && p[1] == 0)
}

// countElements returns the number of elements in s, or -1 if s is not a
// sequence of whole elements. Lists are sized by it before they are
// filled, so that a list costs its elements and no slack.
func countElements(s cryptobyte.String) int {
	n := 0
	for !s.Empty() {
		var elem cryptobyte.String
		var tag cbasn1.Tag
		if !s.ReadAnyASN1Element(&elem, &tag) {
			return -1
		}
		n++
	}
	return n
}

// maxDigestAlgorithms bounds the digestAlgorithms of a SignedData: one per
// digest its signers use, so a handful in any real message.
const maxDigestAlgorithms = 32

// readAlgorithmSet reads a SET OF AlgorithmIdentifier.
func readAlgorithmSet(s *cryptobyte.String) ([]pkix.AlgorithmIdentifier, bool) {
	var set cryptobyte.String
	if !s.ReadASN1(&set, cbasn1.SET) {
		return nil, false
	}
	n := countElements(set)
	if n < 0 || n > maxDigestAlgorithms {
		return nil, false
	}
	out := make([]pkix.AlgorithmIdentifier, 0, n)
	for !set.Empty() {
		var a pkix.AlgorithmIdentifier
		if !readAlgorithm(&set, &a) {
			return nil, false
		}
		out = append(out, a)
	}
	return out, true
}

// readAttributes reads the contents of a SET OF Attribute.
func readAttributes(set cryptobyte.String) ([]Attribute, bool) {
	n := countElements(set)
	if n <= 0 {
		return nil, n == 0
	}
	out := make([]Attribute, 0, n)
	for !set.Empty() {
		var attr, values cryptobyte.String
		var a Attribute
		if !set.ReadASN1(&attr, cbasn1.SEQUENCE) || !attr.ReadASN1ObjectIdentifier(&a.Type) ||
			!attr.ReadASN1(&values, cbasn1.SET) || !attr.Empty() {
			return nil, false
		}
		n := countElements(values)
		if n < 0 {
			return nil, false
		}
		a.Values = make([][]byte, 0, n)
		for !values.Empty() {
			var v cryptobyte.String
			var tag cbasn1.Tag
			if !values.ReadAnyASN1Element(&v, &tag) {
				return nil, false
			}
			a.Values = append(a.Values, v)
		}
		out = append(out, a)
	}
	return out, true
}

// readFinalAttributes reads the optional [1] IMPLICIT attribute set that
// ends a SignerInfo, EnvelopedData or EncryptedData; nothing may follow.
func readFinalAttributes(s *cryptobyte.String) ([]Attribute, bool) {
	var attrs cryptobyte.String
	var present bool
	if !s.ReadOptionalASN1(&attrs, &present, cbasn1.Tag(1).Constructed().ContextSpecific()) || !s.Empty() {
		return nil, false
	}
	return readAttributes(attrs)
}

// find returns the values of the attribute of type oid, and whether it
// occurs exactly once.
func findAttribute(attrs []Attribute, oid asn1.ObjectIdentifier) (values [][]byte, present bool, err error) {
	for _, a := range attrs {
		if a.Type.Equal(oid) {
			if present {
				return nil, true, fmt.Errorf("pkcs7: attribute %v occurs twice", oid)
			}
			values, present = a.Values, true
		}
	}
	return values, present, nil
}

// Identifier is how a SignerInfo or a RecipientInfo names a certificate:
// by issuer and serial number, or by subject key identifier.
type Identifier struct {
	RawIssuer    []byte // DER of the issuer Name; nil when SubjectKeyId is used
	SerialNumber *big.Int
	SubjectKeyId []byte
}

// readIdentifier reads IssuerAndSerialNumber or [0] IMPLICIT
// SubjectKeyIdentifier.
func readIdentifier(s *cryptobyte.String, id *Identifier) bool {
	if s.PeekASN1Tag(cbasn1.Tag(0).ContextSpecific()) {
		var ski cryptobyte.String
		if !s.ReadASN1(&ski, cbasn1.Tag(0).ContextSpecific()) {
			return false
		}
		id.SubjectKeyId = ski
		return true
	}
	var ias, issuer cryptobyte.String
	id.SerialNumber = new(big.Int)
	if !s.ReadASN1(&ias, cbasn1.SEQUENCE) || !ias.ReadASN1Element(&issuer, cbasn1.SEQUENCE) ||
		!ias.ReadASN1Integer(id.SerialNumber) || !ias.Empty() {
		return false
	}
	id.RawIssuer = issuer
	return true
}

// Matches reports whether id names cert.
func (id *Identifier) Matches(cert *smx509.Certificate) bool {
	if id.RawIssuer != nil {
		return id.SerialNumber != nil && cert.SerialNumber != nil &&
			string(id.RawIssuer) == string(cert.RawIssuer) && id.SerialNumber.Cmp(cert.SerialNumber) == 0
	}
	return len(id.SubjectKeyId) > 0 && string(id.SubjectKeyId) == string(cert.SubjectKeyId)
}

func (id *Identifier) String() string {
	if id.RawIssuer != nil {
		var name pkix.RDNSequence
		issuer := "?"
		if rest, err := asn1.Unmarshal(id.RawIssuer, &name); err == nil && len(rest) == 0 {
			var n pkix.Name
			n.FillFromRDNSequence(&name)
			issuer = n.String()
		}
		return fmt.Sprintf("issuer %q serial %x", issuer, id.SerialNumber)
	}
	return fmt.Sprintf("subject key id %x", id.SubjectKeyId)
}

// readSetOf parses each SEQUENCE of set with parse and skips the other
// choices, which CMS allows in certificate sets (attribute certificates)
// and revocation sets (other formats).
func readSetOf[T any](set cryptobyte.String, what string, parse func([]byte) (T, error)) ([]T, error) {
	var out []T
	for !set.Empty() {
		var elem cryptobyte.String
		var tag cbasn1.Tag
		if !set.ReadAnyASN1Element(&elem, &tag) {
			return nil, malformed(what + "s")
		}
		if tag != cbasn1.SEQUENCE {
			continue
		}
		v, err := parse(elem)
		if err != nil {
			return nil, fmt.Errorf("pkcs7: %s %d: %w", what, len(out), err)
		}
		out = append(out, v)
	}
	return out, nil
}

// readCertificatesAndCRLs reads the optional [0] certificates and [1] crls
// fields shared by SignedData and SignedAndEnvelopedData.
func readCertificatesAndCRLs(s *cryptobyte.String) ([]*smx509.Certificate, []*smx509.RevocationList, error) {
	var certSet, crlSet cryptobyte.String
	var hasCerts, hasCRLs bool
	if !s.ReadOptionalASN1(&certSet, &hasCerts, cbasn1.Tag(0).Constructed().ContextSpecific()) ||
		!s.ReadOptionalASN1(&crlSet, &hasCRLs, cbasn1.Tag(1).Constructed().ContextSpecific()) {
		return nil, nil, malformed("certificates or crls")
	}
	certs, err := readSetOf(certSet, "certificate", smx509.ParseCertificate)
	if err != nil {
		return nil, nil, err
	}
	crls, err := readSetOf(crlSet, "CRL", smx509.ParseRevocationList)
	if err != nil {
		return nil, nil, err
	}
	return certs, crls, nil
}
