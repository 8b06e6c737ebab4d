// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/pkcs12"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "pkcs12",
		group:   "Keys and certificates",
		summary: "write (-export) or read PKCS #12 files (SM4/SM3, TLCP pairs)",
		about: `With -export, writes a PFX file from -inkey (the key; or the key in -in), -in (its
certificate, and possibly more) and -certfile (the chain). The defaults are SM4-CBC with
PBKDF2-HMAC-SM3 around key and certificates and an SM3 MAC, which Tongsuo reads; give
"-keypbe AES-256-CBC -certpbe AES-256-CBC -macalg SHA256 -prf sha256" for OpenSSL 3's
default file. -enc_inkey and -enc_in add a TLCP encryption pair: the file then holds both
pairs (friendlyNames "sign" and "enc", each key tied to its certificate by localKeyId).
-cfca writes CFCA's SM2 key file instead.

Without -export, reads a PFX file (or a CFCA SM2 file; the legacy 3DES and RC2 files of
OpenSSL 1.x are read without -legacy) and writes its certificates and keys as PEM.
Keys are written unencrypted unless -passout is given (PKCS #8, encrypted as -pbe says).
-info prints how the file is protected on standard error.`,
		example: []string{
			"smtool pkcs12 -export -inkey server.key -in server.pem -certfile ca.pem -passout pass:P@ssw0rd -out server.p12",
			"smtool pkcs12 -export -inkey sign.key -in sign.pem -enc_inkey enc.key -enc_in enc.pem -passout pass:P@ssw0rd -out tlcp.p12",
			"smtool pkcs12 -in server.p12 -passin pass:P@ssw0rd -info -nokeys",
		},
		run: pkcs12Cmd,
	})
}

// pbes2Cipher maps OpenSSL's -keypbe/-certpbe names.
func pbes2Cipher(flagName, name string) (smx.PBES2Cipher, error) {
	switch strings.ToUpper(name) {
	case "SM4-CBC", "SM4":
		return smx.SM4CBC, nil
	case "AES-128-CBC":
		return smx.AES128CBC, nil
	case "AES-192-CBC":
		return smx.AES192CBC, nil
	case "AES-256-CBC", "AES256":
		return smx.AES256CBC, nil
	case "PBE-SHA1-3DES", "PBE-SHA1-RC2-40", "PBE-SHA1-RC2-128", "DES-EDE3-CBC":
		return 0, usagef("-%s %s: the legacy schemes are read, never written; use SM4-CBC or AES-256-CBC", flagName, name)
	}
	return 0, usagef("-%s: unknown %q (want SM4-CBC, AES-128-CBC, AES-192-CBC or AES-256-CBC)", flagName, name)
}

func pbkdf2PRF(name string) (smx.PBKDF2PRF, error) {
	switch strings.ToLower(name) {
	case "sm3", "hmacwithsm3":
		return smx.HMACWithSM3Tongsuo, nil
	case "sm3-gmssl":
		return smx.HMACWithSM3, nil
	case "sha256", "hmacwithsha256":
		return smx.HMACWithSHA256, nil
	case "sha384":
		return smx.HMACWithSHA384, nil
	case "sha512":
		return smx.HMACWithSHA512, nil
	}
	return 0, usagef("-prf: unknown %q (want sm3, sm3-gmssl, sha256, sha384 or sha512)", name)
}

func macAlgorithm(name string) (pkcs12.MACAlgorithm, error) {
	switch strings.ToUpper(strings.ReplaceAll(name, "-", "")) {
	case "SM3":
		return pkcs12.MACSM3, nil
	case "SHA256":
		return pkcs12.MACSHA256, nil
	case "SHA1":
		return pkcs12.MACSHA1, nil
	}
	return 0, usagef("-macalg: unknown %q (want SM3, SHA256 or SHA1)", name)
}

