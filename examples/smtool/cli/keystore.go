// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"crypto"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/tlcp"
)

// SDFKeys names the keys of a TLCP certificate pair inside an SDF cipher
// machine (GM/T 0018), as s_server's and s_client's -sdf flags give them.
type SDFKeys struct {
	Library   string // -sdf: path of the vendor's SDF library
	SignIndex uint32 // -sdf_sign_index: the signing key's internal index
	// EncIndex is -sdf_enc_index, the encryption key's index; HasEnc is
	// false when the flag is not given (a client without an encryption
	// certificate).
	EncIndex uint32
	HasEnc   bool
	Password []byte // -sdf_pass: the keys' access password
}

// SDFOpener returns the keys k names: sign a crypto.Signer whose public
// key is an *sm2.PublicKey, enc (nil when k.HasEnc is false) a
// crypto.Decrypter or tlcp.SM2KeyExchanger, as tlcp.Certificate takes them.
type SDFOpener func(k SDFKeys) (sign crypto.Signer, enc crypto.PrivateKey, err error)

// sdfOpener is the registered opener; nil in the default build, which has
// no cgo and so cannot load an SDF library.
var sdfOpener SDFOpener

// RegisterSDF makes s_server's and s_client's -sdf flags work with open.
// Call it before Main, from the main package of a build that can load SDF
// libraries (examples/sdf/cmd/smtool).
func RegisterSDF(open SDFOpener) { sdfOpener = open }

// sdfBuildHint says where the -sdf flags work.
const sdfBuildHint = "this smtool is built without SDF support (loading a device's library needs cgo); " +
	"use the build in examples/sdf: cd examples/sdf && go run ./cmd/smtool s_server -sdf LIB …"

// sdfOpts are the -sdf flags.
type sdfOpts struct {
	lib                 *string
	signIndex, encIndex *int
	pass                *string
}

func addSDFFlags(fs *flagSet) *sdfOpts {
	return &sdfOpts{
		lib:       fs.String("sdf", "", "keys in an SDF cipher machine (GM/T 0018): the vendor's SDF `LIB`rary; -sign_cert and -enc_cert give the certificates (needs the cgo build of examples/sdf)"),
		signIndex: fs.Int("sdf_sign_index", -1, "with -sdf: the signing key's internal `index`"),
		encIndex:  fs.Int("sdf_enc_index", -1, "with -sdf: the encryption key's internal `index`"),
		pass:      fs.String("sdf_pass", "", "with -sdf: the keys' access `password`: "+passUsage),
	}
}

// given reports whether any -sdf flag is set.
func (s *sdfOpts) given(fs *flagSet) bool {
	if s == nil || fs == nil {
		return false // a caller without the flags (scan's probes)
	}
	for _, n := range []string{"sdf", "sdf_sign_index", "sdf_enc_index", "sdf_pass"} {
		if fs.isSet(n) {
			return true
		}
	}
	return false
}

// loadPair builds the certificate pair from -sign_cert, -enc_cert and the
// keys in the device.
func (s *sdfOpts) loadPair(e *env, o *tlcpOpts, server bool) (*tlcp.CertificatePair, error) {
	if *s.lib == "" {
		return nil, usagef("-sdf_sign_index, -sdf_enc_index and -sdf_pass go with -sdf LIB")
	}
	if sdfOpener == nil {
		return nil, usagef("-sdf: %s", sdfBuildHint)
	}
	if *o.signKey != "" || *o.encKey != "" || *o.key != "" || *o.cert != "" {
		return nil, usagef("-sdf holds the private keys: give -sign_cert and -enc_cert, not -sign_key, -enc_key, -cert or -key")
	}
	if *o.signCert == "" || *s.signIndex < 0 {
		return nil, usagef("-sdf needs the signing certificate and its key's index: -sign_cert FILE -sdf_sign_index N")
	}
	hasEnc := *o.encCert != "" || *s.encIndex >= 0
	if hasEnc && (*o.encCert == "" || *s.encIndex < 0) {
		return nil, usagef("-sdf: the encryption certificate and its key's index go together: -enc_cert FILE -sdf_enc_index N")
	}
	if server && !hasEnc {
		return nil, usagef("a TLCP server needs its encryption certificate and key too: -enc_cert FILE -sdf_enc_index N")
	}
	if *s.signIndex > 1<<32-1 || *s.encIndex > 1<<32-1 {
		return nil, usagef("-sdf: a key index is at most %d", uint32(1<<32-1))
	}
	pass, err := e.password("sdf_pass", *s.pass)
	if err != nil {
		return nil, err
	}
	k := SDFKeys{Library: *s.lib, SignIndex: uint32(*s.signIndex), HasEnc: hasEnc, Password: pass}
	if hasEnc {
		k.EncIndex = uint32(*s.encIndex)
	}
	sign, enc, err := sdfOpener(k)
	if err != nil {
		return nil, err
	}
	pair := &tlcp.CertificatePair{}
	if pair.Sign, err = certWithKey(*o.signCert, sign); err != nil {
		return nil, err
	}
	if hasEnc {
		if pair.Enc, err = certWithKey(*o.encCert, enc); err != nil {
			return nil, err
		}
	}
	return pair, nil
}

// certWithKey reads a PEM certificate chain and pairs it with a key held
// elsewhere; tlcp checks that the key is the certificate's in every
// handshake, and this checks it once up front for a clear error.
func certWithKey(path string, key crypto.PrivateKey) (tlcp.Certificate, error) {
	chain, err := readCertificates(path) // verify.go
	if err != nil {
		return tlcp.Certificate{}, err
	}
	pub, ok := key.(interface{ Public() crypto.PublicKey })
	leafKey, lok := chain[0].PublicKey.(*sm2.PublicKey)
	if !ok || !lok || !leafKey.Equal(pub.Public()) {
		return tlcp.Certificate{}, fmt.Errorf("%s: the certificate's public key is not the device key's", path)
	}
	c := tlcp.Certificate{PrivateKey: key, Leaf: chain[0]}
	for _, cert := range chain {
		c.Certificate = append(c.Certificate, cert.Raw)
	}
	return c, nil
}
