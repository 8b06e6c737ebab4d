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

	r    scalar.Scalar // ephemeral private key
	rb   [32]byte      // its encoding, set by Init
	R    *PublicKey    // ephemeral public key: nil, or rPub
	rPub PublicKey     // held inline, so that an exchange is one allocation

	// responder, after Respond: y_V || h, from which VerifyInitiator
	// computes the S_A it expects (S_A = SM3(0x03 || y_V || h)).
	conf    [64]byte
	confSet bool
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
	// The scalar is read straight into the exchange, which is on the heap
	// already: a local array would escape through the io.Reader call.
	if err := randomScalar(rand, &ke.r, &ke.rb, false); err != nil {
		return nil, err
	}
	return ke.initWithScalar(&ke.r, ke.rb[:])
}

// initWithScalar sets the ephemeral key; it is the test hook for vectors.
func (ke *KeyExchange) initWithScalar(r *scalar.Scalar, rb []byte) (*PublicKey, error) {
	var p sm2ec.Point
	if _, err := p.ScalarBaseMult(rb); err != nil {
		return nil, err
	}
	if !ke.rPub.setPoint(&p) {
		return nil, errInvalidPublicKey // unreachable: 1 ≤ r < n
	}
	ke.r = *r
	copy(ke.rb[:], rb)
	ke.R = &ke.rPub
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
	var v [65]byte
	if err := ke.sharedPoint(&v, peerPub, peerR); err != nil {
		return nil, nil, err
	}
	// The key and S_B share one allocation.
	out := make([]byte, ke.keyLen+sm3.Size)
	key = out[:ke.keyLen:ke.keyLen]
	ke.deriveKey(key, &v, zA[:], ke.z[:], peerR, ke.R, &ke.conf)
	clear(v[:])
	ke.confSet = true
	sB = out[ke.keyLen:]
	confirmation(sB, 2, &ke.conf)
	return key, sB, nil
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
	var u [65]byte
	if err := ke.sharedPoint(&u, peerPub, peerR); err != nil {
		return nil, nil, err
	}
	out := make([]byte, ke.keyLen+sm3.Size)
	key = out[:ke.keyLen:ke.keyLen]
	var conf [64]byte
	ke.deriveKey(key, &u, ke.z[:], zB[:], ke.R, peerR, &conf)
	clear(u[:])
	if sB != nil {
		var s2 [sm3.Size]byte
		confirmation(s2[:], 2, &conf)
		if subtle.ConstantTimeCompare(sB, s2[:]) != 1 {
			clear(out)
			return nil, nil, errKeyConfirmation
		}
	}
	sA = out[ke.keyLen:]
	confirmation(sA, 3, &conf)
	clear(conf[:])
	return key, sA, nil
}

// VerifyInitiator checks the initiator's optional confirmation S_A, after
// Respond.
func (ke *KeyExchange) VerifyInitiator(sA []byte) error {
	if ke.initiator {
		return errWrongRole
	}
	if !ke.confSet {
		return errNotInitialised
	}
	var want [sm3.Size]byte
	confirmation(want[:], 3, &ke.conf)
	if subtle.ConstantTimeCompare(sA, want[:]) != 1 {
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

// sharedPoint writes the encoding of [t](P_peer + [x̄_peer]R_peer), with
// t = d + x̄_own·r mod n, into out. It computes it as the single
// constant-time double-scalar multiplication [t]P_peer + [t·x̄_peer mod
// n]R_peer: one chain of doublings for both, against [x̄_peer]R_peer
// (public, 127 doublings) and then [t] of the sum (255). Both scalars are
// secret, and the peer picks both points, so the multiplication must be
// (and is) correct and constant time whatever relation they have.
func (ke *KeyExchange) sharedPoint(out *[65]byte, peerPub, peerR *PublicKey) error {
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
	clear(tb[:])
	clear(bb[:])
	if err != nil || p.IsIdentity() == 1 {
		return errKeyExchange
	}
	if !p.Normalize().EncodeAffine(out) {
		return errKeyExchange // unreachable: Normalize leaves Z = 1
	}
	return nil
}

// deriveKey writes K = KDF(x || y || Z_A || Z_B, klen) into key, and y || h
// into conf for the confirmation hashes, where h = SM3(x || Z_A || Z_B ||
// x1 || y1 || x2 || y2) with (x, y) the shared point, (x1, y1) = R_A and
// (x2, y2) = R_B.
func (ke *KeyExchange) deriveKey(key []byte, point *[65]byte, zA, zB []byte, rA, rB *PublicKey, conf *[64]byte) {
	x, y := point[1:33], point[33:65]
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
	copy(conf[:32], y)
	copy(conf[32:], inner[:])
}

// confirmation writes S_tag = SM3(tag || y || h) into out (32 bytes), with
// conf = y || h: S2 (S_B) for tag 2, S3 (S_A) for tag 3.
func confirmation(out []byte, tag byte, conf *[64]byte) {
	var in [1 + 64]byte
	in[0] = tag
	copy(in[1:], conf[:])
	h := sm3.Sum(in[:])
	copy(out, h[:])
}

// ECDH returns the x coordinate of [d]P, 32 bytes: plain elliptic curve
// Diffie–Hellman on sm2p256v1, without the SM2 key exchange's hashing.
func ECDH(priv *PrivateKey, pub *PublicKey) ([]byte, error) {
	if priv == nil || priv.pub == nil || pub == nil || pub.point == nil {
		return nil, errKeyExchangeInput
	}
	// d is often a long-term key used with the same peer again and again:
	// both multiplications are blinded (see sm2ec), ScalarMult by
	// rescaling its per-call table, the cached table by splitting d.
	var p *sm2ec.Point
	var err error
	if table := pub.pointTable(); table != nil {
		p, err = sm2ec.NewPoint().ScalarMultTableBlinded(table, priv.enc[:])
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
