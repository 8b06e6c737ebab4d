package main

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "cert",
		summary: "make, show and verify certificates (cert gen | show | verify)",
		run:     runCert,
	})
}

const certUsage = `usage:
  smtool cert gen -out DIR [-hosts localhost,127.0.0.1] [-not-before 2026-01-01] [-not-after 2046-01-01] [-ca-cert CA.pem -ca-key CA.key]
  smtool cert show [-password PW] FILE...
  smtool cert verify -roots CA.pem [-intermediates FILE] [-host NAME] [-purpose any|server|client] [-at TIME] CERT.pem`

func runCert(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("missing subcommand; %s", strings.ReplaceAll(certUsage, "\n", " "))
	}
	switch args[0] {
	case "gen":
		return certGen(args[1:], stdout)
	case "show":
		return certShow(args[1:], stdout)
	case "verify":
		return certVerify(args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, certUsage)
		return nil
	}
	return usagef("unknown subcommand %q (want gen, show or verify)", args[0])
}

// ---- cert gen ----

// genConfig describes a TLCP test PKI.
type genConfig struct {
	Hosts               []string
	NotBefore, NotAfter time.Time
	Rand                io.Reader
	// CA, if set, issues the leaves instead of a new root; it is not
	// written out again.
	CA *issued
}

// issued is a certificate with its key and the file stem it is written as.
type issued struct {
	Name string
	Cert *smx509.Certificate
	Key  *sm2.PrivateKey
}

// tlcpSet is a CA and the TLCP double certificates of a server and a client
// (GB/T 38636-2020: one signing and one encryption certificate each).
type tlcpSet struct {
	CA                    issued
	ServerSign, ServerEnc issued
	ClientSign, ClientEnc issued
}

func (s *tlcpSet) all() []issued {
	return []issued{s.CA, s.ServerSign, s.ServerEnc, s.ClientSign, s.ClientEnc}
}

// Key usages of the two TLCP roles (tlcp/INTEROP.md §5): the signing key signs
// ServerKeyExchange/CertificateVerify; the encryption key decrypts the ECC
// premaster or takes part in the SM2 key exchange.
const (
	tlcpSignUsage = smx509.KeyUsageDigitalSignature
	tlcpEncUsage  = smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement
)

func generateTLCP(cfg genConfig) (*tlcpSet, error) {
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	var dnsNames []string
	var ips []net.IP
	for _, h := range cfg.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else if h != "" {
			dnsNames = append(dnsNames, h)
		}
	}
	serial := func() (*big.Int, error) {
		return rand.Int(cfg.Rand, new(big.Int).Lsh(big.NewInt(1), 127))
	}
	newKey := func() (*sm2.PrivateKey, error) { return sm2.GenerateKey(cfg.Rand) }

	set := &tlcpSet{}
	if cfg.CA != nil {
		set.CA = *cfg.CA
	} else {
		ca, err := newRootCA(cfg, serial, newKey)
		if err != nil {
			return nil, err
		}
		set.CA = ca
	}
	caCert, caKey := set.CA.Cert, set.CA.Key

	leaf := func(name, cn string, ku smx509.KeyUsage, eku smx509.ExtKeyUsage) (issued, error) {
		key, err := newKey()
		if err != nil {
			return issued{}, err
		}
		sn, err := serial()
		if err != nil {
			return issued{}, err
		}
		// Sign and enc certificates share subject and SANs: GmSSL and
		// Kona check that both name the same entity, and gotlcp checks
		// the host name on both.
		t := &smx509.Certificate{
			SerialNumber:          sn,
			Subject:               pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi"}, CommonName: cn},
			NotBefore:             cfg.NotBefore,
			NotAfter:              cfg.NotAfter,
			KeyUsage:              ku,
			ExtKeyUsage:           []smx509.ExtKeyUsage{eku},
			BasicConstraintsValid: true,
			DNSNames:              dnsNames,
			IPAddresses:           ips,
		}
		der, err := smx509.CreateCertificate(cfg.Rand, t, caCert, key.Public(), caKey)
		if err != nil {
			return issued{}, err
		}
		cert, err := smx509.ParseCertificate(der)
		if err != nil {
			return issued{}, err
		}
		return issued{name, cert, key}, nil
	}
	var err error
	if set.ServerSign, err = leaf("server_sign", "shangmi test server", tlcpSignUsage, smx509.ExtKeyUsageServerAuth); err != nil {
		return nil, err
	}
	if set.ServerEnc, err = leaf("server_enc", "shangmi test server", tlcpEncUsage, smx509.ExtKeyUsageServerAuth); err != nil {
		return nil, err
	}
	if set.ClientSign, err = leaf("client_sign", "shangmi test client", tlcpSignUsage, smx509.ExtKeyUsageClientAuth); err != nil {
		return nil, err
	}
	if set.ClientEnc, err = leaf("client_enc", "shangmi test client", tlcpEncUsage, smx509.ExtKeyUsageClientAuth); err != nil {
		return nil, err
	}
	return set, nil
}

