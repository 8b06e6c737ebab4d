// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

import (
	"bytes"
	"crypto"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
	"unicode/utf16"

	"github.com/shangmi-go/shangmi/internal/pkcs12kdf"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

var (
	oidData          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}
	oidEncryptedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 6}

	oidKeyBag          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 1}
	oidShroudedKeyBag  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 2}
	oidCertBag         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 3}
	oidSafeContentsBag = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 6}

	oidCertTypeX509 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 22, 1}
	oidFriendlyName = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 20}
	oidLocalKeyID   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 21}

	oidSHA1   = asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}
	oidSHA224 = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 4}
)

const (
	maxBags      = 256
	maxEncrypted = 16
	maxDepth     = 3
	// maxMACIterations bounds the MAC's key derivation as x509 bounds
	// PBKDF2.
	maxMACIterations = 10_000_000
)

// ErrIncorrectPassword is returned when the MAC does not verify, or, in a
// file without a MAC, when the content does not decrypt: the usual cause
// is a wrong password, though a corrupt file gives the same error.
var ErrIncorrectPassword = errors.New("pkcs12: decryption password incorrect")

var errMalformed = errors.New("pkcs12: malformed PFX")

// macDigest describes a MAC's hash.
type macDigest struct {
	alg  MACAlgorithm
	oid  asn1.ObjectIdentifier
	name string
	h    func() hash.Hash
}

var macDigests = []macDigest{
	{MACSM3, x509.OIDSM3, "SM3", sm3.New},
	{MACSHA256, x509.OIDSHA256, "SHA-256", sha256.New},
	{MACSHA1, oidSHA1, "SHA-1", sha1.New},
	{macSHA224, oidSHA224, "SHA-224", sha256.New224},
	{macSHA384, x509.OIDSHA384, "SHA-384", sha512.New384},
	{macSHA512, x509.OIDSHA512, "SHA-512", sha512.New},
}

// Key is a private key found in a PFX file, with its attributes.
type Key struct {
	Key          crypto.PrivateKey
	FriendlyName string
	LocalKeyID   []byte
}

// Certificate is a certificate found in a PFX file, with its attributes.
type Certificate struct {
	Certificate  *smx509.Certificate
	FriendlyName string
	LocalKeyID   []byte
}

// Contents is everything Parse found in a file.
type Contents struct {
	Keys         []Key
	Certificates []Certificate
	// Info describes the file's protection, one line per item, in the
	// manner of `openssl pkcs12 -info`.
	Info []string
}

type parser struct {
	password  []byte
	contents  *Contents
	bags      int
	encrypted int
}

// Parse reads every key and certificate in a PFX file (or a CFCA SM2
// file) after checking its MAC. It is what Decode, DecodeChain and
// DecodeTLCP build on, for callers that want the bags' attributes or more
// than one key.
func Parse(pfxData []byte, password string) (*Contents, error) {
	if isCFCA(pfxData) {
		return parseCFCA(pfxData, []byte(password))
	}
	input := cryptobyte.String(pfxData)
	var pfx, authSafe, macData cryptobyte.String
	var version int
	var hasMAC bool
	if !input.ReadASN1(&pfx, cbasn1.SEQUENCE) || !input.Empty() ||
		!pfx.ReadASN1Integer(&version) {
		return nil, errMalformed
	}
	if version != 3 {
		return nil, fmt.Errorf("pkcs12: unsupported PFX version %d", version)
	}
	if !pfx.ReadASN1(&authSafe, cbasn1.SEQUENCE) ||
		!pfx.ReadOptionalASN1(&macData, &hasMAC, cbasn1.SEQUENCE) || !pfx.Empty() {
		return nil, errMalformed
	}
	var ctype asn1.ObjectIdentifier
	var content []byte
	if !authSafe.ReadASN1ObjectIdentifier(&ctype) {
		return nil, errMalformed
	}
	if !ctype.Equal(oidData) {
		return nil, errors.New("pkcs12: the authenticated safe is not Data (public-key integrity mode is not supported)")
	}
	if !readExplicitOctets(&authSafe, &content) || !authSafe.Empty() {
		return nil, errors.New("pkcs12: malformed PFX, or BER-encoded (constructed or indefinite-length), which is not supported: re-export it with openssl pkcs12")
	}
	p := &parser{password: []byte(password), contents: &Contents{}}
	if hasMAC {
		if err := p.verifyMAC(macData, content); err != nil {
			return nil, err
		}
	} else {
		p.contents.Info = append(p.contents.Info, "MAC: absent (the file's integrity is not checked)")
	}
	if err := p.authenticatedSafe(content); err != nil {
		return nil, err
	}
	return p.contents, nil
}

