// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"slices"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/ocsp"
	"golang.org/x/crypto/cryptobyte"
)

// OCSP stapling (RFC 6066 §8; RFC 8446 §4.4.2.1). A client that asks
// sends status_request in its ClientHello. A TLS 1.3 server answers in
// the status_request extension of its leaf's CertificateEntry. TLCP has
// two deployed forms, and a client of this package reads both: Tongsuo's
// NTLS, as TLS 1.2, acknowledges with an empty status_request in
// ServerHello and sends a CertificateStatus message after Certificate;
// gotlcp puts the CertificateStatus body in ServerHello's status_request
// itself (GM/T 0024-2023 defines no CertificateStatus message). A TLCP
// server sends Tongsuo's form unless Config.TLCPStapleInServerHello names
// gotlcp's: gotlcp's client never asks for a staple, so the standard
// form is the one every client that asks can read (INTEROP.md §13).
const (
	extensionTrustedCAKeys uint16 = 3
	extensionStatusRequest uint16 = 5

	typeCertificateStatus uint8 = 22

	statusTypeOCSP uint8 = 1

	// alertBadCertificateStatusResponse is what RFC 6066 §8 and RFC 8446
	// §6.2 name for a staple that is missing, malformed or not good when
	// the client needs one.
	alertBadCertificateStatusResponse alert = 113
)

// stapleClockSkew widens a staple's thisUpdate/nextUpdate window: the
// responder's clock and the client's differ, and a response made a
// moment ago must not be refused as not yet valid.
const stapleClockSkew = 5 * time.Minute

// addStatusRequest writes a ClientHello's status_request: an OCSP
// CertificateStatusRequest with no responder IDs and no request
// extensions, meaning "whatever responder the server knows".
func addStatusRequest(b *cryptobyte.Builder) {
	b.AddUint16(extensionStatusRequest)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint8(statusTypeOCSP)
		b.AddUint16(0) // responder_id_list
		b.AddUint16(0) // request_extensions
	})
}

// parseStatusRequest reads a ClientHello's status_request. A request of
// another status_type is well formed but asks for nothing this package
// can give (RFC 6066 §8: the server ignores it).
func parseStatusRequest(ext cryptobyte.String, ocspRequested *bool) bool {
	var typ uint8
	if !ext.ReadUint8(&typ) {
		return false
	}
	if typ != statusTypeOCSP {
		return true
	}
	var ids, reqExts cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&ids) || !ext.ReadUint16LengthPrefixed(&reqExts) || !ext.Empty() {
		return false
	}
	for !ids.Empty() {
		var id cryptobyte.String
		if !ids.ReadUint16LengthPrefixed(&id) || id.Empty() {
			return false
		}
	}
	*ocspRequested = true
	return true
}

// addCertificateStatus writes a CertificateStatus body: status_type ocsp
// and the DER response as a vec24.
func addCertificateStatus(b *cryptobyte.Builder, response []byte) {
	b.AddUint8(statusTypeOCSP)
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(response) })
}

// parseCertificateStatus reads a CertificateStatus body, of any of the
// three carriers, and returns the OCSP response, never empty.
func parseCertificateStatus(body []byte) ([]byte, bool) {
	s := cryptobyte.String(body)
	var typ uint8
	var resp cryptobyte.String
	if !s.ReadUint8(&typ) || typ != statusTypeOCSP || !s.ReadUint24LengthPrefixed(&resp) || resp.Empty() || !s.Empty() {
		return nil, false
	}
	return resp, true
}

// certificateStatusBody returns the CertificateStatus body for a staple,
// or nil if it is too long for its vec24 (and then none is sent).
func certificateStatusBody(staple []byte) []byte {
	b := cryptobyte.NewBuilder(make([]byte, 0, 4+len(staple)))
	addCertificateStatus(b, staple)
	body, err := b.Bytes()
	if err != nil {
		return nil
	}
	return body
}

// certificateStatusMsg is TLCP's CertificateStatus (RFC 6066 §8, as
// Tongsuo sends it). unmarshal checks only the handshake header and keeps
// the body, for the handshake to answer a malformed one with
// bad_certificate_status_response.
type certificateStatusMsg struct {
	original []byte
	body     []byte
}

func (m *certificateStatusMsg) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeCertificateStatus, func(b *cryptobyte.Builder) { b.AddBytes(m.body) })
}

func (m *certificateStatusMsg) unmarshal(data []byte) bool {
	*m = certificateStatusMsg{original: data}
	s, ok := readBody(data, typeCertificateStatus)
	m.body = s
	return ok
}

