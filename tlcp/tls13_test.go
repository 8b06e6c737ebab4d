// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

func tls13ClientConfig(t testing.TB) *Config {
	cfg := testClientConfig(t)
	cfg.MinVersion = VersionTLS13
	cfg.MaxVersion = VersionTLS13
	return cfg
}

func TestTLS13Basic(t *testing.T) {
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		t.Run(ciphersuite.Name(id), func(t *testing.T) {
			ccfg := tls13ClientConfig(t)
			ccfg.CipherSuites = []uint16{id}
			client, server, cerr, serr := handshakePair(t, ccfg, testServerConfig(t))
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			cs := client.ConnectionState()
			if cs.Version != VersionTLS13 || cs.CipherSuite != id {
				t.Fatalf("state %+v", cs)
			}
			exchange(t, client, server, 100000)
		})
	}
}
