// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"crypto"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	smx "github.com/shangmi-go/shangmi/x509"
)

// tlcpOpts are the options s_client and s_server share.
type tlcpOpts struct {
	fs                                 *flagSet
	signCert, signKey, encCert, encKey *string
	cert, key                          *string
	pass, signPass, encPass            *string
	caFile                             *string
	dtlcp                              *bool // s_dtlcp.go
	crls                               *listFlag
	crlAll                             *bool
	cipher                             *listFlag
	alpn                               *listFlag
	peer                               *string
	rawCV, ecdhe71, includeEnc         *bool
	msg, trace                         *bool
	msgfile, keylog                    *string
	quiet, verifyReturnError           *bool
	groups                             *string
	tls13, tlcpOnly                    *bool
	sdf                                *sdfOpts   // keystore.go
	extras                             *extraOpts // extras.go
	compat                             compatOpts // s_compat.go
	server                             bool
}

func addTLCPFlags(fs *flagSet, server bool) *tlcpOpts {
	peerRole := "server"
	if server {
		peerRole = "client"
	}
	o := &tlcpOpts{fs: fs}
	o.signCert = fs.String("sign_cert", "", "the signing certificate and its chain (PEM `FILE`)")
	o.signKey = fs.String("sign_key", "", "the signing private key (`FILE`; default: in -sign_cert's file)")
	o.encCert = fs.String("enc_cert", "", "the encryption certificate (PEM `FILE`)")
	o.encKey = fs.String("enc_key", "", "the encryption private key (`FILE`; default: in -enc_cert's file)")
	fs.alias("sign_cert", "sign-cert")
	fs.alias("sign_key", "sign-key")
	fs.alias("enc_cert", "enc-cert")
	fs.alias("enc_key", "enc-key")
	o.cert = fs.String("cert", "", "GmSSL's combined certificate `FILE` (signing, encryption, CA certificates), or a signing certificate alone")
	o.key = fs.String("key", "", "GmSSL's combined key `FILE` (signing key, then encryption key), or the key of -cert")
	o.pass = fs.String("pass", "", "`password` of the private keys: "+passUsage)
	o.signPass = fs.String("sign_pass", "", "`password` of the signing key only (default -pass)")
	o.encPass = fs.String("enc_pass", "", "`password` of the encryption key only (default -pass)")
	o.caFile = fs.String("CAfile", "", "CA certificates that verify the "+peerRole+" (PEM `FILE`)")
	o.dtlcp = fs.Bool("dtlcp", false, "speak DTLCP (GM/T 0128-2023, TLCP over UDP) instead of TLCP over TCP")
	fs.alias("CAfile", "cacert")
	o.crls = &listFlag{}
	fs.Var(o.crls, "CRL", "check the "+peerRole+"'s certificates against the CRL in `FILE` (may be repeated)")
	fs.alias("CRL", "crl")
	o.crlAll = fs.Bool("crl_check_all", false, "with -CRL: require a CRL for every certificate of the chain, not only the leaf")
	o.verifyReturnError = fs.Bool("verify_return_error", false, "end the handshake if the "+peerRole+"'s certificates do not verify (otherwise the result is printed and the connection goes on, as openssl does)")
	o.cipher = &listFlag{}
	fs.Var(o.cipher, "cipher", "cipher `suites` in preference order, separated by , or :, by our, Tongsuo's (ECC-SM2-SM4-GCM-SM3) or GmSSL's (TLS_ECC_SM4_GCM_SM3) name or hex code (0xE053); may be repeated")
	fs.alias("cipher", "cipher_suite")
	fs.alias("cipher", "ciphersuites") // OpenSSL's flag for the TLS 1.3 suites
	o.groups = fs.String("groups", "", "TLS 1.3 key exchange `groups`, most preferred first, separated by : as OpenSSL's -groups (curveSM2MLKEM768:curveSM2, the default)")
	fs.alias("groups", "curves")
	o.tls13 = fs.Bool("tls1_3", false, "speak TLS 1.3 with the ShangMi suites only (default: TLS 1.3 if -cipher names a TLS 1.3 suite, TLCP otherwise"+map[bool]string{true: "; a server answers both", false: ""}[server]+")")
	o.tlcpOnly = fs.Bool("tlcp", false, "speak TLCP only")
	o.sdf = addSDFFlags(fs)
	o.extras = addExtraFlags(fs, server)
	o.alpn = &listFlag{split: true}
	fs.Var(o.alpn, "alpn", "comma-separated ALPN `protocols` (may be repeated)")
	o.peer = fs.String("peer", "", "interop profile for a `peer`: gmssl, tongsuo or gotlcp (see below); single switches override it")
	o.rawCV = fs.Bool("raw-cv", false, "client: sign CertificateVerify over the raw transcript, GmSSL ≥ 3.2's form (servers accept both forms anyway; tlcp/INTEROP.md D1)")
	fs.alias("raw-cv", "raw_cv")
	if !server {
		o.ecdhe71 = fs.Bool("ecdhe71", false, "send the 71-byte u16-prefixed ECDHE ClientKeyExchange, GmSSL's form (D2)")
		o.includeEnc = fs.Bool("include-enc", false, "send the encryption certificate with ECC client authentication too, as Tongsuo servers need (D3)")
		fs.alias("include-enc", "include_enc")
	}
	o.msg = fs.Bool("msg", false, "print each handshake message, ChangeCipherSpec and alert sent (>>>) and received (<<<), with a hex dump")
	o.trace = fs.Bool("trace", false, "as -msg, with the messages' fields decoded instead of the hex dump")
	fs.alias("trace", "verbose") // GmSSL's tlcp_client/tlcp_server -verbose
	o.msgfile = fs.String("msgfile", "", "write -msg / -trace output to `FILE` instead of standard output")
	o.keylog = fs.String("keylogfile", "", "append the master secrets to `FILE` in NSS key log format, for Wireshark")
	o.quiet = fs.Bool("quiet", false, "print no connection details, only the peer's data and problems")
	ntls := fs.Bool("enable_ntls", false, "accepted for commands copied from Tongsuo: TLCP is Tongsuo's NTLS, which smtool speaks beside TLS 1.3-SM (-tlcp for TLCP alone)")
	fs.alias("enable_ntls", "ntls")
	if server {
		fs.alias("enable_ntls", "enable_force_ntls")
	}
	_ = ntls
	o.addCompatFlags(fs, server)
	return o
}

