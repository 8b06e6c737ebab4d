// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// mapSessionCache is a ServerSessionCache in a map, standing for a shared
// store such as Redis.
type mapSessionCache struct {
	mu      sync.Mutex
	m       map[string][]byte
	ttl     time.Duration
	deletes int
}

func newMapSessionCache() *mapSessionCache { return &mapSessionCache{m: make(map[string][]byte)} }

func (c *mapSessionCache) Get(ctx context.Context, id []byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[string(id)]
	return bytes.Clone(v), ok
}

func (c *mapSessionCache) Put(ctx context.Context, id, v []byte, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[string(id)] = bytes.Clone(v)
	c.ttl = ttl
}

func (c *mapSessionCache) Delete(ctx context.Context, id []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, string(id))
	c.deletes++
}

func (c *mapSessionCache) values() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out [][]byte
	for _, v := range c.m {
		out = append(out, v)
	}
	return out
}

func testKey(b byte) [SessionCacheKeySize]byte {
	var k [SessionCacheKeySize]byte
	for i := range k {
		k[i] = b
	}
	return k
}

// fleetServer is a server Config of a fleet sharing store and keys.
func fleetServer(t *testing.T, store ServerSessionCache, keys ...[SessionCacheKeySize]byte) *Config {
	cfg := testServerConfig(t)
	cfg.ServerSessionCache = store
	if len(keys) > 0 {
		cfg.SetSessionCacheKeys(keys)
	}
	return cfg
}

// resumes runs a handshake and reports whether it resumed.
func resumes(t *testing.T, ccfg, scfg *Config) (bool, *Conn) {
	t.Helper()
	client, server, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatalf("client %v, server %v", cerr, serr)
	}
	if client.ConnectionState().DidResume != server.ConnectionState().DidResume {
		t.Fatal("the two sides disagree on resumption")
	}
	exchange(t, client, server, 100)
	return client.ConnectionState().DidResume, server
}

// TestSessionMadeOnOneServerResumedOnAnother: two servers with one store
// and the same keys resume each other's sessions, on every suite, with the
// client's certificates (verified or not) back in ConnectionState; the
// store holds neither the master secret nor the certificates in the clear.
func TestSessionMadeOnOneServerResumedOnAnother(t *testing.T) {
	p := getPKI(t)
	for _, id := range supportedSuites() {
		for _, auth := range []ClientAuthType{NoClientCert, RequireAnyClientCert, RequireAndVerifyClientCert} {
			store := newMapSessionCache()
			a, b := fleetServer(t, store, testKey(1)), fleetServer(t, store, testKey(1))
			var keyLog bytes.Buffer
			for _, s := range []*Config{a, b} {
				s.CipherSuites = []uint16{id}
				s.ClientAuth = auth
				s.KeyLogWriter = &keyLog
			}
			ccfg := testClientConfig(t)
			ccfg.CipherSuites = []uint16{id}
			ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
			if r, _ := resumes(t, ccfg, a); r {
				t.Fatal("first handshake resumed")
			}
			values := store.values()
			if len(values) != 1 || store.ttl != time.Hour {
				t.Fatalf("store holds %d values, ttl %v", len(values), store.ttl)
			}
			master := strings.Fields(keyLog.String())[2]
			for _, secret := range [][]byte{unhex(t, master), p.client.Sign.Leaf.Raw, []byte("client.test"), []byte("tlcp.test")} {
				if bytes.Contains(values[0], secret) {
					t.Fatalf("the store holds %x in the clear", secret[:8])
				}
			}
			r, server := resumes(t, ccfg, b)
			if !r {
				t.Fatalf("%s/%v: not resumed on the other server", CipherSuiteName(id), auth)
			}
			st := server.ConnectionState()
			ecdhe := ciphersuite.Lookup(id).KeyExchange == ciphersuite.KeyExchangeECDHE
			wantCert := auth != NoClientCert || ecdhe
			if wantCert != (st.PeerSignCertificate != nil) || (wantCert && !st.PeerSignCertificate.Equal(p.client.Sign.Leaf)) {
				t.Fatalf("%s/%v: resumed with client certificate %v", CipherSuiteName(id), auth, st.PeerSignCertificate)
			}
			if ecdhe && !st.PeerEncCertificate.Equal(p.client.Enc.Leaf) {
				t.Fatalf("%s/%v: resumed without the client's encryption certificate", CipherSuiteName(id), auth)
			}
			// ECDHE under NoClientCert verifies with the ClientCAs set.
			verified := auth == RequireAndVerifyClientCert || ecdhe && auth == NoClientCert
			if verified != (len(st.VerifiedChains) > 0) {
				t.Fatalf("%s/%v: resumed with %d verified chains", CipherSuiteName(id), auth, len(st.VerifiedChains))
			}
			if verified && !st.VerifiedChains[0][len(st.VerifiedChains[0])-1].Equal(p.ca) {
				t.Fatal("the resumed chain does not end at the root")
			}
		}
	}
}

