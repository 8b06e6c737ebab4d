// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "cert show",
		group:   "Keys and certificates",
		summary: "print certificates, requests, CRLs, keys, or fields (like openssl x509)",
		args:    "FILE...",
		about: `Each file may be PEM (any number of blocks) or one DER object. Without field flags the
whole object is printed as text; with them (-subject, -dates, ...) only those fields,
as openssl x509 -noout prints them. -outform der|pem converts the certificates (to -out,
or standard output).`,
		example: []string{
			"smtool cert show server_sign.pem",
			"smtool cert show -subject -dates -fingerprint -sm3 server_sign.pem",
			"smtool cert show -outform der -out server_sign.der server_sign.pem",
		},
		run: certShow,
	})
	register(&command{
		name:    "crl show",
		group:   "Keys and certificates",
		summary: "print CRLs or their fields, check their signature (like openssl crl)",
		args:    "FILE...",
		example: []string{
			"smtool crl show ca.crl",
			"smtool crl show -CAfile ca.pem -noout -lastupdate -nextupdate -crlnumber ca.crl",
		},
		run: crlShow,
	})
}

// showOptions selects what cert show and crl show print.
type showOptions struct {
	text                                   bool // everything, as text
	subject, issuer, serial, start, end    bool
	fingerprint, pubkey, ext, role, crlnum bool
	digest                                 string // fingerprint digest: sha1, sha256, sm3
	outform                                string // "", "pem", "der": convert
	password                               []byte
	noout                                  bool
	caFile                                 []*smx509.Certificate // crl show -CAfile
	crlOnly                                bool
	fieldsOnly                             bool // some field flag was given
	extNames                               []string
	certCount, otherCount                  int
	converted                              []byte
	crls                                   int // CRLs seen, for crl show's "none found"
}

func addShowFields(fs *flagSet, o *showOptions, crl bool) func() {
	text := fs.Bool("text", false, "print the whole object as text (the default without field flags)")
	noout := fs.Bool("noout", false, "print no object, only the fields asked for")
	issuer := fs.Bool("issuer", false, "print the issuer")
	fp := fs.Bool("fingerprint", false, "print the fingerprint (SHA-1 unless -sha256 or -sm3)")
	sha256f := fs.Bool("sha256", false, "fingerprints with SHA-256")
	sm3f := fs.Bool("sm3", false, "fingerprints with SM3")
	sha1f := fs.Bool("sha1", false, "fingerprints with SHA-1")
	var subject, serial, dates, start, end, pubkey, role, crlnum, lastUpdate, nextUpdate *bool
	var ext *string
	if crl {
		lastUpdate = fs.Bool("lastupdate", false, "print the lastUpdate (thisUpdate) time")
		nextUpdate = fs.Bool("nextupdate", false, "print the nextUpdate time")
		crlnum = fs.Bool("crlnumber", false, "print the CRL number")
	} else {
		subject = fs.Bool("subject", false, "print the subject")
		serial = fs.Bool("serial", false, "print the serial number")
		dates = fs.Bool("dates", false, "print notBefore and notAfter")
		start = fs.Bool("startdate", false, "print notBefore")
		end = fs.Bool("enddate", false, "print notAfter")
		pubkey = fs.Bool("pubkey", false, "print the public key (PEM)")
		ext = fs.String("ext", "", "print these extensions: comma-separated `names` of subjectAltName, keyUsage, extendedKeyUsage, basicConstraints")
		role = fs.Bool("role", false, "print the TLCP role (signing or encryption certificate)")
	}
	return func() {
		o.text, o.noout, o.issuer, o.fingerprint = *text, *noout, *issuer, *fp
		o.digest = "" // SHA-1, named as openssl's default
		switch {
		case *sm3f:
			o.digest = "sm3"
		case *sha256f:
			o.digest = "sha256"
		case *sha1f:
			o.digest = "sha1"
		}
		if crl {
			o.start, o.end, o.crlnum = *lastUpdate, *nextUpdate, *crlnum
		} else {
			o.subject, o.serial, o.pubkey, o.role = *subject, *serial, *pubkey, *role
			o.start, o.end = *dates || *start, *dates || *end
			if *ext != "" {
				o.extNames = strings.Split(*ext, ",")
				o.ext = true
			}
		}
		o.fieldsOnly = o.subject || o.issuer || o.serial || o.start || o.end || o.fingerprint || o.pubkey || o.ext || o.role || o.crlnum
	}
}

