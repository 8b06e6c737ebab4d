package smx509

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// InvalidReason says why a certificate was rejected; values mirror
// crypto/x509.
type InvalidReason int

const (
	// NotAuthorizedToSign: a certificate signed by one that is not a CA.
	NotAuthorizedToSign InvalidReason = iota
	// Expired: the certificate is outside its validity period at the
	// verification time.
	Expired
	// CANotAuthorizedForThisName: a name constraint of an issuer excludes
	// (or fails to permit) a name in the leaf.
	CANotAuthorizedForThisName
	// TooManyIntermediates: a path length constraint was exceeded.
	TooManyIntermediates
	// IncompatibleUsage: the certificate's extended key usage does not allow
	// the requested purpose.
	IncompatibleUsage
	// NameMismatch: the issuer name of a certificate differs from the
	// subject of its would-be parent.
	NameMismatch
	// NameConstraintsWithoutSANs is unused; kept for parity with crypto/x509.
	NameConstraintsWithoutSANs
	// UnconstrainedName: a SAN of a type the issuer constrains could not be
	// parsed for checking.
	UnconstrainedName
	// TooManyConstraints: checking name constraints needed more
	// comparisons than VerifyOptions.MaxConstraintComparisions allows.
	TooManyConstraints
	// CANotAuthorizedForExtKeyUsage: an intermediate's extended key usage
	// does not include the requested purpose.
	CANotAuthorizedForExtKeyUsage
	// NoValidChains: no chain satisfied every constraint.
	NoValidChains
)

// CertificateInvalidError results when something odd happens during
// verification.
type CertificateInvalidError struct {
	Cert   *Certificate
	Reason InvalidReason
	Detail string
}

func (e CertificateInvalidError) Error() string {
	switch e.Reason {
	case NotAuthorizedToSign:
		return "x509: certificate is not authorized to sign other certificates"
	case Expired:
		return "x509: certificate has expired or is not yet valid: " + e.Detail
	case CANotAuthorizedForThisName:
		return "x509: a root or intermediate certificate is not authorized to sign for this name: " + e.Detail
	case CANotAuthorizedForExtKeyUsage:
		return "x509: a root or intermediate certificate is not authorized for an extended key usage: " + e.Detail
	case TooManyIntermediates:
		return "x509: too many intermediates for path length constraint"
	case IncompatibleUsage:
		return "x509: certificate specifies an incompatible key usage"
	case NameMismatch:
		return "x509: issuer name does not match subject from issuing certificate"
	case UnconstrainedName:
		return "x509: issuer has name constraints but leaf contains unknown or unconstrained name: " + e.Detail
	case TooManyConstraints:
		return "x509: too many name constraint comparisons"
	case NoValidChains:
		s := "x509: no valid chains built"
		if e.Detail != "" {
			s += ": " + e.Detail
		}
		return s
	}
	return "x509: unknown error"
}

// HostnameError results when the set of authorized names doesn't match the
// requested name.
type HostnameError struct {
	Certificate *Certificate
	Host        string
}

func (h HostnameError) Error() string {
	c := h.Certificate
	if ip := net.ParseIP(h.Host); ip != nil {
		if len(c.IPAddresses) == 0 {
			return "x509: cannot validate certificate for " + h.Host + " because it doesn't contain any IP SANs"
		}
		var valid []string
		for _, san := range c.IPAddresses {
			valid = append(valid, san.String())
		}
		return "x509: certificate is valid for " + strings.Join(valid, ", ") + ", not " + h.Host
	}
	if len(c.DNSNames) == 0 {
		return "x509: certificate is not valid for any names, but wanted to match " + h.Host
	}
	return "x509: certificate is valid for " + strings.Join(c.DNSNames, ", ") + ", not " + h.Host
}

// UnknownAuthorityError results when the certificate issuer is unknown.
type UnknownAuthorityError struct {
	Cert *Certificate
	// hintErr is the reason a candidate issuer was rejected, if there was
	// one; it is the most useful detail for a user.
	hintErr  error
	hintCert *Certificate
}

func (e UnknownAuthorityError) Error() string {
	s := "x509: certificate signed by unknown authority"
	if e.hintErr != nil {
		certName := e.hintCert.Subject.CommonName
		if certName == "" {
			certName = "serial:" + e.hintCert.SerialNumber.String()
		}
		s += fmt.Sprintf(" (possibly because of %q while trying to verify candidate authority certificate %q)", e.hintErr, certName)
	}
	return s
}