// readExplicitOctets reads [0] EXPLICIT OCTET STRING.
func readExplicitOctets(s *cryptobyte.String, out *[]byte) bool {
	var inner cryptobyte.String
	return s.ReadASN1(&inner, cbasn1.Tag(0).Constructed().ContextSpecific()) &&
		inner.ReadASN1Bytes(out, cbasn1.OCTET_STRING) && inner.Empty()
}

// verifyMAC checks MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET
// STRING, iterations INTEGER DEFAULT 1 }.
func (p *parser) verifyMAC(m cryptobyte.String, content []byte) error {
	var digestInfo, alg cryptobyte.String
	var oid asn1.ObjectIdentifier
	var digest, salt []byte
	iterations := 1
	if !m.ReadASN1(&digestInfo, cbasn1.SEQUENCE) ||
		!digestInfo.ReadASN1(&alg, cbasn1.SEQUENCE) ||
		!digestInfo.ReadASN1Bytes(&digest, cbasn1.OCTET_STRING) || !digestInfo.Empty() ||
		!alg.ReadASN1ObjectIdentifier(&oid) ||
		!m.ReadASN1Bytes(&salt, cbasn1.OCTET_STRING) {
		return errMalformed
	}
	if !alg.Empty() && (!alg.ReadASN1(new(cryptobyte.String), cbasn1.NULL) || !alg.Empty()) {
		return errMalformed
	}
	if !m.Empty() && (!m.ReadASN1Integer(&iterations) || !m.Empty()) {
		return errMalformed
	}
	if iterations <= 0 || iterations > maxMACIterations {
		return fmt.Errorf("pkcs12: MAC iteration count %d out of range", iterations)
	}
	var d *macDigest
	for i := range macDigests {
		if macDigests[i].oid.Equal(oid) {
			d = &macDigests[i]
		}
	}
	if d == nil {
		if oid.Equal(asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 14}) {
			return errors.New("pkcs12: the MAC is PBMAC1 (RFC 9579), which is not supported")
		}
		return errors.New("pkcs12: unsupported MAC digest " + oid.String())
	}
	p.contents.Info = append(p.contents.Info, fmt.Sprintf("MAC: HMAC-%s, %d iterations, %d-byte salt", d.name, iterations, len(salt)))
	ok, err := checkMAC(d, p.password, salt, iterations, content, digest)
	if err != nil {
		return err
	}
	if !ok && len(p.password) == 0 {
		// Some writers give an empty password as no password at all
		// (a zero-length BMPString, without the terminating NUL).
		ok = hmac.Equal(computeMAC(d, nil, salt, iterations, content), digest)
	}
	if !ok {
		return ErrIncorrectPassword
	}
	return nil
}

func checkMAC(d *macDigest, password, salt []byte, iterations int, content, digest []byte) (bool, error) {
	bmp, err := pkcs12kdf.BMPPassword(password)
	if err != nil {
		return false, err
	}
	defer clear(bmp)
	return hmac.Equal(computeMAC(d, bmp, salt, iterations, content), digest), nil
}

func computeMAC(d *macDigest, bmpPassword, salt []byte, iterations int, content []byte) []byte {
	key := pkcs12kdf.Derive(d.h, bmpPassword, salt, iterations, pkcs12kdf.MACKey, d.h().Size())
	defer clear(key)
	mac := hmac.New(d.h, key)
	mac.Write(content)
	return mac.Sum(nil)
}

// authenticatedSafe reads AuthenticatedSafe ::= SEQUENCE OF ContentInfo.
func (p *parser) authenticatedSafe(der []byte) error {
	s := cryptobyte.String(der)
	var seq cryptobyte.String
	if !s.ReadASN1(&seq, cbasn1.SEQUENCE) || !s.Empty() {
		return errMalformed
	}
	for !seq.Empty() {
		var ci, body cryptobyte.String
		var ctype asn1.ObjectIdentifier
		if !seq.ReadASN1(&ci, cbasn1.SEQUENCE) || !ci.ReadASN1ObjectIdentifier(&ctype) ||
			!ci.ReadASN1(&body, cbasn1.Tag(0).Constructed().ContextSpecific()) || !ci.Empty() {
			return errMalformed
		}
		switch {
		case ctype.Equal(oidData):
			var safe []byte
			if !body.ReadASN1Bytes(&safe, cbasn1.OCTET_STRING) || !body.Empty() {
				return errMalformed
			}
			p.contents.Info = append(p.contents.Info, "Data")
			if err := p.safeContents(safe, 0); err != nil {
				return err
			}
		case ctype.Equal(oidEncryptedData):
			safe, err := p.encryptedData(body)
			if err != nil {
				return err
			}
			err = p.safeContents(safe, 0)
			clear(safe)
			if err != nil {
				return err
			}
		default:
			return errors.New("pkcs12: unsupported ContentInfo type " + ctype.String() + " (public-key privacy mode is not supported)")
		}
	}
	return nil
}

