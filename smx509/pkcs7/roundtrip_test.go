package pkcs7

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
)

func parseOK(t *testing.T, der []byte) *Message {
	t.Helper()
	m, err := Parse(der)
	must(t, err)
	if n, err := normalize(der); err != nil || !bytes.Equal(n, der) {
		t.Fatalf("the output is not DER (%v)", err)
	}
	return m
}

// TestSignRoundTrip signs with every combination of the options and
// verifies the result.
func TestSignRoundTrip(t *testing.T) {
	pki := newTestPKI(t)
	content := []byte("signed content")
	for _, family := range []Family{GMT0010, PKCS7} {
		for _, form := range []string{"attributes", "no signing time", "no attributes", "no attributes without Z", "GmSSL"} {
			for _, detached := range []bool{false, true} {
				for _, ski := range []bool{false, true} {
					if form == "GmSSL" && detached {
						continue
					}
					name := fmt.Sprintf("%v/%s/detached=%v/ski=%v", family, form, detached, ski)
					t.Run(name, func(t *testing.T) {
						opts := &SignOptions{Family: family, Detached: detached, Certificates: []*smx509.Certificate{pki.inter.cert}}
						switch form {
						case "no signing time":
							opts.NoSigningTime = true
						case "no attributes":
							opts.NoAttributes = true
						case "no attributes without Z":
							opts.NoAttributes, opts.WithoutZ = true, true
						case "GmSSL":
							opts.GmSSL = true
						}
						if ski {
							// Vary the identifier too: sm2-1 with the subject key identifier.
							opts.SignatureAlgorithm = x509.OIDSM2Signing
						}
						signers := []Signer{pki.signer.signer(), pki.signer2.signer()}
						signers[0].BySubjectKeyId = ski
						signers[1].UID = []byte("alice@example.cn")
						der, err := Sign(content, signers, opts)
						must(t, err)
						m := parseOK(t, der)
						if m.Type != SignedDataType || m.Family != family {
							t.Fatalf("got %v %v", m.Type, m.Family)
						}
						sd := m.Signed
						wantAlg := x509.OIDSignatureSM2WithSM3
						if ski {
							wantAlg = x509.OIDSM2Signing
						}
						if got := sd.Signers[0].SignatureAlgorithm.Algorithm; !got.Equal(wantAlg) {
							t.Errorf("signature algorithm %v, want %v", got, wantAlg)
						}
						if sd.Detached != detached || len(sd.Signers) != 2 || len(sd.Certificates) != 3 {
							t.Fatalf("detached %v, %d signers, %d certificates", sd.Detached, len(sd.Signers), len(sd.Certificates))
						}
						if hasTime := form == "attributes"; hasTime {
							if _, ok := sd.Signers[0].SigningTime(); !ok {
								t.Error("no signing time")
							}
						}
						vopts := pki.verifyOptions()
						verify := func(vopts VerifyOptions) error {
							if detached {
								return sd.VerifyDetached(bytes.NewReader(content), vopts)
							}
							return sd.Verify(vopts)
						}
						// The second signer used its own identifier: it verifies
						// only when the verifier is told, unless no Z is hashed.
						err = verify(vopts)
						var se *SignerError
						if form == "no attributes without Z" || form == "GmSSL" {
							must(t, err)
						} else if !errors.As(err, &se) || !se.Certificate.Equal(pki.signer2.cert) || !errors.Is(err, ErrBadSignature) {
							t.Fatalf("verifying signer 1 with the default identifier: %v", err)
						}
						if form != "GmSSL" && form != "no attributes without Z" {
							// One signer with the default identifier.
							one, err := Sign(content, signers[:1], opts)
							must(t, err)
							m := parseOK(t, one)
							if detached {
								must(t, m.Signed.VerifyDetached(bytes.NewReader(content), vopts))
							} else {
								must(t, m.Signed.Verify(vopts))
							}
							vopts.UID = []byte("alice@example.cn")
							err = verify(vopts)
							if !errors.As(err, &se) || !se.Certificate.Equal(pki.signer.cert) {
								t.Fatalf("verifying with alice's identifier: %v", err)
							}
						}
					})
				}
			}
		}
	}
}

