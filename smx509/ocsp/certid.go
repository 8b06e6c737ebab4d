// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"bytes"
	"crypto/sha1"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"

	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// certID is the CertID of RFC 6960, 4.1.1: which certificate a request or
// a single response is about.
type certID struct {
	hash     Hash
	nameHash []byte
	keyHash  []byte
	serial   *big.Int
	hashOID  asn1.ObjectIdentifier
}

// publicKeyBits returns the subjectPublicKey BIT STRING's bytes of a DER
// SubjectPublicKeyInfo, the input of the issuer key hash and of a
// byKey ResponderID.
func publicKeyBits(spki []byte) ([]byte, error) {
	s := cryptobyte.String(spki)
	var inner cryptobyte.String
	var bits asn1.BitString
	if !s.ReadASN1(&inner, cbasn1.SEQUENCE) ||
		!inner.SkipASN1(cbasn1.SEQUENCE) ||
		!inner.ReadASN1BitString(&bits) {
		return nil, errors.New("ocsp: malformed subject public key info")
	}
	return bits.Bytes, nil
}

// newCertID computes the CertID of the certificate with the given serial
// number, issued by issuer.
func newCertID(h Hash, issuer *smx509.Certificate, serial *big.Int) (certID, error) {
	if !h.Available() {
		return certID{}, fmt.Errorf("ocsp: unsupported CertID hash %v", h)
	}
	if serial == nil {
		return certID{}, errors.New("ocsp: certificate has no serial number")
	}
	bits, err := publicKeyBits(issuer.RawSubjectPublicKeyInfo)
	if err != nil {
		return certID{}, err
	}
	return certID{hash: h, nameHash: h.sum(issuer.RawSubject), keyHash: h.sum(bits), serial: serial}, nil
}

// mismatch reports which part of id, if any, does not describe the
// certificate with this serial from this issuer; "" means it does.
func (id certID) mismatch(issuer *smx509.Certificate, serial *big.Int) string {
	if !id.hash.Available() {
		return "its CertID is hashed with " + id.hashName() + ", which this package does not implement"
	}
	if id.serial == nil {
		return "it has no serial number"
	}
	want, err := newCertID(id.hash, issuer, serial)
	if err != nil {
		return err.Error()
	}
	switch {
	case id.serial.Cmp(serial) != 0:
		return fmt.Sprintf("its serial number is %X, the certificate's is %X", id.serial, serial)
	case !bytes.Equal(id.nameHash, want.nameHash):
		return fmt.Sprintf("its issuer name hash (%v) does not match the issuer's name", id.hash)
	case !bytes.Equal(id.keyHash, want.keyHash):
		return fmt.Sprintf("its issuer key hash (%v) does not match the issuer's key", id.hash)
	}
	return ""
}

func (id certID) marshal(b *cryptobyte.Builder) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(id.hash.oid())
			// OpenSSL and Tongsuo write NULL parameters for every digest,
			// SM3 included; RFC 5754 allows either for SHA-2.
			b.AddASN1NULL()
		})
		b.AddASN1OctetString(id.nameHash)
		b.AddASN1OctetString(id.keyHash)
		b.AddASN1BigInt(id.serial)
	})
}

func parseCertID(s *cryptobyte.String) (certID, error) {
	var id certID
	var seq, alg cryptobyte.String
	if !s.ReadASN1(&seq, cbasn1.SEQUENCE) || !seq.ReadASN1(&alg, cbasn1.SEQUENCE) {
		return id, errors.New("ocsp: malformed CertID")
	}
	if !alg.ReadASN1ObjectIdentifier(&id.hashOID) {
		return id, errors.New("ocsp: malformed CertID hash algorithm")
	}
	if !alg.Empty() {
		var params cryptobyte.String
		if !alg.ReadASN1(&params, cbasn1.NULL) || len(params) != 0 || !alg.Empty() {
			return id, errors.New("ocsp: CertID hash algorithm has parameters other than NULL")
		}
	}
	id.hash, _ = hashFromOID(id.hashOID)
	var serial big.Int
	if !seq.ReadASN1Bytes(&id.nameHash, cbasn1.OCTET_STRING) ||
		!seq.ReadASN1Bytes(&id.keyHash, cbasn1.OCTET_STRING) ||
		!seq.ReadASN1Integer(&serial) || !seq.Empty() {
		return id, errors.New("ocsp: malformed CertID")
	}
	id.serial = &serial
	return id, nil
}

// hashName names the CertID's hash, or its OID when it is not one of ours.
func (id certID) hashName() string {
	if id.hash != 0 {
		return id.hash.String()
	}
	return id.hashOID.String()
}

// responderKeyHash is the byKey ResponderID of cert: the SHA-1 of its
// subjectPublicKey (RFC 6960, 4.2.1), whatever the CertID hashes use.
func responderKeyHash(cert *smx509.Certificate) ([]byte, error) {
	bits, err := publicKeyBits(cert.RawSubjectPublicKeyInfo)
	if err != nil {
		return nil, err
	}
	sum := sha1.Sum(bits)
	return sum[:], nil
}