// TestSealedSessionsNeedTheKey: a server with other keys, or none of its
// own, cannot use a session; one that has the sealing key among its keys
// can (rotation); a value moved to another session ID does not open.
func TestSealedSessionsNeedTheKey(t *testing.T) {
	store := newMapSessionCache()
	ccfg := testClientConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	if r, _ := resumes(t, ccfg, fleetServer(t, store, testKey(1))); r {
		t.Fatal("resumed")
	}
	snapshot := store.values()[0]
	cases := []struct {
		name string
		cfg  *Config
		want bool
	}{
		{"other key", fleetServer(t, store, testKey(2)), false},
		{"automatic key", fleetServer(t, store), false},
		{"sealing key second (rotation)", fleetServer(t, store, testKey(2), testKey(1)), true},
	}
	for _, tc := range cases {
		// A failed resumption makes a new session; put the first back.
		ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
		if r, _ := resumes(t, ccfg, fleetServer(t, store, testKey(1))); r {
			t.Fatal("resumed")
		}
		r, _ := resumes(t, ccfg, tc.cfg)
		if r != tc.want {
			t.Errorf("%s: resumed %v, want %v", tc.name, r, tc.want)
		}
	}

	// Swap a value under another ID: it must not open there.
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	a := fleetServer(t, store, testKey(1))
	resumes(t, ccfg, a)
	cs, _ := ccfg.ClientSessionCache.Get("tlcp.test")
	store.Put(context.Background(), cs.sessionID, snapshot, time.Hour)
	if r, _ := resumes(t, ccfg, a); r {
		t.Fatal("a sealed session opened under another session ID")
	}
	// A corrupted value does not open either.
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	resumes(t, ccfg, a)
	cs, _ = ccfg.ClientSessionCache.Get("tlcp.test")
	v, _ := store.Get(context.Background(), cs.sessionID)
	v[len(v)-1] ^= 1
	store.Put(context.Background(), cs.sessionID, v, time.Hour)
	if r, _ := resumes(t, ccfg, a); r {
		t.Fatal("a tampered sealed session opened")
	}
}

// TestAutomaticSessionKeysRotate: without SetSessionCacheKeys a Config
// seals with a key of its own, replaced every SessionLifetime; the
// previous key still opens the sessions it sealed.
func TestAutomaticSessionKeysRotate(t *testing.T) {
	now := time.Now()
	store := newMapSessionCache()
	scfg := fleetServer(t, store)
	scfg.Time = func() time.Time { return now }
	ccfg := testClientConfig(t)
	ccfg.Time = scfg.Time
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	resumes(t, ccfg, scfg)
	first, _ := scfg.currentSessionKeys()

	now = now.Add(50 * time.Minute)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	resumes(t, ccfg, scfg) // a session sealed late in the first key's life
	now = now.Add(20 * time.Minute)
	if r, _ := resumes(t, ccfg, scfg); !r {
		t.Fatal("the session sealed with the previous key did not resume")
	}
	keys, _ := scfg.currentSessionKeys()
	if len(keys) != 2 || keys[1].name != first[0].name || keys[0].name == first[0].name {
		t.Fatalf("after a lifetime: %d keys, rotated %v", len(keys), keys[0].name != first[0].name)
	}
	now = now.Add(61 * time.Minute)
	keys, _ = scfg.currentSessionKeys()
	if keys[0].name == first[0].name || keys[1].name == first[0].name {
		t.Fatal("the first key outlived two lifetimes")
	}
}

