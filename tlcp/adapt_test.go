// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// forgetHintsAt removes, when tb ends, every hint remembered for a server
// at addr. The hint cache is per process and keyed by address, and
// loopback listeners reuse ephemeral ports: a hint one test left for
// 127.0.0.1:P would otherwise reach a later test whose server got P - a
// ClientHello without extensions, say, which cannot resume a session
// made with them (CI saw both a "resumed false" and a missing quirk
// error this way).
func forgetHintsAt(tb testing.TB, addr string) {
	tb.Cleanup(func() {
		h := interopHints
		h.mu.Lock()
		defer h.mu.Unlock()
		for key, e := range h.m {
			if strings.HasSuffix(key, "\x00"+addr) {
				h.order.Remove(e)
				delete(h.m, key)
			}
		}
	})
}

// peerProfile is how a deployed TLCP server behaves at the points where
// servers disagree (INTEROP.md §12). Its flight (session ID, certificate
// types) and its refusals are the ones recorded from each peer
// (testdata/interop/README.md says how).
type peerProfile struct {
	name string
	// suites it offers, in its order.
	suites []uint16
	// refuseExtensions: a ClientHello with any extension gets
	// unexpected_message (GmSSL 3.1.1, capture v311-sni).
	refuseExtensions bool
	// refuseAllHellos: every ClientHello gets unexpected_message (a
	// server no form satisfies).
	refuseAllHellos bool
	emptySessionID  bool    // GmSSL and tjfoc never resume
	certTypes       []uint8 // CertificateRequest's certificate_types
	ackSNI          bool    // ServerHello answers server_name
	// ECC client authentication: the number of certificates it wants in
	// the client's Certificate, 0 for any (GmSSL refuses SIGN, ENC with
	// bad_certificate; Tongsuo refuses SIGN alone with handshake_failure).
	eccCerts     int
	eccCertAlert alert
	// framing it reads the ECDHE ClientKeyExchange in: 0 both, 69 or 71.
	framing int
	// cv is the CertificateVerify form it verifies: "" both, "hash" or
	// "raw"; a wrong one is refused with cvAlert, or by closing when
	// cvClose (GmSSL ≥ 3.2).
	cv      string
	cvAlert alert
	cvClose bool
}

var (
	eccSuites  = []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3}
	allSuites  = []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3}
	gmssl311   = peerProfile{name: "GmSSL 3.1.1", suites: []uint16{ciphersuite.ECC_SM4_CBC_SM3}, refuseExtensions: true, emptySessionID: true, certTypes: []uint8{64}, eccCerts: 1, eccCertAlert: alertBadCertificate, cv: "hash", cvAlert: alertDecryptError}
	gmsslNew   = peerProfile{name: "GmSSL master", suites: allSuites, emptySessionID: true, certTypes: []uint8{64}, ackSNI: true, eccCerts: 1, eccCertAlert: alertBadCertificate, framing: 71, cv: "raw", cvClose: true}
	tongsuo    = peerProfile{name: "Tongsuo", suites: allSuites, certTypes: []uint8{1, 64}, eccCerts: 2, eccCertAlert: alertHandshakeFailure, framing: 69, cv: "hash", cvAlert: alertDecryptError}
	gotlcpPeer = peerProfile{name: "gotlcp", suites: allSuites, certTypes: []uint8{1, 64}, ackSNI: true, framing: 69, cv: "hash", cvAlert: alertDecryptError}
	tjfocPeer  = peerProfile{name: "tjfoc", suites: []uint16{ciphersuite.ECC_SM4_CBC_SM3}, emptySessionID: true, certTypes: []uint8{1, 64}, framing: 69, cv: "hash", cvAlert: alertDecryptError}
	nobody     = peerProfile{name: "refuses every ClientHello", suites: allSuites, refuseAllHellos: true}
)

// scriptedPeer serves connections on a loopback listener with p's
// behaviour and counts them.
type scriptedPeer struct {
	ln    net.Listener
	conns atomic.Int32
}

