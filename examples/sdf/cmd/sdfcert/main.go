// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command sdfcert issues TLCP certificates for key pairs inside an SDF
// device: it exports the public keys (SDF_ExportSignPublicKey_ECC,
// SDF_ExportEncPublicKey_ECC) and signs a signing and an encryption
// certificate for them with a CA key in a file (smtool cert gen makes
// one). It writes sign.pem and enc.pem into -out.
//
//	sdfcert -lib libsoftsdf.so -sign_index 1 -enc_index 1 -CA pki/ca.pem -CAkey pki/ca.key \
//		-cn server.example -hosts localhost,127.0.0.1 -out sdfpki
package main

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/examples/sdf"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

func main() {
	lib := flag.String("lib", "", "the SDF library (`FILE`)")
	signIdx := flag.Uint("sign_index", 1, "the signing key's `index`")
	encIdx := flag.Uint("enc_index", 1, "the encryption key's `index`")
	caFile := flag.String("CA", "", "CA certificate (PEM `FILE`)")
	caKeyFile := flag.String("CAkey", "", "CA private key (PEM `FILE`)")
	caPass := flag.String("CApass", "", "`password` of -CAkey, if encrypted")
	cn := flag.String("cn", "sdf test server", "subject common `name`")
	hosts := flag.String("hosts", "localhost,127.0.0.1", "comma-separated DNS names and IP addresses")
	days := flag.Int("days", 365, "validity in `days`")
	out := flag.String("out", ".", "output `folder`")
	flag.Parse()
	if err := run(*lib, uint32(*signIdx), uint32(*encIdx), *caFile, *caKeyFile, *caPass, *cn, *hosts, *days, *out); err != nil {
		fmt.Fprintln(os.Stderr, "sdfcert:", err)
		os.Exit(1)
	}
}

func run(lib string, signIdx, encIdx uint32, caFile, caKeyFile, caPass, cn, hosts string, days int, out string) error {
	if lib == "" || caFile == "" || caKeyFile == "" {
		return errors.New("-lib, -CA and -CAkey are required")
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	ca, err := smx509.ParseCertificatePEM(caPEM)
	if err != nil {
		return fmt.Errorf("%s: %w", caFile, err)
	}
	keyPEM, err := os.ReadFile(caKeyFile)
	if err != nil {
		return err
	}
	var pass []byte
	if caPass != "" {
		pass = []byte(caPass)
	}
	caKey, err := smx.ParsePrivateKeyPEM(keyPEM, pass)
	if err != nil {
		return fmt.Errorf("%s: %w", caKeyFile, err)
	}
	d, err := sdf.Open(lib, nil)
	if err != nil {
		return err
	}
	defer d.Close()
	signPub, err := d.SignPublicKey(signIdx)
	if err != nil {
		return err
	}
	encPub, err := d.EncPublicKey(encIdx)
	if err != nil {
		return err
	}
	var dns []string
	var ips []net.IP
	for _, h := range strings.Split(hosts, ",") {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else if h != "" {
			dns = append(dns, h)
		}
	}
	for _, c := range []struct {
		name string
		pub  *sm2.PublicKey
		ku   smx509.KeyUsage
	}{
		{"sign.pem", signPub, smx509.KeyUsageDigitalSignature},
		{"enc.pem", encPub, smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement},
	} {
		serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
		if err != nil {
			return err
		}
		tmpl := &smx509.Certificate{
			SerialNumber: serial, Subject: pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi"}, CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(0, 0, days),
			KeyUsage: c.ku, DNSNames: dns, IPAddresses: ips,
			ExtKeyUsage: []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth, smx509.ExtKeyUsageClientAuth},
		}
		der, err := smx509.CreateCertificate(rand.Reader, tmpl, ca, c.pub, caKey)
		if err != nil {
			return err
		}
		path := filepath.Join(out, c.name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", path)
	}
	return nil
}