// TestSharedSessionDeletedAfterFatalAlert: a fatal alert removes the
// session from the shared store too.
func TestSharedSessionDeletedAfterFatalAlert(t *testing.T) {
	store := newMapSessionCache()
	scfg := fleetServer(t, store, testKey(1))
	ccfg := testClientConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	client, server, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil || len(store.values()) != 1 {
		t.Fatal(cerr, serr)
	}
	client.sendAlert(alertInternalError)
	if _, err := server.Read(make([]byte, 1)); err == nil {
		t.Fatal("read after a fatal alert")
	}
	if len(store.values()) != 0 || store.deletes != 1 {
		t.Fatalf("store has %d values after the alert, %d deletes", len(store.values()), store.deletes)
	}
}

// TestSessionCacheSizeNegativeDisablesSharedCache: resumption off means
// the store is not used at all.
func TestSessionCacheSizeNegativeDisablesSharedCache(t *testing.T) {
	store := newMapSessionCache()
	scfg := fleetServer(t, store, testKey(1))
	scfg.SessionCacheSize = -1
	ccfg := testClientConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
	resumes(t, ccfg, scfg)
	if r, _ := resumes(t, ccfg, scfg); r || len(store.values()) != 0 {
		t.Fatal("resumed or stored with resumption off")
	}
}

// TestSessionMarshalling: what is sealed comes back as it was, for every
// shape of peer, and malformed plaintexts are refused.
func TestSessionMarshalling(t *testing.T) {
	p := getPKI(t)
	created := time.UnixMilli(time.Now().UnixMilli())
	peers := map[string]sessionPeer{
		"none":       {},
		"unverified": newSessionPeer(p.client.Sign.Leaf, p.client.Enc.Leaf, nil),
		"sign only":  newSessionPeer(p.client.Sign.Leaf, nil, nil),
		"verified": newSessionPeer(p.client.Sign.Leaf, p.client.Enc.Leaf, [][]*smx509.Certificate{
			{p.client.Sign.Leaf, p.ca}, {p.client.Sign.Leaf, p.intermediate, p.ca}}),
	}
	for name, peer := range peers {
		in := &serverSession{cipherSuite: 0xe053, masterSecret: bytes.Repeat([]byte{7}, 48), peer: peer, serverName: "bank.example", created: created}
		b, err := marshalSession(in)
		if err != nil {
			t.Fatal(name, err)
		}
		out, err := unmarshalSession(b)
		if err != nil {
			t.Fatal(name, err)
		}
		if out.cipherSuite != in.cipherSuite || !bytes.Equal(out.masterSecret, in.masterSecret) || out.serverName != in.serverName || !out.created.Equal(created) {
			t.Fatalf("%s: got %+v", name, out)
		}
		s1, e1, l1, _ := in.peer.certificates()
		s2, e2, l2, _ := out.peer.certificates()
		if !s1.Equal(s2) || !e1.Equal(e2) || len(l1) != len(l2) || in.peer.verified() != out.peer.verified() || len(out.peer.chains) != len(in.peer.chains) {
			t.Fatalf("%s: peer %+v, want %+v", name, out.peer, in.peer)
		}
		for i := range in.peer.chains {
			for j := range in.peer.chains[i] {
				if !in.peer.chains[i][j].Equal(out.peer.chains[i][j]) {
					t.Fatalf("%s: chain %d differs at %d", name, i, j)
				}
			}
		}
		// Every truncation and trailing byte is refused.
		for n := range len(b) {
			if _, err := unmarshalSession(b[:n]); err == nil {
				t.Fatalf("%s: truncated to %d bytes accepted", name, n)
			}
		}
		if _, err := unmarshalSession(append(b, 0)); err == nil {
			t.Fatalf("%s: trailing byte accepted", name)
		}
	}
	if _, err := marshalSession(&serverSession{}); !errors.Is(err, errSessionTooLarge) {
		t.Fatal("a session without a master secret was marshalled")
	}
}

