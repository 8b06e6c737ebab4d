// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "req",
		group:   "Keys and certificates",
		summary: "make a certificate request (PKCS #10) with subject and alt names",
		about: `The subject is given in openssl's form (-subj /C=CN/O=Example/CN=www.example.cn) or, as
GmSSL's reqgen takes it, field by field (-C CN -O Example -CN www.example.cn). The
alternative names come from -hosts (DNS names and IP addresses) and -san / -addext
(openssl's subjectAltName syntax: DNS:, IP:, email:, URI:); every name is checked.`,
		example: []string{
			"smtool req -key server_sign.key -subj /C=CN/O=Example/CN=www.example.cn -hosts www.example.cn,10.0.0.1 -out sign.csr",
			"smtool req -newkey sm2 -keyout enc.key -subj /C=CN/O=Example/CN=www.example.cn -out enc.csr",
		},
		run: reqCmd,
	})
	register(&command{
		name:    "ca sign",
		group:   "Keys and certificates",
		summary: "issue a certificate from a request as sign, enc or CA certificate",
		args:    "[-in] REQ",
		about: `-role sets the key usage: sign (digitalSignature), enc (keyEncipherment,
dataEncipherment, keyAgreement) or ca (keyCertSign, cRLSign, with basic constraints
CA:TRUE); -key_usage and -ext_key_usage (GmSSL's names) set them one by one instead.
The request's signature is checked; its subject and alternative names are copied
unless -subj, -hosts or -san replace them.`,
		example: []string{
			"smtool ca sign -CA ca.pem -CAkey ca.key -in sign.csr -role sign -eku serverAuth -days 365 -out sign.pem",
			"smtool ca sign -CA ca.pem -CAkey ca.key -CApass env:CAPASS -in enc.csr -role enc -out enc.pem",
		},
		run: caSign,
	})
	register(&command{
		name:    "crl gen",
		group:   "Keys and certificates",
		summary: "issue a CRL revoking certificates by file or serial, or extend one",
		example: []string{
			"smtool crl gen -CA ca.pem -CAkey ca.key -revoke client_sign.pem -reason keyCompromise -days 30 -out ca.crl",
			"smtool crl gen -CA ca.pem -CAkey ca.key -in ca.crl -revoke 1A2B3C -out ca.crl",
		},
		run: crlGen,
	})
}

// issued is a certificate with its key and the file stem it is written as.
type issued struct {
	Name string
	Cert *smx509.Certificate
	Key  crypto.Signer
}

// Key usages of the two TLCP roles (tlcp/INTEROP.md §5): the signing key signs
// ServerKeyExchange/CertificateVerify; the encryption key decrypts the ECC
// premaster or takes part in the SM2 key exchange.
const (
	tlcpSignUsage = smx509.KeyUsageDigitalSignature
	tlcpEncUsage  = smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement
	caUsage       = smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign
)

func roleUsage(role string) (smx509.KeyUsage, bool, error) {
	switch role {
	case "sign":
		return tlcpSignUsage, false, nil
	case "enc":
		return tlcpEncUsage, false, nil
	case "ca":
		return caUsage, true, nil
	}
	return 0, false, usagef("-role: unknown %q (want sign, enc or ca)", role)
}

// GmSSL's -key_usage names (RFC 5280's).
var keyUsageByName = map[string]smx509.KeyUsage{
	"digitalSignature": smx509.KeyUsageDigitalSignature, "nonRepudiation": smx509.KeyUsageContentCommitment,
	"contentCommitment": smx509.KeyUsageContentCommitment, "keyEncipherment": smx509.KeyUsageKeyEncipherment,
	"dataEncipherment": smx509.KeyUsageDataEncipherment, "keyAgreement": smx509.KeyUsageKeyAgreement,
	"keyCertSign": smx509.KeyUsageCertSign, "cRLSign": smx509.KeyUsageCRLSign,
	"encipherOnly": smx509.KeyUsageEncipherOnly, "decipherOnly": smx509.KeyUsageDecipherOnly,
}

