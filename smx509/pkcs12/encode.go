// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/sha1"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"

	"github.com/shangmi-go/shangmi/internal/pkcs12kdf"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// MACAlgorithm names the hash of a PFX file's HMAC.
type MACAlgorithm int

const (
	MACSM3    MACAlgorithm = iota // Tongsuo's -macalg SM3
	MACSHA256                     // OpenSSL 3's default
	MACSHA1                       // what OpenSSL 1.x wrote; for old readers

	// Read, never written.
	macSHA224
	macSHA384
	macSHA512
)

// DefaultIterations is the PBKDF2 and MAC iteration count of OpenSSL's and
// Tongsuo's pkcs12 command, used when an Encoder sets none.
const DefaultIterations = 2048

// An Encoder writes PFX files. The zero value is SM. Encoders are values:
// the With methods return a modified copy.
type Encoder struct {
	// KeyEncryption is the PBES2 scheme of the shrouded key bags. Its
	// Iterations, if zero, is the Encoder's Iterations.
	KeyEncryption x509.PBES2Options
	// CertEncryption is the PBES2 scheme of the certificates'
	// EncryptedData, unless PlainCertificates.
	CertEncryption x509.PBES2Options
	// PlainCertificates puts the certificates in plain Data, as
	// `openssl pkcs12 -certpbe NONE`.
	PlainCertificates bool
	MAC               MACAlgorithm
	// NoMAC leaves the MAC out, as `openssl pkcs12 -nomac`: the file's
	// integrity is then not checked by readers.
	NoMAC bool
	// Iterations is the MAC's iteration count and the PBKDF2 count of the
	// schemes that set none; zero means DefaultIterations.
	Iterations int
	// MACSaltSize is the MAC salt's size in bytes; zero means 8 (as
	// OpenSSL).
	MACSaltSize int
	// Rand is the source of salts and IVs; nil means crypto/rand.
	Rand io.Reader
	// FriendlyName, if set, is written on the key and its certificate by
	// Encode.
	FriendlyName string
}

var (
	// SM protects keys and certificates with PBES2 (PBKDF2-HMAC-SM3 in the
	// form Tongsuo reads, SM4-CBC) and the file with an SM3 MAC. Tongsuo
	// reads it (`tongsuo pkcs12 -in`); OpenSSL 3.0 does not know SM4-CBC
	// under PBES2 nor the SM3 PRF.
	SM = Encoder{
		KeyEncryption:  *x509.PBES2OptionsForTongsuo(),
		CertEncryption: *x509.PBES2OptionsForTongsuo(),
		MAC:            MACSM3,
	}
	// Modern is OpenSSL 3's default: PBES2 with PBKDF2-HMAC-SHA256 and
	// AES-256-CBC, a SHA-256 MAC. OpenSSL 3, Tongsuo, Go's go-pkcs12 and
	// most other readers read it.
	Modern = Encoder{
		KeyEncryption:  *x509.PBES2OptionsForOpenSSL(),
		CertEncryption: *x509.PBES2OptionsForOpenSSL(),
		MAC:            MACSHA256,
	}
	// TongsuoSM is what `tongsuo pkcs12 -export -keypbe SM4-CBC -certpbe
	// SM4-CBC -macalg SM3` writes: SM4-CBC under PBKDF2-HMAC-SHA256 (the
	// PRF OpenSSL's pkcs12 command always uses), an SM3 MAC.
	TongsuoSM = Encoder{
		KeyEncryption:  x509.PBES2Options{Cipher: x509.SM4CBC, PRF: x509.HMACWithSHA256},
		CertEncryption: x509.PBES2Options{Cipher: x509.SM4CBC, PRF: x509.HMACWithSHA256},
		MAC:            MACSM3,
	}
)

// WithIterations returns a copy of e with n iterations for the MAC and for
// both PBES2 schemes.
func (e Encoder) WithIterations(n int) Encoder {
	e.Iterations = n
	e.KeyEncryption.Iterations = n
	e.CertEncryption.Iterations = n
	return e
}

// WithRand returns a copy of e that draws salts and IVs from r.
func (e Encoder) WithRand(r io.Reader) Encoder {
	e.Rand = r
	return e
}

// WithFriendlyName returns a copy of e that names the key and its
// certificate.
func (e Encoder) WithFriendlyName(name string) Encoder {
	e.FriendlyName = name
	return e
}

