// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package x509

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/internal/alloctest"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

func readEnvelopedFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "envelopedkey", name))
	must(t, err)
	return b
}

func envelopedKeys(t testing.TB) (sign, enc *sm2.PrivateKey) {
	s, err := ParsePrivateKeyPEM(readEnvelopedFixture(t, "sign.key"), nil)
	must(t, err)
	e, err := ParsePrivateKeyPEM(readEnvelopedFixture(t, "enc.key"), nil)
	must(t, err)
	return s.(*sm2.PrivateKey), e.(*sm2.PrivateKey)
}

// decrypterOnly hides the concrete key type, as a cipher machine's
// crypto.Decrypter would.
type decrypterOnly struct{ k *sm2.PrivateKey }

func (d decrypterOnly) Public() crypto.PublicKey { return d.k.Public() }
func (d decrypterOnly) Decrypt(r io.Reader, c []byte, o crypto.DecrypterOpts) ([]byte, error) {
	return d.k.Decrypt(r, c, o)
}

func TestSM2EnvelopedKeyGmsmVectors(t *testing.T) {
	sign, enc := envelopedKeys(t)
	for _, name := range []string{"gmsm_enveloped_1.der", "gmsm_enveloped_2.der"} {
		der := readEnvelopedFixture(t, name)
		k, err := ParseSM2EnvelopedKey(der)
		must(t, err)
		if !k.SymAlgorithm.Equal(OIDSM4ECB) || !k.PublicKey.Equal(enc.PublicKey()) {
			t.Fatalf("%s: parsed %+v", name, k)
		}
		for _, d := range []crypto.Decrypter{sign, decrypterOnly{sign}} {
			got, err := k.Unwrap(rand.Reader, d)
			if err != nil || !got.Equal(enc) {
				t.Fatalf("%s: Unwrap: %v", name, err)
			}
		}
		// The envelope is to sign.key, not enc.key.
		if _, err := k.Unwrap(rand.Reader, enc); err == nil {
			t.Errorf("%s: unwrapped with the wrong signing key", name)
		}
	}
}

func TestSM2EnvelopedKeyRoundTrip(t *testing.T) {
	sign, _ := sm2.GenerateKey(rand.Reader)
	enc, _ := sm2.GenerateKey(rand.Reader)
	der, err := MarshalSM2EnvelopedKey(rand.Reader, sign.PublicKey(), enc)
	must(t, err)
	k, err := ParseSM2EnvelopedKey(der)
	must(t, err)
	got, err := k.Unwrap(rand.Reader, sign)
	if err != nil || !got.Equal(enc) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := MarshalSM2EnvelopedKey(rand.Reader, nil, enc); err == nil {
		t.Error("no recipient accepted")
	}
}

// rebuild writes an SM2EnvelopedKey with an arbitrary private-key field, as
// other KMCs write it (padded, or in the 64-byte ECCref layout).
func rebuild(t *testing.T, to *sm2.PublicKey, key *sm2.PrivateKey, layout func(d []byte) []byte, pub []byte) []byte {
	sym := make([]byte, 16)
	rand.Read(sym)
	block, _ := sm4.NewCipher(sym)
	plain := layout(key.Bytes())
	ct := make([]byte, len(plain))
	for i := 0; i < len(plain); i += 16 {
		block.Encrypt(ct[i:], plain[i:])
	}
	ek, err := sm2.EncryptASN1(rand.Reader, to, sym)
	must(t, err)
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(OIDSM4) })
		b.AddBytes(ek)
		b.AddASN1BitString(pub)
		b.AddASN1BitString(ct)
	})
	return b.BytesOrPanic()
}

func TestSM2EnvelopedKeyLayouts(t *testing.T) {
	sign, _ := sm2.GenerateKey(rand.Reader)
	enc, _ := sm2.GenerateKey(rand.Reader)
	other, _ := sm2.GenerateKey(rand.Reader)
	pad := func(d []byte) []byte { return append(d, bytes.Repeat([]byte{16}, 16)...) }
	eccref := func(d []byte) []byte { return append(make([]byte, 32), d...) }
	same := func(d []byte) []byte { return d }
	for _, tc := range []struct {
		name   string
		layout func([]byte) []byte
		pub    []byte
		want   error
	}{
		{"pkcs7", pad, enc.PublicKey().Bytes(), nil},
		{"eccref", eccref, enc.PublicKey().Bytes(), nil},
		{"bad padding", func(d []byte) []byte { return append(d, bytes.Repeat([]byte{15}, 16)...) }, enc.PublicKey().Bytes(), ErrEnvelopedKeyMismatch},
		{"bad eccref", func(d []byte) []byte { return append(bytes.Repeat([]byte{1}, 32), d...) }, enc.PublicKey().Bytes(), ErrEnvelopedKeyMismatch},
		{"other public key", same, other.PublicKey().Bytes(), ErrEnvelopedKeyMismatch},
	} {
		k, err := ParseSM2EnvelopedKey(rebuild(t, sign.PublicKey(), enc, tc.layout, tc.pub))
		must(t, err)
		got, err := k.Unwrap(rand.Reader, sign)
		if !errors.Is(err, tc.want) || (err == nil && !got.Equal(enc)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestSM2EnvelopedKeyMalformed(t *testing.T) {
	der := readEnvelopedFixture(t, "gmsm_enveloped_1.der")
	for n := range len(der) {
		if _, err := ParseSM2EnvelopedKey(der[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
	}
	if _, err := ParseSM2EnvelopedKey(append(bytes.Clone(der), 0)); err == nil {
		t.Error("trailing data accepted")
	}
	// A symmetric algorithm other than SM4-ECB: SM4-CBC's OID in its place.
	bad := bytes.Clone(der)
	i := bytes.Index(bad, []byte{0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x68, 0x01})
	bad[i+7] = 2
	if _, err := ParseSM2EnvelopedKey(bad); err == nil {
		t.Error("SM4-CBC accepted as the symmetric algorithm")
	}
}

// FuzzSM2EnvelopedKey parses and unwraps anything with the vectors'
// signing key: no panic, and allocations bounded by the input's size.
func FuzzSM2EnvelopedKey(f *testing.F) {
	for _, name := range []string{"gmsm_enveloped_1.der", "gmsm_enveloped_2.der"} {
		f.Add(readEnvelopedFixture(f, name))
	}
	sign, _ := envelopedKeys(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var err error
		var key *sm2.PrivateKey
		n := alloctest.Bytes(func() {
			var k *SM2EnvelopedKey
			if k, err = ParseSM2EnvelopedKey(data); err == nil {
				key, err = k.Unwrap(rand.Reader, sign)
			}
		})
		if limit := 16<<10 + 4*uint64(len(data)); n > limit {
			t.Fatalf("%d bytes allocated for a %d-byte input, over the limit of %d", n, len(data), limit)
		}
		if err != nil {
			return
		}
		// What unwraps is a key, which wraps again to the same key.
		checkPrivateKeyRoundTrip(t, key)
		again, err := MarshalSM2EnvelopedKey(rand.Reader, sign.PublicKey(), key)
		if err != nil {
			t.Fatalf("unwrapped key does not wrap again: %v", err)
		}
		k, err := ParseSM2EnvelopedKey(again)
		if err != nil {
			t.Fatalf("re-wrapped key does not parse: %v", err)
		}
		if back, err := k.Unwrap(rand.Reader, sign); err != nil || !back.Equal(key) {
			t.Fatalf("re-wrapped key unwraps to another key: %v", err)
		}
	})
}
