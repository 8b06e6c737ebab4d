// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bytes"
	"crypto"
	"errors"
	"io"
	"math/big"
	"testing"

	"github.com/emmansun/gmsm/pkcs"
	gmpkcs7 "github.com/emmansun/gmsm/pkcs7"
	gmsm2 "github.com/emmansun/gmsm/sm2"
	gmx509 "github.com/emmansun/gmsm/smx509"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/pkcs7"
)

// The cms rows sign, verify, envelope and open messages with the SM2 PKI of
// sm2Chain: the leaf signs (its certificate and the intermediate carried),
// the server encryption certificate receives. Verification builds the chain
// to the root in both libraries. The third column of the streaming row is
// our SM3 alone over the same 64 MiB, the ceiling a streamed signature can
// reach.

const (
	cmsContentLen = 1 * kib
	cmsStreamLen  = 64 << 20
)

func init() {
	register(&group{
		name:  "cms",
		cols:  []string{"ours", "gmsm", "SM3 only"},
		ratio: "ours/gmsm",
		note: "SignedData: 1 KiB attached, signed attributes (content-type, message-digest, signing-time), leaf + intermediate carried, SM2-with-SM3;\n" +
			"verify = parse + signature + attributes + chain to the root (gmsm: Parse + VerifyWithChainAtTime). EnvelopedData: 1 KiB, one SM2 recipient, SM4-CBC;\n" +
			"open = parse + SM2 decryption + SM4-CBC. Detached 64 MiB: ours SignDetached from an io.Reader (constant memory), gmsm NewSMSignedData over the\n" +
			"bytes in memory then Detach; \"SM3 only\" is our sm3 over the same bytes",
		rows: []*row{
			{name: "sign 1 KiB attached", unit: opsPerSec, impls: []setupFunc{oursCMSSign, gmsmCMSSign, nil}},
			{name: "verify 1 KiB attached", unit: opsPerSec, impls: []setupFunc{oursCMSVerify, gmsmCMSVerify, nil}},
			{name: "envelope 1 KiB", unit: opsPerSec, impls: []setupFunc{oursCMSEnvelope, gmsmCMSEnvelope, nil}},
			{name: "open 1 KiB", unit: opsPerSec, impls: []setupFunc{oursCMSOpen, gmsmCMSOpen, nil}},
			{name: "sign 64 MiB detached", unit: mbPerSec, bytes: cmsStreamLen, impls: []setupFunc{oursCMSStream, gmsmCMSStream, sm3Stream}},
		},
	})
}

// cmsParties returns our and gmsm's parse of the leaf, intermediate, root
// and server encryption certificates and their keys.
type cmsPKI struct {
	leaf, inter, root, enc         *smx509.Certificate
	leafKey, encKey                *sm2.PrivateKey
	gmLeaf, gmInter, gmRoot, gmEnc *gmx509.Certificate
	gmLeafKey, gmEncKey            *gmsm2.PrivateKey
}

func newCMSPKI() (*cmsPKI, error) {
	ch, err := sm2Chain()
	if err != nil {
		return nil, err
	}
	p := &cmsPKI{}
	for _, c := range []struct {
		der  []byte
		ours **smx509.Certificate
		gm   **gmx509.Certificate
	}{{ch.leaf, &p.leaf, &p.gmLeaf}, {ch.inter, &p.inter, &p.gmInter}, {ch.root, &p.root, &p.gmRoot}, {ch.serverEnc, &p.enc, &p.gmEnc}} {
		if *c.ours, err = smx509.ParseCertificate(c.der); err != nil {
			return nil, err
		}
		if *c.gm, err = gmx509.ParseCertificate(c.der); err != nil {
			return nil, err
		}
	}
	if p.leafKey, err = sm2.NewPrivateKey(ch.leafKey); err != nil {
		return nil, err
	}
	if p.encKey, err = sm2.NewPrivateKey(ch.serverEncKey); err != nil {
		return nil, err
	}
	if p.gmLeafKey, err = gmsm2.NewPrivateKeyFromInt(new(big.Int).SetBytes(ch.leafKey)); err != nil {
		return nil, err
	}
	if p.gmEncKey, err = gmsm2.NewPrivateKeyFromInt(new(big.Int).SetBytes(ch.serverEncKey)); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *cmsPKI) oursSigner() []pkcs7.Signer {
	return []pkcs7.Signer{{Certificate: p.leaf, Key: p.leafKey}}
}

func (p *cmsPKI) oursSign(content []byte) ([]byte, error) {
	return pkcs7.Sign(content, p.oursSigner(), &pkcs7.SignOptions{Certificates: []*smx509.Certificate{p.inter}, SigningTime: certTime})
}

