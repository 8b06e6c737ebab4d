// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"context"
	"net"
	"runtime"
	"sync"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// liveHeap returns the heap in use after a full collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// serveAll accepts on ln until it is closed, runs each handshake and
// closes the connection; wait returns once every connection has ended.
func serveAll(ln net.Listener) (wait func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.(*Conn).Handshake()
				c.Close()
			}()
		}
	}()
	return func() { ln.Close(); wg.Wait() }
}

// TestAnonymousCertificatesNotRetained is issue 10's first attack: a
// default server (ECDHE always sends CertificateRequest, so anyone may
// offer certificates) gets 600 anonymous connections, each offering two
// distinct 100 KiB certificates and hanging up. Nothing of it may stay in
// memory once the connections are gone.
func TestAnonymousCertificatesNotRetained(t *testing.T) {
	const conns, certSize = 600, 100 << 10
	p := getPKI(t)
	signDER, signPad := bigCertificate(t, "anonymous", smx509.KeyUsageDigitalSignature, certSize)
	encDER, encPad := bigCertificate(t, "anonymous", smx509.KeyUsageKeyEncipherment, certSize)

	ln, err := Listen("tcp", "127.0.0.1:0", &Config{Certificates: []CertificatePair{p.server}})
	if err != nil {
		t.Fatal(err)
	}
	wait := serveAll(ln)
	attack := func(i int) error {
		h, err := dialHostile(ln.Addr().String())
		if err != nil {
			return err
		}
		defer h.Close()
		if err := h.hello(ciphersuite.ECDHE_SM4_GCM_SM3); err != nil {
			return err
		}
		if err := h.readUntil(typeServerHelloDone); err != nil {
			return err
		}
		return h.send(&certificateMsg{certificates: [][]byte{stamp(signDER, signPad, i), stamp(encDER, encPad, i)}})
	}
	if err := attack(-1); err != nil { // warm up: first-use allocations
		t.Fatal(err)
	}
	before := liveHeap()
	var wg sync.WaitGroup
	work := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := attack(i); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for i := range conns {
		work <- i
	}
	close(work)
	wg.Wait()
	wait()
	after := liveHeap()
	retained := int64(after) - int64(before)
	t.Logf("retained after %d anonymous connections with two %d KiB certificates each: %.1f MiB",
		conns, certSize>>10, float64(retained)/(1<<20))
	if retained > 16<<20 {
		t.Fatalf("%.1f MiB retained, want < 16 MiB", float64(retained)/(1<<20))
	}
}

// TestCertCacheOwnsAndBounds: an entry owns a copy of exactly its DER, not
// the buffer the DER came in; the cache stays within its byte budget; a
// certificate too large for it is not kept.
func TestCertCacheOwnsAndBounds(t *testing.T) {
	p := getPKI(t)
	der := p.client.Sign.Certificate[0]
	msg := append(append(make([]byte, 0, 3*len(der)), der...), make([]byte, 2*len(der))...)
	cert, err := parsePeerCertificate(msg[:len(der)])
	if err != nil {
		t.Fatal(err)
	}
	if inside(cert.Raw, msg) || inside(cert.RawTBSCertificate, msg) || inside(cert.RawSubject, msg) {
		t.Fatal("a parsed peer certificate aliases the buffer it was parsed from")
	}

	c := newCertCache(64 << 10)
	big, _ := bigCertificate(t, "big", smx509.KeyUsageDigitalSignature, 5<<10)
	for i := range 100 {
		cert, err := parseOwn(stamp(big, len(big)-200, i)) // inside the signature: still parses
		if err != nil {
			t.Fatal(err)
		}
		c.add(cert)
		if _, used := c.stats(); used > 64<<10 {
			t.Fatalf("cache holds %d bytes, over its limit of %d", used, 64<<10)
		}
		if c.lookup(cert.Raw) != cert {
			t.Fatal("the newest entry is not found")
		}
	}
	n, _ := c.stats()
	if n == 0 || n > 64<<10/int(certCost(cert)) {
		t.Fatalf("%d entries", n)
	}
	huge, _ := bigCertificate(t, "huge", smx509.KeyUsageDigitalSignature, 20<<10)
	hc, _ := parseOwn(huge)
	c.add(hc)
	if c.lookup(huge) != nil {
		t.Fatal("a certificate over a quarter of the budget was cached")
	}
}