func certShow(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	in := fs.String("in", "", "input `FILE` (or give files as arguments)")
	inform := fs.String("inform", "", "input format, `pem` or der (found out by itself anyway)")
	pass := fs.String("passin", "", "`password` for encrypted private keys (else they are described, not decrypted): "+passUsage)
	fs.alias("passin", "password", "pass")
	var o showOptions
	done := addShowFields(fs, &o, false)
	outform := fs.String("outform", "", "write the certificates as `der` or pem instead of printing them")
	out := fs.String("out", "", "with -outform: output `FILE` (default: standard output)")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	done()
	return runShow(e, &o, *in, *inform, *pass, *outform, *out, rest)
}

func crlShow(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	in := fs.String("in", "", "input `FILE` (or give files as arguments)")
	inform := fs.String("inform", "", "input format, `pem` or der (found out by itself anyway)")
	var o showOptions
	done := addShowFields(fs, &o, true)
	caFile := fs.String("CAfile", "", "check each CRL's signature with the CA certificates in `FILE`")
	fs.alias("CAfile", "cacert")
	outform := fs.String("outform", "", "write the CRLs as `der` or pem instead of printing them")
	out := fs.String("out", "", "with -outform: output `FILE` (default: standard output)")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	done()
	o.crlOnly = true
	if *caFile != "" {
		if o.caFile, err = readCertificates(*caFile); err != nil {
			return err
		}
	}
	return runShow(e, &o, *in, *inform, "", *outform, *out, rest)
}

func runShow(e *env, o *showOptions, in, inform, pass, outform, out string, files []string) error {
	if in != "" {
		files = append([]string{in}, files...)
	}
	if len(files) == 0 {
		return usagef("missing FILE")
	}
	switch inform {
	case "", "pem", "PEM", "der", "DER":
	default:
		return usagef("-inform: unknown %q (want pem or der)", inform)
	}
	switch outform {
	case "", "pem", "der":
		o.outform = outform
	case "PEM", "DER":
		o.outform = strings.ToLower(outform)
	default:
		return usagef("-outform: unknown %q (want der or pem)", outform)
	}
	if out != "" && o.outform == "" {
		return usagef("-out needs -outform der or pem")
	}
	var err error
	if o.password, err = e.password("passin", pass); err != nil {
		return err
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		before := o.crls
		if err := o.describe(e.stdout, data); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if o.crlOnly && o.crls == before {
			return fmt.Errorf("%s: no CRL found; it holds %s", name, smx.DescribePEM(data))
		}
	}
	if o.outform != "" {
		if o.outform == "der" && o.certCount+o.otherCount > 1 {
			return fmt.Errorf("-outform der writes one object, and the input holds %d; use -outform pem", o.certCount+o.otherCount)
		}
		if o.converted == nil {
			return errors.New("nothing to convert")
		}
		return writeOutput(e, out, o.converted, 0o644)
	}
	return nil
}

// keyTypes are the PEM blocks that hold private keys.
var keyTypes = map[string]bool{
	smx.PEMTypePrivateKey: true, smx.PEMTypeEncryptedPrivateKey: true, smx.PEMTypeECPrivateKey: true,
	"SM2 PRIVATE KEY": true, smx.PEMTypeRSAPrivateKey: true,
}

// describe prints every certificate, request, CRL or key found in data,
// which may be PEM (any number of blocks) or a single DER object.
func (o *showOptions) describe(w io.Writer, data []byte) error {
	if !bytes.Contains(data, []byte("-----BEGIN")) {
		return o.describeDER(w, data)
	}
	var blocks []*pem.Block
	nkeys := 0
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		blocks = append(blocks, block)
		if keyTypes[block.Type] {
			nkeys++
		}
	}
	if len(blocks) == 0 {
		return errors.New("no PEM blocks found")
	}
	// Keys are parsed together: an "EC PARAMETERS" block applies to the
	// key after it, and GmSSL files hold two keys.
	var keys []crypto.Signer
	var keyErr error
	if nkeys > 0 && !o.crlOnly {
		keys, keyErr = smx.ParsePrivateKeysPEM(data, o.password)
		if keyErr != nil && !errors.Is(keyErr, smx.ErrPasswordRequired) {
			return keyErr
		}
	}
	ki := 0
	for _, block := range blocks {
		if keyTypes[block.Type] {
			if o.crlOnly {
				continue
			}
			var k crypto.Signer
			if ki < len(keys) {
				k = keys[ki]
			}
			ki++
			o.printKey(w, block, k)
			continue
		}
		if err := o.describeBlock(w, block); err != nil {
			return err
		}
	}
	return nil
}