// TestSignDetachedStream signs a detached signature from a reader and
// checks that it equals in meaning the one over the bytes.
func TestSignDetachedStream(t *testing.T) {
	pki := newTestPKI(t)
	content := bytes.Repeat([]byte("0123456789abcdef"), 1<<12)
	for _, noAttrs := range []bool{false, true} {
		der, err := SignDetached(bytes.NewReader(content), []Signer{pki.signer.signer()}, &SignOptions{NoAttributes: noAttrs})
		must(t, err)
		m := parseOK(t, der)
		must(t, m.Signed.VerifyDetached(bytes.NewReader(content), pki.verifyOptions()))
		if err := m.Signed.VerifyDetached(bytes.NewReader(content[1:]), pki.verifyOptions()); err == nil {
			t.Error("altered detached content verified")
		}
	}
}

// opaqueSigner hides the *sm2.PrivateKey behind crypto.Signer, as an HSM
// does.
type opaqueSigner struct{ k *sm2.PrivateKey }

func (o opaqueSigner) Public() crypto.PublicKey { return o.k.Public() }
func (o opaqueSigner) Sign(r io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	return o.k.Sign(r, msg, opts)
}

type opaqueDecrypter struct{ k *sm2.PrivateKey }

func (o opaqueDecrypter) Public() crypto.PublicKey { return o.k.Public() }
func (o opaqueDecrypter) Decrypt(r io.Reader, msg []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	return o.k.Decrypt(r, msg, opts)
}

func TestCryptoSignerAndDecrypter(t *testing.T) {
	pki := newTestPKI(t)
	s := Signer{Certificate: pki.signer.cert, Key: opaqueSigner{pki.signer.key}}
	for _, opts := range []*SignOptions{nil, {NoAttributes: true}} {
		der, err := Sign([]byte("hsm"), []Signer{s}, opts)
		must(t, err)
		must(t, parseOK(t, der).Signed.Verify(pki.verifyOptions()))
	}
	if _, err := Sign([]byte("hsm"), []Signer{s}, &SignOptions{GmSSL: true}); err == nil {
		t.Error("GmSSL's form with an opaque signer")
	}
	if _, err := SignDetached(strings.NewReader("hsm"), []Signer{s}, &SignOptions{NoAttributes: true}); err == nil {
		t.Error("streaming without attributes with an opaque signer")
	}
	der, err := Encrypt([]byte("hsm"), []Recipient{{Certificate: pki.encLeaf.cert}}, nil)
	must(t, err)
	got, err := parseOK(t, der).Enveloped.Decrypt(pki.encLeaf.cert, opaqueDecrypter{pki.encLeaf.key})
	must(t, err)
	if string(got) != "hsm" {
		t.Errorf("got %q", got)
	}
}

func TestEncryptRoundTrip(t *testing.T) {
	pki := newTestPKI(t)
	for _, family := range []Family{GMT0010, PKCS7} {
		for _, c := range []Cipher{SM4CBC, SM4GCM} {
			for _, gmssl := range []bool{false, true} {
				for _, size := range []int{0, 1, 15, 16, 17, 1000} {
					name := fmt.Sprintf("%v/cipher=%d/gmssl=%v/%d", family, c, gmssl, size)
					t.Run(name, func(t *testing.T) {
						content := make([]byte, size)
						rand.Read(content)
						recipients := []Recipient{{Certificate: pki.encLeaf.cert}, {Certificate: pki.encLeaf2.cert, BySubjectKeyId: true}}
						opts := &EncryptOptions{Family: family, Cipher: c, GmSSL: gmssl}
						der, err := Encrypt(content, recipients, opts)
						must(t, err)
						m := parseOK(t, der)
						if m.Type != EnvelopedDataType || m.Family != family || len(m.Enveloped.Recipients) != 2 {
							t.Fatalf("got %v %v", m.Type, m.Family)
						}
						for _, p := range []party{pki.encLeaf, pki.encLeaf2} {
							got, err := m.Enveloped.Decrypt(p.cert, p.key)
							must(t, err)
							if !bytes.Equal(got, content) {
								t.Fatal("wrong content")
							}
						}
						if _, err := m.Enveloped.Decrypt(pki.signer.cert, pki.signer.key); !errors.Is(err, ErrNoRecipient) {
							t.Errorf("wrong recipient: %v", err)
						}
						// A recipient's certificate with another's key.
						if _, err := m.Enveloped.Decrypt(pki.encLeaf.cert, pki.encLeaf2.key); err == nil {
							t.Error("the wrong key decrypted")
						}

						key := make([]byte, 16)
						rand.Read(key)
						der, err = EncryptWithKey(content, key, opts)
						must(t, err)
						m = parseOK(t, der)
						got, err := m.Encrypted.Decrypt(key)
						must(t, err)
						if !bytes.Equal(got, content) {
							t.Fatal("EncryptedData: wrong content")
						}

						der, err = SignAndEncrypt(content, []Signer{pki.signer.signer()}, recipients, &SignOptions{GmSSL: gmssl}, opts)
						must(t, err)
						m = parseOK(t, der)
						if m.Type != SignedAndEnvelopedDataType || m.Family != family {
							t.Fatalf("got %v %v", m.Type, m.Family)
						}
						got, err = m.SignedAndEnveloped.Open(pki.encLeaf2.cert, pki.encLeaf2.key, pki.verifyOptions())
						must(t, err)
						if !bytes.Equal(got, content) {
							t.Fatal("SignedAndEnvelopedData: wrong content")
						}
						wrong := pki.verifyOptions()
						wrong.Roots = smx509.NewCertPool()
						wrong.Roots.AddCert(pki.otherRoot.cert)
						if _, err := m.SignedAndEnveloped.Open(pki.encLeaf2.cert, pki.encLeaf2.key, wrong); err == nil {
							t.Error("SignedAndEnvelopedData verified under the wrong root")
						}

						der, err = Digest(content, family)
						must(t, err)
						m = parseOK(t, der)
						must(t, m.Digested.Verify(nil))
					})
				}
			}
		}
	}
}

