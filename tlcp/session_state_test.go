// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"testing"
)

// recordingCache keeps the last session put into it.
type recordingCache struct {
	key string
	cs  *ClientSessionState
}

func (c *recordingCache) Get(key string) (*ClientSessionState, bool) {
	if c.cs == nil || key != c.key {
		return nil, false
	}
	return c.cs, true
}

func (c *recordingCache) Put(key string, cs *ClientSessionState) { c.key, c.cs = key, cs }

// TestClientSessionStateRoundTrip: a session written out by one client and
// read back by another client (as smtool s_client -sess_out/-sess_in do)
// resumes, with the server's verified certificates.
func TestClientSessionStateRoundTrip(t *testing.T) {
	for _, insecure := range []bool{false, true} {
		scfg := testServerConfig(t)
		first := &recordingCache{}
		ccfg := testClientConfig(t)
		ccfg.InsecureSkipVerify = insecure
		ccfg.ClientSessionCache = first
		if st := resumeHandshake(t, ccfg, scfg); st.DidResume {
			t.Fatal("first handshake resumed")
		}
		if first.cs == nil {
			t.Fatal("no session cached")
		}
		data, err := first.cs.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		cs, err := ParseClientSessionState(data)
		if err != nil {
			t.Fatal(err)
		}
		again, err := cs.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("re-marshalled session differs (%v)", err)
		}
		ccfg2 := testClientConfig(t)
		ccfg2.InsecureSkipVerify = insecure
		ccfg2.ClientSessionCache = &recordingCache{key: first.key, cs: cs}
		st := resumeHandshake(t, ccfg2, scfg)
		if !st.DidResume {
			t.Fatalf("insecure=%v: the parsed session did not resume", insecure)
		}
		if st.PeerSignCertificate == nil || st.PeerEncCertificate == nil {
			t.Fatalf("insecure=%v: resumed without the server's certificates", insecure)
		}
		if !insecure && len(st.VerifiedChains) == 0 {
			t.Fatal("verified session came back unverified")
		}
	}
	for _, bad := range [][]byte{nil, {'C'}, {'C', 0}, {'X', 1, 1}, {'C', 1, 1, 1}} {
		if _, err := ParseClientSessionState(bad); err == nil {
			t.Errorf("ParseClientSessionState(%x) accepted", bad)
		}
	}
}

func FuzzParseClientSessionState(f *testing.F) {
	f.Add([]byte{'C', 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ParseClientSessionState(data)
		if err != nil {
			return
		}
		b, err := cs.MarshalBinary()
		if err != nil {
			t.Fatalf("parsed session does not marshal: %v", err)
		}
		// What it marshals to is a session state that parses, to the
		// same encoding: nothing the parser accepted is lost or changed
		// on the way through a cache.
		again, err := ParseClientSessionState(b)
		if err != nil {
			t.Fatalf("re-marshalled session %x does not parse: %v", b, err)
		}
		if b2, err := again.MarshalBinary(); err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("session encoding is not stable: %x then %x (%v)", b, b2, err)
		}
	})
}

// resumeHandshake runs one handshake and returns the client's view of it.
func resumeHandshake(t *testing.T, ccfg, scfg *Config) ConnectionState {
	t.Helper()
	client, _, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, serr)
	}
	return client.ConnectionState()
}