func (o *showOptions) describeDER(w io.Writer, data []byte) error {
	if o.crlOnly {
		l, err := smx509.ParseRevocationList(data)
		if err != nil {
			return fmt.Errorf("not a PEM file, and not a DER CRL (%v)", err)
		}
		return o.printCRL(w, l)
	}
	if c, err := smx509.ParseCertificate(data); err == nil {
		o.printCertificate(w, c)
		return nil
	}
	if r, err := smx509.ParseCertificateRequest(data); err == nil {
		o.printRequest(w, r)
		return nil
	}
	if l, err := smx509.ParseRevocationList(data); err == nil {
		return o.printCRL(w, l)
	}
	_, err := smx509.ParseCertificate(data)
	return fmt.Errorf("not a PEM file, and not a DER certificate, request or CRL (%v); it holds %s", err, smx.DescribePEM(data))
}

func (o *showOptions) describeBlock(w io.Writer, block *pem.Block) error {
	switch block.Type {
	case "CERTIFICATE", "X509 CERTIFICATE":
		if o.crlOnly {
			return nil
		}
		c, err := smx509.ParseCertificate(block.Bytes)
		if err != nil {
			return err
		}
		o.printCertificate(w, c)
	case "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST":
		if o.crlOnly {
			return nil
		}
		r, err := smx509.ParseCertificateRequest(block.Bytes)
		if err != nil {
			return err
		}
		o.printRequest(w, r)
	case "X509 CRL":
		l, err := smx509.ParseRevocationList(block.Bytes)
		if err != nil {
			return err
		}
		return o.printCRL(w, l)
	case "PUBLIC KEY":
		if o.crlOnly {
			return nil
		}
		k, err := smx.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return err
		}
		if o.fieldsOnly {
			return nil
		}
		fmt.Fprintf(w, "Public Key: %s\n", describeKey(k))
		printPublicKeyValue(w, k, "    ")
	case smx.PEMTypeECParameters, "SM2 PARAMETERS":
		// Read with the key that follows.
	default:
		if !o.fieldsOnly && !o.crlOnly {
			fmt.Fprintf(w, "(skipping PEM block of type %q)\n", block.Type)
		}
	}
	return nil
}

// convert collects an object for -outform.
func (o *showOptions) convert(typ string, der []byte, isCert bool) {
	if isCert {
		o.certCount++
	} else {
		o.otherCount++
	}
	if o.outform == "der" {
		if o.converted == nil {
			o.converted = der
		}
		return
	}
	o.converted = append(o.converted, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})...)
}

// printText reports whether the whole object is printed.
func (o *showOptions) printText() bool {
	return o.outform == "" && !o.noout && (o.text || !o.fieldsOnly)
}

func (o *showOptions) printKey(w io.Writer, block *pem.Block, k crypto.Signer) {
	if o.fieldsOnly && !o.text || o.outform != "" {
		return
	}
	what := smx.DescribePEM(pem.EncodeToMemory(block))
	what = strings.TrimPrefix(what, "1 ")
	if k == nil {
		fmt.Fprintf(w, "Private Key: %s; give -passin to decrypt it\n", what)
		return
	}
	fmt.Fprintf(w, "Private Key: %s\n    %s\n", what, describeKey(k.Public()))
	printPublicKeyValue(w, k.Public(), "    ")
}

func describeKey(pub crypto.PublicKey) string {
	switch k := pub.(type) {
	case *sm2.PublicKey:
		return "SM2 (sm2p256v1, 256 bit)"
	case *ecdsa.PublicKey:
		return fmt.Sprintf("ECDSA (%s)", k.Curve.Params().Name)
	case *rsa.PublicKey:
		return fmt.Sprintf("RSA (%d bit)", k.N.BitLen())
	case ed25519.PublicKey:
		return "Ed25519"
	}
	return fmt.Sprintf("%T", pub)
}

