package smx509

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	smx "github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// isPrintable reports whether b may appear in a PrintableString. '*' and '&'
// are tolerated as crypto/x509 does; '@' and '_' are tolerated because SM2
// certificates from several Chinese CA products put e-mail addresses and
// identifiers with underscores into PrintableString attributes.
func isPrintable(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		'\'' <= b && b <= ')' || '+' <= b && b <= '/' ||
		b == ' ' || b == ':' || b == '=' || b == '?' ||
		b == '*' || b == '&' || b == '@' || b == '_'
}

// parseASN1String decodes the string types that appear in names.
// Strings that are the DER bytes themselves come from strs (which may be nil).
func parseASN1String(tag cbasn1.Tag, value []byte, strs *derStrings) (string, error) {
	switch tag {
	case cbasn1.T61String:
		// Treated as ISO 8859-1, the common practice.
		var sb strings.Builder
		for _, c := range value {
			sb.WriteRune(rune(c))
		}
		return sb.String(), nil
	case cbasn1.PrintableString:
		for _, c := range value {
			if !isPrintable(c) {
				return "", errors.New("invalid PrintableString")
			}
		}
		return strs.str(value), nil
	case cbasn1.UTF8String:
		if !utf8.Valid(value) {
			return "", errors.New("invalid UTF-8 string")
		}
		return strs.str(value), nil
	case cbasn1.Tag(asn1.TagBMPString):
		if len(value)%2 != 0 {
			return "", errors.New("invalid BMPString")
		}
		// Drop a trailing NUL, which some encoders add.
		if l := len(value); l >= 2 && value[l-1] == 0 && value[l-2] == 0 {
			value = value[:l-2]
		}
		s := make([]uint16, 0, len(value)/2)
		for ; len(value) > 0; value = value[2:] {
			s = append(s, uint16(value[0])<<8|uint16(value[1]))
		}
		return string(utf16.Decode(s)), nil
	case cbasn1.IA5String:
		if !isIA5(value) {
			return "", errors.New("invalid IA5String")
		}
		return strs.str(value), nil
	case cbasn1.Tag(asn1.TagNumericString):
		for _, c := range value {
			if !('0' <= c && c <= '9' || c == ' ') {
				return "", errors.New("invalid NumericString")
			}
		}
		return strs.str(value), nil
	}
	return "", fmt.Errorf("unsupported string type %v", tag)
}

