// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"math/rand/v2"
	"net"
	"testing"
	"time"
)

// Fuzz targets for every TLS 1.3 parser: the messages, the hello
// extensions, the session ticket and the AutoListener's peek, plus
// mutated real flights of both handshakes.

// tls13Seeds are TLS 1.3 handshakes whose flights seed the fuzzers.
var tls13Seeds = []struct {
	auth, resume, hrr bool
}{
	{false, false, false},
	{true, false, false},
	{false, true, false},
	{false, false, true},
}

// fuzzTLS13ClientConfig is deterministic, so a recorded server flight can
// be replayed to it. A fresh cache per call makes resumption repeatable.
func fuzzTLS13ClientConfig(t testing.TB) *Config {
	cfg := tls13ClientConfig(t)
	cfg.Rand = rand.NewChaCha8([32]byte{2})
	cfg.Time = func() time.Time { return fuzzTime }
	return cfg
}

// recordTLS13Handshake runs one TLS 1.3 handshake and returns what each
// side sent. For resume, a first handshake fills the client's cache with
// a ticket from scfg, which the recorded one offers. For hrr, two scripted
// peers make the HelloRetryRequest happen: a client without a key share
// talks to the server, and a server that asks for a cookie to the client.
func recordTLS13Handshake(t testing.TB, auth, resume, hrr bool) (fromClient, fromServer []byte, ccfg *Config) {
	if hrr {
		return recordTLS13Retry(t)
	}
	scfg := testServerConfig(t)
	scfg.SetSessionCacheKeys([][32]byte{{9}})
	if auth {
		scfg.ClientAuth = RequireAndVerifyClientCert
	}
	ccfg = fuzzTLS13ClientConfig(t)
	var ticket *ClientSessionState
	if resume {
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		client, server := mustHandshake13(t, ccfg, scfg)
		readTickets(t, client, server)
		client.Close()
		ticket, _ = ccfg.ClientSessionCache.Get("tlcp.test")
		ccfg.Rand = rand.NewChaCha8([32]byte{2})
	}
	c, s := tcpPair(t)
	tc, ts := &teeConn{Conn: c}, &teeConn{Conn: s}
	client, server := Client(tc, ccfg), Server(ts, scfg)
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	if err := client.Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	exchange(t, client, server, 10) // the ticket, for the seeds
	// The replaying client: the same randomness, and the cache as it was.
	ccfg = ccfg.Clone()
	ccfg.Rand = rand.NewChaCha8([32]byte{2})
	if ticket != nil {
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		ccfg.ClientSessionCache.Put("tlcp.test", ticket)
	}
	return tc.out.Bytes(), ts.out.Bytes(), ccfg
}

// recordTLS13Retry records the two handshakes with a HelloRetryRequest of
// recordTLS13Handshake.
func recordTLS13Retry(t testing.TB) (fromClient, fromServer []byte, ccfg *Config) {
	c, s := tcpPair(t)
	tc := &teeConn{Conn: c}
	server := Server(s, testServerConfig(t))
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	sc := newClient13()
	sc.omitKeyShare = true
	sc.attach(tc)
	if err := sc.run(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}

	c, s = tcpPair(t)
	ts := &teeConn{Conn: s}
	ccfg = fuzzTLS13ClientConfig(t)
	ss := newServer13(&getPKI(t).server)
	ss.hrrCookie = []byte("cookie")
	ss.attach(ts)
	go func() { errc <- ss.run() }()
	if err := Client(c, ccfg).Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	ccfg = ccfg.Clone()
	ccfg.Rand = rand.NewChaCha8([32]byte{2})
	return tc.out.Bytes(), ts.out.Bytes(), ccfg
}

// TestReplayTLS13ServerFlight: a recorded server flight completes the
// deterministic client's handshake again, which keeps the fuzz seeds deep.
func TestReplayTLS13ServerFlight(t *testing.T) {
	for _, s := range tls13Seeds {
		_, fromServer, ccfg := recordTLS13Handshake(t, s.auth, s.resume, s.hrr)
		c := Client(&discardConn{r: bytes.NewReader(fromServer)}, ccfg)
		if err := c.Handshake(); err != nil {
			t.Errorf("%+v: replay failed: %v", s, err)
		}
	}
}

func FuzzTLS13ServerHandshake(f *testing.F) {
	for _, s := range tls13Seeds {
		fromClient, _, _ := recordTLS13Handshake(f, s.auth, s.resume, s.hrr)
		f.Add(fromClient)
	}
	scfg := testServerConfig(f)
	scfg.SetSessionCacheKeys([][32]byte{{9}})
	scfg.ClientAuth = VerifyClientCertIfGiven
	f.Fuzz(func(t *testing.T, data []byte) {
		// The server's key share and random are new each time, so the
		// recorded client Finished cannot verify (nor, on resumption,
		// can the binder alone finish the handshake).
		if Server(&discardConn{r: bytes.NewReader(data)}, scfg).Handshake() == nil {
			t.Fatal("a replayed client flight completed the handshake")
		}
	})
}

func FuzzTLS13ClientHandshake(f *testing.F) {
	for i, s := range tls13Seeds {
		_, fromServer, _ := recordTLS13Handshake(f, s.auth, s.resume, s.hrr)
		f.Add(uint8(i), fromServer)
	}
	f.Fuzz(func(t *testing.T, _ uint8, data []byte) {
		ccfg := fuzzTLS13ClientConfig(t)
		c := Client(&discardConn{r: bytes.NewReader(data)}, ccfg)
		if c.Handshake() == nil {
			// Then the post-handshake messages too.
			c.Read(make([]byte, 16))
		}
	})
}