// inside reports whether b's first byte lies within buf's backing array.
func inside(b, buf []byte) bool {
	if len(b) == 0 {
		return false
	}
	buf = buf[:cap(buf)]
	for i := range buf {
		if &buf[i] == &b[0] {
			return true
		}
	}
	return false
}

// TestVerifiedCertificatesCached: after a handshake with verified client
// certificates, both of the client's certificates come from the cache on
// the server; with unverified ones, neither does.
func TestVerifiedCertificatesCached(t *testing.T) {
	for _, verify := range []bool{false, true} {
		p := getPKI(t)
		// A fresh pair, so that no earlier test put it in the cache.
		pair := makePair(t, "cached.test", smx509.ExtKeyUsageClientAuth, p.ca, p.caKey)
		ccfg := testClientConfig(t)
		ccfg.Certificates = []CertificatePair{pair}
		ccfg.CipherSuites = []uint16{ciphersuite.ECDHE_SM4_GCM_SM3}
		scfg := testServerConfig(t)
		if !verify {
			scfg.ClientCAs = nil
		}
		if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		for _, der := range [][]byte{pair.Sign.Certificate[0], pair.Enc.Certificate[0]} {
			if got := parsedCerts.lookup(der) != nil; got != verify {
				t.Fatalf("verified %v: certificate cached %v", verify, got)
			}
		}
	}
}