func printPublicKeyValue(w io.Writer, pub crypto.PublicKey, indent string) {
	switch k := pub.(type) {
	case *sm2.PublicKey:
		fmt.Fprintf(w, "%spub:\n", indent)
		writeWrapped(w, indent+"    ", k.Bytes())
	case ed25519.PublicKey:
		fmt.Fprintf(w, "%spub:\n", indent)
		writeWrapped(w, indent+"    ", k)
	}
}

func colonHex(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02X", c)
	}
	return sb.String()
}

// writeWrapped prints b as colon hex, 15 bytes a line, as openssl does.
func writeWrapped(w io.Writer, indent string, b []byte) {
	for len(b) > 0 {
		n := min(len(b), 15)
		s := strings.ToLower(colonHex(b[:n]))
		if n < len(b) {
			s += ":"
		}
		fmt.Fprintf(w, "%s%s\n", indent, s)
		b = b[n:]
	}
}

func serialString(n *big.Int) string {
	if n.Sign() < 0 {
		return "-" + colonHex(new(big.Int).Neg(n).Bytes())
	}
	return colonHex(n.Bytes())
}

// serialHex is the serial as openssl's -serial prints it: the integer's
// bytes in upper-case hex, no colons, so always an even number of digits
// (0ABC, not ABC: a serial is an octet string to most tools that compare
// them), 00 for zero, a minus sign before a negative one.
func serialHex(n *big.Int) string {
	if n.Sign() == 0 {
		return "00"
	}
	sign := ""
	if n.Sign() < 0 {
		sign = "-"
	}
	return sign + strings.ToUpper(hex.EncodeToString(new(big.Int).Abs(n).Bytes()))
}

// opensslTime is the time format of openssl x509 -dates.
func opensslTime(t time.Time) string { return t.UTC().Format("Jan _2 15:04:05 2006") + " GMT" }

var keyUsageNames = []struct {
	u    smx509.KeyUsage
	name string
}{
	{smx509.KeyUsageDigitalSignature, "Digital Signature"},
	{smx509.KeyUsageContentCommitment, "Non Repudiation"},
	{smx509.KeyUsageKeyEncipherment, "Key Encipherment"},
	{smx509.KeyUsageDataEncipherment, "Data Encipherment"},
	{smx509.KeyUsageKeyAgreement, "Key Agreement"},
	{smx509.KeyUsageCertSign, "Certificate Sign"},
	{smx509.KeyUsageCRLSign, "CRL Sign"},
	{smx509.KeyUsageEncipherOnly, "Encipher Only"},
	{smx509.KeyUsageDecipherOnly, "Decipher Only"},
}

var extKeyUsageNames = map[smx509.ExtKeyUsage]string{
	smx509.ExtKeyUsageAny:             "Any Extended Key Usage",
	smx509.ExtKeyUsageServerAuth:      "TLS Web Server Authentication",
	smx509.ExtKeyUsageClientAuth:      "TLS Web Client Authentication",
	smx509.ExtKeyUsageCodeSigning:     "Code Signing",
	smx509.ExtKeyUsageEmailProtection: "E-mail Protection",
	smx509.ExtKeyUsageTimeStamping:    "Time Stamping",
	smx509.ExtKeyUsageOCSPSigning:     "OCSP Signing",
}

func keyUsageString(ku smx509.KeyUsage) string {
	var names []string
	for _, k := range keyUsageNames {
		if ku&k.u != 0 {
			names = append(names, k.name)
		}
	}
	return strings.Join(names, ", ")
}

func extKeyUsageString(c *smx509.Certificate) string {
	var names []string
	for _, u := range c.ExtKeyUsage {
		n, ok := extKeyUsageNames[u]
		if !ok {
			n = fmt.Sprintf("usage %d", u)
		}
		names = append(names, n)
	}
	for _, oid := range c.UnknownExtKeyUsage {
		names = append(names, oid.String())
	}
	return strings.Join(names, ", ")
}

var (
	oidKU  = asn1.ObjectIdentifier{2, 5, 29, 15}
	oidEKU = asn1.ObjectIdentifier{2, 5, 29, 37}
	oidBC  = asn1.ObjectIdentifier{2, 5, 29, 19}
	oidSAN = asn1.ObjectIdentifier{2, 5, 29, 17}
	oidNC  = asn1.ObjectIdentifier{2, 5, 29, 30}
)