// TestGetConfigForClient: the returned Config handles the connection;
// nil keeps the original; an error ends the handshake with internal_error;
// a fresh Config per connection still resumes, from the original's store.
func TestGetConfigForClient(t *testing.T) {
	p := getPKI(t)
	for _, shared := range []bool{false, true} {
		base := testServerConfig(t)
		if shared {
			base.ServerSessionCache = newMapSessionCache()
		}
		var calls int
		base.GetConfigForClient = func(info *ClientHelloInfo) (*Config, error) {
			calls++
			switch info.ServerName {
			case "tlcp.test":
				c := base.Clone() // a fresh one per connection
				c.GetConfigForClient = nil
				c.Certificates = []CertificatePair{p.serverViaInter}
				c.ClientAuth = RequireAndVerifyClientCert
				return c, nil
			case "refused.test":
				return nil, errors.New("no such site")
			}
			return nil, nil
		}
		ccfg := testClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
		client, server, cerr, serr := handshakePair(t, ccfg, base)
		if cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		if n := len(client.ConnectionState().PeerCertificates); n != 3 {
			t.Fatalf("the returned Config's pair was not used (%d certificates)", n)
		}
		if len(server.ConnectionState().VerifiedChains) == 0 {
			t.Fatal("the returned Config's ClientAuth was not applied")
		}
		if r, _ := resumes(t, ccfg, base); !r {
			t.Fatalf("shared %v: no resumption with a fresh Config per connection", shared)
		}
		if calls != 2 {
			t.Fatalf("GetConfigForClient called %d times", calls)
		}

		refused := testClientConfig(t)
		refused.InsecureSkipVerify = true
		refused.ServerName = "refused.test"
		_, _, cerr, serr = handshakePair(t, refused, base)
		if serr == nil || !strings.Contains(serr.Error(), "GetConfigForClient: no such site") {
			t.Fatalf("server error %v", serr)
		}
		wantAlert(t, cerr, alertInternalError)

		// No SNI: nil, the original Config.
		plain := testClientConfig(t)
		plain.ClientHelloNoExtensions = true
		client, _, cerr, serr = handshakePair(t, plain, base)
		if cerr != nil || serr != nil || len(client.ConnectionState().PeerCertificates) != 2 {
			t.Fatal("nil from GetConfigForClient did not keep the original Config", cerr, serr)
		}
	}
}

// FuzzStoredSession: whatever a store returns, opening and parsing it
// neither panics nor yields a session that does not marshal back the same.
func FuzzStoredSession(f *testing.F) {
	p := getPKI(f)
	for _, peer := range []sessionPeer{{}, newSessionPeer(p.client.Sign.Leaf, p.client.Enc.Leaf, nil),
		newSessionPeer(p.client.Sign.Leaf, nil, [][]*smx509.Certificate{{p.client.Sign.Leaf, p.ca}})} {
		b, err := marshalSession(&serverSession{cipherSuite: 0xe013, masterSecret: make([]byte, 48), peer: peer, created: time.UnixMilli(1)})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	keys := []sessionKey{newSessionKey(make([]byte, 32))}
	f.Fuzz(func(t *testing.T, data []byte) {
		if plain, ok := openSession(keys, []byte("id"), data); ok {
			t.Fatalf("forged value opened: %x", plain)
		}
		s, err := unmarshalSession(data)
		if err != nil {
			return
		}
		again, err := marshalSession(s)
		if err != nil {
			return // e.g. certificates that only the unverified form held
		}
		s2, err := unmarshalSession(again)
		if err != nil || s2.cipherSuite != s.cipherSuite || !bytes.Equal(s2.masterSecret, s.masterSecret) || s2.serverName != s.serverName {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestGetConfigForClientSessionKeys: a Config from GetConfigForClient
// that has its own session cache keys seals with them, in the original
// Config's store; one without uses the original's keys.
func TestGetConfigForClientSessionKeys(t *testing.T) {
	for _, ownKeys := range []bool{false, true} {
		store := newMapSessionCache()
		base := fleetServer(t, store, testKey(1))
		base.GetConfigForClient = func(*ClientHelloInfo) (*Config, error) {
			c := testServerConfig(t)
			if ownKeys {
				c.SetSessionCacheKeys([][SessionCacheKeySize]byte{testKey(2)})
			}
			return c, nil
		}
		ccfg := testClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
		resumes(t, ccfg, base)
		if len(store.values()) != 1 {
			t.Fatal("the session is not in the original Config's store")
		}
		want := byte(1)
		if ownKeys {
			want = 2
		}
		if r, _ := resumes(t, ccfg, fleetServer(t, store, testKey(want))); !r {
			t.Fatalf("own keys %v: the session was not sealed with key %d", ownKeys, want)
		}
	}
}
