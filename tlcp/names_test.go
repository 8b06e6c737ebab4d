// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto/tls"
	"sync"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// TestCipherSuiteName names every suite the one-port listener can
// negotiate: TLCP, TLS 1.3-SM and crypto/tls's.
func TestCipherSuiteName(t *testing.T) {
	for id, want := range map[uint16]string{
		ciphersuite.ECC_SM4_GCM_SM3: "ECC_SM4_GCM_SM3",
		0x00C6:                      "TLS_SM4_GCM_SM3",
		0x00C7:                      "TLS_SM4_CCM_SM3",
		tls.TLS_AES_128_GCM_SHA256:  "TLS_AES_128_GCM_SHA256",
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
		0x00FF: "EMPTY_RENEGOTIATION_INFO_SCSV",
		0xFAFA: "0xFAFA",
	} {
		if got := CipherSuiteName(id); got != want {
			t.Errorf("CipherSuiteName(%#04x) = %q, want %q", id, got, want)
		}
	}
	for v, want := range map[uint16]string{VersionTLCP: "TLCP", VersionTLS13: "TLS 1.3", tls.VersionTLS12: "TLS 1.2"} {
		if got := VersionName(v); got != want {
			t.Errorf("VersionName(%#04x) = %q, want %q", v, got, want)
		}
	}
	for p, want := range map[Protocol]string{0: "", ProtocolTLCP: "TLCP", ProtocolTLS13SM: "TLS 1.3-SM", ProtocolTLS: "TLS", 9: "Protocol(9)"} {
		if got := p.String(); got != want {
			t.Errorf("Protocol(%d) = %q, want %q", p, got, want)
		}
	}
}

// alertLog records what OnAlert is told.
type alertLog struct {
	mu sync.Mutex
	ev []AlertEvent
}

func (l *alertLog) on(_ *Conn, e AlertEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ev = append(l.ev, e)
}

func (l *alertLog) events() []AlertEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]AlertEvent(nil), l.ev...)
}

// TestOnAlert: the callback sees the fatal alert a failed handshake sends
// and the peer receives, and close_notify both ways, with the direction
// and level, on both protocols.
func TestOnAlert(t *testing.T) {
	for _, tls13 := range []bool{false, true} {
		name := "TLCP"
		if tls13 {
			name = "TLS 1.3"
		}
		t.Run(name, func(t *testing.T) {
			newClient := func() *Config {
				if tls13 {
					return tls13ClientConfig(t)
				}
				return testClientConfig(t)
			}
			var clog, slog alertLog
			ccfg, scfg := newClient(), testServerConfig(t)
			ccfg.RootCAs = nil // the client cannot verify the server: bad_certificate or unknown_ca
			ccfg.OnAlert, scfg.OnAlert = clog.on, slog.on
			_, _, cerr, _ := handshakePair(t, ccfg, scfg)
			if cerr == nil {
				t.Fatal("the handshake succeeded")
			}
			ce, se := clog.events(), slog.events()
			if len(ce) != 1 || !ce[0].Sent || ce[0].Level != 2 {
				t.Fatalf("client saw %+v, want one fatal alert sent", ce)
			}
			if len(se) != 1 || se[0].Sent || se[0] != (AlertEvent{Sent: false, Level: 2, Description: ce[0].Description}) {
				t.Fatalf("server saw %+v, want the client's alert %+v received", se, ce[0])
			}

			clog, slog = alertLog{}, alertLog{}
			ccfg, scfg = newClient(), testServerConfig(t)
			ccfg.OnAlert, scfg.OnAlert = clog.on, slog.on
			c, s, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatal(cerr, serr)
			}
			done := make(chan struct{})
			go func() { s.Read(make([]byte, 1)); s.Close(); close(done) }()
			c.Close()
			<-done
			closeNotify := AlertEvent{Level: 1, Description: AlertError(alertCloseNotify)}
			sent := closeNotify
			sent.Sent = true
			if ce := clog.events(); len(ce) == 0 || ce[0] != sent {
				t.Errorf("client saw %+v, want close_notify sent first", ce)
			}
			if se := slog.events(); len(se) < 1 || se[0] != closeNotify {
				t.Errorf("server saw %+v, want close_notify received first", se)
			}
			if ce := clog.events(); ce[0].Description.Error() != "tlcp: close notify" {
				t.Errorf("Description names itself %q", ce[0].Description.Error())
			}
		})
	}
}