func critical(exts []pkix.Extension, id asn1.ObjectIdentifier) string {
	for _, e := range exts {
		if e.Id.Equal(id) && e.Critical {
			return " critical"
		}
	}
	return ""
}

func printPublicKeyInfo(w io.Writer, algo fmt.Stringer, pub crypto.PublicKey, indent string) {
	fmt.Fprintf(w, "%sPublic Key Algorithm: %s\n", indent, algo)
	switch k := pub.(type) {
	case *sm2.PublicKey:
		fmt.Fprintf(w, "%s    Public-Key: (256 bit)\n%s    pub:\n", indent, indent)
		writeWrapped(w, indent+"        ", k.Bytes())
		fmt.Fprintf(w, "%s    ASN1 OID: SM2\n", indent)
	case *ecdsa.PublicKey:
		fmt.Fprintf(w, "%s    Public-Key: (%d bit)\n", indent, k.Curve.Params().BitSize)
		fmt.Fprintf(w, "%s    NIST CURVE: %s\n", indent, k.Curve.Params().Name)
	case *rsa.PublicKey:
		fmt.Fprintf(w, "%s    Public-Key: (%d bit)\n%s    Exponent: %d\n", indent, k.N.BitLen(), indent, k.E)
	case ed25519.PublicKey:
		fmt.Fprintf(w, "%s    pub:\n", indent)
		writeWrapped(w, indent+"        ", k)
	case nil:
		fmt.Fprintf(w, "%s    (unsupported key)\n", indent)
	}
}

func tlcpRole(c *smx509.Certificate) string {
	switch {
	case c.BasicConstraintsValid && c.IsCA:
		return "CA certificate (not for TLCP connections)"
	case c.IsTLCPSignCert() && c.IsTLCPEncCert() && c.KeyUsage == 0:
		return "signing or encryption (no key-usage extension)"
	case c.IsTLCPSignCert() && c.IsTLCPEncCert():
		return "signing and encryption (both key usages: TLCP wants two certificates)"
	case c.IsTLCPSignCert():
		return "signing certificate"
	case c.IsTLCPEncCert():
		return "encryption certificate"
	case c.PublicKeyAlgorithm != smx509.SM2:
		return "none (not an SM2 key)"
	}
	return "none (its key usage allows neither signing nor encryption)"
}

// fingerprint is "NAME Fingerprint=AB:CD:..." with NAME as Tongsuo's x509
// prints it: "SHA1" by default, the digest flag's name ("sm3", "sha256")
// when one was given, upper case in the full text (upper).
func fingerprint(digest string, der []byte, upper bool) string {
	var h hash.Hash
	switch digest {
	case "sm3":
		h = sm3.New()
	case "sha256":
		h = sha256.New()
	default:
		h, digest, upper = sha1.New(), "sha1", true
	}
	h.Write(der)
	name := digest
	if upper {
		name = strings.ToUpper(digest)
	}
	return name + " Fingerprint=" + colonHex(h.Sum(nil))
}

// printFields prints the fields asked for, openssl x509 -noout style.
func (o *showOptions) printCertFields(w io.Writer, c *smx509.Certificate) {
	if o.subject {
		fmt.Fprintf(w, "subject=%s\n", nameString(c.RawSubject))
	}
	if o.issuer {
		fmt.Fprintf(w, "issuer=%s\n", nameString(c.RawIssuer))
	}
	if o.serial {
		fmt.Fprintf(w, "serial=%s\n", serialHex(c.SerialNumber))
	}
	if o.start {
		fmt.Fprintf(w, "notBefore=%s\n", opensslTime(c.NotBefore))
	}
	if o.end {
		fmt.Fprintf(w, "notAfter=%s\n", opensslTime(c.NotAfter))
	}
	if o.role {
		fmt.Fprintf(w, "TLCP role=%s\n", tlcpRole(c))
	}
	if o.ext {
		for _, name := range o.extNames {
			switch strings.TrimSpace(name) {
			case "subjectAltName":
				var uris []string
				for _, u := range c.URIs {
					uris = append(uris, u.String())
				}
				if s := sansString(c.DNSNames, c.EmailAddresses, c.IPAddresses, uris); s != "" {
					fmt.Fprintf(w, "X509v3 Subject Alternative Name:%s\n    %s\n", critical(c.Extensions, oidSAN), s)
				}
			case "keyUsage":
				if c.KeyUsage != 0 {
					fmt.Fprintf(w, "X509v3 Key Usage:%s\n    %s\n", critical(c.Extensions, oidKU), keyUsageString(c.KeyUsage))
				}
			case "extendedKeyUsage":
				if s := extKeyUsageString(c); s != "" {
					fmt.Fprintf(w, "X509v3 Extended Key Usage:%s\n    %s\n", critical(c.Extensions, oidEKU), s)
				}
			case "basicConstraints":
				if c.BasicConstraintsValid {
					fmt.Fprintf(w, "X509v3 Basic Constraints:%s\n    %s\n", critical(c.Extensions, oidBC), basicConstraints(c))
				}
			default:
				fmt.Fprintf(w, "(-ext: unknown extension %q)\n", name)
			}
		}
	}
	if o.fingerprint {
		fmt.Fprintln(w, fingerprint(o.digest, c.Raw, false))
	}
	if o.pubkey {
		if b, err := smx.MarshalPublicKeyPEM(c.PublicKey); err == nil {
			w.Write(b)
		}
	}
}

