// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.Join(strings.Fields(s), "")
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Points from INTEROP.md §10 C.
const (
	katServerEphPub = "041e97d8c8d2122c6790a9dcf9ff293e7d84d078548f28773512b4bbc429f94aca" +
		"a717c4fd6f526c4a2049aad7b9401236ee8a1303b4dcb8c89c569a510427e5ef"
	katClientEphPub = "048aea9dab6439cad4001ee6ce8874e47e6bb8a4fc9ca893a822971f1603daf419" +
		"8fd142cc5a9c570cfe4bfb266790001cfe5f8dd806c6d45b45e09513dd4e1d09"
)

// TestGoldenMessages checks marshalled bytes against INTEROP.md §3 and §10.
func TestGoldenMessages(t *testing.T) {
	clientParams := marshalECDHEParams(unhex(t, katClientEphPub))
	serverParams := marshalECDHEParams(unhex(t, katServerEphPub))
	eccSig := unhex(t, `3046022100e0b61d09d8d1e4a74e6a8c2478dfafb3ec8aa8b7819043784363ddb47e13f6ff
		02210088d174bb669eb98b6c25485865a3b9fe7ccbfa5cead6a9f9c575d59497122235`)
	ecdheSig := unhex(t, `304402200408036933a3f3441435ba92cfb5e9ca7b5600dd7d1a00ae76bc5637c73f9a56
		0220770a9e8f81dad9b65b05c3c527b2dd95ef81ae73966ed548b7985c864d794d8e`)
	eccCKE := unhex(t, `30819802201d0ccc1566dd91df2e0b16562f5f2d12e9c3f805a67a533dc2b38d48df9bffbb
		02207a3ddc026b5336ee85eeb5b33bce85bc302b67aa216b81baa8466751d07c04c5
		042028be668e735f6be742d13ab086dfe7657f0d6e98e5207249f4afc4109ce497df
		04305539841b5577ad2453ad8dea2ca3af2caddc6c450b4984a881627158550fe704790b02b81db72beb8143b68705150899`)
	gm2Random := unhex(t, "c1ab18299e6974ebe4cd19e7c0e67755c385862bd64fce119a2a53729ff417dd")
	tests := []struct {
		name string
		msg  handshakeMessage
		want string
	}{
		{"ClientKeyExchange ECDHE 69", &clientKeyExchangeMsg{params: clientParams}, "10000045 03002941" + katClientEphPub},
		{"ClientKeyExchange ECDHE 71", &clientKeyExchangeMsg{params: clientParams, vector: true}, "10000047 0045 03002941" + katClientEphPub},
		{"ClientKeyExchange ECC", &clientKeyExchangeMsg{ciphertext: eccCKE}, "1000009d 009b" + hex.EncodeToString(eccCKE)},
		{"ServerKeyExchange ECC", &serverKeyExchangeMsg{signature: eccSig}, "0c00004a 0048" + hex.EncodeToString(eccSig)},
		{"ServerKeyExchange ECDHE", &serverKeyExchangeMsg{params: serverParams, signature: ecdheSig},
			"0c00008d 03002941" + katServerEphPub + "0046" + hex.EncodeToString(ecdheSig)},
		{"Finished", &finishedMsg{verifyData: unhex(t, "bb04ba2f8d40b1cae1b8071a")}, "1400000cbb04ba2f8d40b1cae1b8071a"},
		{"ServerHelloDone", &serverHelloDoneMsg{}, "0e000000"},
		{"HelloRequest", &helloRequestMsg{}, "00000000"},
		{"empty Certificate", &certificateMsg{}, "0b00000 3000000"},
		{"CertificateRequest", &certificateRequestMsg{certificateTypes: []byte{64}, certificateAuthorities: [][]byte{{0x30, 0}}},
			"0d000008 0140 0004 0002 3000"},
		{"CertificateVerify", &certificateVerifyMsg{signature: []byte{1, 2, 3}}, "0f000005 0003 010203"},
		// GmSSL#1160: a GM2 ClientHello, no extensions, trailing SCSV.
		{"ClientHello GM2 trace", &clientHelloMsg{vers: 0x0101, random: gm2Random,
			cipherSuites:       []uint16{0xe017, 0xe015, 0xe013, 0xe011, 0xe01a, 0xe019, 0x00ff},
			compressionMethods: []uint8{0}},
			"01000035 0101 c1ab18299e6974ebe4cd19e7c0e67755c385862bd64fce119a2a53729ff417dd 00 000ee017e015e013e011e01ae01900ff 0100"},
		{"ServerHello GM2 trace", &serverHelloMsg{vers: 0x0101,
			random:      unhex(t, "5e5ace8e7443fcbb121b2532ef08cde6534c9f07e2d10145ed18c872405f1cf6"),
			sessionID:   unhex(t, "8f7bafca6c4ea25bd50e8c598f4effd845c6721db9d810e79d0f2363735eb4e2"),
			cipherSuite: 0xe013},
			"02000046 0101 5e5ace8e7443fcbb121b2532ef08cde6534c9f07e2d10145ed18c872405f1cf6 20 8f7bafca6c4ea25bd50e8c598f4effd845c6721db9d810e79d0f2363735eb4e2 e013 00"},
		{"ClientHello SNI ALPN", &clientHelloMsg{vers: 0x0101, random: make([]byte, 32),
			cipherSuites: []uint16{0xe053}, compressionMethods: []uint8{0},
			serverName: "a.b", alpnProtocols: []string{"h2"}},
			"01000040 0101" + strings.Repeat("00", 32) + "00 0002e053 0100 0015 0000 0008 0006 00 0003 612e62 0010 0005 0003 02 6832"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.msg.marshal()
			if err != nil {
				t.Fatal(err)
			}
			want := unhex(t, tt.want)
			if !bytes.Equal(got, want) {
				t.Fatalf("marshal:\n got %x\nwant %x", got, want)
			}
			m, ok := parseHandshakeMessage(bytes.Clone(got))
			if !ok {
				t.Fatal("parse of golden bytes failed")
			}
			again, err := m.marshal()
			if err != nil || !bytes.Equal(again, want) {
				t.Fatalf("re-marshal: %x, %v", again, err)
			}
			if reflect.TypeOf(m) != reflect.TypeOf(tt.msg) {
				t.Fatalf("parsed as %T", m)
			}
		})
	}
}