// takeStaple records the server's CertificateStatus body as the
// connection's OCSP response, or fails if it is malformed.
func (c *Conn) takeStaple(body []byte, where string) error {
	resp, ok := parseCertificateStatus(body)
	if !ok {
		return errorf(alertBadCertificateStatusResponse, "tlcp: the server's CertificateStatus %s is malformed (RFC 6066 §8)", where)
	}
	c.ocspResponse = resp
	return nil
}

// checkOCSPStaple enforces Config.RequireOCSPStaple after a full
// handshake's server certificate: the staple must be a good OCSP response
// for the server's (signing) certificate from its issuer: the next
// certificate of the verified chain or, if the chain was not verified
// (InsecureSkipVerify, with the application verifying), the issuer among
// the certificates the server sent or in RootCAs.
func (c *Conn) checkOCSPStaple() error {
	cfg := c.config
	if !cfg.RequireOCSPStaple {
		return nil
	}
	if len(c.ocspResponse) == 0 {
		return errorf(alertBadCertificateStatusResponse, "tlcp: the server stapled no OCSP response, and Config.RequireOCSPStaple is set")
	}
	leaf := c.peerSignCert
	candidates := c.peerCertificates
	if c.verifiedChains == nil && cfg.RootCAs != nil {
		candidates = append(slices.Clip(candidates), cfg.RootCAs.Certificates()...)
	}
	issuer := stapleIssuer(leaf, c.verifiedChains, candidates)
	if issuer == nil {
		return errorf(alertBadCertificateStatusResponse, "tlcp: the issuer of the server's certificate is unknown, so its OCSP staple cannot be checked")
	}
	if _, err := ocsp.Verify(c.ocspResponse, leaf, issuer, ocsp.VerifyOptions{
		CurrentTime:  cfg.time(),
		MaxClockSkew: stapleClockSkew,
		RequireGood:  true,
	}); err != nil {
		return errorf(alertBadCertificateStatusResponse, "tlcp: the server's OCSP staple: %w", err)
	}
	return nil
}

// stapleIssuer finds the issuer of leaf.
func stapleIssuer(leaf *smx509.Certificate, chains [][]*smx509.Certificate, sent []*smx509.Certificate) *smx509.Certificate {
	for _, chain := range chains {
		if len(chain) > 1 && bytes.Equal(chain[0].Raw, leaf.Raw) {
			return chain[1]
		}
	}
	for _, cand := range sent {
		if cand != leaf && bytes.Equal(cand.RawSubject, leaf.RawIssuer) && leaf.CheckSignatureFrom(cand) == nil {
			return cand
		}
	}
	return nil
}

// ocspRequested reports whether a client's hello asks for a staple.
func (cfg *Config) ocspRequested() bool { return cfg.RequestOCSPStaple || cfg.RequireOCSPStaple }

// stapleTLCP prepares a TLCP server's answer to status_request in the
// ServerHello, before it is sent: the staple in the extension
// (TLCPStapleInServerHello), or an empty extension and the body of the
// CertificateStatus to send after Certificate returned. A resumed
// handshake, which sends no Certificate, does not come here.
func (hs *serverHandshakeState) stapleTLCP() []byte {
	staple := hs.pair.Sign.OCSPStaple
	if !hs.clientHello.ocspStapling || len(staple) == 0 {
		return nil
	}
	body := certificateStatusBody(staple)
	if body == nil {
		return nil
	}
	hs.hello.ocspStapling = true
	if hs.c.config.TLCPStapleInServerHello {
		hs.hello.ocspStatus = body
		return nil
	}
	return body
}

// readCertificateStatus takes msg, the message after a TLCP server's
// Certificate, as its CertificateStatus if the server announced one with
// an empty status_request, and returns the message after it. The message
// is optional (RFC 6066 §8: a server may have no response to give).
func (hs *clientHandshakeState) readCertificateStatus(msg handshakeMessage) (handshakeMessage, error) {
	cs, ok := msg.(*certificateStatusMsg)
	if !ok {
		return msg, nil
	}
	c, sh := hs.c, hs.serverHello
	if !sh.ocspStapling || len(sh.ocspStatus) > 0 {
		return nil, unexpectedMessageError("ServerKeyExchange", msg)
	}
	if err := c.takeStaple(cs.body, "message"); err != nil {
		return nil, err
	}
	return c.readHandshake(hs.transcript)
}