func basicConstraints(c *smx509.Certificate) string {
	if !c.IsCA {
		return "CA:FALSE"
	}
	s := "CA:TRUE"
	if c.MaxPathLen > 0 || c.MaxPathLenZero {
		s += fmt.Sprintf(", pathlen:%d", c.MaxPathLen)
	}
	return s
}

func (o *showOptions) printCertificate(w io.Writer, c *smx509.Certificate) {
	if o.outform != "" {
		o.convert("CERTIFICATE", c.Raw, true)
		return
	}
	o.printCertFields(w, c)
	if !o.printText() {
		return
	}
	fmt.Fprintln(w, "Certificate:")
	fmt.Fprintln(w, "    Data:")
	fmt.Fprintf(w, "        Version: %d (0x%x)\n", c.Version, c.Version-1)
	fmt.Fprintf(w, "        Serial Number:\n            %s\n", strings.ToLower(serialString(c.SerialNumber)))
	fmt.Fprintf(w, "        Signature Algorithm: %s\n", c.SignatureAlgorithm)
	fmt.Fprintf(w, "        Issuer: %s\n", nameString(c.RawIssuer))
	fmt.Fprintln(w, "        Validity")
	fmt.Fprintf(w, "            Not Before: %s\n", opensslTime(c.NotBefore))
	fmt.Fprintf(w, "            Not After : %s\n", opensslTime(c.NotAfter))
	fmt.Fprintf(w, "        Subject: %s\n", nameString(c.RawSubject))
	fmt.Fprintln(w, "        Subject Public Key Info:")
	printPublicKeyInfo(w, c.PublicKeyAlgorithm, c.PublicKey, "            ")
	if len(c.Extensions) > 0 {
		fmt.Fprintln(w, "        X509v3 extensions:")
		ext := func(name string, id asn1.ObjectIdentifier, lines ...string) {
			fmt.Fprintf(w, "            %s:%s\n", name, critical(c.Extensions, id))
			for _, l := range lines {
				fmt.Fprintf(w, "                %s\n", l)
			}
		}
		if c.KeyUsage != 0 {
			ext("X509v3 Key Usage", oidKU, keyUsageString(c.KeyUsage))
		}
		if s := extKeyUsageString(c); s != "" {
			ext("X509v3 Extended Key Usage", oidEKU, s)
		}
		if c.BasicConstraintsValid {
			ext("X509v3 Basic Constraints", oidBC, basicConstraints(c))
		}
		if len(c.SubjectKeyId) > 0 {
			ext("X509v3 Subject Key Identifier", nil, colonHex(c.SubjectKeyId))
		}
		if len(c.AuthorityKeyId) > 0 {
			ext("X509v3 Authority Key Identifier", nil, colonHex(c.AuthorityKeyId))
		}
		var uris []string
		for _, u := range c.URIs {
			uris = append(uris, u.String())
		}
		if s := sansString(c.DNSNames, c.EmailAddresses, c.IPAddresses, uris); s != "" {
			ext("X509v3 Subject Alternative Name", oidSAN, s)
		}
		var nc []string
		for _, d := range c.PermittedDNSDomains {
			nc = append(nc, "Permitted: DNS:"+d)
		}
		for _, n := range c.PermittedIPRanges {
			nc = append(nc, "Permitted: IP:"+n.String())
		}
		for _, m := range c.PermittedEmailAddresses {
			nc = append(nc, "Permitted: email:"+m)
		}
		for _, d := range c.ExcludedDNSDomains {
			nc = append(nc, "Excluded: DNS:"+d)
		}
		for _, n := range c.ExcludedIPRanges {
			nc = append(nc, "Excluded: IP:"+n.String())
		}
		for _, m := range c.ExcludedEmailAddresses {
			nc = append(nc, "Excluded: email:"+m)
		}
		if len(nc) > 0 {
			ext("X509v3 Name Constraints", oidNC, nc...)
		}
		if len(c.CRLDistributionPoints) > 0 {
			var l []string
			for _, u := range c.CRLDistributionPoints {
				l = append(l, "URI:"+u)
			}
			ext("X509v3 CRL Distribution Points", nil, l...)
		}
		if len(c.OCSPServer)+len(c.IssuingCertificateURL) > 0 {
			var l []string
			for _, u := range c.OCSPServer {
				l = append(l, "OCSP - URI:"+u)
			}
			for _, u := range c.IssuingCertificateURL {
				l = append(l, "CA Issuers - URI:"+u)
			}
			ext("Authority Information Access", nil, l...)
		}
		if len(c.PolicyIdentifiers) > 0 {
			var l []string
			for _, p := range c.PolicyIdentifiers {
				l = append(l, "Policy: "+p.String())
			}
			ext("X509v3 Certificate Policies", nil, l...)
		}
		for _, oid := range c.UnhandledCriticalExtensions {
			fmt.Fprintf(w, "            %s: critical (not understood)\n", oid)
		}
	}
	fmt.Fprintf(w, "    Signature Algorithm: %s\n", c.SignatureAlgorithm)
	fmt.Fprintln(w, "    Signature Value:")
	writeWrapped(w, "        ", c.Signature)
	fmt.Fprintf(w, "    TLCP role: %s\n", tlcpRole(c))
	fmt.Fprintf(w, "    %s\n", fingerprint("sha256", c.Raw, true))
	fmt.Fprintf(w, "    %s\n", fingerprint("sm3", c.Raw, true))
}

