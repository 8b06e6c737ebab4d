package smx509

import (
	"crypto"
	"crypto/x509"
	"encoding/asn1"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// The parser decodes OIDs and times itself to save allocations; these tests
// hold it to exactly what cryptobyte accepts, since crypto/x509 uses that.

func wrapDER(tag cbasn1.Tag, content []byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(tag, func(b *cryptobyte.Builder) { b.AddBytes(content) })
	return b.BytesOrPanic()
}

func checkOIDAgainstCryptobyte(t *testing.T, content []byte) {
	t.Helper()
	der := wrapDER(cbasn1.OBJECT_IDENTIFIER, content)
	var want asn1.ObjectIdentifier
	s1 := cryptobyte.String(der)
	wantOK := s1.ReadASN1ObjectIdentifier(&want)

	buf := oidBuffer{7} // a non-empty buffer must not leak into the result
	s2 := cryptobyte.String(der)
	got, gotOK := buf.read(&s2)
	if gotOK != wantOK || wantOK && (!got.Equal(want) || len(s2) != len(s1)) {
		t.Fatalf("OID %x: got %v %v, cryptobyte %v %v", content, got, gotOK, want, wantOK)
	}
	if !gotOK && len(buf) != 1 {
		t.Fatalf("OID %x: failed read left %d components in the buffer", content, len(buf)-1)
	}
	if gotOK && cap(got) != len(got) {
		t.Fatalf("OID %x: result is not capacity-limited", content)
	}
	s3 := cryptobyte.String(der)
	n, skipOK := skipOID(&s3)
	if skipOK != wantOK || wantOK && (n != len(want) || len(s3) != len(s1)) {
		t.Fatalf("OID %x: skipOID says %d components %v, cryptobyte %v %v", content, n, skipOK, want, wantOK)
	}
}

// TestValidDomainMatchesReverseLabels: the parser's allocation-free domain
// check accepts what domainToReverseLabels does.
func TestValidDomainMatchesReverseLabels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := "ab.-*\x00 \x7f\xc3\xa9~!"
	check := func(d string) {
		_, want := domainToReverseLabels(d)
		if got := validDomain(d); got != want {
			t.Fatalf("validDomain(%q) = %v, domainToReverseLabels says %v", d, got, want)
		}
	}
	for _, d := range []string{"", ".", "..", "a", "a.", ".a", "a..b", "a.b", "é.com", "a b", "*.example.com"} {
		check(d)
	}
	for range 20000 {
		b := make([]byte, r.IntN(7))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

func TestOIDBufferMatchesCryptobyte(t *testing.T) {
	cases := [][]byte{
		{}, {0x00}, {0x2a}, {0x4f}, {0x50}, {0x7f}, {0x80}, {0x81}, {0x81, 0x00}, {0x80, 0x01},
		{0x2a, 0x80, 0x01}, {0x2a, 0x81}, {0x55, 0x04, 0x03}, {0x55, 0x1d, 0x11},
		{0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75},
		{0x2a, 0x87, 0xff, 0xff, 0xff, 0x7f},       // 2^31-1: five octets
		{0x2a, 0x88, 0x80, 0x80, 0x80, 0x00},       // 2^31: too large
		{0x2a, 0x83, 0xff, 0xff, 0xff, 0x7f},       // fits
		{0x2a, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00}, // six octets
		{0xff, 0xff, 0xff, 0x7f}, {0x87, 0xff, 0xff, 0xff, 0x7f}, {0x88, 0x80, 0x80, 0x80, 0x00},
	}
	for _, c := range cases {
		checkOIDAgainstCryptobyte(t, c)
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{0x00, 0x01, 0x2a, 0x4f, 0x50, 0x7f, 0x80, 0x81, 0x87, 0x88, 0xff}
	for range 20000 {
		c := make([]byte, r.IntN(8))
		for i := range c {
			if r.IntN(2) == 0 {
				c[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				c[i] = byte(r.IntN(256))
			}
		}
		checkOIDAgainstCryptobyte(t, c)
	}
}

func checkTimeAgainstCryptobyte(t *testing.T, tag cbasn1.Tag, v string) {
	t.Helper()
	der := wrapDER(tag, []byte(v))
	var want, got time.Time
	var wantOK bool
	s1 := cryptobyte.String(der)
	if tag == cbasn1.UTCTime {
		wantOK = s1.ReadASN1UTCTime(&want)
	} else {
		wantOK = s1.ReadASN1GeneralizedTime(&want)
	}
	s2 := cryptobyte.String(der)
	gotOK := readTime(&s2, &got)
	if gotOK != wantOK || got != want || len(s1) != len(s2) {
		t.Fatalf("%v %q: got %v %v, cryptobyte %v %v", tag, v, got, gotOK, want, wantOK)
	}
}

func TestReadTimeMatchesCryptobyte(t *testing.T) {
	utc := []string{
		"250101000000Z", "491231235959Z", "500101000000Z", "991231235959Z", "000229000000Z",
		"240229120000Z", "230229120000Z", "520229000000Z", "250431000000Z", "250430000000Z",
		"251301000000Z", "250001000000Z", "250100000000Z", "250101240000Z", "250101236000Z",
		"250101235960Z", "2501010000Z", "250101000000+0800", "250101000000z", "2501010000001",
		"25010100000aZ", "-50101000000Z", "250101000000", " 50101000000Z", "250101000000Z0",
	}
	for _, v := range utc {
		checkTimeAgainstCryptobyte(t, cbasn1.UTCTime, v)
	}
	gen := []string{
		"20250101000000Z", "20491231235959Z", "19500101000000Z", "99991231235959Z", "00000229000000Z",
		"21000229000000Z", "20000229000000Z", "19000229000000Z", "20250631000000Z", "20250101240000Z",
		"20250101000000.5Z", "20250101000000+0800", "2025010100000Z", "202501010000000Z",
		"2025010100000aZ", "20250101000060Z", "20251231235959Z",
	}
	for _, v := range gen {
		checkTimeAgainstCryptobyte(t, cbasn1.GeneralizedTime, v)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := []byte("00000000000000Z")
		for i := 0; i < 14; i++ {
			b[i] = byte('0' + r.IntN(10))
		}
		checkTimeAgainstCryptobyte(t, cbasn1.GeneralizedTime, string(b))
		checkTimeAgainstCryptobyte(t, cbasn1.UTCTime, string(b[2:]))
	}
}

func TestDERStrings(t *testing.T) {
	der := []byte("hello, world")
	strs := newDERStrings(der)
	if got := strs.str(der[7:12]); got != "world" {
		t.Fatalf("got %q", got)
	}
	// A slice of another array with the same contents, or different ones,
	// must still give its own bytes.
	other := []byte("xxxxxxx world")
	if got := strs.str(other[8:]); got != "world" {
		t.Fatalf("got %q", got)
	}
	if got := strs.str([]byte("abc")); got != "abc" {
		t.Fatalf("got %q", got)
	}
	var nilStrs *derStrings
	if got := nilStrs.str(der[:5]); got != "hello" {
		t.Fatalf("got %q", got)
	}
	// Strings do not alias the DER.
	s := strs.str(der[:5])
	der[0] = 'j'
	if s != "hello" {
		t.Fatalf("string changed with the DER: %q", s)
	}
}

// TestParsedNameIndependence checks that the shared backing arrays of a
// parsed name cannot be written through one field into another.
func TestParsedNameIndependence(t *testing.T) {
	sm2DER, _ := typicalLeafDER(t)
	c, err := ParseCertificate(sm2DER)
	must(t, err)
	before := c.Subject.String()
	loc := append([]string(nil), c.Subject.Locality...)
	c.Subject.Country = append(c.Subject.Country, "XX")
	c.Subject.Province = append(c.Subject.Province, "YY")
	if !reflect.DeepEqual(c.Subject.Locality, loc) {
		t.Fatalf("appending to Country/Province changed Locality: %v", c.Subject.Locality)
	}
	c.Subject.Names[0].Type = append(c.Subject.Names[0].Type, 99)
	if c.Subject.Names[1].Type.String() != "2.5.4.8" {
		t.Fatalf("appending to one attribute type changed the next: %v", c.Subject.Names[1].Type)
	}
	c2, err := ParseCertificate(sm2DER)
	must(t, err)
	if c2.Subject.String() != before {
		t.Fatalf("a second parse sees the first one's changes: %s", c2.Subject.String())
	}
}

// TestTypicalCertificateMatchesStdlib compares every field crypto/x509 and
// this package share on an ECDSA certificate in the shape of the benchmark's,
// so the allocation-saving paths are held to crypto/x509's results.
func TestTypicalCertificateMatchesStdlib(t *testing.T) {
	_, ecDER := typicalLeafDER(t)
	std, err := x509.ParseCertificate(ecDER)
	must(t, err)
	ours, err := ParseCertificate(ecDER)
	must(t, err)
	compareWithStdlib(t, std, ours)
}

// policyValidationExtensions are the extensions crypto/x509 handles for its
// policy validation, which this package does not do.
var policyValidationExtensions = []asn1.ObjectIdentifier{
	{2, 5, 29, 33}, // policyMappings
	{2, 5, 29, 36}, // policyConstraints
	{2, 5, 29, 54}, // inhibitAnyPolicy
}

// stdlibChecker returns a function that reports a field on which
// crypto/x509 and this package disagree.
func stdlibChecker(t *testing.T) func(field string, std, ours any) {
	return func(field string, std, ours any) {
		t.Helper()
		if !reflect.DeepEqual(std, ours) {
			t.Errorf("%s differs:\ncrypto/x509 %#v\nsmx509      %#v", field, std, ours)
		}
	}
}

func compareWithStdlib(t *testing.T, std *x509.Certificate, ours *Certificate) {
	t.Helper()
	check := stdlibChecker(t)
	check("Subject", std.Subject, ours.Subject)
	check("Issuer", std.Issuer, ours.Issuer)
	check("NotBefore", std.NotBefore, ours.NotBefore)
	check("NotAfter", std.NotAfter, ours.NotAfter)
	check("SerialNumber", std.SerialNumber, ours.SerialNumber)
	check("Extensions", std.Extensions, ours.Extensions)
	check("DNSNames", std.DNSNames, ours.DNSNames)
	check("EmailAddresses", std.EmailAddresses, ours.EmailAddresses)
	check("IPAddresses", std.IPAddresses, ours.IPAddresses)
	check("URIs", std.URIs, ours.URIs)
	check("OCSPServer", std.OCSPServer, ours.OCSPServer)
	check("IssuingCertificateURL", std.IssuingCertificateURL, ours.IssuingCertificateURL)
	check("CRLDistributionPoints", std.CRLDistributionPoints, ours.CRLDistributionPoints)
	check("UnknownExtKeyUsage", std.UnknownExtKeyUsage, ours.UnknownExtKeyUsage)
	check("PolicyIdentifiers", std.PolicyIdentifiers, ours.PolicyIdentifiers)
	// crypto/x509 validates certificate policies (RFC 5280 §6.1) and so
	// handles policyMappings, policyConstraints and inhibitAnyPolicy; this
	// package does not, so a critical one is unhandled and Verify refuses
	// it, as §4.2 requires of a verifier that does not process it.
	var unhandled []asn1.ObjectIdentifier
	for _, id := range ours.UnhandledCriticalExtensions {
		if !slices.ContainsFunc(policyValidationExtensions, id.Equal) {
			unhandled = append(unhandled, id)
		}
	}
	check("UnhandledCriticalExtensions", std.UnhandledCriticalExtensions, unhandled)
	// crypto/x509 knows neither SM2 algorithm.
	if ours.SignatureAlgorithm != SM2WithSM3 {
		check("SignatureAlgorithm", int(std.SignatureAlgorithm), int(ours.SignatureAlgorithm))
	}
	if ours.PublicKeyAlgorithm != SM2 {
		check("PublicKeyAlgorithm", int(std.PublicKeyAlgorithm), int(ours.PublicKeyAlgorithm))
	}
	var eku []ExtKeyUsage
	for _, u := range std.ExtKeyUsage {
		eku = append(eku, ExtKeyUsage(u))
	}
	check("ExtKeyUsage", eku, ours.ExtKeyUsage)

	// The fields that decide what a certificate may do.
	check("Version", std.Version, ours.Version)
	check("KeyUsage", int(std.KeyUsage), int(ours.KeyUsage))
	check("BasicConstraintsValid", std.BasicConstraintsValid, ours.BasicConstraintsValid)
	check("IsCA", std.IsCA, ours.IsCA)
	check("MaxPathLen", std.MaxPathLen, ours.MaxPathLen)
	check("MaxPathLenZero", std.MaxPathLenZero, ours.MaxPathLenZero)
	check("SubjectKeyId", std.SubjectKeyId, ours.SubjectKeyId)
	check("AuthorityKeyId", std.AuthorityKeyId, ours.AuthorityKeyId)
	check("PermittedDNSDomainsCritical", std.PermittedDNSDomainsCritical, ours.PermittedDNSDomainsCritical)
	check("PermittedDNSDomains", std.PermittedDNSDomains, ours.PermittedDNSDomains)
	check("ExcludedDNSDomains", std.ExcludedDNSDomains, ours.ExcludedDNSDomains)
	check("PermittedIPRanges", std.PermittedIPRanges, ours.PermittedIPRanges)
	check("ExcludedIPRanges", std.ExcludedIPRanges, ours.ExcludedIPRanges)
	check("PermittedEmailAddresses", std.PermittedEmailAddresses, ours.PermittedEmailAddresses)
	check("ExcludedEmailAddresses", std.ExcludedEmailAddresses, ours.ExcludedEmailAddresses)
	check("PermittedURIDomains", std.PermittedURIDomains, ours.PermittedURIDomains)
	check("ExcludedURIDomains", std.ExcludedURIDomains, ours.ExcludedURIDomains)
	check("RawTBSCertificate", std.RawTBSCertificate, ours.RawTBSCertificate)
	check("RawSubjectPublicKeyInfo", std.RawSubjectPublicKeyInfo, ours.RawSubjectPublicKeyInfo)
	check("RawSubject", std.RawSubject, ours.RawSubject)
	check("RawIssuer", std.RawIssuer, ours.RawIssuer)
	check("Signature", std.Signature, ours.Signature)
	// The public key, where crypto/x509 knows its algorithm (it parses an
	// SM2 key as an unknown algorithm).
	if ours.PublicKeyAlgorithm != SM2 && std.PublicKey != nil {
		type equaler interface{ Equal(crypto.PublicKey) bool }
		if k, ok := std.PublicKey.(equaler); !ok || !k.Equal(ours.PublicKey) {
			t.Errorf("PublicKey differs:\ncrypto/x509 %#v\nsmx509      %#v", std.PublicKey, ours.PublicKey)
		}
	}
}
