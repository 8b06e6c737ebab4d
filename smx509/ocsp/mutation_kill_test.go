// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

// Tests written for the mutants of internal/mutation that survived the
// existing tests: each fails if its check is removed.

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/smx509"
)

// TestTrustedResponderBadSignature: a response whose ResponderID names a
// trusted responder but which another key signed is refused (mutant
// ocsp-trusted-signature). TestTrustedResponder only gives trusted
// responders good signatures.
func TestTrustedResponderBadSignature(t *testing.T) {
	p := pkiFor(t, "sm2")
	der := mustCreate(t, p.ca, p.otherResponder, goodTemplate(p), p.otherResponderKey)
	r, err := ParseResponse(der, nil)
	if err != nil {
		t.Fatal(err)
	}
	trusted := VerifyOptions{CurrentTime: testTime, TrustedResponders: []*smx509.Certificate{p.otherResponder}}
	// The same TBS, signed by its responder's key: accepted.
	_, algID, sig, err := smx509.SignTBS(rand.Reader, p.otherResponderKey, 0, r.TBSResponseData)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(wrapBasic(r.TBSResponseData, algID, sig), p.leaf, p.ca, trusted); err != nil {
		t.Fatal(err)
	}
	// Signed by a key of nobody's: refused.
	_, algID, sig, err = smx509.SignTBS(rand.Reader, newKey(t, "sm2"), 0, r.TBSResponseData)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Verify(wrapBasic(r.TBSResponseData, algID, sig), p.leaf, p.ca, trusted)
	if err == nil || !strings.Contains(err.Error(), "bad signature on the response by the trusted responder") {
		t.Fatalf("a forged signature under a trusted responder's name: %v", err)
	}
}
