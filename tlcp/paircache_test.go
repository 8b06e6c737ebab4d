// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"errors"
	"testing"

	"github.com/shangmi-go/shangmi/smx509"
)

// TestPreparedPairReused: a server's pair is parsed, checked and its
// Certificate message built once; later handshakes reuse them, byte for
// byte the same slice.
func TestPreparedPairReused(t *testing.T) {
	p := getPKI(t)
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{makePair(t, "prepared.test", smx509.ExtKeyUsageServerAuth, p.ca, p.caKey)}
	ccfg := testClientConfig(t)
	ccfg.ServerName = "prepared.test"
	var msgs [][]byte
	for range 3 {
		if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		pp, err := preparePair(&scfg.Certificates[0])
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, pp.certMsg)
	}
	if &msgs[0][0] != &msgs[1][0] || &msgs[1][0] != &msgs[2][0] {
		t.Fatal("the Certificate message was built again")
	}
	want, _ := (&certificateMsg{certificates: [][]byte{
		scfg.Certificates[0].Sign.Certificate[0], scfg.Certificates[0].Enc.Certificate[0],
	}}).marshal()
	if !bytes.Equal(msgs[0], want) {
		t.Fatal("the cached Certificate message differs from a fresh one")
	}
}

// TestPreparedPairChangedInPlace: replacing a certificate or a key of a
// pair in place is noticed: the new certificate is sent, and a key that no
// longer matches fails the handshake with the configuration error.
func TestPreparedPairChangedInPlace(t *testing.T) {
	p := getPKI(t)
	pair := makePair(t, "inplace.test", smx509.ExtKeyUsageServerAuth, p.ca, p.caKey)
	other := makePair(t, "inplace.test", smx509.ExtKeyUsageServerAuth, p.ca, p.caKey)
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{pair}
	ccfg := testClientConfig(t)
	ccfg.ServerName = "inplace.test"
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	// A new certificate pair in the same slot.
	scfg.Certificates[0] = other
	client, _, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if !client.ConnectionState().PeerSignCertificate.Equal(other.Sign.Leaf) {
		t.Fatal("the client was sent the old certificate")
	}
	// Only the signing key swapped for one that does not match.
	scfg.Certificates[0].Sign.PrivateKey = pair.Sign.PrivateKey
	_, _, _, serr = handshakePair(t, ccfg, scfg)
	if !errors.Is(serr, errKeyMismatch) {
		t.Fatalf("server error %v, want the key mismatch", serr)
	}
}
