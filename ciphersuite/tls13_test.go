// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// tls13KAT is testdata/tls13/hkdf_sm3.json, written by testdata/tls13/kat.py
// (an implementation from the specifications in Python, cross-checked
// against the openssl CLI's TLS13-KDF and pyca's SM4-GCM).
type tls13KAT struct {
	Vectors []map[string]any `json:"vectors"`
}

func loadTLS13KAT(t *testing.T) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "tls13", "hkdf_sm3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f tls13KAT
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]map[string]any)
	for _, v := range f.Vectors {
		out[v["id"].(string)] = v
	}
	return out
}

func hexField(t *testing.T, v map[string]any, name string) []byte {
	t.Helper()
	s, ok := v[name].(string)
	if !ok {
		t.Fatalf("%s: no field %s", v["id"], name)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("%s: %s: %v", v["id"], name, err)
	}
	return b
}

func TestTLS13Table(t *testing.T) {
	for _, c := range []struct {
		id     ID
		name   string
		cipher Cipher
	}{{0x00C6, "TLS_SM4_GCM_SM3", CipherSM4GCM}, {0x00C7, "TLS_SM4_CCM_SM3", CipherSM4CCM}} {
		s := LookupTLS13(c.id)
		if s == nil || s.Name != c.name || s.Cipher != c.cipher || s.Hash != HashSM3 || s.KeyLen != 16 || s.IVLen != 12 {
			t.Errorf("LookupTLS13(%#04x) = %+v", c.id, s)
		}
		if Name(c.id) != c.name {
			t.Errorf("Name(%#04x) = %q", c.id, Name(c.id))
		}
		if Lookup(c.id) != nil {
			t.Errorf("Lookup(%#04x) is a TLCP suite", c.id)
		}
	}
	if LookupTLS13(ECC_SM4_GCM_SM3) != nil || LookupTLS13(0x1301) != nil {
		t.Error("LookupTLS13 knows a suite that is not RFC 8998's")
	}
	if got := TLS13DefaultPreference(); len(got) != 2 || got[0] != TLS_SM4_GCM_SM3 || got[1] != TLS_SM4_CCM_SM3 {
		t.Errorf("TLS13DefaultPreference() = %x", got)
	}
	if CipherSM4CCM.String() != "SM4-CCM" {
		t.Errorf("CipherSM4CCM = %v", CipherSM4CCM)
	}
}

// TestTLS13KeyScheduleKAT checks every stage of the key schedule against
// the independently computed values.
func TestTLS13KeyScheduleKAT(t *testing.T) {
	kat := loadTLS13KAT(t)
	v := kat["tls13-sm3-gen-full-handshake"]
	f := func(name string) []byte { return hexField(t, v, name) }
	check := func(what string, got []byte, field string) {
		t.Helper()
		if want := f(field); !bytes.Equal(got, want) {
			t.Errorf("%s = %x\n want %x", what, got, want)
		}
	}

	early := NewTLS13EarlySecret(nil)
	check("early secret", early.secret, "early_secret_hex")
	hs := early.HandshakeSecret(f("shared_secret_hex"))
	check("handshake secret", hs.secret, "handshake_secret_hex")
	cHS := hs.ClientHandshakeTrafficSecret(f("hello_hash_hex"))
	sHS := hs.ServerHandshakeTrafficSecret(f("hello_hash_hex"))
	check("c hs traffic", cHS, "client_handshake_traffic_secret_hex")
	check("s hs traffic", sHS, "server_handshake_traffic_secret_hex")
	ms := hs.MasterSecret()
	check("master secret", ms.secret, "master_secret_hex")
	cAP := ms.ClientApplicationTrafficSecret(f("server_finished_hash_hex"))
	check("c ap traffic", cAP, "client_application_traffic_secret_hex")
	check("s ap traffic", ms.ServerApplicationTrafficSecret(f("server_finished_hash_hex")), "server_application_traffic_secret_hex")
	exp := ms.ExporterMasterSecret(f("server_finished_hash_hex"))
	check("exp master", exp, "exporter_master_secret_hex")
	check("res master", ms.ResumptionMasterSecret(f("client_finished_hash_hex")), "resumption_master_secret_hex")
	check("server Finished", TLS13FinishedVerifyData(sHS, f("server_cert_verify_hash_hex")), "server_finished_verify_data_hex")
	check("client Finished", TLS13FinishedVerifyData(cHS, f("server_finished_hash_hex")), "client_finished_verify_data_hex")

	s := LookupTLS13(TLS_SM4_GCM_SM3)
	key, iv := s.TrafficKey(sHS)
	check("server handshake key", key, "server_handshake_key_hex")
	check("server handshake iv", iv, "server_handshake_iv_hex")
	key, iv = s.TrafficKey(cAP)
	check("client application key", key, "client_application_key_hex")
	check("client application iv", iv, "client_application_iv_hex")
	check("traffic upd", TLS13NextTrafficSecret(cAP), "client_application_traffic_secret_1_hex")
	check("exporter", TLS13Exporter(exp, v["exporter_label_ascii"].(string), f("exporter_context_hex"), int(v["exporter_length"].(float64))),
		"exporter_output_hex")

	r := kat["tls13-sm3-gen-resumption"]
	g := func(name string) []byte { return hexField(t, r, name) }
	psk := TLS13ResumptionPSK(g("resumption_master_secret_hex"), g("ticket_nonce_hex"))
	if !bytes.Equal(psk, g("psk_hex")) {
		t.Errorf("resumption PSK = %x", psk)
	}
	re := NewTLS13EarlySecret(psk)
	for _, c := range []struct {
		what  string
		got   []byte
		field string
	}{
		{"resumed early secret", re.secret, "early_secret_hex"},
		{"binder key", re.ResumptionBinderKey(), "binder_key_hex"},
		{"binder", TLS13FinishedVerifyData(re.ResumptionBinderKey(), g("truncated_client_hello_hash_hex")), "binder_hex"},
		{"c e traffic", re.deriveSecret("c e traffic", g("client_hello_hash_hex")) /* 0-RTT, which the package refuses */, "client_early_traffic_secret_hex"},
		{"resumed handshake secret", re.HandshakeSecret(g("shared_secret_hex")).secret, "handshake_secret_hex"},
	} {
		if want := g(c.field); !bytes.Equal(c.got, want) {
			t.Errorf("%s = %x\n want %x", c.what, c.got, want)
		}
	}
}

