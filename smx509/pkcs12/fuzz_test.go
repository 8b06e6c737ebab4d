// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

import (
	"crypto"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/alloctest"
	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// allocationLimit bounds what parsing data may allocate: a constant for
// the key derivations and the MAC, and a multiple of the input for the
// certificates and keys it holds.
func allocationLimit(data []byte) uint64 { return 64<<10 + 48*uint64(len(data)) }

func fuzzSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && (filepath.Ext(name) == ".p12" || filepath.Ext(name) == ".sm2") {
			f.Add(data)
		}
	}
	p := newTestPKI(f)
	pair := &TLCPPair{SignKey: p.signKey, SignCert: p.signCert, EncKey: p.encKey, EncCert: p.encCert}
	for _, e := range []Encoder{SM.WithIterations(1), Modern.WithIterations(1), {PlainCertificates: true, NoMAC: true, Iterations: 1}} {
		b, err := e.EncodeTLCP(pair, password)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParse parses anything with the seeds' password (so that mutations
// reach the bags), which must not panic nor allocate beyond the bound.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if costlyKDF(data, 0) {
			return
		}
		var c *Contents
		var err error
		n := alloctest.Bytes(func() { c, err = Parse(data, password) })
		if limit := allocationLimit(data); n > limit {
			t.Fatalf("%d bytes allocated for a %d-byte input, over the limit of %d", n, len(data), limit)
		}
		if err != nil {
			return
		}
		if len(c.Keys)+len(c.Certificates) > maxBags {
			t.Fatalf("%d bags returned", len(c.Keys)+len(c.Certificates))
		}
		if key, cert, cas, err := DecodeChain(data, password); err == nil {
			checkChainRoundTrip(t, key, cert, cas)
		}
		_, _ = DecodeTLCP(data, password)
	})
}

// costlyKDF reports whether der holds, anywhere a parser can see without
// decrypting (inside constructed values and inside OCTET STRINGs that hold
// DER), the shape { salt OCTET STRING, iterations INTEGER } with more than
// 65536 iterations: the MAC, PBES1 and PBKDF2 parameters all have it. The
// package accepts up to ten million iterations, as real files may use
// hundreds of thousands; one fuzz input at that count takes the fuzzer's
// worker for a minute, so such inputs are skipped and the limits are
// tested on their own.
func costlyKDF(der []byte, depth int) bool {
	if depth > 16 {
		return false
	}
	s := cryptobyte.String(der)
	prevOctets := false
	for !s.Empty() {
		var elem cryptobyte.String
		var tag cbasn1.Tag
		if !s.ReadAnyASN1(&elem, &tag) {
			return false
		}
		switch {
		case tag == cbasn1.INTEGER && prevOctets:
			// Unsigned reading: a negative count looks huge and is
			// skipped, which is harmless (it is refused at once anyway).
			if new(big.Int).SetBytes(elem).Cmp(big.NewInt(1<<16)) > 0 {
				return true
			}
		case tag&0x20 != 0: // constructed
			if costlyKDF(elem, depth+1) {
				return true
			}
		case tag == cbasn1.OCTET_STRING:
			if costlyKDF(elem, depth+1) {
				return true
			}
		}
		prevOctets = tag == cbasn1.OCTET_STRING
	}
	return false
}

// checkChainRoundTrip: a key and chain that decoded are written again (one
// PBKDF2 iteration, to stay cheap) and read back as the same key and the
// same certificates, in order; and the key is the leaf's.
func checkChainRoundTrip(t *testing.T, key crypto.PrivateKey, cert *smx509.Certificate, cas []*smx509.Certificate) {
	t.Helper()
	if !KeyMatchesCertificate(key, cert) {
		t.Fatal("DecodeChain returned a key that is not its certificate's")
	}
	out, err := SM.WithIterations(1).Encode(key, cert, cas, password)
	if err != nil {
		return // e.g. a key type the encoder does not write
	}
	key2, cert2, cas2, err := DecodeChain(out, password)
	if err != nil {
		t.Fatalf("re-encoded file does not decode: %v", err)
	}
	k, ok := key.(interface{ Equal(crypto.PrivateKey) bool })
	if !ok || !k.Equal(key2) {
		t.Fatalf("key %T comes back as %T", key, key2)
	}
	if !cert.Equal(cert2) || len(cas) != len(cas2) {
		t.Fatalf("certificates differ after a round trip: %d CA certificates, then %d", len(cas), len(cas2))
	}
	for i := range cas {
		if !cas[i].Equal(cas2[i]) {
			t.Fatalf("CA certificate %d differs after a round trip", i)
		}
	}
}

// TestParseAllocationBound: the largest files the bounds let through
// (256 bags; 16 encrypted items) stay within allocationLimit.
func TestParseAllocationBound(t *testing.T) {
	p := newTestPKI(t)
	many := make([]Certificate, maxBags)
	for i := range many {
		many[i] = Certificate{Certificate: p.ca}
	}
	plain, err := Encoder{PlainCertificates: true, NoMAC: true}.EncodeEntries(nil, many, password)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]Key, maxEncrypted-1)
	for i := range keys {
		keys[i] = Key{Key: p.signKey}
	}
	encrypted, err := SM.WithIterations(1).EncodeEntries(keys, many[:1], password)
	if err != nil {
		t.Fatal(err)
	}
	// Encoders refuse to write more than maxBags; build such a file from
	// two SafeContents by hand.
	var safe cryptobyte.Builder
	safe.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		for range maxBags/2 + 1 {
			addBag(b, oidCertBag, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(oidCertTypeX509)
					b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
						b.AddASN1OctetString(p.ca.Raw)
					})
				})
			}, "", nil)
		}
	})
	var authSafe, pfx cryptobyte.Builder
	authSafe.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		addData(b, safe.BytesOrPanic())
		addData(b, safe.BytesOrPanic())
	})
	pfx.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(3)
		addData(b, authSafe.BytesOrPanic())
	})
	if _, err := Parse(pfx.BytesOrPanic(), password); err == nil || !strings.Contains(err.Error(), "bags") {
		t.Errorf("a file with more than maxBags bags: %v", err)
	}
	keys = append(keys, keys[:2]...)
	if tooMuch, err := SM.WithIterations(1).EncodeEntries(keys, nil, password); err != nil {
		t.Fatal(err)
	} else if _, err := Parse(tooMuch, password); err == nil || !strings.Contains(err.Error(), "encrypted items") {
		t.Errorf("a file with more than maxEncrypted encrypted items: %v", err)
	}
	for name, data := range map[string][]byte{"256 certificates": plain, "15 shrouded keys": encrypted} {
		var c *Contents
		n := alloctest.Bytes(func() { c, err = Parse(data, password) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d bytes, %d allocated, %d bags", name, len(data), n, len(c.Keys)+len(c.Certificates))
		if limit := allocationLimit(data); n > limit {
			t.Errorf("%s: %d bytes allocated for %d bytes, over %d", name, n, len(data), limit)
		}
	}
}
