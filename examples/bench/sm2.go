// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"testing"

	gmecdh "github.com/emmansun/gmsm/ecdh"
	gmsm2 "github.com/emmansun/gmsm/sm2"
	gmsm3 "github.com/emmansun/gmsm/sm3"
)

// The message signed and verified: a TLCP-sized transcript-ish blob.
const sm2MsgLen = 128

func init() {
	register(&group{
		name:  "sm2",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note: "sign/verify: the message is hashed inside (SM2: Z(default UID) then SM3; stdlib: SHA-256 + crypto/ecdsa P-256).\n" +
			"key exchange: one side of GB/T 32918.3 as a handshake does it (responder: a fresh ephemeral key, the peer's static and ephemeral keys parsed from\n" +
			"their encodings every time from 64 distinct peers, so the peer's Z is hashed and no table of its key is reused; the own long-term key's Z computed\n" +
			"once, as a server keeps it; shared key 48 bytes, default UIDs; ours also computes S_B); stdlib: peer's P-256 key parsed, ephemeral keygen + ECDH.\n" +
			"encrypt/decrypt: GB/T 32918.4 C1C3C2; stdlib: crypto/hpke DHKEM(P-256)+HKDF-SHA256+AES-128-GCM. keygen stdlib: crypto/ecdh P-256\n" +
			"verify/encrypt reuse one key object (ours caches a 4 KiB table of the key from its second use); the \"key parsed each time\" rows parse the 65-byte key first, every iteration, as for a certificate seen once.\n" +
			"private key from its 32 bytes: NewPrivateKey and its public key d·G (ours blinded: a·G + (d-a)·G for a fresh random a, twice the comb); stdlib: crypto/ecdh P-256 NewPrivateKey + PublicKey.\n" +
			"ECDH, static key, same peer: one private key and one peer public key object every time (ours over the peer's cached table, blinded by the same split); stdlib: crypto/ecdh P-256.",
		rows: []*row{
			{name: "sign", unit: opsPerSec, impls: []setupFunc{oursSM2Sign(), gmsmSM2Sign, stdECDSASign}},
			{name: "verify", unit: opsPerSec, impls: []setupFunc{oursSM2Verify(), gmsmSM2Verify, stdECDSAVerify}},
			{name: "verify, key parsed each time", unit: opsPerSec, impls: []setupFunc{oursSM2VerifyFreshKey(), gmsmSM2VerifyFreshKey, stdECDSAVerifyFreshKey}},
			{name: "key exchange (one side)", unit: opsPerSec, impls: []setupFunc{oursSM2KeyExchange(), gmsmSM2KeyExchange, stdECDHExchange}},
			{name: "encrypt 32 B", unit: opsPerSec, impls: []setupFunc{oursSM2Encrypt(), gmsmSM2Encrypt, stdHPKESeal}},
			{name: "encrypt 32 B, key parsed each time", unit: opsPerSec, impls: []setupFunc{oursSM2EncryptFreshKey(), gmsmSM2EncryptFreshKey, stdHPKESealFreshKey}},
			{name: "decrypt 32 B", unit: opsPerSec, impls: []setupFunc{oursSM2Decrypt(), gmsmSM2Decrypt, stdHPKEOpen}},
			{name: "key generation", unit: opsPerSec, impls: []setupFunc{oursSM2KeyGen(), gmsmSM2KeyGen, stdECDHKeyGen}},
			{name: "private key from its 32 bytes", unit: opsPerSec, impls: []setupFunc{oursSM2ParseKey(), gmsmSM2ParseKey, stdECDHParseKey}},
			{name: "ECDH, static key, same peer", unit: opsPerSec, impls: []setupFunc{oursSM2ECDHStatic(), gmsmSM2ECDHStatic, stdECDHStatic}},
		},
	})
}

func gmsmSM2Sign() (benchFunc, error) {
	priv, err := gmsm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	msg := randBytes(sm2MsgLen)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := priv.SignWithSM2(rand.Reader, nil, msg); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func gmsmSM2Verify() (benchFunc, error) {
	priv, err := gmsm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	msg := randBytes(sm2MsgLen)
	sig, err := priv.SignWithSM2(rand.Reader, nil, msg)
	if err != nil {
		return nil, err
	}
	pub := &priv.PublicKey
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if !gmsm2.VerifyASN1WithSM2(pub, nil, msg, sig) {
				fail(b, errors.New("signature did not verify"))
			}
		}
	}, nil
}