func isIA5(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isIA5String(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

var errMalformedName = errors.New("x509: malformed name")

// nameFieldIndex maps the attribute types that pkix.Name keeps in a []string
// field (2.5.4.x, by x) to a slot of nameFields.
func nameFieldIndex(oid asn1.ObjectIdentifier) int {
	if len(oid) != 4 || oid[0] != 2 || oid[1] != 5 || oid[2] != 4 {
		return -1
	}
	switch oid[3] {
	case 6:
		return 0
	case 7:
		return 1
	case 8:
		return 2
	case 9:
		return 3
	case 10:
		return 4
	case 11:
		return 5
	case 17:
		return 6
	}
	return -1
}

func nameFields(n *pkix.Name) [7]*[]string {
	return [7]*[]string{&n.Country, &n.Locality, &n.Province, &n.StreetAddress,
		&n.Organization, &n.OrganizationalUnit, &n.PostalCode}
}

// trailingData is the error for data after the last field of a structure
// in a certificate or CRL: after a TBSCertificate's last field for its
// version (subjectPublicKeyInfo in v1, the unique identifiers in v2,
// extensions in v3), after a TBSCertList's crlExtensions, after an
// Extension's extnValue, after the signature, and inside the structures
// the parser reads (names, algorithm identifiers, validity, key usage,
// basic constraints, key identifiers). DER allows none of it. crypto/x509
// ignores it in most of those places (it parses a v1 certificate whose
// extensions it never reads, or a name constraint behind the last field);
// signed bytes that one parser reads and another skips are bytes whose
// meaning depends on the parser, so this package refuses them everywhere.
// It is the one documented place where this package is stricter than
// crypto/x509, and the fuzz targets compare the two everywhere else.
type trailingData string

func (e trailingData) Error() string { return "x509: " + string(e) + ": data after its last field" }

var (
	errCRLTrailingFields       error = trailingData("malformed tbs cert list")
	errTBSTrailingFields       error = trailingData("malformed tbs certificate (or fields its version does not allow)")
	errExtensionTrailingFields error = trailingData("malformed extension")
)

// parseName parses an RDNSequence (raw includes its SEQUENCE header) into
// name. The result is what pkix.Name.FillFromRDNSequence makes of the
// sequence, but built with a handful of allocations per name rather than
// several per attribute: the attributes are counted first, their object
// identifiers share one buffer, their strings come from strs (which may be
// nil), and the []string fields share one backing array.
func parseName(raw cryptobyte.String, strs *derStrings, name *pkix.Name) error {
	if !raw.ReadASN1(&raw, cbasn1.SEQUENCE) {
		return errMalformedName
	}
	// First pass: check the structure of every attribute and count them
	// and their identifiers' components, so that what is allocated below
	// is what the name holds, never more than a malformed one claims.
	n, components := 0, 0
	for rest := raw; !rest.Empty(); {
		var set cryptobyte.String
		if !rest.ReadASN1(&set, cbasn1.SET) {
			return errMalformedName
		}
		for !set.Empty() {
			var atav, value cryptobyte.String
			var valueTag cbasn1.Tag
			if !set.ReadASN1(&atav, cbasn1.SEQUENCE) {
				return errMalformedName
			}
			k, ok := skipOID(&atav)
			if !ok || !atav.ReadAnyASN1(&value, &valueTag) {
				return errMalformedName
			}
			if !atav.Empty() {
				return trailingData("malformed name")
			}
			n++
			components += k
		}
	}
	if n == 0 {
		return nil
	}

	names := make([]pkix.AttributeTypeAndValue, 0, n)
	oids := make(oidBuffer, 0, components)
	var counts [7]int
	for !raw.Empty() {
		var set cryptobyte.String
		raw.ReadASN1(&set, cbasn1.SET)
		for !set.Empty() {
			var atav, value cryptobyte.String
			var valueTag cbasn1.Tag
			set.ReadASN1(&atav, cbasn1.SEQUENCE)
			oid, ok := oids.read(&atav)
			if !ok || !atav.ReadAnyASN1(&value, &valueTag) {
				return errMalformedName
			}
			if !atav.Empty() {
				return trailingData("malformed name")
			}
			s, err := parseASN1String(valueTag, value, strs)
			if err != nil {
				return fmt.Errorf("x509: invalid name attribute %v: %w", oid, err)
			}
			names = append(names, pkix.AttributeTypeAndValue{Type: oid, Value: s})
			if i := nameFieldIndex(oid); i >= 0 {
				counts[i]++
			}
		}
	}

	name.Names = names
	total := 0
	for _, c := range counts {
		total += c
	}
	var backing []string
	if total > 0 {
		backing = make([]string, total)
	}
	fields := nameFields(name)
	for i, c := range counts {
		if c > 0 {
			*fields[i] = backing[:0:c]
			backing = backing[c:]
		}
	}
	for _, atv := range names {
		s := atv.Value.(string)
		if i := nameFieldIndex(atv.Type); i >= 0 {
			*fields[i] = append(*fields[i], s)
			continue
		}
		if t := atv.Type; len(t) == 4 && t[0] == 2 && t[1] == 5 && t[2] == 4 {
			switch t[3] {
			case 3:
				name.CommonName = s
			case 5:
				name.SerialNumber = s
			}
		}
	}
	return nil
}

// parseAlgorithmIdentifier parses an AlgorithmIdentifier, keeping the
// parameters' DER (if any) in Parameters.FullBytes.
func parseAlgorithmIdentifier(der cryptobyte.String) (pkix.AlgorithmIdentifier, error) {
	var ai pkix.AlgorithmIdentifier
	if !der.ReadASN1ObjectIdentifier(&ai.Algorithm) {
		return ai, errors.New("x509: malformed algorithm identifier")
	}
	if der.Empty() {
		return ai, nil
	}
	var params cryptobyte.String
	var tag cbasn1.Tag
	if !der.ReadAnyASN1Element(&params, &tag) {
		return ai, errors.New("x509: malformed algorithm identifier parameters")
	}
	if !der.Empty() {
		return ai, trailingData("malformed algorithm identifier")
	}
	ai.Parameters.Tag = int(tag & 0x1f)
	ai.Parameters.FullBytes = params
	return ai, nil
}

var (
	errMalformedUTCTime         = errors.New("x509: malformed UTCTime")
	errMalformedGeneralizedTime = errors.New("x509: malformed GeneralizedTime")
	errUnsupportedTimeFormat    = errors.New("x509: unsupported time format")
)

func parseTime(der *cryptobyte.String) (time.Time, error) {
	var t time.Time
	switch {
	case der.PeekASN1Tag(cbasn1.UTCTime):
		if !readTime(der, &t) {
			return t, errMalformedUTCTime
		}
	case der.PeekASN1Tag(cbasn1.GeneralizedTime):
		if !readTime(der, &t) {
			return t, errMalformedGeneralizedTime
		}
	default:
		return t, errUnsupportedTimeFormat
	}
	return t, nil
}

func parseValidity(der cryptobyte.String) (time.Time, time.Time, error) {
	notBefore, err := parseTime(&der)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	notAfter, err := parseTime(&der)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	if !der.Empty() {
		return time.Time{}, time.Time{}, trailingData("malformed validity")
	}
	return notBefore, notAfter, nil
}

// parseSPKI parses a SubjectPublicKeyInfo element, returning the key (nil for
// algorithms this package does not know) and its algorithm.
func parseSPKI(spki []byte) (any, PublicKeyAlgorithm, error) {
	s := cryptobyte.String(spki)
	var inner, algo cryptobyte.String
	if !s.ReadASN1(&inner, cbasn1.SEQUENCE) || !inner.ReadASN1(&algo, cbasn1.SEQUENCE) {
		return nil, 0, errors.New("x509: malformed subject public key info")
	}
	if bytes.Equal(algo, sm2PublicKeyAlgorithmContent) {
		// The usual SM2 identifier, recognised without decoding it.
		pub, err := smx.ParsePKIXPublicKey(spki)
		if err != nil {
			return nil, SM2, err
		}
		return pub, SM2, nil
	}
	var oid asn1.ObjectIdentifier
	if !algo.ReadASN1ObjectIdentifier(&oid) {
		return nil, 0, errors.New("x509: malformed subject public key info")
	}
	pkAlgo := getPublicKeyAlgorithm(oid, algo)
	switch pkAlgo {
	case UnknownPublicKeyAlgorithm, DSA:
		if !oid.Equal(smx.OIDPublicKeyX25519) {
			// Like crypto/x509: an unknown key does not make the
			// certificate unreadable, only unusable for verification.
			return nil, pkAlgo, nil
		}
	}
	pub, err := smx.ParsePKIXPublicKey(spki)
	if err != nil {
		return nil, pkAlgo, err
	}
	return pub, pkAlgo, nil
}

// ParseCertificate parses a single certificate from ASN.1 DER data.
func ParseCertificate(der []byte) (*Certificate, error) {
	cert, err := parseCertificate(der)
	if err != nil {
		return nil, err
	}
	if len(der) != len(cert.Raw) {
		return nil, errors.New("x509: trailing data")
	}
	return cert, nil
}

// ParseCertificates parses one or more concatenated DER certificates.
func ParseCertificates(der []byte) ([]*Certificate, error) {
	var certs []*Certificate
	for len(der) > 0 {
		cert, err := parseCertificate(der)
		if err != nil {
			return nil, err
		}
		certs = append(certs, cert)
		der = der[len(cert.Raw):]
	}
	return certs, nil
}

// ParseCertificatePEM parses the first CERTIFICATE block of pemBytes.
func ParseCertificatePEM(pemBytes []byte) (*Certificate, error) {
	for rest := pemBytes; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("x509: no CERTIFICATE block found in PEM data")
		}
		if block.Type == smx.PEMTypeCertificate {
			return ParseCertificate(block.Bytes)
		}
	}
}

