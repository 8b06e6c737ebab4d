// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// teeConn records everything written through it.
type teeConn struct {
	net.Conn
	mu  sync.Mutex
	out bytes.Buffer
}

func (c *teeConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.out.Write(b)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

var fuzzTime = time.Now()

// fuzzClientConfig is deterministic: the same randoms and premaster every
// time, so a recorded server flight can be replayed to it.
func fuzzClientConfig(t testing.TB, suite uint16) *Config {
	cfg := testClientConfig(t)
	cfg.CipherSuites = []uint16{suite}
	cfg.Rand = rand.NewChaCha8([32]byte{1})
	cfg.Time = func() time.Time { return fuzzTime }
	return cfg
}

// recordHandshake runs a handshake and returns the bytes each side sent.
func recordHandshake(t testing.TB, suite uint16, auth bool) (fromClient, fromServer []byte) {
	c, s := tcpPair(t)
	tc, ts := &teeConn{Conn: c}, &teeConn{Conn: s}
	scfg := testServerConfig(t)
	if auth {
		scfg.ClientAuth = RequireAndVerifyClientCert
	}
	client, server := Client(tc, fuzzClientConfig(t, suite)), Server(ts, scfg)
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	if err := client.Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return tc.out.Bytes(), ts.out.Bytes()
}

var seedSuites = []struct {
	suite uint16
	auth  bool
}{
	{ciphersuite.ECC_SM4_GCM_SM3, false},
	{ciphersuite.ECC_SM4_CBC_SM3, true},
	{ciphersuite.ECDHE_SM4_GCM_SM3, true},
}

// FuzzServerHandshake feeds mutated client flights, recorded from real
// handshakes, to a server: every message parser and check on the server
// side sees near-valid input. Nothing may panic, and no flight completes
// the handshake.
func FuzzServerHandshake(f *testing.F) {
	for _, s := range seedSuites {
		fromClient, _ := recordHandshake(f, s.suite, s.auth)
		f.Add(fromClient)
	}
	scfg := testServerConfig(f)
	scfg.ClientAuth = VerifyClientCertIfGiven
	f.Fuzz(func(t *testing.T, data []byte) {
		// The flight was recorded against another server random, so its
		// Finished cannot verify: a handshake that completes accepted a
		// replayed or forged flight.
		if Server(&discardConn{r: bytes.NewReader(data)}, scfg).Handshake() == nil {
			t.Fatal("a replayed client flight completed the handshake")
		}
	})
}

// FuzzClientHandshake replays mutated server flights to a deterministic
// client, which accepts the unmutated ones in full.
func FuzzClientHandshake(f *testing.F) {
	for i, s := range seedSuites {
		_, fromServer := recordHandshake(f, s.suite, s.auth)
		f.Add(uint8(i), fromServer)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := seedSuites[int(which)%len(seedSuites)]
		Client(&discardConn{r: bytes.NewReader(data)}, fuzzClientConfig(t, s.suite)).Handshake()
	})
}

// TestReplayServerFlight: with a deterministic client, the recorded server
// flight completes the handshake again; this keeps the fuzz seeds deep.
func TestReplayServerFlight(t *testing.T) {
	for _, s := range seedSuites {
		_, fromServer := recordHandshake(t, s.suite, s.auth)
		c := Client(&discardConn{r: bytes.NewReader(fromServer)}, fuzzClientConfig(t, s.suite))
		if err := c.Handshake(); err != nil {
			t.Errorf("%s: replay failed: %v", CipherSuiteName(s.suite), err)
		}
	}
}
