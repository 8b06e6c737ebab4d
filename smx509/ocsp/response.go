// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"bytes"
	"crypto"
	cryptorand "crypto/rand"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// Response is a successful OCSP response: a BasicOCSPResponse's answer
// about one certificate (RFC 6960, 4.2). As a template for CreateResponse
// only the fields so marked are read.
type Response struct {
	Raw []byte // the whole OCSPResponse, as parsed

	Status           int      // Good, Revoked or Unknown (template)
	SerialNumber     *big.Int // (template)
	ProducedAt       time.Time
	ThisUpdate       time.Time // (template)
	NextUpdate       time.Time // zero if absent (template)
	RevokedAt        time.Time // (template, when revoked)
	RevocationReason int       // (template, when revoked)

	// IssuerHash is the CertID's hash (template; SHA1 if zero). It is 0
	// after parsing when the responder used a hash this package lacks.
	IssuerHash     Hash
	IssuerNameHash []byte
	IssuerKeyHash  []byte

	// The ResponderID: the DER of the responder's Name, or the SHA-1 of
	// its public key. As a template, a non-empty ResponderKeyHash asks for
	// a byKey ResponderID (its value is computed); byName is the default.
	RawResponderName []byte
	ResponderKeyHash []byte

	// Certificate is the carried certificate that matches the
	// ResponderID, if any: a delegated responder's.
	Certificate *smx509.Certificate
	// Certificates are all the certificates the response carries.
	Certificates []*smx509.Certificate

	TBSResponseData    []byte
	Signature          []byte
	SignatureAlgorithm smx509.SignatureAlgorithm // (template; the key's default if zero)

	// Nonce is the value of the response's nonce extension, nil if none
	// (template: the request's nonce, to echo).
	Nonce []byte

	// Extensions are the responseExtensions, the nonce included;
	// SingleExtensions those of the single response.
	Extensions       []pkix.Extension
	SingleExtensions []pkix.Extension
	// ExtraExtensions are added to the responseExtensions (template).
	ExtraExtensions []pkix.Extension

	hashOID asn1.ObjectIdentifier
}

// singleResponse is one entry of a response's list.
type singleResponse struct {
	id         certID
	status     int
	revokedAt  time.Time
	reason     int
	thisUpdate time.Time
	nextUpdate time.Time
	exts       []pkix.Extension
}

// ParseResponse parses an OCSP response holding the status of a single
// certificate. When issuer is non-nil, the response's signature is checked
// as Verify does, by the issuer or a delegated responder certificate the
// issuer signed (see CheckSignatureFrom); it checks no dates and no CertID.
// An error status from the responder is a ResponseError.
func ParseResponse(der []byte, issuer *smx509.Certificate) (*Response, error) {
	return ParseResponseForCert(der, nil, issuer)
}