func startPeer(t *testing.T, p peerProfile, auth bool) *scriptedPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sp := &scriptedPeer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	forgetHintsAt(t, ln.Addr().String())
	cfg := testServerConfig(t)
	cfg.CipherSuites = p.suites
	if auth {
		cfg.ClientAuth = RequireAndVerifyClientCert
	}
	go func() {
		for {
			raw, err := ln.Accept()
			if err != nil {
				return
			}
			sp.conns.Add(1)
			go func() {
				defer raw.Close()
				raw.SetDeadline(time.Now().Add(10 * time.Second))
				c := Server(raw, cfg)
				c.handshakeFn = func(ctx context.Context) error { return p.serve(ctx, c, raw) }
				if c.Handshake() == nil {
					c.Close()
				}
			}()
		}
	}()
	return sp
}

func (sp *scriptedPeer) addr() string { return sp.ln.Addr().String() }

// serve is the server's TLCP handshake (handshake_server.go) with the
// peer's flight and checks; its steps are the package's own.
func (p peerProfile) serve(ctx context.Context, c *Conn, raw net.Conn) error {
	ch, err := c.readClientHello("ClientHello")
	if err != nil {
		return err
	}
	if p.refuseAllHellos || p.refuseExtensions && ch.hasExtensions {
		return errorf(alertUnexpectedMessage, "%s: refused the ClientHello", p.name)
	}
	hs := &serverHandshakeState{c: c, ctx: ctx, clientHello: ch, transcript: newTranscript(true),
		info: &ClientHelloInfo{CipherSuites: ch.cipherSuites, ServerName: ch.serverName, Conn: raw, ctx: ctx}}
	hs.transcript.Write(ch.original)
	if err := hs.processClientHello(); err != nil {
		return err
	}
	if p.emptySessionID {
		hs.hello.sessionID = []byte{}
	}
	if !p.ackSNI {
		hs.hello.serverNameAck = false
	}
	cfg := c.config
	ecdhe := hs.suite.KeyExchange == ciphersuite.KeyExchangeECDHE
	for _, m := range []handshakeMessage{hs.hello, &certificateMsg{certificates: hs.prepared.certs}} {
		if err := c.writeHandshake(m, hs.transcript); err != nil {
			return err
		}
	}
	skx, err := hs.ka.generateServerKeyExchange(cfg, hs.pair, hs.encCert, ch.random, hs.hello.random)
	if err != nil {
		return err
	}
	if err := c.writeHandshake(skx, hs.transcript); err != nil {
		return err
	}
	requestCert := ecdhe || cfg.ClientAuth >= RequestClientCert
	if requestCert {
		req := &certificateRequestMsg{certificateTypes: p.certTypes, certificateAuthorities: cfg.ClientCAs.Subjects()}
		if err := c.writeHandshake(req, hs.transcript); err != nil {
			return err
		}
	}
	if err := c.writeHandshake(&serverHelloDoneMsg{}, hs.transcript); err != nil {
		return err
	}
	var clientEnc *smx509.Certificate
	if requestCert {
		msg, err := c.readHandshake(hs.transcript)
		if err != nil {
			return err
		}
		certMsg, ok := msg.(*certificateMsg)
		if !ok {
			return unexpectedMessageError("Certificate", msg)
		}
		if !ecdhe && p.eccCerts != 0 && len(certMsg.certificates) != p.eccCerts {
			return errorf(p.eccCertAlert, "%s: %d client certificates, want %d", p.name, len(certMsg.certificates), p.eccCerts)
		}
		if clientEnc, err = hs.processClientCertificates(certMsg.certificates); err != nil {
			return err
		}
	}
	msg, err := c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	ckx, ok := msg.(*clientKeyExchangeMsg)
	if !ok {
		return unexpectedMessageError("ClientKeyExchange", msg)
	}
	if ecdhe && (p.framing == 71 && !ckx.vector || p.framing == 69 && ckx.vector) {
		return errorf(alertDecodeError, "%s: ECDHE ClientKeyExchange in the other framing", p.name)
	}
	premaster, err := hs.ka.processClientKeyExchange(cfg, hs.pair, ckx, clientEnc)
	if err != nil {
		return err
	}
	if c.peerSignCert != nil {
		hashed, rawT := hs.transcript.Sum(), hs.transcript.raw
		hs.transcript.dropRaw()
		msg, err := c.readHandshake(hs.transcript)
		if err != nil {
			return err
		}
		cv, ok := msg.(*certificateVerifyMsg)
		if !ok {
			return unexpectedMessageError("CertificateVerify", msg)
		}
		okHash, okRaw := verify(c.peerSignCert, hashed, cv.signature), verify(c.peerSignCert, rawT, cv.signature)
		if p.cv == "hash" && !okHash || p.cv == "raw" && !okRaw || !okHash && !okRaw {
			if p.cvClose {
				raw.Close()
				return errors.New(p.name + ": closed on the CertificateVerify")
			}
			return errorf(p.cvAlert, "%s: CertificateVerify not in its form", p.name)
		}
	}
	hs.masterSecret = ciphersuite.MasterSecret(premaster, ch.random, hs.hello.random)
	return runSteps(hs.establishKeys, hs.readFinished, hs.sendFinished)
}

