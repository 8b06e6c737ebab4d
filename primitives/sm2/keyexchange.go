package sm2

import (
	"crypto/subtle"
	"errors"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/scalar"
	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// KeyExchange is one side of the SM2 key exchange protocol of
// GB/T 32918.3-2016. The initiator (A) calls Init, sends R_A, and after
// receiving R_B calls Complete; the responder (B) calls Init (or lets
// Respond do it), sends R_B and calls Respond with R_A. The optional
// confirmation hashes S_B (responder to initiator) and S_A (initiator to
// responder) can be checked with Complete and VerifyInitiator.
//
// In TLCP the server is the initiator, the client the responder, the static
// keys are the encryption key pairs, uid is DefaultUID, keyLen is 48 and no
// confirmation is exchanged.
//
// A KeyExchange is for a single exchange and is not safe for concurrent use.
type KeyExchange struct {
	priv      *PrivateKey
	z         [32]byte // own Z value
	keyLen    int
	initiator bool

	r  scalar.Scalar // ephemeral private key
	rb [32]byte      // its encoding, set by Init
	R  *PublicKey    // ephemeral public key

	sA []byte // responder: the S_A value expected from the initiator
}

var (
	errKeyExchange      = errors.New("sm2: key exchange failed")
	errKeyConfirmation  = errors.New("sm2: key confirmation failed")
	errNotInitialised   = errors.New("sm2: key exchange: Init has not been called")
	errWrongRole        = errors.New("sm2: key exchange: method does not match the role")
	errKeyExchangeInput = errors.New("sm2: key exchange: invalid argument")
)

// NewKeyExchange starts a key exchange with the static key priv, the own
// identifier uid (nil means DefaultUID) and a shared key of keyLen
// bytes. initiator selects role A.
func NewKeyExchange(priv *PrivateKey, uid []byte, keyLen int, initiator bool) (*KeyExchange, error) {
	if priv == nil || priv.pub == nil || keyLen <= 0 || uint64(keyLen) > sm3.MaxKDFLen {
		return nil, errKeyExchangeInput
	}
	z, ok := priv.pub.z(uid)
	if !ok {
		return nil, errUIDTooLong
	}
	return &KeyExchange{priv: priv, z: z, keyLen: keyLen, initiator: initiator}, nil
}

// Init generates the own ephemeral key r and returns R = [r]G, which is sent
// to the peer. It does not need the peer's keys, so the initiator can send
// R_A first. Calling Init again returns the same R.
func (ke *KeyExchange) Init(rand io.Reader) (*PublicKey, error) {
	if ke.R != nil {
		return ke.R, nil
	}
	var r scalar.Scalar
	var rb [32]byte
	if err := randomScalar(rand, &r, &rb, false); err != nil {
		return nil, err
	}
	return ke.initWithScalar(&r, rb[:])
}

// initWithScalar sets the ephemeral key; it is the test hook for vectors.
func (ke *KeyExchange) initWithScalar(r *scalar.Scalar, rb []byte) (*PublicKey, error) {
	p, err := sm2ec.NewPoint().ScalarBaseMult(rb)
	if err != nil {
		return nil, err
	}
	R, err := newPublicKey(p)
	if err != nil {
		return nil, err
	}
	ke.r, ke.R = *r, R
	copy(ke.rb[:], rb)
	return ke.R, nil
}

// EphemeralPublicKey returns the own ephemeral public key R, or nil before
// Init (or Respond) has made it.
func (ke *KeyExchange) EphemeralPublicKey() *PublicKey { return ke.R }

// Respond is the responder's step: it makes the ephemeral key if Init has
// not been called, and computes the shared key from the initiator's static
// key peerPub, identifier peerUID (nil means DefaultUID) and
// ephemeral key peerR. It returns the key and S_B, the optional confirmation
// hash for the initiator.
func (ke *KeyExchange) Respond(rand io.Reader, peerPub *PublicKey, peerUID []byte, peerR *PublicKey) (key, sB []byte, err error) {
	if ke.initiator {
		return nil, nil, errWrongRole
	}
	if peerPub == nil || peerR == nil || peerPub.point == nil || peerR.point == nil {
		return nil, nil, errKeyExchangeInput
	}
	if _, err := ke.Init(rand); err != nil {
		return nil, nil, err
	}
	zA, ok := peerPub.z(peerUID)
	if !ok {
		return nil, nil, errUIDTooLong
	}
	v, err := ke.sharedPoint(peerPub, peerR)
	if err != nil {
		return nil, nil, err
	}
	key, s2, s3 := ke.deriveKey(v, zA[:], ke.z[:], peerR, ke.R)
	ke.sA = s3
	return key, s2, nil
}

// Complete is the initiator's step: it computes the shared key from the
// responder's static key peerPub, identifier peerUID and ephemeral key
// peerR. If sB is not nil it must equal the responder's confirmation hash.
// It returns the key and S_A, the optional confirmation for the responder.
func (ke *KeyExchange) Complete(peerPub *PublicKey, peerUID []byte, peerR *PublicKey, sB []byte) (key, sA []byte, err error) {
	if !ke.initiator {
		return nil, nil, errWrongRole
	}
	if ke.R == nil {
		return nil, nil, errNotInitialised
	}
	if peerPub == nil || peerR == nil || peerPub.point == nil || peerR.point == nil {
		return nil, nil, errKeyExchangeInput
	}
	zB, ok := peerPub.z(peerUID)
	if !ok {
		return nil, nil, errUIDTooLong
	}
	u, err := ke.sharedPoint(peerPub, peerR)
	if err != nil {
		return nil, nil, err
	}
	key, s2, s3 := ke.deriveKey(u, ke.z[:], zB[:], ke.R, peerR)
	if sB != nil && subtle.ConstantTimeCompare(sB, s2) != 1 {
		clear(key)
		return nil, nil, errKeyConfirmation
	}
	return key, s3, nil
}

// VerifyInitiator checks the initiator's optional confirmation S_A, after
// Respond.
func (ke *KeyExchange) VerifyInitiator(sA []byte) error {
	if ke.initiator {
		return errWrongRole
	}
	if ke.sA == nil {
		return errNotInitialised
	}
	if subtle.ConstantTimeCompare(sA, ke.sA) != 1 {
		return errKeyConfirmation
	}
	return nil
}

// xbar returns 2^127 + (x mod 2^127) as a 32-byte scalar, for w = 127.
func xbar(pub *PublicKey) [32]byte {
	var out [32]byte
	copy(out[16:], pub.enc[17:33])
	out[16] = out[16]&0x7f | 0x80
	return out
}

// sharedPoint computes [t](P_peer + [x̄_peer]R_peer) with
// t = d + x̄_own·r mod n, as the single constant-time double-scalar
// multiplication [t]P_peer + [t·x̄_peer mod n]R_peer: one chain of
// doublings for both, against [x̄_peer]R_peer (public, 127 doublings) and
// then [t] of the sum (255). Both scalars are secret, and the peer picks
// both points, so the multiplication must be (and is) correct and constant
// time whatever relation they have.
func (ke *KeyExchange) sharedPoint(peerPub, peerR *PublicKey) ([]byte, error) {
	var t, x, b scalar.Scalar
	xb := xbar(ke.R)
	x.SetBytes(xb[:])
	t.Mul(&x, &ke.r)
	t.Add(&t, &ke.priv.d)
	xb = xbar(peerR)
	x.SetBytes(xb[:])
	b.Mul(&t, &x)
	var tb, bb [32]byte
	t.PutBytes(&tb)
	b.PutBytes(&bb)

	var p sm2ec.Point
	var err error
	if table := peerPub.pointTable(); table != nil {
		_, err = p.DoubleScalarMultTable(table, tb[:], peerR.point, bb[:])
	} else {
		_, err = p.DoubleScalarMult(peerPub.point, tb[:], peerR.point, bb[:])
	}
	if err != nil || p.IsIdentity() == 1 {
		return nil, errKeyExchange
	}
	return p.Bytes(), nil
}

// deriveKey returns K = KDF(x || y || Z_A || Z_B, klen) and the confirmation
// hashes S2 = SM3(0x02 || y || h) and S3 = SM3(0x03 || y || h) with
// h = SM3(x || Z_A || Z_B || x1 || y1 || x2 || y2), where (x1, y1) = R_A
// and (x2, y2) = R_B.
func (ke *KeyExchange) deriveKey(point, zA, zB []byte, rA, rB *PublicKey) (key, s2, s3 []byte) {
	x, y := point[1:33], point[33:65]
	key = make([]byte, ke.keyLen)
	sm3.KDFInto(key, x, y, zA, zB)

	// The inputs are short and fixed in size, so the hashes are computed
	// one-shot over stack buffers rather than through hash.Hash, which
	// would make them escape.
	var buf [32 + 32 + 32 + 64 + 64]byte
	n := copy(buf[:], x)
	n += copy(buf[n:], zA)
	n += copy(buf[n:], zB)
	n += copy(buf[n:], rA.enc[1:])
	n += copy(buf[n:], rB.enc[1:])
	inner := sm3.Sum(buf[:n])

	var in [1 + 32 + 32]byte
	copy(in[1:], y)
	copy(in[33:], inner[:])
	in[0] = 2
	h2 := sm3.Sum(in[:])
	in[0] = 3
	h3 := sm3.Sum(in[:])
	s2, s3 = h2[:], h3[:]
	return key, s2, s3
}

// ECDH returns the x coordinate of [d]P, 32 bytes: plain elliptic curve
// Diffie–Hellman on sm2p256v1, without the SM2 key exchange's hashing.
func ECDH(priv *PrivateKey, pub *PublicKey) ([]byte, error) {
	if priv == nil || priv.pub == nil || pub == nil || pub.point == nil {
		return nil, errKeyExchangeInput
	}
	var p *sm2ec.Point
	var err error
	if table := pub.pointTable(); table != nil {
		p, err = sm2ec.NewPoint().ScalarMultTable(table, priv.enc[:])
	} else {
		p, err = sm2ec.NewPoint().ScalarMult(pub.point, priv.enc[:])
	}
	if err != nil {
		return nil, errKeyExchange
	}
	x, err := p.BytesX()
	if err != nil {
		return nil, errKeyExchange
	}
	return x, nil
}
