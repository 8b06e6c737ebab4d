package smx509

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"net"
	"net/url"
	"testing"
	"time"
)

// pki is a small SM2 hierarchy for the negative tests.
type pki struct {
	root, inter *Certificate
	roots       *CertPool
	inters      *CertPool
}

func newPKI(t *testing.T, rootMod, interMod func(*Certificate)) *pki {
	t.Helper()
	rootKey := testKey(t, kindSM2, "root")
	interKey := testKey(t, kindSM2, "inter")
	rt := caTemplate("Neg Root")
	if rootMod != nil {
		rootMod(rt)
	}
	root := issue(t, rt, rt, rootKey.Public(), rootKey)
	it := caTemplate("Neg Intermediate")
	if interMod != nil {
		interMod(it)
	}
	inter := issue(t, it, root, interKey.Public(), rootKey)
	p := &pki{root: root, inter: inter, roots: NewCertPool(), inters: NewCertPool()}
	p.roots.AddCert(root)
	p.inters.AddCert(inter)
	return p
}

func (p *pki) leaf(t *testing.T, mod func(*Certificate)) *Certificate {
	t.Helper()
	lt := leafTemplate("neg leaf", KeyUsageDigitalSignature)
	if mod != nil {
		mod(lt)
	}
	return issue(t, lt, p.inter, testKey(t, kindSM2, "leaf").Public(), testKey(t, kindSM2, "inter"))
}

func (p *pki) verify(c *Certificate, mod func(*VerifyOptions)) error {
	opts := VerifyOptions{Roots: p.roots, Intermediates: p.inters, CurrentTime: testTime}
	if mod != nil {
		mod(&opts)
	}
	_, err := c.Verify(opts)
	return err
}

func wantReason(t *testing.T, err error, reason InvalidReason) {
	t.Helper()
	var cie CertificateInvalidError
	if !errors.As(err, &cie) || cie.Reason != reason {
		// Errors from candidate issuers arrive wrapped in an
		// UnknownAuthorityError hint.
		var uae UnknownAuthorityError
		if errors.As(err, &uae) && errors.As(uae.hintErr, &cie) && cie.Reason == reason {
			return
		}
		t.Fatalf("got error %v, want reason %d", err, reason)
	}
}

func TestVerifyExpiredAndNotYetValid(t *testing.T) {
	p := newPKI(t, nil, nil)
	leaf := p.leaf(t, func(c *Certificate) {
		c.NotBefore = time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
		c.NotAfter = time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC)
	})
	wantReason(t, p.verify(leaf, nil), Expired) // testTime is 2030
	wantReason(t, p.verify(leaf, func(o *VerifyOptions) { o.CurrentTime = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) }), Expired)
	must(t, p.verify(leaf, func(o *VerifyOptions) { o.CurrentTime = time.Date(2028, 6, 1, 0, 0, 0, 0, time.UTC) }))

	// An expired intermediate breaks the chain too.
	p2 := newPKI(t, nil, func(c *Certificate) { c.NotAfter = time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC) })
	wantReason(t, p2.verify(p2.leaf(t, nil), nil), Expired)
}

func TestVerifyWrongUsage(t *testing.T) {
	p := newPKI(t, nil, nil)
	clientOnly := p.leaf(t, func(c *Certificate) { c.ExtKeyUsage = []ExtKeyUsage{ExtKeyUsageClientAuth} })
	wantReason(t, p.verify(clientOnly, nil), IncompatibleUsage)
	must(t, p.verify(clientOnly, func(o *VerifyOptions) { o.KeyUsages = []ExtKeyUsage{ExtKeyUsageClientAuth} }))
	must(t, p.verify(clientOnly, func(o *VerifyOptions) { o.KeyUsages = []ExtKeyUsage{ExtKeyUsageAny} }))

	// An intermediate restricted to e-mail cannot vouch for a TLS server.
	p2 := newPKI(t, nil, func(c *Certificate) { c.ExtKeyUsage = []ExtKeyUsage{ExtKeyUsageEmailProtection} })
	wantReason(t, p2.verify(p2.leaf(t, nil), nil), CANotAuthorizedForExtKeyUsage)

	// A leaf cannot act as an issuer.
	leafKey := testKey(t, kindSM2, "leaf")
	notCA := p.leaf(t, nil)
	grandchild := issue(t, leafTemplate("grandchild", KeyUsageDigitalSignature), notCA, testKey(t, kindSM2, "gc").Public(), leafKey)
	if err := grandchild.CheckSignatureFrom(notCA); !errors.As(err, new(ConstraintViolationError)) {
		t.Fatalf("CheckSignatureFrom(non-CA) = %v", err)
	}
	inters := NewCertPool()
	inters.AddCert(p.inter)
	inters.AddCert(notCA)
	if _, err := grandchild.Verify(VerifyOptions{Roots: p.roots, Intermediates: inters, CurrentTime: testTime}); err == nil {
		t.Fatal("chain through a non-CA verified")
	}

	// A CA whose key usage lacks keyCertSign cannot sign certificates.
	p3 := newPKI(t, nil, func(c *Certificate) { c.KeyUsage = KeyUsageCRLSign })
	if err := p3.verify(p3.leaf(t, nil), nil); err == nil {
		t.Fatal("CA without keyCertSign accepted")
	}
}