// Encode writes privateKey (which must be the private key of certificate),
// certificate and caCerts with the SM encoder and randomness from rand, as
// go-pkcs12's Encode does with its own default.
func Encode(rand io.Reader, privateKey crypto.PrivateKey, certificate *smx509.Certificate, caCerts []*smx509.Certificate, password string) ([]byte, error) {
	return SM.WithRand(rand).Encode(privateKey, certificate, caCerts, password)
}

// Encode writes privateKey, its certificate and caCerts.
func (e Encoder) Encode(privateKey crypto.PrivateKey, certificate *smx509.Certificate, caCerts []*smx509.Certificate, password string) ([]byte, error) {
	name := e.FriendlyName
	if privateKey == nil || certificate == nil {
		return nil, errors.New("pkcs12: Encode needs a private key and its certificate")
	}
	if !KeyMatchesCertificate(privateKey, certificate) {
		return nil, errors.New("pkcs12: the private key does not match the certificate")
	}
	return e.EncodeEntries([]Key{{privateKey, name, nil}}, append([]Certificate{{certificate, name, nil}}, certs(caCerts)...), password)
}

// EncodeTLCP writes a TLCP pair: two shrouded keys, each with the
// friendlyName "sign" or "enc" and the localKeyId of its certificate, the
// two certificates, and the chain.
func (e Encoder) EncodeTLCP(p *TLCPPair, password string) ([]byte, error) {
	if p == nil || !KeyMatchesCertificate(p.SignKey, p.SignCert) {
		return nil, errors.New("pkcs12: the signing key does not match the signing certificate")
	}
	if !KeyMatchesCertificate(p.EncKey, p.EncCert) {
		return nil, errors.New("pkcs12: the encryption key does not match the encryption certificate")
	}
	return e.EncodeEntries(
		[]Key{{p.SignKey, "sign", nil}, {p.EncKey, "enc", nil}},
		append([]Certificate{{p.SignCert, "sign", nil}, {p.EncCert, "enc", nil}}, certs(p.CACerts)...),
		password)
}

func certs(cs []*smx509.Certificate) []Certificate {
	out := make([]Certificate, len(cs))
	for i, c := range cs {
		out[i] = Certificate{Certificate: c}
	}
	return out
}

// EncodeEntries writes any keys and certificates (either may be empty, as
// `openssl pkcs12 -nokeys` or -nocerts). A key without a LocalKeyID gets
// the SHA-1 of the certificate it matches, as does that certificate.
func (e Encoder) EncodeEntries(keys []Key, certificates []Certificate, password string) ([]byte, error) {
	if len(keys)+len(certificates) > maxBags {
		return nil, fmt.Errorf("pkcs12: more than %d bags", maxBags)
	}
	r := e.Rand
	if r == nil {
		r = rand.Reader
	}
	iter := e.Iterations
	if iter == 0 {
		iter = DefaultIterations
	}
	keyOpts, certOpts := e.KeyEncryption, e.CertEncryption
	if keyOpts.Iterations == 0 {
		keyOpts.Iterations = iter
	}
	if certOpts.Iterations == 0 {
		certOpts.Iterations = iter
	}
	pw := []byte(password)

	keyIDs := make([][]byte, len(keys))
	certIDs := make([][]byte, len(certificates))
	for i, c := range certificates {
		certIDs[i] = c.LocalKeyID
	}
	for k, key := range keys {
		keyIDs[k] = key.LocalKeyID
		for i, c := range certificates {
			if KeyMatchesCertificate(key.Key, c.Certificate) {
				id := sha1.Sum(c.Certificate.Raw)
				if keyIDs[k] == nil {
					keyIDs[k] = id[:]
				}
				if certIDs[i] == nil {
					certIDs[i] = keyIDs[k]
				}
				break
			}
		}
	}

	var certSafe cryptobyte.Builder
	certSafe.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		for i, c := range certificates {
			addBag(b, oidCertBag, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(oidCertTypeX509)
					b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
						b.AddASN1OctetString(c.Certificate.Raw)
					})
				})
			}, c.FriendlyName, certIDs[i])
		}
	})
	var keySafe cryptobyte.Builder
	var keyErr error
	keySafe.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		for k, key := range keys {
			epki, err := x509.MarshalPKCS8PrivateKeyWithPassword(r, key.Key, pw, &keyOpts)
			if err != nil {
				keyErr = err
				return
			}
			addBag(b, oidShroudedKeyBag, func(b *cryptobyte.Builder) { b.AddBytes(epki) }, key.FriendlyName, keyIDs[k])
		}
	})
	if keyErr != nil {
		return nil, keyErr
	}

	var safes cryptobyte.Builder
	var err error
	safes.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		if len(certificates) > 0 {
			cs, e1 := certSafe.Bytes()
			if e1 != nil {
				err = e1
				return
			}
			if e.PlainCertificates {
				addData(b, cs)
			} else if err = addEncryptedData(b, r, cs, pw, &certOpts); err != nil {
				return
			}
		}
		if len(keys) > 0 {
			ks, e1 := keySafe.Bytes()
			if e1 != nil {
				err = e1
				return
			}
			addData(b, ks)
		}
	})
	if err != nil {
		return nil, err
	}
	authSafe, err := safes.Bytes()
	if err != nil {
		return nil, err
	}

	var macData []byte
	if !e.NoMAC {
		if macData, err = e.mac(r, authSafe, pw, iter); err != nil {
			return nil, err
		}
	}
	var pfx cryptobyte.Builder
	pfx.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(3)
		addData(b, authSafe)
		b.AddBytes(macData)
	})
	return pfx.Bytes()
}