// encryptedData reads EncryptedData ::= SEQUENCE { version INTEGER,
// EncryptedContentInfo ::= SEQUENCE { contentType, contentEncryptionAlgorithm,
// [0] IMPLICIT encryptedContent OCTET STRING } } and decrypts it.
func (p *parser) encryptedData(body cryptobyte.String) ([]byte, error) {
	if p.encrypted++; p.encrypted > maxEncrypted {
		return nil, fmt.Errorf("pkcs12: more than %d encrypted items", maxEncrypted)
	}
	var ed, eci cryptobyte.String
	var alg cryptobyte.String
	var version int
	var ctype asn1.ObjectIdentifier
	var ct []byte
	if !body.ReadASN1(&ed, cbasn1.SEQUENCE) || !body.Empty() ||
		!ed.ReadASN1Integer(&version) ||
		!ed.ReadASN1(&eci, cbasn1.SEQUENCE) ||
		!eci.ReadASN1ObjectIdentifier(&ctype) ||
		!eci.ReadASN1Element(&alg, cbasn1.SEQUENCE) ||
		!eci.ReadASN1Bytes(&ct, cbasn1.Tag(0).ContextSpecific()) || !eci.Empty() {
		return nil, errMalformed
	}
	// ed may hold unprotectedAttrs (CMS); they carry nothing PKCS #12 uses.
	if !ctype.Equal(oidData) {
		return nil, errors.New("pkcs12: encrypted content is not Data")
	}
	p.contents.Info = append(p.contents.Info, "EncryptedData: "+x509.DescribePasswordEncryption(alg))
	plain, err := x509.DecryptWithPassword(alg, ct, p.password)
	if errors.Is(err, x509.ErrIncorrectPassword) {
		return nil, ErrIncorrectPassword
	}
	return plain, err
}

// safeContents reads SafeContents ::= SEQUENCE OF SafeBag, SafeBag ::=
// SEQUENCE { bagId OID, bagValue [0] EXPLICIT ANY, bagAttributes SET OF
// Attribute OPTIONAL }.
func (p *parser) safeContents(der []byte, depth int) error {
	s := cryptobyte.String(der)
	var seq cryptobyte.String
	if !s.ReadASN1(&seq, cbasn1.SEQUENCE) || !s.Empty() {
		// A wrong password in a file without a MAC gets this far.
		return ErrIncorrectPassword
	}
	for !seq.Empty() {
		if p.bags++; p.bags > maxBags {
			return fmt.Errorf("pkcs12: more than %d bags", maxBags)
		}
		var bag, value cryptobyte.String
		var id asn1.ObjectIdentifier
		var attrs cryptobyte.String
		var hasAttrs bool
		if !seq.ReadASN1(&bag, cbasn1.SEQUENCE) || !bag.ReadASN1ObjectIdentifier(&id) ||
			!bag.ReadASN1(&value, cbasn1.Tag(0).Constructed().ContextSpecific()) ||
			!bag.ReadOptionalASN1(&attrs, &hasAttrs, cbasn1.SET) || !bag.Empty() {
			return errMalformed
		}
		name, keyID, err := bagAttributes(attrs)
		if err != nil {
			return err
		}
		switch {
		case id.Equal(oidKeyBag):
			var pk cryptobyte.String
			if !value.ReadASN1Element(&pk, cbasn1.SEQUENCE) || !value.Empty() {
				return errMalformed
			}
			key, err := x509.ParsePKCS8PrivateKey(pk)
			if err != nil {
				return fmt.Errorf("pkcs12: key bag: %w", err)
			}
			p.contents.Info = append(p.contents.Info, "Key bag (unencrypted)")
			p.contents.Keys = append(p.contents.Keys, Key{key, name, keyID})
		case id.Equal(oidShroudedKeyBag):
			key, err := p.shroudedKey(value)
			if err != nil {
				return err
			}
			p.contents.Keys = append(p.contents.Keys, Key{key, name, keyID})
		case id.Equal(oidCertBag):
			cert, err := certBag(value)
			if err != nil {
				return err
			}
			if cert == nil {
				continue
			}
			p.contents.Info = append(p.contents.Info, "Certificate bag")
			p.contents.Certificates = append(p.contents.Certificates, Certificate{cert, name, keyID})
		case id.Equal(oidSafeContentsBag):
			var inner cryptobyte.String
			if depth+1 >= maxDepth || !value.ReadASN1Element(&inner, cbasn1.SEQUENCE) || !value.Empty() {
				return errors.New("pkcs12: SafeContents nested too deep or malformed")
			}
			if err := p.safeContents(inner, depth+1); err != nil {
				return err
			}
		default:
			// CRL and secret bags, and bags of other kinds, carry
			// nothing this package returns.
			p.contents.Info = append(p.contents.Info, "Bag "+id.String()+" (skipped)")
		}
	}
	return nil
}

