// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package smx509

import (
	"crypto"
	"errors"
	"io"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// The functions of this file let signed structures defined outside this
// package (OCSP responses in package smx509/ocsp) pick, write, read and
// check signature algorithms exactly as certificates and CRLs do, instead
// of keeping a second table of OIDs.

// SignTBS signs tbs, the DER of a to-be-signed structure, with key. When
// requested is UnknownSignatureAlgorithm the key's default algorithm is used
// (SM2-with-SM3 with the default signer ID for an SM2 key). It returns the
// algorithm used, the DER of its AlgorithmIdentifier and the signature.
func SignTBS(rand io.Reader, key crypto.Signer, requested SignatureAlgorithm, tbs []byte) (SignatureAlgorithm, []byte, []byte, error) {
	if key == nil {
		return 0, nil, nil, errors.New("x509: signing key is nil")
	}
	algo, err := signingParams(key, requested)
	if err != nil {
		return 0, nil, nil, err
	}
	var b cryptobyte.Builder
	addSignatureAlgorithmIdentifier(&b, algo)
	ai, err := b.Bytes()
	if err != nil {
		return 0, nil, nil, err
	}
	sig, err := signData(rand, key, algo, tbs)
	if err != nil {
		return 0, nil, nil, err
	}
	return algo, ai, sig, nil
}

// ParseSignatureAlgorithmIdentifier reads the DER of a signature
// AlgorithmIdentifier (the whole SEQUENCE). An identifier this package does
// not know yields UnknownSignatureAlgorithm and no error; malformed DER is
// an error.
func ParseSignatureAlgorithmIdentifier(der []byte) (SignatureAlgorithm, error) {
	s := cryptobyte.String(der)
	var content cryptobyte.String
	if !s.ReadASN1(&content, cbasn1.SEQUENCE) || !s.Empty() {
		return 0, errors.New("x509: malformed signature algorithm identifier")
	}
	return parseSignatureAlgorithm(content)
}
