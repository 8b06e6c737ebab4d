// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"crypto"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/pkcs7"
	smx "github.com/shangmi-go/shangmi/x509"
)

const cmsGroup = "Signed and enveloped messages (CMS, PKCS #7, GB/T 35275)"

func init() {
	register(&command{
		name:    "cms sign",
		group:   cmsGroup,
		summary: "sign a file (SignedData), like openssl cms -sign",
		about: `The message has GM/T 0010 content types (what GmSSL reads) unless -family pkcs7
(what Tongsuo and OpenSSL read). Signed attributes (content-type, message-digest,
signing-time) are included unless -noattr. -gmssl writes the form GmSSL 3's cmsverify
checks: GM/T 0010, attached, no attributes, the signature over the encapsulated content
without Z. A detached signature is computed while the file is read, in constant memory.
Several -signer/-inkey pairs make several signers.`,
		example: []string{
			"smtool cms sign -in msg.txt -signer sign.pem -inkey sign.key -nodetach -out msg.p7s",
			"smtool cms sign -in msg.txt -signer sign.pem -inkey sign.key -family pkcs7 -outform DER -out msg.sig",
		},
		run: cmsSign,
	})
	register(&command{
		name:    "cms verify",
		group:   cmsGroup,
		summary: "verify a SignedData or DigestedData and its signers' chains",
		about: `Every signer is checked: its signature, its content-type and message-digest attributes, and
its certificate's chain to -CAfile (unless -noverify) at -attime or now, and its key usage.
The content is written to -out. A detached signature needs -content.`,
		example: []string{
			"smtool cms verify -in msg.p7s -CAfile ca.pem -out msg.txt",
			"smtool cms verify -in msg.sig -content msg.txt -CAfile ca.pem",
		},
		run: cmsVerify,
	})
	register(&command{
		name:    "cms encrypt",
		group:   cmsGroup,
		summary: "encrypt a file for SM2 recipients (EnvelopedData)",
		about: `The content is encrypted with SM4-CBC (or -sm4-gcm) under a fresh key that is SM2-encrypted to
each -recip certificate (also given as arguments, as openssl takes them). -gmssl writes the
key encryption identifier GmSSL 3's cmsdecrypt requires. With -secretkey HEX and no
recipients the message is an EncryptedData under that SM4 key. With -signer/-inkey it is a
SignedAndEnvelopedData.`,
		example: []string{
			"smtool cms encrypt -in msg.txt -recip enc.pem -out msg.p7m",
			"smtool cms encrypt -in msg.txt -sm4-gcm -family pkcs7 -recip a.pem -recip b.pem -out msg.p7m",
		},
		run: cmsEncrypt,
	})
	register(&command{
		name:    "cms decrypt",
		group:   cmsGroup,
		summary: "decrypt an Enveloped, SignedAndEnveloped or EncryptedData",
		about: `-inkey is the recipient's SM2 encryption key; -recip its certificate picks the recipient
(without it every recipient is tried). A SignedAndEnvelopedData is also verified, against
-CAfile unless -noverify.`,
		example: []string{
			"smtool cms decrypt -in msg.p7m -recip enc.pem -inkey enc.key -out msg.txt",
		},
		run: cmsDecrypt,
	})
	register(&command{
		name:    "cms show",
		group:   cmsGroup,
		summary: "print the structure of a CMS or PKCS #7 message",
		args:    "[-in] FILE",
		example: []string{
			"smtool cms show msg.p7s",
		},
		run: cmsShow,
	})
}

// cmsIO are the flags every cms subcommand has.
type cmsIO struct {
	in, out, inform, outform *string
}

func addCMSIO(fs *flagSet, inHelp string) *cmsIO {
	c := &cmsIO{
		in:      fs.String("in", "", inHelp),
		out:     fs.String("out", "", "write to `FILE` (default: standard output)"),
		inform:  fs.String("inform", "", "input `format`: PEM or DER (default: recognised)"),
		outform: fs.String("outform", "PEM", "output `format`: PEM (\"CMS\" label), PKCS7 (PEM, \"PKCS7\" label) or DER"),
	}
	return c
}

// parse parses the flags; one argument is taken as -in.
func (c *cmsIO) parse(fs *flagSet, e *env, args []string) error {
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if *c.in == "" && len(rest) == 1 {
		*c.in, rest = rest[0], nil
	}
	return noArgs(rest)
}

