// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto/mlkem"
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// TLS 1.3 key shares (RFC 8446 §4.2.8) of the two groups, and the secrets
// they give. curveSM2's share is an uncompressed point and its secret the
// x coordinate of the ECDH product (RFC 8998 §3.2.1, RFC 8446 §7.4.2).
// curveSM2MLKEM768 concatenates, SM2 first: the client's share is its
// point and its ML-KEM-768 encapsulation key, the server's its point and
// the ML-KEM ciphertext, and the secret the ECDH x coordinate and the
// ML-KEM shared key, 64 bytes that enter HKDF-SM3 as any secret does
// (draft-yang-tls-hybrid-sm2-mlkem; TLS13.md §10). The order is the
// reverse of X25519MLKEM768's, which puts ML-KEM first.
const (
	hybridClientShareLen = sm2PointLen + mlkem.EncapsulationKeySize768 // 1249
	hybridServerShareLen = sm2PointLen + mlkem.CiphertextSize768       // 1153
	ecdhSecretLen        = 32
)

// clientKeyShare is the private half of a key share a client sent.
type clientKeyShare struct {
	group CurveID
	ecdh  *sm2.PrivateKey
	kem   *mlkem.DecapsulationKey768 // curveSM2MLKEM768 only
}

// newClientKeyShare makes a key share for group. Both halves come from
// rand: the ML-KEM key from a 64-byte seed (FIPS 203's d and z), so that a
// Config.Rand that repeats gives the same ClientHello, as it does for
// curveSM2. A non-nil ecdh is the SM2 key to use instead of a fresh one.
func newClientKeyShare(rand io.Reader, group CurveID, ecdh *sm2.PrivateKey) (*clientKeyShare, keyShare, error) {
	if ecdh == nil {
		var err error
		if ecdh, err = sm2.GenerateKey(rand); err != nil {
			return nil, keyShare{}, fmt.Errorf("tlcp: making a %v key share: %w", group, err)
		}
	}
	k := &clientKeyShare{group: group, ecdh: ecdh}
	switch group {
	case CurveSM2:
	case CurveSM2MLKEM768:
		seed := make([]byte, mlkem.SeedSize)
		if _, err := io.ReadFull(rand, seed); err != nil {
			return nil, keyShare{}, fmt.Errorf("tlcp: making a %v key share: short read from Rand: %w", group, err)
		}
		var err error
		if k.kem, err = mlkem.NewDecapsulationKey768(seed); err != nil {
			return nil, keyShare{}, fmt.Errorf("tlcp: making a %v key share: %w", group, err)
		}
	default:
		return nil, keyShare{}, fmt.Errorf("tlcp: no key share for group %v", group)
	}
	return k, k.keyShare(), nil
}

// keyShare is the KeyShareEntry of k's public half.
func (k *clientKeyShare) keyShare() keyShare {
	point := k.ecdh.PublicKey().Bytes()
	if k.kem == nil {
		return keyShare{group: uint16(k.group), data: point}
	}
	data := make([]byte, 0, hybridClientShareLen)
	data = append(append(data, point...), k.kem.EncapsulationKey().Bytes()...)
	return keyShare{group: uint16(k.group), data: data}
}

// sharedSecret is the client's secret from the server's share of the same
// group; a malformed share is illegal_parameter.
func (k *clientKeyShare) sharedSecret(share []byte) ([]byte, error) {
	switch k.group {
	case CurveSM2:
		return ecdhSecret(k.ecdh, share, "server's", k.group)
	case CurveSM2MLKEM768:
		if len(share) != hybridServerShareLen {
			return nil, errorf(alertIllegalParameter, "tlcp: the server's curveSM2MLKEM768 key share is %d bytes, not %d (a 65-byte point and a %d-byte ML-KEM-768 ciphertext)", len(share), hybridServerShareLen, mlkem.CiphertextSize768)
		}
		secret := make([]byte, 0, ecdhSecretLen+mlkem.SharedKeySize)
		x, err := ecdhSecret(k.ecdh, share[:sm2PointLen], "server's", k.group)
		if err != nil {
			return nil, err
		}
		// Decapsulation fails only on a wrong length, checked above; a
		// ciphertext that does not decrypt gives FIPS 203's implicit
		// rejection key, and the handshake fails at Finished.
		ss, err := k.kem.Decapsulate(share[sm2PointLen:])
		if err != nil {
			return nil, errorf(alertIllegalParameter, "tlcp: the server's ML-KEM-768 ciphertext: %w", err)
		}
		return append(append(secret, x...), ss...), nil
	}
	return nil, errorf(alertInternalError, "tlcp: no key share for group %v", k.group)
}

