// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"crypto/x509/pkix"
	"errors"
	"fmt"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// readExtensions reads the Extensions SEQUENCE held by an explicitly tagged
// field.
func readExtensions(field cryptobyte.String) ([]pkix.Extension, error) {
	var seq cryptobyte.String
	if !field.ReadASN1(&seq, cbasn1.SEQUENCE) || !field.Empty() {
		return nil, errors.New("malformed extensions")
	}
	var exts []pkix.Extension
	for !seq.Empty() {
		var e cryptobyte.String
		var ext pkix.Extension
		if !seq.ReadASN1(&e, cbasn1.SEQUENCE) || !e.ReadASN1ObjectIdentifier(&ext.Id) {
			return nil, errors.New("malformed extension")
		}
		// critical BOOLEAN DEFAULT FALSE; cryptobyte's
		// ReadOptionalASN1Boolean is for an explicitly tagged one.
		if e.PeekASN1Tag(cbasn1.BOOLEAN) && !e.ReadASN1Boolean(&ext.Critical) {
			return nil, errors.New("malformed extension criticality")
		}
		if !e.ReadASN1Bytes(&ext.Value, cbasn1.OCTET_STRING) || !e.Empty() {
			return nil, errors.New("malformed extension")
		}
		for _, o := range exts {
			if o.Id.Equal(ext.Id) {
				return nil, fmt.Errorf("duplicate extension %v", ext.Id)
			}
		}
		exts = append(exts, ext)
	}
	return exts, nil
}

func addExtensions(b *cryptobyte.Builder, exts []pkix.Extension) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		for _, e := range exts {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(e.Id)
				if e.Critical {
					b.AddASN1Boolean(true)
				}
				b.AddASN1OctetString(e.Value)
			})
		}
	})
}

// findNonce returns the value of the nonce extension among exts, nil if
// there is none. RFC 8954 makes the extension's value an OCTET STRING
// holding the nonce, as OpenSSL and Tongsuo write it.
func findNonce(exts []pkix.Extension) ([]byte, error) {
	for _, e := range exts {
		if !e.Id.Equal(oidNonce) {
			continue
		}
		s := cryptobyte.String(e.Value)
		var nonce cryptobyte.String
		if !s.ReadASN1(&nonce, cbasn1.OCTET_STRING) || !s.Empty() {
			return nil, errors.New("ocsp: nonce extension does not hold an OCTET STRING (RFC 8954)")
		}
		if len(nonce) == 0 {
			return nil, errors.New("ocsp: nonce extension is empty")
		}
		return nonce, nil
	}
	return nil, nil
}

// withNonce returns exts without any nonce, plus one holding nonce when it
// is non-nil.
func withNonce(exts []pkix.Extension, nonce []byte) ([]pkix.Extension, error) {
	out := make([]pkix.Extension, 0, len(exts)+1)
	for _, e := range exts {
		if !e.Id.Equal(oidNonce) {
			out = append(out, e)
		}
	}
	if nonce == nil {
		return out, nil
	}
	if len(nonce) == 0 {
		return nil, errors.New("ocsp: empty nonce")
	}
	var b cryptobyte.Builder
	b.AddASN1OctetString(nonce)
	v, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	return append(out, pkix.Extension{Id: oidNonce, Value: v}), nil
}
