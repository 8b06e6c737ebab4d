// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
)

// TestTrustedCAIndications: a server holding pairs from two CAs answers
// a client that indicates its CA, by any identifier type, with that CA's
// pair (the other one would fail the client's verification), on both
// protocols; without an indication it uses the first pair. GetCertificate
// sees the indications.
func TestTrustedCAIndications(t *testing.T) {
	p := getPKI(t)
	// The chains end with their roots, which are not sent but let the
	// server match the hashes of the roots.
	server := makePair(t, "tlcp.test", smx509.ExtKeyUsageServerAuth, p.ca, p.caKey, p.ca)
	other := makePair(t, "tlcp.test", smx509.ExtKeyUsageServerAuth, p.ca2, p.ca2Key, p.ca2)
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{other, server}
	for _, vers := range []uint16{VersionTLCP, VersionTLS13} {
		for _, typ := range []uint8{TrustedCAKeySHA1Hash, TrustedCAX509Name, TrustedCACertSHA1Hash, TrustedCAKeySM3Hash, TrustedCACertSM3Hash} {
			t.Run(fmt.Sprintf("%s/type%d", versionName(vers), typ), func(t *testing.T) {
				ta, err := NewTrustedAuthority(p.ca, typ)
				if err != nil {
					t.Fatal(err)
				}
				ccfg := testClientConfig(t)
				ccfg.MinVersion, ccfg.MaxVersion = vers, vers
				ccfg.TrustedCAIndications = []TrustedAuthority{{IdentifierType: TrustedCAPreAgreed}, ta}
				client, _, cerr, serr := handshakePair(t, ccfg, scfg)
				if cerr != nil || serr != nil {
					t.Fatalf("client %v, server %v", cerr, serr)
				}
				if got := client.ConnectionState().PeerSignCertificate; !bytes.Equal(got.Raw, server.Sign.Certificate[0]) {
					t.Fatal("the server did not choose the indicated CA's pair")
				}
			})
		}
		t.Run(versionName(vers)+"/none", func(t *testing.T) {
			ccfg := testClientConfig(t)
			ccfg.MinVersion, ccfg.MaxVersion = vers, vers
			if _, _, cerr, _ := handshakePair(t, ccfg, scfg); cerr == nil {
				t.Fatal("without an indication the first pair (another CA's) was expected")
			}
		})
	}

	// Through an intermediate, with no root in the chain: the root named
	// by x509_name is the intermediate's issuer.
	scfg.Certificates = []CertificatePair{p.serverOtherCA, p.serverViaInter}
	ta, _ := NewTrustedAuthority(p.ca, TrustedCAX509Name)
	ccfg := testClientConfig(t)
	ccfg.TrustedCAIndications = []TrustedAuthority{ta}
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatalf("via intermediate: client %v, server %v", cerr, serr)
	}

	var seen []TrustedAuthority
	scfg = testServerConfig(t)
	scfg.GetCertificate = func(info *ClientHelloInfo) (*CertificatePair, error) {
		seen = info.TrustedCAIndications
		return &p.server, nil
	}
	ta, _ = NewTrustedAuthority(p.ca, TrustedCAKeySM3Hash)
	ccfg = testClientConfig(t)
	ccfg.TrustedCAIndications = []TrustedAuthority{ta}
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if len(seen) != 1 || seen[0].IdentifierType != TrustedCAKeySM3Hash || !bytes.Equal(seen[0].Identifier, ta.Identifier) {
		t.Fatalf("GetCertificate saw %+v", seen)
	}
}