// TestHKDFAgainstDefinition checks hkdfExpand's output blocks one by one
// against RFC 5869 written out, for lengths over several blocks.
func TestHKDFAgainstDefinition(t *testing.T) {
	prk := make([]byte, 32)
	rand.Read(prk)
	info := []byte("some info")
	for _, n := range []int{0, 1, 31, 32, 33, 64, 100, 255 * 32} {
		var want, prev []byte
		for i := byte(1); len(want) < n; i++ {
			h := hmac.New(sm3.New, prk)
			h.Write(prev)
			h.Write(info)
			h.Write([]byte{i})
			prev = h.Sum(nil)
			want = append(want, prev...)
		}
		if got := hkdfExpand(prk, info, n); !bytes.Equal(got, want[:n]) {
			t.Fatalf("hkdfExpand(%d) differs", n)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("TLS13ExpandLabel accepted a length over 255 blocks")
		}
	}()
	TLS13ExpandLabel(prk, "x", nil, 255*32+1)
}

func TestTLS13RecordKAT(t *testing.T) {
	kat := loadTLS13KAT(t)
	for _, id := range []string{"gcm", "ccm"} {
		// One writer and one reader carry their sequence numbers across
		// the three records.
		var wr, rd RecordProtection
		for seq := 0; seq < 3; seq++ {
			v := kat["tls13-sm3-gen-record-"+id+"-seq"+string(rune('0'+seq))]
			s := LookupTLS13(map[string]ID{"gcm": TLS_SM4_GCM_SM3, "ccm": TLS_SM4_CCM_SM3}[id])
			if s.Name != v["suite"].(string) {
				t.Fatalf("suite %s, want %s", s.Name, v["suite"])
			}
			if wr == nil {
				var err error
				if wr, err = s.NewRecordProtection(hexField(t, v, "traffic_secret_hex")); err != nil {
					t.Fatal(err)
				}
				rd, _ = s.NewRecordProtection(hexField(t, v, "traffic_secret_hex"))
			}
			typ := uint8(v["content_type"].(float64))
			pt := hexField(t, v, "plaintext_hex")
			want := hexField(t, v, "record_hex")
			frag, err := wr.Seal(nil, typ, pt, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := append([]byte{23, 3, 3, byte(len(frag) >> 8), byte(len(frag))}, frag...); !bytes.Equal(got, want) {
				t.Errorf("%s seq %d: record %x\n want %x", s.Name, seq, got, want)
			}
			gotTyp, content, err := rd.Open(23, bytes.Clone(want[5:]))
			if err != nil || gotTyp != typ || !bytes.Equal(content, pt) {
				t.Errorf("%s seq %d: Open = %d %x %v", s.Name, seq, gotTyp, content, err)
			}
		}
	}
}

func tls13Pair(t testing.TB, id ID) (wr, rd RecordProtection) {
	t.Helper()
	secret := make([]byte, 32)
	rand.Read(secret)
	s := LookupTLS13(id)
	var err error
	if wr, err = s.NewRecordProtection(secret); err != nil {
		t.Fatal(err)
	}
	if rd, err = s.NewRecordProtection(secret); err != nil {
		t.Fatal(err)
	}
	return wr, rd
}

func TestTLS13RecordRoundTrip(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := tls13Pair(t, id)
			for _, n := range roundTripLengths {
				pt := testPlaintext(n)
				// In place: the plaintext already sits after the header.
				buf := make([]byte, 5, 5+n+wr.Overhead())
				buf = append(buf, pt...)
				out, err := wr.Seal(buf[:5], 22, buf[5:], nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(out) != 5+n+17 || &out[0] != &buf[0] {
					t.Fatalf("n=%d: Seal returned %d bytes, moved=%v", n, len(out), &out[0] != &buf[0])
				}
				typ, got, err := rd.Open(23, out[5:])
				if err != nil || typ != 22 || !bytes.Equal(got, pt) {
					t.Fatalf("n=%d: Open = %d, %v", n, typ, err)
				}
			}
			if wr.Sequence() != uint64(len(roundTripLengths)) {
				t.Errorf("Sequence() = %d", wr.Sequence())
			}
			if _, err := wr.Seal(nil, 23, make([]byte, MaxPlaintext+1), nil); !errors.Is(err, ErrRecordOverflow) {
				t.Errorf("oversized Seal: %v", err)
			}
		})
	}
}

