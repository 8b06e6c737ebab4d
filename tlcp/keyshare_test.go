// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/mlkem"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/alloctest"
	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// countServerHellos counts the ServerHello messages (HelloRetryRequests
// included) a client receives, through MessageTrace.
func countServerHellos(cfg *Config) *int {
	n := new(int)
	cfg.MessageTrace = func(_ *Conn, sent bool, typ uint8, msg []byte) {
		if !sent && typ == uint8(recordTypeHandshake) && len(msg) > 0 && msg[0] == typeServerHello {
			*n++
		}
	}
	return n
}

// TestGroupNegotiation runs our client against our server on every
// combination of CurvePreferences: the group chosen, whether it took a
// HelloRetryRequest, and the failure when there is no group in common.
func TestGroupNegotiation(t *testing.T) {
	var (
		h   = CurveSM2MLKEM768
		s   = CurveSM2
		def []CurveID // nil: the default, the hybrid then curveSM2
	)
	prefs := map[string][]CurveID{"default": def, "hybrid": {h}, "curveSM2": {s}, "curveSM2,hybrid": {s, h}, "hybrid,curveSM2": {h, s}}
	for _, c := range []struct {
		client, server string
		want           CurveID // 0: no group in common
		hrr            bool
	}{
		{"default", "default", h, false},
		{"default", "hybrid", h, false},
		{"default", "curveSM2", s, false},
		{"default", "curveSM2,hybrid", s, false},
		{"hybrid", "default", h, false},
		{"hybrid", "hybrid", h, false},
		{"hybrid", "curveSM2", 0, false},
		{"hybrid", "curveSM2,hybrid", h, false},
		{"curveSM2", "default", s, false},
		{"curveSM2", "hybrid", 0, false},
		{"curveSM2", "curveSM2", s, false},
		{"curveSM2", "curveSM2,hybrid", s, false},
		// The client lists the hybrid but sends a curveSM2 share: a
		// server that prefers the hybrid asks for it.
		{"curveSM2,hybrid", "default", h, true},
		{"curveSM2,hybrid", "hybrid", h, true},
		{"curveSM2,hybrid", "curveSM2", s, false},
		{"curveSM2,hybrid", "curveSM2,hybrid", s, false},
		{"hybrid,curveSM2", "curveSM2", s, false},
		{"hybrid,curveSM2", "curveSM2,hybrid", s, false},
	} {
		t.Run(c.client+"/"+c.server, func(t *testing.T) {
			ccfg, scfg := tls13ClientConfig(t), testServerConfig(t)
			ccfg.CurvePreferences, scfg.CurvePreferences = prefs[c.client], prefs[c.server]
			hellos := countServerHellos(ccfg)
			client, server, cerr, serr := handshake13(t, ccfg, scfg)
			if c.want == 0 {
				wantAlert(t, serr, alertHandshakeFailure)
				wantAlert(t, cerr, alertHandshakeFailure)
				return
			}
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			defer client.Close()
			defer server.Close()
			cs, ss := client.ConnectionState(), server.ConnectionState()
			if cs.CurveID != c.want || ss.CurveID != c.want {
				t.Errorf("client negotiated %v, server %v, want %v", cs.CurveID, ss.CurveID, c.want)
			}
			if got := *hellos == 2; got != c.hrr {
				t.Errorf("%d ServerHellos, want a HelloRetryRequest: %v", *hellos, c.hrr)
			}
		})
	}

	// Only unknown groups: the client refuses to start, the server finds
	// nothing in common.
	ccfg := tls13ClientConfig(t)
	ccfg.CurvePreferences = []CurveID{29}
	if _, _, cerr, _ := handshake13(t, ccfg, testServerConfig(t)); cerr == nil {
		t.Error("a client with no usable group connected")
	}
	scfg := testServerConfig(t)
	scfg.CurvePreferences = []CurveID{29}
	_, _, cerr, serr := handshake13(t, tls13ClientConfig(t), scfg)
	wantAlert(t, serr, alertHandshakeFailure)
	wantAlert(t, cerr, alertHandshakeFailure)
}

