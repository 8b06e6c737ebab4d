package sm2

import (
	"bytes"
	"crypto/rand"
	"testing"
)

var fuzzKey = func() *PrivateKey {
	k, err := NewPrivateKey(bytes.Repeat([]byte{0x42}, 32))
	if err != nil {
		panic(err)
	}
	return k
}()

// FuzzVerify feeds arbitrary signatures to the DER parser and verifier: no
// panics, and whatever parses re-encodes to the same bytes (DER is unique).
func FuzzVerify(f *testing.F) {
	msg := []byte("fuzz")
	sig, _ := SignASN1(rand.Reader, fuzzKey, msg, nil)
	f.Add(sig)
	f.Add([]byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01})
	f.Add([]byte{0x30, 0x00})
	f.Fuzz(func(t *testing.T, sig []byte) {
		VerifyASN1(fuzzKey.PublicKey(), msg, nil, sig)
		if r, s, ok := parseSignature(sig); ok {
			if enc := encodeSignature(r, s); !bytes.Equal(enc, sig) &&
				!(bytes.Equal(r, make([]byte, 32)) || bytes.Equal(s, make([]byte, 32))) {
				t.Fatalf("parsed %x but re-encodes as %x", sig, enc)
			}
		}
	})
}

// FuzzDecrypt feeds arbitrary ciphertexts in every format: no panics, and
// every failure is ErrDecryption.
func FuzzDecrypt(f *testing.F) {
	for _, opts := range []*EncrypterOpts{nil, {Order: C1C2C3}, {CompressC1: true}, {ASN1: true}} {
		ct, _ := Encrypt(rand.Reader, fuzzKey.PublicKey(), []byte("fuzz me"), opts)
		f.Add(ct)
	}
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, ct []byte) {
		for _, opts := range []*DecrypterOpts{nil, {Order: C1C2C3}, {ASN1: true}} {
			if _, err := Decrypt(fuzzKey, ct, opts); err != nil && err != ErrDecryption {
				t.Fatalf("unexpected error %v", err)
			}
		}
		if _, err := fuzzKey.Decrypt(nil, ct, nil); err != nil && err != ErrDecryption {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// FuzzNewPublicKey checks that accepted encodings round-trip.
func FuzzNewPublicKey(f *testing.F) {
	f.Add(fuzzKey.PublicKey().Bytes())
	f.Add(fuzzKey.PublicKey().BytesCompressed())
	f.Fuzz(func(t *testing.T, b []byte) {
		pub, err := NewPublicKey(b)
		if err != nil {
			return
		}
		if !bytes.Equal(pub.Bytes(), b) && !bytes.Equal(pub.BytesCompressed(), b) {
			t.Fatalf("accepted %x but encodes as %x", b, pub.Bytes())
		}
	})
}
