// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
)

// TestUnverifiedSessionNotResumedWhenVerifying: a session made with
// InsecureSkipVerify, in a ClientSessionCache shared with a Config that
// verifies, must not let that Config skip verification by resuming it, as
// crypto/tls guards too. Nor is a session resumed past the server
// certificate's expiry.
func TestUnverifiedSessionNotResumedWhenVerifying(t *testing.T) {
	p := getPKI(t)
	cache := NewLRUClientSessionCache(4)
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{p.serverOtherCA} // not under RootCAs

	insecure := testClientConfig(t)
	insecure.InsecureSkipVerify = true
	insecure.ClientSessionCache = cache
	if _, _, cerr, serr := handshakePair(t, insecure, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if _, ok := cache.Get("tlcp.test"); !ok {
		t.Fatal("session not cached")
	}
	// The insecure Config itself may resume it.
	if c, _, cerr, serr := handshakePair(t, insecure, scfg); cerr != nil || serr != nil || !c.ConnectionState().DidResume {
		t.Fatal("insecure client did not resume", cerr, serr)
	}

	verifying := testClientConfig(t)
	verifying.ClientSessionCache = cache
	client, _, cerr, _ := handshakePair(t, verifying, scfg)
	if cerr == nil {
		t.Fatalf("verifying client accepted an unverifiable server (resumed: %v)", client.ConnectionState().DidResume)
	}
	wantAlert(t, cerr, alertUnknownCA)
}

func TestExpiredSessionCertificateNotResumed(t *testing.T) {
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	// Within the session lifetime, but past the certificate's NotAfter.
	notAfter := getPKI(t).server.Sign.Leaf.NotAfter
	late := ccfg.Clone()
	late.SessionLifetime = 365 * 24 * time.Hour
	late.Time = func() time.Time { return notAfter.Add(time.Minute) }
	client, _, cerr, _ := handshakePair(t, late, scfg)
	if cerr == nil || client.ConnectionState().DidResume {
		t.Fatalf("client resumed a session whose server certificate has expired (err %v)", cerr)
	}
	wantAlert(t, cerr, alertCertificateExpired)
}

// TestServerResumptionRespectsVerification: a server Config that verifies
// client certificates does not resume a session, from the cache it shares
// with a Clone, whose client certificate was never verified, nor one whose
// client certificate has expired since.
func TestServerResumptionRespectsVerification(t *testing.T) {
	p := getPKI(t)
	other := makePair(t, "client2.test", smx509.ExtKeyUsageClientAuth, p.ca2, p.ca2Key)
	lax := testServerConfig(t)
	lax.ClientAuth = RequireAnyClientCert
	ccfg := testClientConfig(t)
	ccfg.Certificates = []CertificatePair{other}
	ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
	if _, _, cerr, serr := handshakePair(t, ccfg, lax); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if c, _, cerr, serr := handshakePair(t, ccfg, lax); cerr != nil || serr != nil || !c.ConnectionState().DidResume {
		t.Fatal("no resumption under the lax policy", cerr, serr)
	}

	strict := lax.Clone()
	strict.ClientAuth = RequireAndVerifyClientCert
	_, server, _, serr := handshakePair(t, ccfg, strict)
	if serr == nil {
		t.Fatalf("strict server accepted an unverified client (resumed: %v)", server.ConnectionState().DidResume)
	}
	wantAlert(t, serr, alertUnknownCA)

	// A fresh session, then the client certificate expires.
	ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
	if _, _, cerr, serr := handshakePair(t, ccfg, lax); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	late := lax.Clone()
	late.SessionLifetime = 365 * 24 * time.Hour
	late.Time = func() time.Time { return other.Sign.Leaf.NotAfter.Add(time.Minute) }
	client, _, cerr, serr := handshakePair(t, ccfg, late)
	if cerr == nil && serr == nil && client.ConnectionState().DidResume {
		t.Fatal("server resumed a session whose client certificate has expired")
	}
}