// peerAbout is the -h text on -peer.
const peerAbout = `-peer sets the interop switches of tlcp/INTEROP.md for one kind of peer:
  gmssl    CertificateVerify over the raw transcript (D1) and, for a client, the 71-byte
           ECDHE ClientKeyExchange (D2) and no server_name extension (GmSSL 3.1 refuses
           extensions), as GmSSL ≥ 3.2 speaks;
  tongsuo  a client sends its encryption certificate with ECC client authentication (D3);
  gotlcp   a client sends both certificates, as gotlcp's own client does.`

// profile applies -peer to cfg for the switches not given explicitly, and
// returns a description of what it set.
func (o *tlcpOpts) profile(cfg *tlcp.Config, server bool) (string, error) {
	set := func(name string, flag *bool, value bool) {
		if flag != nil && !o.fs.isSet(name) {
			*flag = value
		}
	}
	var desc string
	switch strings.ToLower(*o.peer) {
	case "":
	case "gmssl":
		set("raw-cv", o.rawCV, true)
		if !server {
			set("ecdhe71", o.ecdhe71, true)
			desc = "gmssl: raw-transcript CertificateVerify, 71-byte ECDHE ClientKeyExchange, no SNI"
		} else {
			desc = "gmssl: raw-transcript CertificateVerify accepted"
		}
	case "tongsuo":
		if !server {
			set("include-enc", o.includeEnc, true)
			desc = "tongsuo: encryption certificate sent with ECC client authentication"
		}
	case "gotlcp":
		if !server {
			set("include-enc", o.includeEnc, true)
			desc = "gotlcp: both client certificates sent"
		}
	default:
		return "", usagef("-peer: unknown %q (want gmssl, tongsuo or gotlcp)", *o.peer)
	}
	cfg.CertificateVerifyRawTranscript = *o.rawCV
	if !server {
		cfg.ClientECDHEFraming71 = *o.ecdhe71
		cfg.ClientCertIncludeEnc = *o.includeEnc
	}
	return desc, nil
}