// ParseResponseForCert is ParseResponse for a response that may list
// several certificates: it picks the one about cert (by serial number, and
// by CertID when issuer is non-nil). With a nil cert it is ParseResponse.
func ParseResponseForCert(der []byte, cert, issuer *smx509.Certificate) (*Response, error) {
	r, singles, err := parse(der)
	if err != nil {
		return nil, err
	}
	if cert != nil && cert.SerialNumber == nil {
		return nil, errors.New("ocsp: the certificate has no serial number")
	}
	var pick *singleResponse
	switch {
	case cert == nil && len(singles) != 1:
		return nil, fmt.Errorf("ocsp: response holds %d certificate statuses; ParseResponseForCert picks one", len(singles))
	case cert == nil:
		pick = &singles[0]
	default:
		for i := range singles {
			s := &singles[i]
			if s.id.serial.Cmp(cert.SerialNumber) != 0 {
				continue
			}
			if issuer != nil && s.id.hash.Available() && s.id.mismatch(issuer, cert.SerialNumber) != "" {
				continue
			}
			pick = s
			break
		}
		if pick == nil {
			return nil, fmt.Errorf("ocsp: response holds no status for certificate serial %X", cert.SerialNumber)
		}
	}
	r.Status, r.SerialNumber = pick.status, pick.id.serial
	r.RevokedAt, r.RevocationReason = pick.revokedAt, pick.reason
	r.ThisUpdate, r.NextUpdate = pick.thisUpdate, pick.nextUpdate
	r.IssuerHash, r.IssuerNameHash, r.IssuerKeyHash, r.hashOID = pick.id.hash, pick.id.nameHash, pick.id.keyHash, pick.id.hashOID
	r.SingleExtensions = pick.exts
	if issuer != nil {
		if err := r.CheckSignatureFrom(issuer); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// HashName names the CertID's hash, or its OID when this package does not
// implement it.
func (r *Response) HashName() string {
	return certID{hash: r.IssuerHash, hashOID: r.hashOID}.hashName()
}

var (
	tagExplicit0 = cbasn1.Tag(0).Constructed().ContextSpecific()
	tagExplicit1 = cbasn1.Tag(1).Constructed().ContextSpecific()
	tagExplicit2 = cbasn1.Tag(2).Constructed().ContextSpecific()
)

// parse reads the OCSPResponse and its BasicOCSPResponse, all but the
// choice of single response.
func parse(der []byte) (*Response, []singleResponse, error) {
	s := cryptobyte.String(der)
	var resp cryptobyte.String
	if !s.ReadASN1(&resp, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, nil, errors.New("ocsp: malformed response: not a single DER SEQUENCE")
	}
	var status int
	if !resp.ReadASN1Enum(&status) {
		return nil, nil, errors.New("ocsp: malformed response status")
	}
	if status != int(Success) {
		return nil, nil, ResponseError{ResponseStatus(status)}
	}
	var bytesField, rb cryptobyte.String
	if !resp.ReadASN1(&bytesField, tagExplicit0) || !resp.Empty() {
		return nil, nil, errors.New("ocsp: malformed response: successful but without responseBytes")
	}
	var typ asn1.ObjectIdentifier
	var basic cryptobyte.String
	if !bytesField.ReadASN1(&rb, cbasn1.SEQUENCE) || !bytesField.Empty() ||
		!rb.ReadASN1ObjectIdentifier(&typ) || !rb.ReadASN1(&basic, cbasn1.OCTET_STRING) || !rb.Empty() {
		return nil, nil, errors.New("ocsp: malformed responseBytes")
	}
	if !typ.Equal(oidBasicResponse) {
		return nil, nil, fmt.Errorf("ocsp: unsupported response type %v (only id-pkix-ocsp-basic is)", typ)
	}
	r := &Response{Raw: der}

	var br, tbs, sigAlg cryptobyte.String
	if !basic.ReadASN1(&br, cbasn1.SEQUENCE) || !basic.Empty() {
		return nil, nil, errors.New("ocsp: malformed BasicOCSPResponse")
	}
	if !br.ReadASN1Element(&tbs, cbasn1.SEQUENCE) {
		return nil, nil, errors.New("ocsp: malformed tbsResponseData")
	}
	r.TBSResponseData = tbs
	if !br.ReadASN1Element(&sigAlg, cbasn1.SEQUENCE) {
		return nil, nil, errors.New("ocsp: malformed signature algorithm")
	}
	var err error
	if r.SignatureAlgorithm, err = smx509.ParseSignatureAlgorithmIdentifier(sigAlg); err != nil {
		return nil, nil, fmt.Errorf("ocsp: %w", err)
	}
	var sig asn1.BitString
	if !br.ReadASN1BitString(&sig) || sig.BitLength%8 != 0 {
		return nil, nil, errors.New("ocsp: malformed signature")
	}
	r.Signature = sig.RightAlign()
	var certsField cryptobyte.String
	var hasCerts bool
	if !br.ReadOptionalASN1(&certsField, &hasCerts, tagExplicit0) || !br.Empty() {
		return nil, nil, errors.New("ocsp: malformed certificates of the response")
	}
	if hasCerts {
		var seq cryptobyte.String
		if !certsField.ReadASN1(&seq, cbasn1.SEQUENCE) || !certsField.Empty() {
			return nil, nil, errors.New("ocsp: malformed certificates of the response")
		}
		for !seq.Empty() {
			var c cryptobyte.String
			if !seq.ReadASN1Element(&c, cbasn1.SEQUENCE) {
				return nil, nil, errors.New("ocsp: malformed certificate in the response")
			}
			cert, err := smx509.ParseCertificate(c)
			if err != nil {
				return nil, nil, fmt.Errorf("ocsp: certificate in the response: %w", err)
			}
			r.Certificates = append(r.Certificates, cert)
		}
	}

	singles, err := parseResponseData(r, tbs)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range r.Certificates {
		if r.identifies(c) {
			r.Certificate = c
			break
		}
	}
	return r, singles, nil
}

func parseResponseData(r *Response, tbsElement cryptobyte.String) ([]singleResponse, error) {
	var tbs cryptobyte.String
	tbsElement.ReadASN1(&tbs, cbasn1.SEQUENCE)
	var version cryptobyte.String
	var hasVersion bool
	if !tbs.ReadOptionalASN1(&version, &hasVersion, tagExplicit0) {
		return nil, errors.New("ocsp: malformed response version")
	}
	if hasVersion {
		var v int64
		if !version.ReadASN1Int64WithTag(&v, cbasn1.INTEGER) || !version.Empty() || v != 0 {
			return nil, errors.New("ocsp: unsupported response version (only v1 exists)")
		}
	}
	var rid cryptobyte.String
	var tag cbasn1.Tag
	if !tbs.ReadAnyASN1(&rid, &tag) {
		return nil, errors.New("ocsp: malformed responder ID")
	}
	switch tag {
	case tagExplicit1:
		var name cryptobyte.String
		if !rid.ReadASN1Element(&name, cbasn1.SEQUENCE) || !rid.Empty() {
			return nil, errors.New("ocsp: malformed responder name")
		}
		r.RawResponderName = name
	case tagExplicit2:
		var kh cryptobyte.String
		if !rid.ReadASN1(&kh, cbasn1.OCTET_STRING) || !rid.Empty() {
			return nil, errors.New("ocsp: malformed responder key hash")
		}
		r.ResponderKeyHash = kh
	case cbasn1.Tag(2).ContextSpecific():
		// GmSSL 3's ocspsign -resp_key_id tags the KeyHash implicitly;
		// RFC 6960's module has EXPLICIT TAGS. Accepting it identifies the
		// responder no less surely (OpenSSL and Tongsuo refuse it).
		if len(rid) != 20 {
			return nil, errors.New("ocsp: malformed responder key hash")
		}
		r.ResponderKeyHash = rid
	default:
		return nil, errors.New("ocsp: responder ID is neither byName nor byKey")
	}
	if !tbs.ReadASN1GeneralizedTime(&r.ProducedAt) {
		return nil, errors.New("ocsp: malformed producedAt time")
	}
	var list cryptobyte.String
	if !tbs.ReadASN1(&list, cbasn1.SEQUENCE) {
		return nil, errors.New("ocsp: malformed list of responses")
	}
	var singles []singleResponse
	for !list.Empty() {
		sr, err := parseSingleResponse(&list)
		if err != nil {
			return nil, err
		}
		singles = append(singles, sr)
	}
	if len(singles) == 0 {
		return nil, errors.New("ocsp: response holds no certificate status")
	}
	var extsField cryptobyte.String
	var hasExts bool
	if !tbs.ReadOptionalASN1(&extsField, &hasExts, tagExplicit1) || !tbs.Empty() {
		return nil, errors.New("ocsp: malformed response extensions")
	}
	if hasExts {
		var err error
		if r.Extensions, err = readExtensions(extsField); err != nil {
			return nil, fmt.Errorf("ocsp: response extensions: %w", err)
		}
		for _, e := range r.Extensions {
			if e.Critical && !e.Id.Equal(oidNonce) {
				return nil, fmt.Errorf("ocsp: response has an unsupported critical extension %v", e.Id)
			}
		}
		if r.Nonce, err = findNonce(r.Extensions); err != nil {
			return nil, err
		}
	}
	return singles, nil
}

func parseSingleResponse(list *cryptobyte.String) (singleResponse, error) {
	var sr singleResponse
	var s cryptobyte.String
	if !list.ReadASN1(&s, cbasn1.SEQUENCE) {
		return sr, errors.New("ocsp: malformed single response")
	}
	var err error
	if sr.id, err = parseCertID(&s); err != nil {
		return sr, err
	}
	var st cryptobyte.String
	var tag cbasn1.Tag
	if !s.ReadAnyASN1(&st, &tag) {
		return sr, errors.New("ocsp: malformed certificate status")
	}
	switch tag {
	case cbasn1.Tag(0).ContextSpecific():
		if len(st) != 0 {
			return sr, errors.New("ocsp: malformed good status")
		}
		sr.status = Good
	case cbasn1.Tag(1).Constructed().ContextSpecific():
		sr.status = Revoked
		if !st.ReadASN1GeneralizedTime(&sr.revokedAt) {
			return sr, errors.New("ocsp: malformed revocation time")
		}
		var reason cryptobyte.String
		var hasReason bool
		if !st.ReadOptionalASN1(&reason, &hasReason, tagExplicit0) || !st.Empty() {
			return sr, errors.New("ocsp: malformed revocation information")
		}
		if hasReason {
			var v int
			if !reason.ReadASN1Enum(&v) || !reason.Empty() || v < 0 || v > AACompromise || v == 7 {
				return sr, errors.New("ocsp: malformed or unknown revocation reason")
			}
			sr.reason = v
		}
	case cbasn1.Tag(2).ContextSpecific():
		if len(st) != 0 {
			return sr, errors.New("ocsp: malformed unknown status")
		}
		sr.status = Unknown
	default:
		return sr, errors.New("ocsp: certificate status is neither good, revoked nor unknown")
	}
	if !s.ReadASN1GeneralizedTime(&sr.thisUpdate) {
		return sr, errors.New("ocsp: malformed thisUpdate time")
	}
	var next cryptobyte.String
	var hasNext bool
	if !s.ReadOptionalASN1(&next, &hasNext, tagExplicit0) {
		return sr, errors.New("ocsp: malformed nextUpdate time")
	}
	if hasNext && (!next.ReadASN1GeneralizedTime(&sr.nextUpdate) || !next.Empty()) {
		return sr, errors.New("ocsp: malformed nextUpdate time")
	}
	var extsField cryptobyte.String
	var hasExts bool
	if !s.ReadOptionalASN1(&extsField, &hasExts, tagExplicit1) || !s.Empty() {
		return sr, errors.New("ocsp: malformed single response extensions")
	}
	if hasExts {
		if sr.exts, err = readExtensions(extsField); err != nil {
			return sr, fmt.Errorf("ocsp: single response extensions: %w", err)
		}
		for _, e := range sr.exts {
			if e.Critical {
				return sr, fmt.Errorf("ocsp: single response has an unsupported critical extension %v", e.Id)
			}
		}
	}
	return sr, nil
}

// CreateResponse returns the DER of an OCSP response about the certificate
// template.SerialNumber issued by issuer, signed by priv: the key of issuer
// itself, or of responderCert, a delegated responder that issuer signed
// (it should have the id-kp-OCSPSigning extended key usage; it is carried
// in the response). responderCert may be nil or issuer for the former.
func CreateResponse(issuer, responderCert *smx509.Certificate, template Response, priv crypto.Signer) ([]byte, error) {
	return CreateResponseWithRand(nil, issuer, responderCert, template, priv)
}

// CreateResponseWithRand is CreateResponse with the signature's randomness
// from rand (crypto/rand's when nil).
func CreateResponseWithRand(rand io.Reader, issuer, responderCert *smx509.Certificate, template Response, priv crypto.Signer) ([]byte, error) {
	if issuer == nil {
		return nil, errors.New("ocsp: CreateResponse needs the issuer")
	}
	if responderCert == nil {
		responderCert = issuer
	}
	h := template.IssuerHash
	if h == 0 {
		h = SHA1
	}
	id, err := newCertID(h, issuer, template.SerialNumber)
	if err != nil {
		return nil, err
	}
	switch template.Status {
	case Good, Unknown:
	case Revoked:
		if template.RevokedAt.IsZero() {
			return nil, errors.New("ocsp: a revoked status needs RevokedAt")
		}
	default:
		return nil, fmt.Errorf("ocsp: status %d is neither Good, Revoked nor Unknown", template.Status)
	}
	if template.ThisUpdate.IsZero() {
		return nil, errors.New("ocsp: template.ThisUpdate is not set")
	}
	if !template.NextUpdate.IsZero() && template.NextUpdate.Before(template.ThisUpdate) {
		return nil, errors.New("ocsp: template.NextUpdate is before template.ThisUpdate")
	}
	produced := template.ProducedAt
	if produced.IsZero() {
		produced = time.Now()
	}
	exts, err := withNonce(template.ExtraExtensions, template.Nonce)
	if err != nil {
		return nil, err
	}
	var keyHash []byte
	if len(template.ResponderKeyHash) > 0 {
		if keyHash, err = responderKeyHash(responderCert); err != nil {
			return nil, err
		}
	}

	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // ResponseData
		if keyHash != nil {
			b.AddASN1(tagExplicit2, func(b *cryptobyte.Builder) { b.AddASN1OctetString(keyHash) })
		} else {
			b.AddASN1(tagExplicit1, func(b *cryptobyte.Builder) { b.AddBytes(responderCert.RawSubject) })
		}
		addGeneralizedTime(b, produced)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // SingleResponse
				id.marshal(b)
				switch template.Status {
				case Good:
					b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(*cryptobyte.Builder) {})
				case Unknown:
					b.AddASN1(cbasn1.Tag(2).ContextSpecific(), func(*cryptobyte.Builder) {})
				case Revoked:
					b.AddASN1(tagExplicit1, func(b *cryptobyte.Builder) {
						addGeneralizedTime(b, template.RevokedAt)
						if template.RevocationReason != Unspecified {
							b.AddASN1(tagExplicit0, func(b *cryptobyte.Builder) {
								b.AddASN1Enum(int64(template.RevocationReason))
							})
						}
					})
				}
				addGeneralizedTime(b, template.ThisUpdate)
				if !template.NextUpdate.IsZero() {
					b.AddASN1(tagExplicit0, func(b *cryptobyte.Builder) { addGeneralizedTime(b, template.NextUpdate) })
				}
			})
		})
		if len(exts) > 0 {
			b.AddASN1(tagExplicit1, func(b *cryptobyte.Builder) { addExtensions(b, exts) })
		}
	})
	tbs, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	if rand == nil {
		rand = cryptorand.Reader
	}
	_, algID, sig, err := smx509.SignTBS(rand, priv, template.SignatureAlgorithm, tbs)
	if err != nil {
		return nil, fmt.Errorf("ocsp: signing the response: %w", err)
	}

	var basic cryptobyte.Builder
	basic.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(tbs)
		b.AddBytes(algID)
		b.AddASN1BitString(sig)
		if responderCert != issuer && !bytes.Equal(responderCert.Raw, issuer.Raw) {
			b.AddASN1(tagExplicit0, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddBytes(responderCert.Raw) })
			})
		}
	})
	basicDER, err := basic.Bytes()
	if err != nil {
		return nil, err
	}
	var out cryptobyte.Builder
	out.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Enum(int64(Success))
		b.AddASN1(tagExplicit0, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(oidBasicResponse)
				b.AddASN1OctetString(basicDER)
			})
		})
	})
	return out.Bytes()
}

// ErrorResponse returns the DER of an OCSPResponse carrying only an error
// status, what a responder sends when it cannot answer (RFC 6960, 2.3).
func ErrorResponse(status ResponseStatus) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1Enum(int64(status)) })
	return b.BytesOrPanic()
}

// addGeneralizedTime writes t in UTC to the second, as RFC 5280 wants of
// GeneralizedTime and OpenSSL writes it.
func addGeneralizedTime(b *cryptobyte.Builder, t time.Time) {
	b.AddASN1GeneralizedTime(t.UTC().Truncate(time.Second))
}
