package sm2

import (
	"crypto"
	cryptorand "crypto/rand"
	"crypto/subtle"
	"encoding"
	"errors"
	"io"
	"math/big"
	"sync"
	"sync/atomic"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/scalar"
	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// DefaultUID is the user identifier that GM/T 0009-2012 specifies when none
// is agreed, and the one TLCP uses everywhere.
const DefaultUID = "1234567812345678"

// PublicKey is an SM2 public key: a point of sm2p256v1 other than the
// identity. It is safe for concurrent use.
type PublicKey struct {
	point *sm2ec.Point // affine (Z = 1); points at pt, nil in the zero value
	pt    sm2ec.Point  // held inline so that a key is a single allocation
	enc   [65]byte     // 04 || X || Y

	// zDefault caches Z(DefaultUID), which every default signature and
	// verification needs.
	zOnce    sync.Once
	zDefault [32]byte

	// table caches multiples of the point (an sm2ec.PointTable, 4 KiB) that
	// cut verification and encryption with the key to a quarter of their
	// doublings. Building it costs about two verifications' worth of
	// savings, so it is made on the second use of the key (verification,
	// encryption or ECDH), not the first: keys parsed for one check (most
	// certificates) never pay for it, and keys used again and again (trusted
	// roots, a peer's long-lived key) verify and encrypt about twice as
	// fast.
	used      atomic.Bool
	tableOnce sync.Once
	table     *sm2ec.PointTable
}

// pointTable returns the cached table for pub, or nil if this use should go
// without one.
func (pub *PublicKey) pointTable() *sm2ec.PointTable {
	if !pub.used.Load() {
		pub.used.Store(true)
		return nil
	}
	pub.tableOnce.Do(func() {
		pub.table, _ = sm2ec.NewPointTable(pub.point) // nil only for the identity, never a key
	})
	return pub.table
}

// PrivateKey is an SM2 private key d, 1 ≤ d ≤ n-2. It is safe for
// concurrent use.
type PrivateKey struct {
	d   scalar.Scalar
	enc [32]byte
	pub *PublicKey

	// dInv caches (1 + d)⁻¹ mod n, the inversion every signature needs.
	invOnce sync.Once
	dInv    scalar.Scalar
}

var (
	errInvalidPublicKey  = errors.New("sm2: invalid public key")
	errInvalidPrivateKey = errors.New("sm2: invalid private key")
)

// NewPublicKey parses a public key encoded as 04 || X || Y (65 bytes) or in
// compressed form 02/03 || X (33 bytes). It rejects the point at infinity,
// coordinates not below p, and points not on the curve.
func NewPublicKey(b []byte) (*PublicKey, error) {
	pub := &PublicKey{}
	if _, err := pub.pt.SetBytes(b); err != nil {
		return nil, errInvalidPublicKey
	}
	pub.point = &pub.pt
	// A valid uncompressed input is already the canonical encoding (SetBytes
	// rejects coordinates not below p), so it is copied rather than
	// recomputed; a compressed one is encoded from the affine point, which
	// needs no inversion either.
	if len(b) == len(pub.enc) {
		copy(pub.enc[:], b)
	} else if !pub.pt.EncodeAffine(&pub.enc) {
		return nil, errInvalidPublicKey // unreachable: SetBytes leaves Z = 1
	}
	return pub, nil
}

// newPublicKey makes a public key from a computed point, which must not be
// the identity, spending the one inversion that brings it to affine form.
func newPublicKey(p *sm2ec.Point) (*PublicKey, error) {
	pub := &PublicKey{}
	if !pub.setPoint(p) {
		return nil, errInvalidPublicKey
	}
	return pub, nil
}

// setPoint sets pub to the point p, which it normalizes (one inversion). It
// reports false for the identity.
func (pub *PublicKey) setPoint(p *sm2ec.Point) bool {
	pub.pt = *p
	pub.pt.Normalize()
	if !pub.pt.EncodeAffine(&pub.enc) {
		return false
	}
	pub.point = &pub.pt
	return true
}

// Bytes returns the 65-byte uncompressed encoding 04 || X || Y.
func (pub *PublicKey) Bytes() []byte {
	out := pub.enc
	return out[:]
}

// BytesCompressed returns the 33-byte compressed encoding 02/03 || X.
func (pub *PublicKey) BytesCompressed() []byte {
	out := make([]byte, 33)
	out[0] = 2 | pub.enc[64]&1
	copy(out[1:], pub.enc[1:33])
	return out
}

// Equal reports whether pub and x are the same public key.
func (pub *PublicKey) Equal(x crypto.PublicKey) bool {
	xx, ok := x.(*PublicKey)
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare(pub.enc[:], xx.enc[:]) == 1
}

// nMinus1 is n-1, for the range check on
// private keys (d = n-1 would make 1 + d non-invertible).
var nMinus1 = func() *scalar.Scalar {
	var one, s scalar.Scalar
	one.One()
	return s.Neg(&one)
}()

// NewPrivateKey parses a 32-byte big-endian private key, which must satisfy
// 1 ≤ d ≤ n-2, and computes its public key.
func NewPrivateKey(b []byte) (*PrivateKey, error) {
	var d scalar.Scalar
	if _, err := d.SetBytes(b); err != nil {
		return nil, errInvalidPrivateKey
	}
	if d.IsZero()|d.Equal(nMinus1) != 0 {
		return nil, errInvalidPrivateKey
	}
	// A key parsed from its bytes may be parsed again and again (loaded
	// per request, say), so its public key is computed blinded.
	return newPrivateKey(&d, b, true)
}

// newPrivateKey makes the key d, encoded as b, computing d·G blinded if
// blind is set. (A method value in place of the flag would move p to the
// heap.)
func newPrivateKey(d *scalar.Scalar, b []byte, blind bool) (*PrivateKey, error) {
	// The key and its public key share one allocation.
	k := new(struct {
		priv PrivateKey
		pub  PublicKey
	})
	var p sm2ec.Point
	var err error
	if blind {
		_, err = p.ScalarBaseMultBlinded(b)
	} else {
		_, err = p.ScalarBaseMult(b)
	}
	if err != nil || !k.pub.setPoint(&p) {
		return nil, errInvalidPrivateKey // unreachable: 1 ≤ d < n
	}
	k.priv.d, k.priv.pub = *d, &k.pub
	copy(k.priv.enc[:], b)
	return &k.priv, nil
}

// GenerateKey returns a new private key with d uniform in [1, n-2], read
// from rand (crypto/rand.Reader if nil) by rejection sampling.
//
// Its public key comes from the unblinded comb, which is right for a key
// made once; a key derived again and again from the same seed should be
// made with NewPrivateKey, which blinds the multiplication.
func GenerateKey(rand io.Reader) (*PrivateKey, error) {
	var d scalar.Scalar
	var b [32]byte
	if err := randomScalar(rand, &d, &b, true); err != nil {
		return nil, err
	}
	// A fresh random d is multiplied once: the plain comb suffices.
	return newPrivateKey(&d, b[:], false)
}

// randomScalar sets s to a uniform value in [1, n-1], or [1, n-2] if
// privateKey is set, and b to its encoding. A nil rand means
// crypto/rand.Reader. A random source that keeps producing out-of-range
// values is reported as an error rather than looped on forever.
func randomScalar(rand io.Reader, s *scalar.Scalar, b *[32]byte, privateKey bool) error {
	if rand == nil {
		rand = cryptorand.Reader
	}
	for range 64 {
		if _, err := io.ReadFull(rand, b[:]); err != nil {
			return err
		}
		if _, err := s.SetBytes(b[:]); err != nil {
			continue
		}
		bad := s.IsZero()
		if privateKey {
			bad |= s.Equal(nMinus1)
		}
		if bad == 0 {
			return nil
		}
	}
	return errors.New("sm2: random source produced no valid scalar")
}

// Bytes returns the 32-byte big-endian encoding of d.
func (priv *PrivateKey) Bytes() []byte {
	out := priv.enc
	return out[:]
}

// PublicKey returns the public key of priv.
func (priv *PrivateKey) PublicKey() *PublicKey { return priv.pub }

// Public returns the public key of priv, a *PublicKey, as crypto.Signer
// requires.
func (priv *PrivateKey) Public() crypto.PublicKey { return priv.pub }

// Equal reports whether priv and x are the same private key, in constant
// time.
func (priv *PrivateKey) Equal(x crypto.PrivateKey) bool {
	xx, ok := x.(*PrivateKey)
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare(priv.enc[:], xx.enc[:]) == 1
}

// inverseOfOnePlusD returns (1 + d)⁻¹ mod n, computing it once per key.
func (priv *PrivateKey) inverseOfOnePlusD() *scalar.Scalar {
	priv.invOnce.Do(func() {
		var t scalar.Scalar
		t.One()
		t.Add(&t, &priv.d)
		priv.dInv.Invert(&t)
	})
	return &priv.dInv
}

// Curve constants hashed into Z, in the order of GB/T 32918.2-2016, 5.5.
var zCurveParams = func() []byte {
	var b []byte
	a := new(big.Int).Sub(paramP, big.NewInt(3))
	for _, v := range []*big.Int{a, paramB, paramGx, paramGy} {
		b = append(b, v.FillBytes(make([]byte, 32))...)
	}
	return b
}()

// maxUIDLen is the longest identifier whose bit length fits ENTL's 16 bits.
const maxUIDLen = 0xffff / 8

// Z returns Z = SM3(ENTL || ID || a || b || Gx || Gy || Px || Py) for the
// identifier uid, 32 bytes. A nil uid means DefaultUID; an empty non-nil
// uid is the empty identifier (ENTL = 0), as other implementations compute
// it. It returns
// nil if uid is longer than 8191 bytes, whose bit length ENTL cannot hold.
func (pub *PublicKey) Z(uid []byte) []byte {
	z, ok := pub.z(uid)
	if !ok {
		return nil
	}
	return z[:]
}

func (pub *PublicKey) z(uid []byte) ([32]byte, bool) {
	if uid == nil {
		pub.zOnce.Do(func() { pub.zDefault = computeDefaultZ(pub) })
		return pub.zDefault, true
	}
	if len(uid) > maxUIDLen {
		return [32]byte{}, false
	}
	return computeZ(pub, uid), true
}

// zDefaultPrefix is the SM3 state, marshaled, after ENTL || DefaultUID ||
// a || b || Gx || Gy, the same for every key: its first two blocks are
// compressed once, which halves the work of Z(DefaultUID) for each new key
// (four compressions to two), as every certificate key of a TLCP handshake
// needs it.
var zDefaultPrefix = func() []byte {
	h := sm3.New()
	entl := len(DefaultUID) * 8
	h.Write([]byte{byte(entl >> 8), byte(entl)})
	h.Write([]byte(DefaultUID))
	h.Write(zCurveParams)
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("sm2: " + err.Error())
	}
	return b
}()

func computeDefaultZ(pub *PublicKey) [32]byte {
	h := sm3.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(zDefaultPrefix); err != nil {
		return computeZ(pub, []byte(DefaultUID)) // unreachable
	}
	h.Write(pub.enc[1:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func computeZ(pub *PublicKey, uid []byte) [32]byte {
	h := sm3.New()
	entl := len(uid) * 8
	h.Write([]byte{byte(entl >> 8), byte(entl)})
	h.Write(uid)
	h.Write(zCurveParams)
	h.Write(pub.enc[1:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}
