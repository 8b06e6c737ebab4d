// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

import (
	"crypto"
	"errors"
	"fmt"
	"strings"

	"github.com/shangmi-go/shangmi/smx509"
)

// Decode reads a PFX (or CFCA SM2) file that holds exactly one private key
// and its certificate, and nothing else. The key is *sm2.PrivateKey,
// *ecdsa.PrivateKey, *rsa.PrivateKey or ed25519.PrivateKey. For a file
// with CA certificates too, use DecodeChain; for a TLCP pair, DecodeTLCP.
func Decode(pfxData []byte, password string) (privateKey crypto.PrivateKey, certificate *smx509.Certificate, err error) {
	key, cert, ca, err := DecodeChain(pfxData, password)
	if err != nil {
		return nil, nil, err
	}
	if len(ca) > 0 {
		return nil, nil, fmt.Errorf("pkcs12: the file holds %d more certificates; use DecodeChain", len(ca))
	}
	return key, cert, nil
}

// DecodeChain reads a PFX (or CFCA SM2) file that holds exactly one
// private key, its certificate and any number of other certificates,
// returned as caCerts in the file's order.
func DecodeChain(pfxData []byte, password string) (privateKey crypto.PrivateKey, certificate *smx509.Certificate, caCerts []*smx509.Certificate, err error) {
	c, err := Parse(pfxData, password)
	if err != nil {
		return nil, nil, nil, err
	}
	switch len(c.Keys) {
	case 0:
		return nil, nil, nil, errors.New("pkcs12: the file holds no private key")
	case 1:
	default:
		return nil, nil, nil, fmt.Errorf("pkcs12: the file holds %d private keys; use DecodeTLCP for a TLCP pair, or Parse", len(c.Keys))
	}
	key := c.Keys[0].Key
	leaf := -1
	for i, cert := range c.Certificates {
		if KeyMatchesCertificate(key, cert.Certificate) {
			leaf = i
			break
		}
	}
	if leaf < 0 {
		return nil, nil, nil, errors.New("pkcs12: no certificate in the file matches its private key")
	}
	for i, cert := range c.Certificates {
		if i != leaf {
			caCerts = append(caCerts, cert.Certificate)
		}
	}
	return key, c.Certificates[leaf].Certificate, caCerts, nil
}

// TLCPPair is a TLCP server's or client's two key pairs (GB/T 38636): the
// signing pair and the encryption pair, with the other certificates of the
// file (the chain).
type TLCPPair struct {
	SignKey  crypto.PrivateKey
	SignCert *smx509.Certificate
	EncKey   crypto.PrivateKey
	EncCert  *smx509.Certificate
	CACerts  []*smx509.Certificate
}

// DecodeTLCP reads a PFX file that holds two private keys with their
// certificates: a TLCP signing pair and encryption pair. Each key is
// matched to its certificate by public key; the roles come from the
// certificates' key usage, and, only when that does not tell them apart,
// from friendlyNames containing "sign" and "enc".
func DecodeTLCP(pfxData []byte, password string) (*TLCPPair, error) {
	c, err := Parse(pfxData, password)
	if err != nil {
		return nil, err
	}
	if len(c.Keys) != 2 {
		return nil, fmt.Errorf("pkcs12: a TLCP pair file holds two private keys, this one %d", len(c.Keys))
	}
	var leaf [2]int
	used := make([]bool, len(c.Certificates))
	for k, key := range c.Keys {
		leaf[k] = -1
		for i, cert := range c.Certificates {
			if !used[i] && KeyMatchesCertificate(key.Key, cert.Certificate) {
				leaf[k], used[i] = i, true
				break
			}
		}
		if leaf[k] < 0 {
			return nil, fmt.Errorf("pkcs12: no certificate in the file matches private key %d", k+1)
		}
	}
	role := func(k int) string {
		cert := c.Certificates[leaf[k]]
		ku := cert.Certificate.KeyUsage
		enc := ku&(smx509.KeyUsageKeyEncipherment|smx509.KeyUsageDataEncipherment|smx509.KeyUsageKeyAgreement) != 0
		sign := ku&(smx509.KeyUsageDigitalSignature|smx509.KeyUsageContentCommitment) != 0
		switch {
		case enc && !sign:
			return "enc"
		case sign && !enc:
			return "sign"
		}
		for _, n := range []string{c.Keys[k].FriendlyName, cert.FriendlyName} {
			n = strings.ToLower(n)
			if strings.Contains(n, "enc") {
				return "enc"
			}
			if strings.Contains(n, "sign") {
				return "sign"
			}
		}
		return ""
	}
	r0, r1 := role(0), role(1)
	var s, e int
	switch {
	case r0 == "sign" && r1 != "sign", r0 == "" && r1 == "enc":
		s, e = 0, 1
	case r0 == "enc" && r1 != "enc", r0 == "" && r1 == "sign":
		s, e = 1, 0
	default:
		return nil, errors.New("pkcs12: cannot tell the signing pair from the encryption pair (set the certificates' key usage, or friendlyNames \"sign\" and \"enc\")")
	}
	p := &TLCPPair{
		SignKey: c.Keys[s].Key, SignCert: c.Certificates[leaf[s]].Certificate,
		EncKey: c.Keys[e].Key, EncCert: c.Certificates[leaf[e]].Certificate,
	}
	for i, cert := range c.Certificates {
		if !used[i] {
			p.CACerts = append(p.CACerts, cert.Certificate)
		}
	}
	return p, nil
}

// KeyMatchesCertificate reports whether key is the private key of cert's
// public key (smx509.Certificate.CheckPrivateKey).
func KeyMatchesCertificate(key crypto.PrivateKey, cert *smx509.Certificate) bool {
	return cert != nil && cert.CheckPrivateKey(key) == nil
}
