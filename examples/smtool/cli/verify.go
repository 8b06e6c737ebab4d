// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "cert verify",
		group:   "Keys and certificates",
		summary: "verify certificates: roots, CRLs, host name, TLCP sign/enc pair",
		args:    "CERT...",
		about: `Each CERT file is verified on its own: its first certificate is the leaf, the rest of
the file serves as intermediates. With -pair, or when a file holds two end-entity
certificates (GmSSL's combined server file), the two leaves are also checked as a TLCP
pair: a signing certificate and an encryption certificate of the same subject, issued by
the same CA, with two different keys. -crl checks revocation of every certificate in the
chain whose issuer has a CRL among those given, and requires one for the leaf.`,
		example: []string{
			"smtool cert verify -CAfile ca.pem -host localhost server_sign.pem",
			"smtool cert verify -CAfile ca.pem -crl ca.crl -pair server_sign.pem server_enc.pem",
		},
		run: certVerify,
	})
}

// readCertificates reads every certificate of a PEM or DER file.
func readCertificates(path string) ([]*smx509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(data, []byte("-----BEGIN")) {
		certs, err := smx509.ParseCertificates(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(certs) == 0 {
			return nil, fmt.Errorf("%s: no certificates found", path)
		}
		return certs, nil
	}
	var certs []*smx509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" && block.Type != "X509 CERTIFICATE" {
			continue
		}
		c, err := smx509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s: no certificates found; it holds %s", path, smx.DescribePEM(data))
	}
	return certs, nil
}