// TestSessionCacheBounded is issue 10's second attack: 200 anonymous ECDHE
// sessions, each client with two 100 KiB certificates nobody verifies. The
// server's session cache may keep only what resumption needs, within its
// byte bound, and the sessions must still resume.
func TestSessionCacheBounded(t *testing.T) {
	const sessions, certSize = 200, 100 << 10
	p := getPKI(t)
	pair := bigPair(t, "anonymous", certSize)
	scfg := &Config{Certificates: []CertificatePair{p.server}}
	ln, err := Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	wait := serveAll(ln)
	defer wait()
	dial := func(cache ClientSessionCache, pair CertificatePair) (*Conn, error) {
		return Dial("tcp", ln.Addr().String(), &Config{
			InsecureSkipVerify: true,
			Certificates:       []CertificatePair{pair},
			CipherSuites:       []uint16{ciphersuite.ECDHE_SM4_GCM_SM3},
			ClientSessionCache: cache,
		})
	}
	// The last session is resumed at the end: the most recent is kept
	// whatever the bound.
	before := liveHeap()
	var last ClientSessionCache
	var lastPair CertificatePair
	for i := range sessions {
		// Each client with certificates of its own, as distinct
		// anonymous clients would have.
		last, lastPair = NewLRUClientSessionCache(1), stampPair(t, pair, i)
		c, err := dial(last, lastPair)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	// Only the server's cache holds anything now; the clients' caches and
	// certificates are garbage except the last.
	retained := int64(liveHeap()) - int64(before)
	t.Logf("server retains %.1f MiB for %d sessions with two %d KiB client certificates each",
		float64(retained)/(1<<20), sessions, certSize>>10)
	if limit := int64(sessionCacheBytes(scfg)) + 2<<20; retained > limit {
		t.Fatalf("%.1f MiB retained, want at most %.1f MiB (the cache's bound and some slack)",
			float64(retained)/(1<<20), float64(limit)/(1<<20))
	}
	c, err := dial(last, lastPair)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Handshake(); err != nil || !c.ConnectionState().DidResume {
		t.Fatalf("the newest session did not resume (%v)", err)
	}
}

// sessionCount is the number of sessions in a server Config's cache.
func sessionCount(c *Config) int {
	n, _ := c.sessionCache().c.stats()
	return n
}

// sessionCacheBytes is the byte bound of a server Config's cache.
func sessionCacheBytes(c *Config) int64 { return c.sessionCache().c.maxBytes }

// TestSessionKeepsOnlyWhatResumptionNeeds: a session with unverified
// client certificates keeps the DER of the two leaves and nothing else the
// client sent; one with verified certificates keeps them parsed with their
// chains. Both resume with the same certificates in ConnectionState.
func TestSessionKeepsOnlyWhatResumptionNeeds(t *testing.T) {
	p := getPKI(t)
	for _, verify := range []bool{false, true} {
		scfg := testServerConfig(t)
		scfg.CipherSuites = []uint16{ciphersuite.ECDHE_SM4_GCM_SM3}
		if !verify {
			scfg.ClientCAs = nil
		}
		ccfg := testClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
		_, server, cerr, serr := handshakePair(t, ccfg, scfg)
		if cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		s, ok := scfg.sessionCache().get(context.Background(), server.serverSessionID)
		if !ok {
			t.Fatal("no session cached")
		}
		if verify {
			if s.peer.sign == nil || s.peer.enc == nil || len(s.peer.chains) == 0 || s.peer.signDER != nil || s.peer.encDER != nil {
				t.Fatalf("verified session keeps %+v", s.peer)
			}
		} else {
			if s.peer.sign != nil || s.peer.enc != nil || s.peer.chains != nil ||
				!bytes.Equal(s.peer.signDER, p.client.Sign.Certificate[0]) || !bytes.Equal(s.peer.encDER, p.client.Enc.Certificate[0]) {
				t.Fatalf("unverified session keeps %+v", s.peer)
			}
		}
		_, resumed, cerr, serr := handshakePair(t, ccfg, scfg)
		if cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		st := resumed.ConnectionState()
		if !st.DidResume || !st.PeerSignCertificate.Equal(p.client.Sign.Leaf) || !st.PeerEncCertificate.Equal(p.client.Enc.Leaf) ||
			len(st.PeerCertificates) != 2 || (len(st.VerifiedChains) > 0) != verify {
			t.Fatalf("verified %v: resumed state %+v", verify, st)
		}
	}
}

// TestIdleConnectionHoldsNoBatchState: once the handshake is done the
// buffers of its messages and flights are dropped, and after a bulk
// transfer read through batches, a connection whose reader has taken
// everything holds no batch buffer and no batch array, on both protocols
// (issue 32: an idle connection costs no more than crypto/tls's).
func TestIdleConnectionHoldsNoBatchState(t *testing.T) {
	for _, tc := range []struct {
		tls13 bool
		suite uint16
	}{{false, ciphersuite.ECC_SM4_GCM_SM3}, {false, ciphersuite.ECDHE_SM4_CBC_SM3}, {true, 0}} {
		tls13 := tc.tls13
		ccfg := testClientConfig(t)
		if tls13 {
			ccfg = tls13ClientConfig(t)
		} else {
			ccfg.CipherSuites = []uint16{tc.suite}
		}
		client, server, cerr, serr := handshakePair(t, ccfg, testServerConfig(t))
		if cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		for _, c := range []*Conn{client, server} {
			if c.hand.Cap() != 0 || c.outBuf != nil || c.flight.buf != nil || len(c.rawInput.own) > 512 {
				t.Errorf("TLS 1.3 %v: after the handshake: handshake buffer %d, record buffer %d, flight buffer %d, read buffer %d bytes",
					tls13, c.hand.Cap(), cap(c.outBuf), cap(c.flight.buf), len(c.rawInput.own))
			}
		}
		exchange(t, client, server, 1<<20)
		for _, c := range []*Conn{client, server} {
			c.in.Lock()
			held := c.rawInput.pooled != nil || c.rb.recs != nil
			c.in.Unlock()
			if held {
				t.Errorf("TLS 1.3 %v: an idle connection holds a batch buffer (%v) or batch array (%v)", tls13, c.rawInput.pooled != nil, c.rb.recs != nil)
			}
		}
		client.Close()
		server.Close()
	}
}