// TestC1C2C3 decrypts a recipient whose key was encrypted in the raw
// C1C2C3 and C1C3C2 forms that some writers use instead of ASN.1.
func TestRawKeyTransport(t *testing.T) {
	pki := newTestPKI(t)
	der, err := Encrypt([]byte("raw"), []Recipient{{Certificate: pki.encLeaf.cert}}, nil)
	must(t, err)
	m := parseOK(t, der)
	ri := m.Enveloped.Recipients[0]
	cek, err := sm2.DecryptASN1(pki.encLeaf.key, ri.EncryptedKey)
	must(t, err)
	for _, order := range []sm2.CiphertextOrder{sm2.C1C3C2, sm2.C1C2C3} {
		ri.EncryptedKey, err = sm2.Encrypt(rand.Reader, pki.encLeaf.cert.PublicKey.(*sm2.PublicKey), cek, &sm2.EncrypterOpts{Order: order})
		must(t, err)
		got, err := m.Enveloped.Decrypt(pki.encLeaf.cert, pki.encLeaf.key)
		must(t, err)
		if string(got) != "raw" {
			t.Errorf("order %d: got %q", order, got)
		}
	}
}

// TestVerifyFailures checks that each way a signature can be wrong is
// reported for the signer it concerns, with the right reason.
func TestVerifyFailures(t *testing.T) {
	pki := newTestPKI(t)
	content := []byte("the original content")
	sign := func(opts *SignOptions, signers ...party) *SignedData {
		t.Helper()
		if opts == nil {
			opts = &SignOptions{}
		}
		opts.Certificates = append(opts.Certificates, pki.inter.cert)
		var ss []Signer
		for _, p := range signers {
			ss = append(ss, p.signer())
		}
		der, err := Sign(content, ss, opts)
		must(t, err)
		return parseOK(t, der).Signed
	}
	// Signers are in DER order in the message, so the one that failed is
	// named by its certificate here.
	expectSigner := func(t *testing.T, err error, cert *smx509.Certificate, target error) {
		t.Helper()
		var se *SignerError
		if !errors.As(err, &se) {
			t.Fatalf("got %v, want a SignerError", err)
		}
		if cert != nil && !se.Certificate.Equal(cert) {
			t.Errorf("signer %d reported (%v), want %s", se.Index, err, cert.Subject.CommonName)
		}
		if target != nil && !errors.Is(err, target) {
			t.Errorf("got %v, want %v", err, target)
		}
	}

	expectIndex := func(t *testing.T, err error, index int, target error) {
		t.Helper()
		var se *SignerError
		if !errors.As(err, &se) || se.Index != index || !errors.Is(err, target) {
			t.Fatalf("got %v, want signer %d: %v", err, index, target)
		}
		if n := len(strings.Split(err.Error(), "\n")); n != 1 {
			t.Errorf("%d signers reported, want 1: %v", n, err)
		}
	}

	t.Run("altered content", func(t *testing.T) {
		for _, opts := range []*SignOptions{nil, {NoAttributes: true}, {GmSSL: true}} {
			sd := sign(opts, pki.signer)
			sd.Content = []byte("the altered content")
			err := sd.Verify(pki.verifyOptions())
			if opts == nil {
				expectSigner(t, err, pki.signer.cert, ErrDigestMismatch)
			} else {
				expectSigner(t, err, pki.signer.cert, ErrBadSignature)
			}
		}
	})
	t.Run("altered attribute", func(t *testing.T) {
		sd := sign(nil, pki.signer)
		si := sd.Signers[0]
		// Change a byte of the signing time inside the signed attributes.
		raw := bytes.Clone(si.rawSignedAttrs)
		i := bytes.Index(raw, []byte{0x17, 0x0d}) // UTCTime
		raw[i+3] ^= 1
		si.rawSignedAttrs = raw
		expectSigner(t, sd.Verify(pki.verifyOptions()), pki.signer.cert, ErrBadSignature)
	})
	t.Run("content type attribute", func(t *testing.T) {
		sd := sign(nil, pki.signer)
		sd.ContentType = OIDGMSignedData
		expectSigner(t, sd.Verify(pki.verifyOptions()), pki.signer.cert, ErrContentTypeMismatch)
	})
	t.Run("altered signature", func(t *testing.T) {
		sd := sign(nil, pki.signer, pki.signer2)
		sig := bytes.Clone(sd.Signers[1].Signature)
		sig[len(sig)-1] ^= 1
		sd.Signers[1].Signature = sig
		expectIndex(t, sd.Verify(pki.verifyOptions()), 1, ErrBadSignature)
	})
	t.Run("wrong signer", func(t *testing.T) {
		// The signature is by signer2's key, the certificate named is signer's.
		sd := sign(nil, pki.signer, pki.signer2)
		sd.Signers[0].Signature = sd.Signers[1].Signature
		expectIndex(t, sd.Verify(pki.verifyOptions()), 0, ErrBadSignature)
	})
	t.Run("signer not found", func(t *testing.T) {
		sd := sign(&SignOptions{NoCertificates: true}, pki.signer)
		expectIndex(t, sd.Verify(pki.verifyOptions()), 0, ErrSignerNotFound)
		opts := pki.verifyOptions()
		opts.Certificates = []*smx509.Certificate{pki.signer.cert}
		must(t, sd.Verify(opts))
	})
	t.Run("untrusted root", func(t *testing.T) {
		sd := sign(nil, pki.signer)
		opts := pki.verifyOptions()
		opts.Roots = smx509.NewCertPool()
		opts.Roots.AddCert(pki.otherRoot.cert)
		var ua smx509.UnknownAuthorityError
		err := sd.Verify(opts)
		expectSigner(t, err, pki.signer.cert, nil)
		if !errors.As(err, &ua) {
			t.Errorf("got %v, want UnknownAuthorityError", err)
		}
		opts.NoChainVerification = true
		must(t, sd.Verify(opts))
	})
	t.Run("expired", func(t *testing.T) {
		sd := sign(nil, pki.expired)
		var ci smx509.CertificateInvalidError
		err := sd.Verify(pki.verifyOptions())
		if !errors.As(err, &ci) || ci.Reason != smx509.Expired {
			t.Errorf("got %v, want Expired", err)
		}
		opts := pki.verifyOptions()
		opts.CurrentTime = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		must(t, sd.Verify(opts))
	})
	t.Run("key usage", func(t *testing.T) {
		sd := sign(nil, pki.noDigitalSignature)
		expectSigner(t, sd.Verify(pki.verifyOptions()), pki.noDigitalSignature.cert, ErrKeyUsage)
	})
	t.Run("extended key usage", func(t *testing.T) {
		sd := sign(nil, pki.signer)
		opts := pki.verifyOptions()
		opts.KeyUsages = []smx509.ExtKeyUsage{smx509.ExtKeyUsageCodeSigning}
		var ci smx509.CertificateInvalidError
		if err := sd.Verify(opts); !errors.As(err, &ci) || ci.Reason != smx509.IncompatibleUsage {
			t.Errorf("got %v, want IncompatibleUsage", err)
		}
		opts.KeyUsages = []smx509.ExtKeyUsage{smx509.ExtKeyUsageEmailProtection}
		must(t, sd.Verify(opts))
	})
	t.Run("strict Z", func(t *testing.T) {
		sd := sign(&SignOptions{NoAttributes: true, WithoutZ: true}, pki.signer)
		opts := pki.verifyOptions()
		must(t, sd.Verify(opts))
		opts.StrictZ = true
		expectSigner(t, sd.Verify(opts), pki.signer.cert, ErrBadSignature)
	})
	t.Run("no signers", func(t *testing.T) {
		sd := sign(nil, pki.signer)
		sd.Signers = nil
		if err := sd.Verify(pki.verifyOptions()); !errors.Is(err, ErrNoSigners) {
			t.Errorf("got %v", err)
		}
	})
}