func (p *cmsPKI) gmsmSign(content []byte, detach bool) ([]byte, error) {
	sd, err := gmpkcs7.NewSMSignedData(content)
	if err != nil {
		return nil, err
	}
	if err := sd.AddSignerChain(p.gmLeaf, p.gmLeafKey, []*gmx509.Certificate{p.gmInter}, gmpkcs7.SignerInfoConfig{}); err != nil {
		return nil, err
	}
	if detach {
		sd.Detach()
	}
	return sd.Finish()
}

func opsBench(f func() error) (benchFunc, error) {
	if err := f(); err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := f(); err != nil {
				fail(b, err)
			}
		}
	}, nil
}

func oursCMSSign() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := randBytes(cmsContentLen)
	return opsBench(func() error { _, err := p.oursSign(content); return err })
}

func gmsmCMSSign() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := randBytes(cmsContentLen)
	return opsBench(func() error { _, err := p.gmsmSign(content, false); return err })
}

func oursCMSVerify() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	der, err := p.oursSign(randBytes(cmsContentLen))
	if err != nil {
		return nil, err
	}
	roots := smx509.NewCertPool()
	roots.AddCert(p.root)
	opts := pkcs7.VerifyOptions{Roots: roots, CurrentTime: certTime}
	return opsBench(func() error {
		m, err := pkcs7.Parse(der)
		if err != nil {
			return err
		}
		return m.Signed.Verify(opts)
	})
}

func gmsmCMSVerify() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	der, err := p.gmsmSign(randBytes(cmsContentLen), false)
	if err != nil {
		return nil, err
	}
	roots := gmx509.NewCertPool()
	roots.AddCert(p.gmRoot)
	at := certTime
	return opsBench(func() error {
		p7, err := gmpkcs7.Parse(der)
		if err != nil {
			return err
		}
		return p7.VerifyWithChainAtTime(roots, &at)
	})
}

func oursCMSEnvelope() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := randBytes(cmsContentLen)
	rs := []pkcs7.Recipient{{Certificate: p.enc}}
	return opsBench(func() error { _, err := pkcs7.Encrypt(content, rs, nil); return err })
}

func gmsmCMSEnvelope() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := randBytes(cmsContentLen)
	rs := []*gmx509.Certificate{p.gmEnc}
	return opsBench(func() error { _, err := gmpkcs7.EncryptSM(pkcs.SM4CBC, content, rs); return err })
}

func oursCMSOpen() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := randBytes(cmsContentLen)
	der, err := pkcs7.Encrypt(content, []pkcs7.Recipient{{Certificate: p.enc}}, nil)
	if err != nil {
		return nil, err
	}
	return opsBench(func() error {
		m, err := pkcs7.Parse(der)
		if err != nil {
			return err
		}
		got, err := m.Enveloped.Decrypt(p.enc, p.encKey)
		if err == nil && !bytes.Equal(got, content) {
			err = errors.New("wrong content")
		}
		return err
	})
}

func gmsmCMSOpen() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := randBytes(cmsContentLen)
	der, err := gmpkcs7.EncryptSM(pkcs.SM4CBC, content, []*gmx509.Certificate{p.gmEnc})
	if err != nil {
		return nil, err
	}
	return opsBench(func() error {
		p7, err := gmpkcs7.Parse(der)
		if err != nil {
			return err
		}
		got, err := p7.Decrypt(p.gmEnc, crypto.PrivateKey(p.gmEncKey))
		if err == nil && !bytes.Equal(got, content) {
			err = errors.New("wrong content")
		}
		return err
	})
}

// cmsStreamContent is the 64 MiB the streaming rows sign.
var cmsStreamContent []byte

func streamContent() []byte {
	if cmsStreamContent == nil {
		cmsStreamContent = randBytes(cmsStreamLen)
	}
	return cmsStreamContent
}

func oursCMSStream() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := streamContent()
	return opsBench(func() error {
		_, err := pkcs7.SignDetached(bytes.NewReader(content), p.oursSigner(), &pkcs7.SignOptions{SigningTime: certTime})
		return err
	})
}

func gmsmCMSStream() (benchFunc, error) {
	p, err := newCMSPKI()
	if err != nil {
		return nil, err
	}
	content := streamContent()
	return opsBench(func() error { _, err := p.gmsmSign(content, true); return err })
}

func sm3Stream() (benchFunc, error) {
	content := streamContent()
	return opsBench(func() error {
		h := sm3.New()
		_, err := io.Copy(h, bytes.NewReader(content))
		h.Sum(nil)
		return err
	})
}
