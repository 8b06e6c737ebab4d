// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	gmsm2 "github.com/emmansun/gmsm/sm2"
	gmx509 "github.com/emmansun/gmsm/smx509"
)

// The x509 rows parse and verify one three-certificate chain: an SM2 chain
// (made once with gmsm so that ours and gmsm parse identical bytes) and an
// ECDSA P-256 chain with the same names and extensions for crypto/x509.

func init() {
	register(&group{
		name:  "x509",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note: "ours and gmsm parse the same SM2 certificates (signed SM2-with-SM3); stdlib: crypto/x509 with an ECDSA P-256/SHA-256 chain of the same shape.\n" +
			"verify: leaf + intermediate pool + root pool, DNS name and validity checked, two signature verifications per op",
		rows: []*row{
			{name: "ParseCertificate (leaf)", unit: opsPerSec, impls: []setupFunc{oursX509Parse(), gmsmX509Parse, stdX509Parse}},
			{name: "verify chain (3 certs)", unit: opsPerSec, impls: []setupFunc{oursX509Verify(), gmsmX509Verify, stdX509Verify}},
		},
		extra: func() string {
			sm, err1 := sm2Chain()
			ec, err2 := ecdsaChain()
			if err := errors.Join(err1, err2); err != nil {
				return "certificates: " + err.Error()
			}
			return fmt.Sprintf("leaf certificate sizes: SM2 %d bytes, ECDSA P-256 %d bytes (intermediate %d / %d, root %d / %d)",
				len(sm.leaf), len(ec.leaf), len(sm.inter), len(ec.inter), len(sm.root), len(ec.root))
		},
	})
}

// certTime is inside every certificate's validity period.
var certTime = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

const certDNSName = "www.shangmi.example"

// chainTemplates returns root, intermediate and leaf templates in the shape
// of a typical server certificate chain issued by a national CA.
func chainTemplates() (root, inter, leaf *x509.Certificate) {
	name := func(cn, ou string) pkix.Name {
		return pkix.Name{Country: []string{"CN"}, Province: []string{"Beijing"}, Locality: []string{"Beijing"},
			Organization: []string{"Shangmi Test Trust Services Co., Ltd."}, OrganizationalUnit: []string{ou}, CommonName: cn}
	}
	nb, na := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	root = &x509.Certificate{SerialNumber: big.NewInt(1), Subject: name("Shangmi Test Root CA", "Root CA"),
		NotBefore: nb, NotAfter: na, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true, MaxPathLen: 1}
	inter = &x509.Certificate{SerialNumber: big.NewInt(2), Subject: name("Shangmi Test Server CA", "Server CA"),
		NotBefore: nb, NotAfter: na, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
		CRLDistributionPoints: []string{"http://crl.shangmi.example/server-ca.crl"},
		OCSPServer:            []string{"http://ocsp.shangmi.example"}}
	leaf = &x509.Certificate{SerialNumber: new(big.Int).SetBytes([]byte{0x5a, 0x13, 0x9f, 0x02, 0x77, 0x41, 0xc8, 0x0e, 0x31, 0x6d, 0x2b, 0xe4}),
		Subject:   name(certDNSName, "Web Services"),
		NotBefore: nb, NotAfter: na, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:              []string{certDNSName, "shangmi.example", "api.shangmi.example"},
		CRLDistributionPoints: []string{"http://crl.shangmi.example/server-ca.crl"},
		OCSPServer:            []string{"http://ocsp.shangmi.example"},
		IssuingCertificateURL: []string{"http://ca.shangmi.example/server-ca.cer"}}
	return
}

// sm2Chain holds the DER of the SM2 chain (root, intermediate, leaf) and,
// for the tlcp group, the rest of a TLCP PKI: the server's encryption
// certificate and a client's signing and encryption certificates, all issued
// by the intermediate. Keys are kept as 32-byte scalars so that either
// library can load them. Made once, with gmsm, and shared.
type sm2ChainT struct {
	root, inter, leaf []byte
	leafKey           []byte
	// TLCP extras.
	serverEnc, clientSign, clientEnc          []byte
	serverEncKey, clientSignKey, clientEncKey []byte
}