// TestRoundTrip marshals, parses and compares field by field.
func TestRoundTrip(t *testing.T) {
	params := marshalECDHEParams(unhex(t, katClientEphPub))
	msgs := []handshakeMessage{
		&clientHelloMsg{vers: 0x0101, random: bytes.Repeat([]byte{7}, 32), sessionID: bytes.Repeat([]byte{1}, 32),
			cipherSuites: []uint16{0xe053, 0xe013}, compressionMethods: []uint8{0}},
		&clientHelloMsg{vers: 0x0101, random: bytes.Repeat([]byte{7}, 32), sessionID: []byte{},
			cipherSuites: []uint16{0xe051}, compressionMethods: []uint8{1, 0},
			serverName: "example.com", alpnProtocols: []string{"h2", "http/1.1"}, hasExtensions: true},
		&serverHelloMsg{vers: 0x0101, random: bytes.Repeat([]byte{9}, 32), sessionID: []byte{},
			cipherSuite: 0xe011, serverNameAck: true, alpnProtocol: "h2", hasExtensions: true},
		&certificateMsg{certificates: [][]byte{{1, 2, 3}, {4}, bytes.Repeat([]byte{5}, 1000)}},
		&certificateRequestMsg{certificateTypes: []byte{1, 64}, certificateAuthorities: [][]byte{{1}, {2, 3}}},
		&certificateRequestMsg{certificateTypes: []byte{64}},
		&clientKeyExchangeMsg{params: params},
		&clientKeyExchangeMsg{params: params, vector: true},
		&clientKeyExchangeMsg{ciphertext: []byte{0x30, 1, 0}},
		&serverKeyExchangeMsg{params: params, signature: []byte{0x30, 0}},
		&serverKeyExchangeMsg{signature: []byte{0x30, 0}},
		&certificateVerifyMsg{signature: []byte{0x30, 0}},
		&finishedMsg{verifyData: make([]byte, 12)},
	}
	for _, m := range msgs {
		b, err := m.marshal()
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		got, ok := parseHandshakeMessage(bytes.Clone(b))
		if !ok {
			t.Fatalf("%T: parse failed on %x", m, b)
		}
		clearOriginal(m)
		clearOriginal(got)
		if !reflect.DeepEqual(normalize(m), normalize(got)) {
			t.Errorf("%T round trip:\n got %+v\nwant %+v", m, got, m)
		}
	}
}

func clearOriginal(m handshakeMessage) {
	v := reflect.ValueOf(m).Elem()
	if f := v.FieldByName("original"); f.IsValid() {
		reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetZero()
	}
}

// normalize maps empty slices to nil so DeepEqual compares content.
func normalize(m handshakeMessage) string {
	b, _ := m.marshal()
	return hex.EncodeToString(b)
}

// TestParseRejects lists malformed inputs that must not parse.
func TestParseRejects(t *testing.T) {
	bad := []string{
		"",
		"14000000",                            // Finished, empty
		"1400000d" + strings.Repeat("00", 13), // Finished, 13 bytes
		"0e00000100",                          // ServerHelloDone with a body
		"0e000001",                            // truncated
		"10000045 03001e40" + katClientEphPub, // point length byte 0x40
		"10000045 03002941 02" + katClientEphPub[2:], // compressed tag with 65 bytes
		"10000000",               // empty ClientKeyExchange
		"1000000400050000",       // u16 overruns
		"0b000004 00000100",      // certificate list overruns
		"0b000006 000003 000000", // zero-length certificate
		"0d000003 00 0000",       // no certificate types
		"0f000002 0000",          // empty signature
		"0c000002 0000",          // empty signature
		"01000026 0101" + strings.Repeat("00", 32) + "00 0000 0100",             // no suites
		"01000027 0101" + strings.Repeat("00", 32) + "00 0001e0 0100",           // odd suites
		"01000027 0101" + strings.Repeat("00", 32) + "21 0002e053 0100",         // session id 33
		"0100002a 0101" + strings.Repeat("00", 32) + "00 0002e053 0100 0000 00", // trailing
		// Duplicate extension.
		"01000032 0101" + strings.Repeat("00", 32) + "00 0002e053 0100 0008 00170000 00170000",
		"ff000000", // unknown type
	}
	for _, h := range bad {
		if _, ok := parseHandshakeMessage(unhex(t, h)); ok {
			t.Errorf("parsed malformed %s", h)
		}
	}
}

