// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"bytes"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/internal/alloctest"
	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// TestRoundTrip asks and answers about a certificate for every key type,
// CertID hash, signer (issuer or delegated, byName or byKey) and status,
// and checks that Verify accepts the answer with every field intact.
func TestRoundTrip(t *testing.T) {
	nonce := []byte("0123456789abcdef")
	for _, kind := range []string{"sm2", "ecdsa", "rsa"} {
		p := pkiFor(t, kind)
		for _, h := range []Hash{SHA1, SHA256, SM3, SHA384, SHA512} {
			for _, delegated := range []bool{false, true} {
				for _, byKey := range []bool{false, true} {
					for _, status := range []int{Good, Revoked, Unknown} {
						name := kind + "/" + h.String() + "/" + StatusName(status)
						if delegated {
							name += "/delegated"
						}
						if byKey {
							name += "/byKey"
						}
						reqDER, err := CreateRequest(p.leaf, p.ca, &RequestOptions{Hash: h, Nonce: nonce})
						if err != nil {
							t.Fatalf("%s: CreateRequest: %v", name, err)
						}
						req, err := ParseRequest(reqDER)
						if err != nil {
							t.Fatalf("%s: ParseRequest: %v", name, err)
						}
						if req.HashAlgorithm != h || !bytes.Equal(req.Nonce, nonce) || !req.IsFor(p.ca, p.leaf.SerialNumber) || req.IsFor(p.other, p.leaf.SerialNumber) {
							t.Fatalf("%s: request parsed as %+v", name, req)
						}
						tmpl := goodTemplate(p)
						tmpl.Status, tmpl.IssuerHash, tmpl.Nonce = status, req.HashAlgorithm, req.Nonce
						if status == Revoked {
							tmpl.RevokedAt, tmpl.RevocationReason = testTime.AddDate(0, 0, -3), KeyCompromise
						}
						if byKey {
							tmpl.ResponderKeyHash = []byte{1}
						}
						signer, key := p.ca, p.caKey
						if delegated {
							signer, key = p.responder, p.responderKey
						}
						der := mustCreate(t, p.ca, signer, tmpl, key)
						r, err := Verify(der, p.leaf, p.ca, VerifyOptions{CurrentTime: testTime, Nonce: nonce})
						if err != nil {
							t.Fatalf("%s: Verify: %v", name, err)
						}
						if r.Status != status || r.SerialNumber.Cmp(p.leaf.SerialNumber) != 0 || r.IssuerHash != h ||
							!r.ThisUpdate.Equal(tmpl.ThisUpdate) || !r.NextUpdate.Equal(tmpl.NextUpdate) || !r.ProducedAt.Equal(tmpl.ProducedAt) ||
							!bytes.Equal(r.Nonce, nonce) || !bytes.Equal(r.Raw, der) {
							t.Fatalf("%s: response parsed as %+v", name, r)
						}
						if status == Revoked && (!r.RevokedAt.Equal(tmpl.RevokedAt) || r.RevocationReason != KeyCompromise) {
							t.Fatalf("%s: revocation parsed as %v %d", name, r.RevokedAt, r.RevocationReason)
						}
						if delegated != (r.Certificate != nil) || byKey != (r.ResponderKeyHash != nil) {
							t.Fatalf("%s: responder parsed as cert %v, key hash %x", name, r.Certificate != nil, r.ResponderKeyHash)
						}
						if delegated && !r.Certificate.Equal(p.responder) {
							t.Fatalf("%s: carried certificate is not the responder's", name)
						}
						if _, err := ParseResponse(der, p.ca); err != nil {
							t.Fatalf("%s: ParseResponse with the issuer: %v", name, err)
						}
						if _, err := ParseResponseForCert(der, p.leaf, p.ca); err != nil {
							t.Fatalf("%s: ParseResponseForCert: %v", name, err)
						}
					}
				}
			}
		}
	}
}