func parseCertificate(der []byte) (*Certificate, error) {
	cert := &Certificate{}

	input := cryptobyte.String(der)
	// The outer SEQUENCE is read as an element first so that Raw covers
	// exactly the certificate even when more data follows.
	if !input.ReadASN1Element(&input, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed certificate")
	}
	cert.Raw = input
	if !input.ReadASN1(&input, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed certificate")
	}

	var tbs cryptobyte.String
	if !input.ReadASN1Element(&tbs, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed tbs certificate")
	}
	cert.RawTBSCertificate = tbs
	// Every string of the certificate (names, SANs, URLs) is a substring
	// of this one conversion.
	strs := newDERStrings(tbs)
	if !tbs.ReadASN1(&tbs, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed tbs certificate")
	}

	if !tbs.ReadOptionalASN1Integer(&cert.Version, cbasn1.Tag(0).Constructed().ContextSpecific(), 0) {
		return nil, errors.New("x509: malformed version")
	}
	if cert.Version < 0 || cert.Version > 2 {
		return nil, errors.New("x509: invalid version")
	}
	// Like crypto/x509, Version is 1-based in the API.
	cert.Version++

	// Negative serial numbers violate RFC 5280 but were issued by several
	// CA products (including SM2 ones); they are accepted, as crypto/x509
	// did before Go 1.23.
	serial := new(big.Int)
	if !tbs.ReadASN1Integer(serial) {
		return nil, errors.New("x509: malformed serial number")
	}
	cert.SerialNumber = serial

	var sigAISeq cryptobyte.String
	if !tbs.ReadASN1(&sigAISeq, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed signature algorithm identifier")
	}
	// The outer signature algorithm must match the inner one (RFC 5280,
	// 4.1.1.2); comparing the DER is exact and cheap.
	var outerSigAISeq cryptobyte.String
	if !input.ReadASN1(&outerSigAISeq, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed algorithm identifier")
	}
	if !bytes.Equal(outerSigAISeq, sigAISeq) {
		return nil, errors.New("x509: inner and outer signature algorithm identifiers don't match")
	}
	var err error
	if cert.SignatureAlgorithm, err = parseSignatureAlgorithm(sigAISeq); err != nil {
		return nil, err
	}

	var issuerSeq cryptobyte.String
	if !tbs.ReadASN1Element(&issuerSeq, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed issuer")
	}
	cert.RawIssuer = issuerSeq
	if err := parseName(issuerSeq, strs, &cert.Issuer); err != nil {
		return nil, err
	}

	var validity cryptobyte.String
	if !tbs.ReadASN1(&validity, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed validity")
	}
	cert.NotBefore, cert.NotAfter, err = parseValidity(validity)
	if err != nil {
		return nil, err
	}

	var subjectSeq cryptobyte.String
	if !tbs.ReadASN1Element(&subjectSeq, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed subject")
	}
	cert.RawSubject = subjectSeq
	if err := parseName(subjectSeq, strs, &cert.Subject); err != nil {
		return nil, err
	}

	var spki cryptobyte.String
	if !tbs.ReadASN1Element(&spki, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed spki")
	}
	cert.RawSubjectPublicKeyInfo = spki
	cert.PublicKey, cert.PublicKeyAlgorithm, err = parseSPKI(spki)
	if err != nil {
		return nil, err
	}

	if cert.Version > 1 {
		if !tbs.SkipOptionalASN1(cbasn1.Tag(1).ContextSpecific()) ||
			!tbs.SkipOptionalASN1(cbasn1.Tag(2).ContextSpecific()) {
			return nil, errors.New("x509: malformed unique identifiers")
		}
		if cert.Version == 3 {
			var extensions cryptobyte.String
			var present bool
			if !tbs.ReadOptionalASN1(&extensions, &present, cbasn1.Tag(3).Constructed().ContextSpecific()) {
				return nil, errors.New("x509: malformed extensions")
			}
			if present {
				if err := parseCertificateExtensions(cert, extensions, strs); err != nil {
					return nil, err
				}
			}
		}
	}
	if !tbs.Empty() {
		return nil, errTBSTrailingFields
	}

	var signature asn1.BitString
	if !input.ReadASN1BitString(&signature) {
		return nil, errors.New("x509: malformed signature")
	}
	if !input.Empty() {
		return nil, trailingData("malformed certificate")
	}
	cert.Signature = signature.RightAlign()
	return cert, nil
}