// TestClientHelloIgnoresUnknownExtensions: supported_groups and
// signature_algorithms from a GO client must not fail the parse (§8).
func TestClientHelloIgnoresUnknownExtensions(t *testing.T) {
	b := unhex(t, "0100003b 0101"+strings.Repeat("00", 32)+"00 0002e053 0100 0010 000a00040002 0029 000d0004 00020704")
	m, ok := parseHandshakeMessage(b)
	if !ok {
		t.Fatal("parse failed")
	}
	ch := m.(*clientHelloMsg)
	if !ch.hasExtensions || ch.serverName != "" || len(ch.cipherSuites) != 1 {
		t.Fatalf("%+v", ch)
	}
}

func fuzzMessage(f *testing.F, typ uint8, seeds ...string) {
	for _, s := range seeds {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte{typ, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
		m := newHandshakeMessage(typ)
		if !m.unmarshal(data) {
			return
		}
		// Whatever parses must marshal again, from its fields, into
		// something that parses.
		clearOriginal(m)
		out, err := m.marshal()
		if err != nil {
			t.Fatalf("marshal of parsed message: %v", err)
		}
		if _, ok := parseHandshakeMessage(out); !ok {
			t.Fatalf("re-marshalled message %x does not parse", out)
		}
	})
}

func FuzzClientHello(f *testing.F) {
	fuzzMessage(f, typeClientHello, "0101c1ab18299e6974ebe4cd19e7c0e67755c385862bd64fce119a2a53729ff417dd00000ee017e015e013e011e01ae01900ff0100",
		// status_request and trusted_ca_keys (x509_name, key_sm3_hash).
		"0101"+strings.Repeat("00", 32)+"00 0002e053 0100 0035 0005000501 0000 0000 0003 0028 0026 02 0002 3000 04"+strings.Repeat("11", 32))
}
func FuzzServerHello(f *testing.F) {
	fuzzMessage(f, typeServerHello, "0101"+strings.Repeat("11", 32)+"00e01300")
}
func FuzzCertificate(f *testing.F) { fuzzMessage(f, typeCertificate, "000006000003010203") }
func FuzzServerKeyExchange(f *testing.F) {
	fuzzMessage(f, typeServerKeyExchange, "00023000", "03002941"+katServerEphPub+"00023000")
}
func FuzzCertificateRequest(f *testing.F) { fuzzMessage(f, typeCertificateRequest, "0140000400023000") }
func FuzzServerHelloDone(f *testing.F)    { fuzzMessage(f, typeServerHelloDone, "") }
func FuzzClientKeyExchange(f *testing.F) {
	fuzzMessage(f, typeClientKeyExchange, "03002941"+katClientEphPub, "004503002941"+katClientEphPub, "00023000")
}
func FuzzCertificateVerify(f *testing.F) { fuzzMessage(f, typeCertificateVerify, "00023000") }
func FuzzFinished(f *testing.F)          { fuzzMessage(f, typeFinished, "bb04ba2f8d40b1cae1b8071a") }

// FuzzParseHandshakeMessage feeds arbitrary bytes, type included.
func FuzzParseHandshakeMessage(f *testing.F) {
	f.Add([]byte{typeServerHelloDone, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, ok := parseHandshakeMessage(data); ok {
			if _, err := m.marshal(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// gotlcpClientHello is a ClientHello record recorded from gotlcp (INTEROP.md's
// GO): SNI, supported_groups {41} and signature_algorithms {07 04}.
const gotlcpClientHello = "16010100530100004f01016b0c7d5ab806b0452bfbd8c550054c4b80d7b923f5d507" +
	"9e1ad21190323db48f000004e053e013010000220000000e000c000009746c63702e74657374000a000400020029000d000400020704"

func TestRecordedClientHello(t *testing.T) {
	rec := unhex(t, gotlcpClientHello)
	m, ok := parseHandshakeMessage(rec[5:])
	if !ok {
		t.Fatal("recorded ClientHello does not parse")
	}
	ch := m.(*clientHelloMsg)
	if ch.vers != VersionTLCP || ch.serverName != "tlcp.test" || !reflect.DeepEqual(ch.cipherSuites, []uint16{0xe053, 0xe013}) {
		t.Fatalf("%+v", ch)
	}
}
