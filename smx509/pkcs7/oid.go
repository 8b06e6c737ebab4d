package pkcs7

import (
	"encoding/asn1"

	"github.com/shangmi-go/shangmi/x509"
)

// Family selects which object identifiers name the content types in written
// messages. Parsing accepts both families everywhere.
type Family int

const (
	// GMT0010 writes the content types of GB/T 35275-2017 (GM/T 0010-2012),
	// 1.2.156.10197.6.1.4.2.x, as GmSSL 3 writes and requires them.
	GMT0010 Family = iota
	// PKCS7 writes the PKCS #7 / CMS content types 1.2.840.113549.1.7.x, as
	// Tongsuo, OpenSSL, BouncyCastle and Go's pkcs7 packages write and
	// require them.
	PKCS7
)

func (f Family) String() string {
	switch f {
	case GMT0010:
		return "GM/T 0010"
	case PKCS7:
		return "PKCS #7"
	}
	return "unknown family"
}

// ContentType is a content type of a ContentInfo, independent of the object
// identifier family it was written with.
type ContentType int

const (
	UnknownContentType ContentType = iota
	Data
	SignedDataType
	EnvelopedDataType
	SignedAndEnvelopedDataType
	DigestedDataType
	EncryptedDataType
)

var contentTypeNames = [...]string{
	UnknownContentType:         "unknown",
	Data:                       "data",
	SignedDataType:             "signedData",
	EnvelopedDataType:          "envelopedData",
	SignedAndEnvelopedDataType: "signedAndEnvelopedData",
	DigestedDataType:           "digestedData",
	EncryptedDataType:          "encryptedData",
}

func (t ContentType) String() string {
	if t >= 0 && int(t) < len(contentTypeNames) {
		return contentTypeNames[t]
	}
	return "unknown"
}

// Object identifiers of the content types, in both families. GM/T 0010 has
// no digestedData; both families write PKCS #7's.
var (
	OIDData                   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}
	OIDSignedData             = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	OIDEnvelopedData          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 3}
	OIDSignedAndEnvelopedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 4}
	OIDDigestedData           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 5}
	OIDEncryptedData          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 6}

	OIDGMData                   = asn1.ObjectIdentifier{1, 2, 156, 10197, 6, 1, 4, 2, 1}
	OIDGMSignedData             = asn1.ObjectIdentifier{1, 2, 156, 10197, 6, 1, 4, 2, 2}
	OIDGMEnvelopedData          = asn1.ObjectIdentifier{1, 2, 156, 10197, 6, 1, 4, 2, 3}
	OIDGMSignedAndEnvelopedData = asn1.ObjectIdentifier{1, 2, 156, 10197, 6, 1, 4, 2, 4}
	OIDGMEncryptedData          = asn1.ObjectIdentifier{1, 2, 156, 10197, 6, 1, 4, 2, 5}
	OIDGMKeyAgreementInfo       = asn1.ObjectIdentifier{1, 2, 156, 10197, 6, 1, 4, 2, 6}
)

// Attribute types (RFC 5652, 11; PKCS #9).
var (
	OIDAttributeContentType      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	OIDAttributeMessageDigest    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	OIDAttributeSigningTime      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 5}
	OIDAttributeCounterSignature = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 6}
)

type typeOIDs struct {
	t       ContentType
	pkcs7   asn1.ObjectIdentifier
	gmt0010 asn1.ObjectIdentifier // nil: the family has none
}

var contentTypes = []typeOIDs{
	{Data, OIDData, OIDGMData},
	{SignedDataType, OIDSignedData, OIDGMSignedData},
	{EnvelopedDataType, OIDEnvelopedData, OIDGMEnvelopedData},
	{SignedAndEnvelopedDataType, OIDSignedAndEnvelopedData, OIDGMSignedAndEnvelopedData},
	{DigestedDataType, OIDDigestedData, nil},
	{EncryptedDataType, OIDEncryptedData, OIDGMEncryptedData},
}

// contentTypeOf names oid, and the family it belongs to.
func contentTypeOf(oid asn1.ObjectIdentifier) (ContentType, Family) {
	for _, c := range contentTypes {
		if oid.Equal(c.pkcs7) {
			return c.t, PKCS7
		}
		if c.gmt0010 != nil && oid.Equal(c.gmt0010) {
			return c.t, GMT0010
		}
	}
	return UnknownContentType, PKCS7
}

// oid returns the identifier of t in family f.
func (f Family) oid(t ContentType) asn1.ObjectIdentifier {
	for _, c := range contentTypes {
		if c.t == t {
			if f == GMT0010 && c.gmt0010 != nil {
				return c.gmt0010
			}
			return c.pkcs7
		}
	}
	panic("pkcs7: internal error: no identifier for " + t.String())
}

// isSM2SignatureAlgorithm reports whether a digestEncryptionAlgorithm names
// SM2: sm2-with-sm3 (GmSSL, Tongsuo, this package), sm2-1 (gmsm, CFCA) or
// the curve identifier (older Java writers).
func isSM2SignatureAlgorithm(oid asn1.ObjectIdentifier) bool {
	return oid.Equal(x509.OIDSignatureSM2WithSM3) || oid.Equal(x509.OIDSM2Signing) || oid.Equal(x509.OIDNamedCurveSM2)
}

// isSM2EncryptionAlgorithm reports whether a keyEncryptionAlgorithm names
// SM2 encryption: sm2-3 (GB/T 35275, gmsm), sm2-2 (GmSSL) or the curve.
func isSM2EncryptionAlgorithm(oid asn1.ObjectIdentifier) bool {
	return oid.Equal(x509.OIDSM2Encryption) || oid.Equal(x509.OIDSM2KeyExchange) || oid.Equal(x509.OIDNamedCurveSM2)
}
