// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
)

// CheckSignatureFrom checks that r was signed by issuer, or by a delegated
// responder: a certificate carried in r that matches r's ResponderID, was
// signed by issuer and has the id-kp-OCSPSigning extended key usage (RFC
// 6960, 4.2.2.2). It checks neither dates nor what r is about; Verify does.
func (r *Response) CheckSignatureFrom(issuer *smx509.Certificate) error {
	return r.checkSigner(issuer, nil, time.Time{})
}

// identifies reports whether cert is the responder r's ResponderID names.
func (r *Response) identifies(cert *smx509.Certificate) bool {
	if r.RawResponderName != nil {
		return bytes.Equal(cert.RawSubject, r.RawResponderName)
	}
	h, err := responderKeyHash(cert)
	return err == nil && bytes.Equal(h, r.ResponderKeyHash)
}

// responderName describes r's ResponderID for error messages.
func (r *Response) responderName() string {
	if r.RawResponderName != nil {
		var rdns pkix.RDNSequence
		if rest, err := asn1.Unmarshal(r.RawResponderName, &rdns); err == nil && len(rest) == 0 {
			var n pkix.Name
			n.FillFromRDNSequence(&rdns)
			return fmt.Sprintf("%q", n.String())
		}
		return "with an undecodable name"
	}
	return fmt.Sprintf("with key hash %X", r.ResponderKeyHash)
}

// checkSigner finds who signed r and checks the signature. A non-zero now
// also requires a delegated responder's certificate to be valid then.
func (r *Response) checkSigner(issuer *smx509.Certificate, trusted []*smx509.Certificate, now time.Time) error {
	if issuer == nil {
		return errors.New("ocsp: no issuer to check the response's signature against")
	}
	if r.identifies(issuer) {
		err := issuer.CheckSignature(r.SignatureAlgorithm, r.TBSResponseData, r.Signature)
		if err == nil {
			return nil
		}
		// A carried certificate of the same name may be a delegated
		// responder (or an impostor): the checks below decide.
		if c := r.Certificate; c == nil || c.Equal(issuer) {
			return fmt.Errorf("ocsp: bad signature on the response by the issuer %q: %w", issuer.Subject.String(), err)
		}
	}
	for _, t := range trusted {
		if !r.identifies(t) {
			continue
		}
		if err := t.CheckSignature(r.SignatureAlgorithm, r.TBSResponseData, r.Signature); err != nil {
			return fmt.Errorf("ocsp: bad signature on the response by the trusted responder %q: %w", t.Subject.String(), err)
		}
		return nil
	}
	c := r.Certificate
	if c == nil {
		return fmt.Errorf("ocsp: response is signed by a responder %s that is neither the issuer %q nor a trusted responder, and the response carries no certificate for it", r.responderName(), issuer.Subject.String())
	}
	if err := c.CheckSignatureFrom(issuer); err != nil {
		return fmt.Errorf("ocsp: delegated responder certificate %q is not signed by the issuer %q: %w", c.Subject.String(), issuer.Subject.String(), err)
	}
	hasEKU := false
	for _, u := range c.ExtKeyUsage {
		if u == smx509.ExtKeyUsageOCSPSigning {
			hasEKU = true
		}
	}
	if !hasEKU {
		return fmt.Errorf("ocsp: delegated responder certificate %q lacks the id-kp-OCSPSigning extended key usage", c.Subject.String())
	}
	if !now.IsZero() && (now.Before(c.NotBefore) || now.After(c.NotAfter)) {
		return fmt.Errorf("ocsp: delegated responder certificate %q is not valid at %s (valid %s to %s)",
			c.Subject.String(), now.UTC().Format(time.RFC3339), c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339))
	}
	if err := c.CheckSignature(r.SignatureAlgorithm, r.TBSResponseData, r.Signature); err != nil {
		return fmt.Errorf("ocsp: bad signature on the response by the delegated responder %q: %w", c.Subject.String(), err)
	}
	return nil
}