// readExtensions parses an Extensions SEQUENCE (the content of the [3] or
// [0] wrapper).
func readExtensions(der cryptobyte.String) ([]pkix.Extension, error) {
	if !der.ReadASN1(&der, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: malformed extensions")
	}
	// First pass: check every extension and count them and their
	// identifiers' components, so that the allocations below are exactly
	// what the list holds.
	n, components := 0, 0
	for rest := der; !rest.Empty(); n++ {
		var extension cryptobyte.String
		if !rest.ReadASN1(&extension, cbasn1.SEQUENCE) {
			return nil, errors.New("x509: malformed extension")
		}
		k, ok := skipOID(&extension)
		if !ok {
			return nil, errors.New("x509: malformed extension OID field")
		}
		components += k
		// DER forbids encoding critical's default, FALSE, but
		// certificates that do are in use and crypto/x509 takes them:
		// the value is read either way.
		if extension.PeekASN1Tag(cbasn1.BOOLEAN) {
			var critical bool
			if !extension.ReadASN1Boolean(&critical) {
				return nil, errors.New("x509: malformed extension critical field")
			}
		}
		if !extension.SkipASN1(cbasn1.OCTET_STRING) {
			return nil, errors.New("x509: malformed extension value field")
		}
		if !extension.Empty() {
			return nil, errExtensionTrailingFields
		}
	}
	exts := make([]pkix.Extension, n)
	oids := make(oidBuffer, 0, components)
	for i := range exts {
		var extension cryptobyte.String
		der.ReadASN1(&extension, cbasn1.SEQUENCE)
		ext := &exts[i]
		ext.Id, _ = oids.read(&extension)
		if extension.PeekASN1Tag(cbasn1.BOOLEAN) {
			extension.ReadASN1Boolean(&ext.Critical)
		}
		var val cryptobyte.String
		extension.ReadASN1(&val, cbasn1.OCTET_STRING)
		ext.Value = val
	}
	return exts, nil
}

// duplicateExtension returns the identifier of an extension that appears
// twice in exts, if any. Certificates carry a handful of extensions, for
// which a quadratic scan is cheapest; a long list is sorted instead, so
// that a hostile one costs n log n comparisons, not n².
func duplicateExtension(exts []pkix.Extension) (asn1.ObjectIdentifier, bool) {
	if len(exts) <= 16 {
		for i, e := range exts {
			for _, prev := range exts[:i] {
				if prev.Id.Equal(e.Id) {
					return e.Id, true
				}
			}
		}
		return nil, false
	}
	ids := make([]asn1.ObjectIdentifier, len(exts))
	for i := range exts {
		ids[i] = exts[i].Id
	}
	slices.SortFunc(ids, func(a, b asn1.ObjectIdentifier) int { return slices.Compare(a, b) })
	for i := 1; i < len(ids); i++ {
		if ids[i].Equal(ids[i-1]) {
			return ids[i], true
		}
	}
	return nil, false
}

var (
	oidExtensionSubjectKeyId          = asn1.ObjectIdentifier{2, 5, 29, 14}
	oidExtensionKeyUsage              = asn1.ObjectIdentifier{2, 5, 29, 15}
	oidExtensionSubjectAltName        = asn1.ObjectIdentifier{2, 5, 29, 17}
	oidExtensionBasicConstraints      = asn1.ObjectIdentifier{2, 5, 29, 19}
	oidExtensionCRLNumber             = asn1.ObjectIdentifier{2, 5, 29, 20}
	oidExtensionReasonCode            = asn1.ObjectIdentifier{2, 5, 29, 21}
	oidExtensionNameConstraints       = asn1.ObjectIdentifier{2, 5, 29, 30}
	oidExtensionCRLDistributionPoints = asn1.ObjectIdentifier{2, 5, 29, 31}
	oidExtensionCertificatePolicies   = asn1.ObjectIdentifier{2, 5, 29, 32}
	oidExtensionAuthorityKeyId        = asn1.ObjectIdentifier{2, 5, 29, 35}
	oidExtensionExtendedKeyUsage      = asn1.ObjectIdentifier{2, 5, 29, 37}
	oidExtensionAuthorityInfoAccess   = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 1}
	oidExtensionRequest               = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 14}

	oidAuthorityInfoAccessOCSP    = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1}
	oidAuthorityInfoAccessIssuers = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 2}
)

