// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp_test

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/ocsp"
)

var (
	exampleStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	exampleNow   = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
)

// issue makes a certificate for a new SM2 key, signed by parent (itself
// when parent is nil).
func issue(tmpl, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey) {
	key, _ := sm2.GenerateKey(rand.Reader)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	tmpl.NotBefore, tmpl.NotAfter = exampleStart, exampleStart.AddDate(10, 0, 0)
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		panic(err)
	}
	cert, _ := smx509.ParseCertificate(der)
	return cert, key
}

// A CA delegates OCSP to a responder certificate; a client asks about a
// leaf with a nonce, the responder answers, and the client verifies the
// answer for the leaf, its issuer and the time.
func Example() {
	ca, caKey := issue(&smx509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Example SM2 CA"},
		KeyUsage: smx509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}, nil, nil)
	leaf, _ := issue(&smx509.Certificate{
		SerialNumber: big.NewInt(0x2a), Subject: pkix.Name{CommonName: "server"},
		KeyUsage: smx509.KeyUsageDigitalSignature,
	}, ca, caKey)
	responder, responderKey := issue(&smx509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "Example OCSP responder"},
		KeyUsage:    smx509.KeyUsageDigitalSignature,
		ExtKeyUsage: []smx509.ExtKeyUsage{smx509.ExtKeyUsageOCSPSigning},
	}, ca, caKey)

	// The client.
	nonce := make([]byte, 16)
	rand.Read(nonce)
	reqDER, _ := ocsp.CreateRequest(leaf, ca, &ocsp.RequestOptions{Hash: ocsp.SM3, Nonce: nonce})

	// The responder.
	req, err := ocsp.ParseRequest(reqDER)
	if err != nil || !req.IssuedBy(ca) {
		panic("not a request for this CA")
	}
	respDER, err := ocsp.CreateResponse(ca, responder, ocsp.Response{
		Status:       ocsp.Good,
		SerialNumber: req.SerialNumber,
		IssuerHash:   req.HashAlgorithm,
		Nonce:        req.Nonce,
		ThisUpdate:   exampleNow.Add(-time.Hour),
		NextUpdate:   exampleNow.Add(23 * time.Hour),
	}, responderKey)
	if err != nil {
		panic(err)
	}

	// The client again.
	resp, err := ocsp.Verify(respDER, leaf, ca, ocsp.VerifyOptions{CurrentTime: exampleNow, Nonce: nonce, RequireGood: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("serial %X: %s, signed by %s with %v\n", resp.SerialNumber, ocsp.StatusName(resp.Status), resp.Certificate.Subject.CommonName, resp.SignatureAlgorithm)

	// A day later the answer has expired.
	_, err = ocsp.Verify(respDER, leaf, ca, ocsp.VerifyOptions{CurrentTime: exampleNow.AddDate(0, 0, 1)})
	fmt.Println(err)
	// Output:
	// serial 2A: good, signed by Example OCSP responder with SM2-SM3
	// ocsp: response has expired: nextUpdate 2026-06-02T11:00:00Z is before 2026-06-02T12:00:00Z
}

// A TLS client checks a stapled response for the server's leaf and its
// issuer, requiring a good status: a revoked certificate is a
// *CertStatusError.
func ExampleVerify_staple() {
	ca, caKey := issue(&smx509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Example SM2 CA"},
		KeyUsage: smx509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}, nil, nil)
	leaf, _ := issue(&smx509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "server"},
		KeyUsage: smx509.KeyUsageDigitalSignature,
	}, ca, caKey)
	// The CA signs the response itself.
	staple, _ := ocsp.CreateResponse(ca, nil, ocsp.Response{
		Status: ocsp.Revoked, SerialNumber: leaf.SerialNumber,
		RevokedAt: exampleStart.AddDate(0, 3, 0), RevocationReason: ocsp.KeyCompromise,
		ThisUpdate: exampleNow.Add(-time.Hour), NextUpdate: exampleNow.Add(time.Hour),
	}, caKey)

	_, err := ocsp.Verify(staple, leaf, ca, ocsp.VerifyOptions{CurrentTime: exampleNow, RequireGood: true})
	var bad *ocsp.CertStatusError
	fmt.Println(errors.As(err, &bad), err)
	// Output: true ocsp: certificate serial 7 is revoked since 2026-04-01T00:00:00Z (keyCompromise)
}
