// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"errors"
	"testing"

	"github.com/shangmi-go/shangmi/smx509"
)

// Ours parses the very certificates gmsm made (sm2Chain), so a parse or
// verification error here is also an interoperability finding.

func oursX509Parse() setupFunc {
	return func() (benchFunc, error) {
		ch, err := sm2Chain()
		if err != nil {
			return nil, err
		}
		return parseBench(ch.leaf, smx509.ParseCertificate), nil
	}
}

func oursX509Verify() setupFunc {
	return func() (benchFunc, error) {
		ch, err := sm2Chain()
		if err != nil {
			return nil, err
		}
		var certs [3]*smx509.Certificate
		for i, der := range [][]byte{ch.root, ch.inter, ch.leaf} {
			if certs[i], err = smx509.ParseCertificate(der); err != nil {
				return nil, err
			}
		}
		roots, inters := smx509.NewCertPool(), smx509.NewCertPool()
		roots.AddCert(certs[0])
		inters.AddCert(certs[1])
		opts := smx509.VerifyOptions{DNSName: certDNSName, Roots: roots, Intermediates: inters, CurrentTime: certTime}
		verify := func() error {
			chains, err := certs[2].Verify(opts)
			if err == nil && (len(chains) != 1 || len(chains[0]) != 3) {
				err = errors.New("unexpected chains")
			}
			return err
		}
		if err := verify(); err != nil {
			return nil, err
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := verify(); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}