func parseCertificateExtensions(cert *Certificate, der cryptobyte.String, strs *derStrings) error {
	exts, err := readExtensions(der)
	if err != nil {
		return err
	}
	cert.Extensions = exts
	if id, dup := duplicateExtension(exts); dup {
		return fmt.Errorf("x509: certificate contains duplicate extension %v", id)
	}
	// Growing UnhandledCriticalExtensions by append would allocate
	// several times its final size for a long list; ordinary
	// certificates have two or three critical extensions, all handled.
	critical := 0
	for _, e := range exts {
		if e.Critical {
			critical++
		}
	}
	if critical > 4 {
		cert.UnhandledCriticalExtensions = make([]asn1.ObjectIdentifier, 0, critical)
	}
	for _, e := range exts {
		if err := processCertificateExtension(cert, e, strs); err != nil {
			return err
		}
	}
	if len(cert.UnhandledCriticalExtensions) == 0 {
		cert.UnhandledCriticalExtensions = nil
	}
	return nil
}

// Extension identifiers under id-ce (2.5.29), by their last component.
const (
	idceSubjectKeyId          = 14
	idceKeyUsage              = 15
	idceSubjectAltName        = 17
	idceBasicConstraints      = 19
	idceNameConstraints       = 30
	idceCRLDistributionPoints = 31
	idceCertificatePolicies   = 32
	idceAuthorityKeyId        = 35
	idceExtendedKeyUsage      = 37
)

func processCertificateExtension(cert *Certificate, e pkix.Extension, strs *derStrings) error {
	unhandled := false
	var err error
	id := -1
	if len(e.Id) == 4 && e.Id[0] == 2 && e.Id[1] == 5 && e.Id[2] == 29 {
		id = e.Id[3]
	}
	switch {
	case id == idceKeyUsage:
		cert.KeyUsage, err = parseKeyUsageExtension(e.Value)
	case id == idceBasicConstraints:
		cert.IsCA, cert.MaxPathLen, err = parseBasicConstraintsExtension(e.Value)
		cert.BasicConstraintsValid = err == nil
		cert.MaxPathLenZero = cert.MaxPathLen == 0
	case id == idceSubjectAltName:
		cert.DNSNames, cert.EmailAddresses, cert.IPAddresses, cert.URIs, err = parseSANExtension(e.Value, strs)
		if err == nil && len(cert.DNSNames)+len(cert.EmailAddresses)+len(cert.IPAddresses)+len(cert.URIs) == 0 {
			// Only other name forms; keep the extension unhandled if
			// critical so Verify does not silently ignore it.
			unhandled = true
		}
	case id == idceNameConstraints:
		unhandled, err = parseNameConstraintsExtension(cert, e)
	case id == idceCRLDistributionPoints:
		cert.CRLDistributionPoints, err = parseCRLDistributionPoints(e.Value, strs)
	case id == idceAuthorityKeyId:
		cert.AuthorityKeyId, err = parseAuthorityKeyId(e.Value)
	case id == idceExtendedKeyUsage:
		cert.ExtKeyUsage, cert.UnknownExtKeyUsage, err = parseExtKeyUsageExtension(e.Value)
	case id == idceSubjectKeyId:
		s := cryptobyte.String(e.Value)
		var skid []byte
		if !s.ReadASN1Bytes(&skid, cbasn1.OCTET_STRING) {
			err = errors.New("x509: invalid subject key identifier")
		} else if !s.Empty() {
			err = trailingData("invalid subject key identifier")
		}
		cert.SubjectKeyId = skid
	case id == idceCertificatePolicies:
		cert.PolicyIdentifiers, err = parseCertificatePolicies(e.Value)
	case e.Id.Equal(oidExtensionAuthorityInfoAccess):
		cert.OCSPServer, cert.IssuingCertificateURL, err = parseAuthorityInfoAccess(e.Value, strs)
	default:
		unhandled = true
	}
	if err != nil {
		return err
	}
	if e.Critical && unhandled {
		cert.UnhandledCriticalExtensions = append(cert.UnhandledCriticalExtensions, e.Id)
	}
	return nil
}

func parseKeyUsageExtension(der cryptobyte.String) (KeyUsage, error) {
	var usageBits asn1.BitString
	if !der.ReadASN1BitString(&usageBits) {
		return 0, errors.New("x509: invalid key usage")
	}
	if !der.Empty() {
		return 0, trailingData("invalid key usage")
	}
	var usage int
	for i := 0; i < 9; i++ {
		if usageBits.At(i) != 0 {
			usage |= 1 << uint(i)
		}
	}
	return KeyUsage(usage), nil
}

func parseBasicConstraintsExtension(der cryptobyte.String) (bool, int, error) {
	var isCA bool
	if !der.ReadASN1(&der, cbasn1.SEQUENCE) {
		return false, 0, errors.New("x509: invalid basic constraints")
	}
	if der.PeekASN1Tag(cbasn1.BOOLEAN) {
		if !der.ReadASN1Boolean(&isCA) {
			return false, 0, errors.New("x509: invalid basic constraints")
		}
	}
	maxPathLen := -1
	if der.PeekASN1Tag(cbasn1.INTEGER) {
		if !der.ReadASN1Integer(&maxPathLen) || maxPathLen < 0 {
			return false, 0, errors.New("x509: invalid basic constraints")
		}
	}
	if !der.Empty() {
		return false, 0, trailingData("invalid basic constraints")
	}
	return isCA, maxPathLen, nil
}

const (
	nameTypeEmail = 1
	nameTypeDNS   = 2
	nameTypeURI   = 6
	nameTypeIP    = 7
)

