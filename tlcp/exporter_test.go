// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// TestExportKeyingMaterial: both ends export the same material on every
// protocol and kind of suite, after a full and a resumed handshake; it
// changes with the label, the context, the connection and (TLCP) between
// no context and an empty one; the key schedule's labels are refused in
// TLCP, lengths out of range everywhere, and nothing is exported before
// the handshake.
func TestExportKeyingMaterial(t *testing.T) {
	for _, tc := range []struct {
		name  string
		suite uint16
		tls13 bool
	}{
		{"ECC_SM4_GCM_SM3", ciphersuite.ECC_SM4_GCM_SM3, false},
		{"ECC_SM4_CBC_SM3", ciphersuite.ECC_SM4_CBC_SM3, false},
		{"ECDHE_SM4_GCM_SM3", ciphersuite.ECDHE_SM4_GCM_SM3, false},
		{"TLS_SM4_GCM_SM3", 0x00C6, true},
		{"TLS_SM4_CCM_SM3", 0x00C7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			if tc.tls13 {
				ccfg = tls13ClientConfig(t)
			}
			ccfg.CipherSuites = []uint16{tc.suite}
			if tc.suite == ciphersuite.ECDHE_SM4_GCM_SM3 {
				ccfg.Certificates = testClientConfig(t).Certificates
				if len(ccfg.Certificates) == 0 {
					t.Skip("no client pair")
				}
			}
			ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
			if _, err := Client(nil, ccfg).ExportKeyingMaterial("x", nil, 8); err == nil {
				t.Fatal("exported before the handshake")
			}
			var first []byte
			for round := range 2 {
				c, s, cerr, serr := handshakePair(t, ccfg, scfg)
				if cerr != nil || serr != nil {
					t.Fatalf("handshake: %v, %v", cerr, serr)
				}
				if got := c.ConnectionState().DidResume; got != (round == 1) {
					t.Fatalf("round %d: DidResume %v", round, got)
				}
				export := func(conn *Conn, label string, context []byte, n int) []byte {
					t.Helper()
					out, err := conn.ExportKeyingMaterial(label, context, n)
					if err != nil {
						t.Fatalf("%q: %v", label, err)
					}
					if len(out) != n {
						t.Fatalf("%d bytes, want %d", len(out), n)
					}
					return out
				}
				a := export(c, "EXPORTER-test", []byte("ctx"), 40)
				if b := export(s, "EXPORTER-test", []byte("ctx"), 40); !bytes.Equal(a, b) {
					t.Fatalf("client and server disagree:\n%x\n%x", a, b)
				}
				st := s.ConnectionState()
				if b, err := st.ExportKeyingMaterial("EXPORTER-test", []byte("ctx"), 40); err != nil || !bytes.Equal(a, b) {
					t.Fatalf("ConnectionState's exporter: %x, %v", b, err)
				}
				for _, other := range [][]byte{
					export(c, "EXPORTER-other", []byte("ctx"), 40),
					export(c, "EXPORTER-test", []byte("ctX"), 40),
				} {
					if bytes.Equal(a, other) {
						t.Fatal("the label or context does not change the output")
					}
				}
				none, empty := export(c, "EXPORTER-test", nil, 16), export(c, "EXPORTER-test", []byte{}, 16)
				if tc.tls13 != bytes.Equal(none, empty) {
					t.Fatalf("no context vs empty context: equal %v (RFC 5705 tells them apart, RFC 8446 does not)", bytes.Equal(none, empty))
				}
				if round == 0 {
					first = a
				} else if bytes.Equal(first, a) {
					t.Fatal("a resumed connection exports what the first one did")
				}
				if _, err := c.ExportKeyingMaterial("EXPORTER-test", nil, 255*32+1); err == nil {
					t.Fatal("length beyond HKDF's limit accepted")
				}
				if !tc.tls13 {
					for _, l := range []string{"client finished", "server finished", "master secret", "key expansion"} {
						if _, err := c.ExportKeyingMaterial(l, nil, 16); err == nil {
							t.Fatalf("reserved label %q accepted", l)
						}
					}
					if _, err := c.ExportKeyingMaterial("EXPORTER-test", make([]byte, 1<<16), 16); err == nil {
						t.Fatal("a context of 65536 bytes accepted")
					}
				}
				if tc.tls13 {
					readTickets(t, c, s)
				}
				c.Close()
				s.Close()
			}
		})
	}
}

// TestExporterKnownAnswers checks both exporters against the values
// testdata/exporter/kat.py derives from the specifications (and, for
// P_SM3, checks against openssl's TLS1-PRF).
func TestExporterKnownAnswers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "exporter", "kat.json"))
	if err != nil {
		t.Fatal(err)
	}
	type kat struct {
		Name, Label, Output  string
		Master               *string `json:"master"`
		ClientRandom         *string `json:"client_random"`
		ServerRandom         *string `json:"server_random"`
		ExporterMasterSecret *string `json:"exporter_master_secret"`
		Context              *string `json:"context"`
		Length               int
	}
	var file struct{ TLCP, TLS13 []kat }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	unhex := func(s *string) []byte {
		if s == nil {
			return nil
		}
		b, err := hex.DecodeString(*s)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			b = []byte{}
		}
		return b
	}
	check := func(proto string, k kat, f ekmFunc) {
		got, err := f(k.Label, unhex(k.Context), k.Length)
		if err != nil || hex.EncodeToString(got) != k.Output {
			t.Errorf("%s %s: %x (%v), want %s", proto, k.Name, got, err, k.Output)
		}
	}
	if len(file.TLCP) == 0 || len(file.TLS13) == 0 {
		t.Fatal("no known answers")
	}
	for _, k := range file.TLCP {
		master := ciphersuite.NewMaster(unhex(k.Master))
		check("TLCP", k, tlcpExporter(master, unhex(k.ClientRandom), unhex(k.ServerRandom)))
	}
	for _, k := range file.TLS13 {
		check("TLS 1.3", k, tls13Exporter(unhex(k.ExporterMasterSecret)))
	}
}