// newRootCA makes the self-signed SM2 root of a test PKI.
func newRootCA(cfg genConfig, serial func() (*big.Int, error), newKey func() (*sm2.PrivateKey, error)) (issued, error) {
	caKey, err := newKey()
	if err != nil {
		return issued{}, err
	}
	sn, err := serial()
	if err != nil {
		return issued{}, err
	}
	caTemplate := &smx509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi"}, CommonName: "shangmi Test Root CA"},
		NotBefore:             cfg.NotBefore,
		NotAfter:              cfg.NotAfter,
		KeyUsage:              smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            -1,
	}
	der, err := smx509.CreateCertificate(cfg.Rand, caTemplate, caTemplate, caKey.Public(), caKey)
	if err != nil {
		return issued{}, err
	}
	caCert, err := smx509.ParseCertificate(der)
	if err != nil {
		return issued{}, err
	}
	return issued{"ca", caCert, caKey}, nil
}

// writeSet writes NAME.pem (certificate) and NAME.key (unencrypted PKCS #8)
// for every member of set into dir, except the CA when skipCA is set (it came
// from existing files).
func writeSet(set *tlcpSet, dir string, skipCA bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for i, m := range set.all() {
		if i == 0 && skipCA {
			continue
		}
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: m.Cert.Raw})
		keyPEM, err := smx.MarshalPrivateKeyPEM(m.Key)
		if err != nil {
			return nil, err
		}
		certPath := filepath.Join(dir, m.Name+".pem")
		keyPath := filepath.Join(dir, m.Name+".key")
		if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
			return nil, err
		}
		written = append(written, certPath, keyPath)
	}
	return written, nil
}

// loadCA reads an SM2 CA certificate and its key, checking that they belong
// together and that the certificate may issue certificates.
func loadCA(certFile, keyFile string) (*issued, error) {
	certs, err := readCertificates(certFile)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	signer, err := smx.ParsePrivateKeyPEM(keyPEM, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyFile, err)
	}
	key, ok := signer.(*sm2.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: not an SM2 key", keyFile)
	}
	ca := certs[0]
	if !key.PublicKey().Equal(ca.PublicKey) {
		return nil, fmt.Errorf("%s does not belong to %s", keyFile, certFile)
	}
	if !ca.BasicConstraintsValid || !ca.IsCA {
		return nil, fmt.Errorf("%s is not a CA certificate", certFile)
	}
	return &issued{"ca", ca, key}, nil
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot parse time %q (want YYYY-MM-DD or RFC 3339)", s)
}

func certGen(args []string, stdout io.Writer) error {
	fs := newFlagSet("cert gen")
	out := fs.String("out", "", "output `directory` (created if missing)")
	hosts := fs.String("hosts", "localhost,127.0.0.1", "comma-separated DNS names and IP addresses for the leaf SANs")
	notBefore := fs.String("not-before", "2026-01-01", "start of validity (YYYY-MM-DD or RFC 3339)")
	notAfter := fs.String("not-after", "2046-01-01", "end of validity (YYYY-MM-DD or RFC 3339)")
	caCertFile := fs.String("ca-cert", "", "issue from this existing SM2 CA certificate instead of a new root (with -ca-key)")
	caKeyFile := fs.String("ca-key", "", "private key of -ca-cert (unencrypted PEM)")
	rest, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("unexpected arguments %q", rest)
	}
	if *out == "" {
		return usagef("-out DIR is required")
	}
	cfg := genConfig{}
	if cfg.NotBefore, err = parseDate(*notBefore); err != nil {
		return usagef("-not-before: %v", err)
	}
	if cfg.NotAfter, err = parseDate(*notAfter); err != nil {
		return usagef("-not-after: %v", err)
	}
	if !cfg.NotAfter.After(cfg.NotBefore) {
		return usagef("-not-after must be later than -not-before")
	}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			cfg.Hosts = append(cfg.Hosts, h)
		}
	}
	if (*caCertFile == "") != (*caKeyFile == "") {
		return usagef("-ca-cert and -ca-key go together")
	}
	if *caCertFile != "" {
		if cfg.CA, err = loadCA(*caCertFile, *caKeyFile); err != nil {
			return err
		}
	}
	set, err := generateTLCP(cfg)
	if err != nil {
		return err
	}
	files, err := writeSet(set, *out, cfg.CA != nil)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(stdout, "wrote", f)
	}
	return nil
}