// sealInner protects an arbitrary inner plaintext, padding included, as a
// peer may send it.
func sealInner(t *testing.T, rp RecordProtection, inner []byte) []byte {
	t.Helper()
	p := rp.(*tls13Record)
	p.setNonce()
	p.setHeader(23, len(inner)+tls13TagLen)
	out := p.aead.Seal(nil, p.nonce[:], inner, p.hdr[:])
	p.seq++
	return out
}

func TestTLS13RecordOpenFailures(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		t.Run(Name(id), func(t *testing.T) {
			// Padding is stripped, whatever its length.
			wr, rd := tls13Pair(t, id)
			for _, pad := range []int{0, 1, 100, MaxPlaintext - 5} {
				inner := append([]byte("hello"), 23)
				inner = append(inner, make([]byte, pad)...)
				typ, got, err := rd.Open(23, sealInner(t, wr, inner))
				if err != nil || typ != 23 || string(got) != "hello" {
					t.Errorf("padding %d: Open = %d %q %v", pad, typ, got, err)
				}
			}
			// All zeros: no content type.
			if _, _, err := rd.Open(23, sealInner(t, wr, make([]byte, 20))); !errors.Is(err, ErrMissingContentType) {
				t.Errorf("all-zero inner plaintext: %v", err)
			}
			// Content over 2^14 after the padding is gone.
			wr, rd = tls13Pair(t, id)
			if _, _, err := rd.Open(23, sealInner(t, wr, append(make([]byte, MaxPlaintext+1), 23))); !errors.Is(err, ErrRecordOverflow) {
				t.Errorf("2^14+1 content bytes: %v", err)
			}
			// Padding that takes the inner plaintext over 2^14+1 bytes,
			// though the content is short (RFC 8446 §5.4).
			if _, _, err := rd.Open(23, sealInner(t, wr, append(append([]byte("hi"), 23), make([]byte, MaxPlaintext)...))); !errors.Is(err, ErrRecordOverflow) {
				t.Errorf("inner plaintext of 2^14+3 bytes: %v", err)
			}
			// A fragment over 2^14+256 is refused before decryption.
			if _, _, err := rd.Open(23, make([]byte, MaxTLS13Ciphertext+1)); !errors.Is(err, ErrRecordOverflow) {
				t.Errorf("oversized fragment: %v", err)
			}
			// Tampering anywhere, truncation, a record from the wrong
			// position: all bad_record_mac, and the sequence number
			// stays.
			wr, rd = tls13Pair(t, id)
			good, _ := wr.Seal(nil, 23, []byte("payload"), nil)
			for i := range good {
				bad := bytes.Clone(good)
				bad[i] ^= 0x80
				if _, _, err := rd.Open(23, bad); !errors.Is(err, ErrBadRecordMAC) {
					t.Fatalf("flipped byte %d: %v", i, err)
				}
			}
			for _, n := range []int{0, 1, 16, len(good) - 1} {
				if _, _, err := rd.Open(23, bytes.Clone(good[:n])); !errors.Is(err, ErrBadRecordMAC) {
					t.Fatalf("%d-byte fragment: %v", n, err)
				}
			}
			second, _ := wr.Seal(nil, 23, []byte("second"), nil)
			if _, _, err := rd.Open(23, bytes.Clone(second)); !errors.Is(err, ErrBadRecordMAC) {
				t.Fatalf("record 1 opened as record 0: %v", err)
			}
			if typ, got, err := rd.Open(23, good); err != nil || typ != 23 || string(got) != "payload" {
				t.Fatalf("record 0 after failures: %v", err)
			}
		})
	}
}

