package smx509

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"net"
	"net/url"
	"strconv"
	"time"
)

// SignatureAlgorithm identifies a signature scheme. Values up to PureEd25519
// are those of crypto/x509; SM2WithSM3 is added after them.
type SignatureAlgorithm int

const (
	UnknownSignatureAlgorithm SignatureAlgorithm = iota
	MD2WithRSA                                   // Unsupported.
	MD5WithRSA                                   // Only supported for parsing.
	SHA1WithRSA                                  // Only supported for parsing CSRs and CRLs.
	SHA256WithRSA
	SHA384WithRSA
	SHA512WithRSA
	DSAWithSHA1   // Unsupported.
	DSAWithSHA256 // Unsupported.
	ECDSAWithSHA1 // Only supported for parsing CSRs and CRLs.
	ECDSAWithSHA256
	ECDSAWithSHA384
	ECDSAWithSHA512
	SHA256WithRSAPSS
	SHA384WithRSAPSS
	SHA512WithRSAPSS
	PureEd25519
	SM2WithSM3 // GB/T 32918 signature over SM3 with the Z prefix.
)

var signatureAlgorithmNames = [...]string{
	UnknownSignatureAlgorithm: "0",
	MD2WithRSA:                "MD2-RSA",
	MD5WithRSA:                "MD5-RSA",
	SHA1WithRSA:               "SHA1-RSA",
	SHA256WithRSA:             "SHA256-RSA",
	SHA384WithRSA:             "SHA384-RSA",
	SHA512WithRSA:             "SHA512-RSA",
	DSAWithSHA1:               "DSA-SHA1",
	DSAWithSHA256:             "DSA-SHA256",
	ECDSAWithSHA1:             "ECDSA-SHA1",
	ECDSAWithSHA256:           "ECDSA-SHA256",
	ECDSAWithSHA384:           "ECDSA-SHA384",
	ECDSAWithSHA512:           "ECDSA-SHA512",
	SHA256WithRSAPSS:          "SHA256-RSAPSS",
	SHA384WithRSAPSS:          "SHA384-RSAPSS",
	SHA512WithRSAPSS:          "SHA512-RSAPSS",
	PureEd25519:               "Ed25519",
	SM2WithSM3:                "SM2-SM3",
}

func (a SignatureAlgorithm) String() string {
	if a >= 0 && int(a) < len(signatureAlgorithmNames) && (a == 0 || signatureAlgorithmNames[a] != "") {
		return signatureAlgorithmNames[a]
	}
	return "SignatureAlgorithm(" + strconv.Itoa(int(a)) + ")"
}

// PublicKeyAlgorithm identifies a public-key algorithm. Values up to Ed25519
// are those of crypto/x509.
type PublicKeyAlgorithm int

const (
	UnknownPublicKeyAlgorithm PublicKeyAlgorithm = iota
	RSA
	DSA // Only supported for parsing.
	ECDSA
	Ed25519
	SM2
)

var publicKeyAlgorithmNames = [...]string{
	UnknownPublicKeyAlgorithm: "0",
	RSA:                       "RSA",
	DSA:                       "DSA",
	ECDSA:                     "ECDSA",
	Ed25519:                   "Ed25519",
	SM2:                       "SM2",
}

func (a PublicKeyAlgorithm) String() string {
	if a >= 0 && int(a) < len(publicKeyAlgorithmNames) {
		return publicKeyAlgorithmNames[a]
	}
	return "PublicKeyAlgorithm(" + strconv.Itoa(int(a)) + ")"
}

// KeyUsage is the set of actions a certificate's key may be used for
// (RFC 5280, 4.2.1.3). Bit values are those of crypto/x509.
type KeyUsage int

const (
	KeyUsageDigitalSignature KeyUsage = 1 << iota
	KeyUsageContentCommitment
	KeyUsageKeyEncipherment
	KeyUsageDataEncipherment
	KeyUsageKeyAgreement
	KeyUsageCertSign
	KeyUsageCRLSign
	KeyUsageEncipherOnly
	KeyUsageDecipherOnly
)

// ExtKeyUsage is an extended key usage purpose. Values are those of
// crypto/x509.
type ExtKeyUsage int

const (
	ExtKeyUsageAny ExtKeyUsage = iota
	ExtKeyUsageServerAuth
	ExtKeyUsageClientAuth
	ExtKeyUsageCodeSigning
	ExtKeyUsageEmailProtection
	ExtKeyUsageIPSECEndSystem
	ExtKeyUsageIPSECTunnel
	ExtKeyUsageIPSECUser
	ExtKeyUsageTimeStamping
	ExtKeyUsageOCSPSigning
	ExtKeyUsageMicrosoftServerGatedCrypto
	ExtKeyUsageNetscapeServerGatedCrypto
	ExtKeyUsageMicrosoftCommercialCodeSigning
	ExtKeyUsageMicrosoftKernelCodeSigning
)

var extKeyUsageOIDs = []struct {
	usage ExtKeyUsage
	oid   asn1.ObjectIdentifier
}{
	{ExtKeyUsageAny, asn1.ObjectIdentifier{2, 5, 29, 37, 0}},
	{ExtKeyUsageServerAuth, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 1}},
	{ExtKeyUsageClientAuth, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 2}},
	{ExtKeyUsageCodeSigning, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 3}},
	{ExtKeyUsageEmailProtection, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 4}},
	{ExtKeyUsageIPSECEndSystem, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 5}},
	{ExtKeyUsageIPSECTunnel, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 6}},
	{ExtKeyUsageIPSECUser, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 7}},
	{ExtKeyUsageTimeStamping, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 8}},
	{ExtKeyUsageOCSPSigning, asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 9}},
	{ExtKeyUsageMicrosoftServerGatedCrypto, asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 10, 3, 3}},
	{ExtKeyUsageNetscapeServerGatedCrypto, asn1.ObjectIdentifier{2, 16, 840, 1, 113730, 4, 1}},
	{ExtKeyUsageMicrosoftCommercialCodeSigning, asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 2, 1, 22}},
	{ExtKeyUsageMicrosoftKernelCodeSigning, asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 61, 1, 1}},
}

