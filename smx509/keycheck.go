// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package smx509

import (
	"crypto"
	"errors"
)

var errKeyMismatch = errors.New("x509: the private key does not match the certificate's public key")

// CheckPrivateKey returns an error unless key (an *sm2.PrivateKey,
// *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey or any
// crypto.Signer or crypto.Decrypter, such as a key in a cipher machine)
// holds the private half of c's public key.
func (c *Certificate) CheckPrivateKey(key crypto.PrivateKey) error {
	s, ok := key.(interface{ Public() crypto.PublicKey })
	if !ok || c == nil {
		return errKeyMismatch
	}
	pub, ok := s.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(c.PublicKey) {
		return errKeyMismatch
	}
	return nil
}