func TestVerifyWrongSignature(t *testing.T) {
	p := newPKI(t, nil, nil)
	leaf := p.leaf(t, nil)
	bad := *leaf
	bad.Signature = append([]byte(nil), leaf.Signature...)
	bad.Signature[len(bad.Signature)-1] ^= 1
	if err := p.verify(&bad, nil); !errors.As(err, new(UnknownAuthorityError)) {
		t.Fatalf("tampered signature: %v", err)
	}
	bad2 := *leaf
	bad2.RawTBSCertificate = append([]byte(nil), leaf.RawTBSCertificate...)
	bad2.RawTBSCertificate[20] ^= 1
	mustFail(t, bad2.CheckSignatureFrom(p.inter), "tampered TBS")

	// Same issuer name, different key: the impostor's certificates do not
	// chain to the real root.
	impostorKey := testKey(t, kindSM2, "impostor")
	it := caTemplate("Neg Intermediate")
	impostor := issue(t, it, it, impostorKey.Public(), impostorKey)
	forged := issue(t, leafTemplate("forged", KeyUsageDigitalSignature), impostor, testKey(t, kindSM2, "leaf").Public(), impostorKey)
	if err := p.verify(forged, nil); !errors.As(err, new(UnknownAuthorityError)) {
		t.Fatalf("forged leaf: %v", err)
	}
	// No roots that issued it at all.
	other := newPKI(t, nil, nil)
	other.roots = NewCertPool()
	if err := other.verify(leaf, nil); !errors.As(err, new(UnknownAuthorityError)) {
		t.Fatalf("unknown authority: %v", err)
	}
}

func TestVerifyBadName(t *testing.T) {
	p := newPKI(t, nil, nil)
	leaf := p.leaf(t, nil)
	if err := p.verify(leaf, func(o *VerifyOptions) { o.DNSName = "evil.example.org" }); !errors.As(err, new(HostnameError)) {
		t.Fatalf("hostname mismatch: %v", err)
	}
	must(t, p.verify(leaf, func(o *VerifyOptions) { o.DNSName = "LOCALHOST" }))
	must(t, p.verify(leaf, func(o *VerifyOptions) { o.DNSName = "127.0.0.1" }))
	must(t, p.verify(leaf, func(o *VerifyOptions) { o.DNSName = "[::1]" }))
	if err := p.verify(leaf, func(o *VerifyOptions) { o.DNSName = "127.0.0.2" }); !errors.As(err, new(HostnameError)) {
		t.Fatalf("IP mismatch: %v", err)
	}
}

func TestVerifyHostname(t *testing.T) {
	c := &Certificate{DNSNames: []string{"*.example.com", "exact.example.org", "trailing.example.net."}, IPAddresses: []net.IP{net.ParseIP("10.0.0.1"), net.ParseIP("2001:db8::1")}}
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"a.example.com", true},
		{"A.Example.COM", true},
		{"a.example.com.", true},
		{"example.com", false},
		{"a.b.example.com", false},
		{"exact.example.org", true},
		{"x.exact.example.org", false},
		{"trailing.example.net", true},
		{"10.0.0.1", true},
		{"10.0.0.2", false},
		{"2001:db8::1", true},
		{"[2001:db8::1]", true},
		{"", false},
		{"*.example.com", false},
	} {
		if err := c.VerifyHostname(tc.host); (err == nil) != tc.ok {
			t.Errorf("VerifyHostname(%q) = %v, want ok=%v", tc.host, err, tc.ok)
		}
	}
	if (&Certificate{DNSNames: []string{"*.com"}}).VerifyHostname("example.com") == nil {
		t.Error("wildcard over a single label accepted")
	}
}