// TestAlteredEnvelope checks that a changed ciphertext, key or IV is
// refused or at least never yields the original content.
func TestAlteredEnvelope(t *testing.T) {
	pki := newTestPKI(t)
	content := bytes.Repeat([]byte("x"), 100)
	for _, c := range []Cipher{SM4CBC, SM4GCM} {
		der, err := Encrypt(content, []Recipient{{Certificate: pki.encLeaf.cert}}, &EncryptOptions{Cipher: c})
		must(t, err)
		m := parseOK(t, der)
		ed := m.Enveloped
		ct := ed.EncryptedContent.Ciphertext
		ed.EncryptedContent.Ciphertext = append(bytes.Clone(ct[:len(ct)-1]), ct[len(ct)-1]^1)
		if got, err := ed.Decrypt(pki.encLeaf.cert, pki.encLeaf.key); err == nil && bytes.Equal(got, content) {
			t.Errorf("cipher %d: altered ciphertext decrypted to the content", c)
		} else if c == SM4GCM && !errors.Is(err, ErrDecryption) {
			t.Errorf("GCM: altered ciphertext: %v", err)
		}
		ed.EncryptedContent.Ciphertext = ct
		ek := ed.Recipients[0].EncryptedKey
		ed.Recipients[0].EncryptedKey = append(bytes.Clone(ek[:len(ek)-1]), ek[len(ek)-1]^1)
		if _, err := ed.Decrypt(pki.encLeaf.cert, pki.encLeaf.key); !errors.Is(err, sm2.ErrDecryption) {
			t.Errorf("altered encrypted key: %v", err)
		}
	}
}