var sm2Chain = sync.OnceValues(func() (*sm2ChainT, error) {
	rt, it, lt := chainTemplates()
	conv := func(c *x509.Certificate) *gmx509.Certificate {
		return &gmx509.Certificate{SerialNumber: c.SerialNumber, Subject: c.Subject, NotBefore: c.NotBefore, NotAfter: c.NotAfter,
			KeyUsage: gmx509.KeyUsage(c.KeyUsage), BasicConstraintsValid: c.BasicConstraintsValid, IsCA: c.IsCA,
			MaxPathLen: c.MaxPathLen, MaxPathLenZero: c.MaxPathLenZero, DNSNames: c.DNSNames,
			CRLDistributionPoints: c.CRLDistributionPoints, OCSPServer: c.OCSPServer, IssuingCertificateURL: c.IssuingCertificateURL,
			ExtKeyUsage: convEKU(c.ExtKeyUsage)}
	}
	keys := make([]*gmsm2.PrivateKey, 6)
	for i := range keys {
		k, err := gmsm2.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	scalar := func(k *gmsm2.PrivateKey) []byte { return k.D.FillBytes(make([]byte, 32)) }
	mk := func(tmpl, parent *gmx509.Certificate, pub, signer any) ([]byte, *gmx509.Certificate, error) {
		der, err := gmx509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			return nil, nil, err
		}
		c, err := gmx509.ParseCertificate(der)
		return der, c, err
	}
	rootDER, root, err := mk(conv(rt), conv(rt), keys[0].Public(), keys[0])
	if err != nil {
		return nil, err
	}
	interDER, inter, err := mk(conv(it), root, keys[1].Public(), keys[0])
	if err != nil {
		return nil, err
	}
	leafDER, _, err := mk(conv(lt), inter, keys[2].Public(), keys[1])
	if err != nil {
		return nil, err
	}
	ch := &sm2ChainT{root: rootDER, inter: interDER, leaf: leafDER, leafKey: scalar(keys[2])}

	// The encryption certificate differs from the signing one in its key
	// usage (tlcp/INTEROP.md §3.5); the client's pair names a client.
	encUsage := gmx509.KeyUsageKeyEncipherment | gmx509.KeyUsageDataEncipherment | gmx509.KeyUsageKeyAgreement
	se := conv(lt)
	se.SerialNumber, se.KeyUsage = big.NewInt(3), encUsage
	cs := conv(lt)
	cs.SerialNumber, cs.Subject.CommonName, cs.DNSNames = big.NewInt(4), "shangmi bench client", nil
	cs.ExtKeyUsage = []gmx509.ExtKeyUsage{gmx509.ExtKeyUsageClientAuth}
	ce := conv(lt)
	ce.SerialNumber, ce.Subject.CommonName, ce.DNSNames, ce.KeyUsage = big.NewInt(5), "shangmi bench client", nil, encUsage
	ce.ExtKeyUsage = []gmx509.ExtKeyUsage{gmx509.ExtKeyUsageClientAuth}
	for i, p := range []struct {
		tmpl     *gmx509.Certificate
		der, key *[]byte
	}{{se, &ch.serverEnc, &ch.serverEncKey}, {cs, &ch.clientSign, &ch.clientSignKey}, {ce, &ch.clientEnc, &ch.clientEncKey}} {
		k := keys[3+i]
		if *p.der, _, err = mk(p.tmpl, inter, k.Public(), keys[1]); err != nil {
			return nil, err
		}
		*p.key = scalar(k)
	}
	return ch, nil
})

func convEKU(in []x509.ExtKeyUsage) []gmx509.ExtKeyUsage {
	var out []gmx509.ExtKeyUsage
	for _, u := range in {
		out = append(out, gmx509.ExtKeyUsage(u))
	}
	return out
}