var extKeyUsageByName = map[string]smx509.ExtKeyUsage{
	"serverAuth": smx509.ExtKeyUsageServerAuth, "server": smx509.ExtKeyUsageServerAuth,
	"clientAuth": smx509.ExtKeyUsageClientAuth, "client": smx509.ExtKeyUsageClientAuth,
	"codeSigning": smx509.ExtKeyUsageCodeSigning, "emailProtection": smx509.ExtKeyUsageEmailProtection,
	"timeStamping": smx509.ExtKeyUsageTimeStamping, "OCSPSigning": smx509.ExtKeyUsageOCSPSigning,
	"anyExtendedKeyUsage": smx509.ExtKeyUsageAny, "any": smx509.ExtKeyUsageAny,
}

func namesOf[V any](m map[string]V) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	return strings.Join(sortStrings(names), ", ")
}

func randomSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	return n.Add(n, big.NewInt(1)), nil // positive, never zero
}

// parseSerial reads a serial number in hex, as openssl prints them
// (optionally 0x-prefixed or with colons).
func parseSerial(s string) (*big.Int, error) {
	h := strings.ReplaceAll(strings.TrimPrefix(strings.ToLower(s), "0x"), ":", "")
	n, ok := new(big.Int).SetString(h, 16)
	if !ok || n.Sign() <= 0 || len(n.Bytes()) > 20 {
		return nil, fmt.Errorf("%q is not a serial number (positive hexadecimal, at most 20 bytes)", s)
	}
	return n, nil
}

// caFlags are the issuing CA's certificate, key and key password.
type caFlags struct{ cert, key, pass *string }

func addCAFlags(fs *flagSet) *caFlags {
	f := &caFlags{
		cert: fs.String("CA", "", "the issuing CA's certificate (PEM `FILE`)"),
		key:  fs.String("CAkey", "", "the CA's private key (`FILE`, any form; encrypted with -CApass)"),
		pass: fs.String("CApass", "", "`password` of -CAkey: "+passUsage),
	}
	fs.alias("CA", "cacert", "ca-cert", "cert")
	fs.alias("CAkey", "cakey", "ca-key", "keyfile")
	fs.alias("CApass", "ca-pass", "passin")
	return f
}

func (f *caFlags) load(e *env) (*issued, error) {
	if *f.cert == "" || *f.key == "" {
		return nil, usagef("-CA FILE and -CAkey FILE are required")
	}
	return loadCA(e, *f.cert, *f.key, "CApass", *f.pass)
}

// loadCA reads a CA certificate and its key, checking that they belong
// together and that the certificate may issue certificates.
func loadCA(e *env, certFile, keyFile, passFlag, passSpec string) (*issued, error) {
	certs, err := readCertificates(certFile)
	if err != nil {
		return nil, err
	}
	key, err := loadPrivateKey(e, keyFile, passFlag, passSpec)
	if err != nil {
		return nil, err
	}
	ca := certs[0]
	if !publicKeysEqual(ca.PublicKey, key.Public()) {
		return nil, fmt.Errorf("%s does not belong to %s (the key is not the certificate's)", keyFile, certFile)
	}
	if !isCA(ca) {
		return nil, fmt.Errorf("%s is not a CA certificate (no basic constraints CA:TRUE)", certFile)
	}
	if ca.KeyUsage != 0 && ca.KeyUsage&smx509.KeyUsageCertSign == 0 {
		return nil, fmt.Errorf("%s may not sign certificates (its key usage lacks keyCertSign)", certFile)
	}
	return &issued{"ca", ca, key}, nil
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	ea, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && ea.Equal(b)
}

// validity is -days or -not-before/-not-after.
type validity struct {
	days                *int
	notBefore, notAfter *string
}

func addValidityFlags(fs *flagSet, defDays int) *validity {
	v := &validity{
		days:      fs.Int("days", defDays, "valid for `N` days from -not-before (default: now)"),
		notBefore: fs.String("not-before", "", "start of validity (`DATE`: YYYY-MM-DD or RFC 3339; default now)"),
		notAfter:  fs.String("not-after", "", "end of validity (`DATE`), instead of -days"),
	}
	fs.alias("not-before", "not_before", "startdate")
	fs.alias("not-after", "not_after", "enddate")
	return v
}