// TestTruncated parses every prefix of a message of each type.
func TestTruncated(t *testing.T) {
	pki := newTestPKI(t)
	content := []byte("truncate me")
	var msgs [][]byte
	add := func(der []byte, err error) {
		must(t, err)
		msgs = append(msgs, der)
	}
	add(Sign(content, []Signer{pki.signer.signer()}, nil))
	add(Encrypt(content, []Recipient{{Certificate: pki.encLeaf.cert}}, nil))
	add(SignAndEncrypt(content, []Signer{pki.signer.signer()}, []Recipient{{Certificate: pki.encLeaf.cert}}, nil, nil))
	add(EncryptWithKey(content, make([]byte, 16), nil))
	add(Digest(content, PKCS7))
	for _, der := range msgs {
		for n := range len(der) {
			if _, err := Parse(der[:n]); err == nil {
				t.Fatalf("a %d-byte prefix of a %d-byte message parsed", n, len(der))
			}
		}
		if _, err := Parse(append(bytes.Clone(der), 0)); err == nil {
			t.Error("trailing byte accepted")
		}
	}
}

// TestCounterSignature builds a signer info with a counter-signature and
// checks that it is parsed and verifies.
func TestCounterSignature(t *testing.T) {
	pki := newTestPKI(t)
	content := []byte("countersigned")
	der, err := Sign(content, []Signer{pki.signer.signer()}, nil)
	must(t, err)
	sd := parseOK(t, der).Signed
	parent := sd.Signers[0]

	// The counter-signature: signed attributes with the digest of the
	// parent's signature and no content type (RFC 5652, 11.4).
	digest := sm3Sum(parent.Signature)
	attrs := counterAttributes(digest)
	sig, err := sm2.SignASN1(rand.Reader, pki.signer2.key, attrs, nil)
	must(t, err)
	cs := signerInfo(pki.signer2.signer(), x509.OIDSM2Signing, attrs, sig, nil)
	unsigned := attributeWithTag(OIDAttributeCounterSignature, cs)
	si := signerInfo(pki.signer.signer(), x509.OIDSignatureSM2WithSM3, attrsOf(parent), parent.Signature, unsigned)
	msg := rebuildSignedData(t, sd, pki, si)

	m := parseOK(t, msg)
	got := m.Signed.Signers[0]
	if len(got.CounterSignatures) != 1 {
		t.Fatalf("%d counter-signatures", len(got.CounterSignatures))
	}
	must(t, m.Signed.Verify(pki.verifyOptions()))
	must(t, got.VerifyCounterSignature(got.CounterSignatures[0], pki.signer2.cert, nil))
	if err := got.VerifyCounterSignature(got.CounterSignatures[0], pki.signer.cert, nil); err == nil {
		t.Error("counter-signature verified for the wrong certificate")
	}
	got.Signature = bytes.Clone(got.Signature)
	got.Signature[5] ^= 1
	if err := got.VerifyCounterSignature(got.CounterSignatures[0], pki.signer2.cert, nil); !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("counter-signature over an altered signature: %v", err)
	}
}

