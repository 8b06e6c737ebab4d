// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"

	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// Request is an OCSP request about one certificate (RFC 6960, 4.1).
type Request struct {
	HashAlgorithm  Hash // the CertID's hash; 0 if the request used one this package lacks
	IssuerNameHash []byte
	IssuerKeyHash  []byte
	SerialNumber   *big.Int

	// Nonce is the value of the request's nonce extension (RFC 8954), nil
	// if it has none. A responder echoes it in its response.
	Nonce []byte

	// Extensions are the request's extensions, the nonce included.
	Extensions []pkix.Extension

	hashOID asn1.ObjectIdentifier
}

// RequestOptions are the options of CreateRequest.
type RequestOptions struct {
	// Hash hashes the issuer's name and key in the CertID; SHA1 if zero,
	// as OpenSSL's client and most responders expect.
	Hash Hash

	// Nonce, when non-nil, is sent in a nonce extension. RFC 8954 wants 1
	// to 32 bytes; 16 random bytes is what OpenSSL sends.
	Nonce []byte
}

// CreateRequest returns the DER of an OCSP request about cert, issued by
// issuer.
func CreateRequest(cert, issuer *smx509.Certificate, opts *RequestOptions) ([]byte, error) {
	if cert == nil || issuer == nil {
		return nil, errors.New("ocsp: CreateRequest needs the certificate and its issuer")
	}
	req := &Request{HashAlgorithm: SHA1, SerialNumber: cert.SerialNumber}
	if opts != nil {
		if opts.Hash != 0 {
			req.HashAlgorithm = opts.Hash
		}
		req.Nonce = opts.Nonce
	}
	id, err := newCertID(req.HashAlgorithm, issuer, cert.SerialNumber)
	if err != nil {
		return nil, err
	}
	req.IssuerNameHash, req.IssuerKeyHash = id.nameHash, id.keyHash
	return req.Marshal()
}

// Marshal returns the DER of r. Of r.Extensions only those other than the
// nonce are written; the nonce comes from r.Nonce.
func (r *Request) Marshal() ([]byte, error) {
	if !r.HashAlgorithm.Available() {
		return nil, fmt.Errorf("ocsp: unsupported CertID hash %v", r.HashAlgorithm)
	}
	if r.SerialNumber == nil {
		return nil, errors.New("ocsp: request has no serial number")
	}
	exts, err := withNonce(r.Extensions, r.Nonce)
	if err != nil {
		return nil, err
	}
	id := certID{hash: r.HashAlgorithm, nameHash: r.IssuerNameHash, keyHash: r.IssuerKeyHash, serial: r.SerialNumber}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // OCSPRequest
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // TBSRequest
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // requestList
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // Request
					id.marshal(b)
				})
			})
			if len(exts) > 0 {
				b.AddASN1(cbasn1.Tag(2).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					addExtensions(b, exts)
				})
			}
		})
	})
	return b.Bytes()
}

// ParseRequest parses the DER of an OCSP request. Only requests about a
// single certificate are supported, which is what OpenSSL, Tongsuo,
// browsers and TLS stacks send; a signed request is parsed but its
// signature is not checked.
func ParseRequest(der []byte) (*Request, error) {
	s := cryptobyte.String(der)
	var req, tbs cryptobyte.String
	if !s.ReadASN1(&req, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, errors.New("ocsp: malformed request: not a single DER SEQUENCE")
	}
	if !req.ReadASN1(&tbs, cbasn1.SEQUENCE) {
		return nil, errors.New("ocsp: malformed request: no TBSRequest")
	}
	if !req.SkipOptionalASN1(cbasn1.Tag(0).Constructed().ContextSpecific()) || !req.Empty() {
		return nil, errors.New("ocsp: malformed request: trailing data after TBSRequest")
	}
	var version cryptobyte.String
	var hasVersion bool
	if !tbs.ReadOptionalASN1(&version, &hasVersion, cbasn1.Tag(0).Constructed().ContextSpecific()) {
		return nil, errors.New("ocsp: malformed request version")
	}
	if hasVersion {
		var v int64
		if !version.ReadASN1Int64WithTag(&v, cbasn1.INTEGER) || !version.Empty() || v != 0 {
			return nil, errors.New("ocsp: unsupported request version (only v1 exists)")
		}
	}
	if !tbs.SkipOptionalASN1(cbasn1.Tag(1).Constructed().ContextSpecific()) { // requestorName
		return nil, errors.New("ocsp: malformed requestor name")
	}
	var list cryptobyte.String
	if !tbs.ReadASN1(&list, cbasn1.SEQUENCE) {
		return nil, errors.New("ocsp: malformed request list")
	}
	var one, extra cryptobyte.String
	if !list.ReadASN1(&one, cbasn1.SEQUENCE) {
		return nil, errors.New("ocsp: request asks about no certificate")
	}
	if !list.Empty() {
		n := 1
		for list.ReadASN1(&extra, cbasn1.SEQUENCE) {
			n++
		}
		return nil, fmt.Errorf("ocsp: request asks about %d certificates; only one per request is supported", n)
	}
	id, err := parseCertID(&one)
	if err != nil {
		return nil, err
	}
	if !one.SkipOptionalASN1(cbasn1.Tag(0).Constructed().ContextSpecific()) || !one.Empty() {
		return nil, errors.New("ocsp: malformed single request extensions")
	}
	r := &Request{HashAlgorithm: id.hash, IssuerNameHash: id.nameHash, IssuerKeyHash: id.keyHash, SerialNumber: id.serial, hashOID: id.hashOID}
	var extsField cryptobyte.String
	var hasExts bool
	if !tbs.ReadOptionalASN1(&extsField, &hasExts, cbasn1.Tag(2).Constructed().ContextSpecific()) || !tbs.Empty() {
		return nil, errors.New("ocsp: malformed request extensions")
	}
	if hasExts {
		if r.Extensions, err = readExtensions(extsField); err != nil {
			return nil, fmt.Errorf("ocsp: request extensions: %w", err)
		}
		if r.Nonce, err = findNonce(r.Extensions); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// HashName names the request's CertID hash, or its OID when this package
// does not implement it.
func (r *Request) HashName() string {
	return certID{hash: r.HashAlgorithm, hashOID: r.hashOID}.hashName()
}

// IsFor reports whether r asks about the certificate with this serial
// number issued by issuer.
func (r *Request) IsFor(issuer *smx509.Certificate, serial *big.Int) bool {
	id := certID{hash: r.HashAlgorithm, nameHash: r.IssuerNameHash, keyHash: r.IssuerKeyHash, serial: r.SerialNumber, hashOID: r.hashOID}
	return id.mismatch(issuer, serial) == ""
}

// IssuedBy reports whether r's CertID names issuer (whatever the serial).
func (r *Request) IssuedBy(issuer *smx509.Certificate) bool {
	return r.SerialNumber != nil && r.IsFor(issuer, r.SerialNumber)
}