// TestSM2SignatureIsSM3WithDefaultID checks that an SM2 responder signs
// with SM2-with-SM3 under the default signer ID, which is what GmSSL and
// Tongsuo check by default.
func TestSM2SignatureIsSM3WithDefaultID(t *testing.T) {
	p := pkiFor(t, "sm2")
	r, err := ParseResponse(mustCreate(t, p.ca, nil, goodTemplate(p), p.caKey), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.SignatureAlgorithm != smx509.SM2WithSM3 {
		t.Fatalf("signature algorithm %v", r.SignatureAlgorithm)
	}
	if !sm2VerifyDefaultID(p.ca, r.TBSResponseData, r.Signature) {
		t.Fatal("signature does not verify with the default ID")
	}
}

// TestNegative makes one response wrong in each way a relying party must
// notice and checks that Verify rejects it, saying what failed.
func TestNegative(t *testing.T) {
	for _, kind := range []string{"sm2", "ecdsa"} {
		p := pkiFor(t, kind)
		nonce := []byte("nonce-0123456789")
		good := goodTemplate(p)
		with := func(f func(*Response)) Response { r := good; f(&r); return r }
		flip := func(der []byte) []byte {
			out := bytes.Clone(der)
			// The signature is the BIT STRING before any certificates;
			// without certificates it ends the response.
			out[len(out)-5] ^= 1
			return out
		}
		cases := []struct {
			name    string
			der     []byte
			opts    VerifyOptions
			want    string
			wantErr error
		}{
			{name: "expired", der: mustCreate(t, p.ca, nil, with(func(r *Response) {
				r.ThisUpdate, r.NextUpdate = testTime.Add(-48*time.Hour), testTime.Add(-24*time.Hour)
			}), p.caKey), want: "response has expired: nextUpdate"},
			{name: "not yet valid", der: mustCreate(t, p.ca, nil, with(func(r *Response) {
				r.ThisUpdate, r.NextUpdate = testTime.Add(time.Hour), testTime.Add(2*time.Hour)
			}), p.caKey), want: "response is not yet valid: thisUpdate"},
			{name: "wrong responder", der: mustCreate(t, p.ca, p.otherResponder, good, p.otherResponderKey),
				want: "is not signed by the issuer"},
			{name: "other CA of the same name", der: mustCreate(t, p.ca, p.other, good, p.otherKey),
				want: "is not signed by the issuer"},
			{name: "other CA of the same name, not carried", der: mustCreate(t, p.ca, nil, good, p.otherKey),
				want: "bad signature on the response by the issuer"},
			{name: "responder without OCSPSigning", der: mustCreate(t, p.ca, p.noEKU, good, p.responderKey),
				want: "lacks the id-kp-OCSPSigning extended key usage"},
			{name: "expired responder", der: mustCreate(t, p.ca, p.expiredResponder, good, p.responderKey),
				want: "is not valid at"},
			{name: "bad signature", der: flip(mustCreate(t, p.ca, nil, good, p.caKey)),
				want: "bad signature on the response by the issuer"},
			{name: "bad delegated signature", der: mustCreate(t, p.ca, p.responder, good, p.otherResponderKey),
				want: "bad signature on the response by the delegated responder"},
			{name: "unknown status", der: mustCreate(t, p.ca, nil, with(func(r *Response) { r.Status = Unknown }), p.caKey),
				opts: VerifyOptions{RequireGood: true}, want: "does not know certificate serial"},
			{name: "revoked", der: mustCreate(t, p.ca, nil, with(func(r *Response) {
				r.Status, r.RevokedAt, r.RevocationReason = Revoked, testTime.AddDate(0, -1, 0), Superseded
			}), p.caKey), opts: VerifyOptions{RequireGood: true}, want: "is revoked since 2030-05-01T12:00:00Z (superseded)"},
			{name: "nonce mismatch", der: mustCreate(t, p.ca, nil, with(func(r *Response) { r.Nonce = []byte("another nonce") }), p.caKey),
				opts: VerifyOptions{Nonce: nonce}, want: "nonce mismatch"},
			{name: "nonce missing", der: mustCreate(t, p.ca, nil, good, p.caKey),
				opts: VerifyOptions{Nonce: nonce}, wantErr: ErrNonceMissing},
			{name: "CertID of another issuer", der: mustCreate(t, p.other, p.ca, good, p.caKey),
				want: "its issuer key hash (SHA-1) does not match the issuer's key"},
			{name: "CertID with an unsupported hash", der: withCertIDHash(t, p, asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 5}),
				want: "hashed with 1.2.840.113549.2.5, which this package does not implement"},
			{name: "CertID with a hash of the wrong size", der: withCertIDHash(t, p, SHA256.oid()),
				want: "its issuer name hash (SHA-256) does not match the issuer's name"},
			{name: "other serial", der: mustCreate(t, p.ca, nil, with(func(r *Response) { r.SerialNumber = big.NewInt(7) }), p.caKey),
				want: "holds no status for certificate serial"},
			{name: "truncated", der: mustCreate(t, p.ca, nil, good, p.caKey)[:200], want: "malformed response"},
			{name: "error status", der: ErrorResponse(TryLater), want: "responder answered with error status tryLater"},
		}
		for _, c := range cases {
			if c.opts.CurrentTime.IsZero() {
				c.opts.CurrentTime = testTime
			}
			_, err := Verify(c.der, p.leaf, p.ca, c.opts)
			switch {
			case err == nil:
				t.Errorf("%s/%s: Verify accepted the response", kind, c.name)
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Errorf("%s/%s: got %v, want %v", kind, c.name, err, c.wantErr)
			case c.wantErr == nil && !strings.Contains(err.Error(), c.want):
				t.Errorf("%s/%s: got %q, want it to contain %q", kind, c.name, err, c.want)
			}
		}
	}
}