func TestTLS13RecordSequenceExhausted(t *testing.T) {
	wr, rd := tls13Pair(t, TLS_SM4_GCM_SM3)
	wr.(*tls13Record).seq, rd.(*tls13Record).seq = 1<<64-2, 1<<64-2
	frag, err := wr.Seal(nil, 23, []byte("last"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rd.Open(23, frag); err != nil {
		t.Fatal(err)
	}
	if _, err := wr.Seal(nil, 23, []byte("one more"), nil); !errors.Is(err, ErrSequenceOverflow) {
		t.Errorf("Seal at 2^64-1: %v", err)
	}
	if _, _, err := rd.Open(23, frag); !errors.Is(err, ErrSequenceOverflow) {
		t.Errorf("Open at 2^64-1: %v", err)
	}
}

func TestTLS13RecordAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("allocation counts differ under coverage")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, id := range TLS13DefaultPreference() {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := tls13Pair(t, id)
			pt := testPlaintext(MaxPlaintext)
			buf := make([]byte, 0, MaxPlaintext+wr.Overhead())
			// The first record, too: AllocsPerRun's warm-up would hide it.
			var frag []byte
			var err error
			first := testing.AllocsPerRun(1, func() {
				frag, err = wr.Seal(buf, 23, pt, nil)
				if err == nil {
					_, _, err = rd.Open(23, frag)
				}
			})
			if err != nil || first != 0 {
				t.Errorf("first Seal+Open: %v allocations, %v", first, err)
			}
			allocs := testing.AllocsPerRun(20, func() {
				frag, err = wr.Seal(buf, 23, pt, nil)
				if err == nil {
					_, _, err = rd.Open(23, frag)
				}
			})
			if err != nil || allocs != 0 {
				t.Errorf("Seal+Open: %v allocations, %v", allocs, err)
			}
		})
	}
}

func TestTLS13NewRecordProtectionErrors(t *testing.T) {
	if _, err := LookupTLS13(TLS_SM4_GCM_SM3).NewRecordProtection(make([]byte, 31)); err == nil {
		t.Error("31-byte traffic secret accepted")
	}
	bad := TLS13Suite{ID: 0x1301, Name: "TLS_AES_128_GCM_SHA256", Cipher: CipherZUC128, KeyLen: 16, IVLen: 12}
	if _, err := bad.NewRecordProtection(make([]byte, 32)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown cipher: %v", err)
	}
}

