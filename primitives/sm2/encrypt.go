package sm2

import (
	"crypto"
	"crypto/subtle"
	"errors"
	"io"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/scalar"
	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// CiphertextOrder is the order of the parts of a raw SM2 ciphertext.
type CiphertextOrder int

const (
	// C1C3C2 is the order of GB/T 32918.4-2016 and the default.
	C1C3C2 CiphertextOrder = iota
	// C1C2C3 is the order of the 2010 draft, still used by some systems.
	C1C2C3
)

// EncrypterOpts selects the ciphertext format. The zero value (and nil)
// means raw C1 || C3 || C2 with an uncompressed C1.
type EncrypterOpts struct {
	Order CiphertextOrder
	// ASN1 selects the GM/T 0009 DER form SEQUENCE { x, y, C3, C2 }; Order
	// and CompressC1 are then ignored.
	ASN1 bool
	// CompressC1 encodes C1 as 02/03 || x (33 bytes) instead of
	// 04 || x || y (65 bytes) in the raw forms.
	CompressC1 bool
}

// DecrypterOpts describes the ciphertext format expected by Decrypt. The
// encoding of C1 (compressed or not) is recognised from its first byte. The
// zero value (and nil) means raw C1 || C3 || C2.
type DecrypterOpts struct {
	Order CiphertextOrder
	ASN1  bool
}

// ErrDecryption is the single error returned for every decryption failure,
// so that a failure reveals nothing about which check failed.
var ErrDecryption = errors.New("sm2: decryption error")

var errEmptyPlaintext = errors.New("sm2: cannot encrypt an empty message")

// Encrypt encrypts msg to pub as in GB/T 32918.4-2016, 6.1, in the format
// chosen by opts (nil means raw C1 || C3 || C2, uncompressed C1).
func Encrypt(rand io.Reader, pub *PublicKey, msg []byte, opts *EncrypterOpts) ([]byte, error) {
	if pub == nil || pub.point == nil {
		return nil, errInvalidPublicKey
	}
	if len(msg) == 0 {
		return nil, errEmptyPlaintext
	}
	if opts == nil {
		opts = &EncrypterOpts{}
	}
	if opts.Order != C1C3C2 && opts.Order != C1C2C3 {
		return nil, errors.New("sm2: unknown ciphertext order")
	}
	for range 32 {
		var k scalar.Scalar
		var kb [32]byte
		if err := randomScalar(rand, &k, &kb, false); err != nil {
			return nil, err
		}
		if ct, ok := encryptWithNonce(pub, msg, kb[:], opts); ok {
			return ct, nil
		}
	}
	return nil, errors.New("sm2: encryption failed repeatedly")
}

// EncryptASN1 encrypts msg to pub and returns the GM/T 0009 DER ciphertext
// SEQUENCE { INTEGER x, INTEGER y, OCTET STRING C3, OCTET STRING C2 }, the
// form TLCP carries.
func EncryptASN1(rand io.Reader, pub *PublicKey, msg []byte) ([]byte, error) {
	return Encrypt(rand, pub, msg, &EncrypterOpts{ASN1: true})
}

// encryptWithNonce encrypts with the nonce kb (1 ≤ k ≤ n-1). It reports
// false if the KDF output is all zero and a new nonce is needed. It is also
// the test hook for fixed-nonce vectors.
func encryptWithNonce(pub *PublicKey, msg, kb []byte, opts *EncrypterOpts) ([]byte, bool) {
	c1, err := sm2ec.NewPoint().ScalarBaseMult(kb)
	if err != nil {
		return nil, false
	}
	var s *sm2ec.Point
	if table := pub.pointTable(); table != nil {
		s, err = sm2ec.NewPoint().ScalarMultTable(table, kb)
	} else {
		s, err = sm2ec.NewPoint().ScalarMult(pub.point, kb)
	}
	if err != nil {
		return nil, false
	}
	// One inversion serves both points; neither is the identity as k < n.
	// Both encodings stay on the stack; the shared point is cleared.
	var c1Enc, xy [65]byte
	if !sm2ec.EncodeAffinePair(c1, s, &c1Enc, &xy) {
		return nil, false
	}
	defer clear(xy[:])
	x2, y2 := xy[1:33], xy[33:]

	if opts.ASN1 {
		c2 := make([]byte, len(msg))
		if !maskMessage(c2, msg, xy[1:]) {
			return nil, false
		}
		c3 := hashC3(x2, msg, y2)
		var b cryptobyte.Builder
		b.AddASN1(asn1.SEQUENCE, func(b *cryptobyte.Builder) {
			addASN1Unsigned(b, c1Enc[1:33])
			addASN1Unsigned(b, c1Enc[33:])
			b.AddASN1OctetString(c3[:])
			b.AddASN1OctetString(c2)
		})
		return b.BytesOrPanic(), true
	}
	// The raw forms are laid out in one allocation, C2 written in place.
	c1b := c1Enc[:]
	var c1c [33]byte
	if opts.CompressC1 {
		c1c[0] = 2 | c1Enc[64]&1
		copy(c1c[1:], c1Enc[1:33])
		c1b = c1c[:]
	}
	out := make([]byte, len(c1b)+32+len(msg))
	copy(out, c1b)
	c3At, c2At := len(c1b), len(c1b)+32
	if opts.Order == C1C2C3 {
		c3At, c2At = len(c1b)+len(msg), len(c1b)
	}
	if !maskMessage(out[c2At:c2At+len(msg)], msg, xy[1:]) {
		return nil, false
	}
	c3 := hashC3(x2, msg, y2)
	copy(out[c3At:], c3[:])
	return out, true
}

// maskMessage sets c2 = msg ⊕ KDF(x2 || y2, len(msg)) and reports whether
// the KDF output was not all zero (GB/T 32918.4 asks for a new k then).
// x2y2 is the 64 bytes of x2 || y2 in one slice, which the KDF of a 32-byte
// message reads where it lies.
func maskMessage(c2, msg, x2y2 []byte) bool {
	sm3.KDFInto(c2, x2y2)
	if allZero(c2) == 1 {
		return false
	}
	subtle.XORBytes(c2, c2, msg)
	return true
}

func hashC3(x2, msg, y2 []byte) [32]byte {
	h := sm3.New()
	h.Write(x2)
	h.Write(msg)
	h.Write(y2)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// allZero returns 1 if b is all zero bytes, in constant time.
func allZero(b []byte) int {
	var acc byte
	for _, v := range b {
		acc |= v
	}
	return subtle.ConstantTimeByteEq(acc, 0)
}

// Decrypt decrypts a ciphertext in the format described by opts (nil means
// raw C1 || C3 || C2). Every failure returns ErrDecryption.
func Decrypt(priv *PrivateKey, ciphertext []byte, opts *DecrypterOpts) ([]byte, error) {
	if priv == nil || priv.pub == nil {
		return nil, ErrDecryption
	}
	if opts == nil {
		opts = &DecrypterOpts{}
	}
	var c1 sm2ec.Point
	var c2, c3 []byte
	var ok bool
	if opts.ASN1 {
		c3, c2, ok = parseASN1Ciphertext(&c1, ciphertext)
	} else {
		c3, c2, ok = parseRawCiphertext(&c1, ciphertext, opts.Order)
	}
	if !ok {
		return nil, ErrDecryption
	}
	return decrypt(priv, &c1, c3, c2)
}

// DecryptASN1 decrypts a GM/T 0009 DER ciphertext. Bytes after the DER
// SEQUENCE are ignored, since some peers pad the ciphertext.
func DecryptASN1(priv *PrivateKey, ciphertext []byte) ([]byte, error) {
	return Decrypt(priv, ciphertext, &DecrypterOpts{ASN1: true})
}

// Decrypt implements crypto.Decrypter. With opts nil, a ciphertext starting
// with a DER SEQUENCE tag is taken as the GM/T 0009 form and anything else
// as raw C1 || C3 || C2 (a raw C1 starts with 02, 03 or 04, never 30). A
// *DecrypterOpts or *EncrypterOpts selects the format explicitly.
func (priv *PrivateKey) Decrypt(rand io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	switch o := opts.(type) {
	case *DecrypterOpts:
		if o != nil {
			return Decrypt(priv, ciphertext, o)
		}
	case *EncrypterOpts:
		if o != nil {
			return Decrypt(priv, ciphertext, &DecrypterOpts{Order: o.Order, ASN1: o.ASN1})
		}
	}
	if len(ciphertext) > 0 && ciphertext[0] == 0x30 {
		return DecryptASN1(priv, ciphertext)
	}
	return Decrypt(priv, ciphertext, nil)
}

func decrypt(priv *PrivateKey, c1 *sm2ec.Point, c3, c2 []byte) ([]byte, error) {
	var s sm2ec.Point
	if _, err := s.ScalarMult(c1, priv.enc[:]); err != nil {
		return nil, ErrDecryption
	}
	// Encoded on the stack: s.Bytes would allocate.
	var xy [65]byte
	if !s.Normalize().EncodeAffine(&xy) {
		return nil, ErrDecryption // unreachable for a valid C1 and d in range
	}
	defer clear(xy[:])
	x2, y2 := xy[1:33], xy[33:]
	msg := make([]byte, len(c2))
	sm3.KDFInto(msg, xy[1:])
	zero := allZero(msg)
	subtle.XORBytes(msg, msg, c2)
	u := hashC3(x2, msg, y2)
	if subtle.ConstantTimeCompare(u[:], c3)&(1^zero) != 1 {
		clear(msg)
		return nil, ErrDecryption
	}
	return msg, nil
}

// pointLen returns the length of the encoded point starting with prefix.
func pointLen(prefix byte) int {
	switch prefix {
	case 4:
		return 65
	case 2, 3:
		return 33
	}
	return 0
}

// parseRawCiphertext splits a raw ciphertext, setting c1 to its validated
// C1.
func parseRawCiphertext(c1 *sm2ec.Point, ct []byte, order CiphertextOrder) (c3, c2 []byte, ok bool) {
	if len(ct) == 0 {
		return nil, nil, false
	}
	n := pointLen(ct[0])
	if n == 0 || len(ct) < n+32+1 {
		return nil, nil, false
	}
	if _, err := c1.SetBytes(ct[:n]); err != nil {
		return nil, nil, false
	}
	rest := ct[n:]
	switch order {
	case C1C3C2:
		return rest[:32], rest[32:], true
	case C1C2C3:
		return rest[len(rest)-32:], rest[:len(rest)-32], true
	}
	return nil, nil, false
}

// parseASN1Ciphertext splits a GM/T 0009 ciphertext, setting c1 to its
// validated C1.
func parseASN1Ciphertext(c1 *sm2ec.Point, ct []byte) (c3, c2 []byte, ok bool) {
	input := cryptobyte.String(ct)
	var inner cryptobyte.String
	if !input.ReadASN1(&inner, asn1.SEQUENCE) {
		return nil, nil, false
	}
	// The coordinates go straight into the uncompressed encoding, on the
	// stack.
	var enc [65]byte
	enc[0] = 4
	var h, c cryptobyte.String
	if !readCoordinate(&inner, (*[32]byte)(enc[1:33])) || !readCoordinate(&inner, (*[32]byte)(enc[33:])) ||
		!inner.ReadASN1(&h, asn1.OCTET_STRING) ||
		!inner.ReadASN1(&c, asn1.OCTET_STRING) || !inner.Empty() ||
		len(h) != 32 || len(c) == 0 {
		return nil, nil, false
	}
	if _, err := c1.SetBytes(enc[:]); err != nil {
		return nil, nil, false
	}
	return h, c, true
}

// readCoordinate reads a DER INTEGER holding a coordinate into out,
// left-padded to 32 bytes. It accepts the value as unsigned even when its top
// bit is set, since some encoders omit the 00 byte; the point is validated
// afterwards.
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
	clear(out[:32-len(v)])
	copy(out[32-len(v):], v)
	return true
}