// withCertIDHash makes a response whose CertID names another hash OID but
// keeps the SHA-1 hashes, as a confused or hostile responder would; the
// issuer signs it, so only the CertID is wrong.
func withCertIDHash(t *testing.T, p *testPKI, oid asn1.ObjectIdentifier) []byte {
	r, err := ParseResponse(mustCreate(t, p.ca, nil, goodTemplate(p), p.caKey), nil)
	if err != nil {
		t.Fatal(err)
	}
	sha1OID, _ := asn1.Marshal(SHA1.oid())
	repl, _ := asn1.Marshal(oid)
	return signTBS(t, replaceElement(t, r.TBSResponseData, sha1OID, repl), p)
}

// replaceElement returns der with every element equal to old replaced by
// repl, lengths of the enclosing constructed elements rewritten.
func replaceElement(t *testing.T, der, old, repl []byte) []byte {
	if bytes.Equal(der, old) {
		return repl
	}
	s := cryptobyte.String(der)
	var content cryptobyte.String
	var tag cbasn1.Tag
	if !s.ReadAnyASN1(&content, &tag) || !s.Empty() {
		t.Fatalf("replaceElement: not one element: %x", der)
	}
	if tag&0x20 == 0 {
		return der
	}
	var b cryptobyte.Builder
	b.AddASN1(tag, func(b *cryptobyte.Builder) {
		for !content.Empty() {
			var child cryptobyte.String
			if !content.ReadAnyASN1Element(&child, &tag) {
				t.Fatal("replaceElement: malformed child")
			}
			b.AddBytes(replaceElement(t, child, old, repl))
		}
	})
	return b.BytesOrPanic()
}

func signTBS(t *testing.T, tbs []byte, p *testPKI) []byte {
	_, algID, sig, err := smx509.SignTBS(rand.Reader, p.caKey, 0, tbs)
	if err != nil {
		t.Fatal(err)
	}
	return wrapBasic(tbs, algID, sig)
}

func wrapBasic(tbs, algID, sig []byte) []byte {
	var basic cryptobyte.Builder
	basic.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(tbs)
		b.AddBytes(algID)
		b.AddASN1BitString(sig)
	})
	var out cryptobyte.Builder
	out.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Enum(0)
		b.AddASN1(tagExplicit0, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(oidBasicResponse)
				b.AddASN1OctetString(basic.BytesOrPanic())
			})
		})
	})
	return out.BytesOrPanic()
}