type ecdsaChainT struct {
	root, inter, leaf []byte
	leafKey           *ecdsa.PrivateKey
}

var ecdsaChain = sync.OnceValues(func() (*ecdsaChainT, error) {
	rt, it, lt := chainTemplates()
	keys := make([]*ecdsa.PrivateKey, 3)
	for i := range keys {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	mk := func(tmpl, parent *x509.Certificate, pub crypto.PublicKey, signer crypto.Signer) ([]byte, *x509.Certificate, error) {
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			return nil, nil, err
		}
		c, err := x509.ParseCertificate(der)
		return der, c, err
	}
	rootDER, root, err := mk(rt, rt, keys[0].Public(), keys[0])
	if err != nil {
		return nil, err
	}
	interDER, inter, err := mk(it, root, keys[1].Public(), keys[0])
	if err != nil {
		return nil, err
	}
	leafDER, _, err := mk(lt, inter, keys[2].Public(), keys[1])
	if err != nil {
		return nil, err
	}
	return &ecdsaChainT{root: rootDER, inter: interDER, leaf: leafDER, leafKey: keys[2]}, nil
})

// parseBench parses der once per op with parse.
func parseBench[C any](der []byte, parse func([]byte) (C, error)) benchFunc {
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := parse(der); err != nil {
				fail(b, err)
			}
		}
	}
}

// parseChain parses a chain's root, intermediate and leaf with one library's
// parser.
func parseChain[C any](root, inter, leaf []byte, parse func([]byte) (C, error)) ([3]C, error) {
	var certs [3]C
	for i, der := range [][]byte{root, inter, leaf} {
		c, err := parse(der)
		if err != nil {
			return certs, err
		}
		certs[i] = c
	}
	return certs, nil
}

// verifyBench times verify, one library's chain verification of the leaf.
// It runs once first, so that a row whose chain does not verify reports
// that instead of timing an error path.
func verifyBench[C any](verify func() ([][]C, error)) (benchFunc, error) {
	check := func() error {
		chains, err := verify()
		if err == nil && (len(chains) != 1 || len(chains[0]) != 3) {
			err = errors.New("unexpected chains")
		}
		return err
	}
	if err := check(); err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := check(); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func gmsmX509Parse() (benchFunc, error) {
	ch, err := sm2Chain()
	if err != nil {
		return nil, err
	}
	return parseBench(ch.leaf, gmx509.ParseCertificate), nil
}

func stdX509Parse() (benchFunc, error) {
	ch, err := ecdsaChain()
	if err != nil {
		return nil, err
	}
	return parseBench(ch.leaf, x509.ParseCertificate), nil
}

func gmsmX509Verify() (benchFunc, error) {
	ch, err := sm2Chain()
	if err != nil {
		return nil, err
	}
	certs, err := parseChain(ch.root, ch.inter, ch.leaf, gmx509.ParseCertificate)
	if err != nil {
		return nil, err
	}
	roots, inters := gmx509.NewCertPool(), gmx509.NewCertPool()
	roots.AddCert(certs[0])
	inters.AddCert(certs[1])
	opts := gmx509.VerifyOptions{DNSName: certDNSName, Roots: roots, Intermediates: inters, CurrentTime: certTime}
	return verifyBench(func() ([][]*gmx509.Certificate, error) { return certs[2].Verify(opts) })
}

func stdX509Verify() (benchFunc, error) {
	ch, err := ecdsaChain()
	if err != nil {
		return nil, err
	}
	certs, err := parseChain(ch.root, ch.inter, ch.leaf, x509.ParseCertificate)
	if err != nil {
		return nil, err
	}
	roots, inters := x509.NewCertPool(), x509.NewCertPool()
	roots.AddCert(certs[0])
	inters.AddCert(certs[1])
	opts := x509.VerifyOptions{DNSName: certDNSName, Roots: roots, Intermediates: inters, CurrentTime: certTime}
	return verifyBench(func() ([][]*x509.Certificate, error) { return certs[2].Verify(opts) })
}
