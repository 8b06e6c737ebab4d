// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs7

// Tests written for the mutants of internal/mutation that survived the
// existing tests: each fails if its check is removed.

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// TestCounterSignatureBadSignature: a counter-signature whose
// message-digest attribute is right but whose signature is not is refused
// with ErrBadSignature (mutant pkcs7-countersig-signature).
// TestCounterSignature tries a wrong certificate, refused before the
// signature is looked at, and an altered parent signature, refused by the
// digest.
func TestCounterSignatureBadSignature(t *testing.T) {
	pki := newTestPKI(t)
	der, err := Sign([]byte("countersigned"), []Signer{pki.signer.signer()}, nil)
	must(t, err)
	sd := parseOK(t, der).Signed
	parent := sd.Signers[0]
	attrs := counterAttributes(sm3Sum(parent.Signature))
	// Signed by signer's key, in a SignerInfo naming signer2.
	sig, err := sm2.SignASN1(rand.Reader, pki.signer.key, attrs, nil)
	must(t, err)
	cs := signerInfo(pki.signer2.signer(), x509.OIDSM2Signing, attrs, sig, nil)
	si := signerInfo(pki.signer.signer(), x509.OIDSignatureSM2WithSM3, attrsOf(parent), parent.Signature, attributeWithTag(OIDAttributeCounterSignature, cs))
	got := parseOK(t, rebuildSignedData(t, sd, pki, si)).Signed.Signers[0]
	if len(got.CounterSignatures) != 1 {
		t.Fatalf("%d counter-signatures", len(got.CounterSignatures))
	}
	if err := got.VerifyCounterSignature(got.CounterSignatures[0], pki.signer2.cert, nil); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("counter-signature by another key: %v, want ErrBadSignature", err)
	}
}

// TestEnvelopedBadPadding: SM4-CBC content whose last byte is a valid
// padding length but whose other padding bytes are not that length is
// refused with ErrDecryption (mutant pkcs7-enveloped-padding).
// TestAlteredEnvelope alters the last block, which garbles the padding
// length too.
func TestEnvelopedBadPadding(t *testing.T) {
	pki := newTestPKI(t)
	content := bytes.Repeat([]byte("x"), 30)
	der, err := Encrypt(content, []Recipient{{Certificate: pki.encLeaf.cert}}, &EncryptOptions{Cipher: SM4CBC})
	must(t, err)
	ed := parseOK(t, der).Enveloped
	cek, err := unwrapKey(ed.Recipients, pki.encLeaf.cert, pki.encLeaf.key)
	must(t, err)
	var iv []byte
	params := cryptobyte.String(ed.EncryptedContent.Algorithm.Parameters.FullBytes)
	if !params.ReadASN1Bytes(&iv, cbasn1.OCTET_STRING) || len(iv) != sm4.BlockSize {
		t.Fatalf("IV of %d bytes", len(iv))
	}
	encrypt := func(pt []byte) []byte {
		block, err := sm4.NewCipher(cek)
		must(t, err)
		ct := make([]byte, len(pt))
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, pt)
		return ct
	}
	// Good padding under the same key and IV decrypts: the test's
	// ciphertexts are made right.
	ed.EncryptedContent.Ciphertext = encrypt(append(bytes.Clone(content), 2, 2))
	if got, err := ed.Decrypt(pki.encLeaf.cert, pki.encLeaf.key); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("re-encrypted content: %q, %v", got, err)
	}
	ed.EncryptedContent.Ciphertext = encrypt(append(bytes.Clone(content), 3, 2))
	if got, err := ed.Decrypt(pki.encLeaf.cert, pki.encLeaf.key); !errors.Is(err, ErrDecryption) {
		t.Fatalf("padding ending 03 02: %q, %v, want ErrDecryption", got, err)
	}
}
