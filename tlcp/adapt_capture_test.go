// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bufio"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// captured is one smtool s_client -msg trace (testdata/tlcp/interop).
type captured struct {
	sent     []*clientHelloMsg
	received map[string][][]byte // message name → each one's bytes
	alerts   []string            // received alerts, as the trace names them
}

func readCapture(t *testing.T, name string) *captured {
	t.Helper()
	f, err := os.Open("../testdata/tlcp/interop/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &captured{received: make(map[string][][]byte)}
	var cur *[]byte
	var curName string
	var sent bool
	flush := func() {
		if cur == nil {
			return
		}
		if sent && curName == "ClientHello" {
			var ch clientHelloMsg
			if !ch.unmarshal(*cur) {
				t.Fatalf("%s: a ClientHello does not parse", name)
			}
			c.sent = append(c.sent, &ch)
		} else if !sent {
			c.received[curName] = append(c.received[curName], *cur)
		}
		cur = nil
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ">>> TLCP Handshake"), strings.HasPrefix(line, "<<< TLCP Handshake"):
			flush()
			sent = line[0] == '>'
			curName = line[strings.LastIndex(line, ", ")+2:]
			cur = new([]byte)
		case strings.HasPrefix(line, "<<< TLCP Alert"):
			flush()
			c.alerts = append(c.alerts, line[strings.LastIndex(line, ", ")+2:])
		case strings.HasPrefix(line, "    ") && cur != nil:
			b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(line), " ", ""))
			if err != nil {
				t.Fatalf("%s: %q: %v", name, line, err)
			}
			*cur = append(*cur, b...)
		default:
			flush()
		}
	}
	flush()
	return c
}

func (c *captured) serverHello(t *testing.T, i int) *serverHelloMsg {
	t.Helper()
	var sh serverHelloMsg
	if len(c.received["ServerHello"]) <= i || !sh.unmarshal(c.received["ServerHello"][i]) {
		t.Fatalf("no ServerHello %d", i)
	}
	return &sh
}

func (c *captured) certificateRequest(t *testing.T, i int) *certificateRequestMsg {
	t.Helper()
	var req certificateRequestMsg
	if len(c.received["CertificateRequest"]) <= i || !req.unmarshal(c.received["CertificateRequest"][i]) {
		t.Fatalf("no CertificateRequest %d", i)
	}
	return &req
}

// TestDetectionRulesOnCaptures: the detection rules (adapt.go, INTEROP.md
// §12.2), run on the flights each peer sent, give the forms the peer took,
// and the refusals that start a retry are the ones each peer sent.
func TestDetectionRulesOnCaptures(t *testing.T) {
	for _, tc := range []struct {
		file  string
		ecdhe bool
		ch    int // which ClientHello of the trace the flight answers
		want  interopForms
	}{
		// GmSSL 3.1.1, reached without extensions: its flight is GmSSL's,
		// but ECC without extensions sent could be 3.1.1: the hash form.
		{"gmssl311-ecc-auth-sign.txt", false, 0, interopForms{}},
		{"gmssl311-default-client.txt", false, 1, interopForms{}}, // the retry's flight
		// GmSSL master, server_name sent and answered: ≥ 3.2.
		{"gmsslmaster-ecc-auth-sni.txt", false, 0, interopForms{rawCV: true, framing71: true}},
		{"gmsslmaster-ecdhe-default-client.txt", true, 0, interopForms{rawCV: true, framing71: true}},
		// No extensions sent, but ECDHE, which 3.1.1 does not have.
		{"gmsslmaster-ecdhe-nosni-bare-refused.txt", true, 0, interopForms{rawCV: true, framing71: true}},
		// No extensions sent and ECC: ambiguous; the retry's flight is the
		// same (the raw form then comes from the hint).
		{"gmsslmaster-ecc-auth-nosni-default-client.txt", false, 0, interopForms{}},
		{"tongsuo-ecc-auth-sign-refused.txt", false, 0, interopForms{includeEnc: true}},
		{"tongsuo-ecc-auth-default-client.txt", false, 0, interopForms{includeEnc: true}},
		{"shangmi-ecc-auth-default-client.txt", false, 0, interopForms{}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := readCapture(t, tc.file)
			sent := c.sent[tc.ch].hasExtensions
			got := detectForms(sent, c.serverHello(t, 0), c.certificateRequest(t, 0), tc.ecdhe)
			if got != tc.want {
				t.Fatalf("detectForms = %+v, want %+v", got, tc.want)
			}
		})
	}

	// The refusals behind the retries, as each peer sent them.
	for _, tc := range []struct{ file, alert string }{
		{"gmssl311-sni-refused.txt", "fatal unexpected_message"},            // extensions
		{"gmssl311-ecc-auth-sign-enc-refused.txt", "fatal bad_certificate"}, // SIGN, ENC
		{"gmssl311-ecc-auth-rawcv-refused.txt", "fatal decrypt_error"},      // raw CertificateVerify
		{"gmsslmaster-ecc-auth-sign-enc-refused.txt", "fatal bad_certificate"},
		{"gmsslmaster-ecdhe-nosni-bare-refused.txt", "fatal decode_error"}, // 69-byte ClientKeyExchange
		{"tongsuo-ecc-auth-sign-refused.txt", "fatal handshake_failure"},   // SIGN alone
	} {
		if c := readCapture(t, tc.file); len(c.alerts) == 0 || c.alerts[0] != tc.alert {
			t.Errorf("%s: alerts %q, want %q", tc.file, c.alerts, tc.alert)
		}
	}
	// GmSSL master closes without an alert on the hash CertificateVerify:
	// the trace has two handshakes, the first ending with none.
	c := readCapture(t, "gmsslmaster-ecc-auth-nosni-default-client.txt")
	if len(c.sent) != 2 || len(c.received["Finished"]) != 1 || len(c.alerts) != 1 || c.alerts[0] != "warning close_notify" {
		t.Errorf("GmSSL master, no SNI: %d ClientHellos, %d Finished, alerts %q", len(c.sent), len(c.received["Finished"]), c.alerts)
	}
	// GmSSL 3.1.1 answers a ClientHello without extensions with a
	// ServerHello without any; the retry's ClientHello has none.
	c = readCapture(t, "gmssl311-default-client.txt")
	if len(c.sent) != 2 || !c.sent[0].hasExtensions || c.sent[1].hasExtensions || c.serverHello(t, 0).hasExtensions {
		t.Errorf("GmSSL 3.1.1 retry: %d ClientHellos", len(c.sent))
	}
}