func (v *validity) get(fs *flagSet) (time.Time, time.Time, error) {
	nb := time.Now().UTC().Truncate(time.Second)
	var err error
	if *v.notBefore != "" {
		if nb, err = parseDate(*v.notBefore); err != nil {
			return nb, nb, usagef("-not-before: %v", err)
		}
	}
	if *v.notAfter != "" && fs.isSet("days") {
		return nb, nb, usagef("-days and -not-after exclude each other")
	}
	if *v.days <= 0 && *v.notAfter == "" {
		return nb, nb, usagef("-days must be positive")
	}
	na := nb.AddDate(0, 0, *v.days)
	if *v.notAfter != "" {
		if na, err = parseDate(*v.notAfter); err != nil {
			return nb, na, usagef("-not-after: %v", err)
		}
	}
	if !na.After(nb) {
		return nb, na, usagef("the end of validity must be later than its start")
	}
	return nb, na, nil
}

// gmsslMaxValidity is the longest validity GmSSL 3 accepts
// (X509_VALIDITY_MAX_DAYS, 3653 days).
const gmsslMaxValidity = 3653 * 24 * time.Hour

func warnGmSSLValidity(e *env, nb, na time.Time) {
	if na.Sub(nb) > gmsslMaxValidity {
		e.warnf("valid for %d days: GmSSL 3 refuses certificates valid for more than 3653 days", int(na.Sub(nb).Hours()/24))
	}
}

// ---- req ----

func reqCmd(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	keyFile := fs.String("key", "", "sign the request with this private key `FILE`")
	passin := fs.String("passin", "", "`password` of -key: "+passUsage)
	fs.alias("passin", "pass")
	newkey := fs.String("newkey", "", "make a new key instead of -key: `sm2` (written to -keyout)")
	keyout := fs.String("keyout", "", "with -newkey: write the new key to `FILE`")
	passout := fs.String("passout", "", "with -newkey: encrypt the new key with this `password`: "+passUsage)
	pbe := fs.String("pbe", "gmssl", "encryption of -keyout: `gmssl`, tongsuo or openssl")
	subj := fs.String("subj", "", "the subject, `/C=CN/O=.../CN=...`")
	nameFlags := addNameFieldFlags(fs)
	hosts := fs.String("hosts", "", "comma-separated DNS names and IP addresses for subjectAltName")
	san := &listFlag{}
	fs.Var(san, "san", "subjectAltName `list`: DNS:name,IP:addr,email:addr,URI:uri (may be repeated)")
	fs.alias("san", "addext")
	out := fs.String("out", "", "output `FILE` (default: standard output)")
	outform := fs.String("outform", "pem", "`pem` or der")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	var key crypto.Signer
	switch {
	case *keyFile != "" && *newkey != "":
		return usagef("-key and -newkey exclude each other")
	case *keyFile != "":
		if key, err = loadPrivateKey(e, *keyFile, "passin", *passin); err != nil {
			return err
		}
	case *newkey != "":
		if !strings.EqualFold(*newkey, "sm2") && !strings.EqualFold(*newkey, "ec") {
			return usagef("-newkey %s: smtool makes SM2 keys only (-newkey sm2)", *newkey)
		}
		if *keyout == "" {
			return usagef("-newkey needs -keyout FILE for the new key")
		}
		if key, err = sm2.GenerateKey(rand.Reader); err != nil {
			return err
		}
		k := &keyOutFlags{out: keyout, pubout: new(string), format: ptr("pkcs8"), pass: passout, pbe: pbe}
		if err := k.write(e, key, "passout"); err != nil {
			return err
		}
	default:
		return usagef("give the key: -key FILE, or -newkey sm2 -keyout FILE")
	}
	rawSubject, err := subjectFlag(*subj, nameFlags)
	if err != nil {
		return err
	}
	if rawSubject == nil {
		return usagef("-subj (or -CN and friends) is required")
	}
	var names sans
	if *hosts != "" {
		if err := names.addHosts(*hosts); err != nil {
			return usagef("-hosts: %v", err)
		}
	}
	for _, s := range san.values {
		if err := names.addSAN(s); err != nil {
			return usagef("-san: %v", err)
		}
	}
	der, err := smx509.CreateCertificateRequest(rand.Reader, &smx509.CertificateRequest{
		RawSubject: rawSubject, DNSNames: names.dns, IPAddresses: names.ips,
		EmailAddresses: names.emails, URIs: names.uris,
	}, key)
	if err != nil {
		return err
	}
	return writeObject(e, *out, *outform, "CERTIFICATE REQUEST", der)
}