// TestTruncated checks that no proper prefix of a request or a response
// (with a carried certificate) parses, and none panics.
func TestTruncated(t *testing.T) {
	p := pkiFor(t, "sm2")
	tmpl := goodTemplate(p)
	tmpl.Nonce = []byte("nonce")
	resp := mustCreate(t, p.ca, p.responder, tmpl, p.responderKey)
	req, err := CreateRequest(p.leaf, p.ca, &RequestOptions{Nonce: []byte("nonce")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(resp) {
		if _, err := ParseResponse(resp[:i], nil); err == nil {
			t.Fatalf("a response truncated to %d of %d bytes parsed", i, len(resp))
		}
	}
	for i := range len(req) {
		if _, err := ParseRequest(req[:i]); err == nil {
			t.Fatalf("a request truncated to %d of %d bytes parsed", i, len(req))
		}
	}
	if _, err := ParseResponse(append(bytes.Clone(resp), 0), nil); err == nil {
		t.Fatal("a response with a trailing byte parsed")
	}
}

// TestNilSerials checks that certificates and requests built by hand
// without serial numbers give errors, not panics.
func TestNilSerials(t *testing.T) {
	p := pkiFor(t, "sm2")
	der := mustCreate(t, p.ca, nil, goodTemplate(p), p.caKey)
	noSerial := &smx509.Certificate{}
	if _, err := ParseResponseForCert(der, noSerial, p.ca); err == nil {
		t.Error("ParseResponseForCert accepted a certificate without serial")
	}
	if _, err := Verify(der, noSerial, p.ca, VerifyOptions{CurrentTime: testTime}); err == nil {
		t.Error("Verify accepted a certificate without serial")
	}
	if _, err := CreateRequest(noSerial, p.ca, nil); err == nil {
		t.Error("CreateRequest accepted a certificate without serial")
	}
	r := &Request{HashAlgorithm: SHA1}
	if r.IsFor(p.ca, big.NewInt(1)) || r.IssuedBy(p.ca) {
		t.Error("a request without serial matched")
	}
	if _, err := r.Marshal(); err == nil {
		t.Error("a request without serial marshalled")
	}
}

// TestCheckSignatureFromIgnoresTime checks the x/crypto/ocsp-shaped
// entry points: ParseResponse with an issuer checks the signer but not
// the window.
func TestCheckSignatureFromIgnoresTime(t *testing.T) {
	p := pkiFor(t, "sm2")
	tmpl := goodTemplate(p)
	tmpl.ThisUpdate, tmpl.NextUpdate = testTime.AddDate(-5, 0, 0), testTime.AddDate(-4, 0, 0)
	der := mustCreate(t, p.ca, p.responder, tmpl, p.responderKey)
	if _, err := ParseResponse(der, p.ca); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseResponse(der, p.other); err == nil {
		t.Fatal("ParseResponse accepted a response delegated by another CA")
	}
}

// TestTrustedResponder checks a locally trusted responder (-VAfile) that
// the issuer did not delegate.
func TestTrustedResponder(t *testing.T) {
	p := pkiFor(t, "sm2")
	der := mustCreate(t, p.ca, p.otherResponder, goodTemplate(p), p.otherResponderKey)
	if _, err := Verify(der, p.leaf, p.ca, VerifyOptions{CurrentTime: testTime}); err == nil {
		t.Fatal("an undelegated responder was accepted")
	}
	if _, err := Verify(der, p.leaf, p.ca, VerifyOptions{CurrentTime: testTime, TrustedResponders: []*smx509.Certificate{p.otherResponder}}); err != nil {
		t.Fatal(err)
	}
	// Without the carried certificate, the client cannot know the signer.
	r, err := ParseResponse(der, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, algID, sig, err := smx509.SignTBS(rand.Reader, p.otherResponderKey, 0, r.TBSResponseData)
	if err != nil {
		t.Fatal(err)
	}
	bare := wrapBasic(r.TBSResponseData, algID, sig)
	_, err = Verify(bare, p.leaf, p.ca, VerifyOptions{CurrentTime: testTime})
	if err == nil || !strings.Contains(err.Error(), `responder "CN=sm2 OCSP responder" that is neither the issuer`) {
		t.Fatalf("got %v", err)
	}
	if _, err := Verify(bare, p.leaf, p.ca, VerifyOptions{CurrentTime: testTime, TrustedResponders: []*smx509.Certificate{p.otherResponder}}); err != nil {
		t.Fatal(err)
	}
}

// TestClockSkew checks the window's edges and the skew allowance.
func TestClockSkew(t *testing.T) {
	p := pkiFor(t, "sm2")
	der := mustCreate(t, p.ca, nil, goodTemplate(p), p.caKey)
	for _, c := range []struct {
		at   time.Time
		skew time.Duration
		ok   bool
	}{
		{testTime.Add(-time.Hour), 0, true},
		{testTime.Add(time.Hour), 0, true},
		{testTime.Add(-time.Hour - time.Second), 0, false},
		{testTime.Add(time.Hour + time.Second), 0, false},
		{testTime.Add(-time.Hour - time.Minute), 5 * time.Minute, true},
		{testTime.Add(time.Hour + time.Minute), 5 * time.Minute, true},
	} {
		_, err := Verify(der, p.leaf, p.ca, VerifyOptions{CurrentTime: c.at, MaxClockSkew: c.skew})
		if (err == nil) != c.ok {
			t.Errorf("at %v with skew %v: %v", c.at, c.skew, err)
		}
	}
}

// TestExtensions checks extra response extensions, and that an unknown
// critical one is refused.
func TestExtensions(t *testing.T) {
	p := pkiFor(t, "sm2")
	tmpl := goodTemplate(p)
	ext := pkix.Extension{Id: asn1.ObjectIdentifier{1, 2, 3, 4}, Value: []byte{5, 0}}
	tmpl.ExtraExtensions = []pkix.Extension{ext}
	r, err := ParseResponse(mustCreate(t, p.ca, nil, tmpl, p.caKey), p.ca)
	if err != nil || len(r.Extensions) != 1 || !r.Extensions[0].Id.Equal(ext.Id) {
		t.Fatalf("%v %+v", err, r)
	}
	ext.Critical = true
	tmpl.ExtraExtensions = []pkix.Extension{ext}
	if _, err := ParseResponse(mustCreate(t, p.ca, nil, tmpl, p.caKey), p.ca); err == nil || !strings.Contains(err.Error(), "unsupported critical extension 1.2.3.4") {
		t.Fatalf("got %v", err)
	}
}

// TestCreateErrors checks that bad templates are refused with a reason.
func TestCreateErrors(t *testing.T) {
	p := pkiFor(t, "sm2")
	for _, c := range []struct {
		name string
		f    func(*Response)
		want string
	}{
		{"revoked without time", func(r *Response) { r.Status = Revoked }, "needs RevokedAt"},
		{"bad status", func(r *Response) { r.Status = 9 }, "neither Good"},
		{"no thisUpdate", func(r *Response) { r.ThisUpdate = time.Time{} }, "ThisUpdate is not set"},
		{"window reversed", func(r *Response) { r.NextUpdate = r.ThisUpdate.Add(-time.Second) }, "before"},
		{"no serial", func(r *Response) { r.SerialNumber = nil }, "no serial number"},
	} {
		tmpl := goodTemplate(p)
		c.f(&tmpl)
		if _, err := CreateResponse(p.ca, nil, tmpl, p.caKey); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestAllocationBound bounds what parsing allocates by the input's size,
// for a response carrying many certificates and a request with many
// extensions.
func TestAllocationBound(t *testing.T) {
	p := pkiFor(t, "sm2")
	resp := mustCreate(t, p.ca, p.responder, goodTemplate(p), p.responderKey)
	for _, n := range []int{1, 64} {
		// n copies of the responder's certificate.
		r, _ := ParseResponse(resp, nil)
		var certs cryptobyte.Builder
		for range n {
			certs.AddBytes(p.responder.Raw)
		}
		var basic cryptobyte.Builder
		basic.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddBytes(r.TBSResponseData)
			var ai cryptobyte.Builder
			ai.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 501})
			})
			b.AddBytes(ai.BytesOrPanic())
			b.AddASN1BitString(r.Signature)
			b.AddASN1(tagExplicit0, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddBytes(certs.BytesOrPanic()) })
			})
		})
		var out cryptobyte.Builder
		out.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1Enum(0)
			b.AddASN1(tagExplicit0, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(oidBasicResponse)
					b.AddASN1OctetString(basic.BytesOrPanic())
				})
			})
		})
		der := out.BytesOrPanic()
		if _, err := ParseResponse(der, p.ca); err != nil {
			t.Fatal(err)
		}
		got := alloctest.Bytes(func() { _, _ = ParseResponse(der, nil) })
		if bound := uint64(16*len(der) + 8192); got > bound {
			t.Errorf("parsing a %d-byte response with %d certificates allocated %d bytes, more than %d", len(der), n, got, bound)
		}
	}
	var exts []pkix.Extension
	for i := range 500 {
		exts = append(exts, pkix.Extension{Id: asn1.ObjectIdentifier{1, 2, 3, i + 1}, Value: []byte{5, 0}})
	}
	id, _ := newCertID(SHA1, p.ca, p.leaf.SerialNumber)
	req := &Request{HashAlgorithm: SHA1, IssuerNameHash: id.nameHash, IssuerKeyHash: id.keyHash, SerialNumber: p.leaf.SerialNumber, Extensions: exts}
	der, err := req.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseRequest(der); err != nil {
		t.Fatal(err)
	}
	got := alloctest.Bytes(func() { _, _ = ParseRequest(der) })
	if bound := uint64(32*len(der) + 4096); got > bound {
		t.Errorf("parsing a %d-byte request allocated %d bytes, more than %d", len(der), got, bound)
	}
}