// readMessage reads and parses a message from -in (or stdin).
func (c *cmsIO) readMessage(e *env) (*pkcs7.Message, error) {
	data, err := c.readInput(e)
	if err != nil {
		return nil, err
	}
	pemInput := bytes.Contains(data, []byte("-----BEGIN"))
	switch strings.ToUpper(*c.inform) {
	case "":
	case "PEM":
		pemInput = true
	case "DER":
		pemInput = false
	default:
		return nil, usagef("-inform: unknown %q (want PEM or DER)", *c.inform)
	}
	var m *pkcs7.Message
	if pemInput {
		m, err = pkcs7.ParsePEM(data)
	} else {
		m, err = pkcs7.Parse(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name(), err)
	}
	return m, nil
}

func (c *cmsIO) name() string {
	if *c.in == "" || *c.in == "-" {
		return "standard input"
	}
	return *c.in
}

func (c *cmsIO) readInput(e *env) ([]byte, error) {
	if *c.in == "" || *c.in == "-" {
		return io.ReadAll(e.stdin)
	}
	return os.ReadFile(*c.in)
}

// writeMessage writes der in -outform.
func (c *cmsIO) writeMessage(e *env, der []byte) error {
	switch strings.ToUpper(*c.outform) {
	case "PEM", "SMIME", "CMS":
		der = pkcs7.EncodePEM(der, pkcs7.PEMTypeCMS)
	case "PKCS7":
		der = pkcs7.EncodePEM(der, pkcs7.PEMTypePKCS7)
	case "DER":
	default:
		return usagef("-outform: unknown %q (want PEM, PKCS7 or DER)", *c.outform)
	}
	return writeOutput(e, *c.out, der, 0o644)
}

func parseFamily(s string) (pkcs7.Family, error) {
	switch strings.ToLower(s) {
	case "gm", "gmt0010", "gbt35275", "sm2":
		return pkcs7.GMT0010, nil
	case "pkcs7", "cms", "openssl", "tongsuo":
		return pkcs7.PKCS7, nil
	}
	return 0, usagef("-family: unknown %q (want gm or pkcs7)", s)
}

// loadSigners pairs each -signer certificate with its -inkey key.
func loadSigners(e *env, certs, keys []string, passin string, uid string, keyid bool) ([]pkcs7.Signer, error) {
	if len(certs) == 0 {
		return nil, nil
	}
	if len(keys) != len(certs) && !(len(keys) == 0) {
		return nil, usagef("%d -signer certificates but %d -inkey keys", len(certs), len(keys))
	}
	var out []pkcs7.Signer
	for i, path := range certs {
		list, err := readCertificates(path)
		if err != nil {
			return nil, err
		}
		keyPath := path // openssl takes the key from the certificate's file without -inkey
		if len(keys) > 0 {
			keyPath = keys[i]
		}
		key, err := loadPrivateKey(e, keyPath, "passin", passin)
		if err != nil {
			return nil, err
		}
		s := pkcs7.Signer{Certificate: list[0], Key: key, BySubjectKeyId: keyid}
		if uid != "" {
			s.UID = []byte(uid)
		}
		out = append(out, s)
	}
	return out, nil
}

