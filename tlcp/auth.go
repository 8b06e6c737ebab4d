// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto"
	"errors"
	"hash"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
)

// transcriptHash is the running SM3 hash of the handshake messages (INTEROP.md
// §3.12). It keeps the raw bytes too when a CertificateVerify of the GmSSL
// raw-transcript form may have to be made or checked (D1).
type transcriptHash struct {
	h       hash.Hash
	raw     []byte
	keepRaw bool
	fin     [32]byte // finishedHash's result
}

func newTranscript(keepRaw bool) *transcriptHash {
	return &transcriptHash{h: sm3.New(), keepRaw: keepRaw}
}

func (t *transcriptHash) Write(p []byte) {
	t.h.Write(p)
	if t.keepRaw {
		t.raw = append(t.raw, p...)
	}
}

// dropRaw stops keeping the raw transcript and releases it.
func (t *transcriptHash) dropRaw() { t.raw, t.keepRaw = nil, false }

// Sum returns the SM3 hash of the messages so far.
func (t *transcriptHash) Sum() []byte { return t.h.Sum(nil) }

// finishedHash is Sum for computing a Finished message at once: the result
// is valid until the next call.
func (t *transcriptHash) finishedHash() []byte { return t.h.Sum(t.fin[:0]) }

// sign makes an SM2 signature with the default ID over msg (e = SM3(Z ‖
// msg), GB/T 32918.2), DER encoded.
func sign(rand io.Reader, key crypto.PrivateKey, msg []byte) ([]byte, error) {
	if k, ok := key.(*sm2.PrivateKey); ok {
		return sm2.SignASN1(rand, k, msg, nil)
	}
	s, ok := signerOf(key)
	if !ok {
		return nil, errors.New("tlcp: signing key is not an SM2 crypto.Signer")
	}
	return s.Sign(rand, msg, &sm2.SignerOpts{})
}

// sm2PublicKey returns the SM2 public key of a certificate.
func sm2PublicKey(cert *smx509.Certificate) (*sm2.PublicKey, error) {
	pub, ok := cert.PublicKey.(*sm2.PublicKey)
	if !ok {
		return nil, errorf(alertUnsupportedCertificate, "tlcp: certificate %q has a %T public key, not SM2", cert.Subject.CommonName, cert.PublicKey)
	}
	return pub, nil
}

// verify checks an SM2 signature with the default ID by cert's key over msg.
func verify(cert *smx509.Certificate, msg, sig []byte) bool {
	pub, ok := cert.PublicKey.(*sm2.PublicKey)
	return ok && sm2.VerifyASN1(pub, msg, nil, sig)
}

// serverKeyExchangeTBS is what ServerKeyExchange signs (INTEROP.md §3.6): the
// two randoms followed, for ECC, by the encryption certificate as an
// opaque u24 vector or, for ECDHE, by the 69-byte ECDHE parameters.
func serverKeyExchangeTBS(clientRandom, serverRandom, encCertDER, params []byte) []byte {
	var b bytes.Buffer
	b.Grow(64 + 3 + len(encCertDER) + len(params))
	b.Write(clientRandom)
	b.Write(serverRandom)
	if params != nil {
		b.Write(params)
	} else {
		n := len(encCertDER)
		b.Write([]byte{byte(n >> 16), byte(n >> 8), byte(n)})
		b.Write(encCertDER)
	}
	return b.Bytes()
}

// certificateVerifyMessage is what CertificateVerify signs: the 32-byte SM3
// transcript hash (GB/T 38636 6.4.5.9, INTEROP.md §3.10), or with raw set the
// transcript itself, the GmSSL 3.0.0/≥3.2 form.
func certificateVerifyMessage(t *transcriptHash, raw bool) []byte {
	if raw {
		return bytes.Clone(t.raw)
	}
	return t.Sum()
}
