package sm2

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"errors"
	"math/big"
)

// This file is the compatibility bridge to crypto/ecdsa's key types, for code
// that holds SM2 keys as *ecdsa.PublicKey and *ecdsa.PrivateKey on an SM2
// elliptic.Curve (gmsm does, and so does code written against crypto/ecdsa).
// Nothing else in this module goes through it; see "Key representation" in
// the package documentation.
//
// An ecdsa key on a curve other than the NIST ones can only be built and read
// through its X, Y and D fields, which Go deprecated in 1.26: their
// replacements (PublicKey.Bytes, ParseUncompressedPublicKey,
// ParseRawPrivateKey) accept the NIST curves only. Those fields are touched
// here and nowhere else in the module, each time on a line of its own.

// ECDSA returns pub as an *ecdsa.PublicKey whose Curve is P256(), for code
// that expects crypto/ecdsa keys. It is a copy: changing it does not change
// pub. Use it to hand a key to such code, not for SM2 operations, which
// crypto/ecdsa does not perform.
func (pub *PublicKey) ECDSA() *ecdsa.PublicKey {
	x := new(big.Int).SetBytes(pub.enc[1:33])
	y := new(big.Int).SetBytes(pub.enc[33:])
	//lint:ignore SA1019 a key on a custom curve can only be written through X and Y (see the file comment)
	return &ecdsa.PublicKey{Curve: P256(), X: x, Y: y}
}

// PublicKeyFromECDSA converts an *ecdsa.PublicKey on sm2p256v1 (P256(), or
// another package's curve with the same parameters, such as gmsm's) into a
// *PublicKey, validating the point.
func PublicKeyFromECDSA(k *ecdsa.PublicKey) (*PublicKey, error) {
	if k == nil || k.Curve == nil || !isSM2Curve(k.Curve.Params()) {
		return nil, errInvalidPublicKey
	}
	enc, ok := ecdsaPoint(k)
	if !ok {
		return nil, errInvalidPublicKey
	}
	return NewPublicKey(enc[:])
}

// ecdsaPoint returns 04 || X || Y for the coordinates of k, or false if they
// are unset, negative or longer than 256 bits.
func ecdsaPoint(k *ecdsa.PublicKey) (enc [65]byte, ok bool) {
	//lint:ignore SA1019 a key on a custom curve can only be read through X and Y (see the file comment)
	x, y := k.X, k.Y
	if x == nil || y == nil || x.Sign() < 0 || y.Sign() < 0 || x.BitLen() > 256 || y.BitLen() > 256 {
		return enc, false
	}
	enc[0] = 4
	x.FillBytes(enc[1:33])
	y.FillBytes(enc[33:])
	return enc, true
}

// ecdsaHasPoint reports whether either coordinate of k is set.
func ecdsaHasPoint(k *ecdsa.PublicKey) bool {
	//lint:ignore SA1019 a key on a custom curve can only be read through X and Y (see the file comment)
	return k.X != nil || k.Y != nil
}

func isSM2Curve(p *elliptic.CurveParams) bool {
	return p != nil && p.P != nil && p.N != nil && p.B != nil && p.Gx != nil && p.Gy != nil &&
		p.P.Cmp(paramP) == 0 && p.N.Cmp(paramN) == 0 && p.B.Cmp(paramB) == 0 &&
		p.Gx.Cmp(paramGx) == 0 && p.Gy.Cmp(paramGy) == 0
}

// ECDSA returns priv as an *ecdsa.PrivateKey whose Curve is P256(), for code
// that expects crypto/ecdsa keys. It is a copy, and it does not sign SM2:
// crypto/ecdsa would compute ECDSA signatures on the SM2 curve with it.
func (priv *PrivateKey) ECDSA() *ecdsa.PrivateKey {
	d := new(big.Int).SetBytes(priv.enc[:])
	//lint:ignore SA1019 a key on a custom curve can only be written through D (see the file comment)
	return &ecdsa.PrivateKey{PublicKey: *priv.pub.ECDSA(), D: d}
}

// PrivateKeyFromECDSA converts an *ecdsa.PrivateKey on sm2p256v1 (as for
// PublicKeyFromECDSA) into a *PrivateKey. It checks that D is in range and
// that the public point, if set, matches D.
func PrivateKeyFromECDSA(k *ecdsa.PrivateKey) (*PrivateKey, error) {
	if k == nil || k.Curve == nil || !isSM2Curve(k.Curve.Params()) {
		return nil, errInvalidPrivateKey
	}
	//lint:ignore SA1019 a key on a custom curve can only be read through D (see the file comment)
	d := k.D
	if d == nil || d.Sign() <= 0 || d.BitLen() > 256 {
		return nil, errInvalidPrivateKey
	}
	b := d.FillBytes(make([]byte, 32))
	priv, err := NewPrivateKey(b)
	clear(b)
	if err != nil {
		return nil, err
	}
	if ecdsaHasPoint(&k.PublicKey) {
		pub, err := PublicKeyFromECDSA(&k.PublicKey)
		if err != nil || !pub.Equal(priv.pub) {
			return nil, errors.New("sm2: private key does not match its public key")
		}
	}
	return priv, nil
}