// TestTrustedAuthorityWire: the encoding of each identifier type, the
// hashes it carries, and the entries a parser must refuse.
func TestTrustedAuthorityWire(t *testing.T) {
	p := getPKI(t)
	ca := p.ca
	key, err := subjectPublicKeyBits(ca.RawSubjectPublicKeyInfo)
	if err != nil || len(key) != 65 || key[0] != 4 {
		t.Fatalf("SM2 key bits %x, %v", key, err)
	}
	sha, sm := sha1.Sum(key), sm3.Sum(key)
	csha, csm := sha1.Sum(ca.Raw), sm3.Sum(ca.Raw)
	for typ, want := range map[uint8][]byte{
		TrustedCAKeySHA1Hash: sha[:], TrustedCAKeySM3Hash: sm[:],
		TrustedCACertSHA1Hash: csha[:], TrustedCACertSM3Hash: csm[:],
		TrustedCAX509Name: ca.RawSubject, TrustedCAPreAgreed: nil,
	} {
		ta, err := NewTrustedAuthority(ca, typ)
		if err != nil || !bytes.Equal(ta.Identifier, want) {
			t.Fatalf("type %d: %x, %v", typ, ta.Identifier, err)
		}
	}
	if _, err := NewTrustedAuthority(ca, 9); err == nil {
		t.Fatal("type 9 accepted")
	}

	tas := []TrustedAuthority{{TrustedCAPreAgreed, nil}, {TrustedCAX509Name, []byte{0x30, 0}}, {TrustedCAKeySM3Hash, sm[:]}, {TrustedCAKeySHA1Hash, sha[:]}}
	ch := &clientHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{},
		cipherSuites: []uint16{0xe053}, compressionMethods: []uint8{0}, trustedAuthorities: tas}
	b, err := ch.marshal()
	if err != nil {
		t.Fatal(err)
	}
	ext := append(unhex(t, "0003 003e 003c 00 02 0002 3000 04"), sm[:]...)
	ext = append(append(ext, 1), sha[:]...)
	if !bytes.HasSuffix(b, ext) {
		t.Fatalf("ClientHello %x\nwant suffix %x", b, ext)
	}
	var back clientHelloMsg
	if !back.unmarshal(b) || len(back.trustedAuthorities) != 4 {
		t.Fatalf("parsed back %+v", back.trustedAuthorities)
	}
	for i, ta := range back.trustedAuthorities {
		if ta.IdentifierType != tas[i].IdentifierType || !bytes.Equal(ta.Identifier, tas[i].Identifier) {
			t.Fatalf("entry %d: %+v", i, ta)
		}
	}
	// FuzzClientHello's seed with both extensions.
	seed := unhex(t, "01000060 0101"+strings.Repeat("00", 32)+"00 0002e053 0100 0035 0005000501 0000 0000 0003 0028 0026 02 0002 3000 04"+strings.Repeat("11", 32))
	if !back.unmarshal(seed) || !back.ocspStapling || len(back.trustedAuthorities) != 2 {
		t.Fatalf("seed: %+v", back)
	}
	var out []TrustedAuthority
	for _, bad := range []string{"", "0000", "0001 09", "0002 04 00", "0003 02 0000", "0002 01 00", "0001 00 00"} {
		out = nil
		if parseTrustedAuthorities(unhex(t, bad), &out) {
			t.Errorf("%q parsed: %+v", bad, out)
		}
	}
	// An entry whose identifier does not fit its type is not sent.
	var only []TrustedAuthority
	ch = &clientHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{},
		cipherSuites: []uint16{0xe053}, compressionMethods: []uint8{0},
		trustedAuthorities: []TrustedAuthority{{TrustedCAKeySM3Hash, []byte{1}}, {TrustedCAPreAgreed, nil}}}
	b, _ = ch.marshal()
	if !back.unmarshal(b) {
		t.Fatal("does not parse")
	}
	only = back.trustedAuthorities
	if len(only) != 1 || only[0].IdentifierType != TrustedCAPreAgreed {
		t.Fatalf("%+v", only)
	}
}

func FuzzTrustedAuthorities(f *testing.F) {
	f.Add(unhex(f, "0003 02 0000"))
	f.Add(append(unhex(f, "0021 04"), make([]byte, 32)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out []TrustedAuthority
		if !parseTrustedAuthorities(data, &out) {
			return
		}
		ch := &clientHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{},
			cipherSuites: []uint16{0xe053}, compressionMethods: []uint8{0}, trustedAuthorities: out}
		b, err := ch.marshal()
		if err != nil {
			return
		}
		var back clientHelloMsg
		if !back.unmarshal(b) || len(back.trustedAuthorities) != len(out) {
			t.Fatalf("%x: re-marshalled list does not parse back", data)
		}
	})
}
