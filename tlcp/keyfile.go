// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

// This file reads certificate and key files into Certificates. Besides one
// certificate chain and one key, it understands the combined files GmSSL 3
// writes for a TLCP server (tools/tlcp_help.h of GmSSL):
//
//   - a certificate file holding the signing certificate, the encryption
//     certificate and then the CA certificates;
//   - a key file holding the signing key and then the encryption key,
//     both encrypted with one password.
//
// A certificate is chosen by the key that matches it, so the order in the
// files matters only where nothing else tells the roles apart. Whenever the
// files cannot be read as asked, the error says what they hold.

// keyRole is the role a loader looks for: any certificate (X509KeyPair),
// or one half of a TLCP pair.
type keyRole int

const (
	roleAny keyRole = iota
	roleSign
	roleEnc
)

func (r keyRole) String() string {
	switch r {
	case roleSign:
		return "signing"
	case roleEnc:
		return "encryption"
	}
	return "end-entity"
}

// certFile is a parsed certificate PEM file.
type certFile struct {
	data  []byte
	ders  [][]byte
	certs []*smx509.Certificate
}

func parseCertFile(data []byte) (*certFile, error) {
	f := &certFile{data: data}
	total := 0
	for rest := data; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if block.Type == smx.PEMTypeCertificate {
			total++
		}
	}
	for rest := data; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if block.Type != smx.PEMTypeCertificate {
			continue
		}
		c, err := smx509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("tlcp: certificate %d of %d in the certificate file: %w", len(f.certs)+1, total, err)
		}
		if slices.ContainsFunc(f.ders, func(d []byte) bool { return bytes.Equal(d, block.Bytes) }) {
			continue // a certificate pasted twice means nothing more
		}
		f.ders = append(f.ders, block.Bytes)
		f.certs = append(f.certs, c)
	}
	if len(f.certs) == 0 {
		msg := "tlcp: the certificate file holds no certificate; it holds " + smx.DescribePEM(data)
		if _, err := smx.ParsePrivateKeysPEM(data, nil); err == nil || errors.Is(err, smx.ErrPasswordRequired) {
			msg += " (are the certificate and key arguments swapped?)"
		}
		return nil, errors.New(msg)
	}
	return f, nil
}

func isLeaf(c *smx509.Certificate) bool { return !(c.BasicConstraintsValid && c.IsCA) }

// role names what a certificate is for by its key usage: "sign", "enc", or
// "sign or enc" when the key usage allows both (or is absent).
func certRole(c *smx509.Certificate) string {
	s, e := c.IsTLCPSignCert(), c.IsTLCPEncCert()
	switch {
	case s && !e:
		return "sign"
	case e && !s:
		return "enc"
	case s && e:
		return "sign or enc"
	}
	return "neither sign nor enc"
}

// fitsRole reports whether c serves role and not the other one.
func fitsRole(c *smx509.Certificate, r keyRole) bool {
	switch r {
	case roleSign:
		return certRole(c) == "sign"
	case roleEnc:
		return certRole(c) == "enc"
	}
	return true
}

