// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"os"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/pkcs12"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/x509"
)

// A TLCP server whose two key pairs come from one PFX file.
func ExampleDecodeTLCP_server() {
	read := func(name string) []byte {
		b, err := os.ReadFile("../../testdata/tlcp/" + name)
		if err != nil {
			log.Fatal(err)
		}
		return b
	}
	key := func(name string) any {
		k, err := x509.ParsePrivateKeyPEM(read(name), nil)
		if err != nil {
			log.Fatal(err)
		}
		return k
	}
	cert := func(name string) *smx509.Certificate {
		c, err := smx509.ParseCertificatePEM(read(name))
		if err != nil {
			log.Fatal(err)
		}
		return c
	}
	ca := cert("ca.pem")
	// The file an operator would be handed (here made on the spot).
	pfx, err := pkcs12.SM.EncodeTLCP(&pkcs12.TLCPPair{
		SignKey: key("server_sign.key"), SignCert: cert("server_sign.pem"),
		EncKey: key("server_enc.key"), EncCert: cert("server_enc.pem"),
		CACerts: []*smx509.Certificate{ca},
	}, "secret")
	if err != nil {
		log.Fatal(err)
	}

	p, err := pkcs12.DecodeTLCP(pfx, "secret")
	if err != nil {
		log.Fatal(err)
	}
	pair := tlcp.CertificatePair{
		Sign: tlcp.Certificate{Certificate: [][]byte{p.SignCert.Raw}, PrivateKey: p.SignKey, Leaf: p.SignCert},
		Enc:  tlcp.Certificate{Certificate: [][]byte{p.EncCert.Raw}, PrivateKey: p.EncKey, Leaf: p.EncCert},
	}
	roots := smx509.NewCertPool()
	roots.AddCert(ca)

	c1, c2 := net.Pipe()
	go func() {
		s := tlcp.Server(c1, &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
		defer s.Close()
		io.WriteString(s, "hello from a PFX-configured server\n")
	}()
	c := tlcp.Client(c2, &tlcp.Config{RootCAs: roots, ServerName: "localhost"})
	defer c.Close()
	msg, err := io.ReadAll(c)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(msg))
	// Output: hello from a PFX-configured server
}
