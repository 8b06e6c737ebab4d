// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package smx509

import (
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/x509"
)

// UnwrapSM2EnvelopedKey opens a KMC-issued encryption key pair (a DER
// GB/T 35276 SM2EnvelopedKey, see x509.SM2EnvelopedKey) with the holder's
// signing key, which may be an *sm2.PrivateKey or any crypto.Decrypter
// (a key in a cipher machine), and checks the result against the enveloped
// public key and against encCert, the encryption certificate: its public
// key must be the unwrapped key's, and its key usage, when present, must
// allow encryption (keyEncipherment, dataEncipherment or keyAgreement,
// GB/T 38636 6.4.5.2). signCert, if not nil, must be the signing key's.
func UnwrapSM2EnvelopedKey(der []byte, signKey crypto.Decrypter, signCert, encCert *Certificate) (*sm2.PrivateKey, error) {
	if encCert == nil {
		return nil, errors.New("x509: UnwrapSM2EnvelopedKey needs the encryption certificate")
	}
	if signCert != nil {
		if err := signCert.CheckPrivateKey(signKey); err != nil {
			return nil, fmt.Errorf("x509: the signing key is not the signing certificate's: %w", err)
		}
	}
	env, err := x509.ParseSM2EnvelopedKey(der)
	if err != nil {
		return nil, err
	}
	if pub, ok := encCert.PublicKey.(*sm2.PublicKey); !ok || !pub.Equal(env.PublicKey) {
		return nil, errors.New("x509: the enveloped key is not the encryption certificate's (its public key differs)")
	}
	const encUsages = KeyUsageKeyEncipherment | KeyUsageDataEncipherment | KeyUsageKeyAgreement
	if encCert.KeyUsage != 0 && encCert.KeyUsage&encUsages == 0 {
		return nil, errors.New("x509: the encryption certificate's key usage allows no encryption")
	}
	key, err := env.Unwrap(rand.Reader, signKey)
	if err != nil {
		return nil, err
	}
	if err := encCert.CheckPrivateKey(key); err != nil {
		return nil, err
	}
	return key, nil
}
