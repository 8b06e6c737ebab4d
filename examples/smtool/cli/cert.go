// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"crypto"
	"crypto/rand"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "cert gen",
		group:   "Keys and certificates",
		summary: "make a test PKI: a CA, server and client TLCP double certificates",
		about: `Writes ca, server_sign, server_enc, client_sign and client_enc as NAME.pem (certificate)
and NAME.key (PKCS #8 key, mode 0600) into the -out folder, which must be new or empty
unless -force is given. With -CA/-CAkey the leaves are issued by an existing CA instead
of a new root. The two certificates of each party share subject and alternative names.`,
		example: []string{
			"smtool cert gen -out pki -hosts localhost,127.0.0.1 -cn www.example.cn -days 365",
			"smtool cert gen -out pki2 -CA pki/ca.pem -CAkey pki/ca.key -hosts www.example.cn",
		},
		run: certGen,
	})
}

// genConfig describes a TLCP test PKI.
type genConfig struct {
	Hosts               sans
	NotBefore, NotAfter time.Time
	Rand                io.Reader
	// Subjects (DER) of the server leaves, the client leaves and the CA;
	// nil means the defaults.
	ServerSubject, ClientSubject, CASubject []byte
	// CA, if set, issues the leaves instead of a new root; it is not
	// written out again.
	CA *issued
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

func mustSubject(s string) []byte {
	raw, err := parseSubject(s)
	if err != nil {
		panic(err)
	}
	return raw
}

func generateTLCP(cfg genConfig) (*tlcpSet, error) {
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.ServerSubject == nil {
		cfg.ServerSubject = mustSubject("/C=CN/O=shangmi/CN=shangmi test server")
	}
	if cfg.ClientSubject == nil {
		cfg.ClientSubject = mustSubject("/C=CN/O=shangmi/CN=shangmi test client")
	}
	if cfg.CASubject == nil {
		cfg.CASubject = mustSubject("/C=CN/O=shangmi/CN=shangmi Test Root CA")
	}
	serial := func() (*big.Int, error) {
		return rand.Int(cfg.Rand, new(big.Int).Lsh(big.NewInt(1), 127))
	}
	set := &tlcpSet{}
	if cfg.CA != nil {
		set.CA = *cfg.CA
	} else {
		key, err := sm2.GenerateKey(cfg.Rand)
		if err != nil {
			return nil, err
		}
		sn, err := serial()
		if err != nil {
			return nil, err
		}
		t := &smx509.Certificate{
			SerialNumber: sn, RawSubject: cfg.CASubject, NotBefore: cfg.NotBefore, NotAfter: cfg.NotAfter,
			KeyUsage: caUsage, BasicConstraintsValid: true, IsCA: true, MaxPathLen: -1,
		}
		der, err := smx509.CreateCertificate(cfg.Rand, t, t, key.Public(), key)
		if err != nil {
			return nil, err
		}
		cert, err := smx509.ParseCertificate(der)
		if err != nil {
			return nil, err
		}
		set.CA = issued{"ca", cert, key}
	}
	leaf := func(name string, subject []byte, ku smx509.KeyUsage, eku smx509.ExtKeyUsage) (issued, error) {
		key, err := sm2.GenerateKey(cfg.Rand)
		if err != nil {
			return issued{}, err
		}
		sn, err := serial()
		if err != nil {
			return issued{}, err
		}
		// Sign and enc certificates share subject and SANs: GmSSL and
		// Kona check that both name the same entity, and gotlcp checks
		// the host name on both. No basicConstraints: GmSSL 3 refuses
		// the empty one (CA:FALSE).
		t := &smx509.Certificate{
			SerialNumber: sn, RawSubject: subject, NotBefore: cfg.NotBefore, NotAfter: cfg.NotAfter,
			KeyUsage: ku, ExtKeyUsage: []smx509.ExtKeyUsage{eku},
			DNSNames: cfg.Hosts.dns, IPAddresses: cfg.Hosts.ips, EmailAddresses: cfg.Hosts.emails, URIs: cfg.Hosts.uris,
		}
		der, err := smx509.CreateCertificate(cfg.Rand, t, set.CA.Cert, key.Public(), set.CA.Key)
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
	if set.ServerSign, err = leaf("server_sign", cfg.ServerSubject, tlcpSignUsage, smx509.ExtKeyUsageServerAuth); err != nil {
		return nil, err
	}
	if set.ServerEnc, err = leaf("server_enc", cfg.ServerSubject, tlcpEncUsage, smx509.ExtKeyUsageServerAuth); err != nil {
		return nil, err
	}
	if set.ClientSign, err = leaf("client_sign", cfg.ClientSubject, tlcpSignUsage, smx509.ExtKeyUsageClientAuth); err != nil {
		return nil, err
	}
	if set.ClientEnc, err = leaf("client_enc", cfg.ClientSubject, tlcpEncUsage, smx509.ExtKeyUsageClientAuth); err != nil {
		return nil, err
	}
	return set, nil
}

// writeSet writes NAME.pem (certificate) and NAME.key (PKCS #8, encrypted
// if password is set) for every member of set into dir, except the CA when
// skipCA is set (it came from existing files).
func writeSet(set *tlcpSet, dir string, skipCA bool, password []byte, opts *smx.PBES2Options) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for i, m := range set.all() {
		if i == 0 && skipCA {
			continue
		}
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: m.Cert.Raw})
		var keyPEM []byte
		var err error
		if password != nil {
			keyPEM, err = smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, m.Key, password, opts)
		} else {
			keyPEM, err = smx.MarshalPrivateKeyPEM(m.Key)
		}
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

