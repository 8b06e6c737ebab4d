// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/sha1"
	"encoding/asn1"
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cryptobyte_asn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// Identifier types of trusted_ca_keys. RFC 6066 §6 defines 0 to 3 with
// SHA-1; GM/T 0024-2023 A.2 adds the SM3 ones, which gotlcp sends and
// reads (it cannot read types 1 and 3).
const (
	TrustedCAPreAgreed    uint8 = 0 // no identifier: agreed beforehand
	TrustedCAKeySHA1Hash  uint8 = 1 // SHA-1 of the CA's public key
	TrustedCAX509Name     uint8 = 2 // the CA's DER distinguished name
	TrustedCACertSHA1Hash uint8 = 3 // SHA-1 of the CA's DER certificate
	TrustedCAKeySM3Hash   uint8 = 4 // SM3 of the CA's public key
	TrustedCACertSM3Hash  uint8 = 5 // SM3 of the CA's DER certificate
)

// TrustedAuthority is one entry of trusted_ca_keys, as gotlcp has it.
// For the key hashes the key is the subjectPublicKey bits of the CA's
// certificate (for SM2, the 65-byte uncompressed point), as RFC 6066 §6
// says for EC keys.
type TrustedAuthority struct {
	IdentifierType uint8
	Identifier     []byte
}

// NewTrustedAuthority returns the entry of type typ naming ca.
func NewTrustedAuthority(ca *smx509.Certificate, typ uint8) (TrustedAuthority, error) {
	switch typ {
	case TrustedCAPreAgreed:
		return TrustedAuthority{IdentifierType: typ}, nil
	case TrustedCAX509Name:
		return TrustedAuthority{IdentifierType: typ, Identifier: bytes.Clone(ca.RawSubject)}, nil
	case TrustedCACertSHA1Hash, TrustedCACertSM3Hash:
		return TrustedAuthority{IdentifierType: typ, Identifier: trustedCAHash(typ, ca.Raw)}, nil
	case TrustedCAKeySHA1Hash, TrustedCAKeySM3Hash:
		key, err := subjectPublicKeyBits(ca.RawSubjectPublicKeyInfo)
		if err != nil {
			return TrustedAuthority{}, err
		}
		return TrustedAuthority{IdentifierType: typ, Identifier: trustedCAHash(typ, key)}, nil
	}
	return TrustedAuthority{}, fmt.Errorf("tlcp: unknown trusted CA identifier type %d", typ)
}

// trustedCAHash hashes with the hash that identifier type typ names.
func trustedCAHash(typ uint8, data []byte) []byte {
	if typ == TrustedCAKeySHA1Hash || typ == TrustedCACertSHA1Hash {
		h := sha1.Sum(data)
		return h[:]
	}
	h := sm3.Sum(data)
	return h[:]
}

// subjectPublicKeyBits returns the contents of a SubjectPublicKeyInfo's
// BIT STRING.
func subjectPublicKeyBits(spki []byte) ([]byte, error) {
	s := cryptobyte.String(spki)
	var inner cryptobyte.String
	var bits asn1.BitString
	if !s.ReadASN1(&inner, cryptobyte_asn1.SEQUENCE) || !inner.SkipASN1(cryptobyte_asn1.SEQUENCE) ||
		!inner.ReadASN1BitString(&bits) || bits.BitLength%8 != 0 {
		return nil, errors.New("tlcp: malformed SubjectPublicKeyInfo")
	}
	return bits.Bytes, nil
}

// identifierLen is the fixed length of an identifier of type typ, or -1
// for x509_name's vec16; ok is false for an unknown type, which cannot be
// skipped since the entry carries no length.
func identifierLen(typ uint8) (n int, ok bool) {
	switch typ {
	case TrustedCAPreAgreed:
		return 0, true
	case TrustedCAKeySHA1Hash, TrustedCACertSHA1Hash:
		return sha1.Size, true
	case TrustedCAKeySM3Hash, TrustedCACertSM3Hash:
		return sm3.Size, true
	case TrustedCAX509Name:
		return -1, true
	}
	return 0, false
}