// UnhandledCriticalExtension results when the certificate contains a critical
// extension this package does not process.
type UnhandledCriticalExtension struct{}

func (h UnhandledCriticalExtension) Error() string {
	return "x509: unhandled critical extension"
}

// VerifyOptions contains parameters for Certificate.Verify.
type VerifyOptions struct {
	// DNSName, if set, is checked against the leaf certificate with
	// Certificate.VerifyHostname (an IP address literal is matched against
	// the IP SANs).
	DNSName string

	// Intermediates is an optional pool of certificates that are not trust
	// anchors but may form a chain from the leaf to a root.
	Intermediates *CertPool
	// Roots is the set of trusted root certificates. If nil, the system
	// pool is used (see SystemCertPool), which holds no SM2 roots.
	Roots *CertPool

	// CurrentTime is used to check the validity of every certificate in the
	// chain. If zero, the current time is used.
	CurrentTime time.Time

	// KeyUsages lists acceptable extended key usages; a chain is accepted
	// if it allows any of them. Empty means ExtKeyUsageServerAuth; use
	// ExtKeyUsageAny to accept any purpose.
	KeyUsages []ExtKeyUsage

	// MaxConstraintComparisions bounds the work spent on name constraints
	// (0 means a sensible default).
	MaxConstraintComparisions int
}

const (
	leafCertificate = iota
	intermediateCertificate
	rootCertificate
)

// maxChainSignatureChecks bounds the signature verifications one Verify call
// may do, so a pool crafted with many same-named certificates cannot make
// chain building exponential.
const maxChainSignatureChecks = 100

// maxChainLength bounds the number of certificates in a chain, independent
// of path length constraints.
const maxChainLength = 10

// Verify attempts to verify c by building one or more chains from c to a
// certificate in opts.Roots, using certificates in opts.Intermediates if
// needed. On success it returns every valid chain, each starting with c and
// ending with a root.
//
// Checked on every certificate of a chain: the validity period, unhandled
// critical extensions, that issuers are CAs (basicConstraints cA) whose key
// usage, if present, includes keyCertSign, path length constraints, name
// constraints of issuers against the leaf's SANs, and the extended key usage
// (nested through the chain, as crypto/x509 does). The host name is checked
// on the leaf if opts.DNSName is set.
func (c *Certificate) Verify(opts VerifyOptions) ([][]*Certificate, error) {
	if len(c.Raw) == 0 {
		return nil, errors.New("x509: certificate is missing the raw bytes")
	}
	if opts.Intermediates == nil {
		opts.Intermediates = NewCertPool()
	}
	if opts.Roots == nil {
		roots, err := SystemCertPool()
		if err != nil {
			return nil, SystemRootsError{Err: err}
		}
		opts.Roots = roots
	}
	if opts.CurrentTime.IsZero() {
		opts.CurrentTime = time.Now()
	}
	if err := c.isValid(leafCertificate, nil, &opts); err != nil {
		return nil, err
	}
	if opts.DNSName != "" {
		if err := c.VerifyHostname(opts.DNSName); err != nil {
			return nil, err
		}
	}

	var candidates [][]*Certificate
	if opts.Roots.contains(c) {
		candidates = [][]*Certificate{{c}}
	} else {
		var err error
		sigChecks := 0
		candidates, err = c.buildChains([]*Certificate{c}, &sigChecks, &opts)
		if err != nil {
			return nil, err
		}
	}

	keyUsages := opts.KeyUsages
	if len(keyUsages) == 0 {
		keyUsages = []ExtKeyUsage{ExtKeyUsageServerAuth}
	}
	for _, u := range keyUsages {
		if u == ExtKeyUsageAny {
			return candidates, nil
		}
	}
	var chains [][]*Certificate
	var incompatible *Certificate
	for _, chain := range candidates {
		if bad := checkChainForKeyUsage(chain, keyUsages); bad == nil {
			chains = append(chains, chain)
		} else if incompatible == nil {
			incompatible = bad
		}
	}
	if len(chains) == 0 {
		if incompatible == c {
			return nil, CertificateInvalidError{c, IncompatibleUsage, ""}
		}
		return nil, CertificateInvalidError{incompatible, CANotAuthorizedForExtKeyUsage, "requested usage not allowed by the chain"}
	}
	return chains, nil
}