// TestDefaultClientShares: by default the client sends a hybrid and a
// curveSM2 share, the hybrid first, and lists the groups in that order.
func TestDefaultClientShares(t *testing.T) {
	h := rawTLS13Hello(t).tls13
	if len(h.supportedGroups) != 2 || h.supportedGroups[0] != uint16(CurveSM2MLKEM768) || h.supportedGroups[1] != uint16(CurveSM2) {
		t.Errorf("supported_groups %v", h.supportedGroups)
	}
	if len(h.keyShares) != 2 || h.keyShares[0].group != uint16(CurveSM2MLKEM768) || len(h.keyShares[0].data) != 1249 ||
		h.keyShares[1].group != uint16(CurveSM2) || len(h.keyShares[1].data) != 65 {
		t.Fatalf("key shares %d", len(h.keyShares))
	}
	// The curveSM2 share is the hybrid's SM2 point (one key, one scalar
	// multiplication), and each hello has a fresh one.
	if !bytes.Equal(h.keyShares[0].data[:65], h.keyShares[1].data) {
		t.Error("the curveSM2 share is not the hybrid's SM2 point")
	}
	if h2 := rawTLS13Hello(t).tls13; bytes.Equal(h2.keyShares[1].data, h.keyShares[1].data) {
		t.Error("two hellos share a key")
	}
}

// TestHybridResumption: a ticket from a hybrid handshake resumes with a
// fresh hybrid exchange (psk_dhe_ke), also after a HelloRetryRequest to
// the hybrid.
func TestHybridResumption(t *testing.T) {
	for _, hrr := range []bool{false, true} {
		t.Run(fmt.Sprintf("hrr=%v", hrr), func(t *testing.T) {
			scfg := testServerConfig(t)
			ccfg := tls13ClientConfig(t)
			ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
			if hrr {
				ccfg.CurvePreferences = []CurveID{CurveSM2, CurveSM2MLKEM768}
			}
			client, server := mustHandshake13(t, ccfg, scfg)
			readTickets(t, client, server)
			client.Close()
			server.Close()
			hellos := countServerHellos(ccfg)
			client, server = mustHandshake13(t, ccfg, scfg)
			defer client.Close()
			defer server.Close()
			cs := client.ConnectionState()
			if !cs.DidResume || cs.CurveID != CurveSM2MLKEM768 || server.ConnectionState().CurveID != CurveSM2MLKEM768 {
				t.Errorf("resumed %v on %v", cs.DidResume, cs.CurveID)
			}
			if got := *hellos == 2; got != hrr {
				t.Errorf("%d ServerHellos", *hellos)
			}
		})
	}
}

// hybridShares returns a well-formed client share and, for it, a
// server share.
func hybridShares(t testing.TB) (client *clientKeyShare, clientShare, serverShare []byte) {
	k, ks, err := newClientKeyShare(rand.Reader, CurveSM2MLKEM768, nil)
	if err != nil {
		t.Fatal(err)
	}
	sks, _, err := serverKeyShare(rand.Reader, CurveSM2MLKEM768, ks.data)
	if err != nil {
		t.Fatal(err)
	}
	return k, ks.data, sks.data
}

// malformedShares are edits of a well-formed share of group, each of which
// a receiver must refuse; server says whose share it is (the server's
// holds a ciphertext, the client's an encapsulation key).
func malformedShares(t testing.TB, group CurveID, share []byte, server bool) map[string][]byte {
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(share)) }
	m := map[string][]byte{
		"one byte short":      share[:len(share)-1],
		"one byte long":       append(bytes.Clone(share), 0),
		"empty":               {},
		"the identity (0x00)": {0},
		"point off the curve": edit(func(b []byte) []byte { b[64] ^= 1; return b }),
		"compressed point": edit(func(b []byte) []byte {
			pub, err := sm2.NewPublicKey(b[:65])
			if err != nil {
				t.Fatal(err)
			}
			return append(pub.BytesCompressed(), b[65:]...)
		}),
		"0x02 prefix, 64 bytes": edit(func(b []byte) []byte { b[0] = 2; return b }),
		"point of zeros":        edit(func(b []byte) []byte { clear(b[1:65]); return b }),
	}
	if group == CurveSM2MLKEM768 {
		m["SM2 point alone"] = share[:65]
		if server {
			m["ciphertext one byte short"] = share[:len(share)-1]
			m["ML-KEM-768 ciphertext of a 1024 key"] = append(bytes.Clone(share[:65]), make([]byte, mlkem.CiphertextSize1024)...)
		} else {
			// FIPS 203 §7.2's modulus check: a coefficient of 4095 ≥ q.
			m["encapsulation key coefficient ≥ q"] = edit(func(b []byte) []byte { b[65] = 0xff; b[66] |= 0x0f; return b })
			m["ML-KEM part first"] = append(bytes.Clone(share[65:]), share[:65]...)
		}
	}
	return m
}