func TestVerifyNameConstraints(t *testing.T) {
	_, ipNet10, _ := net.ParseCIDR("10.0.0.0/8")
	_, ipNetLo, _ := net.ParseCIDR("127.0.0.0/8")
	_, ipNet6, _ := net.ParseCIDR("::1/128")
	tests := []struct {
		name  string
		inter func(*Certificate)
		leaf  func(*Certificate)
		ok    bool
	}{
		{"permitted DNS", func(c *Certificate) {
			c.PermittedDNSDomains = []string{"example.com", "localhost"}
			c.PermittedIPRanges = []*net.IPNet{ipNetLo, ipNet6}
		}, func(c *Certificate) { c.DNSNames = []string{"localhost", "www.example.com"} }, true},
		{"not permitted DNS", func(c *Certificate) {
			c.PermittedDNSDomains = []string{"example.com"}
		}, nil, false},
		{"excluded DNS", func(c *Certificate) {
			c.ExcludedDNSDomains = []string{".example.com"}
		}, func(c *Certificate) { c.DNSNames = []string{"server.example.com"} }, false},
		{"excluded subdomain only", func(c *Certificate) {
			c.ExcludedDNSDomains = []string{".example.com"}
		}, func(c *Certificate) { c.DNSNames = []string{"example.com"} }, true},
		{"permitted IP", func(c *Certificate) {
			c.PermittedIPRanges = []*net.IPNet{ipNetLo, ipNet6}
		}, nil, true},
		{"not permitted IP", func(c *Certificate) {
			c.PermittedIPRanges = []*net.IPNet{ipNet10}
		}, nil, false},
		{"excluded IP", func(c *Certificate) {
			c.ExcludedIPRanges = []*net.IPNet{ipNetLo}
		}, nil, false},
		{"permitted email domain", func(c *Certificate) {
			c.PermittedEmailAddresses = []string{".example.com"}
		}, func(c *Certificate) { c.EmailAddresses = []string{"a@mail.example.com"} }, true},
		{"email host exact", func(c *Certificate) {
			c.PermittedEmailAddresses = []string{"example.com"}
		}, func(c *Certificate) { c.EmailAddresses = []string{"a@mail.example.com"} }, false},
		{"excluded mailbox", func(c *Certificate) {
			c.ExcludedEmailAddresses = []string{"root@example.com"}
		}, func(c *Certificate) { c.EmailAddresses = []string{"root@example.com"} }, false},
		{"URI domain", func(c *Certificate) {
			c.PermittedURIDomains = []string{".example.com"}
		}, func(c *Certificate) {
			u, _ := url.Parse("https://svc.example.com/x")
			c.URIs = []*url.URL{u}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPKI(t, nil, tc.inter)
			if !p.inter.hasNameConstraints() {
				t.Fatal("name constraints did not round-trip")
			}
			err := p.verify(p.leaf(t, tc.leaf), nil)
			if tc.ok {
				must(t, err)
			} else {
				wantReason(t, err, CANotAuthorizedForThisName)
			}
		})
	}
}

func TestVerifyPathLength(t *testing.T) {
	// Root with pathlen 0 cannot have an intermediate below it.
	p := newPKI(t, func(c *Certificate) { c.MaxPathLen, c.MaxPathLenZero = 0, true }, nil)
	if !p.root.MaxPathLenZero || p.root.MaxPathLen != 0 {
		t.Fatal("pathlen 0 did not round-trip")
	}
	wantReason(t, p.verify(p.leaf(t, nil), nil), TooManyIntermediates)

	// pathlen 1 allows exactly one.
	p1 := newPKI(t, func(c *Certificate) { c.MaxPathLen = 1 }, nil)
	must(t, p1.verify(p1.leaf(t, nil), nil))
}

func TestVerifyOverLongChain(t *testing.T) {
	rootKey := testKey(t, kindSM2, "root")
	rt := caTemplate("Long Root")
	root := issue(t, rt, rt, rootKey.Public(), rootKey)
	roots, inters := NewCertPool(), NewCertPool()
	roots.AddCert(root)
	parent, parentKey := root, rootKey
	for i := 0; i < maxChainLength+1; i++ {
		k := testKey(t, kindSM2, "long"+string(rune('a'+i)))
		c := issue(t, caTemplate("Long CA "+string(rune('a'+i))), parent, k.Public(), parentKey)
		inters.AddCert(c)
		parent, parentKey = c, k
	}
	leaf := issue(t, leafTemplate("long leaf", KeyUsageDigitalSignature), parent, testKey(t, kindSM2, "leaf").Public(), parentKey)
	if _, err := leaf.Verify(VerifyOptions{Roots: roots, Intermediates: inters, CurrentTime: testTime}); err == nil {
		t.Fatal("over-long chain verified")
	}
}

