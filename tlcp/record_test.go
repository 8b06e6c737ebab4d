// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm4"
)

// Tests of the record layer's alerts, with raw peers: a net.Conn that
// writes the bytes a test gives and reads what comes back.

// rawRecord frames body as one record, unprotected, whatever typ is.
func rawRecord(typ byte, vers uint16, body []byte) []byte {
	return append([]byte{typ, byte(vers >> 8), byte(vers), byte(len(body) >> 8), byte(len(body))}, body...)
}

// readRawAlert reads plaintext records from c until an alert and returns
// its description, or -1 if the connection ends or a protected record
// (which a raw peer cannot read) comes first.
func readRawAlert(c net.Conn) int {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		var hdr [recordHeaderLen]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return -1
		}
		body := make([]byte, binary.BigEndian.Uint16(hdr[3:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return -1
		}
		if recordType(hdr[0]) == recordTypeAlert && len(body) == 2 {
			return int(body[1])
		}
	}
}

// helloBytes returns a ClientHello our client would send: TLCP, or TLS 1.3
// only.
func helloBytes(t *testing.T, tls13 bool) []byte {
	t.Helper()
	cfg := testClientConfig(t)
	if tls13 {
		cfg.MinVersion, cfg.MaxVersion = VersionTLS13, VersionTLS13
	}
	c := Client(nil, cfg)
	hello, err := c.makeClientHello()
	if err != nil {
		t.Fatal(err)
	}
	if tls13 {
		if _, err := c.offerTLS13(context.Background(), hello); err != nil {
			t.Fatal(err)
		}
	}
	hello.original = nil
	b, err := hello.marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// protocolCase is TLCP or TLS 1.3 with the record versions a raw peer uses.
type protocolCase struct {
	name         string
	tls13        bool
	hello, later uint16 // record version of the first flight and after it
}

var protocolCases = []protocolCase{
	{"TLCP", false, VersionTLCP, VersionTLCP},
	{"TLS 1.3", true, 0x0301, 0x0303},
}

func (p protocolCase) configs(t *testing.T) (client, server *Config) {
	client, server = testClientConfig(t), testServerConfig(t)
	if p.tls13 {
		client.MinVersion, client.MaxVersion = VersionTLS13, VersionTLS13
	}
	return client, server
}

// TestUnknownContentTypes: a record of a content type neither protocol
// defines — 0 (once this package's in-band marker for skipped early
// data), 24 (heartbeat, never negotiated here), 255 — is unexpected_message
// wherever it comes: before the first handshake message, inside a
// fragmented one, between flights and after the handshake; on TLCP
// (INTEROP.md §1.2) and TLS 1.3 (RFC 8446 §5), at clients and servers.
// Where the alert goes in the clear, the raw peer must read it.
func TestUnknownContentTypes(t *testing.T) {
	type outcome struct {
		err   error // the Conn's own error
		alert int   // what the raw peer read, -1 for nothing readable
	}
	// Each scenario runs one Conn against a raw peer and returns what
	// happened, and whether the alert goes in the clear.
	scenarios := []struct {
		name  string
		run   func(t *testing.T, p protocolCase, bad []byte) outcome
		clear func(p protocolCase) bool
	}{
		{"server, before ClientHello", func(t *testing.T, p protocolCase, bad []byte) outcome {
			raw, s := tcpPair(t)
			_, scfg := p.configs(t)
			errc := make(chan error, 1)
			go func() { errc <- Server(s, scfg).Handshake() }()
			raw.Write(bad)
			return outcome{<-errc, readRawAlert(raw)}
		}, func(protocolCase) bool { return true }},
		{"server, inside a fragmented ClientHello", func(t *testing.T, p protocolCase, bad []byte) outcome {
			raw, s := tcpPair(t)
			_, scfg := p.configs(t)
			errc := make(chan error, 1)
			go func() { errc <- Server(s, scfg).Handshake() }()
			hello := helloBytes(t, p.tls13)
			raw.Write(rawRecord(byte(recordTypeHandshake), p.hello, hello[:10]))
			raw.Write(bad)
			return outcome{<-errc, readRawAlert(raw)}
		}, func(protocolCase) bool { return true }},
		{"server, after ClientHello", func(t *testing.T, p protocolCase, bad []byte) outcome {
			raw, s := tcpPair(t)
			_, scfg := p.configs(t)
			errc := make(chan error, 1)
			go func() { errc <- Server(s, scfg).Handshake() }()
			raw.Write(rawRecord(byte(recordTypeHandshake), p.hello, helloBytes(t, p.tls13)))
			// The server sends its flight and waits for the client's.
			raw.Write(bad)
			return outcome{<-errc, readRawAlert(raw)}
		}, func(p protocolCase) bool { return !p.tls13 }}, // TLS 1.3: under the server's handshake key
		{"client, before ServerHello", func(t *testing.T, p protocolCase, bad []byte) outcome {
			c, raw := tcpPair(t)
			ccfg, _ := p.configs(t)
			errc := make(chan error, 1)
			go func() { errc <- Client(c, ccfg).Handshake() }()
			var hdr [recordHeaderLen]byte
			io.ReadFull(raw, hdr[:])
			io.CopyN(io.Discard, raw, int64(binary.BigEndian.Uint16(hdr[3:])))
			raw.Write(bad)
			return outcome{<-errc, readRawAlert(raw)}
		}, func(protocolCase) bool { return true }},
		{"client, inside a fragmented ServerHello", func(t *testing.T, p protocolCase, bad []byte) outcome {
			c, raw := tcpPair(t)
			ccfg, _ := p.configs(t)
			errc := make(chan error, 1)
			go func() { errc <- Client(c, ccfg).Handshake() }()
			var hdr [recordHeaderLen]byte
			io.ReadFull(raw, hdr[:])
			io.CopyN(io.Discard, raw, int64(binary.BigEndian.Uint16(hdr[3:])))
			raw.Write(rawRecord(byte(recordTypeHandshake), p.later, []byte{typeServerHello, 0, 0, 70, 3}))
			raw.Write(bad)
			return outcome{<-errc, readRawAlert(raw)}
		}, func(protocolCase) bool { return true }},
	}
	for _, p := range protocolCases {
		for _, typ := range []byte{0, 24, 255} {
			for _, sc := range scenarios {
				t.Run(p.name+"/"+sc.name+"/type "+string('0'+rune(typ/100))+string('0'+rune(typ/10%10))+string('0'+rune(typ%10)), func(t *testing.T) {
					vers := p.later
					if strings.Contains(sc.name, "before") || strings.Contains(sc.name, "inside a fragmented ClientHello") {
						vers = p.hello
					}
					got := sc.run(t, p, rawRecord(typ, vers, []byte{1}))
					if got.err == nil || !strings.Contains(got.err.Error(), "unknown content type") {
						t.Fatalf("handshake error %v, want an unknown content type", got.err)
					}
					wantAlert(t, got.err, alertUnexpectedMessage)
					if sc.clear(p) && got.alert != int(alertUnexpectedMessage) {
						t.Errorf("the peer read alert %d, want unexpected_message (%d)", got.alert, alertUnexpectedMessage)
					}
				})
			}
			// After the handshake, the record comes in the clear (its
			// header is refused before anything is decrypted), from
			// either side; the alert goes back protected.
			for _, fromServer := range []bool{true, false} {
				name := p.name + "/after the handshake, to the client"
				if !fromServer {
					name = p.name + "/after the handshake, to the server"
				}
				t.Run(name+"/type "+string('0'+rune(typ/100))+string('0'+rune(typ/10%10))+string('0'+rune(typ%10)), func(t *testing.T) {
					ccfg, scfg := p.configs(t)
					client, server, cerr, serr := handshakePair(t, ccfg, scfg)
					if cerr != nil || serr != nil {
						t.Fatal(cerr, serr)
					}
					sender, receiver := server, client
					if !fromServer {
						sender, receiver = client, server
					}
					sender.conn.Write(rawRecord(typ, p.later, []byte{1}))
					_, err := receiver.Read(make([]byte, 10))
					wantAlert(t, err, alertUnexpectedMessage)
					if err == nil || !strings.Contains(err.Error(), "unknown content type") {
						t.Fatalf("Read: %v", err)
					}
					_, err = sender.Read(make([]byte, 10))
					var ae AlertError
					if !errors.As(err, &ae) || alert(ae) != alertUnexpectedMessage {
						t.Errorf("the sender read %v, want the peer's unexpected_message", err)
					}
				})
			}
		}
	}
}

// writeProtected sends one protected record of content type typ, which
// Write never does for most types: for TLS 1.3 typ goes inside.
func writeProtected(t testing.TB, c *Conn, typ recordType, data []byte) {
	t.Helper()
	c.out.Lock()
	defer c.out.Unlock()
	out, err := c.out.rp.Seal(make([]byte, recordHeaderLen), uint8(typ), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.putRecordHeader(out[:recordHeaderLen], typ, len(out)-recordHeaderLen)
	if _, err := c.conn.Write(out); err != nil {
		t.Fatal(err)
	}
}

// TestTLS13InnerContentTypes: inside TLS 1.3 protection, an inner type no
// protocol defines is unexpected_message too, and so is an inner plaintext
// with no non-zero byte (RFC 8446 §5.4), even the shortest, a bare tag.
func TestTLS13InnerContentTypes(t *testing.T) {
	p := protocolCases[1]
	for _, tc := range []struct {
		name string
		send func(t *testing.T, s *Conn)
		want string
	}{
		{"inner type 24", func(t *testing.T, s *Conn) { writeProtected(t, s, 24, []byte{1, 0, 0}) }, "unknown record type 24"},
		{"inner type 255", func(t *testing.T, s *Conn) { writeProtected(t, s, 255, []byte{1}) }, "unknown record type 255"},
		{"inner plaintext of zeros", func(t *testing.T, s *Conn) { writeProtected(t, s, 0, []byte{0, 0, 0}) }, "without a content type"},
		{"empty inner plaintext, a 16-byte record", func(t *testing.T, s *Conn) {
			// What Seal never makes: the tag over nothing at all.
			s.out.Lock()
			defer s.out.Unlock()
			key, iv := s.out.suite13.TrafficKey(s.out.secret13)
			aead, err := sm4.NewGCMWithKey(key)
			if err != nil {
				t.Fatal(err)
			}
			seq := s.out.rp.Sequence()
			for i := range 8 {
				iv[4+i] ^= byte(seq >> (56 - 8*i))
			}
			hdr := []byte{23, 3, 3, 0, 16}
			if _, err := s.conn.Write(aead.Seal(hdr, iv, nil, hdr)); err != nil {
				t.Fatal(err)
			}
		}, "without a content type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ccfg, scfg := p.configs(t)
			ccfg.CipherSuites = []uint16{ciphersuite.TLS_SM4_GCM_SM3}
			client, server, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatal(cerr, serr)
			}
			tc.send(t, server)
			_, err := client.Read(make([]byte, 10))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read: %v, want %q", err, tc.want)
			}
			wantAlert(t, err, alertUnexpectedMessage)
			var ae AlertError
			if _, err := server.Read(make([]byte, 10)); !errors.As(err, &ae) || alert(ae) != alertUnexpectedMessage {
				t.Errorf("the server read %v, want the client's unexpected_message", err)
			}
		})
	}
}