// SystemRootsError results when the system root pool cannot be loaded.
type SystemRootsError struct {
	Err error
}

func (se SystemRootsError) Error() string {
	msg := "x509: failed to load system roots and no roots provided"
	if se.Err != nil {
		return msg + "; " + se.Err.Error()
	}
	return msg
}

func (se SystemRootsError) Unwrap() error { return se.Err }

func appendToFreshChain(chain []*Certificate, cert *Certificate) []*Certificate {
	n := make([]*Certificate, len(chain)+1)
	copy(n, chain)
	n[len(chain)] = cert
	return n
}

// alreadyInChain reports whether candidate (same subject and key) is already
// in chain; such a loop could otherwise be followed forever through
// cross-signed certificates.
func alreadyInChain(candidate *Certificate, chain []*Certificate) bool {
	for _, cert := range chain {
		if bytes.Equal(candidate.RawSubject, cert.RawSubject) &&
			bytes.Equal(candidate.RawSubjectPublicKeyInfo, cert.RawSubjectPublicKeyInfo) {
			return true
		}
	}
	return false
}

func (c *Certificate) buildChains(currentChain []*Certificate, sigChecks *int, opts *VerifyOptions) (chains [][]*Certificate, err error) {
	var hintErr error
	var hintCert *Certificate

	considerCandidate := func(certType int, candidate *Certificate) {
		if alreadyInChain(candidate, currentChain) {
			return
		}
		if *sigChecks >= maxChainSignatureChecks {
			err = errors.New("x509: signature check attempts limit reached while verifying certificate chain")
			return
		}
		*sigChecks++
		if err := c.CheckSignatureFrom(candidate); err != nil {
			if hintErr == nil {
				hintErr, hintCert = err, candidate
			}
			return
		}
		if err := candidate.isValid(certType, currentChain, opts); err != nil {
			if hintErr == nil {
				hintErr, hintCert = err, candidate
			}
			return
		}
		switch certType {
		case rootCertificate:
			chains = append(chains, appendToFreshChain(currentChain, candidate))
		case intermediateCertificate:
			if len(currentChain)+1 >= maxChainLength {
				if hintErr == nil {
					hintErr, hintCert = errors.New("x509: chain too long"), candidate
				}
				return
			}
			var childChains [][]*Certificate
			childChains, err = candidate.buildChains(appendToFreshChain(currentChain, candidate), sigChecks, opts)
			chains = append(chains, childChains...)
		}
	}

	for _, root := range opts.Roots.findPotentialParents(c) {
		considerCandidate(rootCertificate, root)
	}
	for _, inter := range opts.Intermediates.findPotentialParents(c) {
		considerCandidate(intermediateCertificate, inter)
	}

	if len(chains) > 0 {
		err = nil
	}
	if len(chains) == 0 && err == nil {
		err = UnknownAuthorityError{c, hintErr, hintCert}
	}
	return chains, err
}