func TestUnhandledCriticalExtension(t *testing.T) {
	p := newPKI(t, nil, nil)
	leaf := p.leaf(t, func(c *Certificate) {
		c.ExtraExtensions = []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 2, 3, 4}, Critical: true, Value: []byte{5, 0}}}
	})
	if len(leaf.UnhandledCriticalExtensions) != 1 {
		t.Fatal("critical extension not recorded")
	}
	if err := p.verify(leaf, nil); !errors.As(err, new(UnhandledCriticalExtension)) {
		t.Fatalf("got %v", err)
	}
}

func TestCertPool(t *testing.T) {
	p := newPKI(t, nil, nil)
	pool := NewCertPool()
	pool.AddCert(p.root)
	pool.AddCert(p.root)
	if len(pool.Subjects()) != 1 {
		t.Fatal("duplicate added twice")
	}
	if !pool.Equal(p.roots) || pool.Equal(p.inters) || pool.Equal(nil) {
		t.Fatal("Equal is wrong")
	}
	pemPool := NewCertPool()
	data := append(pemCert(p.root), []byte("junk\n-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n")...)
	data = append(data, pemCert(p.inter)...)
	if !pemPool.AppendCertsFromPEM(data) || len(pemPool.Subjects()) != 2 {
		t.Fatal("AppendCertsFromPEM")
	}
	if NewCertPool().AppendCertsFromPEM([]byte("nothing")) {
		t.Fatal("AppendCertsFromPEM reported success on junk")
	}
	if !pemPool.Clone().Equal(pemPool) {
		t.Fatal("Clone")
	}
}

func TestTLCPRoles(t *testing.T) {
	ca := testKey(t, kindSM2, "root")
	rt := caTemplate("Role Root")
	root := issue(t, rt, rt, ca.Public(), ca)
	mk := func(ku KeyUsage, kind keyKind) *Certificate {
		return issue(t, leafTemplate("role", ku), root, testKey(t, kind, "leaf").Public(), ca)
	}
	caWithUsage := func(ku KeyUsage) *Certificate {
		tmpl := caTemplate("Role Sub CA")
		tmpl.KeyUsage = ku
		return issue(t, tmpl, root, testKey(t, kindSM2, "leaf").Public(), ca)
	}
	for _, tc := range []struct {
		c          *Certificate
		sign, encr bool
	}{
		{mk(KeyUsageDigitalSignature, kindSM2), true, false},
		{mk(KeyUsageKeyEncipherment, kindSM2), false, true},
		{mk(KeyUsageKeyAgreement, kindSM2), false, true},
		{mk(KeyUsageDataEncipherment|KeyUsageKeyEncipherment, kindSM2), false, true},
		{mk(KeyUsageDigitalSignature|KeyUsageKeyEncipherment, kindSM2), true, true},
		{mk(KeyUsageDigitalSignature, kindECDSA), false, false},
		{mk(0, kindSM2), true, true}, // no key-usage extension: unrestricted
		{mk(KeyUsageCertSign, kindSM2), false, false},
		{root, false, false},
		// A CA certificate is never a TLCP end-entity certificate, even
		// with the leaf key usages or none at all (mutant
		// smx509-leaf-not-ca of internal/mutation).
		{caWithUsage(KeyUsageDigitalSignature | KeyUsageKeyEncipherment | KeyUsageKeyAgreement | KeyUsageCertSign), false, false},
		{caWithUsage(0), false, false},
	} {
		if tc.c.IsTLCPSignCert() != tc.sign || tc.c.IsTLCPEncCert() != tc.encr {
			t.Errorf("KeyUsage %b %v: sign=%v enc=%v", tc.c.KeyUsage, tc.c.PublicKeyAlgorithm, tc.c.IsTLCPSignCert(), tc.c.IsTLCPEncCert())
		}
	}
}

