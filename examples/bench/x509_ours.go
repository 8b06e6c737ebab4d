// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
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
		certs, err := parseChain(ch.root, ch.inter, ch.leaf, smx509.ParseCertificate)
		if err != nil {
			return nil, err
		}
		roots, inters := smx509.NewCertPool(), smx509.NewCertPool()
		roots.AddCert(certs[0])
		inters.AddCert(certs[1])
		opts := smx509.VerifyOptions{DNSName: certDNSName, Roots: roots, Intermediates: inters, CurrentTime: certTime}
		return verifyBench(func() ([][]*smx509.Certificate, error) { return certs[2].Verify(opts) })
	}
}
