// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

// Tests written for the mutants of internal/mutation that survived the
// existing tests: each fails if its check is removed.

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// TestWrongMACEmptyPassword: with the empty password, a MAC that matches
// neither form of it (a two-byte NUL BMPString, or no bytes at all) is
// refused (mutant pkcs12-mac-empty-password). TestWrongMAC uses a
// non-empty password, which never reaches the second form.
func TestWrongMACEmptyPassword(t *testing.T) {
	p := newTestPKI(t)
	pfx, err := SM.Encode(p.signKey, p.signCert, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(pfx, ""); err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(pfx, []byte{0x04, 0x20}) // the SM3 MAC digest, as in TestWrongMAC
	bad := bytes.Clone(pfx)
	bad[i+2+31] ^= 1
	if _, err := Parse(bad, ""); !errors.Is(err, ErrIncorrectPassword) {
		t.Errorf("corrupt MAC under the empty password: %v", err)
	}
}

// TestCFCAKeyNotMatchingCertificate: Parse refuses a CFCA file whose
// (correctly decrypted) key is not its certificate's (mutant
// pkcs12-cfca-key-match); the file has no MAC, so this is what ties the
// two together. TestKeyNotMatchingCertificate goes through Decode, which
// checks the pair again, so it passes with the check removed.
func TestCFCAKeyNotMatchingCertificate(t *testing.T) {
	p := newTestPKI(t)
	cf, err := EncodeCFCA(p.signKey, p.signCert, password)
	if err != nil {
		t.Fatal(err)
	}
	// The encrypted key, from SEQUENCE { 1, SEQUENCE { oid, oid, OCTET
	// STRING }, ... }.
	s := cryptobyte.String(cf)
	var seq, keyPart cryptobyte.String
	var version int
	var encrypted []byte
	if !s.ReadASN1(&seq, cbasn1.SEQUENCE) || !seq.ReadASN1Integer(&version) || !seq.ReadASN1(&keyPart, cbasn1.SEQUENCE) ||
		!keyPart.SkipASN1(cbasn1.OBJECT_IDENTIFIER) || !keyPart.SkipASN1(cbasn1.OBJECT_IDENTIFIER) ||
		!keyPart.ReadASN1Bytes(&encrypted, cbasn1.OCTET_STRING) {
		t.Fatal("cannot read EncodeCFCA's output")
	}
	mismatched, err := marshalCFCA(encrypted, p.encCert.Raw) // not the key's certificate
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(mismatched, password)
	if err == nil || !strings.Contains(err.Error(), "does not match its certificate") {
		t.Fatalf("CFCA file whose key is not its certificate's: %v", err)
	}
}