// FuzzTLS13Open feeds arbitrary fragments to both suites' Open: it must
// never panic, must fail with a record error, and what opens must fit the
// limits.
func FuzzTLS13Open(f *testing.F) {
	secret := bytes.Repeat([]byte{7}, 32)
	for i, id := range TLS13DefaultPreference() {
		wr, _ := LookupTLS13(id).NewRecordProtection(secret)
		for _, n := range []int{0, 1, 100} {
			frag, _ := wr.Seal(nil, 23, testPlaintext(n), nil)
			f.Add(uint8(i), frag)
			wr, _ = LookupTLS13(id).NewRecordProtection(secret)
		}
	}
	f.Add(uint8(0), make([]byte, 17))
	f.Fuzz(func(t *testing.T, which uint8, fragment []byte) {
		ids := TLS13DefaultPreference()
		rd, err := LookupTLS13(ids[int(which)%len(ids)]).NewRecordProtection(secret)
		if err != nil {
			t.Fatal(err)
		}
		orig := bytes.Clone(fragment) // Open decrypts in place
		typ, content, err := rd.Open(23, fragment)
		if err != nil {
			if !errors.Is(err, ErrBadRecordMAC) && !errors.Is(err, ErrRecordOverflow) && !errors.Is(err, ErrMissingContentType) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if typ == 0 || len(content) > MaxPlaintext {
			t.Fatalf("opened type %d with %d bytes", typ, len(content))
		}
		// What opens was sealed: the same keys seal the same content to
		// the same fragment (Seal adds no padding, and a padded record
		// could only come from a forgery here).
		wr, _ := LookupTLS13(ids[int(which)%len(ids)]).NewRecordProtection(secret)
		if again, err := wr.Seal(nil, typ, bytes.Clone(content), nil); err != nil || !bytes.Equal(again, orig) {
			t.Fatalf("opened %x, which Seal does not produce (it gives %x, %v)", orig, again, err)
		}
	})
}

// TestTLS13RecordTagOnly: a fragment of exactly the tag's length is the
// protection of an empty inner plaintext. Authentic, it has no content type
// (unexpected_message, RFC 8446 §5.4); forged, a bad MAC (§5.2). A
// fragment shorter than the tag is always a bad MAC.
func TestTLS13RecordTagOnly(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := tls13Pair(t, id)
			frag := sealInner(t, wr, nil)
			if len(frag) != tls13TagLen {
				t.Fatalf("sealed %d bytes", len(frag))
			}
			forged := bytes.Clone(frag)
			forged[0] ^= 1
			if _, _, err := rd.Open(23, forged); !errors.Is(err, ErrBadRecordMAC) {
				t.Errorf("forged 16-byte record: %v, want ErrBadRecordMAC", err)
			}
			if _, _, err := rd.Open(23, frag); !errors.Is(err, ErrMissingContentType) {
				t.Errorf("authentic 16-byte record: %v, want ErrMissingContentType", err)
			}
			for n := range tls13TagLen {
				if _, _, err := rd.Open(23, make([]byte, n)); !errors.Is(err, ErrBadRecordMAC) {
					t.Errorf("%d-byte record: %v, want ErrBadRecordMAC", n, err)
				}
			}
		})
	}
}

// TestTLS13RecordOuterTypeAuthenticated: the header's type is part of the
// additional data, so a record whose outer type was changed fails.
func TestTLS13RecordOuterTypeAuthenticated(t *testing.T) {
	wr, rd := tls13Pair(t, TLS_SM4_GCM_SM3)
	frag, _ := wr.Seal(nil, 22, []byte("x"), nil)
	if _, _, err := rd.Open(22, bytes.Clone(frag)); !errors.Is(err, ErrBadRecordMAC) {
		t.Errorf("outer type 22: %v, want ErrBadRecordMAC", err)
	}
	if typ, pt, err := rd.Open(23, frag); err != nil || typ != 22 || string(pt) != "x" {
		t.Errorf("Open = %d %q %v", typ, pt, err)
	}
}

// TestTLS13OpenBatchStopsAfterOtherType: OpenBatch opens the records up to
// and including the first whose inner type is not application_data (a
// KeyUpdate may follow it) and leaves the rest untouched; with a
// destination buffer the plaintexts follow one another in it.
func TestTLS13OpenBatchStopsAfterOtherType(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		for _, direct := range []bool{false, true} {
			wr, rd := tls13Pair(t, id)
			types := []uint8{23, 23, 22, 23}
			var recs []BatchRecord
			var frags [][]byte
			for i, typ := range types {
				f, err := wr.Seal(nil, typ, []byte{byte('a' + i)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				frags = append(frags, bytes.Clone(f))
				recs = append(recs, BatchRecord{Type: 23, Fragment: f})
			}
			var dst []byte
			if direct {
				dst = make([]byte, 256)
			}
			n, err := rd.(BatchProtection).OpenBatch(dst, recs)
			if err != nil || n != 3 {
				t.Fatalf("%s direct=%v: OpenBatch = %d, %v; want 3, nil", Name(id), direct, n, err)
			}
			for i := range n {
				if recs[i].Type != types[i] || string(recs[i].Data) != string(rune('a'+i)) {
					t.Errorf("record %d: type %d data %q", i, recs[i].Type, recs[i].Data)
				}
			}
			if !bytes.Equal(recs[3].Fragment, frags[3]) || recs[3].Data != nil {
				t.Error("the record after the handshake message was touched")
			}
			if direct && string(dst[:3]) != "abc" {
				t.Errorf("dst = %q", dst[:3])
			}
			if typ, pt, err := rd.Open(23, recs[3].Fragment); err != nil || typ != 23 || string(pt) != "d" {
				t.Errorf("the fourth record: %d %q %v", typ, pt, err)
			}
		}
	}
}
