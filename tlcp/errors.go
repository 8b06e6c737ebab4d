// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"net"

	"github.com/shangmi-go/shangmi/smx509"
)

// RecordHeaderError is the error of a record whose header is not a TLCP
// one: a version other than 0x0101, or a length over the limit. As in
// crypto/tls, it is returned as a value; use errors.As with a
// *RecordHeaderError target.
type RecordHeaderError struct {
	// Msg says what was wrong with the header.
	Msg string
	// RecordHeader is the five bytes that were read as a header.
	RecordHeader [5]byte
	// Conn is the underlying connection if the very first record of the
	// connection did not look like TLCP, and nil otherwise. A server
	// whose client turns out to speak plain HTTP (or TLS) may answer it
	// in kind on Conn before closing it (ServeHTTP does so).
	Conn net.Conn

	err error // what the failure also is (errClientSpeaksHTTP), for errors.Is
}

func (e RecordHeaderError) Error() string { return "tlcp: " + e.Msg }

// Unwrap returns the underlying error, if any.
func (e RecordHeaderError) Unwrap() error { return e.err }

// CertificateVerificationError is the error of a peer certificate that
// failed verification: its chain did not lead to a trusted root (Config.
// RootCAs or ClientCAs), it has expired, or it is not valid for the host
// name. Err is the smx509 error saying why (smx509.UnknownAuthorityError,
// smx509.CertificateInvalidError, smx509.HostnameError, ...). Use errors.As
// with a **CertificateVerificationError target, as with crypto/tls.
//
// Checks that are not chain verification (a certificate's key usage for
// its role, Config.VerifyPeerCertificate, Config.VerifyConnection) fail
// with other errors.
type CertificateVerificationError struct {
	// UnverifiedCertificates are the peer's certificates in the order
	// received. They must not be modified.
	UnverifiedCertificates []*smx509.Certificate
	Err                    error

	role string // which certificate: "server's signing certificate"
}

func (e *CertificateVerificationError) Error() string {
	if e.role == "" {
		return "tlcp: failed to verify certificate: " + e.Err.Error()
	}
	return "tlcp: verifying the " + e.role + ": " + e.Err.Error()
}

func (e *CertificateVerificationError) Unwrap() error { return e.Err }

// certificateAlert chooses the alert for a failed certificate verification,
// as crypto/tls does, and wraps err in a CertificateVerificationError for
// the certificate of the given role.
func certificateAlert(role string, certs []*smx509.Certificate, err error) error {
	a := alertBadCertificate
	var inv smx509.CertificateInvalidError
	var ua smx509.UnknownAuthorityError
	switch {
	case errors.As(err, &ua):
		a = alertUnknownCA
	case errors.As(err, &inv) && inv.Reason == smx509.Expired:
		a = alertCertificateExpired
	}
	return &protocolError{alert: a, err: &CertificateVerificationError{UnverifiedCertificates: certs, Err: err, role: role}}
}

// quirkError is an error a known peer quirk may explain: it adds what to
// set in Config to the error, which it wraps unchanged.
type quirkError struct {
	err  error
	hint string
}

func (e *quirkError) Error() string { return e.err.Error() + " (" + e.hint + ")" }
func (e *quirkError) Unwrap() error { return e.err }