// serverKeyShare answers a client's share of group: the server's share
// and the shared secret. A malformed client share is illegal_parameter.
func serverKeyShare(rand io.Reader, group CurveID, clientShare []byte) (keyShare, []byte, error) {
	switch group {
	case CurveSM2:
		if len(clientShare) != sm2PointLen {
			return keyShare{}, nil, errorf(alertIllegalParameter, "tlcp: the client's curveSM2 key share is %d bytes, not a 65-byte uncompressed point", len(clientShare))
		}
	case CurveSM2MLKEM768:
		if len(clientShare) != hybridClientShareLen {
			return keyShare{}, nil, errorf(alertIllegalParameter, "tlcp: the client's curveSM2MLKEM768 key share is %d bytes, not %d (a 65-byte point and a %d-byte ML-KEM-768 encapsulation key)", len(clientShare), hybridClientShareLen, mlkem.EncapsulationKeySize768)
		}
	default:
		return keyShare{}, nil, errorf(alertInternalError, "tlcp: no key share for group %v", group)
	}
	// Check the client's whole share before any work: its point, then
	// FIPS 203 §7.2's modulus check of the encapsulation key.
	peer, err := parseSharePoint(clientShare[:sm2PointLen], "client's", group)
	if err != nil {
		return keyShare{}, nil, err
	}
	var ek *mlkem.EncapsulationKey768
	if group == CurveSM2MLKEM768 {
		if ek, err = mlkem.NewEncapsulationKey768(clientShare[sm2PointLen:]); err != nil {
			return keyShare{}, nil, errorf(alertIllegalParameter, "tlcp: the client's ML-KEM-768 encapsulation key: %w", err)
		}
	}
	priv, err := sm2.GenerateKey(rand)
	if err != nil {
		return keyShare{}, nil, errorf(alertInternalError, "tlcp: making a %v key share: %w", group, err)
	}
	x, err := sm2.ECDH(priv, peer)
	if err != nil {
		return keyShare{}, nil, errorf(alertIllegalParameter, "tlcp: %v key exchange: %w", group, err)
	}
	point := priv.PublicKey().Bytes()
	if ek == nil {
		return keyShare{group: uint16(group), data: point}, x, nil
	}
	// Encapsulation takes its randomness from crypto/rand, as crypto/tls's
	// does: crypto/mlkem has no other source outside tests.
	ss, ct := ek.Encapsulate()
	data := make([]byte, 0, hybridServerShareLen)
	data = append(append(data, point...), ct...)
	secret := make([]byte, 0, ecdhSecretLen+mlkem.SharedKeySize)
	return keyShare{group: uint16(group), data: data}, append(append(secret, x...), ss...), nil
}

// ecdhSecret is ECDH on curveSM2 of priv with the peer's point: the x
// coordinate of the product. side and group name the share in errors.
func ecdhSecret(priv *sm2.PrivateKey, point []byte, side string, group CurveID) ([]byte, error) {
	pub, err := parseSharePoint(point, side, group)
	if err != nil {
		return nil, err
	}
	x, err := sm2.ECDH(priv, pub)
	if err != nil {
		return nil, errorf(alertIllegalParameter, "tlcp: the %s %v key exchange: %w", side, group, err)
	}
	return x, nil
}

// parseSharePoint checks the SM2 part of a key share: a 65-byte
// uncompressed point on the curve (RFC 8446 §4.2.8.2). The identity has
// no such encoding, so it is refused with the rest. side ("client's" or
// "server's") and group only name the share in errors, so that a
// well-formed share costs no formatting.
func parseSharePoint(point []byte, side string, group CurveID) (*sm2.PublicKey, error) {
	if len(point) != sm2PointLen || point[0] != 4 {
		return nil, errorf(alertIllegalParameter, "tlcp: the %s %v key share is not a 65-byte uncompressed point", side, group)
	}
	pub, err := sm2.NewPublicKey(point)
	if err != nil {
		return nil, errorf(alertIllegalParameter, "tlcp: the %s %v key share is not a point on the curve", side, group)
	}
	return pub, nil
}
