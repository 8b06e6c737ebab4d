// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto"
	"sync"
	"unsafe"
	"weak"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// A server does the same work with its certificate pair on every full
// handshake: parse both leaves, check them against their keys and roles,
// drop the roots from the signing chain (parsing each certificate of it) and
// build the Certificate message. preparedPair keeps the result, computed
// on the first handshake with the pair; later ones use it as long as the
// pair still holds the same certificates and keys. (What the
// ServerKeyExchange signature needs of the pair beyond that, the Z value
// of the signing key, the sm2 package keeps with the key.)

// preparedPair is a server certificate pair ready for the handshake.
type preparedPair struct {
	sign, enc *smx509.Certificate
	certs     [][]byte // SIGN, ENC, the signing chain's intermediates (INTEROP.md §3.5)
	certMsg   []byte   // the Certificate message of certs

	// What it was made from, to notice a pair changed in place.
	signChain, encChain [][]byte
	signKey, encKey     keyIdentity
}

// keyIdentity remembers a private key without keeping it alive: a weak
// pointer for the key types of this module's sm2 package; other keys (a
// crypto.Signer of an HSM, say) are checked again on every use.
type keyIdentity struct {
	p weak.Pointer[sm2.PrivateKey]
}

func identify(k crypto.PrivateKey) keyIdentity {
	if p, ok := k.(*sm2.PrivateKey); ok && p != nil {
		return keyIdentity{weak.Make(p)}
	}
	return keyIdentity{}
}

// is reports whether k is the key identified; false if it cannot tell.
func (id keyIdentity) is(k crypto.PrivateKey) bool {
	p, ok := k.(*sm2.PrivateKey)
	return ok && p != nil && id.p.Value() == p
}

// sameChain reports whether a and b are the same DER slices (not merely
// equal contents: a cheap identity check).
func sameChain(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) || unsafe.SliceData(a[i]) != unsafe.SliceData(b[i]) {
			return false
		}
	}
	return true
}

// pairCache maps a server's *CertificatePair (weakly: a discarded Config
// is not kept alive, nor its keys) to its preparedPair.
var pairCache struct {
	sync.RWMutex
	m map[weak.Pointer[CertificatePair]]*preparedPair
}

// maxPreparedPairs bounds the cache for servers whose GetCertificate makes
// a new pair for every handshake.
const maxPreparedPairs = 256

// preparePair returns p prepared for a full handshake, from the cache if
// it holds p unchanged. Errors are those of checkPair.
func preparePair(p *CertificatePair) (*preparedPair, error) {
	wp := weak.Make(p)
	pairCache.RLock()
	pp := pairCache.m[wp]
	pairCache.RUnlock()
	if pp != nil && pp.matches(p) {
		return pp, nil
	}
	pp, err := newPreparedPair(p)
	if err != nil {
		return nil, err
	}
	pairCache.Lock()
	if pairCache.m == nil || len(pairCache.m) >= maxPreparedPairs {
		for k := range pairCache.m {
			if k.Value() == nil {
				delete(pairCache.m, k)
			}
		}
		if pairCache.m == nil || len(pairCache.m) >= maxPreparedPairs {
			pairCache.m = make(map[weak.Pointer[CertificatePair]]*preparedPair)
		}
	}
	pairCache.m[wp] = pp
	pairCache.Unlock()
	return pp, nil
}

// matches reports whether pp was made from p as it is now. A key whose
// identity cannot be tracked is checked against its certificate again.
func (pp *preparedPair) matches(p *CertificatePair) bool {
	if !sameChain(pp.signChain, p.Sign.Certificate) || !sameChain(pp.encChain, p.Enc.Certificate) {
		return false
	}
	if p.Sign.Leaf != nil && p.Sign.Leaf != pp.sign || p.Enc.Leaf != nil && p.Enc.Leaf != pp.enc {
		return false
	}
	if !pp.signKey.is(p.Sign.PrivateKey) && checkKey("signing", pp.sign, p.Sign.PrivateKey, true) != nil {
		return false
	}
	if !pp.encKey.is(p.Enc.PrivateKey) && checkKey("encryption", pp.enc, p.Enc.PrivateKey, false) != nil {
		return false
	}
	return true
}

func newPreparedPair(p *CertificatePair) (*preparedPair, error) {
	sign, enc, err := checkPair(p, true)
	if err != nil {
		return nil, err
	}
	certs := append([][]byte{p.Sign.Certificate[0], p.Enc.Certificate[0]}, withoutRoots(p.Sign.Certificate[1:])...)
	msg, err := (&certificateMsg{certificates: certs}).marshal()
	if err != nil {
		return nil, err
	}
	return &preparedPair{
		sign: sign, enc: enc,
		certs: certs, certMsg: msg,
		signChain: p.Sign.Certificate, encChain: p.Enc.Certificate,
		signKey: identify(p.Sign.PrivateKey), encKey: identify(p.Enc.PrivateKey),
	}, nil
}
