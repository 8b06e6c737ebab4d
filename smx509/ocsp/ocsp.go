// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package ocsp parses, creates and verifies OCSP requests and responses
// (RFC 6960) for certificates of package smx509, SM2 ones included.
//
// Its shape follows golang.org/x/crypto/ocsp: CreateRequest and
// ParseRequest for the client's question, CreateResponse, ParseResponse and
// ParseResponseForCert for the responder's answer, the Good, Revoked and
// Unknown statuses and the CRL reason codes. What it adds:
//
//   - The CertID may be hashed with SM3 as well as with SHA-1 (what nearly
//     every responder and OpenSSL's client use) and SHA-256/384/512.
//   - Responses are signed and checked with every algorithm smx509 signs
//     certificates with: SM2-with-SM3 (with the default signer ID, and
//     checked with it or the empty ID as smx509 does), ECDSA, RSA, Ed25519.
//   - Verify checks everything a relying party needs in one call — the
//     signer (the issuer, a locally trusted responder, or a delegated
//     responder certificate carried in the response that the issuer signed
//     and that has the id-kp-OCSPSigning extended key usage), that the
//     response is about this certificate, the thisUpdate/nextUpdate window at
//     a given time, and the nonce. It is what a TLS client checking a stapled
//     response calls.
//
// Signatures with SHA-1 (sha1WithRSA, ecdsa-with-SHA1), which deployed
// responders still make, are accepted as smx509's Certificate.CheckSignature
// and golang.org/x/crypto/ocsp accept them; MD5 is refused. A byKey
// ResponderID that GmSSL 3 tags implicitly is read as well.
//
// Parsing is bounded: every length comes from the input, which is read with
// cryptobyte, and the memory a parse allocates grows linearly with the
// input (tests bound it).
package ocsp

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"fmt"
	"hash"
	"strings"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// ResponseStatus is the responseStatus of an OCSPResponse: whether the
// responder could answer at all.
type ResponseStatus int

const (
	Success           ResponseStatus = 0
	Malformed         ResponseStatus = 1
	InternalError     ResponseStatus = 2
	TryLater          ResponseStatus = 3
	SignatureRequired ResponseStatus = 5 // value 4 is not used
	Unauthorized      ResponseStatus = 6
)

func (s ResponseStatus) String() string {
	switch s {
	case Success:
		return "successful"
	case Malformed:
		return "malformedRequest"
	case InternalError:
		return "internalError"
	case TryLater:
		return "tryLater"
	case SignatureRequired:
		return "sigRequired"
	case Unauthorized:
		return "unauthorized"
	}
	return fmt.Sprintf("unknown response status %d", int(s))
}

// ResponseError is returned by ParseResponse when the responder answered
// with an error status instead of a response.
type ResponseError struct {
	Status ResponseStatus
}

func (e ResponseError) Error() string {
	return "ocsp: responder answered with error status " + e.Status.String()
}

// Certificate statuses, the values of Response.Status.
const (
	Good    = 0
	Revoked = 1
	Unknown = 2
)

// StatusName returns "good", "revoked" or "unknown".
func StatusName(status int) string {
	switch status {
	case Good:
		return "good"
	case Revoked:
		return "revoked"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("status %d", status)
}

// Revocation reasons (RFC 5280, 5.3.1), the values of
// Response.RevocationReason.
const (
	Unspecified          = 0
	KeyCompromise        = 1
	CACompromise         = 2
	AffiliationChanged   = 3
	Superseded           = 4
	CessationOfOperation = 5
	CertificateHold      = 6
	RemoveFromCRL        = 8
	PrivilegeWithdrawn   = 9
	AACompromise         = 10
)

var reasonNames = map[int]string{
	Unspecified:          "unspecified",
	KeyCompromise:        "keyCompromise",
	CACompromise:         "cACompromise",
	AffiliationChanged:   "affiliationChanged",
	Superseded:           "superseded",
	CessationOfOperation: "cessationOfOperation",
	CertificateHold:      "certificateHold",
	RemoveFromCRL:        "removeFromCRL",
	PrivilegeWithdrawn:   "privilegeWithdrawn",
	AACompromise:         "aACompromise",
}

// ReasonName returns the RFC 5280 name of a revocation reason
// ("keyCompromise"), the spelling OpenSSL's index.txt uses too.
func ReasonName(reason int) string {
	if n, ok := reasonNames[reason]; ok {
		return n
	}
	return fmt.Sprintf("reason %d", reason)
}

// ReasonFromName is the inverse of ReasonName; it ignores case.
func ReasonFromName(name string) (int, bool) {
	for r, n := range reasonNames {
		if strings.EqualFold(n, name) {
			return r, true
		}
	}
	return 0, false
}

// Hash is the hash algorithm of a CertID.
type Hash int

const (
	SHA1 Hash = 1 + iota
	SHA256
	SHA384
	SHA512
	SM3
)

var hashDetails = []struct {
	h    Hash
	name string
	oid  asn1.ObjectIdentifier
	new  func() hash.Hash
}{
	{SHA1, "SHA-1", asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}, sha1.New},
	{SHA256, "SHA-256", asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}, sha256.New},
	{SHA384, "SHA-384", asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}, sha512.New384},
	{SHA512, "SHA-512", asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}, sha512.New},
	{SM3, "SM3", asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 401}, sm3.New},
}

func (h Hash) String() string {
	for _, d := range hashDetails {
		if d.h == h {
			return d.name
		}
	}
	return fmt.Sprintf("hash %d", int(h))
}

// Available reports whether h is one of the hashes this package implements.
func (h Hash) Available() bool {
	for _, d := range hashDetails {
		if d.h == h {
			return true
		}
	}
	return false
}

// HashFromName maps "sha1", "SHA-256", "sm3"... to a Hash.
func HashFromName(name string) (Hash, bool) {
	for _, d := range hashDetails {
		if strings.EqualFold(d.name, name) || strings.EqualFold(strings.ReplaceAll(d.name, "-", ""), name) {
			return d.h, true
		}
	}
	return 0, false
}

func (h Hash) sum(data []byte) []byte {
	for _, d := range hashDetails {
		if d.h == h {
			f := d.new()
			f.Write(data)
			return f.Sum(nil)
		}
	}
	return nil
}

func (h Hash) oid() asn1.ObjectIdentifier {
	for _, d := range hashDetails {
		if d.h == h {
			return d.oid
		}
	}
	return nil
}

func hashFromOID(oid asn1.ObjectIdentifier) (Hash, bool) {
	for _, d := range hashDetails {
		if d.oid.Equal(oid) {
			return d.h, true
		}
	}
	return 0, false
}

var (
	oidBasicResponse = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 1}
	oidNonce         = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 2}
)