func pkcs12Cmd(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	export := fs.Bool("export", false, "write a PKCS #12 file (default: read one)")
	in := fs.String("in", "", "with -export: the certificate `FILE` (PEM; may hold the key and the chain too); else the PKCS #12 file")
	inkey := fs.String("inkey", "", "with -export: the private key `FILE` (default: the key in -in)")
	encIn := fs.String("enc_in", "", "with -export: the TLCP encryption certificate `FILE`")
	encInkey := fs.String("enc_inkey", "", "with -export: the TLCP encryption key `FILE`")
	var certfiles listFlag
	fs.Var(&certfiles, "certfile", "with -export: more certificates (the chain), PEM or DER `FILE` (repeatable)")
	out := fs.String("out", "", "output `FILE` (default: standard output)")
	passin := fs.String("passin", "", "`password` of the input (the PKCS #12 file, or with -export the key files): "+passUsage)
	passout := fs.String("passout", "", "`password` of the output (the PKCS #12 file, or the PEM keys): "+passUsage)
	name := fs.String("name", "", "with -export: the friendlyName of the key and its certificate")
	keypbe := fs.String("keypbe", "SM4-CBC", "with -export: the key's PBES2 `cipher`: SM4-CBC, AES-128-CBC, AES-192-CBC, AES-256-CBC")
	certpbe := fs.String("certpbe", "SM4-CBC", "with -export: the certificates' PBES2 `cipher`, or NONE for no encryption")
	prf := fs.String("prf", "sm3", "with -export: the PBKDF2 `PRF`: sm3 (Tongsuo's identifier), sm3-gmssl, sha256 (what openssl/tongsuo pkcs12 write), sha384, sha512")
	macalg := fs.String("macalg", "SM3", "with -export: the MAC's `digest`: SM3, SHA256 or SHA1")
	nomac := fs.Bool("nomac", false, "with -export: write no MAC")
	iter := fs.Int("iter", pkcs12.DefaultIterations, "with -export: the PBKDF2 and MAC iteration `count`")
	cfca := fs.Bool("cfca", false, "with -export: write CFCA's SM2 key file (one SM2 key and its certificate) instead")
	legacy := fs.Bool("legacy", false, "accepted for OpenSSL compatibility: the legacy 3DES and RC2 files are read without it; they are never written")
	nokeys := fs.Bool("nokeys", false, "write no private keys")
	nocerts := fs.Bool("nocerts", false, "write no certificates")
	clcerts := fs.Bool("clcerts", false, "write only the certificates of the keys")
	cacerts := fs.Bool("cacerts", false, "write only the other certificates")
	info := fs.Bool("info", false, "print how the file is protected (standard error)")
	nodes := fs.Bool("nodes", false, "write the keys unencrypted (the default without -passout)")
	fs.alias("nodes", "noenc")
	pbe := fs.String("pbe", "gmssl", "encryption of the PEM keys written with -passout: `gmssl`, tongsuo or openssl")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	_ = legacy
	if *in == "" && !(*export && *inkey != "") {
		return usagef("-in FILE is required")
	}
	if !*export {
		return pkcs12Read(e, pkcs12ReadFlags{*in, *out, *passin, *passout, *pbe, *nokeys, *nocerts, *clcerts, *cacerts, *info, *nodes})
	}
	if *nocerts || *clcerts || *cacerts || *info {
		return usagef("-nocerts, -clcerts, -cacerts and -info are for reading (without -export)")
	}

	// Gather keys and certificates.
	var keys []crypto.Signer
	var certs []*smx509.Certificate
	if *in != "" {
		data, err := os.ReadFile(*in)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte("PRIVATE KEY-----")) && *inkey == "" {
			if keys, err = loadPrivateKeys(e, *in, "passin", *passin); err != nil {
				return err
			}
		}
		if bytes.Contains(data, []byte("CERTIFICATE-----")) || !bytes.Contains(data, []byte("-----BEGIN")) {
			if certs, err = readCertificates(*in); err != nil {
				return err
			}
		}
	}
	if *inkey != "" {
		if keys, err = loadPrivateKeys(e, *inkey, "passin", *passin); err != nil {
			return err
		}
	}
	chain, err := readCertificateFiles(certfiles.values)
	if err != nil {
		return err
	}
	pw, err := e.password("passout", *passout)
	if err != nil {
		return err
	}

	var pfx []byte
	switch {
	case *cfca:
		if len(keys) != 1 || len(certs) == 0 {
			return usagef("-cfca: give one SM2 key (-inkey) and its certificate (-in)")
		}
		k, ok := keys[0].(*sm2.PrivateKey)
		if !ok {
			return errors.New("-cfca: CFCA's file holds SM2 keys only")
		}
		pfx, err = pkcs12.EncodeCFCA(k, certs[0], string(pw))
	default:
		enc, err := pkcs12Encoder(*keypbe, *certpbe, *prf, *macalg, *nomac, *iter)
		if err != nil {
			return err
		}
		if *encIn != "" || *encInkey != "" {
			pfx, err = pkcs12ExportTLCP(e, enc, keys, certs, chain, *encIn, *encInkey, *passin, string(pw))
		} else {
			pfx, err = pkcs12Export(enc, keys, certs, chain, *name, *nokeys, string(pw))
		}
		if err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	return writeOutput(e, *out, pfx, 0o600)
}