// TestSignAndEncryptSigners seals for two recipients with two signers, one
// with its own identifier, and checks each signer is verified.
func TestSignAndEncryptSigners(t *testing.T) {
	pki := newTestPKI(t)
	content := []byte("sealed by two")
	signers := []Signer{pki.signer2.signer(), pki.signer.signer()}
	signers[0].UID = []byte("bob")
	for _, family := range []Family{GMT0010, PKCS7} {
		der, err := SignAndEncrypt(content, signers, []Recipient{{Certificate: pki.encLeaf.cert}, {Certificate: pki.encLeaf2.cert}},
			&SignOptions{Certificates: []*smx509.Certificate{pki.inter.cert}}, &EncryptOptions{Family: family})
		must(t, err)
		m := parseOK(t, der)
		sed := m.SignedAndEnveloped
		if len(sed.Signers) != 2 || len(sed.Recipients) != 2 || len(sed.Certificates) != 3 {
			t.Fatalf("%d signers, %d recipients, %d certificates", len(sed.Signers), len(sed.Recipients), len(sed.Certificates))
		}
		opts := pki.verifyOptions()
		_, err = sed.Open(pki.encLeaf.cert, pki.encLeaf.key, opts)
		var se *SignerError
		if !errors.As(err, &se) || !se.Certificate.Equal(pki.signer2.cert) {
			t.Fatalf("bob's signer with the default identifier: %v", err)
		}
		opts.UID = []byte("bob")
		_, err = sed.Open(pki.encLeaf2.cert, pki.encLeaf2.key, opts)
		if !errors.As(err, &se) || !se.Certificate.Equal(pki.signer.cert) {
			t.Fatalf("the default signer with bob's identifier: %v", err)
		}
		signers[0].UID = nil
		der, err = SignAndEncrypt(content, signers, []Recipient{{Certificate: pki.encLeaf.cert}}, nil, &EncryptOptions{Family: family})
		must(t, err)
		opts.UID = nil
		got, err := parseOK(t, der).SignedAndEnveloped.Open(nil, pki.encLeaf.key, opts)
		must(t, err)
		if !bytes.Equal(got, content) {
			t.Error("wrong content")
		}
		signers[0].UID = []byte("bob")
	}
}

func TestEmptyContent(t *testing.T) {
	pki := newTestPKI(t)
	for _, opts := range []*SignOptions{nil, {NoAttributes: true}, {GmSSL: true}} {
		der, err := Sign(nil, []Signer{pki.signer.signer()}, opts)
		must(t, err)
		m := parseOK(t, der)
		if m.Signed.Detached || len(m.Signed.Content) != 0 {
			t.Fatalf("detached %v, %d bytes", m.Signed.Detached, len(m.Signed.Content))
		}
		must(t, m.Signed.Verify(pki.verifyOptions()))
	}
	der, err := Encrypt(nil, []Recipient{{Certificate: pki.encLeaf.cert}}, nil)
	must(t, err)
	got, err := parseOK(t, der).Enveloped.Decrypt(pki.encLeaf.cert, pki.encLeaf.key)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("got %q", got)
	}
}