// FuzzTLS13Messages parses arbitrary bytes as every TLS 1.3 message. A
// message that parses must marshal again and parse to the same bytes.
func FuzzTLS13Messages(f *testing.F) {
	for _, m := range []handshakeMessage{
		rawTLS13Hello(f),
		&serverHelloMsg{vers: 0x0303, random: make([]byte, 32), sessionID: make([]byte, 32), cipherSuite: 0xc6,
			tls13: serverHelloTLS13{supportedVersion: VersionTLS13, serverShare: keyShare{41, make([]byte, 65)}, selectedPSK: true}},
		&serverHelloMsg{vers: 0x0303, random: helloRetryRequestRandom, cipherSuite: 0xc7,
			tls13: serverHelloTLS13{supportedVersion: VersionTLS13, selectedGroup: 41, cookie: []byte{1, 2}}},
		&encryptedExtensionsMsg{alpnProtocol: "h2", serverNameAck: true},
		&certificateRequestMsgTLS13{signatureAlgorithms: []uint16{0x0708}, certificateAuthorities: [][]byte{{0x30, 0}}},
		&certificateMsgTLS13{certificates: [][]byte{{1, 2, 3}, {4}}},
		&certificateMsgTLS13{certificates: [][]byte{{1, 2, 3}, {4}}, leafStatus: certificateStatusBody([]byte{0x30, 0})},
		&certificateVerifyMsgTLS13{scheme: 0x0708, signature: []byte{0x30, 0}},
		&finishedMsgTLS13{verifyData: make([]byte, 32)},
		&newSessionTicketMsg{lifetime: 3600, ageAdd: 7, nonce: []byte{0}, ticket: []byte("ticket"), maxEarlyData: 1},
		&keyUpdateMsg{request: keyUpdateRequested},
		&endOfEarlyDataMsg{},
	} {
		b, err := m.marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		m := newHandshakeMessageTLS13(data[0])
		if m == nil || !m.unmarshal(bytes.Clone(data)) {
			return
		}
		clearOriginal(m)
		b, err := m.marshal()
		if err != nil {
			return // a field too long for its encoding, which only a parser bug could make
		}
		m2 := newHandshakeMessageTLS13(data[0])
		if !m2.unmarshal(bytes.Clone(b)) {
			t.Fatalf("%T: re-marshalled message does not parse: %x", m, b)
		}
		clearOriginal(m2)
		b2, _ := m2.marshal()
		if !bytes.Equal(b, b2) {
			t.Fatalf("%T: marshal is not stable:\n%x\n%x", m, b, b2)
		}
	})
}

// FuzzTicket opens arbitrary tickets and parses arbitrary session states.
func FuzzTicket(f *testing.F) {
	cfg := testServerConfig(f)
	cfg.SetSessionCacheKeys([][32]byte{{3}})
	// A fixed creation time, not fuzzTime: the fuzzing engine's workers are
	// processes of their own, which must seal the same state as the one
	// that added the seed, or the seed's ticket opens to "another" state.
	state := &serverTicketState{suite: 0xc6, created: time.Unix(1764547200, 0), psk: make([]byte, 32), serverName: "a", verified: true,
		certs: [][]byte{{1, 2}}}
	sealedPlain, _ := state.marshal()
	sealed, _ := sealTicket(cfg, sealedPlain)
	f.Add(sealed, sealedPlain)
	f.Fuzz(func(t *testing.T, ticket, plain []byte) {
		// Only sealedPlain was ever sealed under this key; a ticket
		// that opens to anything else was forged.
		if got := openTicket(cfg, ticket); got != nil && !bytes.Equal(got, sealedPlain) {
			t.Fatalf("a forged ticket opened: %x", ticket)
		}
		var s serverTicketState
		if s.unmarshal(plain) {
			b, err := s.marshal()
			if err != nil || !bytes.Equal(b, plain) {
				t.Fatalf("session state does not round-trip: %x", plain)
			}
		}
	})
}

// FuzzAutoListenerPeek classifies arbitrary connection starts: no panic,
// and what was read is what the server gets to see.
func FuzzAutoListenerPeek(f *testing.F) {
	hello := rawTLS13Hello(f)
	b, _ := hello.marshal()
	f.Add(append([]byte{22, 3, 1, byte(len(b) >> 8), byte(len(b))}, b...))
	f.Add(append([]byte{22, 3, 1, 0, 10}, b[:10]...))
	f.Add([]byte{22, 1, 1, 0, 4, 1, 0, 0, 0})
	f.Add([]byte("GET / HTTP/1.1\r\n"))
	stdSrv, _ := ecdsaTLSConfigs(f)
	l := &autoListener{config: testServerConfig(f), tlsConfig: stdSrv}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, s := net.Pipe()
		go func() { c.Write(data); c.Close() }()
		peeked, route, _ := l.peek(s)
		if route != routeShangMi && route != routeStdTLS {
			t.Fatalf("route %d", route)
		}
		if !bytes.HasPrefix(data, peeked) {
			t.Fatalf("peeked %x is not the start of the input", peeked)
		}
	})
}