// addTrustedAuthorities writes trusted_ca_keys. Entries whose identifier
// does not fit their type are left out: they could not be parsed back.
func addTrustedAuthorities(b *cryptobyte.Builder, tas []TrustedAuthority) {
	b.AddUint16(extensionTrustedCAKeys)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, ta := range tas {
				n, ok := identifierLen(ta.IdentifierType)
				switch {
				case !ok, n >= 0 && len(ta.Identifier) != n, n < 0 && len(ta.Identifier) == 0:
					continue
				}
				b.AddUint8(ta.IdentifierType)
				if n < 0 {
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(ta.Identifier) })
				} else {
					b.AddBytes(ta.Identifier)
				}
			}
		})
	})
}

// parseTrustedAuthorities reads trusted_ca_keys: a non-empty vec16 of
// entries (RFC 6066 §6).
func parseTrustedAuthorities(ext cryptobyte.String, out *[]TrustedAuthority) bool {
	var list cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) || list.Empty() || !ext.Empty() {
		return false
	}
	for !list.Empty() {
		var ta TrustedAuthority
		if !list.ReadUint8(&ta.IdentifierType) {
			return false
		}
		n, ok := identifierLen(ta.IdentifierType)
		switch {
		case !ok:
			return false
		case n < 0:
			var name cryptobyte.String
			if !list.ReadUint16LengthPrefixed(&name) || name.Empty() {
				return false
			}
			ta.Identifier = name
		case !list.ReadBytes(&ta.Identifier, n):
			return false
		}
		*out = append(*out, ta)
	}
	return true
}

// indicates reports whether ta names cert, a CA certificate.
func (ta *TrustedAuthority) indicates(cert *smx509.Certificate) bool {
	switch ta.IdentifierType {
	case TrustedCAX509Name:
		return bytes.Equal(cert.RawSubject, ta.Identifier)
	case TrustedCACertSHA1Hash, TrustedCACertSM3Hash:
		return bytes.Equal(trustedCAHash(ta.IdentifierType, cert.Raw), ta.Identifier)
	case TrustedCAKeySHA1Hash, TrustedCAKeySM3Hash:
		key, err := subjectPublicKeyBits(cert.RawSubjectPublicKeyInfo)
		return err == nil && bytes.Equal(trustedCAHash(ta.IdentifierType, key), ta.Identifier)
	}
	return false
}

// issuedByIndicated reports whether the chain of c was issued by one of
// the indicated CAs: a CA certificate in the chain is one of them, or a
// certificate's issuer name is one of theirs, or its authority key
// identifier equals a SHA-1 key hash (RFC 5280 §4.2.1.2's first method;
// smx509 uses truncated SHA-256). Hashes of a root match only if the
// chain ends with the root, which is never sent.
func issuedByIndicated(c *Certificate, tas []TrustedAuthority) bool {
	for i, der := range c.Certificate {
		cert := c.Leaf
		if i > 0 || cert == nil {
			parsed, err := parseCertificate(der)
			if err != nil {
				continue
			}
			cert = parsed
		}
		for j := range tas {
			ta := &tas[j]
			switch {
			case i > 0 && ta.indicates(cert):
				return true
			case ta.IdentifierType == TrustedCAX509Name && bytes.Equal(cert.RawIssuer, ta.Identifier):
				return true
			case ta.IdentifierType == TrustedCAKeySHA1Hash && len(cert.AuthorityKeyId) > 0 && bytes.Equal(cert.AuthorityKeyId, ta.Identifier):
				return true
			}
		}
	}
	return false
}

// pairForIndications returns the first of pairs whose signing chain an
// indicated CA issued, or the first pair if none is.
func pairForIndications(pairs []CertificatePair, tas []TrustedAuthority) *CertificatePair {
	if len(tas) > 0 {
		for i := range pairs {
			if issuedByIndicated(&pairs[i].Sign, tas) {
				return &pairs[i]
			}
		}
	}
	return &pairs[0]
}
