// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

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
	// retry is the form an adaptive client may retry with (zero if none
	// is allowed: the form is forced or Config does not permit it).
	retry interopForms
}

func (e *quirkError) Error() string { return e.err.Error() + " (" + e.hint + ")" }
func (e *quirkError) Unwrap() error { return e.err }

// clientQuirks records what a client sent in a form some deployed servers
// refuse (INTEROP.md D1, D2, D3, D6), so that when the server then ends
// the handshake, the error can name the Config switch for the other form.
type clientQuirks struct {
	helloExtensions string // the ClientHello's extensions, "" if none
	serverHelloSeen bool
	eccSignOnly     bool // ECC client authentication, Certificate without ENC
	bareECDHE       bool // the 69-byte ECDHE ClientKeyExchange
	hashCV          bool // the SM3-of-transcript CertificateVerify

	// forms are the forms this handshake uses (adapt.go), retryForms the
	// hint a redial passed in, cacheKey the server's key in the hint
	// cache ("" if none).
	forms      interopForms
	retryForms interopForms
	cacheKey   string
	hinted     bool // forms include a remembered hint
}

// extensionNames names the extensions of a ClientHello.
func extensionNames(h *clientHelloMsg) string {
	var names []string
	if h.serverName != "" {
		names = append(names, "server_name")
	}
	if len(h.alpnProtocols) > 0 {
		names = append(names, "ALPN")
	}
	return strings.Join(names, " and ")
}

// refusal reports how the peer ended a handshake that failed with err: with
// alert a (remote), or by closing the connection (closed); neither if the
// failure was this side's.
func refusal(err error) (a alert, remote, closed bool) {
	var ae AlertError
	remote = errors.As(err, &ae)
	closed = errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
	return alert(ae), remote, closed
}

// explainPeerQuirk adds to the error of a client whose server ended the
// handshake (an alert, or closing) before its ChangeCipherSpec, the
// Config switch that a known peer quirk would need, if what the client
// sent and what the server answered fit that quirk:
//
//   - extensions in ClientHello, refused before ServerHello
//     (unexpected_message from GmSSL 3.1.1): ClientHelloNoExtensions;
//   - the bare ECDHE ClientKeyExchange, refused as malformed (GmSSL ≥ 3.2
//     reads a vector: decode_error): ClientECDHEFraming71;
//   - an ECC client Certificate without ENC, refused with
//     handshake_failure (Tongsuo wants two certificates):
//     ClientCertIncludeEnc;
//   - the standard CertificateVerify, refused with decrypt_error or by
//     closing (GmSSL 3.0.0 and ≥ 3.2 verify the raw transcript, and close
//     without an alert): CertificateVerifyRawTranscript.
//
// The error is wrapped unchanged, so errors.As and errors.Is see what they
// saw before. c.in must be held.
func (c *Conn) explainPeerQuirk(err error) error {
	if c.in.rp != nil && c.in.suite13 == nil {
		return err // the server's ChangeCipherSpec came: it accepted our flight
	}
	q := &c.quirks
	a, remote, closed := refusal(err)
	if !remote && !closed {
		return err
	}
	var hint string
	var retry interopForms
	switch {
	case !q.serverHelloSeen:
		if q.helloExtensions != "" && (closed || a == alertUnexpectedMessage || a == alertDecodeError || a == alertIllegalParameter) {
			hint = "the ClientHello carried " + q.helloExtensions + ", and GmSSL 3.1.1 servers refuse any extension; " +
				"for such a server set Config.ClientHelloNoExtensions"
			retry.noExtensions = c.config.mayDropExtensions()
		}
	case q.bareECDHE && remote && (a == alertDecodeError || a == alertIllegalParameter):
		hint = "GmSSL ≥ 3.2 servers read the ECDHE ClientKeyExchange as a 71-byte vector; " +
			"for such a server set Config.ClientECDHEFraming71"
		retry.framing71 = true
	case q.eccSignOnly && remote && a == alertHandshakeFailure:
		hint = "Tongsuo servers want the client's encryption certificate after the signing one with ECC suites too; " +
			"for such a server set Config.ClientCertIncludeEnc"
		retry.includeEnc = true
	case q.hashCV && (closed || a == alertDecryptError):
		hint = "GmSSL 3.0.0 and ≥ 3.2 servers verify a CertificateVerify made over the raw transcript, and close without an alert otherwise; " +
			"for such a server set Config.CertificateVerifyRawTranscript"
		retry.rawCV = true
	}
	if hint == "" {
		return err
	}
	if !c.config.adaptive() {
		retry = interopForms{}
	}
	c.rememberRetry(retry)
	return &quirkError{err: err, hint: hint, retry: retry}
}