func oidFromExtKeyUsage(u ExtKeyUsage) (asn1.ObjectIdentifier, bool) {
	for _, e := range extKeyUsageOIDs {
		if u == e.usage {
			return e.oid, true
		}
	}
	return nil, false
}

// Certificate is an X.509 v1–v3 certificate. Field names and meanings are
// those of crypto/x509.Certificate.
type Certificate struct {
	Raw                     []byte // Complete ASN.1 DER content (certificate, signature algorithm and signature).
	RawTBSCertificate       []byte // Certificate part of raw ASN.1 DER content.
	RawSubjectPublicKeyInfo []byte // DER encoded SubjectPublicKeyInfo.
	RawSubject              []byte // DER encoded Subject
	RawIssuer               []byte // DER encoded Issuer

	Signature          []byte
	SignatureAlgorithm SignatureAlgorithm

	PublicKeyAlgorithm PublicKeyAlgorithm
	// PublicKey is *sm2.PublicKey, *rsa.PublicKey, *ecdsa.PublicKey,
	// ed25519.PublicKey or *ecdh.PublicKey (X25519), or nil for unsupported
	// algorithms.
	PublicKey any

	Version             int
	SerialNumber        *big.Int
	Issuer              pkix.Name
	Subject             pkix.Name
	NotBefore, NotAfter time.Time // Validity bounds.
	KeyUsage            KeyUsage

	// Extensions holds every extension as parsed; ExtraExtensions is copied
	// into created certificates and overrides extensions derived from other
	// fields.
	Extensions      []pkix.Extension
	ExtraExtensions []pkix.Extension

	// UnhandledCriticalExtensions lists critical extensions this package
	// does not process; Verify fails if it is not empty. Unlike
	// crypto/x509, this package does not validate certificate policies
	// (RFC 5280 §6.1), so a critical policyMappings, policyConstraints or
	// inhibitAnyPolicy extension is listed here.
	UnhandledCriticalExtensions []asn1.ObjectIdentifier

	ExtKeyUsage        []ExtKeyUsage           // Sequence of extended key usages.
	UnknownExtKeyUsage []asn1.ObjectIdentifier // Encountered extended key usages unknown to this package.

	// BasicConstraintsValid indicates whether IsCA, MaxPathLen and
	// MaxPathLenZero are valid.
	BasicConstraintsValid bool
	IsCA                  bool

	// MaxPathLen is the path length constraint: -1 means unset. When
	// creating a certificate, MaxPathLen 0 with MaxPathLenZero false is
	// also treated as unset.
	MaxPathLen     int
	MaxPathLenZero bool

	SubjectKeyId   []byte
	AuthorityKeyId []byte

	// Authority information access (RFC 5280, 4.2.2.1).
	OCSPServer            []string
	IssuingCertificateURL []string

	// Subject alternative names.
	DNSNames       []string
	EmailAddresses []string
	IPAddresses    []net.IP
	URIs           []*url.URL

	// Name constraints.
	PermittedDNSDomainsCritical bool // if true then the name constraints are marked critical.
	PermittedDNSDomains         []string
	ExcludedDNSDomains          []string
	PermittedIPRanges           []*net.IPNet
	ExcludedIPRanges            []*net.IPNet
	PermittedEmailAddresses     []string
	ExcludedEmailAddresses      []string
	PermittedURIDomains         []string
	ExcludedURIDomains          []string

	// CRL distribution points.
	CRLDistributionPoints []string

	PolicyIdentifiers []asn1.ObjectIdentifier
}

// Equal reports whether c and other are the same certificate (same DER).
func (c *Certificate) Equal(other *Certificate) bool {
	if c == nil || other == nil {
		return c == other
	}
	return string(c.Raw) == string(other.Raw)
}

// IsTLCPSignCert reports whether c can be the signing certificate of a TLCP
// double-certificate pair (GB/T 38636-2020; tlcp/INTEROP.md §5): an end-entity SM2
// certificate whose key usage, if the extension is present, includes
// digitalSignature. As in Tencent Kona and RFC 5280, a certificate without a
// key-usage extension is not restricted and qualifies for both roles; CA
// certificates qualify for neither.
func (c *Certificate) IsTLCPSignCert() bool {
	return c.isTLCPLeaf() && (c.KeyUsage == 0 || c.KeyUsage&KeyUsageDigitalSignature != 0)
}

// IsTLCPEncCert reports whether c can be the encryption certificate of a TLCP
// double-certificate pair: an end-entity SM2 certificate whose key usage, if
// present, includes keyEncipherment, dataEncipherment or keyAgreement (the
// key decrypts the ECC premaster or takes part in the SM2 key exchange).
func (c *Certificate) IsTLCPEncCert() bool {
	const enc = KeyUsageKeyEncipherment | KeyUsageDataEncipherment | KeyUsageKeyAgreement
	return c.isTLCPLeaf() && (c.KeyUsage == 0 || c.KeyUsage&enc != 0)
}

func (c *Certificate) isTLCPLeaf() bool {
	return c.PublicKeyAlgorithm == SM2 && !(c.BasicConstraintsValid && c.IsCA)
}