// ---- cert show ----

func certShow(args []string, stdout io.Writer) error {
	fs := newFlagSet("cert show")
	password := fs.String("password", "", "password for ENCRYPTED PRIVATE KEY blocks (otherwise they are not decrypted)")
	rest, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("missing FILE")
	}
	for _, name := range rest {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if err := describe(stdout, data, []byte(*password)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// describe prints every certificate, request, CRL or key found in data,
// which may be PEM (any number of blocks) or a single DER object.
func describe(w io.Writer, data, password []byte) error {
	if bytes.Contains(data, []byte("-----BEGIN")) {
		found := 0
		for rest := data; ; {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			if err := describeBlock(w, block, password); err != nil {
				return err
			}
			found++
		}
		if found == 0 {
			return errors.New("no PEM blocks found")
		}
		return nil
	}
	// DER: try each kind in turn.
	if c, err := smx509.ParseCertificate(data); err == nil {
		printCertificate(w, c)
		return nil
	}
	if r, err := smx509.ParseCertificateRequest(data); err == nil {
		printRequest(w, r)
		return nil
	}
	if l, err := smx509.ParseRevocationList(data); err == nil {
		printCRL(w, l)
		return nil
	}
	_, err := smx509.ParseCertificate(data)
	return fmt.Errorf("not a PEM file, and not a DER certificate, request or CRL (%v)", err)
}

func describeBlock(w io.Writer, block *pem.Block, password []byte) error {
	switch block.Type {
	case "CERTIFICATE":
		c, err := smx509.ParseCertificate(block.Bytes)
		if err != nil {
			return err
		}
		printCertificate(w, c)
	case "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST":
		r, err := smx509.ParseCertificateRequest(block.Bytes)
		if err != nil {
			return err
		}
		printRequest(w, r)
	case "X509 CRL":
		l, err := smx509.ParseRevocationList(block.Bytes)
		if err != nil {
			return err
		}
		printCRL(w, l)
	case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
		k, err := smx.ParsePrivateKeyPEM(pem.EncodeToMemory(block), nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Private Key (%s): %s\n", block.Type, describeKey(k.Public()))
	case "ENCRYPTED PRIVATE KEY":
		if len(password) == 0 {
			fmt.Fprintln(w, "Encrypted Private Key (PKCS #8, PBES2): give -password to decrypt")
			return nil
		}
		k, err := smx.ParsePrivateKeyPEM(pem.EncodeToMemory(block), password)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Encrypted Private Key (PKCS #8, PBES2): %s\n", describeKey(k.Public()))
	case "PUBLIC KEY":
		k, err := smx.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Public Key: %s\n", describeKey(k))
	default:
		fmt.Fprintf(w, "(skipping PEM block of type %q)\n", block.Type)
	}
	return nil
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

// writeWrapped prints b as colon hex, 18 bytes a line, like openssl.
func writeWrapped(w io.Writer, indent string, b []byte) {
	for len(b) > 0 {
		n := min(len(b), 18)
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

const timeLayout = "Jan _2 15:04:05 2006 MST"

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

func sansString(dns, emails []string, ips []net.IP, uris []string) string {
	var parts []string
	for _, d := range dns {
		parts = append(parts, "DNS:"+d)
	}
	for _, ip := range ips {
		parts = append(parts, "IP Address:"+ip.String())
	}
	for _, e := range emails {
		parts = append(parts, "email:"+e)
	}
	for _, u := range uris {
		parts = append(parts, "URI:"+u)
	}
	return strings.Join(parts, ", ")
}

func isCritical(exts []pkix.Extension, id asn1.ObjectIdentifier) string {
	for _, e := range exts {
		if e.Id.Equal(id) && e.Critical {
			return " (critical)"
		}
	}
	return ""
}

var (
	oidKU  = asn1.ObjectIdentifier{2, 5, 29, 15}
	oidBC  = asn1.ObjectIdentifier{2, 5, 29, 19}
	oidSAN = asn1.ObjectIdentifier{2, 5, 29, 17}
	oidNC  = asn1.ObjectIdentifier{2, 5, 29, 30}
)

func printPublicKey(w io.Writer, algo fmt.Stringer, pub crypto.PublicKey, indent string) {
	fmt.Fprintf(w, "%sPublic Key Algorithm: %s\n", indent, algo)
	switch k := pub.(type) {
	case *sm2.PublicKey:
		fmt.Fprintf(w, "%s    Public-Key: (256 bit)\n%s    pub:\n", indent, indent)
		writeWrapped(w, indent+"        ", k.Bytes())
		fmt.Fprintf(w, "%s    Curve: sm2p256v1 (1.2.156.10197.1.301)\n", indent)
	case *ecdsa.PublicKey:
		fmt.Fprintf(w, "%s    Public-Key: (%d bit)\n", indent, k.Curve.Params().BitSize)
		fmt.Fprintf(w, "%s    Curve: %s\n", indent, k.Curve.Params().Name)
	case *rsa.PublicKey:
		fmt.Fprintf(w, "%s    Public-Key: (%d bit)\n%s    Exponent: %d\n", indent, k.N.BitLen(), indent, k.E)
	case ed25519.PublicKey:
		fmt.Fprintf(w, "%s    pub:\n", indent)
		writeWrapped(w, indent+"        ", k)
	case nil:
		fmt.Fprintf(w, "%s    (unsupported key)\n", indent)
	}
}

func printCertificate(w io.Writer, c *smx509.Certificate) {
	fmt.Fprintln(w, "Certificate:")
	fmt.Fprintln(w, "    Data:")
	fmt.Fprintf(w, "        Version: %d (0x%x)\n", c.Version, c.Version-1)
	fmt.Fprintf(w, "        Serial Number: %s\n", serialString(c.SerialNumber))
	fmt.Fprintf(w, "        Signature Algorithm: %s\n", c.SignatureAlgorithm)
	fmt.Fprintf(w, "        Issuer: %s\n", c.Issuer)
	fmt.Fprintln(w, "        Validity")
	fmt.Fprintf(w, "            Not Before: %s\n", c.NotBefore.UTC().Format(timeLayout))
	fmt.Fprintf(w, "            Not After : %s\n", c.NotAfter.UTC().Format(timeLayout))
	fmt.Fprintf(w, "        Subject: %s\n", c.Subject)
	fmt.Fprintln(w, "        Subject Public Key Info:")
	printPublicKey(w, c.PublicKeyAlgorithm, c.PublicKey, "            ")
	if len(c.Extensions) > 0 {
		fmt.Fprintln(w, "        X509v3 extensions:")
		in := "            "
		if c.KeyUsage != 0 {
			fmt.Fprintf(w, "%sKey Usage%s: %s\n", in, isCritical(c.Extensions, oidKU), keyUsageString(c.KeyUsage))
		}
		if len(c.ExtKeyUsage)+len(c.UnknownExtKeyUsage) > 0 {
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
			fmt.Fprintf(w, "%sExtended Key Usage: %s\n", in, strings.Join(names, ", "))
		}
		if c.BasicConstraintsValid {
			s := "CA:FALSE"
			if c.IsCA {
				s = "CA:TRUE"
				if c.MaxPathLen >= 0 {
					s += fmt.Sprintf(", pathlen:%d", c.MaxPathLen)
				}
			}
			fmt.Fprintf(w, "%sBasic Constraints%s: %s\n", in, isCritical(c.Extensions, oidBC), s)
		}
		var uris []string
		for _, u := range c.URIs {
			uris = append(uris, u.String())
		}
		if s := sansString(c.DNSNames, c.EmailAddresses, c.IPAddresses, uris); s != "" {
			fmt.Fprintf(w, "%sSubject Alternative Name%s: %s\n", in, isCritical(c.Extensions, oidSAN), s)
		}
		if len(c.SubjectKeyId) > 0 {
			fmt.Fprintf(w, "%sSubject Key Identifier: %s\n", in, colonHex(c.SubjectKeyId))
		}
		if len(c.AuthorityKeyId) > 0 {
			fmt.Fprintf(w, "%sAuthority Key Identifier: %s\n", in, colonHex(c.AuthorityKeyId))
		}
		if len(c.PermittedDNSDomains)+len(c.ExcludedDNSDomains)+len(c.PermittedIPRanges)+len(c.ExcludedIPRanges)+
			len(c.PermittedEmailAddresses)+len(c.ExcludedEmailAddresses) > 0 {
			fmt.Fprintf(w, "%sName Constraints%s:\n", in, isCritical(c.Extensions, oidNC))
			for _, d := range c.PermittedDNSDomains {
				fmt.Fprintf(w, "%s    Permitted: DNS:%s\n", in, d)
			}
			for _, n := range c.PermittedIPRanges {
				fmt.Fprintf(w, "%s    Permitted: IP:%s\n", in, n)
			}
			for _, e := range c.PermittedEmailAddresses {
				fmt.Fprintf(w, "%s    Permitted: email:%s\n", in, e)
			}
			for _, d := range c.ExcludedDNSDomains {
				fmt.Fprintf(w, "%s    Excluded: DNS:%s\n", in, d)
			}
			for _, n := range c.ExcludedIPRanges {
				fmt.Fprintf(w, "%s    Excluded: IP:%s\n", in, n)
			}
			for _, e := range c.ExcludedEmailAddresses {
				fmt.Fprintf(w, "%s    Excluded: email:%s\n", in, e)
			}
		}
		for _, u := range c.CRLDistributionPoints {
			fmt.Fprintf(w, "%sCRL Distribution Point: URI:%s\n", in, u)
		}
		for _, u := range c.OCSPServer {
			fmt.Fprintf(w, "%sOCSP: URI:%s\n", in, u)
		}
		for _, u := range c.IssuingCertificateURL {
			fmt.Fprintf(w, "%sCA Issuers: URI:%s\n", in, u)
		}
		for _, p := range c.PolicyIdentifiers {
			fmt.Fprintf(w, "%sPolicy: %s\n", in, p)
		}
		for _, oid := range c.UnhandledCriticalExtensions {
			fmt.Fprintf(w, "%sUnhandled critical extension: %s\n", in, oid)
		}
	}
	fmt.Fprintf(w, "    Signature Algorithm: %s\n", c.SignatureAlgorithm)
	fmt.Fprintln(w, "    Signature Value:")
	writeWrapped(w, "        ", c.Signature)
	switch {
	case c.IsTLCPSignCert() && c.IsTLCPEncCert() && c.KeyUsage == 0:
		fmt.Fprintln(w, "    TLCP role: signing or encryption (no key-usage extension)")
	case c.IsTLCPSignCert() && c.IsTLCPEncCert():
		fmt.Fprintln(w, "    TLCP role: signing and encryption (both key usages)")
	case c.IsTLCPSignCert():
		fmt.Fprintln(w, "    TLCP role: signing certificate")
	case c.IsTLCPEncCert():
		fmt.Fprintln(w, "    TLCP role: encryption certificate")
	}
	sha := sha256.Sum256(c.Raw)
	sm := sm3.Sum(c.Raw)
	fmt.Fprintf(w, "    SHA-256 Fingerprint: %s\n", colonHex(sha[:]))
	fmt.Fprintf(w, "    SM3 Fingerprint: %s\n", colonHex(sm[:]))
}

func printRequest(w io.Writer, r *smx509.CertificateRequest) {
	fmt.Fprintln(w, "Certificate Request:")
	fmt.Fprintln(w, "    Data:")
	fmt.Fprintf(w, "        Version: %d (0x%x)\n", r.Version+1, r.Version)
	fmt.Fprintf(w, "        Subject: %s\n", r.Subject)
	fmt.Fprintln(w, "        Subject Public Key Info:")
	printPublicKey(w, r.PublicKeyAlgorithm, r.PublicKey, "            ")
	var uris []string
	for _, u := range r.URIs {
		uris = append(uris, u.String())
	}
	if s := sansString(r.DNSNames, r.EmailAddresses, r.IPAddresses, uris); s != "" {
		fmt.Fprintf(w, "        Requested Subject Alternative Name: %s\n", s)
	}
	for _, e := range r.Extensions {
		fmt.Fprintf(w, "        Requested extension: %s%s\n", e.Id, map[bool]string{true: " (critical)"}[e.Critical])
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

func printCRL(w io.Writer, l *smx509.RevocationList) {
	fmt.Fprintln(w, "Certificate Revocation List (CRL):")
	fmt.Fprintf(w, "        Signature Algorithm: %s\n", l.SignatureAlgorithm)
	fmt.Fprintf(w, "        Issuer: %s\n", l.Issuer)
	fmt.Fprintf(w, "        Last Update: %s\n", l.ThisUpdate.UTC().Format(timeLayout))
	if !l.NextUpdate.IsZero() {
		fmt.Fprintf(w, "        Next Update: %s\n", l.NextUpdate.UTC().Format(timeLayout))
	}
	if l.Number != nil {
		fmt.Fprintf(w, "        CRL Number: %s\n", l.Number)
	}
	if len(l.AuthorityKeyId) > 0 {
		fmt.Fprintf(w, "        Authority Key Identifier: %s\n", colonHex(l.AuthorityKeyId))
	}
	if len(l.RevokedCertificateEntries) == 0 {
		fmt.Fprintln(w, "No Revoked Certificates.")
	} else {
		fmt.Fprintln(w, "Revoked Certificates:")
		for _, e := range l.RevokedCertificateEntries {
			fmt.Fprintf(w, "    Serial Number: %s\n", serialString(e.SerialNumber))
			fmt.Fprintf(w, "        Revocation Date: %s\n", e.RevocationTime.UTC().Format(timeLayout))
			if e.ReasonCode != 0 {
				fmt.Fprintf(w, "        Reason Code: %d\n", e.ReasonCode)
			}
		}
	}
	fmt.Fprintf(w, "    Signature Algorithm: %s\n", l.SignatureAlgorithm)
	fmt.Fprintln(w, "    Signature Value:")
	writeWrapped(w, "        ", l.Signature)
}

// ---- cert verify ----

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
		return certs, nil
	}
	var certs []*smx509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := smx509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s: no certificates found", path)
	}
	return certs, nil
}

// verifyConfig holds the inputs of cert verify.
type verifyConfig struct {
	Roots, Intermediates []*smx509.Certificate
	Leaf                 *smx509.Certificate
	Host                 string
	Purpose              string
	At                   time.Time
}

func verifyLeaf(cfg verifyConfig) ([][]*smx509.Certificate, error) {
	opts := smx509.VerifyOptions{
		Roots:         smx509.NewCertPool(),
		Intermediates: smx509.NewCertPool(),
		DNSName:       cfg.Host,
		CurrentTime:   cfg.At,
	}
	for _, c := range cfg.Roots {
		opts.Roots.AddCert(c)
	}
	for _, c := range cfg.Intermediates {
		opts.Intermediates.AddCert(c)
	}
	switch cfg.Purpose {
	case "", "any":
		opts.KeyUsages = []smx509.ExtKeyUsage{smx509.ExtKeyUsageAny}
	case "server":
		opts.KeyUsages = []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth}
	case "client":
		opts.KeyUsages = []smx509.ExtKeyUsage{smx509.ExtKeyUsageClientAuth}
	default:
		return nil, usagef("unknown -purpose %q (want any, server or client)", cfg.Purpose)
	}
	return cfg.Leaf.Verify(opts)
}

func certVerify(args []string, stdout io.Writer) error {
	fs := newFlagSet("cert verify")
	roots := fs.String("roots", "", "trusted root certificates (PEM or DER `file`)")
	inters := fs.String("intermediates", "", "intermediate certificates (PEM or DER `file`)")
	host := fs.String("host", "", "check the leaf is valid for this DNS name or IP address")
	purpose := fs.String("purpose", "any", "required extended key usage: any, server or client")
	at := fs.String("at", "", "verify at this time instead of now (YYYY-MM-DD or RFC 3339)")
	rest, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if *roots == "" {
		return usagef("-roots FILE is required")
	}
	if len(rest) != 1 {
		return usagef("want exactly one CERT file, got %d", len(rest))
	}
	cfg := verifyConfig{Host: *host, Purpose: *purpose}
	if *at != "" {
		if cfg.At, err = parseDate(*at); err != nil {
			return usagef("-at: %v", err)
		}
	}
	if cfg.Roots, err = readCertificates(*roots); err != nil {
		return err
	}
	if *inters != "" {
		if cfg.Intermediates, err = readCertificates(*inters); err != nil {
			return err
		}
	}
	leafFile, err := readCertificates(rest[0])
	if err != nil {
		return err
	}
	// Extra certificates after the leaf in its file are treated as
	// intermediates, as a server's chain file would hold them.
	cfg.Leaf = leafFile[0]
	cfg.Intermediates = append(cfg.Intermediates, leafFile[1:]...)
	chains, err := verifyLeaf(cfg)
	if err != nil {
		return fmt.Errorf("%s: verification failed: %w", rest[0], err)
	}
	var names []string
	for _, c := range chains[0] {
		names = append(names, fmt.Sprintf("%q", c.Subject.CommonName))
	}
	fmt.Fprintf(stdout, "%s: OK (chain: %s)\n", rest[0], strings.Join(names, " <- "))
	return nil
}
