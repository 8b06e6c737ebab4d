// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"net"
	"sync"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// writeCounter counts the transport writes and the records in them.
type writeCounter struct {
	net.Conn
	mu              sync.Mutex
	writes, records int
}

func (c *writeCounter) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	for p := b; len(p) >= 5; p = p[5+(int(p[3])<<8|int(p[4])):] {
		c.records++
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *writeCounter) counts() (int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes, c.records
}

// TestHandshakeFlights: each flight of the handshake goes to the transport
// in one write, still one message per record (INTEROP.md §1.7).
func TestHandshakeFlights(t *testing.T) {
	for _, tt := range []struct {
		suite                    uint16
		resume                   bool
		clientWrites, clientRecs int
		serverWrites, serverRecs int
	}{
		// Client: ClientHello; ClientKeyExchange, CCS, Finished.
		// Server: ServerHello … ServerHelloDone; CCS, Finished.
		{ciphersuite.ECC_SM4_GCM_SM3, false, 2, 4, 2, 6},
		// ECDHE: the client also sends Certificate and CertificateVerify,
		// the server CertificateRequest.
		{ciphersuite.ECDHE_SM4_CBC_SM3, false, 2, 6, 2, 7},
		// Resumed. Client: ClientHello; CCS, Finished. Server: ServerHello,
		// CCS, Finished.
		{ciphersuite.ECC_SM4_GCM_SM3, true, 2, 3, 1, 3},
	} {
		ccfg, scfg := testClientConfig(t), testServerConfig(t)
		ccfg.CipherSuites = []uint16{tt.suite}
		if tt.resume {
			ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
			if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
				t.Fatal(cerr, serr)
			}
		}
		c, s := tcpPair(t)
		cw, sw := &writeCounter{Conn: c}, &writeCounter{Conn: s}
		client, server := Client(cw, ccfg), Server(sw, scfg)
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		if err := client.Handshake(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if client.ConnectionState().DidResume != tt.resume {
			t.Fatalf("%s: resumed %v", CipherSuiteName(tt.suite), !tt.resume)
		}
		w, r := cw.counts()
		if w != tt.clientWrites || r != tt.clientRecs {
			t.Errorf("%s resume=%v: client made %d writes of %d records, want %d of %d", CipherSuiteName(tt.suite), tt.resume, w, r, tt.clientWrites, tt.clientRecs)
		}
		w, r = sw.counts()
		if w != tt.serverWrites || r != tt.serverRecs {
			t.Errorf("%s resume=%v: server made %d writes of %d records, want %d of %d", CipherSuiteName(tt.suite), tt.resume, w, r, tt.serverWrites, tt.serverRecs)
		}
	}
}
