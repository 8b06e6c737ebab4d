// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
)

// katTime is inside the window of every recorded response (see
// testdata/README.md).
var katTime = time.Date(2026, 12, 2, 2, 30, 0, 0, time.UTC)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func testdataCert(t *testing.T, name string) *smx509.Certificate {
	t.Helper()
	c, err := smx509.ParseCertificatePEM(readTestdata(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// TestPeerResponses verifies the responses Tongsuo's and GmSSL's
// responders made (known answers), and that each is refused once expired.
func TestPeerResponses(t *testing.T) {
	ca := testdataCert(t, "ca.pem")
	responder := testdataCert(t, "ocsp.pem")
	ourReq, err := ParseRequest(readTestdata(t, "ours_sha1_nonce.req.der"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, leaf string
		status     int
		hash       Hash
		delegated  bool
		byKey      bool
		nonce      []byte
		expires    bool
	}{
		{"tongsuo_delegated_good.resp.der", "good.pem", Good, SHA1, true, false, ourReq.Nonce, true},
		{"tongsuo_delegated_revoked.resp.der", "revoked.pem", Revoked, SHA1, true, false, nil, true},
		{"tongsuo_delegated_sm3.resp.der", "good.pem", Good, SM3, true, false, nil, true},
		{"tongsuo_delegated_unknown.resp.der", "unlisted.pem", Unknown, SHA256, true, false, nil, true},
		{"tongsuo_ca_keyid_good.resp.der", "good.pem", Good, SHA1, false, true, nil, true},
		{"gmssl_delegated_good.resp.der", "good.pem", Good, SM3, true, false, nil, false},
		{"gmssl_ca_revoked.resp.der", "good.pem", Revoked, SM3, false, true, nil, false},
		{"gmssl_for_ours_unknown.resp.der", "revoked.pem", Unknown, SM3, true, false, nil, false},
	} {
		der := readTestdata(t, c.file)
		leaf := testdataCert(t, c.leaf)
		r, err := Verify(der, leaf, ca, VerifyOptions{CurrentTime: katTime, Nonce: c.nonce})
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if r.Status != c.status || r.IssuerHash != c.hash || (r.Certificate != nil) != c.delegated ||
			(r.ResponderKeyHash != nil) != c.byKey || r.SignatureAlgorithm != smx509.SM2WithSM3 {
			t.Errorf("%s: status %s, hash %v, carried responder %v, byKey %v, %v", c.file, StatusName(r.Status), r.IssuerHash, r.Certificate != nil, r.ResponderKeyHash != nil, r.SignatureAlgorithm)
		}
		if c.delegated && !r.Certificate.Equal(responder) {
			t.Errorf("%s: the carried certificate is not ocsp.pem", c.file)
		}
		if c.nonce != nil && !bytes.Equal(r.Nonce, c.nonce) {
			t.Errorf("%s: nonce %X, want %X", c.file, r.Nonce, c.nonce)
		}
		if c.status == Revoked && (r.RevocationReason != KeyCompromise || !r.RevokedAt.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))) {
			t.Errorf("%s: revoked %v for %s", c.file, r.RevokedAt, ReasonName(r.RevocationReason))
		}
		if _, err := Verify(der, leaf, ca, VerifyOptions{CurrentTime: katTime, Nonce: []byte("not the nonce")}); err == nil {
			t.Errorf("%s: accepted with another nonce", c.file)
		}
		if c.expires {
			_, err := Verify(der, leaf, ca, VerifyOptions{CurrentTime: katTime.AddDate(0, 0, 2)})
			if err == nil || !strings.Contains(err.Error(), "expired") {
				t.Errorf("%s: two days later: %v", c.file, err)
			}
		}
		// The wrong leaf: another serial.
		if _, err := Verify(der, testdataCert(t, "noeku.pem"), ca, VerifyOptions{CurrentTime: katTime}); err == nil {
			t.Errorf("%s: accepted for another certificate", c.file)
		}
	}

	// One response about two certificates: ParseResponseForCert and
	// Verify pick the one asked about; ParseResponse wants a single one.
	two := readTestdata(t, "tongsuo_delegated_two.resp.der")
	for leaf, want := range map[string]int{"good.pem": Good, "revoked.pem": Revoked} {
		r, err := Verify(two, testdataCert(t, leaf), ca, VerifyOptions{CurrentTime: katTime})
		if err != nil || r.Status != want {
			t.Errorf("tongsuo_delegated_two.resp.der for %s: %v %v", leaf, r, err)
		}
	}
	if _, err := ParseResponse(two, ca); err == nil || !strings.Contains(err.Error(), "holds 2 certificate statuses") {
		t.Errorf("ParseResponse of two statuses: %v", err)
	}

	// Tongsuo signs with a responder certificate lacking OCSPSigning if
	// asked to: the response must be refused.
	_, err = Verify(readTestdata(t, "tongsuo_noeku_good.resp.der"), testdataCert(t, "good.pem"), ca, VerifyOptions{CurrentTime: katTime})
	if err == nil || !strings.Contains(err.Error(), "lacks the id-kp-OCSPSigning") {
		t.Errorf("tongsuo_noeku_good.resp.der: %v", err)
	}
	// GmSSL echoes no nonce: ErrNonceMissing, after every other check.
	_, err = Verify(readTestdata(t, "gmssl_for_ours_unknown.resp.der"), testdataCert(t, "revoked.pem"), ca, VerifyOptions{CurrentTime: katTime, Nonce: []byte{1}})
	if !errors.Is(err, ErrNonceMissing) {
		t.Errorf("gmssl_for_ours_unknown.resp.der with a nonce: %v", err)
	}
}

// TestPeerRequests parses the requests Tongsuo's and GmSSL's clients made
// and ours that they answered.
func TestPeerRequests(t *testing.T) {
	ca := testdataCert(t, "ca.pem")
	for _, c := range []struct {
		file, leaf string
		hash       Hash
		nonce      bool
	}{
		{"tongsuo_sm3.req.der", "good.pem", SM3, true},
		{"gmssl_sm3.req.der", "good.pem", SM3, false},
		{"ours_sha1_nonce.req.der", "good.pem", SHA1, true},
		{"ours_revoked_sm3_nonce.req.der", "revoked.pem", SM3, true},
	} {
		der := readTestdata(t, c.file)
		r, err := ParseRequest(der)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		leaf := testdataCert(t, c.leaf)
		if r.HashAlgorithm != c.hash || (r.Nonce != nil) != c.nonce || !r.IsFor(ca, leaf.SerialNumber) {
			t.Errorf("%s: %v, nonce %X, for the leaf %v", c.file, r.HashAlgorithm, r.Nonce, r.IsFor(ca, leaf.SerialNumber))
		}
		// Ours re-marshal to the same bytes.
		if strings.HasPrefix(c.file, "ours_") {
			again, err := r.Marshal()
			if err != nil || !bytes.Equal(again, der) {
				t.Errorf("%s: marshals again to %x (%v)", c.file, again, err)
			}
		}
	}
}