func (o *showOptions) printRequest(w io.Writer, r *smx509.CertificateRequest) {
	if o.outform != "" {
		o.convert("CERTIFICATE REQUEST", r.Raw, false)
		return
	}
	if o.subject {
		fmt.Fprintf(w, "subject=%s\n", nameString(r.RawSubject))
	}
	if o.pubkey {
		if b, err := smx.MarshalPublicKeyPEM(r.PublicKey); err == nil {
			w.Write(b)
		}
	}
	if !o.printText() {
		return
	}
	fmt.Fprintln(w, "Certificate Request:")
	fmt.Fprintln(w, "    Data:")
	fmt.Fprintf(w, "        Version: %d (0x%x)\n", r.Version+1, r.Version)
	fmt.Fprintf(w, "        Subject: %s\n", nameString(r.RawSubject))
	fmt.Fprintln(w, "        Subject Public Key Info:")
	printPublicKeyInfo(w, r.PublicKeyAlgorithm, r.PublicKey, "            ")
	var uris []string
	for _, u := range r.URIs {
		uris = append(uris, u.String())
	}
	fmt.Fprintln(w, "        Requested Extensions:")
	if s := sansString(r.DNSNames, r.EmailAddresses, r.IPAddresses, uris); s != "" {
		fmt.Fprintf(w, "            X509v3 Subject Alternative Name:\n                %s\n", s)
	}
	for _, e := range r.Extensions {
		if !e.Id.Equal(oidSAN) {
			fmt.Fprintf(w, "            %s:%s\n", e.Id, map[bool]string{true: " critical"}[e.Critical])
		}
	}
	fmt.Fprintf(w, "    Signature Algorithm: %s\n", r.SignatureAlgorithm)
	fmt.Fprintln(w, "    Signature Value:")
	writeWrapped(w, "        ", r.Signature)
	if err := r.CheckSignature(); err != nil {
		fmt.Fprintf(w, "    Self-signature: INVALID (%v)\n", err)
	} else {
		fmt.Fprintln(w, "    Self-signature: ok")
	}
}