func subjectName(c *smx509.Certificate) string {
	if c.Subject.CommonName != "" {
		return strconv.Quote(c.Subject.CommonName)
	}
	return strconv.Quote(c.Subject.String())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// String describes the file, for example `3 certificates: 2 SM2
// end-entity certificates (sign "a", enc "a") and 1 CA certificate ("CA")`,
// followed by whatever else the file holds.
func (f *certFile) String() string {
	var sm2Leaves, otherLeaves, cas []string
	for _, c := range f.certs {
		switch {
		case !isLeaf(c):
			cas = append(cas, subjectName(c))
		case c.PublicKeyAlgorithm == smx509.SM2:
			sm2Leaves = append(sm2Leaves, certRole(c)+" "+subjectName(c))
		default:
			otherLeaves = append(otherLeaves, c.PublicKeyAlgorithm.String()+" "+subjectName(c))
		}
	}
	var parts []string
	if len(sm2Leaves) > 0 {
		parts = append(parts, plural(len(sm2Leaves), "SM2 end-entity certificate", "SM2 end-entity certificates")+" ("+strings.Join(sm2Leaves, ", ")+")")
	}
	if len(otherLeaves) > 0 {
		parts = append(parts, plural(len(otherLeaves), "non-SM2 end-entity certificate", "non-SM2 end-entity certificates")+" ("+strings.Join(otherLeaves, ", ")+")")
	}
	if len(cas) > 0 {
		parts = append(parts, plural(len(cas), "CA certificate", "CA certificates")+" ("+strings.Join(cas, ", ")+")")
	}
	s := plural(len(f.certs), "certificate", "certificates") + ": " + joinAnd(parts)
	if other := f.others(); other != "" {
		s += ", and also " + other
	}
	return s
}

// others describes the non-certificate blocks of the file, or "".
func (f *certFile) others() string {
	var rest []byte
	for data := f.data; ; {
		var block *pem.Block
		if block, data = pem.Decode(data); block == nil {
			break
		}
		if block.Type != smx.PEMTypeCertificate {
			rest = append(rest, pem.EncodeToMemory(block)...)
		}
	}
	if rest == nil {
		return ""
	}
	return smx.DescribePEM(rest)
}

func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// keyKind names a private key's algorithm for messages.
func keyKind(k crypto.Signer) string {
	switch k := k.(type) {
	case *sm2.PrivateKey:
		return "an SM2"
	case *rsa.PrivateKey:
		return "an RSA-" + strconv.Itoa(k.N.BitLen())
	case *ecdsa.PrivateKey:
		return "an ECDSA " + k.Curve.Params().Name
	case ed25519.PrivateKey:
		return "an Ed25519"
	}
	return fmt.Sprintf("a %T", k)
}

func describeKeys(keys []crypto.Signer) string {
	kinds := make([]string, len(keys))
	for i, k := range keys {
		kinds[i] = strings.SplitN(keyKind(k), " ", 2)[1]
	}
	return plural(len(keys), "private key", "private keys") + " (" + strings.Join(kinds, ", ") + ")"
}

// parseKeyFile parses every private key of a key file. withPasswordAPI names
// the function that takes a password, for the hint of the error.
func parseKeyFile(data, password []byte, withPasswordAPI string) ([]crypto.Signer, error) {
	keys, err := smx.ParsePrivateKeysPEM(data, password)
	if err == nil {
		return keys, nil
	}
	if errors.Is(err, smx.ErrPasswordRequired) {
		return nil, fmt.Errorf("tlcp: the key file holds an encrypted private key; pass its password with %s: %w", withPasswordAPI, err)
	}
	return nil, fmt.Errorf("tlcp: key file: %w", err)
}

type match struct {
	index int // of the certificate in the file
	key   crypto.Signer
}

// pickCertificate finds the certificate of f that the keys belong to, for
// role, and returns it as a Certificate whose chain is that leaf followed
// by the file's CA certificates in file order (other end-entity
// certificates, such as the other half of a GmSSL pair, are left out).
// A CA certificate is chosen only when no end-entity certificate matches
// (a self-signed certificate used directly, as in tests).
func pickCertificate(f *certFile, keys []crypto.Signer, role keyRole) (Certificate, error) {
	var matches []match
	for _, leaves := range []bool{true, false} {
		for i, c := range f.certs {
			if isLeaf(c) != leaves {
				continue
			}
			for _, k := range keys {
				if pub, ok := c.PublicKey.(*sm2.PublicKey); ok && pub.Equal(k.Public()) {
					matches = append(matches, match{i, k})
					break // the same key twice is still one match
				}
			}
		}
		if len(matches) > 0 {
			break
		}
	}
	holds := func() string {
		return "the certificate file holds " + f.String() + "; the key file holds " + describeKeys(keys)
	}
	if len(matches) == 0 {
		if len(f.certs) == 1 && len(keys) == 1 {
			if err := keyMatches(f.certs[0], keys[0]); err != nil {
				if f.others() != "" {
					// Something else in the certificate file may be
					// what was meant.
					return Certificate{}, fmt.Errorf("%w: %s", err, holds())
				}
				return Certificate{}, err
			}
		}
		return Certificate{}, errors.New("tlcp: no private key matches an SM2 end-entity certificate: " + holds())
	}
	chosen := -1
	if len(matches) == 1 {
		chosen = 0
	} else if role != roleAny {
		// Two or more (GmSSL's pair files): the key usage decides, or
		// failing that GmSSL's order, signing certificate first.
		var fit []int
		for i, m := range matches {
			if fitsRole(f.certs[m.index], role) {
				fit = append(fit, i)
			}
		}
		switch {
		case len(fit) == 1:
			chosen = fit[0]
		case len(fit) == 0 && len(matches) == 2 && matches[0].index == 0 && matches[1].index == 1:
			chosen = 0
			if role == roleEnc {
				chosen = 1
			}
		}
	}
	if chosen < 0 {
		if role == roleAny {
			return Certificate{}, errors.New("tlcp: " + holds() + ", and several certificates have their key here: this is a TLCP signing and encryption pair (GmSSL writes them so); load it with LoadCertificatePair(certFile, keyFile, certFile, keyFile) (LoadCertificatePairWithPassword for encrypted keys) or X509CertificatePair, or give one certificate and its key")
		}
		return Certificate{}, fmt.Errorf("tlcp: cannot tell which certificate is the %s certificate: %s, and their key usages do not tell the roles apart", role, holds())
	}
	m := matches[chosen]
	cert := Certificate{Certificate: [][]byte{f.ders[m.index]}, PrivateKey: m.key, Leaf: f.certs[m.index]}
	for i, c := range f.certs {
		if i != m.index && !isLeaf(c) {
			cert.Certificate = append(cert.Certificate, f.ders[i])
		}
	}
	return cert, nil
}

// loadKeyPair is X509KeyPairWithPassword and the halves of
// X509CertificatePairWithPassword.
func loadKeyPair(certPEM, keyPEM, password []byte, role keyRole, passwordAPI string) (Certificate, error) {
	f, err := parseCertFile(certPEM)
	if err != nil {
		return Certificate{}, err
	}
	keys, err := parseKeyFile(keyPEM, password, passwordAPI)
	if err != nil {
		return Certificate{}, err
	}
	return pickCertificate(f, keys, role)
}

// loadCertificatePair builds and checks a pair from the two halves' files.
func loadCertificatePair(signCertPEM, signKeyPEM, encCertPEM, encKeyPEM, password []byte, passwordAPI string) (CertificatePair, error) {
	sign, err := loadKeyPair(signCertPEM, signKeyPEM, password, roleSign, passwordAPI)
	if err != nil {
		return CertificatePair{}, fmt.Errorf("tlcp: signing certificate: %w", err)
	}
	enc, err := loadKeyPair(encCertPEM, encKeyPEM, password, roleEnc, passwordAPI)
	if err != nil {
		return CertificatePair{}, fmt.Errorf("tlcp: encryption certificate: %w", err)
	}
	if bytes.Equal(sign.Certificate[0], enc.Certificate[0]) {
		return CertificatePair{}, fmt.Errorf("tlcp: the signing and the encryption certificate are the same certificate (%s); TLCP needs two", subjectName(sign.Leaf))
	}
	p := CertificatePair{Sign: sign, Enc: enc}
	if _, _, err := checkPair(&p, true); err != nil {
		return CertificatePair{}, err
	}
	return p, nil
}

// keyMatches checks that key belongs to the SM2 certificate leaf.
func keyMatches(leaf *smx509.Certificate, key crypto.Signer) error {
	pub, ok := leaf.PublicKey.(*sm2.PublicKey)
	if !ok {
		return fmt.Errorf("tlcp: certificate has a %s public key; TLCP needs SM2", leaf.PublicKeyAlgorithm)
	}
	if _, ok := key.(*sm2.PrivateKey); !ok && !pub.Equal(key.Public()) {
		return fmt.Errorf("tlcp: the key file holds %s private key; TLCP needs SM2", keyKind(key))
	}
	if !pub.Equal(key.Public()) {
		return errors.New("tlcp: private key does not match the certificate's public key")
	}
	return nil
}