func pkcs12Encoder(keypbe, certpbe, prf, macalg string, nomac bool, iter int) (pkcs12.Encoder, error) {
	var enc pkcs12.Encoder
	p, err := pbkdf2PRF(prf)
	if err != nil {
		return enc, err
	}
	if enc.KeyEncryption.Cipher, err = pbes2Cipher("keypbe", keypbe); err != nil {
		return enc, err
	}
	if strings.EqualFold(certpbe, "NONE") {
		enc.PlainCertificates = true
	} else if enc.CertEncryption.Cipher, err = pbes2Cipher("certpbe", certpbe); err != nil {
		return enc, err
	}
	enc.KeyEncryption.PRF, enc.CertEncryption.PRF = p, p
	if enc.MAC, err = macAlgorithm(macalg); err != nil {
		return enc, err
	}
	if iter < 1 {
		return enc, usagef("-iter %d: want at least 1", iter)
	}
	enc.NoMAC = nomac
	return enc.WithIterations(iter), nil
}

// pkcs12Export writes one key (or none, with -nokeys) with its
// certificate, the other certificates of -in and the chain.
func pkcs12Export(enc pkcs12.Encoder, keys []crypto.Signer, certs, chain []*smx509.Certificate, name string, nokeys bool, password string) ([]byte, error) {
	if nokeys {
		keys = nil
	}
	if len(keys) > 1 {
		return nil, fmt.Errorf("the input holds %d private keys; for a TLCP pair give the encryption pair with -enc_inkey and -enc_in", len(keys))
	}
	var entries []pkcs12.Certificate
	var keyEntries []pkcs12.Key
	all := append(certs, chain...)
	leaf := -1
	if len(keys) == 1 {
		for i, c := range all {
			if c.CheckPrivateKey(keys[0]) == nil {
				leaf = i
				break
			}
		}
		if leaf < 0 {
			return nil, errors.New("no certificate matches the private key")
		}
		keyEntries = append(keyEntries, pkcs12.Key{Key: keys[0], FriendlyName: name})
		entries = append(entries, pkcs12.Certificate{Certificate: all[leaf], FriendlyName: name})
	}
	for i, c := range all {
		if i != leaf {
			entries = append(entries, pkcs12.Certificate{Certificate: c})
		}
	}
	if len(keyEntries)+len(entries) == 0 {
		return nil, errors.New("nothing to write: no key and no certificate")
	}
	return enc.EncodeEntries(keyEntries, entries, password)
}