// isValid performs the checks on c that do not depend on its issuer:
// validity period, critical extensions, CA status and path length, and the
// name constraints that c (an issuer) places on the leaf currentChain[0].
func (c *Certificate) isValid(certType int, currentChain []*Certificate, opts *VerifyOptions) error {
	if len(c.UnhandledCriticalExtensions) > 0 {
		return UnhandledCriticalExtension{}
	}
	if len(currentChain) > 0 {
		child := currentChain[len(currentChain)-1]
		if !bytes.Equal(child.RawIssuer, c.RawSubject) {
			return CertificateInvalidError{c, NameMismatch, ""}
		}
	}

	now := opts.CurrentTime
	if now.Before(c.NotBefore) {
		return CertificateInvalidError{c, Expired,
			fmt.Sprintf("current time %s is before %s", now.UTC().Format(time.RFC3339), c.NotBefore.UTC().Format(time.RFC3339))}
	}
	if now.After(c.NotAfter) {
		return CertificateInvalidError{c, Expired,
			fmt.Sprintf("current time %s is after %s", now.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339))}
	}

	if certType == intermediateCertificate && (!c.BasicConstraintsValid || !c.IsCA) {
		return CertificateInvalidError{c, NotAuthorizedToSign, ""}
	}
	if certType == intermediateCertificate || certType == rootCertificate {
		if c.BasicConstraintsValid && c.MaxPathLen >= 0 {
			numIntermediates := len(currentChain) - 1
			if numIntermediates > c.MaxPathLen {
				return CertificateInvalidError{c, TooManyIntermediates, ""}
			}
		}
		if c.hasNameConstraints() {
			if err := c.checkNameConstraintsOn(currentChain[0], opts); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkChainForKeyUsage returns nil if every certificate in chain allows one
// of the usages, or the first certificate that narrows them to nothing. As
// in crypto/x509, a certificate without an EKU extension allows everything,
// and the usages narrow from the leaf up.
func checkChainForKeyUsage(chain []*Certificate, keyUsages []ExtKeyUsage) *Certificate {
	usages := make([]ExtKeyUsage, len(keyUsages))
	copy(usages, keyUsages)
	for _, cert := range chain {
		if len(cert.ExtKeyUsage) == 0 && len(cert.UnknownExtKeyUsage) == 0 {
			continue
		}
		any := false
		for _, u := range cert.ExtKeyUsage {
			if u == ExtKeyUsageAny {
				any = true
			}
		}
		if any {
			continue
		}
		kept := usages[:0]
		for _, want := range usages {
			for _, have := range cert.ExtKeyUsage {
				if want == have {
					kept = append(kept, want)
					break
				}
			}
		}
		usages = kept
		if len(usages) == 0 {
			return cert
		}
	}
	return nil
}

// VerifyHostname returns nil if c is valid for host: an IP address literal
// (optionally in brackets) must equal one of the IP SANs; otherwise host is
// matched, case-insensitively, against the DNS SANs, where a SAN "*.x.y"
// matches exactly one leftmost label. The Common Name is never consulted, as
// in crypto/x509 since Go 1.15.
func (c *Certificate) VerifyHostname(h string) error {
	candidateIP := h
	if len(h) >= 3 && h[0] == '[' && h[len(h)-1] == ']' {
		candidateIP = h[1 : len(h)-1]
	}
	if ip := net.ParseIP(candidateIP); ip != nil {
		for _, candidate := range c.IPAddresses {
			if ip.Equal(candidate) {
				return nil
			}
		}
		return HostnameError{c, candidateIP}
	}
	candidateName := toLowerCaseASCII(strings.TrimSuffix(h, "."))
	// A wildcard is a pattern, never a name to look up.
	if candidateName == "" || strings.Contains(candidateName, "*") {
		return HostnameError{c, h}
	}
	for _, match := range c.DNSNames {
		if matchHostnames(toLowerCaseASCII(strings.TrimSuffix(match, ".")), candidateName) {
			return nil
		}
	}
	return HostnameError{c, h}
}

func matchHostnames(pattern, host string) bool {
	if pattern == "" || host == "" {
		return false
	}
	patternParts := strings.Split(pattern, ".")
	hostParts := strings.Split(host, ".")
	if len(patternParts) != len(hostParts) {
		return false
	}
	for i, patternPart := range patternParts {
		if i == 0 && patternPart == "*" && len(patternParts) > 2 {
			// A wildcard stands for one whole, non-empty label, and
			// only on the left of at least two more labels.
			if hostParts[0] == "" {
				return false
			}
			continue
		}
		if patternPart == "" || patternPart != hostParts[i] {
			return false
		}
	}
	return true
}

func toLowerCaseASCII(in string) string {
	isAlreadyLowerCase := true
	for _, c := range in {
		if 'A' <= c && c <= 'Z' {
			isAlreadyLowerCase = false
			break
		}
	}
	if isAlreadyLowerCase {
		return in
	}
	out := []byte(in)
	for i, c := range out {
		if 'A' <= c && c <= 'Z' {
			out[i] += 'a' - 'A'
		}
	}
	return string(out)
}

// --- name constraints (RFC 5280, 4.2.1.10) ---

func (c *Certificate) hasNameConstraints() bool {
	return len(c.PermittedDNSDomains)+len(c.ExcludedDNSDomains)+
		len(c.PermittedIPRanges)+len(c.ExcludedIPRanges)+
		len(c.PermittedEmailAddresses)+len(c.ExcludedEmailAddresses)+
		len(c.PermittedURIDomains)+len(c.ExcludedURIDomains) > 0
}

// checkNameConstraintsOn checks every SAN of leaf against c's constraints.
// Excluded subtrees win over permitted ones; a non-empty permitted list for a
// name type requires every name of that type to fall inside one entry.
func (c *Certificate) checkNameConstraintsOn(leaf *Certificate, opts *VerifyOptions) error {
	maxCmp := opts.MaxConstraintComparisions
	if maxCmp == 0 {
		maxCmp = 250000
	}
	count := 0
	check := func(nameType, name string, parsed any, permitted, excluded int, match func(parsed any, constraint int) (bool, error)) error {
		count += permitted + excluded
		if count > maxCmp {
			return CertificateInvalidError{c, TooManyConstraints, ""}
		}
		for i := 0; i < excluded; i++ {
			ok, err := match(parsed, -1-i)
			if err != nil {
				return CertificateInvalidError{c, CANotAuthorizedForThisName, err.Error()}
			}
			if ok {
				return CertificateInvalidError{c, CANotAuthorizedForThisName, fmt.Sprintf("%s %q is excluded", nameType, name)}
			}
		}
		if permitted == 0 {
			return nil
		}
		for i := 0; i < permitted; i++ {
			ok, err := match(parsed, i)
			if err != nil {
				return CertificateInvalidError{c, CANotAuthorizedForThisName, err.Error()}
			}
			if ok {
				return nil
			}
		}
		return CertificateInvalidError{c, CANotAuthorizedForThisName, fmt.Sprintf("%s %q is not permitted", nameType, name)}
	}
	// pick returns the constraint at index i (>= 0 permitted, < 0 excluded).
	pick := func(permitted, excluded []string, i int) string {
		if i >= 0 {
			return permitted[i]
		}
		return excluded[-1-i]
	}

	for _, name := range leaf.DNSNames {
		if _, ok := domainToReverseLabels(name); !ok {
			return CertificateInvalidError{c, CANotAuthorizedForThisName, fmt.Sprintf("cannot parse dnsName %q", name)}
		}
		err := check("DNS name", name, name, len(c.PermittedDNSDomains), len(c.ExcludedDNSDomains), func(p any, i int) (bool, error) {
			return matchDomainConstraint(p.(string), pick(c.PermittedDNSDomains, c.ExcludedDNSDomains, i))
		})
		if err != nil {
			return err
		}
	}
	for _, email := range leaf.EmailAddresses {
		mailbox, ok := parseRFC2821Mailbox(email)
		if !ok {
			return CertificateInvalidError{c, CANotAuthorizedForThisName, fmt.Sprintf("cannot parse rfc822Name %q", email)}
		}
		err := check("email address", email, mailbox, len(c.PermittedEmailAddresses), len(c.ExcludedEmailAddresses), func(p any, i int) (bool, error) {
			return matchEmailConstraint(p.(rfc2821Mailbox), pick(c.PermittedEmailAddresses, c.ExcludedEmailAddresses, i))
		})
		if err != nil {
			return err
		}
	}
	for _, ip := range leaf.IPAddresses {
		err := check("IP address", ip.String(), ip, len(c.PermittedIPRanges), len(c.ExcludedIPRanges), func(p any, i int) (bool, error) {
			var n *net.IPNet
			if i >= 0 {
				n = c.PermittedIPRanges[i]
			} else {
				n = c.ExcludedIPRanges[-1-i]
			}
			return matchIPConstraint(p.(net.IP), n), nil
		})
		if err != nil {
			return err
		}
	}
	for _, uri := range leaf.URIs {
		err := check("URI", uri.String(), uri, len(c.PermittedURIDomains), len(c.ExcludedURIDomains), func(p any, i int) (bool, error) {
			return matchURIConstraint(p.(*url.URL), pick(c.PermittedURIDomains, c.ExcludedURIDomains, i))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func matchIPConstraint(ip net.IP, constraint *net.IPNet) bool {
	// An IPv4 address never matches an IPv6 range and vice versa.
	if (len(ip.To4()) == net.IPv4len) != (len(constraint.IP) == net.IPv4len) {
		return false
	}
	if len(ip) != len(constraint.IP) {
		if v4 := ip.To4(); v4 != nil && len(constraint.IP) == net.IPv4len {
			ip = v4
		} else {
			return false
		}
	}
	for i := range ip {
		if mask := constraint.Mask[i]; ip[i]&mask != constraint.IP[i]&mask {
			return false
		}
	}
	return true
}

// domainToReverseLabels splits a domain into labels, last first, rejecting
// empty labels and non-ASCII input.
func domainToReverseLabels(domain string) (reverseLabels []string, ok bool) {
	if domain == "" {
		return nil, false
	}
	for len(domain) > 0 {
		if i := strings.LastIndexByte(domain, '.'); i == -1 {
			reverseLabels = append(reverseLabels, domain)
			domain = ""
		} else {
			reverseLabels = append(reverseLabels, domain[i+1:])
			domain = domain[:i]
			if i == 0 {
				// The domain started with a dot: an empty label.
				reverseLabels = append(reverseLabels, "")
			}
		}
	}
	for _, label := range reverseLabels {
		if label == "" {
			return nil, false
		}
		for _, c := range label {
			if c < 33 || c > 126 {
				return nil, false
			}
		}
	}
	return reverseLabels, true
}

// matchDomainConstraint: "example.com" matches example.com and any
// subdomain; ".example.com" matches only subdomains.
func matchDomainConstraint(domain, constraint string) (bool, error) {
	if constraint == "" {
		return true, nil
	}
	domainLabels, ok := domainToReverseLabels(domain)
	if !ok {
		return false, fmt.Errorf("cannot parse domain %q", domain)
	}
	mustHaveSubdomains := false
	if constraint[0] == '.' {
		mustHaveSubdomains = true
		constraint = constraint[1:]
	}
	constraintLabels, ok := domainToReverseLabels(constraint)
	if !ok {
		return false, fmt.Errorf("cannot parse domain constraint %q", constraint)
	}
	if len(domainLabels) < len(constraintLabels) ||
		(mustHaveSubdomains && len(domainLabels) == len(constraintLabels)) {
		return false, nil
	}
	for i, constraintLabel := range constraintLabels {
		if !strings.EqualFold(constraintLabel, domainLabels[i]) {
			return false, nil
		}
	}
	return true, nil
}

type rfc2821Mailbox struct {
	local, domain string
}

// parseRFC2821Mailbox splits an address at its last '@'. Quoted local parts
// are accepted as opaque text; the domain must be a valid host name.
func parseRFC2821Mailbox(in string) (rfc2821Mailbox, bool) {
	i := strings.LastIndexByte(in, '@')
	if i <= 0 || i == len(in)-1 {
		return rfc2821Mailbox{}, false
	}
	local, domain := in[:i], in[i+1:]
	for _, c := range local {
		if c < 33 || c > 126 {
			return rfc2821Mailbox{}, false
		}
	}
	if _, ok := domainToReverseLabels(domain); !ok {
		return rfc2821Mailbox{}, false
	}
	return rfc2821Mailbox{local, domain}, true
}

// matchEmailConstraint: a constraint with '@' names one mailbox; otherwise it
// is a host ("example.com": that host only) or a domain (".example.com": any
// host below it).
func matchEmailConstraint(mailbox rfc2821Mailbox, constraint string) (bool, error) {
	if strings.Contains(constraint, "@") {
		cm, ok := parseRFC2821Mailbox(constraint)
		if !ok {
			return false, fmt.Errorf("cannot parse constraint %q", constraint)
		}
		return mailbox.local == cm.local && strings.EqualFold(mailbox.domain, cm.domain), nil
	}
	if strings.HasPrefix(constraint, ".") {
		return matchDomainConstraint(mailbox.domain, constraint)
	}
	return strings.EqualFold(mailbox.domain, constraint), nil
}

func matchURIConstraint(uri *url.URL, constraint string) (bool, error) {
	host := uri.Host
	if host == "" {
		return false, fmt.Errorf("URI with empty host (%q) cannot be matched against constraints", uri.String())
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if strings.HasPrefix(host, "[") || net.ParseIP(host) != nil {
		return false, fmt.Errorf("URI with IP (%q) cannot be matched against constraints", uri.String())
	}
	return matchDomainConstraint(host, constraint)
}