// adaptiveClient is the default client: no switch set.
func adaptiveClient(t *testing.T, suites []uint16, auth bool) *Config {
	ccfg := testClientConfig(t)
	ccfg.CipherSuites = suites
	if !auth {
		ccfg.Certificates = nil
	}
	return ccfg
}

// TestAdaptsToEveryPeer: the default client, no switch set, completes a
// handshake with a scripted server behaving like each peer, on each suite
// it has, with and without client certificates; it needs a second
// connection only for GmSSL 3.1.1, and only the first time.
func TestAdaptsToEveryPeer(t *testing.T) {
	for _, p := range []peerProfile{gmssl311, gmsslNew, tongsuo, gotlcpPeer, tjfocPeer} {
		for _, id := range p.suites {
			ecdhe := ciphersuite.Lookup(id).KeyExchange == ciphersuite.KeyExchangeECDHE
			for _, auth := range []bool{false, true} {
				if ecdhe && !auth {
					continue // ECDHE needs the client's double certificate
				}
				name := p.name + "/" + ciphersuite.Name(id)
				if auth {
					name += "/client-auth"
				}
				t.Run(name, func(t *testing.T) {
					sp := startPeer(t, p, auth || ecdhe)
					ccfg := adaptiveClient(t, []uint16{id}, auth || ecdhe)
					for i, want := range []int32{wantConns(p), 1} {
						before := sp.conns.Load()
						c, err := Dial("tcp", sp.addr(), ccfg)
						if err != nil {
							t.Fatalf("connection %d: %v", i, err)
						}
						c.Close()
						if got := sp.conns.Load() - before; got != want {
							t.Fatalf("connection %d took %d connections, want %d", i, got, want)
						}
					}
				})
			}
		}
	}
}

func wantConns(p peerProfile) int32 {
	if p.refuseExtensions {
		return 2 // refused, then without extensions
	}
	return 1
}

// TestAdaptationOffUsesTheSwitches: with DisableInteropAdaptation the
// client sends exactly the forms the switches name: it fails where a
// switch is needed, with the error naming it, on one connection; with the
// switch set it succeeds.
func TestAdaptationOffUsesTheSwitches(t *testing.T) {
	for _, tc := range []struct {
		p       peerProfile
		suite   uint16
		auth    bool
		want    string
		switch_ func(*Config)
	}{
		{gmssl311, ciphersuite.ECC_SM4_CBC_SM3, false, "Config.ClientHelloNoExtensions", func(c *Config) { c.ClientHelloNoExtensions = true }},
		{gmsslNew, ciphersuite.ECDHE_SM4_GCM_SM3, true, "Config.ClientECDHEFraming71", func(c *Config) { c.ClientECDHEFraming71, c.CertificateVerifyRawTranscript = true, true }},
		{gmsslNew, ciphersuite.ECC_SM4_GCM_SM3, true, "Config.CertificateVerifyRawTranscript", func(c *Config) { c.CertificateVerifyRawTranscript = true }},
		{tongsuo, ciphersuite.ECC_SM4_GCM_SM3, true, "Config.ClientCertIncludeEnc", func(c *Config) { c.ClientCertIncludeEnc = true }},
	} {
		t.Run(tc.p.name+"/"+ciphersuite.Name(tc.suite), func(t *testing.T) {
			sp := startPeer(t, tc.p, tc.auth)
			ccfg := adaptiveClient(t, []uint16{tc.suite}, tc.auth)
			ccfg.DisableInteropAdaptation = true
			if _, err := Dial("tcp", sp.addr(), ccfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to name %s", err, tc.want)
			}
			if n := sp.conns.Load(); n != 1 {
				t.Fatalf("%d connections, want 1: no retry", n)
			}
			tc.switch_(ccfg)
			c, err := Dial("tcp", sp.addr(), ccfg)
			if err != nil {
				t.Fatalf("with the switch: %v", err)
			}
			c.Close()
		})
	}
}

