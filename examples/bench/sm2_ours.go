// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

func oursSM2Sign() setupFunc {
	return func() (benchFunc, error) {
		priv, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		msg := randBytes(sm2MsgLen)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sm2.SignASN1(rand.Reader, priv, msg, nil); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

func oursSM2Verify() setupFunc {
	return func() (benchFunc, error) {
		priv, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		msg := randBytes(sm2MsgLen)
		sig, err := sm2.SignASN1(rand.Reader, priv, msg, nil)
		if err != nil {
			return nil, err
		}
		pub := priv.PublicKey()
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if !sm2.VerifyASN1(pub, msg, nil, sig) {
					fail(b, errors.New("signature did not verify"))
				}
			}
		}, nil
	}
}

// oursSM2KeyExchange measures the responder (TLCP client) side as a
// handshake runs it: the peer's static and ephemeral keys parsed from
// their encodings (from 64 distinct peers, so nothing cached on a peer's
// key object is reused), a new exchange with a fresh ephemeral key, the
// shared key. The own key's Z is cached on it after the first use, as a
// server's long-term key keeps it.
func oursSM2KeyExchange() setupFunc {
	return func() (benchFunc, error) {
		own, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		peers, err := kxPeerKeys()
		if err != nil {
			return nil, err
		}
		one := func(i int) error {
			p := &peers[i%len(peers)]
			peerPub, err := sm2.NewPublicKey(p.static)
			if err != nil {
				return err
			}
			peerR, err := sm2.NewPublicKey(p.ephemeral)
			if err != nil {
				return err
			}
			kx, err := sm2.NewKeyExchange(own, nil, 48, false)
			if err != nil {
				return err
			}
			if _, err := kx.Init(rand.Reader); err != nil {
				return err
			}
			_, _, err = kx.Respond(rand.Reader, peerPub, nil, peerR)
			return err
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
}

func oursSM2Encrypt() setupFunc {
	return func() (benchFunc, error) {
		priv, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		pub := priv.PublicKey()
		msg := randBytes(32)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sm2.Encrypt(rand.Reader, pub, msg, nil); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

func oursSM2Decrypt() setupFunc {
	return func() (benchFunc, error) {
		priv, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		ct, err := sm2.Encrypt(rand.Reader, priv.PublicKey(), randBytes(32), nil)
		if err != nil {
			return nil, err
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sm2.Decrypt(priv, ct, nil); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

func oursSM2KeyGen() setupFunc {
	return func() (benchFunc, error) {
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sm2.GenerateKey(rand.Reader); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

func oursSM2VerifyFreshKey() setupFunc {
	return func() (benchFunc, error) {
		priv, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		msg := randBytes(sm2MsgLen)
		sig, err := sm2.SignASN1(rand.Reader, priv, msg, nil)
		if err != nil {
			return nil, err
		}
		enc := priv.PublicKey().Bytes()
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pub, err := sm2.NewPublicKey(enc)
				if err != nil {
					fail(b, err)
				}
				if !sm2.VerifyASN1(pub, msg, nil, sig) {
					fail(b, errors.New("signature did not verify"))
				}
			}
		}, nil
	}
}

func oursSM2EncryptFreshKey() setupFunc {
	return func() (benchFunc, error) {
		priv, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		enc := priv.PublicKey().Bytes()
		msg := randBytes(32)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pub, err := sm2.NewPublicKey(enc)
				if err != nil {
					fail(b, err)
				}
				if _, err := sm2.Encrypt(rand.Reader, pub, msg, nil); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

func oursSM2ParseKey() setupFunc {
	return func() (benchFunc, error) {
		k, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		d := k.Bytes()
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sm2.NewPrivateKey(d); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

func oursSM2ECDHStatic() setupFunc {
	return func() (benchFunc, error) {
		own, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		peer, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		pub := peer.PublicKey()
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sm2.ECDH(own, pub); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}
