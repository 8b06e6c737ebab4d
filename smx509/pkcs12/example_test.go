// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12_test

import (
	"fmt"
	"log"
	"os"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/pkcs12"
	"github.com/shangmi-go/shangmi/x509"
)

func load() (*sm2.PrivateKey, *smx509.Certificate, *smx509.Certificate) {
	keyPEM, _ := os.ReadFile("testdata/sign.key")
	certPEM, _ := os.ReadFile("testdata/sign.pem")
	caPEM, _ := os.ReadFile("testdata/ca.pem")
	key, err := x509.ParsePrivateKeyPEM(keyPEM, nil)
	if err != nil {
		log.Fatal(err)
	}
	cert, _ := smx509.ParseCertificatePEM(certPEM)
	ca, _ := smx509.ParseCertificatePEM(caPEM)
	return key.(*sm2.PrivateKey), cert, ca
}

// A PFX with SM4-CBC, PBKDF2-HMAC-SM3 and an SM3 MAC, which Tongsuo reads,
// and back.
func ExampleEncoder_Encode() {
	key, cert, ca := load()
	pfx, err := pkcs12.SM.WithFriendlyName("my server").Encode(key, cert, []*smx509.Certificate{ca}, "secret")
	if err != nil {
		log.Fatal(err)
	}
	k, c, chain, err := pkcs12.DecodeChain(pfx, "secret")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(key.Equal(k), c.Subject, len(chain))
	// Output: true CN=pkcs12 test sign 1
}

// Reading a file `tongsuo pkcs12 -export -keypbe SM4-CBC -certpbe SM4-CBC
// -macalg SM3` wrote, and what protects it.
func ExampleParse() {
	data, _ := os.ReadFile("testdata/tongsuo_sm4_sm3.p12")
	c, err := pkcs12.Parse(data, "shangmi")
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range c.Info {
		fmt.Println(line)
	}
	fmt.Println(c.Keys[0].FriendlyName, len(c.Certificates))
	// Output:
	// MAC: HMAC-SM3, 2048 iterations, 8-byte salt
	// EncryptedData: PBES2: PBKDF2-HMAC-SHA256, 2048 iterations, SM4-CBC
	// Certificate bag
	// Certificate bag
	// Data
	// Shrouded key bag: PBES2: PBKDF2-HMAC-SHA256, 2048 iterations, SM4-CBC
	// sign 2
}

// A TLCP server's two pairs in one file.
func ExampleDecodeTLCP() {
	signKey, signCert, ca := load()
	encKeyPEM, _ := os.ReadFile("testdata/enc.key")
	encCertPEM, _ := os.ReadFile("testdata/enc.pem")
	encKey, _ := x509.ParsePrivateKeyPEM(encKeyPEM, nil)
	encCert, _ := smx509.ParseCertificatePEM(encCertPEM)

	pfx, err := pkcs12.SM.EncodeTLCP(&pkcs12.TLCPPair{
		SignKey: signKey, SignCert: signCert,
		EncKey: encKey, EncCert: encCert,
		CACerts: []*smx509.Certificate{ca},
	}, "secret")
	if err != nil {
		log.Fatal(err)
	}
	p, err := pkcs12.DecodeTLCP(pfx, "secret")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.SignCert.Subject, p.EncCert.Subject, len(p.CACerts))
	// Output: CN=pkcs12 test sign CN=pkcs12 test enc 1
}
