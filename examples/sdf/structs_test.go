// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// TestCiphertextForms parses every form sm2.Encrypt writes into an
// ECCCipher, lays it out as the C structure and back, and checks that the
// DER written from it is what sm2.DecryptASN1 decrypts.
func TestCiphertextForms(t *testing.T) {
	k, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("the 48-byte premaster of a TLCP handshake ......")
	forms := map[string]struct {
		enc *sm2.EncrypterOpts
		dec any // the opts given to ParseCiphertext
	}{
		"ASN1 (nil opts)":        {&sm2.EncrypterOpts{ASN1: true}, nil},
		"ASN1 (DecrypterOpts)":   {&sm2.EncrypterOpts{ASN1: true}, &sm2.DecrypterOpts{ASN1: true}},
		"C1C3C2 (nil opts)":      {&sm2.EncrypterOpts{}, nil},
		"C1C3C2 compressed":      {&sm2.EncrypterOpts{CompressC1: true}, &sm2.DecrypterOpts{}},
		"C1C2C3":                 {&sm2.EncrypterOpts{Order: sm2.C1C2C3}, &sm2.DecrypterOpts{Order: sm2.C1C2C3}},
		"C1C2C3 (EncrypterOpts)": {&sm2.EncrypterOpts{Order: sm2.C1C2C3}, &sm2.EncrypterOpts{Order: sm2.C1C2C3}},
	}
	for name, f := range forms {
		t.Run(name, func(t *testing.T) {
			ct, err := sm2.Encrypt(rand.Reader, k.PublicKey(), msg, f.enc)
			if err != nil {
				t.Fatal(err)
			}
			var c *ECCCipher
			if f.dec == nil {
				c, err = ParseCiphertext(ct, nil)
			} else if o, ok := f.dec.(*sm2.DecrypterOpts); ok {
				c, err = ParseCiphertext(ct, o)
			} else {
				c, err = ParseCiphertext(ct, f.dec.(*sm2.EncrypterOpts))
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.C) != len(msg) {
				t.Fatalf("C is %d bytes, want %d", len(c.C), len(msg))
			}
			st := c.marshalStruct()
			if len(st) != cipherHeaderLen+len(msg) || binary.NativeEndian.Uint32(st[160:]) != uint32(len(msg)) {
				t.Fatalf("structure of %d bytes, L = %d", len(st), binary.NativeEndian.Uint32(st[160:]))
			}
			if !bytes.Equal(st[:32], make([]byte, 32)) || !bytes.Equal(st[64:96], make([]byte, 32)) {
				t.Error("x and y are not right-aligned in their 64-byte fields")
			}
			back, err := parseCipherStruct(st)
			if err != nil {
				t.Fatal(err)
			}
			der, err := back.MarshalASN1()
			if err != nil {
				t.Fatal(err)
			}
			pt, err := sm2.DecryptASN1(k, der)
			if err != nil || !bytes.Equal(pt, msg) {
				t.Fatalf("DecryptASN1 of the mapped ciphertext: %q, %v", pt, err)
			}
			if f.enc.ASN1 && !bytes.Equal(der, ct) {
				t.Error("MarshalASN1 does not reproduce sm2.EncryptASN1's encoding")
			}
		})
	}
}

func TestCiphertextRejects(t *testing.T) {
	k, _ := sm2.GenerateKey(rand.Reader)
	good, _ := sm2.EncryptASN1(rand.Reader, k.PublicKey(), []byte("premaster"))
	raw, _ := sm2.Encrypt(rand.Reader, k.PublicKey(), []byte("premaster"), nil)
	offCurve := append([]byte(nil), raw...)
	offCurve[64] ^= 1
	bad := map[string][]byte{
		"empty":            nil,
		"truncated DER":    good[:len(good)-5],
		"raw without C2":   raw[:65+32],
		"raw C1 off curve": offCurve,
		"raw unknown C1":   append([]byte{5}, raw[1:]...),
		"DER trailing junk inside": func() []byte {
			b := append([]byte(nil), good...)
			b[1]++ // SEQUENCE claims one more byte than its elements
			return append(b, 0)
		}(),
		"C2 longer than 255": func() []byte {
			ct, _ := sm2.Encrypt(rand.Reader, k.PublicKey(), make([]byte, 256), nil)
			return ct
		}(),
	}
	for name, ct := range bad {
		if _, err := ParseCiphertext(ct, nil); err != sm2.ErrDecryption {
			t.Errorf("%s: err %v, want sm2.ErrDecryption", name, err)
		}
	}
	if _, err := ParseCiphertext(raw, &sm2.DecrypterOpts{Order: 7}); err != sm2.ErrDecryption {
		t.Errorf("unknown order: %v", err)
	}
}

func TestStructsFromDevice(t *testing.T) {
	k, _ := sm2.GenerateKey(rand.Reader)
	pub := k.PublicKey().Bytes()
	st := make([]byte, publicKeyStructLen)
	binary.NativeEndian.PutUint32(st, 256)
	copy(st[4+32:], pub[1:33])
	copy(st[4+64+32:], pub[33:])
	got, err := parsePublicKeyStruct(st)
	if err != nil || !got.Equal(k.PublicKey()) {
		t.Fatalf("parsePublicKeyStruct: %v", err)
	}
	for name, mutate := range map[string]func([]byte){
		"bits 512":        func(b []byte) { binary.NativeEndian.PutUint32(b, 512) },
		"high half of x":  func(b []byte) { b[4] = 1 },
		"point off curve": func(b []byte) { b[len(b)-1] ^= 1 },
	} {
		b := append([]byte(nil), st...)
		mutate(b)
		if _, err := parsePublicKeyStruct(b); err == nil {
			t.Errorf("parsePublicKeyStruct accepts %s", name)
		}
	}

	// An ECCSignature with r, s right-aligned becomes the DER that
	// sm2.VerifyDigestASN1 accepts.
	e := make([]byte, 32)
	rand.Read(e)
	der, _ := sm2.SignDigestASN1(rand.Reader, k, e)
	sig := make([]byte, signatureStructLen)
	r, s := derRS(t, der)
	copy(sig[64-len(r):64], r)
	copy(sig[128-len(s):], s)
	out, err := signatureFromStruct(sig)
	if err != nil || !bytes.Equal(out, der) {
		t.Fatalf("signatureFromStruct: %x, %v; want %x", out, err, der)
	}
	if !sm2.VerifyDigestASN1(k.PublicKey(), e, out) {
		t.Error("the mapped signature does not verify")
	}
	if _, err := signatureFromStruct(make([]byte, signatureStructLen)); err == nil {
		t.Error("signatureFromStruct accepts r = s = 0")
	}
	if _, err := parseCipherStruct(make([]byte, cipherHeaderLen)); err == nil {
		t.Error("parseCipherStruct accepts L = 0")
	}
}

// derRS returns the minimal big-endian r and s of a DER signature.
func derRS(t *testing.T, der []byte) (r, s []byte) {
	t.Helper()
	// SEQUENCE { INTEGER r, INTEGER s }, short lengths.
	i := 2
	rl := int(der[i+1])
	r = der[i+2 : i+2+rl]
	i += 2 + rl
	sl := int(der[i+1])
	s = der[i+2 : i+2+sl]
	for len(r) > 0 && r[0] == 0 {
		r = r[1:]
	}
	for len(s) > 0 && s[0] == 0 {
		s = s[1:]
	}
	return r, s
}

// putBits sets the bits field of an ECCrefPublicKey to 256.
func putBits(st []byte) { binary.NativeEndian.PutUint32(st, 256) }