func (e Encoder) mac(r io.Reader, content, password []byte, iterations int) ([]byte, error) {
	var d *macDigest
	for i := range macDigests {
		if macDigests[i].alg == e.MAC && e.MAC <= MACSHA1 {
			d = &macDigests[i]
		}
	}
	if d == nil {
		return nil, errors.New("pkcs12: unknown or read-only MAC algorithm")
	}
	saltSize := e.MACSaltSize
	if saltSize == 0 {
		saltSize = 8
	}
	if saltSize < 8 || saltSize > 64 || iterations < 1 || iterations > maxMACIterations {
		return nil, errors.New("pkcs12: unreasonable MAC salt size or iteration count")
	}
	salt := make([]byte, saltSize)
	if _, err := io.ReadFull(r, salt); err != nil {
		return nil, err
	}
	bmp, err := pkcs12kdf.BMPPassword(password)
	if err != nil {
		return nil, err
	}
	sum := computeMAC(d, bmp, salt, iterations, content)
	clear(bmp)
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(d.oid)
				b.AddASN1NULL()
			})
			b.AddASN1OctetString(sum)
		})
		b.AddASN1OctetString(salt)
		b.AddASN1Int64(int64(iterations))
	})
	return b.Bytes()
}

func addData(b *cryptobyte.Builder, content []byte) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(oidData)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1OctetString(content)
		})
	})
}

func addEncryptedData(b *cryptobyte.Builder, r io.Reader, content, password []byte, opts *x509.PBES2Options) error {
	alg, ct, err := x509.EncryptWithPassword(r, content, password, opts)
	if err != nil {
		return err
	}
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(oidEncryptedData)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1Int64(0)
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(oidData)
					b.AddBytes(alg)
					b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(b *cryptobyte.Builder) {
						b.AddBytes(ct)
					})
				})
			})
		})
	})
	return nil
}

func addBag(b *cryptobyte.Builder, id asn1.ObjectIdentifier, value func(*cryptobyte.Builder), name string, keyID []byte) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(id)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), value)
		if name == "" && keyID == nil {
			return
		}
		var attrs [][]byte
		if name != "" {
			var a cryptobyte.Builder
			a.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(oidFriendlyName)
				b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.Tag(30), func(b *cryptobyte.Builder) {
						for _, u := range utf16.Encode([]rune(name)) {
							b.AddUint16(u)
						}
					})
				})
			})
			attrs = append(attrs, a.BytesOrPanic())
		}
		if keyID != nil {
			var a cryptobyte.Builder
			a.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(oidLocalKeyID)
				b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {
					b.AddASN1OctetString(keyID)
				})
			})
			attrs = append(attrs, a.BytesOrPanic())
		}
		// DER orders the elements of a SET OF by their encodings.
		if len(attrs) == 2 && bytes.Compare(attrs[0], attrs[1]) > 0 {
			attrs[0], attrs[1] = attrs[1], attrs[0]
		}
		b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {
			for _, a := range attrs {
				b.AddBytes(a)
			}
		})
	})
}
