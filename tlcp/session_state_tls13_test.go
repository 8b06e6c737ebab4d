// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"testing"
)

// TestClientTicketRoundTrip: a TLS 1.3 ticket written out by one client
// and read back by another (smtool s_client -sess_out/-sess_in) resumes,
// with the server's verified certificate, and keeps its version.
func TestClientTicketRoundTrip(t *testing.T) {
	scfg := testServerConfig(t)
	first := &recordingCache{}
	ccfg := tls13ClientConfig(t)
	ccfg.ClientSessionCache = first
	client, server := mustHandshake13(t, ccfg, scfg)
	readTickets(t, client, server)
	if first.cs == nil || first.cs.Version() != VersionTLS13 {
		t.Fatalf("no TLS 1.3 ticket cached: %+v", first.cs)
	}
	data, err := first.cs.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ParseClientSessionState(data)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Version() != VersionTLS13 {
		t.Fatalf("parsed ticket has version %#x", cs.Version())
	}
	again, err := cs.MarshalBinary()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("re-marshalled ticket differs (%v)", err)
	}
	ccfg2 := tls13ClientConfig(t)
	ccfg2.ClientSessionCache = &recordingCache{key: first.key, cs: cs}
	client, _ = mustHandshake13(t, ccfg2, scfg)
	st := client.ConnectionState()
	if !st.DidResume || st.Version != VersionTLS13 {
		t.Fatalf("the parsed ticket did not resume: %+v", st)
	}
	if st.PeerSignCertificate == nil || len(st.VerifiedChains) == 0 {
		t.Fatal("resumed without the server's verified certificate")
	}
	for _, bad := range [][]byte{{'T'}, {'T', 0, 0}, {'T', 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1}, append(data[:len(data)-1:len(data)-1], 0xff, 0xff)} {
		if _, err := ParseClientSessionState(bad); err == nil {
			t.Errorf("ParseClientSessionState(%x) accepted", bad)
		}
	}
}
