// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
)

// genPKI writes a root and the four leaves of a TLCP/TLS 1.3 test PKI to
// dir: ca, server_sign, server_enc, client_sign, client_enc, each as .pem
// and .key (plain PKCS #8, which Tongsuo reads) and .gmssl.key (encrypted
// with the password pw, the only form GmSSL reads). The certificates are
// valid for 30 days: GmSSL refuses longer-lived ones than it allows
// (X509_VALIDITY_MAX_SECONDS), have random 16-byte serials (GmSSL wants at
// least 4 bytes), leaves without basicConstraints (GmSSL rejects the empty
// SEQUENCE of cA FALSE) and name localhost and 127.0.0.1.
func genPKI(dir, pw string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	now := time.Now().Add(-time.Hour)
	issue := func(name string, tmpl, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey, error) {
		key, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		// Random 16-byte serials: GmSSL refuses serials shorter than 4
		// bytes ("not enough randomness").
		if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)); err != nil {
			return nil, nil, err
		}
		tmpl.SerialNumber.SetBit(tmpl.SerialNumber, 120, 1)
		tmpl.NotBefore, tmpl.NotAfter = now, now.Add(30*24*time.Hour)
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
		if err != nil {
			return nil, nil, err
		}
		cert, err := smx509.ParseCertificate(der)
		if err != nil {
			return nil, nil, err
		}
		plain, err := x509.MarshalPrivateKeyPEM(key)
		if err != nil {
			return nil, nil, err
		}
		enc, err := x509.MarshalPrivateKeyPEMWithPassword(rand.Reader, key, []byte(pw), nil)
		if err != nil {
			return nil, nil, err
		}
		files := map[string][]byte{
			name + ".pem":       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			name + ".key":       plain,
			name + ".gmssl.key": enc,
		}
		for f, b := range files {
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
				return nil, nil, err
			}
		}
		return cert, key, nil
	}
	ca, caKey, err := issue("ca", &smx509.Certificate{
		Subject:               pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi"}, CommonName: "shangmi interop root"},
		KeyUsage:              smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, nil, nil)
	if err != nil {
		return err
	}
	for _, leaf := range []struct {
		name, cn string
		ku       smx509.KeyUsage
		eku      smx509.ExtKeyUsage
	}{
		{"server_sign", "localhost", smx509.KeyUsageDigitalSignature, smx509.ExtKeyUsageServerAuth},
		{"server_enc", "localhost", smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement, smx509.ExtKeyUsageServerAuth},
		{"client_sign", "shangmi interop client", smx509.KeyUsageDigitalSignature, smx509.ExtKeyUsageClientAuth},
		{"client_enc", "shangmi interop client", smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement, smx509.ExtKeyUsageClientAuth},
	} {
		if _, _, err := issue(leaf.name, &smx509.Certificate{
			Subject:     pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi"}, CommonName: leaf.cn},
			DNSNames:    []string{"localhost"},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
			KeyUsage:    leaf.ku,
			ExtKeyUsage: []smx509.ExtKeyUsage{leaf.eku},
			// No basicConstraints: GmSSL refuses the empty SEQUENCE
			// that encodes cA FALSE.
		}, ca, caKey); err != nil {
			return err
		}
	}
	return nil
}
