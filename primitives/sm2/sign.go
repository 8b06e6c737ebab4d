package sm2

import (
	"crypto"
	cryptorand "crypto/rand"
	"encoding/binary"
	"errors"
	"io"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/scalar"
	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// SignerOpts selects the user identifier for PrivateKey.Sign. Its HashFunc
// is 0, which tells Sign that it is given the message, not a digest.
type SignerOpts struct {
	// UID is the signer's identifier hashed into Z; nil or empty means
	// DefaultUID.
	UID []byte
}

// HashFunc returns 0: SM2 hashes Z and the message itself.
func (*SignerOpts) HashFunc() crypto.Hash { return 0 }

var (
	errUIDTooLong   = errors.New("sm2: user identifier longer than 8191 bytes")
	errDigestLength = errors.New("sm2: digest must be 32 bytes")
)

// Sign implements crypto.Signer. If opts is nil or opts.HashFunc() is 0, msg
// is the message and Sign computes e = SM3(Z || msg), with the identifier
// taken from opts when it is a *SignerOpts and DefaultUID otherwise. For any
// other opts, msg is the 32-byte digest e itself. The signature is the DER
// encoding of SEQUENCE { r INTEGER, s INTEGER }.
func (priv *PrivateKey) Sign(rand io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	if opts == nil || opts.HashFunc() == 0 {
		var uid []byte
		if o, ok := opts.(*SignerOpts); ok && o != nil && len(o.UID) > 0 {
			uid = o.UID
		}
		return SignASN1(rand, priv, msg, uid)
	}
	return SignDigestASN1(rand, priv, msg)
}

// SignASN1 signs msg with priv for the identifier uid (nil means DefaultUID)
// and returns the DER signature.
func SignASN1(rand io.Reader, priv *PrivateKey, msg, uid []byte) ([]byte, error) {
	if priv == nil || priv.pub == nil {
		return nil, errInvalidPrivateKey
	}
	e, err := digest(priv.pub, msg, uid)
	if err != nil {
		return nil, err
	}
	return SignDigestASN1(rand, priv, e[:])
}

// VerifyASN1 reports whether sig is a valid DER signature of msg by pub for
// the identifier uid (nil means DefaultUID).
func VerifyASN1(pub *PublicKey, msg, uid, sig []byte) bool {
	if pub == nil || pub.point == nil {
		return false
	}
	e, err := digest(pub, msg, uid)
	if err != nil {
		return false
	}
	return VerifyDigestASN1(pub, e[:], sig)
}

// digest computes e = SM3(Z(uid) || msg).
func digest(pub *PublicKey, msg, uid []byte) ([32]byte, error) {
	z, ok := pub.z(uid)
	if !ok {
		return [32]byte{}, errUIDTooLong
	}
	h := sm3.New()
	h.Write(z[:])
	h.Write(msg)
	var e [32]byte
	h.Sum(e[:0])
	return e, nil
}

// SignDigestASN1 signs the 32-byte value e = SM3(Z || M), computed by the
// caller, and returns the DER signature. A nil rand means crypto/rand.Reader.
func SignDigestASN1(rand io.Reader, priv *PrivateKey, e []byte) ([]byte, error) {
	if priv == nil || priv.pub == nil {
		return nil, errInvalidPrivateKey
	}
	if len(e) != 32 {
		return nil, errDigestLength
	}
	if rand == nil {
		rand = cryptorand.Reader
	}
	// The nonce is derived from fresh randomness together with the key and
	// the digest (a "hedged" nonce): with a good random source it is
	// uniformly random, and with a broken one it is still a secret function
	// of (d, e), so two different messages never share a nonce.
	var entropy [32]byte
	if _, err := io.ReadFull(rand, entropy[:]); err != nil {
		return nil, err
	}
	var ng nonceGenerator
	ng.init(priv, e, entropy[:])
	for range 32 {
		var k scalar.Scalar
		var kb [32]byte
		ng.next(&k, &kb)
		r, s, ok := signWithNonce(priv, e, &k, kb[:])
		if ok {
			return encodeSignature(r[:], s[:]), nil
		}
	}
	return nil, errors.New("sm2: signing failed repeatedly")
}

// nonceGenerator expands SM3(label || d || e || entropy) with a counter into
// candidate nonces, rejecting values outside [1, n-1].
type nonceGenerator struct {
	seed [32]byte
	ctr  uint32
}

func (ng *nonceGenerator) init(priv *PrivateKey, e, entropy []byte) {
	h := sm3.New()
	h.Write([]byte("shangmi SM2 hedged nonce\x00"))
	h.Write(priv.enc[:])
	h.Write(e)
	h.Write(entropy)
	h.Sum(ng.seed[:0])
	ng.ctr = 0
}

// next sets k to the next candidate in [1, n-1] and kb to its encoding.
func (ng *nonceGenerator) next(k *scalar.Scalar, kb *[32]byte) {
	var in [36]byte
	copy(in[:], ng.seed[:])
	for {
		ng.ctr++
		binary.BigEndian.PutUint32(in[32:], ng.ctr)
		*kb = sm3.Sum(in[:])
		if _, err := k.SetBytes(kb[:]); err == nil && k.IsZero() == 0 {
			return
		}
	}
}

// signWithNonce computes the signature (r, s) of e with the nonce k (whose
// encoding is kb), following GB/T 32918.2-2016, 6.1. It reports false when
// the nonce must be replaced (r = 0, r + k = n or s = 0). It is also the
// test hook for known-answer vectors with fixed nonces.
func signWithNonce(priv *PrivateKey, e []byte, k *scalar.Scalar, kb []byte) (r, s [32]byte, ok bool) {
	var p sm2ec.Point
	if _, err := p.ScalarBaseMult(kb); err != nil {
		return r, s, false
	}
	var x1 [32]byte
	if !p.PutX(&x1) {
		return r, s, false
	}
	var es, rs, ss, t scalar.Scalar
	es.SetReducedBytes(e)
	rs.SetReducedBytes(x1[:])
	rs.Add(&rs, &es) // r = e + x1 mod n
	t.Add(&rs, k)
	if rs.IsZero()|t.IsZero() != 0 {
		return r, s, false
	}
	// s = (1 + d)⁻¹ · (k - r·d) mod n
	t.Mul(&rs, &priv.d)
	t.Sub(k, &t)
	ss.Mul(priv.inverseOfOnePlusD(), &t)
	if ss.IsZero() != 0 {
		return r, s, false
	}
	rs.PutBytes(&r)
	ss.PutBytes(&s)
	return r, s, true
}

// VerifyDigestASN1 reports whether sig is a valid DER signature by pub of
// the 32-byte value e = SM3(Z || M).
func VerifyDigestASN1(pub *PublicKey, e, sig []byte) bool {
	if pub == nil || pub.point == nil || len(e) != 32 {
		return false
	}
	var rb, sb [32]byte
	if !parseSignatureInto(sig, &rb, &sb) {
		return false
	}
	return verify(pub, e, rb[:], sb[:])
}

func verify(pub *PublicKey, e, rb, sb []byte) bool {
	var r, s, t scalar.Scalar
	if _, err := r.SetBytes(rb); err != nil || r.IsZero() == 1 {
		return false
	}
	if _, err := s.SetBytes(sb); err != nil || s.IsZero() == 1 {
		return false
	}
	t.Add(&r, &s)
	if t.IsZero() == 1 {
		return false
	}
	// (x1, y1) = [s]G + [t]P; all inputs are public.
	var tb [32]byte
	t.PutBytes(&tb)
	var p sm2ec.Point
	var err error
	if table := pub.pointTable(); table != nil {
		_, err = p.DoubleScalarMultTableVarTime(sb, table, tb[:])
	} else {
		_, err = p.DoubleScalarMultVarTime(sb, pub.point, tb[:])
	}
	if err != nil {
		return false
	}
	// Accept iff e + x1 ≡ r (mod n), i.e. x1 ≡ r - e, which the point
	// checks without converting to affine coordinates.
	var es, c scalar.Scalar
	es.SetReducedBytes(e)
	c.Sub(&r, &es)
	var cb [32]byte
	c.PutBytes(&cb)
	return p.XModNEqualVarTime(cb[:])
}

// encodeSignature returns the DER SEQUENCE of the two unsigned big-endian
// integers, at most 32 bytes each. It writes the DER by hand into one
// buffer: the whole encoding is at most 72 bytes, so every length fits the
// one-byte short form.
func encodeSignature(r, s []byte) []byte {
	r, s = trimInteger(r), trimInteger(s)
	rl, sl := integerLen(r), integerLen(s)
	out := make([]byte, 0, 2+2+rl+2+sl)
	out = append(out, 0x30, byte(2+rl+2+sl))
	out = appendInteger(out, r)
	return appendInteger(out, s)
}

// trimInteger drops leading zero bytes, keeping at least one byte.
func trimInteger(v []byte) []byte {
	for len(v) > 1 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) == 0 {
		return []byte{0}
	}
	return v
}