// parseSANExtension parses a SubjectAltName extension. The names of each
// kind are counted first so that each slice is allocated once; strings come
// from strs (which may be nil).
func parseSANExtension(der cryptobyte.String, strs *derStrings) (dnsNames, emailAddresses []string, ipAddresses []net.IP, uris []*url.URL, err error) {
	if !der.ReadASN1(&der, cbasn1.SEQUENCE) {
		return nil, nil, nil, nil, errors.New("x509: invalid general names")
	}
	var counts [nameTypeIP + 1]int
	for rest := der; !rest.Empty(); {
		var tag cbasn1.Tag
		var skipped cryptobyte.String
		if !rest.ReadAnyASN1(&skipped, &tag) {
			return nil, nil, nil, nil, errors.New("x509: invalid general name")
		}
		if t := tag ^ cbasn1.Tag(0x80); t < cbasn1.Tag(len(counts)) {
			counts[t]++
		}
	}
	if c := counts[nameTypeEmail]; c > 0 {
		emailAddresses = make([]string, 0, c)
	}
	if c := counts[nameTypeDNS]; c > 0 {
		dnsNames = make([]string, 0, c)
	}
	if c := counts[nameTypeURI]; c > 0 {
		uris = make([]*url.URL, 0, c)
	}
	if c := counts[nameTypeIP]; c > 0 {
		ipAddresses = make([]net.IP, 0, c)
	}
	for !der.Empty() {
		var data cryptobyte.String
		var tag cbasn1.Tag
		der.ReadAnyASN1(&data, &tag)
		switch tag ^ cbasn1.Tag(0x80) {
		case nameTypeEmail:
			if !isIA5(data) {
				return nil, nil, nil, nil, errors.New("x509: SAN rfc822Name is malformed")
			}
			emailAddresses = append(emailAddresses, strs.str(data))
		case nameTypeDNS:
			if !isIA5(data) {
				return nil, nil, nil, nil, errors.New("x509: SAN dNSName is malformed")
			}
			dnsNames = append(dnsNames, strs.str(data))
		case nameTypeURI:
			if !isIA5(data) {
				return nil, nil, nil, nil, errors.New("x509: SAN uniformResourceIdentifier is malformed")
			}
			s := strs.str(data)
			u, err := url.Parse(s)
			if err != nil {
				return nil, nil, nil, nil, fmt.Errorf("x509: cannot parse URI %q: %w", s, err)
			}
			if len(u.Host) > 0 {
				if !validDomain(u.Host) && net.ParseIP(u.Host) == nil {
					return nil, nil, nil, nil, fmt.Errorf("x509: cannot parse URI %q: invalid domain", s)
				}
			}
			uris = append(uris, u)
		case nameTypeIP:
			switch len(data) {
			case net.IPv4len, net.IPv6len:
				ipAddresses = append(ipAddresses, append(net.IP(nil), data...))
			default:
				return nil, nil, nil, nil, fmt.Errorf("x509: cannot parse IP address of length %d", len(data))
			}
		}
	}
	return dnsNames, emailAddresses, ipAddresses, uris, nil
}

func parseAuthorityKeyId(der cryptobyte.String) ([]byte, error) {
	var akid cryptobyte.String
	if !der.ReadASN1(&akid, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: invalid authority key identifier")
	}
	if !der.Empty() {
		return nil, trailingData("invalid authority key identifier")
	}
	var keyID []byte
	if akid.PeekASN1Tag(cbasn1.Tag(0).ContextSpecific()) {
		var v cryptobyte.String
		if !akid.ReadASN1(&v, cbasn1.Tag(0).ContextSpecific()) {
			return nil, errors.New("x509: invalid authority key identifier")
		}
		keyID = v
	}
	return keyID, nil
}

// extKeyUsageContents are the DER contents of the extKeyUsageOIDs, so that
// the usual purposes are recognised without decoding their identifiers.
var extKeyUsageContents = func() [][]byte {
	out := make([][]byte, len(extKeyUsageOIDs))
	for i, e := range extKeyUsageOIDs {
		out[i] = oidContent(e.oid)
	}
	return out
}()

func parseExtKeyUsageExtension(der cryptobyte.String) ([]ExtKeyUsage, []asn1.ObjectIdentifier, error) {
	if !der.ReadASN1(&der, cbasn1.SEQUENCE) {
		return nil, nil, errors.New("x509: invalid extended key usages")
	}
	// First pass: check the identifiers and count the known and the
	// unknown ones, so that each slice is allocated once, at its size.
	known, unknown, components := 0, 0, 0
	for rest := der; !rest.Empty(); {
		elem := rest
		var content cryptobyte.String
		k, ok := skipOID(&rest)
		if !ok {
			return nil, nil, errors.New("x509: invalid extended key usages")
		}
		elem.ReadASN1(&content, cbasn1.OBJECT_IDENTIFIER)
		if _, ok := extKeyUsageFromContent(content); ok {
			known++
		} else {
			unknown++
			components += k
		}
	}
	var usages []ExtKeyUsage
	var others []asn1.ObjectIdentifier
	if known > 0 {
		usages = make([]ExtKeyUsage, 0, known)
	}
	if unknown > 0 {
		others = make([]asn1.ObjectIdentifier, 0, unknown)
	}
	oids := make(oidBuffer, 0, components)
	for !der.Empty() {
		elem := der
		var content cryptobyte.String
		der.ReadASN1(&content, cbasn1.OBJECT_IDENTIFIER)
		if u, ok := extKeyUsageFromContent(content); ok {
			usages = append(usages, u)
			continue
		}
		oid, _ := oids.read(&elem)
		others = append(others, oid)
	}
	return usages, others, nil
}