// checkOutDir refuses an existing folder that is not empty, unless force.
func checkOutDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return fmt.Errorf("-out %s is a file, not a folder", dir)
		}
		return err
	}
	if len(entries) == 0 || force {
		return nil
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	sort.Strings(names)
	if len(names) > 4 {
		names = append(names[:4], "...")
	}
	return fmt.Errorf("-out %s already exists and holds %d files (%s); give -force to write into it anyway, replacing files of the same names", dir, len(entries), strings.Join(names, ", "))
}

func certGen(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	out := fs.String("out", "", "output `folder` (created if missing; refused if not empty, unless -force)")
	force := fs.Bool("force", false, "write into a folder that is not empty, replacing files of the same names")
	hosts := fs.String("hosts", "localhost,127.0.0.1", "comma-separated DNS names and IP addresses for the leaves' subjectAltName")
	san := &listFlag{}
	fs.Var(san, "san", "more alternative names, openssl's subjectAltName `list` (DNS:..,IP:..,email:..,URI:..)")
	subj := fs.String("subj", "", "subject of the server certificates, `/C=CN/O=.../CN=...` (default /C=CN/O=shangmi/CN=shangmi test server)")
	cn := fs.String("cn", "", "common `name` of the server certificates (in place of the default subject's)")
	fs.alias("cn", "CN")
	clientSubj := fs.String("client-subj", "", "subject of the client certificates (`/C=CN/...`)")
	caSubj := fs.String("ca-subj", "", "subject of the new root CA (`/C=CN/...`)")
	val := addValidityFlags(fs, 3650)
	caCertFile := fs.String("CA", "", "issue from this existing CA certificate (`FILE`, with -CAkey) instead of a new root")
	fs.alias("CA", "ca-cert", "cacert")
	caKeyFile := fs.String("CAkey", "", "private key `FILE` of -CA")
	fs.alias("CAkey", "ca-key", "cakey")
	caPass := fs.String("CApass", "", "`password` of an encrypted -CAkey: "+passUsage)
	fs.alias("CApass", "ca-pass", "passin")
	passout := fs.String("passout", "", "encrypt the written keys with this `password`: "+passUsage)
	pbe := fs.String("pbe", "gmssl", "encryption of the written keys: `gmssl`, tongsuo or openssl")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if *out == "" {
		return usagef("-out DIR is required")
	}
	cfg := genConfig{}
	if cfg.NotBefore, cfg.NotAfter, err = val.get(fs); err != nil {
		return err
	}
	if *hosts != "" {
		if err := cfg.Hosts.addHosts(*hosts); err != nil {
			return usagef("-hosts: %v", err)
		}
	}
	for _, s := range san.values {
		if err := cfg.Hosts.addSAN(s); err != nil {
			return usagef("-san: %v", err)
		}
	}
	switch {
	case *subj != "" && *cn != "":
		return usagef("-subj and -cn exclude each other (put CN= in -subj)")
	case *subj != "":
		if cfg.ServerSubject, err = parseSubject(*subj); err != nil {
			return usagef("-subj: %v", err)
		}
	case *cn != "":
		if cfg.ServerSubject, err = parseSubject("/C=CN/O=shangmi/CN=" + strings.ReplaceAll(*cn, "/", `\/`)); err != nil {
			return usagef("-cn: %v", err)
		}
	}
	if *clientSubj != "" {
		if cfg.ClientSubject, err = parseSubject(*clientSubj); err != nil {
			return usagef("-client-subj: %v", err)
		}
	}
	if *caSubj != "" {
		if *caCertFile != "" {
			return usagef("-ca-subj names a new root; with -CA the existing CA issues")
		}
		if cfg.CASubject, err = parseSubject(*caSubj); err != nil {
			return usagef("-ca-subj: %v", err)
		}
	}
	if (*caCertFile == "") != (*caKeyFile == "") {
		return usagef("-CA and -CAkey go together")
	}
	pw, err := e.password("passout", *passout)
	if err != nil {
		return err
	}
	opts, err := pbesOptions(*pbe)
	if err != nil {
		return err
	}
	warnGmSSLValidity(e, cfg.NotBefore, cfg.NotAfter)
	if err := checkOutDir(*out, *force); err != nil {
		return err
	}
	if *caCertFile != "" {
		if cfg.CA, err = loadCA(e, *caCertFile, *caKeyFile, "CApass", *caPass); err != nil {
			return err
		}
		if cfg.NotAfter.After(cfg.CA.Cert.NotAfter) {
			e.warnf("the leaves (notAfter %s) outlive their CA (notAfter %s)", opensslTime(cfg.NotAfter), opensslTime(cfg.CA.Cert.NotAfter))
		}
	}
	set, err := generateTLCP(cfg)
	if err != nil {
		return err
	}
	files, err := writeSet(set, *out, cfg.CA != nil, pw, opts)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(e.stdout, "wrote", f)
	}
	return nil
}

// Unused-import guards for helpers shared with other files.
var (
	_ crypto.Signer
	_ asn1.ObjectIdentifier
)
