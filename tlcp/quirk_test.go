// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// quirkyServer puts a real server behind a relay that plays a deployed
// server's quirk: when the client sends a handshake record for which
// refuse returns true, the relay answers with the alert (or, for -1, just
// closes, as GmSSL does on a bad CertificateVerify) instead of passing it
// on.
func quirkyServer(t *testing.T, scfg *Config, refuse func(body []byte) bool, answer int) net.Conn {
	client, relayIn := tcpPair(t)
	relayOut, srv := tcpPair(t)
	go Server(srv, scfg).Handshake()
	go io.Copy(relayIn, relayOut)
	go func() {
		defer relayIn.Close()
		defer relayOut.Close()
		for {
			hdr := make([]byte, 5)
			if _, err := io.ReadFull(relayIn, hdr); err != nil {
				return
			}
			body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
			if _, err := io.ReadFull(relayIn, body); err != nil {
				return
			}
			if hdr[0] == byte(recordTypeHandshake) && refuse(body) {
				if answer >= 0 {
					relayIn.Write([]byte{21, 1, 1, 0, 2, 2, byte(answer)})
				}
				return
			}
			relayOut.Write(append(hdr, body...))
		}
	}()
	return client
}

// TestErrorsNameTheQuirkSwitch: when a server refuses a form that a known
// peer refuses, the client's error names the Config switch for the other
// form; with the switch set the handshake succeeds; errors.As still finds
// the alert. An unrelated failure gets no hint.
func TestErrorsNameTheQuirkSwitch(t *testing.T) {
	msgType := func(typ uint8) func([]byte) bool {
		return func(b []byte) bool { return len(b) > 0 && b[0] == typ }
	}
	tests := []struct {
		name   string
		client func(*Config)
		server func(*Config)
		refuse func([]byte) bool
		answer int
		fix    func(*Config)
		want   string
	}{
		{
			name: "GmSSL 3.1.1 refuses extensions",
			refuse: func(b []byte) bool {
				var ch clientHelloMsg
				return b[0] == typeClientHello && ch.unmarshal(b) && ch.hasExtensions
			},
			answer: int(alertUnexpectedMessage),
			fix:    func(c *Config) { c.ClientHelloNoExtensions = true },
			want:   "ClientHello carried server_name, and GmSSL 3.1.1 servers refuse any extension; for such a server set Config.ClientHelloNoExtensions",
		},
		{
			name:   "GmSSL ≥ 3.2 wants the 71-byte ECDHE ClientKeyExchange",
			client: func(c *Config) { c.CipherSuites = []uint16{ciphersuite.ECDHE_SM4_GCM_SM3} },
			refuse: func(b []byte) bool { return b[0] == typeClientKeyExchange && len(b) == 4+69 },
			answer: int(alertDecodeError),
			fix:    func(c *Config) { c.ClientECDHEFraming71 = true },
			want:   "set Config.ClientECDHEFraming71",
		},
		{
			name:   "Tongsuo wants ENC with ECC client authentication",
			client: func(c *Config) { c.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3} },
			server: func(c *Config) { c.ClientAuth = RequireAndVerifyClientCert },
			refuse: func(b []byte) bool {
				var m certificateMsg
				return b[0] == typeCertificate && m.unmarshal(b) && len(m.certificates) < 2
			},
			answer: int(alertHandshakeFailure),
			fix:    func(c *Config) { c.ClientCertIncludeEnc = true },
			want:   "set Config.ClientCertIncludeEnc",
		},
		{
			name:   "GmSSL ≥ 3.2 closes on the standard CertificateVerify",
			server: func(c *Config) { c.ClientAuth = RequireAndVerifyClientCert },
			refuse: msgType(typeCertificateVerify),
			answer: -1,
			want:   "connection during the handshake",
			// and the hint, checked below
		},
		{
			name:   "GmSSL ≥ 3.2 rejects the standard CertificateVerify with decrypt_error",
			server: func(c *Config) { c.ClientAuth = RequireAndVerifyClientCert },
			refuse: msgType(typeCertificateVerify),
			answer: int(alertDecryptError),
			want:   "set Config.CertificateVerifyRawTranscript",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			if tt.client != nil {
				tt.client(ccfg)
			}
			if tt.server != nil {
				tt.server(scfg)
			}
			err := Client(quirkyServer(t, scfg, tt.refuse, tt.answer), ccfg).Handshake()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to say %q", err, tt.want)
			}
			if tt.answer >= 0 {
				var ae AlertError
				if !errors.As(err, &ae) || int(ae) != tt.answer {
					t.Fatalf("errors.As finds alert %v in %v", ae, err)
				}
				var op *net.OpError
				if !errors.As(err, &op) || op.Op != "remote error" {
					t.Fatal("the hint hides the *net.OpError")
				}
			}
			if tt.answer < 0 && !strings.HasSuffix(err.Error(), "set Config.CertificateVerifyRawTranscript)") {
				t.Fatalf("error %v has no hint", err)
			}
			// The switch fixes it (the real server takes either form).
			fixed := ccfg.Clone()
			if tt.fix != nil {
				tt.fix(fixed)
			} else {
				fixed.CertificateVerifyRawTranscript = true
			}
			refuse := tt.refuse
			if tt.fix == nil {
				// The relay cannot tell the forms apart; it refuses
				// only the first.
				refused := false
				refuse = func(b []byte) bool {
					if !refused && tt.refuse(b) {
						refused = true
						return !fixed.CertificateVerifyRawTranscript
					}
					return false
				}
			}
			if err := Client(quirkyServer(t, scfg, refuse, tt.answer), fixed).Handshake(); err != nil {
				t.Fatalf("with the switch: %v", err)
			}
		})
	}

	// No hint for failures the quirks do not explain.
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_CBC_SM3}
	scfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
	_, _, cerr, _ := handshakePair(t, ccfg, scfg)
	var qe *quirkError
	if cerr == nil || errors.As(cerr, &qe) {
		t.Fatalf("no common suite: %v", cerr)
	}
	ccfg = testClientConfig(t)
	ccfg.ClientHelloNoExtensions = true
	err := Client(quirkyServer(t, testServerConfig(t), msgType(typeClientHello), int(alertUnexpectedMessage)), ccfg).Handshake()
	if err == nil || errors.As(err, &qe) {
		t.Fatalf("ClientHello without extensions refused: %v", err)
	}
}