func extKeyUsageFromContent(content []byte) (ExtKeyUsage, bool) {
	for i, c := range extKeyUsageContents {
		if bytes.Equal(content, c) {
			return extKeyUsageOIDs[i].usage, true
		}
	}
	return 0, false
}

func parseCertificatePolicies(der cryptobyte.String) ([]asn1.ObjectIdentifier, error) {
	if !der.ReadASN1(&der, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: invalid certificate policies")
	}
	n, components := 0, 0
	for rest := der; !rest.Empty(); n++ {
		var pi cryptobyte.String
		if !rest.ReadASN1(&pi, cbasn1.SEQUENCE) {
			return nil, errors.New("x509: invalid certificate policies")
		}
		k, ok := skipOID(&pi)
		if !ok {
			return nil, errors.New("x509: invalid certificate policies")
		}
		components += k
	}
	if n == 0 {
		return nil, nil
	}
	policies := make([]asn1.ObjectIdentifier, 0, n)
	oids := make(oidBuffer, 0, components)
	for !der.Empty() {
		var pi cryptobyte.String
		der.ReadASN1(&pi, cbasn1.SEQUENCE)
		oid, _ := oids.read(&pi)
		policies = append(policies, oid)
	}
	return policies, nil
}

var (
	oidAuthorityInfoAccessOCSPContent    = oidContent(oidAuthorityInfoAccessOCSP)
	oidAuthorityInfoAccessIssuersContent = oidContent(oidAuthorityInfoAccessIssuers)
)

func parseAuthorityInfoAccess(der cryptobyte.String, strs *derStrings) (ocsp, issuers []string, err error) {
	if !der.ReadASN1(&der, cbasn1.SEQUENCE) {
		return nil, nil, errors.New("x509: invalid authority info access")
	}
	for !der.Empty() {
		var aia, method cryptobyte.String
		if !der.ReadASN1(&aia, cbasn1.SEQUENCE) {
			return nil, nil, errors.New("x509: invalid authority info access")
		}
		// The method is only compared, never kept: check that it is a
		// valid identifier without building it unless it is unusual.
		probe := aia
		if !aia.ReadASN1(&method, cbasn1.OBJECT_IDENTIFIER) {
			return nil, nil, errors.New("x509: invalid authority info access")
		}
		isOCSP := bytes.Equal(method, oidAuthorityInfoAccessOCSPContent)
		isIssuers := bytes.Equal(method, oidAuthorityInfoAccessIssuersContent)
		if _, ok := skipOID(&probe); !isOCSP && !isIssuers && !ok {
			return nil, nil, errors.New("x509: invalid authority info access")
		}
		if !aia.PeekASN1Tag(cbasn1.Tag(nameTypeURI).ContextSpecific()) {
			continue
		}
		var loc cryptobyte.String
		if !aia.ReadASN1(&loc, cbasn1.Tag(nameTypeURI).ContextSpecific()) {
			return nil, nil, errors.New("x509: invalid authority info access")
		}
		switch {
		case isOCSP:
			ocsp = append(ocsp, strs.str(loc))
		case isIssuers:
			issuers = append(issuers, strs.str(loc))
		}
	}
	return ocsp, issuers, nil
}

func parseCRLDistributionPoints(der cryptobyte.String, strs *derStrings) ([]string, error) {
	if !der.ReadASN1(&der, cbasn1.SEQUENCE) {
		return nil, errors.New("x509: invalid CRL distribution points")
	}
	// Two passes over the points: the first checks them and counts the
	// URIs, the second collects them into a slice of that size.
	var urls []string
	for pass := 0; pass < 2; pass++ {
		count := 0
		for rest := der; !rest.Empty(); {
			var dp, dpName cryptobyte.String
			var hasName bool
			if !rest.ReadASN1(&dp, cbasn1.SEQUENCE) ||
				!dp.ReadOptionalASN1(&dpName, &hasName, cbasn1.Tag(0).Constructed().ContextSpecific()) {
				return nil, errors.New("x509: invalid CRL distribution point")
			}
			if !hasName {
				continue
			}
			var fullName cryptobyte.String
			var hasFull bool
			if !dpName.ReadOptionalASN1(&fullName, &hasFull, cbasn1.Tag(0).Constructed().ContextSpecific()) {
				return nil, errors.New("x509: invalid CRL distribution point")
			}
			for hasFull && !fullName.Empty() {
				var uri cryptobyte.String
				var tag cbasn1.Tag
				if !fullName.ReadAnyASN1(&uri, &tag) {
					return nil, errors.New("x509: invalid CRL distribution point")
				}
				if tag == cbasn1.Tag(nameTypeURI).ContextSpecific() {
					if pass == 1 {
						urls = append(urls, strs.str(uri))
					}
					count++
				}
			}
		}
		if count == 0 {
			return nil, nil
		}
		if pass == 0 {
			urls = make([]string, 0, count)
		}
	}
	return urls, nil
}