func pkcs12ExportTLCP(e *env, enc pkcs12.Encoder, keys []crypto.Signer, certs, chain []*smx509.Certificate, encIn, encInkey, passin, password string) ([]byte, error) {
	if encIn == "" || encInkey == "" {
		return nil, usagef("a TLCP pair needs both -enc_in and -enc_inkey")
	}
	if len(keys) != 1 || len(certs) == 0 {
		return nil, usagef("a TLCP pair needs the signing key (-inkey) and certificate (-in)")
	}
	encKey, err := loadPrivateKey(e, encInkey, "passin", passin)
	if err != nil {
		return nil, err
	}
	encCerts, err := readCertificates(encIn)
	if err != nil {
		return nil, err
	}
	return enc.EncodeTLCP(&pkcs12.TLCPPair{
		SignKey: keys[0], SignCert: certs[0],
		EncKey: encKey, EncCert: encCerts[0],
		CACerts: append(append(certs[1:], encCerts[1:]...), chain...),
	}, password)
}

type pkcs12ReadFlags struct {
	in, out, passin, passout, pbe     string
	nokeys, nocerts, clcerts, cacerts bool
	info, nodes                       bool
}

func pkcs12Read(e *env, f pkcs12ReadFlags) error {
	data, err := os.ReadFile(f.in)
	if err != nil {
		return err
	}
	if block, _ := pem.Decode(data); block != nil {
		data = block.Bytes
	}
	pw, err := e.password("passin", f.passin)
	if err != nil {
		return err
	}
	c, err := pkcs12.Parse(data, string(pw))
	if errors.Is(err, pkcs12.ErrIncorrectPassword) {
		return fmt.Errorf("%s: wrong password (-passin), or the file is corrupt: %w", f.in, err)
	} else if err != nil {
		return fmt.Errorf("%s: %w", f.in, err)
	}
	if f.info {
		for _, line := range c.Info {
			fmt.Fprintln(e.stderr, line)
		}
	}
	outPW, err := e.password("passout", f.passout)
	if err != nil {
		return err
	}
	if f.nodes {
		outPW = nil
	}
	opts, err := pbesOptions(f.pbe)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	isLeaf := func(cert *smx509.Certificate) bool {
		for _, k := range c.Keys {
			if cert.CheckPrivateKey(k.Key) == nil {
				return true
			}
		}
		return false
	}
	if !f.nocerts {
		for _, cert := range c.Certificates {
			leaf := isLeaf(cert.Certificate)
			if (f.clcerts && !leaf) || (f.cacerts && leaf) {
				continue
			}
			writeBagAttributes(&buf, cert.FriendlyName, cert.LocalKeyID)
			fmt.Fprintf(&buf, "subject=%s\nissuer=%s\n", cert.Certificate.Subject, cert.Certificate.Issuer)
			pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate.Raw})
		}
	}
	if !f.nokeys {
		for _, k := range c.Keys {
			writeBagAttributes(&buf, k.FriendlyName, k.LocalKeyID)
			var b []byte
			if outPW != nil {
				b, err = smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, k.Key, outPW, opts)
			} else {
				b, err = smx.MarshalPrivateKeyPEM(k.Key)
			}
			if err != nil {
				return err
			}
			buf.Write(b)
		}
	}
	return writeOutput(e, f.out, buf.Bytes(), 0o600)
}

// writeBagAttributes writes a bag's attributes as `openssl pkcs12` does,
// before its PEM block.
func writeBagAttributes(w *bytes.Buffer, name string, keyID []byte) {
	if name == "" && keyID == nil {
		return
	}
	w.WriteString("Bag Attributes\n")
	if name != "" {
		fmt.Fprintf(w, "    friendlyName: %s\n", name)
	}
	if keyID != nil {
		fmt.Fprintf(w, "    localKeyID:")
		for _, b := range keyID {
			fmt.Fprintf(w, " %02X", b)
		}
		w.WriteString(" \n")
	}
}