func ptr[T any](v T) *T { return &v }

// nameFieldFlags are GmSSL's -C -ST -L -O -OU -CN.
type nameFieldFlags [6]*string

func addNameFieldFlags(fs *flagSet) *nameFieldFlags {
	var f nameFieldFlags
	for i, n := range []string{"C", "ST", "L", "O", "OU", "CN"} {
		f[i] = fs.String(n, "", "subject "+n+" (GmSSL style; or use -subj)")
	}
	return &f
}

// subjectFlag returns the DER subject from -subj or the field flags.
func subjectFlag(subj string, f *nameFieldFlags) ([]byte, error) {
	var fields [][2]string
	for i, n := range []string{"C", "ST", "L", "O", "OU", "CN"} {
		if f != nil && *f[i] != "" {
			fields = append(fields, [2]string{n, *f[i]})
		}
	}
	if subj != "" && len(fields) > 0 {
		return nil, usagef("-subj and -C/-ST/-L/-O/-OU/-CN exclude each other")
	}
	if subj != "" {
		raw, err := parseSubject(subj)
		if err != nil {
			return nil, usagef("-subj: %v", err)
		}
		return raw, nil
	}
	raw, err := subjectFromFields(fields)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return raw, nil
}

// writeObject writes one DER object as PEM or DER.
func writeObject(e *env, out, form, pemType string, der []byte) error {
	switch strings.ToLower(form) {
	case "", "pem":
		return writeOutput(e, out, pem.EncodeToMemory(&pem.Block{Type: pemType, Bytes: der}), 0o644)
	case "der":
		return writeOutput(e, out, der, 0o644)
	}
	return usagef("-outform: unknown %q (want pem or der)", form)
}

// readRequest reads a PEM or DER certificate request and checks its
// signature.
func readRequest(path string) (*smx509.CertificateRequest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	der := data
	if bytes.Contains(data, []byte("-----BEGIN")) {
		der = nil
		for rest := data; der == nil; {
			var block *pem.Block
			if block, rest = pem.Decode(rest); block == nil {
				return nil, fmt.Errorf("%s: no CERTIFICATE REQUEST block; it holds %s", path, smx.DescribePEM(data))
			}
			if block.Type == "CERTIFICATE REQUEST" || block.Type == "NEW CERTIFICATE REQUEST" {
				der = block.Bytes
			}
		}
	}
	r, err := smx509.ParseCertificateRequest(der)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := r.CheckSignature(); err != nil {
		return nil, fmt.Errorf("%s: the request's signature is invalid: %w", path, err)
	}
	return r, nil
}

// ---- ca sign ----