func readCertificateFiles(paths []string) ([]*smx509.Certificate, error) {
	var out []*smx509.Certificate
	for _, p := range paths {
		list, err := readCertificates(p)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

func cmsSign(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	io := addCMSIO(fs, "the `FILE` to sign (default: standard input)")
	var signers, keys, certfiles listFlag
	fs.Var(&signers, "signer", "signer's certificate `FILE` (repeat for several signers)")
	fs.alias("signer", "cert")
	fs.Var(&keys, "inkey", "signer's private key `FILE`, one per -signer")
	fs.alias("inkey", "key")
	passin := fs.String("passin", "", "`password` of the keys: "+passUsage)
	fs.alias("passin", "pass")
	fs.Var(&certfiles, "certfile", "more certificates to carry (a chain) from `FILE`")
	nodetach := fs.Bool("nodetach", false, "put the content in the message (default: detached)")
	noattr := fs.Bool("noattr", false, "no signed attributes: sign the content itself")
	nosigningtime := fs.Bool("nosigningtime", false, "no signing-time attribute")
	noZ := fs.Bool("noZ", false, "with -noattr, sign without Z, as openssl cms -noattr does")
	nocerts := fs.Bool("nocerts", false, "do not carry the signers' certificates")
	keyid := fs.Bool("keyid", false, "name signers by subject key identifier")
	sm21 := fs.Bool("sm2-1", false, "write the signature algorithm as sm2-1 (GB/T 35275; gmsm and CFCA need it), not sm2-with-sm3")
	gmssl := fs.Bool("gmssl", false, "GmSSL 3's form: GM/T 0010, attached, no attributes, no Z")
	family := fs.String("family", "gm", "content type identifiers: `gm` (GM/T 0010) or pkcs7")
	uid := fs.String("uid", "", "signers' SM2 `ID` (default 1234567812345678)")
	fs.alias("uid", "sm2-id", "id")
	md := fs.String("md", "sm3", "digest: sm3 only")
	digest := fs.Bool("digest_create", false, "make a DigestedData (SM3) instead: no signers")
	fs.Bool("binary", true, "accepted: content is always signed as given, never as canonical text")
	fs.Bool("nosmimecap", true, "accepted: no S/MIME capabilities are written")
	if err := io.parse(fs, e, args); err != nil {
		return err
	}
	if strings.ToLower(*md) != "sm3" {
		return usagef("-md %s: SM2 signatures use sm3", *md)
	}
	f, err := parseFamily(*family)
	if err != nil {
		return err
	}
	if *digest {
		content, err := io.readInput(e)
		if err != nil {
			return err
		}
		der, err := pkcs7.Digest(content, f)
		if err != nil {
			return err
		}
		return io.writeMessage(e, der)
	}
	if len(signers.values) == 0 {
		return usagef("-signer FILE is required")
	}
	ss, err := loadSigners(e, signers.values, keys.values, *passin, *uid, *keyid)
	if err != nil {
		return err
	}
	extra, err := readCertificateFiles(certfiles.values)
	if err != nil {
		return err
	}
	opts := &pkcs7.SignOptions{
		Family: f, NoAttributes: *noattr, NoSigningTime: *nosigningtime, WithoutZ: *noZ,
		NoCertificates: *nocerts, Certificates: extra, GmSSL: *gmssl,
	}
	if *sm21 {
		opts.SignatureAlgorithm = smx.OIDSM2Signing
	}
	var der []byte
	if *nodetach || *gmssl {
		content, err := io.readInput(e)
		if err != nil {
			return err
		}
		der, err = pkcs7.Sign(content, ss, opts)
		if err != nil {
			return err
		}
	} else {
		r, closeIn, err := io.open(e)
		if err != nil {
			return err
		}
		der, err = pkcs7.SignDetached(r, ss, opts)
		closeIn()
		if err != nil {
			return err
		}
	}
	return io.writeMessage(e, der)
}

// open opens -in for streaming.
func (c *cmsIO) open(e *env) (io.Reader, func(), error) {
	if *c.in == "" || *c.in == "-" {
		return e.stdin, func() {}, nil
	}
	f, err := os.Open(*c.in)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// verifyFlags are the chain options of cms verify and cms decrypt.
type verifyFlags struct {
	cafile, purpose, attime, uid *string
	certfile                     listFlag
	noverify, strict             *bool
}

func addVerifyFlags(fs *flagSet) *verifyFlags {
	v := &verifyFlags{}
	v.cafile = fs.String("CAfile", "", "trusted root certificates `FILE`")
	fs.alias("CAfile", "cacert")
	fs.Var(&v.certfile, "certfile", "more certificates (signers', intermediates) from `FILE`")
	v.noverify = fs.Bool("noverify", false, "check the signatures only, not the signers' certificates")
	v.purpose = fs.String("purpose", "any", "extended key usage the signers need: `any`, emailProtection, codeSigning, serverAuth, clientAuth")
	v.attime = fs.String("attime", "", "check the chains at this `time` (unix seconds or YYYY-MM-DD)")
	v.uid = fs.String("uid", "", "signers' SM2 `ID` (default 1234567812345678, then the empty ID)")
	fs.alias("uid", "sm2-id", "id")
	v.strict = fs.Bool("strictZ", false, "refuse signatures without Z (OpenSSL -noattr, GmSSL)")
	return v
}

func (v *verifyFlags) options() (pkcs7.VerifyOptions, error) {
	var opts pkcs7.VerifyOptions
	opts.NoChainVerification = *v.noverify
	opts.StrictZ = *v.strict
	if *v.uid != "" {
		opts.UID = []byte(*v.uid)
	}
	if *v.cafile != "" {
		roots, err := readCertificates(*v.cafile)
		if err != nil {
			return opts, err
		}
		opts.Roots = smx509.NewCertPool()
		for _, c := range roots {
			opts.Roots.AddCert(c)
		}
	} else if !*v.noverify {
		return opts, usagef("-CAfile FILE is required (or -noverify)")
	}
	extra, err := readCertificateFiles(v.certfile.values)
	if err != nil {
		return opts, err
	}
	opts.Certificates = extra
	opts.Intermediates = smx509.NewCertPool()
	for _, c := range extra {
		opts.Intermediates.AddCert(c)
	}
	if *v.purpose != "any" {
		eku, err := parsePurpose(*v.purpose)
		if err != nil {
			return opts, err
		}
		opts.KeyUsages = []smx509.ExtKeyUsage{eku}
	}
	if *v.attime != "" {
		t, err := parseDate(*v.attime)
		if err != nil {
			return opts, usagef("-attime: %v", err)
		}
		opts.CurrentTime = t
	}
	return opts, nil
}

func cmsVerify(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	io := addCMSIO(fs, "the message `FILE` (default: standard input)")
	content := fs.String("content", "", "the signed content `FILE`, for a detached signature")
	v := addVerifyFlags(fs)
	if err := io.parse(fs, e, args); err != nil {
		return err
	}
	m, err := io.readMessage(e)
	if err != nil {
		return err
	}
	switch m.Type {
	case pkcs7.DigestedDataType:
		var detached []byte
		if *content != "" {
			if detached, err = os.ReadFile(*content); err != nil {
				return err
			}
		}
		if err := m.Digested.Verify(detached); err != nil {
			return err
		}
		fmt.Fprintln(e.stderr, "Verification successful (digest)")
		if detached == nil {
			return writeOutput(e, *io.out, m.Digested.Content, 0o644)
		}
		return nil
	case pkcs7.SignedDataType:
	default:
		return fmt.Errorf("%s is %s, not signedData", io.name(), m.Type)
	}
	opts, err := v.options()
	if err != nil {
		return err
	}
	sd := m.Signed
	if sd.Detached {
		if *content == "" {
			return usagef("the signature is detached: give the content with -content FILE")
		}
		f, err := os.Open(*content)
		if err != nil {
			return err
		}
		err = sd.VerifyDetached(f, opts)
		f.Close()
		if err != nil {
			return err
		}
	} else if err := sd.Verify(opts); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "Verification successful (%d signer(s))\n", len(sd.Signers))
	if !sd.Detached && *io.out != "" {
		return writeOutput(e, *io.out, sd.Content, 0o644)
	}
	if !sd.Detached && *io.out == "" {
		_, err := e.stdout.Write(sd.Content)
		return err
	}
	return nil
}

func cmsEncrypt(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	io := addCMSIO(fs, "the `FILE` to encrypt (default: standard input)")
	var recips, signers, keys listFlag
	fs.Var(&recips, "recip", "recipient's certificate `FILE` (repeat for several)")
	fs.alias("recip", "rcptcert")
	gcm := fs.Bool("sm4-gcm", false, "encrypt with SM4-GCM")
	fs.Bool("sm4-cbc", false, "encrypt with SM4-CBC (the default)")
	fs.alias("sm4-cbc", "sm4")
	keyid := fs.Bool("keyid", false, "name recipients (and signers) by subject key identifier")
	gmssl := fs.Bool("gmssl", false, "GmSSL 3's key encryption identifier (1.2.156.10197.1.301.2)")
	family := fs.String("family", "gm", "content type identifiers: `gm` (GM/T 0010) or pkcs7")
	secret := fs.String("secretkey", "", "EncryptedData under this SM4 key (32 `hex` digits)")
	fs.Var(&signers, "signer", "also sign (SignedAndEnvelopedData) with this certificate `FILE`")
	fs.Var(&keys, "inkey", "signer's private key `FILE`, one per -signer")
	passin := fs.String("passin", "", "`password` of the signers' keys: "+passUsage)
	uid := fs.String("uid", "", "signers' SM2 `ID` (default 1234567812345678)")
	fs.Bool("binary", true, "accepted: content is always encrypted as given")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	recips.values = append(recips.values, rest...)
	f, err := parseFamily(*family)
	if err != nil {
		return err
	}
	opts := &pkcs7.EncryptOptions{Family: f, GmSSL: *gmssl}
	if *gcm {
		opts.Cipher = pkcs7.SM4GCM
	}
	content, err := io.readInput(e)
	if err != nil {
		return err
	}
	if *secret != "" {
		if len(recips.values) > 0 || len(signers.values) > 0 {
			return usagef("-secretkey makes an EncryptedData: no -recip or -signer")
		}
		key, err := hex.DecodeString(*secret)
		if err != nil || len(key) != 16 {
			return usagef("-secretkey: want 32 hex digits (an SM4 key)")
		}
		der, err := pkcs7.EncryptWithKey(content, key, opts)
		if err != nil {
			return err
		}
		return io.writeMessage(e, der)
	}
	if len(recips.values) == 0 {
		return usagef("-recip FILE is required (or -secretkey)")
	}
	certs, err := readCertificateFiles(recips.values)
	if err != nil {
		return err
	}
	var rs []pkcs7.Recipient
	for _, c := range certs {
		rs = append(rs, pkcs7.Recipient{Certificate: c, BySubjectKeyId: *keyid})
	}
	var der []byte
	if len(signers.values) > 0 {
		ss, err := loadSigners(e, signers.values, keys.values, *passin, *uid, *keyid)
		if err != nil {
			return err
		}
		der, err = pkcs7.SignAndEncrypt(content, ss, rs, &pkcs7.SignOptions{GmSSL: *gmssl}, opts)
		if err != nil {
			return err
		}
	} else if der, err = pkcs7.Encrypt(content, rs, opts); err != nil {
		return err
	}
	return io.writeMessage(e, der)
}

func cmsDecrypt(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	io := addCMSIO(fs, "the message `FILE` (default: standard input)")
	recip := fs.String("recip", "", "the recipient's certificate `FILE` (default: try every recipient)")
	fs.alias("recip", "cert")
	inkey := fs.String("inkey", "", "the recipient's SM2 private key `FILE`")
	fs.alias("inkey", "key")
	passin := fs.String("passin", "", "`password` of the key: "+passUsage)
	fs.alias("passin", "pass")
	secret := fs.String("secretkey", "", "the SM4 key of an EncryptedData (32 `hex` digits)")
	v := addVerifyFlags(fs)
	if err := io.parse(fs, e, args); err != nil {
		return err
	}
	m, err := io.readMessage(e)
	if err != nil {
		return err
	}
	if m.Type == pkcs7.EncryptedDataType {
		key, err := hex.DecodeString(*secret)
		if err != nil || len(key) != 16 {
			return usagef("an EncryptedData needs -secretkey with 32 hex digits")
		}
		out, err := m.Encrypted.Decrypt(key)
		if err != nil {
			return err
		}
		return writeOutput(e, *io.out, out, 0o644)
	}
	if *inkey == "" {
		return usagef("-inkey FILE is required")
	}
	signer, err := loadPrivateKey(e, *inkey, "passin", *passin)
	if err != nil {
		return err
	}
	key, ok := signer.(crypto.Decrypter)
	if !ok {
		return fmt.Errorf("%s: the key cannot decrypt", *inkey)
	}
	if _, ok := key.(*sm2.PrivateKey); !ok {
		return fmt.Errorf("%s: not an SM2 key", *inkey)
	}
	var cert *smx509.Certificate
	if *recip != "" {
		list, err := readCertificates(*recip)
		if err != nil {
			return err
		}
		cert = list[0]
	}
	var out []byte
	switch m.Type {
	case pkcs7.EnvelopedDataType:
		out, err = m.Enveloped.Decrypt(cert, key)
	case pkcs7.SignedAndEnvelopedDataType:
		var opts pkcs7.VerifyOptions
		if opts, err = v.options(); err != nil {
			return err
		}
		out, err = m.SignedAndEnveloped.Open(cert, key, opts)
		if err == nil {
			fmt.Fprintf(e.stderr, "Verification successful (%d signer(s))\n", len(m.SignedAndEnveloped.Signers))
		}
	default:
		return fmt.Errorf("%s is %s, not an encrypted message", io.name(), m.Type)
	}
	if err != nil {
		return err
	}
	return writeOutput(e, *io.out, out, 0o644)
}

func cmsShow(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	io := addCMSIO(fs, "the message `FILE` (default: standard input)")
	if err := io.parse(fs, e, args); err != nil {
		return err
	}
	m, err := io.readMessage(e)
	if err != nil {
		return err
	}
	var b strings.Builder
	showMessage(&b, m)
	return writeOutput(e, *io.out, []byte(b.String()), 0o644)
}

func showMessage(w io.Writer, m *pkcs7.Message) {
	p := func(indent int, format string, args ...any) {
		fmt.Fprintf(w, "%s%s\n", strings.Repeat("  ", indent), fmt.Sprintf(format, args...))
	}
	p(0, "%s (%v, %v)", m.Type, m.Family, m.ContentTypeOID)
	certs := func(list []*smx509.Certificate) {
		for _, c := range list {
			p(2, "subject %q, issuer %q, serial %x", c.Subject.String(), c.Issuer.String(), c.SerialNumber)
		}
	}
	signers := func(list []*pkcs7.SignerInfo) {
		for i, si := range list {
			p(1, "signer %d: version %d, %s", i, si.Version, si.ID.String())
			p(2, "digest %v, signature %v (%d bytes)", si.DigestAlgorithm.Algorithm, si.SignatureAlgorithm.Algorithm, len(si.Signature))
			if si.SignedAttributes == nil {
				p(2, "no signed attributes")
			}
			for _, a := range si.SignedAttributes {
				p(2, "signed attribute %v", a.Type)
			}
			if t, ok := si.SigningTime(); ok {
				p(2, "signing time %s", t.UTC().Format(time.RFC3339))
			}
			for _, a := range si.UnsignedAttributes {
				p(2, "unsigned attribute %v", a.Type)
			}
			if n := len(si.CounterSignatures); n > 0 {
				p(2, "%d counter-signature(s)", n)
			}
		}
	}
	recipients := func(list []*pkcs7.RecipientInfo, others int) {
		for i, ri := range list {
			p(1, "recipient %d: version %d, %s, key encryption %v (%d bytes)", i, ri.Version, ri.ID.String(), ri.KeyEncryptionAlgorithm.Algorithm, len(ri.EncryptedKey))
		}
		if others > 0 {
			p(1, "%d recipient(s) of other kinds", others)
		}
	}
	eci := func(c pkcs7.EncryptedContentInfo) {
		p(1, "encrypted content: type %v, algorithm %v, %d bytes", c.ContentType, c.Algorithm.Algorithm, len(c.Ciphertext))
	}
	switch m.Type {
	case pkcs7.Data:
		p(1, "%d bytes", len(m.Content))
	case pkcs7.SignedDataType:
		sd := m.Signed
		p(1, "version %d, content type %v", sd.Version, sd.ContentType)
		if sd.Detached {
			p(1, "content: detached")
		} else {
			p(1, "content: %d bytes", len(sd.Content))
		}
		p(1, "%d certificate(s)", len(sd.Certificates))
		certs(sd.Certificates)
		if len(sd.CRLs) > 0 {
			p(1, "%d CRL(s)", len(sd.CRLs))
		}
		signers(sd.Signers)
	case pkcs7.EnvelopedDataType:
		p(1, "version %d", m.Enveloped.Version)
		recipients(m.Enveloped.Recipients, m.Enveloped.OtherRecipients)
		eci(m.Enveloped.EncryptedContent)
	case pkcs7.SignedAndEnvelopedDataType:
		sed := m.SignedAndEnveloped
		p(1, "version %d", sed.Version)
		recipients(sed.Recipients, sed.OtherRecipients)
		eci(sed.EncryptedContent)
		p(1, "%d certificate(s)", len(sed.Certificates))
		certs(sed.Certificates)
		signers(sed.Signers)
	case pkcs7.EncryptedDataType:
		p(1, "version %d", m.Encrypted.Version)
		eci(m.Encrypted.EncryptedContent)
	case pkcs7.DigestedDataType:
		dd := m.Digested
		p(1, "version %d, digest %v %x", dd.Version, dd.DigestAlgorithm.Algorithm, dd.Digest)
		if dd.Content == nil {
			p(1, "content: detached")
		} else {
			p(1, "content: %d bytes, type %v", len(dd.Content), dd.ContentType)
		}
	}
}
