// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dtlcp_test

import (
	"fmt"
	"log"
	"os"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/dtlcp"
)

// A DTLCP server on a UDP port and a client that sends it one message:
// the same tlcp.Config as over TCP, and message boundaries kept.
func Example() {
	const dir = "../../testdata/tlcp/"
	pair, err := tlcp.LoadCertificatePair(dir+"server_sign.pem", dir+"server_sign.key", dir+"server_enc.pem", dir+"server_enc.key")
	if err != nil {
		log.Fatal(err)
	}
	l, err := dtlcp.Listen("udp", "127.0.0.1:0", &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 1500)
		n, _ := c.Read(buf)
		c.Write(buf[:n])
	}()

	caPEM, err := os.ReadFile(dir + "ca.pem")
	if err != nil {
		log.Fatal(err)
	}
	ca, err := smx509.ParseCertificatePEM(caPEM)
	if err != nil {
		log.Fatal(err)
	}
	roots := smx509.NewCertPool()
	roots.AddCert(ca)
	c, err := dtlcp.Dial("udp", l.Addr().String(), &tlcp.Config{RootCAs: roots, ServerName: "localhost"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("one datagram, one record"))
	buf := make([]byte, 1500)
	n, err := c.Read(buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%s)\n", buf[:n], ciphersuite.Name(c.ConnectionState().CipherSuite))
	// Output: one datagram, one record (ECC_SM4_GCM_SM3)
}