func caSign(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	in := fs.String("in", "", "the certificate request (PEM or DER `FILE`)")
	ca := addCAFlags(fs)
	role := fs.String("role", "", "`sign`, enc or ca: the key usage of a TLCP signing or encryption certificate, or of a CA")
	isCAFlag := fs.Bool("ca", false, "same as -role ca (GmSSL's reqsign -ca)")
	kus := &listFlag{split: true}
	fs.Var(kus, "key_usage", "key usage `names` instead of -role (digitalSignature, keyEncipherment, ...; may be repeated)")
	ekus := &listFlag{split: true}
	fs.Var(ekus, "eku", "extended key usages: comma-separated `names` (serverAuth, clientAuth, ...; may be repeated)")
	fs.alias("eku", "ext_key_usage")
	pathLen := fs.Int("path_len", -1, "for a CA: the path length constraint (`N`, -1 for none)")
	fs.alias("path_len", "path_len_constraint")
	val := addValidityFlags(fs, 365)
	serialFlag := fs.String("serial", "", "serial number in `hex` (default: 127 random bits)")
	fs.alias("serial", "set_serial")
	subj := fs.String("subj", "", "replace the request's subject with `/C=CN/O=.../CN=...`")
	hosts := fs.String("hosts", "", "replace the alternative names with these DNS names and IP addresses (comma-separated)")
	san := &listFlag{}
	fs.Var(san, "san", "replace the alternative names with this subjectAltName `list` (may be repeated)")
	fs.alias("hosts", "subject_dns_name")
	out := fs.String("out", "", "output `FILE` (default: standard output)")
	outform := fs.String("outform", "pem", "`pem` or der")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if *in == "" && len(rest) == 1 {
		*in, rest = rest[0], nil
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if *in == "" {
		return usagef("-in REQ is required")
	}
	if *isCAFlag {
		if *role != "" && *role != "ca" {
			return usagef("-ca and -role %s contradict each other", *role)
		}
		*role = "ca"
	}
	var ku smx509.KeyUsage
	makeCA := false
	switch {
	case *role != "":
		if ku, makeCA, err = roleUsage(*role); err != nil {
			return err
		}
		if len(kus.values) > 0 && !makeCA {
			return usagef("-role and -key_usage exclude each other (-key_usage sets the key usage itself)")
		}
		if makeCA {
			for _, n := range kus.values {
				u, ok := keyUsageByName[n]
				if !ok {
					return usagef("-key_usage: unknown %q (known: %s)", n, namesOf(keyUsageByName))
				}
				ku |= u
			}
		}
	case len(kus.values) > 0:
		for _, n := range kus.values {
			u, ok := keyUsageByName[n]
			if !ok {
				return usagef("-key_usage: unknown %q (known: %s)", n, namesOf(keyUsageByName))
			}
			ku |= u
		}
	default:
		return usagef("-role sign|enc|ca (or -key_usage) is required: a TLCP certificate is either a signing or an encryption certificate")
	}
	var eku []smx509.ExtKeyUsage
	for _, n := range ekus.values {
		u, ok := extKeyUsageByName[n]
		if !ok {
			return usagef("-eku: unknown %q (known: %s)", n, namesOf(extKeyUsageByName))
		}
		eku = append(eku, u)
	}
	if *pathLen >= 0 && !makeCA {
		return usagef("-path_len is for CA certificates (-role ca)")
	}
	nb, na, err := val.get(fs)
	if err != nil {
		return err
	}
	serial, err := randomSerial()
	if err != nil {
		return err
	}
	if *serialFlag != "" {
		if serial, err = parseSerial(*serialFlag); err != nil {
			return usagef("-serial: %v", err)
		}
	}
	req, err := readRequest(*in)
	if err != nil {
		return err
	}
	issuer, err := ca.load(e)
	if err != nil {
		return err
	}
	t := &smx509.Certificate{
		SerialNumber: serial, RawSubject: req.RawSubject, NotBefore: nb, NotAfter: na,
		// A leaf carries no basicConstraints: its empty form (CA:FALSE),
		// though valid DER, makes GmSSL 3 refuse the certificate.
		KeyUsage: ku, ExtKeyUsage: eku, BasicConstraintsValid: makeCA, IsCA: makeCA, MaxPathLen: -1,
		DNSNames: req.DNSNames, IPAddresses: req.IPAddresses, EmailAddresses: req.EmailAddresses, URIs: req.URIs,
	}
	if makeCA && *pathLen >= 0 {
		t.MaxPathLen, t.MaxPathLenZero = *pathLen, *pathLen == 0
	}
	if *subj != "" {
		if t.RawSubject, err = parseSubject(*subj); err != nil {
			return usagef("-subj: %v", err)
		}
	}
	if *hosts != "" || len(san.values) > 0 {
		var names sans
		if *hosts != "" {
			if err := names.addHosts(*hosts); err != nil {
				return usagef("-hosts: %v", err)
			}
		}
		for _, s := range san.values {
			if err := names.addSAN(s); err != nil {
				return usagef("-san: %v", err)
			}
		}
		t.DNSNames, t.IPAddresses, t.EmailAddresses, t.URIs = names.dns, names.ips, names.emails, names.uris
	}
	warnGmSSLValidity(e, nb, na)
	if na.After(issuer.Cert.NotAfter) {
		e.warnf("the certificate (notAfter %s) outlives its CA (notAfter %s)", opensslTime(na), opensslTime(issuer.Cert.NotAfter))
	}
	der, err := smx509.CreateCertificate(rand.Reader, t, issuer.Cert, req.PublicKey, issuer.Key)
	if err != nil {
		return err
	}
	return writeObject(e, *out, *outform, "CERTIFICATE", der)
}

// ---- crl gen ----

func crlGen(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	ca := addCAFlags(fs)
	fs.alias("CAkey", "key")
	fs.alias("CApass", "pass")
	in := fs.String("in", "", "an earlier CRL of this CA (`FILE`) whose entries are kept; its number is increased")
	revoke := &listFlag{}
	fs.Var(revoke, "revoke", "revoke this certificate: a PEM/DER `FILE` or a serial number in hex (may be repeated)")
	reason := fs.String("reason", "", "CRL `reason` of the -revoke entries: "+strings.Join(nonEmpty(crlReasons), ", "))
	fs.alias("reason", "crl_reason")
	number := fs.String("crlnumber", "", "the CRL number in `hex` (default: one more than -in's, or 1)")
	days := fs.Int("days", 30, "nextUpdate is `N` days from now")
	fs.alias("days", "crldays")
	out := fs.String("out", "", "output `FILE` (default: standard output)")
	outform := fs.String("outform", "pem", "`pem` or der")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if *days <= 0 {
		return usagef("-days must be positive")
	}
	reasonCode := 0
	if *reason != "" {
		reasonCode = -1
		for i, n := range crlReasons {
			if n != "" && strings.EqualFold(n, *reason) {
				reasonCode = i
			}
		}
		if reasonCode < 0 {
			return usagef("-reason: unknown %q (want %s)", *reason, strings.Join(nonEmpty(crlReasons), ", "))
		}
	}
	issuer, err := ca.load(e)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	t := &smx509.RevocationList{ThisUpdate: now, NextUpdate: now.AddDate(0, 0, *days), Number: big.NewInt(1)}
	if *in != "" {
		old, err := readCRLs(*in)
		if err != nil {
			return err
		}
		if len(old) != 1 {
			return fmt.Errorf("%s holds %d CRLs; give one", *in, len(old))
		}
		if err := old[0].CheckSignatureFrom(issuer.Cert); err != nil {
			return fmt.Errorf("%s is not a CRL of %s: %w", *in, *ca.cert, err)
		}
		for _, en := range old[0].RevokedCertificateEntries {
			t.RevokedCertificateEntries = append(t.RevokedCertificateEntries, smx509.RevocationListEntry{
				SerialNumber: en.SerialNumber, RevocationTime: en.RevocationTime, ReasonCode: en.ReasonCode,
			})
		}
		if old[0].Number != nil {
			t.Number = new(big.Int).Add(old[0].Number, big.NewInt(1))
		}
	}
	if *number != "" {
		if t.Number, err = parseSerial(*number); err != nil {
			return usagef("-crlnumber: %v", err)
		}
	}
	for _, r := range revoke.values {
		serial, err := revokedSerial(r, issuer.Cert)
		if err != nil {
			return err
		}
		dup := false
		for _, en := range t.RevokedCertificateEntries {
			dup = dup || en.SerialNumber.Cmp(serial) == 0
		}
		if dup {
			e.warnf("serial %s is already revoked; kept once", serialHex(serial))
			continue
		}
		t.RevokedCertificateEntries = append(t.RevokedCertificateEntries, smx509.RevocationListEntry{
			SerialNumber: serial, RevocationTime: now, ReasonCode: reasonCode,
		})
	}
	der, err := smx509.CreateRevocationList(rand.Reader, t, issuer.Cert, issuer.Key)
	if err != nil {
		return err
	}
	return writeObject(e, *out, *outform, "X509 CRL", der)
}

// revokedSerial reads the serial of a -revoke argument: a certificate file
// (which must be issued by the CA) or a hex serial.
func revokedSerial(arg string, ca *smx509.Certificate) (*big.Int, error) {
	if _, err := os.Stat(arg); err == nil {
		certs, err := readCertificates(arg)
		if err != nil {
			return nil, err
		}
		c := certs[0]
		if err := c.CheckSignatureFrom(ca); err != nil {
			return nil, fmt.Errorf("-revoke %s: not issued by this CA: %w", arg, err)
		}
		return c.SerialNumber, nil
	}
	n, err := parseSerial(arg)
	if err != nil {
		return nil, usagef("-revoke: %s is neither a file nor a serial number (%v)", arg, err)
	}
	return n, nil
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func sortStrings(s []string) []string {
	sort.Slice(s, func(i, j int) bool { return strings.ToLower(s[i]) < strings.ToLower(s[j]) })
	return s
}