// integerLen is the length of the contents of the INTEGER for the trimmed
// unsigned v: one more when the top bit is set, which would make it
// negative.
func integerLen(v []byte) int {
	return len(v) + int(v[0]>>7)
}

func appendInteger(out, v []byte) []byte {
	out = append(out, 0x02, byte(integerLen(v)))
	if v[0]&0x80 != 0 {
		out = append(out, 0)
	}
	return append(out, v...)
}

// addASN1Unsigned adds the big-endian unsigned v as a minimal DER INTEGER.
func addASN1Unsigned(b *cryptobyte.Builder, v []byte) {
	for len(v) > 1 && v[0] == 0 {
		v = v[1:]
	}
	b.AddASN1(asn1.INTEGER, func(b *cryptobyte.Builder) {
		if len(v) == 0 || v[0]&0x80 != 0 {
			b.AddUint8(0)
		}
		b.AddBytes(v)
	})
}

// parseSignature parses a DER SEQUENCE of two positive INTEGERs, each at
// most 32 bytes, with nothing after it, and returns them left-padded to 32
// bytes.
func parseSignature(sig []byte) (r, s []byte, ok bool) {
	var rb, sb [32]byte
	if !parseSignatureInto(sig, &rb, &sb) {
		return nil, nil, false
	}
	return rb[:], sb[:], true
}

// parseSignatureInto is parseSignature writing into caller-provided arrays.
func parseSignatureInto(sig []byte, r, s *[32]byte) bool {
	input := cryptobyte.String(sig)
	var inner cryptobyte.String
	if !input.ReadASN1(&inner, asn1.SEQUENCE) || !input.Empty() {
		return false
	}
	return readPositiveInteger(&inner, r) && readPositiveInteger(&inner, s) && inner.Empty()
}

// readPositiveInteger reads a strict DER INTEGER that is positive and fits
// in 32 bytes into out, left-padded.
func readPositiveInteger(s *cryptobyte.String, out *[32]byte) bool {
	var v cryptobyte.String
	if !s.ReadASN1(&v, asn1.INTEGER) || len(v) == 0 {
		return false
	}
	if v[0]&0x80 != 0 {
		return false // negative
	}
	if len(v) > 1 && v[0] == 0 {
		if v[1]&0x80 == 0 {
			return false // not minimal
		}
		v = v[1:]
	}
	if len(v) > 32 {
		return false
	}
	*out = [32]byte{}
	copy(out[32-len(v):], v)
	return true
}