// suites parses -cipher.
func (o *tlcpOpts) suites() ([]uint16, error) {
	var ids []uint16
	for _, v := range o.cipher.values {
		for _, name := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ':' || r == ' ' }) {
			id, ok := suiteByName(name)
			if !ok {
				var known []string
				for _, s := range tlcp.CipherSuites() {
					known = append(known, s.Name)
				}
				return nil, usagef("unknown cipher suite %q (known: %s, in our, Tongsuo's or GmSSL's spelling, or as hex)", name, strings.Join(known, ", "))
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// suiteByName finds a suite by our name (ECC_SM4_GCM_SM3), its GM/T 0024
// alias (ECC_SM4_SM3), Tongsuo's (ECC-SM2-SM4-GCM-SM3, ECC-SM2-WITH-SM4-SM3)
// or GmSSL's (TLS_ECC_SM4_GCM_SM3) spelling, or its hex code (0xE053).
func suiteByName(name string) (uint16, bool) {
	for _, s := range ciphersuite.TLS13Suites() {
		if strings.EqualFold(name, s.Name) {
			return s.ID, true
		}
	}
	norm := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	norm = strings.TrimPrefix(norm, "TLS_")
	norm = strings.Replace(norm, "_SM2_WITH_", "_", 1) // BabaSSL/Tongsuo: ECC-SM2-WITH-SM4-SM3
	for _, kx := range []string{"ECC_SM2_", "ECDHE_SM2_"} {
		if strings.HasPrefix(norm, kx) {
			norm = strings.Replace(norm, "_SM2_", "_", 1)
		}
	}
	for _, s := range tlcp.CipherSuites() {
		if norm == s.Name || (s.Alias != "" && norm == s.Alias) {
			return s.ID, true
		}
	}
	h := strings.TrimPrefix(strings.ToLower(name), "0x")
	if len(h) == 4 {
		if v, err := strconv.ParseUint(h, 16, 16); err == nil {
			if s := ciphersuite.Lookup(uint16(v)); s != nil && s.Supported {
				return uint16(v), true
			}
			if ciphersuite.LookupTLS13(uint16(v)) != nil {
				return uint16(v), true
			}
		}
	}
	return 0, false
}

// verifier returns the verifier of the peer's certificates, nil without
// -CAfile.
func (o *tlcpOpts) verifier() (*verifier, error) {
	v := &verifier{crlAll: *o.crlAll}
	if *o.caFile != "" {
		certs, err := readCertificates(*o.caFile)
		if err != nil {
			return nil, err
		}
		v.roots = smx509.NewCertPool()
		for _, c := range certs {
			v.roots.AddCert(c)
		}
	}
	for _, f := range o.crls.values {
		l, err := readCRLs(f)
		if err != nil {
			return nil, err
		}
		v.crls = append(v.crls, l...)
	}
	return v, nil
}

// verifyPeer verifies the peer's double certificate as the tlcp client
// does (INTEROP.md §5): both chains, the host name on the signing
// certificate, the same entity on both, and the CRLs.
func (v *verifier) verifyPeer(st tlcp.ConnectionState, host string, eku smx509.ExtKeyUsage) ([]*smx509.Certificate, error) {
	sign, enc := st.PeerSignCertificate, st.PeerEncCertificate
	if sign == nil {
		return nil, errors.New("no certificate")
	}
	if v.roots == nil {
		return nil, errors.New("no trusted roots to verify with: give -CAfile (there are no built-in SM2 roots)")
	}
	var inter []*smx509.Certificate
	for _, c := range st.PeerCertificates {
		if c != sign && c != enc {
			inter = append(inter, c)
		}
	}
	chains, err := v.verify(sign, inter, host, eku)
	if err != nil {
		return nil, fmt.Errorf("signing certificate: %w", err)
	}
	if enc != nil {
		if _, err := v.verify(enc, inter, "", eku); err != nil {
			return nil, fmt.Errorf("encryption certificate: %w", err)
		}
		if !bytes.Equal(sign.RawSubject, enc.RawSubject) && !sharesName(sign, enc) {
			return nil, errors.New("the signing and encryption certificates name different entities")
		}
	}
	return chains[0], nil
}

// loadPair loads the local double certificate. A server needs both
// halves; a client may have none, or a signing certificate only (ECC
// client authentication).
func (o *tlcpOpts) loadPair(e *env, server bool) (*tlcp.CertificatePair, error) {
	if o.sdf.given(o.fs) {
		return o.sdf.loadPair(e, o, server)
	}
	signCert, signKey := first(*o.signCert, *o.cert), first(*o.signKey, *o.key)
	encCert, encKey := *o.encCert, *o.encKey
	if *o.signCert != "" && *o.cert != "" {
		return nil, usagef("-sign_cert and -cert exclude each other")
	}
	if signCert == "" && encCert == "" {
		if signKey != "" || encKey != "" {
			return nil, usagef("a key without its certificate: give -sign_cert (or -cert) too")
		}
		if server {
			return nil, usagef("a TLCP server needs its signing and encryption certificates: -sign_cert, -sign_key, -enc_cert and -enc_key are required (or GmSSL's combined files: -cert certs.pem -key keys.pem)")
		}
		return nil, nil
	}
	if signCert == "" {
		return nil, usagef("-enc_cert without -sign_cert: give the signing certificate too")
	}
	if signKey == "" {
		signKey = signCert
	}
	if encKey != "" && encCert == "" {
		return nil, usagef("-enc_key without -enc_cert")
	}
	if encCert != "" && encKey == "" {
		encKey = encCert
	}
	signPassFlag, signPassSpec := "pass", *o.pass
	if *o.signPass != "" {
		signPassFlag, signPassSpec = "sign_pass", *o.signPass
	}
	encPassFlag, encPassSpec := "pass", *o.pass
	if *o.encPass != "" {
		encPassFlag, encPassSpec = "enc_pass", *o.encPass
	}
	signCertPEM, err := os.ReadFile(signCert)
	if err != nil {
		return nil, err
	}
	signKeyPEM, err := plainKeys(e, signKey, signPassFlag, signPassSpec)
	if err != nil {
		return nil, err
	}
	if encCert == "" {
		if countLeaves(signCertPEM) >= 2 || bytes.Count(signKeyPEM, []byte("-----BEGIN")) >= 2 {
			// GmSSL's combined files: both halves in each.
			p, err := tlcp.X509CertificatePair(signCertPEM, signKeyPEM, signCertPEM, signKeyPEM)
			if err != nil {
				return nil, fmt.Errorf("%s, %s (read as GmSSL's combined files): %w", signCert, signKey, err)
			}
			return &p, nil
		}
		if server {
			return nil, fmt.Errorf("%s holds one end-entity certificate; a TLCP server needs an encryption certificate too: give -enc_cert and -enc_key, or GmSSL's combined files (-cert certs.pem -key keys.pem)", signCert)
		}
		c, err := tlcp.X509KeyPair(signCertPEM, signKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("signing certificate %s: %w", signCert, err)
		}
		if !c.Leaf.IsTLCPSignCert() {
			return nil, fmt.Errorf("%s is not a TLCP signing certificate (key usage digitalSignature); is it the encryption certificate?", signCert)
		}
		return &tlcp.CertificatePair{Sign: c}, nil
	}
	encCertPEM, err := os.ReadFile(encCert)
	if err != nil {
		return nil, err
	}
	encKeyPEM, err := plainKeys(e, encKey, encPassFlag, encPassSpec)
	if err != nil {
		return nil, err
	}
	p, err := tlcp.X509CertificatePair(signCertPEM, signKeyPEM, encCertPEM, encKeyPEM)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// plainKeys reads a key file, decrypting its keys with their password, and
// returns them as unencrypted PEM, for the tlcp loaders: so each file can
// have its own password.
func plainKeys(e *env, path, passFlag, passSpec string) ([]byte, error) {
	keys, err := loadPrivateKeys(e, path, passFlag, passSpec)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, k := range keys {
		b, err := smx.MarshalPrivateKeyPEM(k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, b...)
	}
	return out, nil
}

// countLeaves counts the end-entity certificates of a PEM file.
func countLeaves(data []byte) int {
	n := 0
	for rest := data; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return n
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if c, err := smx509.ParseCertificate(block.Bytes); err == nil && !isCA(c) {
			n++
		}
	}
}

// outputs opens -msgfile and -keylogfile.
type outputs struct {
	msg    io.Writer // nil without -msg/-trace
	keylog io.Writer
	files  []*os.File
}

func (o *tlcpOpts) openOutputs(e *env) (*outputs, error) {
	out := &outputs{}
	if *o.msg || *o.trace || *o.compat.state {
		out.msg = e.stdout
		if *o.msgfile != "" {
			f, err := os.Create(*o.msgfile)
			if err != nil {
				return nil, err
			}
			out.files = append(out.files, f)
			out.msg = f
		}
	} else if *o.msgfile != "" {
		return nil, usagef("-msgfile goes with -msg, -trace or -state")
	}
	if *o.keylog != "" {
		f, err := os.OpenFile(*o.keylog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		out.files = append(out.files, f)
		out.keylog = f
	}
	return out, nil
}

func (out *outputs) close() {
	for _, f := range out.files {
		f.Close()
	}
}

func (o *tlcpOpts) formatter() traceFormatter {
	return traceFormatter{hex: *o.msg && !*o.trace, decode: *o.trace, headers: *o.msg || *o.trace,
		state: *o.compat.state, server: o.server, st: &traceState{}}
}

// keyCapture is a key log writer that keeps the last master secret, for
// -sess_out, and passes the lines on.
type keyCapture struct {
	mu           sync.Mutex
	next         io.Writer
	clientRandom []byte
	master       []byte
}

func (k *keyCapture) Write(p []byte) (int, error) {
	f := strings.Fields(string(p))
	k.mu.Lock()
	if len(f) == 3 {
		// Every line names the client random: TLCP's CLIENT_RANDOM, and
		// TLS 1.3's traffic secrets.
		k.clientRandom, _ = hex.DecodeString(f[1])
	}
	if len(f) == 3 && f[0] == "CLIENT_RANDOM" {
		k.master, _ = hex.DecodeString(f[2])
	}
	k.mu.Unlock()
	if k.next != nil {
		return k.next.Write(p)
	}
	return len(p), nil
}

// random is the client random of the last line written.
func (k *keyCapture) random() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.clientRandom
}

// logGroup writes a comment line to the key log naming the connection's
// key exchange group and suite: Wireshark reads the secrets, and a reader
// of the log sees what they came from. NSS's key log format ignores lines
// that start with #.
func logGroup(w io.Writer, clientRandom []byte, st tlcp.ConnectionState) {
	if w == nil || clientRandom == nil {
		return
	}
	group := "no key exchange group (ECC suite or resumed TLCP session)"
	if st.CurveID != 0 {
		group = "group " + st.CurveID.String()
	}
	fmt.Fprintf(w, "# %x %s %s, %s\n", clientRandom, protocolName(st.Version), tlcp.CipherSuiteName(st.CipherSuite), group)
}

// Unused-import guard.
var _ crypto.Signer

// suiteNames lists the suites tlcp can negotiate.
func suiteNames() []string {
	var names []string
	for _, s := range tlcp.CipherSuites() {
		n := fmt.Sprintf("%s (0x%04X)", s.Name, s.ID)
		if s.OptIn {
			n += " opt-in"
		}
		names = append(names, n)
	}
	return names
}