// crlReasons are the CRLReason names of RFC 5280 5.3.1, as openssl spells
// them on its command line.
var crlReasons = []string{
	0: "unspecified", 1: "keyCompromise", 2: "CACompromise", 3: "affiliationChanged",
	4: "superseded", 5: "cessationOfOperation", 6: "certificateHold", 8: "removeFromCRL",
	9: "privilegeWithdrawn", 10: "AACompromise",
}

func reasonName(code int) string {
	if code >= 0 && code < len(crlReasons) && crlReasons[code] != "" {
		return crlReasons[code]
	}
	return fmt.Sprintf("reason %d", code)
}

func (o *showOptions) printCRL(w io.Writer, l *smx509.RevocationList) error {
	o.crls++
	if len(o.caFile) > 0 {
		var err error = errors.New("no CA certificate in -CAfile has the CRL's issuer as subject")
		for _, ca := range o.caFile {
			if bytes.Equal(ca.RawSubject, l.RawIssuer) {
				if err = l.CheckSignatureFrom(ca); err == nil {
					break
				}
			}
		}
		if err != nil {
			return fmt.Errorf("verify failure: %w", err)
		}
		fmt.Fprintln(w, "verify OK")
	}
	if o.outform != "" {
		o.convert("X509 CRL", l.Raw, false)
		return nil
	}
	if o.issuer {
		fmt.Fprintf(w, "issuer=%s\n", nameString(l.RawIssuer))
	}
	if o.start {
		fmt.Fprintf(w, "lastUpdate=%s\n", opensslTime(l.ThisUpdate))
	}
	if o.end {
		if l.NextUpdate.IsZero() {
			fmt.Fprintln(w, "nextUpdate=NONE")
		} else {
			fmt.Fprintf(w, "nextUpdate=%s\n", opensslTime(l.NextUpdate))
		}
	}
	if o.crlnum {
		if l.Number != nil {
			fmt.Fprintf(w, "crlNumber=0x%s\n", serialHex(l.Number))
		} else {
			fmt.Fprintln(w, "crlNumber=<NONE>")
		}
	}
	if o.fingerprint {
		fmt.Fprintln(w, fingerprint(o.digest, l.Raw, false))
	}
	if !o.printText() {
		return nil
	}
	fmt.Fprintln(w, "Certificate Revocation List (CRL):")
	fmt.Fprintf(w, "        Signature Algorithm: %s\n", l.SignatureAlgorithm)
	fmt.Fprintf(w, "        Issuer: %s\n", nameString(l.RawIssuer))
	fmt.Fprintf(w, "        Last Update: %s\n", opensslTime(l.ThisUpdate))
	if !l.NextUpdate.IsZero() {
		fmt.Fprintf(w, "        Next Update: %s\n", opensslTime(l.NextUpdate))
	} else {
		fmt.Fprintln(w, "        Next Update: NONE")
	}
	if l.Number != nil || len(l.AuthorityKeyId) > 0 {
		fmt.Fprintln(w, "        CRL extensions:")
		if len(l.AuthorityKeyId) > 0 {
			fmt.Fprintf(w, "            X509v3 Authority Key Identifier:\n                %s\n", colonHex(l.AuthorityKeyId))
		}
		if l.Number != nil {
			fmt.Fprintf(w, "            X509v3 CRL Number:\n                %s\n", l.Number)
		}
	}
	if len(l.RevokedCertificateEntries) == 0 {
		fmt.Fprintln(w, "No Revoked Certificates.")
	} else {
		fmt.Fprintln(w, "Revoked Certificates:")
		for _, e := range l.RevokedCertificateEntries {
			fmt.Fprintf(w, "    Serial Number: %s\n", serialHex(e.SerialNumber))
			fmt.Fprintf(w, "        Revocation Date: %s\n", opensslTime(e.RevocationTime))
			if e.ReasonCode != 0 {
				fmt.Fprintf(w, "        CRL entry extensions:\n            X509v3 CRL Reason Code:\n                %s (%d)\n", reasonName(e.ReasonCode), e.ReasonCode)
			}
		}
	}
	fmt.Fprintf(w, "    Signature Algorithm: %s\n", l.SignatureAlgorithm)
	fmt.Fprintln(w, "    Signature Value:")
	writeWrapped(w, "        ", l.Signature)
	return nil
}