func (p *parser) shroudedKey(value cryptobyte.String) (crypto.PrivateKey, error) {
	if p.encrypted++; p.encrypted > maxEncrypted {
		return nil, fmt.Errorf("pkcs12: more than %d encrypted items", maxEncrypted)
	}
	var epki, alg cryptobyte.String
	var ct []byte
	if !value.ReadASN1(&epki, cbasn1.SEQUENCE) || !value.Empty() ||
		!epki.ReadASN1Element(&alg, cbasn1.SEQUENCE) ||
		!epki.ReadASN1Bytes(&ct, cbasn1.OCTET_STRING) || !epki.Empty() {
		return nil, errMalformed
	}
	p.contents.Info = append(p.contents.Info, "Shrouded key bag: "+x509.DescribePasswordEncryption(alg))
	plain, err := x509.DecryptWithPassword(alg, ct, p.password)
	if err != nil {
		if errors.Is(err, x509.ErrIncorrectPassword) {
			return nil, ErrIncorrectPassword
		}
		return nil, err
	}
	defer clear(plain)
	key, err := x509.ParsePKCS8PrivateKey(plain)
	if err != nil {
		// What a wrong password produces when the padding happened to
		// check.
		return nil, ErrIncorrectPassword
	}
	return key, nil
}

// certBag reads CertBag ::= SEQUENCE { certId OID, certValue [0] EXPLICIT
// OCTET STRING }. Certificates other than X.509 (SDSI) give nil.
func certBag(value cryptobyte.String) (*smx509.Certificate, error) {
	var cb cryptobyte.String
	var id asn1.ObjectIdentifier
	var der []byte
	if !value.ReadASN1(&cb, cbasn1.SEQUENCE) || !value.Empty() ||
		!cb.ReadASN1ObjectIdentifier(&id) || !readExplicitOctets(&cb, &der) || !cb.Empty() {
		return nil, errMalformed
	}
	if !id.Equal(oidCertTypeX509) {
		return nil, nil
	}
	// The certificate keeps its encoding as Raw; it must not alias
	// decrypted content, which is cleared after parsing.
	cert, err := smx509.ParseCertificate(bytes.Clone(der))
	if err != nil {
		return nil, fmt.Errorf("pkcs12: certificate bag: %w", err)
	}
	return cert, nil
}

// bagAttributes reads the friendlyName and localKeyId attributes; others
// are skipped.
func bagAttributes(attrs cryptobyte.String) (name string, keyID []byte, err error) {
	for !attrs.Empty() {
		var attr, values cryptobyte.String
		var oid asn1.ObjectIdentifier
		if !attrs.ReadASN1(&attr, cbasn1.SEQUENCE) || !attr.ReadASN1ObjectIdentifier(&oid) ||
			!attr.ReadASN1(&values, cbasn1.SET) || !attr.Empty() {
			return "", nil, errMalformed
		}
		switch {
		case oid.Equal(oidFriendlyName):
			var bmp []byte
			if !values.ReadASN1Bytes(&bmp, cbasn1.Tag(30)) || !values.Empty() {
				return "", nil, errMalformed
			}
			if name, err = decodeBMP(bmp); err != nil {
				return "", nil, err
			}
		case oid.Equal(oidLocalKeyID):
			if !values.ReadASN1Bytes(&keyID, cbasn1.OCTET_STRING) || !values.Empty() {
				return "", nil, errMalformed
			}
			keyID = bytes.Clone(keyID)
		}
	}
	return name, keyID, nil
}

func decodeBMP(b []byte) (string, error) {
	if len(b)%2 != 0 {
		return "", errors.New("pkcs12: malformed BMPString")
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	// A trailing NUL, which some writers include, is not part of the name.
	if n := len(u); n > 0 && u[n-1] == 0 {
		u = u[:n-1]
	}
	return string(utf16.Decode(u)), nil
}