func TestCreateCertificateErrors(t *testing.T) {
	key := testKey(t, kindSM2, "root")
	other := testKey(t, kindSM2, "other")
	rt := caTemplate("Err Root")
	root := issue(t, rt, rt, key.Public(), key)
	lt := leafTemplate("x", KeyUsageDigitalSignature)
	if _, err := CreateCertificate(rand.Reader, lt, root, key.Public(), other); err == nil {
		t.Error("signing with a key that is not the parent's succeeded")
	}
	lt.SerialNumber = nil
	if _, err := CreateCertificate(rand.Reader, lt, root, key.Public(), key); err == nil {
		t.Error("nil serial accepted")
	}
	lt = leafTemplate("x", KeyUsageDigitalSignature)
	lt.SignatureAlgorithm = ECDSAWithSHA256
	if _, err := CreateCertificate(rand.Reader, lt, root, key.Public(), key); err == nil {
		t.Error("ECDSA signature algorithm with an SM2 key accepted")
	}
	st := caTemplate("self")
	if _, err := CreateCertificate(rand.Reader, st, st, other.Public(), key); err == nil {
		t.Error("self-signed certificate with mismatched keys accepted")
	}
}

// TestVerifyChoosesRightIssuer: two intermediates share a subject name but
// not a key; chain building must find the one that signed the leaf, whatever
// the pool order.
func TestVerifyChoosesRightIssuer(t *testing.T) {
	rootKey := testKey(t, kindSM2, "root")
	rt := caTemplate("Twin Root")
	root := issue(t, rt, rt, rootKey.Public(), rootKey)
	k1, k2 := testKey(t, kindSM2, "twin1"), testKey(t, kindSM2, "twin2")
	twin1 := issue(t, caTemplate("Twin"), root, k1.Public(), rootKey)
	twin2 := issue(t, caTemplate("Twin"), root, k2.Public(), rootKey)
	leaf := issue(t, leafTemplate("twin leaf", KeyUsageDigitalSignature), twin2, testKey(t, kindSM2, "leaf").Public(), k2)
	// Without key identifiers the builder has to try both.
	noAKI := *leaf
	noAKI.AuthorityKeyId = nil
	for _, order := range [][]*Certificate{{twin1, twin2}, {twin2, twin1}} {
		roots, inters := NewCertPool(), NewCertPool()
		roots.AddCert(root)
		for _, c := range order {
			inters.AddCert(c)
		}
		for _, l := range []*Certificate{leaf, &noAKI} {
			chains, err := l.Verify(VerifyOptions{Roots: roots, Intermediates: inters, CurrentTime: testTime})
			must(t, err)
			if len(chains) != 1 || !chains[0][1].Equal(twin2) {
				t.Fatalf("wrong chain %v", chains)
			}
		}
	}
}

func TestVerifyWithoutSM2Roots(t *testing.T) {
	p := newPKI(t, nil, nil)
	leaf := p.leaf(t, nil)
	_, err := leaf.Verify(VerifyOptions{Intermediates: p.inters, CurrentTime: testTime})
	var uae UnknownAuthorityError
	var sre SystemRootsError
	if !errors.As(err, &uae) && !errors.As(err, &sre) {
		t.Fatalf("nil Roots: %v", err)
	}
}

// TestIsValidChecksIssuerName: isValid refuses an issuer whose subject is
// not the child's issuer name. The pool only offers candidates by that
// name, so Verify cannot reach the check; it is defence in depth for any
// other caller, pinned here directly (mutant smx509-issuer-name of
// internal/mutation).
func TestIsValidChecksIssuerName(t *testing.T) {
	key := testKey(t, kindSM2, "root")
	rt := caTemplate("Name Root")
	root := issue(t, rt, rt, key.Public(), key)
	ot := caTemplate("Other Root")
	other := issue(t, ot, ot, key.Public(), key)
	leaf := issue(t, leafTemplate("leaf", KeyUsageDigitalSignature), root, testKey(t, kindSM2, "leaf").Public(), key)
	opts := &VerifyOptions{CurrentTime: testTime}
	if err := root.isValid(rootCertificate, []*Certificate{leaf}, opts); err != nil {
		t.Fatalf("the real issuer: %v", err)
	}
	var ce CertificateInvalidError
	if err := other.isValid(rootCertificate, []*Certificate{leaf}, opts); !errors.As(err, &ce) || ce.Reason != NameMismatch {
		t.Fatalf("an issuer of another name: %v, want NameMismatch", err)
	}
}