func parseNameConstraintsExtension(cert *Certificate, e pkix.Extension) (unhandled bool, err error) {
	// RFC 5280, 4.2.1.10: name constraints only make sense in CA
	// certificates, and the extension must not be empty.
	outer := cryptobyte.String(e.Value)
	var toplevel, permitted, excluded cryptobyte.String
	var havePermitted, haveExcluded bool
	if !outer.ReadASN1(&toplevel, cbasn1.SEQUENCE) || !outer.Empty() ||
		!toplevel.ReadOptionalASN1(&permitted, &havePermitted, cbasn1.Tag(0).ContextSpecific().Constructed()) ||
		!toplevel.ReadOptionalASN1(&excluded, &haveExcluded, cbasn1.Tag(1).ContextSpecific().Constructed()) ||
		!toplevel.Empty() {
		return false, errors.New("x509: invalid name constraints")
	}
	if !havePermitted && !haveExcluded || len(permitted) == 0 && len(excluded) == 0 {
		return false, errors.New("x509: empty name constraints extension")
	}

	getValues := func(subtrees cryptobyte.String) (dnsNames []string, ips []*net.IPNet, emails, uriDomains []string, err error) {
		// Count each kind first, so that each slice is allocated once.
		var counts [nameTypeIP + 1]int
		for rest := subtrees; !rest.Empty(); {
			var seq, value cryptobyte.String
			var tag cbasn1.Tag
			if !rest.ReadASN1(&seq, cbasn1.SEQUENCE) || !seq.ReadAnyASN1(&value, &tag) {
				return nil, nil, nil, nil, errors.New("x509: invalid name constraint subtree")
			}
			if t := tag ^ cbasn1.Tag(0x80); t < cbasn1.Tag(len(counts)) {
				counts[t]++
			}
		}
		if c := counts[nameTypeDNS]; c > 0 {
			dnsNames = make([]string, 0, c)
		}
		if c := counts[nameTypeIP]; c > 0 {
			ips = make([]*net.IPNet, 0, c)
		}
		if c := counts[nameTypeEmail]; c > 0 {
			emails = make([]string, 0, c)
		}
		if c := counts[nameTypeURI]; c > 0 {
			uriDomains = make([]string, 0, c)
		}
		for !subtrees.Empty() {
			var seq, value cryptobyte.String
			var tag cbasn1.Tag
			if !subtrees.ReadASN1(&seq, cbasn1.SEQUENCE) || !seq.ReadAnyASN1(&value, &tag) {
				return nil, nil, nil, nil, errors.New("x509: invalid name constraint subtree")
			}
			switch tag {
			case cbasn1.Tag(nameTypeDNS).ContextSpecific():
				domain := string(value)
				if !isIA5String(domain) {
					return nil, nil, nil, nil, errors.New("x509: invalid constraint value")
				}
				if !validDomain(strings.TrimPrefix(domain, ".")) {
					return nil, nil, nil, nil, fmt.Errorf("x509: failed to parse dnsName constraint %q", domain)
				}
				dnsNames = append(dnsNames, domain)
			case cbasn1.Tag(nameTypeIP).ContextSpecific():
				l := len(value)
				if l != 8 && l != 32 {
					return nil, nil, nil, nil, fmt.Errorf("x509: IP constraint contained value of length %d", l)
				}
				ip, mask := net.IP(append([]byte(nil), value[:l/2]...)), net.IPMask(append([]byte(nil), value[l/2:]...))
				if ones, bits := mask.Size(); ones == 0 && bits == 0 && !allZero(mask) {
					return nil, nil, nil, nil, fmt.Errorf("x509: IP constraint contained invalid mask %x", mask)
				}
				ips = append(ips, &net.IPNet{IP: ip, Mask: mask})
			case cbasn1.Tag(nameTypeEmail).ContextSpecific():
				constraint := string(value)
				if !isIA5String(constraint) {
					return nil, nil, nil, nil, errors.New("x509: invalid constraint value")
				}
				if strings.Contains(constraint, "@") {
					if _, ok := parseRFC2821Mailbox(constraint); !ok {
						return nil, nil, nil, nil, fmt.Errorf("x509: failed to parse rfc822Name constraint %q", constraint)
					}
				} else if !validDomain(strings.TrimPrefix(constraint, ".")) {
					return nil, nil, nil, nil, fmt.Errorf("x509: failed to parse rfc822Name constraint %q", constraint)
				}
				emails = append(emails, constraint)
			case cbasn1.Tag(nameTypeURI).ContextSpecific():
				domain := string(value)
				if !isIA5String(domain) {
					return nil, nil, nil, nil, errors.New("x509: invalid constraint value")
				}
				if net.ParseIP(domain) != nil {
					return nil, nil, nil, nil, fmt.Errorf("x509: failed to parse URI constraint %q: cannot be IP address", domain)
				}
				if !validDomain(strings.TrimPrefix(domain, ".")) {
					return nil, nil, nil, nil, fmt.Errorf("x509: failed to parse URI constraint %q", domain)
				}
				uriDomains = append(uriDomains, domain)
			default:
				unhandled = true
			}
		}
		return dnsNames, ips, emails, uriDomains, nil
	}

	if cert.PermittedDNSDomains, cert.PermittedIPRanges, cert.PermittedEmailAddresses, cert.PermittedURIDomains, err = getValues(permitted); err != nil {
		return false, err
	}
	if cert.ExcludedDNSDomains, cert.ExcludedIPRanges, cert.ExcludedEmailAddresses, cert.ExcludedURIDomains, err = getValues(excluded); err != nil {
		return false, err
	}
	cert.PermittedDNSDomainsCritical = e.Critical
	return unhandled, nil
}

func allZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}