// readCRLs reads every CRL of a PEM or DER file.
func readCRLs(path string) ([]*smx509.RevocationList, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(data, []byte("-----BEGIN")) {
		l, err := smx509.ParseRevocationList(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return []*smx509.RevocationList{l}, nil
	}
	var crls []*smx509.RevocationList
	for rest := data; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if block.Type != "X509 CRL" {
			continue
		}
		l, err := smx509.ParseRevocationList(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		crls = append(crls, l)
	}
	if len(crls) == 0 {
		return nil, fmt.Errorf("%s: no CRL found; it holds %s", path, smx.DescribePEM(data))
	}
	return crls, nil
}

func isCA(c *smx509.Certificate) bool { return c.BasicConstraintsValid && c.IsCA }

// verifier holds what a certificate is verified against; cert verify,
// s_client and s_server share it.
type verifier struct {
	roots *smx509.CertPool
	crls  []*smx509.RevocationList
	// crlAll requires a CRL for every certificate of the chain, not just
	// the leaf (openssl's -crl_check_all).
	crlAll bool
	at     time.Time
}

// verify builds a chain for leaf, checks host (a DNS name or an IP
// address, if not empty), the extended key usage, and revocation.
func (v *verifier) verify(leaf *smx509.Certificate, inter []*smx509.Certificate, host string, eku smx509.ExtKeyUsage) ([][]*smx509.Certificate, error) {
	if v.roots == nil {
		return nil, errors.New("no trusted roots (-CAfile)")
	}
	pool := smx509.NewCertPool()
	for _, c := range inter {
		pool.AddCert(c)
	}
	chains, err := leaf.Verify(smx509.VerifyOptions{
		Roots:         v.roots,
		Intermediates: pool,
		DNSName:       host,
		CurrentTime:   v.at,
		KeyUsages:     []smx509.ExtKeyUsage{eku},
	})
	if err != nil {
		return nil, err
	}
	if len(v.crls) > 0 {
		if err := v.checkRevocation(chains[0]); err != nil {
			return chains, err
		}
	}
	return chains, nil
}

// checkRevocation checks each certificate of chain (leaf first) against
// the CRL of its issuer.
func (v *verifier) checkRevocation(chain []*smx509.Certificate) error {
	now := v.at
	if now.IsZero() {
		now = time.Now()
	}
	for i := 0; i+1 < len(chain); i++ {
		c, issuer := chain[i], chain[i+1]
		var crl *smx509.RevocationList
		var sigErr error
		for _, l := range v.crls {
			if !bytes.Equal(l.RawIssuer, c.RawIssuer) {
				continue
			}
			if err := l.CheckSignatureFrom(issuer); err != nil {
				sigErr = err
				continue
			}
			if crl == nil || l.ThisUpdate.After(crl.ThisUpdate) {
				crl = l
			}
		}
		if crl == nil {
			if sigErr != nil {
				return fmt.Errorf("the CRL of %q is not signed by its issuer: %w", commonName(c.RawIssuer), sigErr)
			}
			if i == 0 || v.crlAll {
				return fmt.Errorf("unable to get the CRL of %q, the issuer of %q (give it with -crl)", commonName(c.RawIssuer), commonName(c.RawSubject))
			}
			continue
		}
		if crl.ThisUpdate.After(now) {
			return fmt.Errorf("the CRL of %q is not yet valid (lastUpdate %s)", commonName(c.RawIssuer), opensslTime(crl.ThisUpdate))
		}
		if !crl.NextUpdate.IsZero() && crl.NextUpdate.Before(now) {
			return fmt.Errorf("the CRL of %q has expired (nextUpdate %s)", commonName(c.RawIssuer), opensslTime(crl.NextUpdate))
		}
		for _, e := range crl.RevokedCertificateEntries {
			if e.SerialNumber.Cmp(c.SerialNumber) == 0 {
				return fmt.Errorf("certificate revoked: %q (serial %s) on %s, reason %s", commonName(c.RawSubject),
					serialHex(c.SerialNumber), opensslTime(e.RevocationTime), reasonName(e.ReasonCode))
			}
		}
	}
	return nil
}

// gmsslWarnings names what makes GmSSL 3 refuse a certificate that this
// package and OpenSSL accept.
func gmsslWarnings(c *smx509.Certificate) []string {
	var w []string
	if c.BasicConstraintsValid && !c.IsCA {
		w = append(w, "it has an empty basicConstraints extension (CA:FALSE), which GmSSL 3 refuses; leave the extension out of end-entity certificates")
	}
	if days := int(c.NotAfter.Sub(c.NotBefore).Hours() / 24); c.NotAfter.Sub(c.NotBefore) > gmsslMaxValidity {
		w = append(w, fmt.Sprintf("it is valid for %d days; GmSSL 3 refuses more than 3653", days))
	}
	return w
}

// chainString is "a" <- "b" <- "root".
func chainString(chain []*smx509.Certificate) string {
	var names []string
	for _, c := range chain {
		names = append(names, fmt.Sprintf("%q", commonName(c.RawSubject)))
	}
	return strings.Join(names, " <- ")
}

// pairProblems checks that sign and enc form a TLCP double certificate
// (tlcp/INTEROP.md §5): the key usages of the two roles, one subject, one
// issuer, two keys. It returns the errors, and warnings for what some
// peers check and others do not.
func pairProblems(sign, enc *smx509.Certificate) (errs, warnings []string) {
	if !sign.IsTLCPSignCert() {
		errs = append(errs, fmt.Sprintf("the signing certificate %q is not a TLCP signing certificate (SM2, key usage digitalSignature)", commonName(sign.RawSubject)))
	} else if sign.IsTLCPEncCert() && sign.KeyUsage != 0 {
		warnings = append(warnings, "the signing certificate allows encryption too; TLCP peers expect separate key usages")
	}
	if !enc.IsTLCPEncCert() {
		errs = append(errs, fmt.Sprintf("the encryption certificate %q is not a TLCP encryption certificate (SM2, key usage keyEncipherment, dataEncipherment or keyAgreement)", commonName(enc.RawSubject)))
	} else {
		if enc.IsTLCPSignCert() && enc.KeyUsage != 0 {
			warnings = append(warnings, "the encryption certificate allows signing too; TLCP peers expect separate key usages")
		}
		if enc.KeyUsage&smx509.KeyUsageKeyEncipherment == 0 {
			warnings = append(warnings, "the encryption certificate lacks keyEncipherment, which GmSSL insists on")
		}
	}
	if !bytes.Equal(sign.RawSubject, enc.RawSubject) {
		if sharesName(sign, enc) {
			warnings = append(warnings, fmt.Sprintf("the subjects differ (%s / %s) though a DNS name or IP address is shared; this package accepts that, GmSSL and Kona do not", nameString(sign.RawSubject), nameString(enc.RawSubject)))
		} else {
			errs = append(errs, fmt.Sprintf("the subjects differ: %s / %s", nameString(sign.RawSubject), nameString(enc.RawSubject)))
		}
	}
	if !bytes.Equal(sign.RawIssuer, enc.RawIssuer) {
		errs = append(errs, fmt.Sprintf("the issuers differ: %s / %s", nameString(sign.RawIssuer), nameString(enc.RawIssuer)))
	} else if len(sign.AuthorityKeyId) > 0 && len(enc.AuthorityKeyId) > 0 && !bytes.Equal(sign.AuthorityKeyId, enc.AuthorityKeyId) {
		errs = append(errs, "the issuers have the same name but different keys (authority key identifiers differ)")
	}
	if bytes.Equal(sign.RawSubjectPublicKeyInfo, enc.RawSubjectPublicKeyInfo) {
		errs = append(errs, "both certificates hold the same public key; TLCP needs two key pairs")
	}
	if !slices.Equal(sign.DNSNames, enc.DNSNames) || !slices.EqualFunc(sign.IPAddresses, enc.IPAddresses, net.IP.Equal) ||
		!slices.Equal(sign.EmailAddresses, enc.EmailAddresses) {
		warnings = append(warnings, "the subject alternative names differ between the two certificates")
	}
	if !slices.Equal(sign.ExtKeyUsage, enc.ExtKeyUsage) {
		warnings = append(warnings, fmt.Sprintf("the extended key usages differ (%s / %s)", extKeyUsageString(sign), extKeyUsageString(enc)))
	}
	return errs, warnings
}

// sharesName reports whether two certificates have a DNS name or IP
// address in common.
func sharesName(a, b *smx509.Certificate) bool {
	for _, n := range a.DNSNames {
		if slices.Contains(b.DNSNames, n) {
			return true
		}
	}
	for _, ip := range a.IPAddresses {
		if slices.ContainsFunc(b.IPAddresses, ip.Equal) {
			return true
		}
	}
	return false
}

func parsePurpose(p string) (smx509.ExtKeyUsage, error) {
	switch p {
	case "", "any":
		return smx509.ExtKeyUsageAny, nil
	case "server", "sslserver", "serverAuth":
		return smx509.ExtKeyUsageServerAuth, nil
	case "client", "sslclient", "clientAuth":
		return smx509.ExtKeyUsageClientAuth, nil
	}
	return 0, usagef("unknown -purpose %q (want any, server or client)", p)
}

func certVerify(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	roots := fs.String("CAfile", "", "trusted root certificates (PEM or DER `FILE`)")
	fs.alias("CAfile", "roots", "cacert")
	inters := fs.String("untrusted", "", "intermediate certificates (PEM or DER `FILE`)")
	fs.alias("untrusted", "intermediates")
	crlFiles := &listFlag{}
	fs.Var(crlFiles, "crl", "CRL `FILE` to check revocation with (may be repeated)")
	fs.alias("crl", "CRLfile")
	crlAll := fs.Bool("crl_check_all", false, "with -crl: require a CRL for every certificate of the chain, not only the leaf")
	host := fs.String("host", "", "check the leaf is valid for this DNS `name` or IP address")
	fs.alias("host", "verify_hostname", "verify_ip")
	purpose := fs.String("purpose", "any", "required extended key usage: `any`, server or client")
	at := fs.String("at", "", "verify at this `time` instead of now (YYYY-MM-DD or RFC 3339)")
	fs.alias("at", "attime")
	pair := fs.Bool("pair", false, "the two CERT files are a TLCP signing and encryption certificate: check them as a pair")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if *roots == "" {
		return usagef("-CAfile FILE is required (there are no built-in SM2 roots)")
	}
	if len(rest) == 0 {
		return usagef("missing CERT file")
	}
	if *pair && len(rest) != 2 {
		return usagef("-pair wants two CERT files (signing, then encryption), got %d", len(rest))
	}
	eku, err := parsePurpose(*purpose)
	if err != nil {
		return err
	}
	v := &verifier{roots: smx509.NewCertPool(), crlAll: *crlAll}
	if *at != "" {
		if v.at, err = parseDate(*at); err != nil {
			return usagef("-at: %v", err)
		}
	}
	rootCerts, err := readCertificates(*roots)
	if err != nil {
		return err
	}
	for _, c := range rootCerts {
		v.roots.AddCert(c)
	}
	var inter []*smx509.Certificate
	if *inters != "" {
		if inter, err = readCertificates(*inters); err != nil {
			return err
		}
	}
	for _, f := range crlFiles.values {
		l, err := readCRLs(f)
		if err != nil {
			return err
		}
		v.crls = append(v.crls, l...)
	}

	// Each file: its leaf (or, for a GmSSL pair file, both leaves) and
	// the rest as intermediates.
	type item struct {
		file string
		leaf *smx509.Certificate
	}
	var items []item
	var pairs [][2]item
	var files [][]*smx509.Certificate
	for _, name := range rest {
		certs, err := readCertificates(name)
		if err != nil {
			return err
		}
		files = append(files, certs)
		var leaves []*smx509.Certificate
		for _, c := range certs {
			if !isCA(c) {
				leaves = append(leaves, c)
			}
		}
		if len(leaves) == 0 {
			leaves = certs[:1] // a CA certificate verified on its own
		}
		if len(leaves) == 2 && !*pair {
			// GmSSL's combined file: signing, encryption, CA...
			s, n := item{name + " (first certificate)", leaves[0]}, item{name + " (second certificate)", leaves[1]}
			items = append(items, s, n)
			pairs = append(pairs, [2]item{s, n})
			continue
		}
		if len(leaves) > 2 {
			return fmt.Errorf("%s holds %d end-entity certificates; give one (or a signing and encryption pair) per file", name, len(leaves))
		}
		items = append(items, item{name, leaves[0]})
	}
	if *pair {
		pairs = append(pairs, [2]item{items[0], items[1]})
	}
	// Every certificate of every file may serve as an intermediate.
	for _, certs := range files {
		for _, c := range certs {
			if isCA(c) {
				inter = append(inter, c)
			}
		}
	}

	failed := false
	for _, it := range items {
		chains, err := v.verify(it.leaf, inter, *host, eku)
		if err != nil && len(items) == 1 && len(pairs) == 0 {
			// One certificate: the failure is the command's error.
			return fmt.Errorf("%s: verification failed: %w", it.file, err)
		}
		if err != nil {
			fmt.Fprintf(e.stdout, "%s: verification failed: %v\n", it.file, err)
			failed = true
			continue
		}
		fmt.Fprintf(e.stdout, "%s: OK (chain: %s)\n", it.file, chainString(chains[0]))
		for _, c := range chains[0] {
			for _, w := range gmsslWarnings(c) {
				fmt.Fprintf(e.stdout, "%s: warning: %q: %s\n", it.file, commonName(c.RawSubject), w)
			}
		}
	}
	for _, p := range pairs {
		errs, warns := pairProblems(p[0].leaf, p[1].leaf)
		for _, w := range warns {
			fmt.Fprintf(e.stdout, "pair: warning: %s\n", w)
		}
		if len(errs) > 0 {
			fmt.Fprintf(e.stdout, "pair: NOT a TLCP pair: %s\n", strings.Join(errs, "; "))
			failed = true
			continue
		}
		fmt.Fprintf(e.stdout, "pair: OK (signing %s, encryption %s: subject %s, issuer %s)\n",
			serialHex(p[0].leaf.SerialNumber), serialHex(p[1].leaf.SerialNumber), nameString(p[0].leaf.RawSubject), nameString(p[0].leaf.RawIssuer))
	}
	if failed {
		return &statusError{1}
	}
	return nil
}

// parseDate reads YYYY-MM-DD, RFC 3339, or seconds since 1970 (openssl's
// -attime).
func parseDate(s string) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) > 8 {
		return time.Unix(n, 0).UTC(), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot parse time %q (want YYYY-MM-DD, RFC 3339 or seconds since 1970)", s)
}