// TestSwitchesWinOverDetection: a switch forces its form even where the
// server's flight asks for the other; the server refuses it, and the
// client does not retry with a form the switch excludes.
func TestSwitchesWinOverDetection(t *testing.T) {
	// GmSSL takes SIGN alone in ECC client authentication; the switch
	// sends SIGN, ENC anyway.
	sp := startPeer(t, gmsslNew, true)
	ccfg := adaptiveClient(t, []uint16{ciphersuite.ECC_SM4_GCM_SM3}, true)
	ccfg.ClientCertIncludeEnc = true
	_, err := Dial("tcp", sp.addr(), ccfg)
	var ae AlertError
	if !errors.As(err, &ae) || alert(ae) != alertBadCertificate {
		t.Fatalf("error %v, want GmSSL's bad_certificate for SIGN, ENC", err)
	}
	if n := sp.conns.Load(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
}

// TestRetryOnceThenFirstError: against a server that refuses every form,
// Dial makes exactly two connections and returns the first error, which
// names the switch, and keeps no hint; a third connection tries again the
// same way.
func TestRetryOnceThenFirstError(t *testing.T) {
	sp := startPeer(t, nobody, false)
	ccfg := adaptiveClient(t, eccSuites, false)
	for round := int32(1); round <= 2; round++ {
		_, err := Dial("tcp", sp.addr(), ccfg)
		if err == nil || !strings.Contains(err.Error(), "the ClientHello carried server_name") ||
			!strings.Contains(err.Error(), "set Config.ClientHelloNoExtensions") {
			t.Fatalf("error %v, want the first connection's, naming the switch", err)
		}
		var ae AlertError
		if !errors.As(err, &ae) || alert(ae) != alertUnexpectedMessage {
			t.Fatalf("errors.As finds %v in %v", ae, err)
		}
		if n := sp.conns.Load(); n != 2*round {
			t.Fatalf("%d connections after %d dials, want %d", n, round, 2*round)
		}
	}
}

// TestRetryNeverWeakens: a ClientHello whose extensions were asked for
// (ALPN, or TLS 1.3 offered) is not retried without them; the error names
// the switch.
func TestRetryNeverWeakens(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"ALPN", func(c *Config) { c.NextProtos = []string{"http/1.1"} }},
		{"TLS 1.3 offered", func(c *Config) {
			c.MaxVersion = VersionTLS13
			c.CipherSuites = append(c.CipherSuites, ciphersuite.TLS_SM4_GCM_SM3)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := startPeer(t, gmssl311, false)
			ccfg := adaptiveClient(t, []uint16{ciphersuite.ECC_SM4_CBC_SM3}, false)
			tc.set(ccfg)
			if _, err := Dial("tcp", sp.addr(), ccfg); err == nil || !strings.Contains(err.Error(), "Config.ClientHelloNoExtensions") {
				t.Fatalf("error %v, want it to name the switch", err)
			}
			if n := sp.conns.Load(); n != 1 {
				t.Fatalf("%d connections, want 1", n)
			}
		})
	}
}

// TestClientOverCallersConnRemembers: Client over the caller's own
// connection cannot redial: against GmSSL 3.1.1 its handshake fails with
// the error naming the switch, and the caller's next connection to that
// server, with the same ServerName, goes without extensions and succeeds.
// Against GmSSL ≥ 3.2, detection from the flight needs no retry at all.
func TestClientOverCallersConnRemembers(t *testing.T) {
	sp := startPeer(t, gmssl311, true)
	ccfg := adaptiveClient(t, []uint16{ciphersuite.ECC_SM4_CBC_SM3}, true)
	dial := func() error {
		raw, err := net.Dial("tcp", sp.addr())
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		return Client(raw, ccfg).Handshake()
	}
	if err := dial(); err == nil || !strings.Contains(err.Error(), "set Config.ClientHelloNoExtensions") {
		t.Fatalf("first connection: %v, want the error naming the switch", err)
	}
	if err := dial(); err != nil {
		t.Fatalf("second connection: %v", err)
	}
	if n := sp.conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}

	sp = startPeer(t, gmsslNew, true)
	for _, id := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3} {
		ccfg.CipherSuites = []uint16{id}
		if err := dial(); err != nil {
			t.Fatalf("GmSSL master, %s: %v", ciphersuite.Name(id), err)
		}
	}
}

