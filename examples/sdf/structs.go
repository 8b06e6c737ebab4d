// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import (
	"crypto"
	"encoding/binary"
	"errors"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// GM/T 0018-2012 sizes its ECC structures for 512-bit curves
// (ECCref_MAX_LEN = 64): a 256-bit SM2 value sits in the last 32 bytes of
// its 64-byte field, the first 32 being zero.
const (
	refLen = 64
	// ECCrefPublicKey: unsigned int bits; x[64]; y[64].
	publicKeyStructLen = 4 + 2*refLen
	// ECCSignature: r[64]; s[64].
	signatureStructLen = 2 * refLen
	// ECCCipher: x[64]; y[64]; M[32]; unsigned int L; C[L].
	cipherHeaderLen = 2*refLen + 32 + 4
	// maxCipherC bounds C2. SoftSDF (over GmSSL) takes at most 255 bytes,
	// vendors' devices at least 136; TLCP needs 48, the premaster.
	maxCipherC = 255
)

var errBadStruct = errors.New("sdf: the device returned a malformed ECC structure")

// fieldValue returns the 32-byte value in a 64-byte field, or false if
// its high half is not zero.
func fieldValue(f []byte) ([]byte, bool) {
	for _, b := range f[:refLen-32] {
		if b != 0 {
			return nil, false
		}
	}
	return f[refLen-32 : refLen], true
}

// parsePublicKeyStruct reads an ECCrefPublicKey.
func parsePublicKeyStruct(b []byte) (*sm2.PublicKey, error) {
	if len(b) != publicKeyStructLen || binary.NativeEndian.Uint32(b) != 256 {
		return nil, errBadStruct
	}
	x, okx := fieldValue(b[4 : 4+refLen])
	y, oky := fieldValue(b[4+refLen:])
	if !okx || !oky {
		return nil, errBadStruct
	}
	pub, err := sm2.NewPublicKey(append(append([]byte{4}, x...), y...))
	if err != nil {
		return nil, errors.New("sdf: the device's public key is not a point of the SM2 curve")
	}
	return pub, nil
}

// signatureFromStruct converts an ECCSignature into the DER form
// SEQUENCE { r INTEGER, s INTEGER } that sm2.VerifyASN1 and TLCP use.
func signatureFromStruct(b []byte) ([]byte, error) {
	if len(b) != signatureStructLen {
		return nil, errBadStruct
	}
	r, okr := fieldValue(b[:refLen])
	s, oks := fieldValue(b[refLen:])
	if !okr || !oks || isZero(r) || isZero(s) {
		return nil, errBadStruct
	}
	var bld cryptobyte.Builder
	bld.AddASN1(asn1.SEQUENCE, func(bld *cryptobyte.Builder) {
		addUnsigned(bld, r)
		addUnsigned(bld, s)
	})
	return bld.Bytes()
}

func isZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}

// addUnsigned adds a minimal DER INTEGER holding the unsigned value v.
func addUnsigned(b *cryptobyte.Builder, v []byte) {
	for len(v) > 1 && v[0] == 0 {
		v = v[1:]
	}
	b.AddASN1(asn1.INTEGER, func(b *cryptobyte.Builder) {
		if v[0]&0x80 != 0 {
			b.AddUint8(0)
		}
		b.AddBytes(v)
	})
}

// ECCCipher is an SM2 ciphertext split as GM/T 0018's ECCCipher structure
// holds it: C1 = (X, Y), M = C3 = SM3(x2 ‖ message ‖ y2), and C = C2, the
// masked message. ParseCiphertext fills it from the forms shangmi and TLCP
// use, MarshalASN1 writes the GM/T 0009 DER form back, and the device
// calls convert it to and from the C structure.
type ECCCipher struct {
	X, Y [32]byte
	M    [32]byte
	C    []byte
}

// ParseCiphertext splits an SM2 ciphertext in the format opts describes,
// with the rules of sm2.PrivateKey.Decrypt: an *sm2.DecrypterOpts or
// *sm2.EncrypterOpts selects the format; otherwise a ciphertext starting
// with a DER SEQUENCE tag is the GM/T 0009 form (what TLCP sends) and
// anything else raw C1 ‖ C3 ‖ C2. C1 is checked to be a point of the
// curve. Every failure is sm2.ErrDecryption, as for an in-memory key.
func ParseCiphertext(ct []byte, opts crypto.DecrypterOpts) (*ECCCipher, error) {
	asn1Form, order := len(ct) > 0 && ct[0] == 0x30, sm2.C1C3C2
	switch o := opts.(type) {
	case *sm2.DecrypterOpts:
		if o != nil {
			asn1Form, order = o.ASN1, o.Order
		}
	case *sm2.EncrypterOpts:
		if o != nil {
			asn1Form, order = o.ASN1, o.Order
		}
	}
	var c *ECCCipher
	var ok bool
	if asn1Form {
		c, ok = parseASN1(ct)
	} else {
		c, ok = parseRaw(ct, order)
	}
	if !ok || len(c.C) == 0 || len(c.C) > maxCipherC {
		return nil, sm2.ErrDecryption
	}
	return c, nil
}