// TestTLS13KeyUpdateAlerts: a KeyUpdate whose request_update is neither 0
// nor 1 is illegal_parameter (RFC 8446 §4.6.3); one that does not end its
// record is unexpected_message (§5.1). The peer receives the alert.
func TestTLS13KeyUpdateAlerts(t *testing.T) {
	p := protocolCases[1]
	for _, tc := range []struct {
		name  string
		body  []byte
		alert alert
	}{
		{"request_update 2", []byte{typeKeyUpdate, 0, 0, 1, 2}, alertIllegalParameter},
		{"request_update 255", []byte{typeKeyUpdate, 0, 0, 1, 255}, alertIllegalParameter},
		{"not at a record boundary", []byte{typeKeyUpdate, 0, 0, 1, 0, typeKeyUpdate}, alertUnexpectedMessage},
		{"two bytes of request", []byte{typeKeyUpdate, 0, 0, 2, 0, 0}, alertDecodeError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ccfg, scfg := p.configs(t)
			client, server, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatal(cerr, serr)
			}
			writeProtected(t, server, recordTypeHandshake, tc.body)
			_, err := client.Read(make([]byte, 10))
			wantAlert(t, err, tc.alert)
			var ae AlertError
			if _, err := server.Read(make([]byte, 10)); !errors.As(err, &ae) || alert(ae) != tc.alert {
				t.Errorf("the server read %v, want the client's %v", err, tc.alert)
			}
		})
	}
}