// TestMalformedClientShares: a server refuses every malformed client
// share of either group with illegal_parameter, in a real ClientHello.
func TestMalformedClientShares(t *testing.T) {
	for _, group := range []CurveID{CurveSM2, CurveSM2MLKEM768} {
		_, ks, err := newClientKeyShare(rand.Reader, group, nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range malformedShares(t, group, ks.data, false) {
			t.Run(group.String()+"/"+name, func(t *testing.T) {
				if _, _, err := serverKeyShare(rand.Reader, group, data); !isAlert(err, alertIllegalParameter) {
					t.Errorf("serverKeyShare: %v, want illegal_parameter", err)
				}
				if len(data) == 0 {
					return // an empty KeyShareEntry does not parse: decode_error
				}
				hello := rawTLS13Hello(t)
				hello.tls13.supportedGroups = []uint16{uint16(group)}
				hello.tls13.keyShares = []keyShare{{group: uint16(group), data: data}}
				scfg := testServerConfig(t)
				_, err := serverAnswer(t, scfg, hello, 0x0301)
				wantAlert(t, err, alertIllegalParameter)
			})
		}
	}
}

// TestMalformedServerShares: a client refuses every malformed server
// share of either group with illegal_parameter, sent by a scripted
// server; a hybrid ciphertext of the right length that was altered gives
// ML-KEM's implicit rejection key, and the handshake fails on the
// server's first encrypted record.
func TestMalformedServerShares(t *testing.T) {
	for _, group := range []CurveID{CurveSM2, CurveSM2MLKEM768} {
		_, _, share := hybridShares(t)
		if group == CurveSM2 {
			_, ks, _ := newClientKeyShare(rand.Reader, CurveSM2, nil)
			share = ks.data
		}
		for name, data := range malformedShares(t, group, share, true) {
			t.Run(group.String()+"/"+name, func(t *testing.T) {
				s := newServer13(&getPKI(t).server)
				s.group = group
				s.afterServerHello = func(h *serverHelloMsg) { h.tls13.serverShare.data = data }
				ccfg := tls13ClientConfig(t)
				ccfg.CurvePreferences = []CurveID{group}
				_, cerr, serr := s.againstClient(t, ccfg)
				want := alertIllegalParameter
				if len(data) == 0 {
					want = alertDecodeError // an empty KeyShareEntry does not parse
				}
				var pe *protocolError
				if !errors.As(cerr, &pe) || pe.alert != want {
					t.Fatalf("client error %v, want a local %v", cerr, want)
				}
				wantAlert(t, serr, want)
			})
		}
	}
	t.Run("altered ciphertext", func(t *testing.T) {
		s := newServer13(&getPKI(t).server)
		s.group = CurveSM2MLKEM768
		s.afterServerHello = func(h *serverHelloMsg) { h.tls13.serverShare.data[100] ^= 1 }
		_, cerr, _ := s.againstClient(t, tls13ClientConfig(t))
		wantAlert(t, cerr, alertBadRecordMAC)
	})
	t.Run("share of the other group", func(t *testing.T) {
		// The client sent both shares; a server share for curveSM2 in
		// the hybrid's place must be 1153 bytes, and is not.
		s := newServer13(&getPKI(t).server)
		s.group = CurveSM2
		s.afterServerHello = func(h *serverHelloMsg) { h.tls13.serverShare.group = uint16(CurveSM2MLKEM768) }
		_, cerr, _ := s.againstClient(t, tls13ClientConfig(t))
		var pe *protocolError
		if !errors.As(cerr, &pe) || pe.alert != alertIllegalParameter {
			t.Fatalf("client error %v, want a local illegal_parameter", cerr)
		}
	})
}

// TestHybridSecretLayout: the 64-byte hybrid secret is the ECDH x
// coordinate, then the ML-KEM shared key, on both sides.
func TestHybridSecretLayout(t *testing.T) {
	k, cs, _ := hybridShares(t)
	sks, secret, err := serverKeyShare(rand.Reader, CurveSM2MLKEM768, cs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.sharedSecret(sks.data)
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != 64 || !bytes.Equal(got, secret) {
		t.Fatalf("client %x\nserver %x", got, secret)
	}
	serverPoint, err := sm2.NewPublicKey(sks.data[:65])
	if err != nil {
		t.Fatal(err)
	}
	x, err := sm2.ECDH(k.ecdh, serverPoint)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := k.kem.Decapsulate(sks.data[65:])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(secret[:32], x) || !bytes.Equal(secret[32:], ss) {
		t.Errorf("secret %x is not ECDH x %x ‖ ML-KEM %x", secret, x, ss)
	}
}

// shareAllocBound bounds what answering or reading one share of any
// content allocates: keys, the ML-KEM expansion, the outputs. A hybrid
// share costs about 20 KiB; nothing grows with the input.
const shareAllocBound = 64 << 10

// FuzzServerKeyShare feeds arbitrary client shares to the server's side:
// no panic, illegal_parameter or a share of the right size, and bounded
// allocation.
func FuzzServerKeyShare(f *testing.F) {
	_, cs, _ := hybridShares(f)
	f.Add(uint16(CurveSM2MLKEM768), cs)
	f.Add(uint16(CurveSM2), cs[:65])
	f.Add(uint16(CurveSM2MLKEM768), cs[:65])
	f.Fuzz(func(t *testing.T, g uint16, data []byte) {
		group := CurveSM2
		if g&1 == 1 {
			group = CurveSM2MLKEM768
		}
		var ks keyShare
		var secret []byte
		var err error
		n := alloctest.Bytes(func() { ks, secret, err = serverKeyShare(rand.Reader, group, data) })
		if n > shareAllocBound {
			t.Errorf("%d bytes allocated for a %d-byte share", n, len(data))
		}
		if err != nil {
			if !isAlert(err, alertIllegalParameter) {
				t.Fatalf("error %v is not illegal_parameter", err)
			}
			return
		}
		want := map[CurveID][2]int{CurveSM2: {65, 32}, CurveSM2MLKEM768: {1153, 64}}[group]
		if len(ks.data) != want[0] || len(secret) != want[1] {
			t.Fatalf("share %d bytes, secret %d", len(ks.data), len(secret))
		}
	})
}

// FuzzClientKeyShare feeds arbitrary server shares to a client's key.
func FuzzClientKeyShare(f *testing.F) {
	k, _, ss := hybridShares(f)
	f.Add(ss)
	f.Add(ss[:65])
	f.Fuzz(func(t *testing.T, data []byte) {
		var err error
		n := alloctest.Bytes(func() { _, err = k.sharedSecret(data) })
		if n > shareAllocBound {
			t.Errorf("%d bytes allocated for a %d-byte share", n, len(data))
		}
		if err != nil && !isAlert(err, alertIllegalParameter) {
			t.Fatalf("error %v is not illegal_parameter", err)
		}
	})
}

// isAlert reports whether err is a local protocol error with alert a.
func isAlert(err error, a alert) bool {
	var pe *protocolError
	return errors.As(err, &pe) && pe.alert == a
}

// TestRequireHybrid: ClientHelloInfo.SupportedCurves lets a server refuse
// clients without the hybrid, and lists the client's groups in order.
func TestRequireHybrid(t *testing.T) {
	scfg := testServerConfig(t)
	var seen [][]CurveID
	scfg.GetConfigForClient = func(info *ClientHelloInfo) (*Config, error) {
		seen = append(seen, info.SupportedCurves)
		if !slices.Contains(info.SupportedCurves, CurveSM2MLKEM768) {
			return nil, errors.New("this server requires curveSM2MLKEM768")
		}
		return nil, nil
	}
	client, server := mustHandshake13(t, tls13ClientConfig(t), scfg)
	client.Close()
	server.Close()
	ccfg := tls13ClientConfig(t)
	ccfg.CurvePreferences = []CurveID{CurveSM2}
	if _, _, cerr, serr := handshake13(t, ccfg, scfg); cerr == nil || serr == nil || !strings.Contains(serr.Error(), "requires curveSM2MLKEM768") {
		t.Fatalf("a client without the hybrid: client %v, server %v", cerr, serr)
	}
	want := [][]CurveID{{CurveSM2MLKEM768, CurveSM2}, {CurveSM2}}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("SupportedCurves %v, want %v", seen, want)
	}
}