// VerifyOptions are the options of Verify.
type VerifyOptions struct {
	// CurrentTime is the time the response must be valid at; time.Now()
	// if zero.
	CurrentTime time.Time

	// MaxClockSkew widens the thisUpdate/nextUpdate window on both
	// sides, for clocks that differ; zero allows none.
	MaxClockSkew time.Duration

	// Nonce, when non-nil, is the nonce the request sent: the response
	// must echo it. A response without any nonce gives ErrNonceMissing,
	// after every other check has passed, so that a client may accept it
	// (many responders send precomputed responses without one).
	Nonce []byte

	// TrustedResponders are responder certificates trusted directly, like
	// OpenSSL's -VAfile: a response they sign needs no delegation by the
	// issuer.
	TrustedResponders []*smx509.Certificate

	// RequireGood makes a Revoked or Unknown status an error
	// (*CertStatusError), for callers such as a TLS client requiring a
	// good staple.
	RequireGood bool
}

// ErrNonceMissing is returned by Verify when VerifyOptions.Nonce is set
// and the response, otherwise valid, carries no nonce.
var ErrNonceMissing = errors.New("ocsp: response carries no nonce, but the request sent one")

// CertStatusError is returned by Verify with RequireGood when the
// response, otherwise valid, says the certificate is not good.
type CertStatusError struct {
	Response *Response
}

func (e *CertStatusError) Error() string {
	r := e.Response
	if r.Status == Revoked {
		return fmt.Sprintf("ocsp: certificate serial %X is revoked since %s (%s)", r.SerialNumber, r.RevokedAt.UTC().Format(time.RFC3339), ReasonName(r.RevocationReason))
	}
	return fmt.Sprintf("ocsp: the responder does not know certificate serial %X (status %s)", r.SerialNumber, StatusName(r.Status))
}

// Verify parses der, an OCSP response, and checks that it is a current,
// properly signed answer about leaf, issued by issuer: signed by the
// issuer, a trusted responder or a delegated responder (see
// CheckSignatureFrom; the delegated certificate must be valid at
// CurrentTime), with a CertID naming leaf and issuer, thisUpdate not after
// CurrentTime and nextUpdate, when present, not before it, and the request's
// nonce if there was one. The certificate's status is in the returned
// Response; it is an error only with RequireGood. This is the check a TLS
// client makes of a stapled response.
func Verify(der []byte, leaf, issuer *smx509.Certificate, opts VerifyOptions) (*Response, error) {
	if leaf == nil || issuer == nil {
		return nil, errors.New("ocsp: Verify needs the certificate and its issuer")
	}
	r, err := ParseResponseForCert(der, leaf, nil)
	if err != nil {
		return nil, err
	}
	now := opts.CurrentTime
	if now.IsZero() {
		now = time.Now()
	}
	if err := r.checkSigner(issuer, opts.TrustedResponders, now); err != nil {
		return nil, err
	}
	id := certID{hash: r.IssuerHash, nameHash: r.IssuerNameHash, keyHash: r.IssuerKeyHash, serial: r.SerialNumber, hashOID: r.hashOID}
	if m := id.mismatch(issuer, leaf.SerialNumber); m != "" {
		return nil, fmt.Errorf("ocsp: response is not about certificate serial %X from %q: %s", leaf.SerialNumber, issuer.Subject.String(), m)
	}
	if err := r.CheckValidity(now, opts.MaxClockSkew); err != nil {
		return nil, err
	}
	if opts.Nonce != nil && r.Nonce != nil && !bytes.Equal(r.Nonce, opts.Nonce) {
		return nil, fmt.Errorf("ocsp: nonce mismatch: the request sent %X, the response carries %X", opts.Nonce, r.Nonce)
	}
	if opts.RequireGood && r.Status != Good {
		return r, &CertStatusError{r}
	}
	if opts.Nonce != nil && r.Nonce == nil {
		return r, ErrNonceMissing
	}
	return r, nil
}

// CheckValidity checks r's thisUpdate/nextUpdate window at now, widened by
// skew on both sides. A response without nextUpdate is valid from
// thisUpdate on (RFC 6960, 4.2.2.1: newer information is always available).
func (r *Response) CheckValidity(now time.Time, skew time.Duration) error {
	const layout = time.RFC3339
	if r.ThisUpdate.After(now.Add(skew)) {
		return fmt.Errorf("ocsp: response is not yet valid: thisUpdate %s is after %s", r.ThisUpdate.UTC().Format(layout), now.UTC().Format(layout))
	}
	if !r.NextUpdate.IsZero() && r.NextUpdate.Before(now.Add(-skew)) {
		return fmt.Errorf("ocsp: response has expired: nextUpdate %s is before %s", r.NextUpdate.UTC().Format(layout), now.UTC().Format(layout))
	}
	return nil
}