// TestTLS13HandshakeMessageSpansKeyChange: a ClientHello whose record
// carries the start of another message makes that message span the change
// to the handshake keys, which RFC 8446 §5.1 forbids: unexpected_message.
func TestTLS13HandshakeMessageSpansKeyChange(t *testing.T) {
	raw, s := tcpPair(t)
	errc := make(chan error, 1)
	go func() { errc <- Server(s, testServerConfig(t)).Handshake() }()
	raw.Write(rawRecord(byte(recordTypeHandshake), 0x0301, append(helloBytes(t, true), typeFinished, 0)))
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "straddles a TLS 1.3 key change") {
		t.Fatalf("handshake: %v", err)
	}
	wantAlert(t, err, alertUnexpectedMessage)
}

// TestRecordOverflowAlerts: a record body over the limit of the moment is
// record_overflow, before it is read: 2^14 bytes in the clear, 2^14+256
// protected under TLS 1.3 (RFC 8446 §5.2), 2^14+2048 under TLCP
// (INTEROP.md §1.3).
func TestRecordOverflowAlerts(t *testing.T) {
	for _, tc := range []struct {
		p     protocolCase
		limit int
	}{{protocolCases[0], maxCiphertext}, {protocolCases[1], ciphersuite.MaxTLS13Ciphertext}} {
		t.Run(tc.p.name, func(t *testing.T) {
			for _, n := range []int{100, tc.limit + 1} {
				ccfg, scfg := tc.p.configs(t)
				client, server, cerr, serr := handshakePair(t, ccfg, scfg)
				if cerr != nil || serr != nil {
					t.Fatal(cerr, serr)
				}
				// Over the limit only the header is read; a body
				// within it is refused later, as a bad MAC.
				server.conn.Write(rawRecord(byte(recordTypeApplicationData), tc.p.later, make([]byte, n)))
				_, err := client.Read(make([]byte, 10))
				if n > tc.limit {
					wantAlert(t, err, alertRecordOverflow)
				} else {
					wantAlert(t, err, alertBadRecordMAC)
				}
			}
		})
	}
	// Before any key, the limit is the plaintext one.
	raw, s := tcpPair(t)
	errc := make(chan error, 1)
	go func() { errc <- Server(s, testServerConfig(t)).Handshake() }()
	raw.Write(rawRecord(byte(recordTypeHandshake), VersionTLCP, make([]byte, maxPlaintext+1)))
	wantAlert(t, <-errc, alertRecordOverflow)
	if a := readRawAlert(raw); a != int(alertRecordOverflow) {
		t.Errorf("the peer read alert %d", a)
	}
}