// gmsmSM2KeyExchange is oursSM2KeyExchange with gmsm: the peer's keys
// parsed from their encodings every iteration, a new ephemeral key, the
// SM2 MQV point and KDF(x || y || Z_A || Z_B) as gmsm's SM2SharedKey
// computes it, except that the own Z is computed once in setup, as a
// server would keep it for its long-term key (SM2SharedKey would hash it
// again every time).
func gmsmSM2KeyExchange() (benchFunc, error) {
	curve := gmecdh.P256()
	own, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	peers, err := kxPeerKeys()
	if err != nil {
		return nil, err
	}
	uid := []byte("1234567812345678")
	ownZ, err := own.PublicKey().SM2ZA(gmsm3.New(), uid)
	if err != nil {
		return nil, err
	}
	var z [128]byte
	one := func(i int) error {
		p := &peers[i%len(peers)]
		peerPub, err := curve.NewPublicKey(p.static)
		if err != nil {
			return err
		}
		peerR, err := curve.NewPublicKey(p.ephemeral)
		if err != nil {
			return err
		}
		eph, err := curve.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		uv, err := own.SM2MQV(eph, peerPub, peerR)
		if err != nil {
			return err
		}
		peerZ, err := peerPub.SM2ZA(gmsm3.New(), uid)
		if err != nil {
			return err
		}
		copy(z[:64], uv.Bytes()[1:])
		copy(z[64:], peerZ) // responder: Z_A is the peer's
		copy(z[96:], ownZ)
		_ = gmsm3.Kdf(z[:], 48)
		return nil
	}
	if err := one(0); err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := one(i); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

// kxPeer is one peer of the key exchange rows: its static and ephemeral
// public keys, uncompressed, as a handshake receives them (the static key
// in the peer's encryption certificate, the ephemeral one in its key
// exchange message).
type kxPeer struct{ static, ephemeral []byte }

// kxPeerKeys returns distinct peers for the key exchange rows, which
// cycle through them and parse both keys every iteration, so that no
// implementation can reuse anything it derived from a peer's key object.
func kxPeerKeys() ([]kxPeer, error) {
	peers := make([]kxPeer, 64)
	curve := gmecdh.P256()
	for i := range peers {
		s, err := curve.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		e, err := curve.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		peers[i] = kxPeer{s.PublicKey().Bytes(), e.PublicKey().Bytes()}
	}
	return peers, nil
}

func gmsmSM2Encrypt() (benchFunc, error) {
	priv, err := gmsm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	msg := randBytes(32)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := gmsm2.Encrypt(rand.Reader, &priv.PublicKey, msg, nil); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func gmsmSM2Decrypt() (benchFunc, error) {
	priv, err := gmsm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	ct, err := gmsm2.Encrypt(rand.Reader, &priv.PublicKey, randBytes(32), nil)
	if err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := gmsm2.Decrypt(priv, ct); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func gmsmSM2KeyGen() (benchFunc, error) {
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := gmsm2.GenerateKey(rand.Reader); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func stdECDSASign() (benchFunc, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	msg := randBytes(sm2MsgLen)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			h := sha256.Sum256(msg)
			if _, err := ecdsa.SignASN1(rand.Reader, priv, h[:]); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func stdECDSAVerify() (benchFunc, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	msg := randBytes(sm2MsgLen)
	h := sha256.Sum256(msg)
	sig, err := ecdsa.SignASN1(rand.Reader, priv, h[:])
	if err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			h := sha256.Sum256(msg)
			if !ecdsa.VerifyASN1(&priv.PublicKey, h[:], sig) {
				fail(b, errors.New("signature did not verify"))
			}
		}
	}, nil
}

func stdECDHExchange() (benchFunc, error) {
	// 64 peers parsed from their encodings every iteration, as the SM2
	// rows do.
	peers := make([][]byte, 64)
	for i := range peers {
		k, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		peers[i] = k.PublicKey().Bytes()
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			peerPub, err := ecdh.P256().NewPublicKey(peers[i%len(peers)])
			if err != nil {
				fail(b, err)
			}
			eph, err := ecdh.P256().GenerateKey(rand.Reader)
			if err != nil {
				fail(b, err)
			}
			if _, err := eph.ECDH(peerPub); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func hpkeKeys() (hpke.PublicKey, hpke.PrivateKey, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	priv, err := hpke.NewDHKEMPrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	pub, err := hpke.NewDHKEMPublicKey(k.PublicKey())
	if err != nil {
		return nil, nil, err
	}
	return pub, priv, nil
}

func stdHPKESeal() (benchFunc, error) {
	pub, _, err := hpkeKeys()
	if err != nil {
		return nil, err
	}
	msg := randBytes(32)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := hpke.Seal(pub, hpke.HKDFSHA256(), hpke.AES128GCM(), nil, msg); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func stdHPKEOpen() (benchFunc, error) {
	pub, priv, err := hpkeKeys()
	if err != nil {
		return nil, err
	}
	ct, err := hpke.Seal(pub, hpke.HKDFSHA256(), hpke.AES128GCM(), nil, randBytes(32))
	if err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := hpke.Open(priv, hpke.HKDFSHA256(), hpke.AES128GCM(), nil, ct); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func stdECDHKeyGen() (benchFunc, error) {
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := ecdh.P256().GenerateKey(rand.Reader); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

// The "key parsed each time" rows: every iteration starts from the 65-byte
// uncompressed key, as when verifying a certificate seen once.

func gmsmSM2VerifyFreshKey() (benchFunc, error) {
	priv, err := gmsm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	msg := randBytes(sm2MsgLen)
	sig, err := priv.SignWithSM2(rand.Reader, nil, msg)
	if err != nil {
		return nil, err
	}
	enc := elliptic.Marshal(priv.Curve, priv.X, priv.Y)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			pub, err := gmsm2.NewPublicKey(enc)
			if err != nil {
				fail(b, err)
			}
			if !gmsm2.VerifyASN1WithSM2(pub, nil, msg, sig) {
				fail(b, errors.New("signature did not verify"))
			}
		}
	}, nil
}

func stdECDSAVerifyFreshKey() (benchFunc, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	msg := randBytes(sm2MsgLen)
	h := sha256.Sum256(msg)
	sig, err := ecdsa.SignASN1(rand.Reader, priv, h[:])
	if err != nil {
		return nil, err
	}
	enc, err := priv.PublicKey.Bytes()
	if err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), enc)
			if err != nil {
				fail(b, err)
			}
			h := sha256.Sum256(msg)
			if !ecdsa.VerifyASN1(pub, h[:], sig) {
				fail(b, errors.New("signature did not verify"))
			}
		}
	}, nil
}

func gmsmSM2EncryptFreshKey() (benchFunc, error) {
	priv, err := gmsm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	enc := elliptic.Marshal(priv.Curve, priv.X, priv.Y)
	msg := randBytes(32)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			pub, err := gmsm2.NewPublicKey(enc)
			if err != nil {
				fail(b, err)
			}
			if _, err := gmsm2.Encrypt(rand.Reader, pub, msg, nil); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func stdHPKESealFreshKey() (benchFunc, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	enc := k.PublicKey().Bytes()
	msg := randBytes(32)
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ek, err := ecdh.P256().NewPublicKey(enc)
			if err != nil {
				fail(b, err)
			}
			pub, err := hpke.NewDHKEMPublicKey(ek)
			if err != nil {
				fail(b, err)
			}
			if _, err := hpke.Seal(pub, hpke.HKDFSHA256(), hpke.AES128GCM(), nil, msg); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

// The "private key from its 32 bytes" rows compute the public key d·G from
// a parsed key (ours blinds that multiplication, see primitives/sm2); the
// "ECDH, static key" rows repeat one private key against one peer's
// public key object (ours blinds it too).

func gmsmSM2ParseKey() (benchFunc, error) {
	k, err := gmsm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	d := k.D.FillBytes(make([]byte, 32))
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := gmsm2.NewPrivateKey(d); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func stdECDHParseKey() (benchFunc, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	d := k.Bytes()
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			k, err := ecdh.P256().NewPrivateKey(d)
			if err != nil {
				fail(b, err)
			}
			_ = k.PublicKey()
		}
	}, nil
}

func gmsmSM2ECDHStatic() (benchFunc, error) {
	own, err := gmecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	peer, err := gmecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pub := peer.PublicKey()
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := own.ECDH(pub); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func stdECDHStatic() (benchFunc, error) {
	own, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	peer, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pub := peer.PublicKey()
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := own.ECDH(pub); err != nil {
				fail(b, err)
			}
		}
	}, nil
}
