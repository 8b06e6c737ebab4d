// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package x509

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"testing"
)

// The vectors of RFC 2268 section 5.
func TestRC2Vectors(t *testing.T) {
	for _, v := range []struct {
		key, plain, cipher string
		bits               int
	}{
		{"0000000000000000", "0000000000000000", "ebb773f993278eff", 63},
		{"ffffffffffffffff", "ffffffffffffffff", "278b27e42e2f0d49", 64},
		{"3000000000000000", "1000000000000001", "30649edf9be7d2c2", 64},
		{"88", "0000000000000000", "61a8a244adacccf0", 64},
		{"88bca90e90875a", "0000000000000000", "6ccf4308974c267f", 64},
		{"88bca90e90875a7f0f79c384627bafb2", "0000000000000000", "1a807d272bbe5db1", 64},
		{"88bca90e90875a7f0f79c384627bafb2", "0000000000000000", "2269552ab0f85ca6", 128},
		{"88bca90e90875a7f0f79c384627bafb216f80a6f85920584c42fceb0be255daf1e", "0000000000000000", "5b78d3a43dfff1f1", 129},
	} {
		key, _ := hex.DecodeString(v.key)
		plain, _ := hex.DecodeString(v.plain)
		want, _ := hex.DecodeString(v.cipher)
		c, err := newRC2(key, v.bits)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 8)
		c.Encrypt(got, plain)
		if !bytes.Equal(got, want) {
			t.Errorf("RC2(%s, %d) = %x, want %x", v.key, v.bits, got, want)
		}
		c.Decrypt(got, got)
		if !bytes.Equal(got, plain) {
			t.Errorf("RC2(%s, %d) decrypts to %x, want %x", v.key, v.bits, got, plain)
		}
	}
	if _, err := newRC2(nil, 40); err == nil {
		t.Error("an empty RC2 key was accepted")
	}
}

func TestPKCS12PBERoundTrip(t *testing.T) {
	plain := []byte("the content of a PKCS #12 SafeContents")
	for _, e := range pkcs12PBEs {
		alg, ct, err := encryptPKCS12PBE(e.oid, []byte("saltsalt"), 2048, plain, []byte("pässword"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecryptWithPassword(alg, ct, []byte("pässword"))
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s: got %q, %v", e.name, got, err)
		}
		if got, err := DecryptWithPassword(alg, ct, []byte("wrong")); err == nil && bytes.Equal(got, plain) {
			t.Errorf("%s: decrypted with a wrong password", e.name)
		}
		if d := DescribePasswordEncryption(alg); d != e.name+", 2048 iterations" {
			t.Errorf("%s: described as %q", e.name, d)
		}
	}
	if _, _, err := encryptPKCS12PBE(OIDPBES2, nil, 1, plain, nil); err == nil {
		t.Error("encryptPKCS12PBE accepted PBES2")
	}
}

func TestEncryptWithPasswordRoundTrip(t *testing.T) {
	plain := []byte("content")
	for _, o := range []*PBES2Options{{}, PBES2OptionsForOpenSSL(), PBES2OptionsForTongsuo()} {
		o.Iterations = 1000 // the defaults are the slow part; the scheme is what is tested
		alg, ct, err := EncryptWithPassword(rand.Reader, plain, []byte("pw"), o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecryptWithPassword(alg, ct, []byte("pw"))
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%+v: got %q, %v", o, got, err)
		}
		// A wrong key yields valid padding once in ~256 tries; what must
		// never happen is the plaintext coming back.
		if got, err := DecryptWithPassword(alg, ct, []byte("pX")); err == nil && bytes.Equal(got, plain) {
			t.Errorf("%+v: decrypted with a wrong password", o)
		}
	}
	if _, err := DecryptWithPassword([]byte{0x30, 0x03, 0x06, 0x01, 0x00}, nil, nil); err == nil {
		t.Error("an unknown scheme was accepted")
	}
	if _, err := DecryptWithPassword([]byte{0x30}, nil, nil); err == nil {
		t.Error("a truncated AlgorithmIdentifier was accepted")
	}
}