// TestTLS13KeyUpdateInsideBatch: records that arrive together are opened
// as a batch, and a KeyUpdate among them ends it, so that the records
// after it are opened under the new key; with a Read buffer that takes
// the data (opened straight into it) and with one that does not (opened
// in place and queued).
func TestTLS13KeyUpdateInsideBatch(t *testing.T) {
	p := protocolCases[1]
	for _, readSize := range []int{1 << 20, 100} {
		ccfg, scfg := p.configs(t)
		client, server, cerr, serr := handshakePair(t, ccfg, scfg)
		if cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		want := make([]byte, 0, 6*maxPlaintext)
		for i := range 3 {
			msg := make([]byte, 2*maxPlaintext)
			for j := range msg {
				msg[j] = byte(i*7 + j)
			}
			if _, err := server.Write(msg); err != nil {
				t.Fatal(err)
			}
			want = append(want, msg...)
			if i < 2 {
				server.out.Lock()
				err := server.updateWriteKeyLocked(i == 1)
				server.out.Unlock()
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		time.Sleep(50 * time.Millisecond) // let it all arrive, to be read in one go
		got := make([]byte, 0, len(want))
		buf := make([]byte, readSize)
		for len(got) < len(want) {
			n, err := client.Read(buf)
			if err != nil {
				t.Fatalf("read size %d, after %d bytes: %v", readSize, len(got), err)
			}
			got = append(got, buf[:n]...)
		}
		if string(got) != string(want) {
			t.Fatalf("read size %d: data differs", readSize)
		}
		if string(client.in.secret13) != string(server.out.secret13) {
			t.Errorf("read size %d: the client did not follow the KeyUpdates", readSize)
		}
	}
}