// TestAmbiguousGmSSLFlight: a GmSSL flight in answer to a ClientHello
// without extensions (ServerName an IP address: no SNI) may be 3.1.1's or
// ≥ 3.2's. With ECC client authentication the client signs 3.1.1's form;
// GmSSL ≥ 3.2 closes, and Dial retries with the raw transcript, once.
func TestAmbiguousGmSSLFlight(t *testing.T) {
	sp := startPeer(t, gmsslNew, true)
	ccfg := adaptiveClient(t, []uint16{ciphersuite.ECC_SM4_GCM_SM3}, true)
	ccfg.InsecureSkipVerify = true // the test certificates name localhost
	ccfg.ServerName = "127.0.0.1"
	for i, want := range []int32{2, 1} {
		before := sp.conns.Load()
		c, err := Dial("tcp", sp.addr(), ccfg)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		c.Close()
		if got := sp.conns.Load() - before; got != want {
			t.Fatalf("connection %d took %d connections, want %d", i, got, want)
		}
	}
}

// TestInteropCacheBounds: the hint cache holds at most its size, least
// recently used out first, and forgets a hint at its expiry.
func TestInteropCacheBounds(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := newInteropCache(3, time.Minute)
	for _, k := range []string{"a", "b", "c"} {
		c.add(k, interopForms{rawCV: true}, now)
	}
	c.get("a", now) // a is now the most recent
	c.add("d", interopForms{framing71: true}, now)
	if c.len() != 3 {
		t.Fatalf("%d entries, want 3", c.len())
	}
	if c.get("b", now) != (interopForms{}) {
		t.Fatal("b, the least recently used, was kept")
	}
	if !c.get("a", now).rawCV || !c.get("d", now).framing71 {
		t.Fatal("a recent hint was lost")
	}
	c.add("a", interopForms{includeEnc: true}, now)
	if f := c.get("a", now); !f.rawCV || !f.includeEnc {
		t.Fatalf("hints merge: %+v", f)
	}
	if c.get("a", now.Add(time.Minute)) != (interopForms{}) || c.len() != 2 {
		t.Fatal("an expired hint was kept")
	}
	// No key for an in-memory connection: nothing to remember it by.
	a, _ := net.Pipe()
	defer a.Close()
	if k := interopKey(Client(a, &Config{ServerName: "x"})); k != "" {
		t.Fatalf("net.Pipe key %q", k)
	}
}

// TestStaleHintIsForgotten: a remembered hint that no longer fits the
// server (it was upgraded, say) makes the handshake fail in a way that
// names no other form; Dial forgets the hint and retries once without it,
// and the next connection needs no retry.
func TestStaleHintIsForgotten(t *testing.T) {
	sp := startPeer(t, tongsuo, true)
	ccfg := adaptiveClient(t, []uint16{ciphersuite.ECC_SM4_GCM_SM3}, true)
	raw, err := net.Dial("tcp", sp.addr())
	if err != nil {
		t.Fatal(err)
	}
	key := interopKey(Client(raw, ccfg))
	raw.Close()
	// The server counts that connection when it accepts it, which may be
	// after Dial returns: wait for it, so that it is not counted below.
	for deadline := time.Now().Add(5 * time.Second); sp.conns.Load() < 1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	// Tongsuo verifies the hash form only.
	interopHints.add(key, interopForms{rawCV: true}, ccfg.time())
	for i, want := range []int32{2, 1} {
		before := sp.conns.Load()
		c, err := Dial("tcp", sp.addr(), ccfg)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		c.Close()
		if got := sp.conns.Load() - before; got != want {
			t.Fatalf("connection %d took %d connections, want %d", i, got, want)
		}
	}
	if f := interopHints.get(key, ccfg.time()); f.rawCV {
		t.Fatal("the stale hint is still remembered")
	}
}