// parseASN1 reads SEQUENCE { INTEGER x, INTEGER y, OCTET STRING C3,
// OCTET STRING C2 }; bytes after the SEQUENCE are ignored, as by
// sm2.DecryptASN1.
func parseASN1(ct []byte) (*ECCCipher, bool) {
	in := cryptobyte.String(ct)
	var seq, h, c2 cryptobyte.String
	if !in.ReadASN1(&seq, asn1.SEQUENCE) {
		return nil, false
	}
	var c ECCCipher
	if !readCoordinate(&seq, &c.X) || !readCoordinate(&seq, &c.Y) ||
		!seq.ReadASN1(&h, asn1.OCTET_STRING) || !seq.ReadASN1(&c2, asn1.OCTET_STRING) ||
		!seq.Empty() || len(h) != 32 {
		return nil, false
	}
	copy(c.M[:], h)
	c.C = append([]byte(nil), c2...)
	return &c, c.pointValid()
}

// readCoordinate reads an INTEGER of at most 32 bytes (after leading
// zeros) into out, left-padded. The sign bit is not checked: some encoders
// omit the 00 byte of a coordinate whose top bit is set, and the point is
// validated afterwards.
func readCoordinate(s *cryptobyte.String, out *[32]byte) bool {
	var v cryptobyte.String
	if !s.ReadASN1(&v, asn1.INTEGER) || len(v) == 0 {
		return false
	}
	for len(v) > 32 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) > 32 {
		return false
	}
	copy(out[32-len(v):], v)
	return true
}

// parseRaw reads C1 ‖ C3 ‖ C2 or C1 ‖ C2 ‖ C3, C1 compressed or not.
func parseRaw(ct []byte, order sm2.CiphertextOrder) (*ECCCipher, bool) {
	if len(ct) == 0 {
		return nil, false
	}
	n := 65
	if ct[0] == 2 || ct[0] == 3 {
		n = 33
	} else if ct[0] != 4 {
		return nil, false
	}
	if len(ct) < n+32+1 {
		return nil, false
	}
	pub, err := sm2.NewPublicKey(ct[:n])
	if err != nil {
		return nil, false
	}
	var c ECCCipher
	p := pub.Bytes()
	copy(c.X[:], p[1:33])
	copy(c.Y[:], p[33:])
	rest := ct[n:]
	switch order {
	case sm2.C1C3C2:
		copy(c.M[:], rest[:32])
		c.C = append([]byte(nil), rest[32:]...)
	case sm2.C1C2C3:
		copy(c.M[:], rest[len(rest)-32:])
		c.C = append([]byte(nil), rest[:len(rest)-32]...)
	default:
		return nil, false
	}
	return &c, true
}

func (c *ECCCipher) pointValid() bool {
	_, err := sm2.NewPublicKey(append(append([]byte{4}, c.X[:]...), c.Y[:]...))
	return err == nil
}

// MarshalASN1 returns the GM/T 0009 DER form SEQUENCE { x, y, C3, C2 }.
func (c *ECCCipher) MarshalASN1() ([]byte, error) {
	var b cryptobyte.Builder
	b.AddASN1(asn1.SEQUENCE, func(b *cryptobyte.Builder) {
		addUnsigned(b, c.X[:])
		addUnsigned(b, c.Y[:])
		b.AddASN1OctetString(c.M[:])
		b.AddASN1OctetString(c.C)
	})
	return b.Bytes()
}

// marshalStruct lays c out as the C structure ECCCipher, in the host's
// byte order, with C of exactly L bytes (at least one, the array in the
// header's declaration). The device reads L bytes of C.
func (c *ECCCipher) marshalStruct() []byte {
	n := max(len(c.C), 1)
	b := make([]byte, cipherHeaderLen+n)
	copy(b[refLen-32:refLen], c.X[:])
	copy(b[2*refLen-32:2*refLen], c.Y[:])
	copy(b[2*refLen:], c.M[:])
	binary.NativeEndian.PutUint32(b[2*refLen+32:], uint32(len(c.C)))
	copy(b[cipherHeaderLen:], c.C)
	return b
}

// parseCipherStruct reads a C ECCCipher of len(b) bytes, as a device
// writes it (SDF_InternalEncrypt_ECC, SDF_ExternalEncrypt_ECC).
func parseCipherStruct(b []byte) (*ECCCipher, error) {
	if len(b) < cipherHeaderLen {
		return nil, errBadStruct
	}
	x, okx := fieldValue(b[:refLen])
	y, oky := fieldValue(b[refLen : 2*refLen])
	l := binary.NativeEndian.Uint32(b[2*refLen+32:])
	if !okx || !oky || l == 0 || l > maxCipherC || int(l) > len(b)-cipherHeaderLen {
		return nil, errBadStruct
	}
	var c ECCCipher
	copy(c.X[:], x)
	copy(c.Y[:], y)
	copy(c.M[:], b[2*refLen:2*refLen+32])
	c.C = append([]byte(nil), b[cipherHeaderLen:cipherHeaderLen+int(l)]...)
	if !c.pointValid() {
		return nil, errBadStruct
	}
	return &c, nil
}
