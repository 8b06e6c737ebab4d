// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
)

const password = "shangmi"

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readCert(t testing.TB, name string) *smx509.Certificate {
	t.Helper()
	c, err := smx509.ParseCertificatePEM(readFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readKey(t testing.TB, name string) crypto.Signer {
	t.Helper()
	k, err := x509.ParsePrivateKeyPEM(readFile(t, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestRecordedFiles reads every file made by Tongsuo, OpenSSL and gmsm
// (testdata/make.sh) and checks that it gives back the key and the chain
// they were made from.
func TestRecordedFiles(t *testing.T) {
	signKey := readKey(t, "sign.key")
	signCert, caCert := readCert(t, "sign.pem"), readCert(t, "ca.pem")
	for _, tc := range []struct {
		file   string
		withCA bool
		info   string
	}{
		{"tongsuo_default.p12", true, "AES-256-CBC"},
		{"tongsuo_sm4_sm3.p12", true, "HMAC-SM3"},
		{"tongsuo_legacy.p12", true, "pbeWithSHA1And3-KeyTripleDES-CBC"},
		{"openssl_legacy_rc2.p12", true, "pbeWithSHA1And40BitRC2-CBC"},
		{"tongsuo_nomac.p12", false, "MAC: absent"},
		{"cfca_sign.sm2", false, "CFCA"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := readFile(t, tc.file)
			key, cert, ca, err := DecodeChain(data, password)
			if err != nil {
				t.Fatal(err)
			}
			if !signKey.(*sm2.PrivateKey).Equal(key) || !cert.Equal(signCert) {
				t.Fatal("wrong key or certificate")
			}
			if tc.withCA != (len(ca) == 1 && ca[0].Equal(caCert)) {
				t.Fatalf("CA certificates %v", ca)
			}
			c, err := Parse(data, password)
			if err != nil {
				t.Fatal(err)
			}
			if info := strings.Join(c.Info, "\n"); !strings.Contains(info, tc.info) {
				t.Errorf("Info %q lacks %q", info, tc.info)
			}
			if !tc.withCA {
				if _, _, err := Decode(data, password); err != nil {
					t.Errorf("Decode: %v", err)
				}
			} else if _, _, err := Decode(data, password); err == nil {
				t.Error("Decode accepted a file with a CA certificate")
			}
			if _, err := Parse(data, "wrong"); !errors.Is(err, ErrIncorrectPassword) {
				t.Errorf("wrong password: %v", err)
			}
		})
	}
	// Tongsuo writes friendlyName and localKeyId on the key and its
	// certificate.
	c, err := Parse(readFile(t, "tongsuo_sm4_sm3.p12"), password)
	if err != nil {
		t.Fatal(err)
	}
	if c.Keys[0].FriendlyName != "sign" || len(c.Keys[0].LocalKeyID) != 20 {
		t.Errorf("key attributes %q %x", c.Keys[0].FriendlyName, c.Keys[0].LocalKeyID)
	}
}

// testPKI makes a CA and TLCP sign/enc certificates for the round trips.
type testPKI struct {
	ca                *smx509.Certificate
	signKey, encKey   *sm2.PrivateKey
	signCert, encCert *smx509.Certificate
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	caKey, _ := sm2.GenerateKey(rand.Reader)
	tmpl := &smx509.Certificate{
		SerialNumber: big.NewInt(1), Subject: nameOf("test CA"),
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: smx509.KeyUsageCertSign,
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, tmpl, caKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	p := &testPKI{}
	p.ca, _ = smx509.ParseCertificate(der)
	issue := func(cn string, ku smx509.KeyUsage) (*sm2.PrivateKey, *smx509.Certificate) {
		k, _ := sm2.GenerateKey(rand.Reader)
		tm := &smx509.Certificate{
			SerialNumber: big.NewInt(int64(len(cn))), Subject: nameOf(cn),
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: ku,
		}
		der, err := smx509.CreateCertificate(rand.Reader, tm, p.ca, k.Public(), caKey)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := smx509.ParseCertificate(der)
		return k, c
	}
	p.signKey, p.signCert = issue("sign", smx509.KeyUsageDigitalSignature)
	p.encKey, p.encCert = issue("encrypt", smx509.KeyUsageKeyEncipherment|smx509.KeyUsageDataEncipherment)
	return p
}

func TestRoundTripEveryOption(t *testing.T) {
	p := newTestPKI(t)
	type enc struct {
		name string
		e    Encoder
	}
	var encs []enc
	for _, base := range []enc{{"SM", SM}, {"Modern", Modern}, {"TongsuoSM", TongsuoSM}, {"zero", Encoder{}}} {
		encs = append(encs, base)
		for _, m := range []MACAlgorithm{MACSM3, MACSHA256, MACSHA1} {
			e := base.e
			e.MAC = m
			encs = append(encs, enc{base.name + "/mac", e})
		}
		e := base.e
		e.PlainCertificates = true
		encs = append(encs, enc{base.name + "/plaincerts", e})
		e = base.e
		e.NoMAC = true
		encs = append(encs, enc{base.name + "/nomac", e})
		encs = append(encs, enc{base.name + "/iter", base.e.WithIterations(3)})
		e = base.e
		e.MACSaltSize, e.KeyEncryption.SaltSize = 32, 8
		encs = append(encs, enc{base.name + "/salts", e})
	}
	for _, c := range []x509.PBES2Cipher{x509.SM4CBC, x509.AES128CBC, x509.AES192CBC, x509.AES256CBC} {
		for _, prf := range []x509.PBKDF2PRF{x509.HMACWithSM3, x509.HMACWithSM3Tongsuo, x509.HMACWithSHA256, x509.HMACWithSHA384, x509.HMACWithSHA512} {
			o := x509.PBES2Options{Cipher: c, PRF: prf, Iterations: 2}
			encs = append(encs, enc{"pbes2", Encoder{KeyEncryption: o, CertEncryption: o}})
		}
	}
	for _, tc := range encs {
		pfx, err := tc.e.WithFriendlyName("my key").Encode(p.signKey, p.signCert, []*smx509.Certificate{p.ca}, "pässwörd")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		key, cert, ca, err := DecodeChain(pfx, "pässwörd")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !p.signKey.Equal(key) || !cert.Equal(p.signCert) || len(ca) != 1 || !ca[0].Equal(p.ca) {
			t.Fatalf("%s: wrong contents", tc.name)
		}
		c, _ := Parse(pfx, "pässwörd")
		if c.Keys[0].FriendlyName != "my key" || c.Certificates[0].FriendlyName != "my key" ||
			!bytes.Equal(c.Keys[0].LocalKeyID, c.Certificates[0].LocalKeyID) || c.Keys[0].LocalKeyID == nil {
			t.Errorf("%s: attributes %+v", tc.name, c.Keys[0])
		}
		_, err = Parse(pfx, "wrong")
		if tc.e.NoMAC {
			// Without a MAC a wrong password shows up when the key
			// does not decrypt (padding or structure).
			if err == nil {
				t.Errorf("%s: a wrong password was accepted", tc.name)
			}
		} else if !errors.Is(err, ErrIncorrectPassword) {
			t.Errorf("%s: wrong password: %v", tc.name, err)
		}
	}
}

func TestRoundTripOtherKeys(t *testing.T) {
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &smx509.Certificate{SerialNumber: big.NewInt(9), Subject: nameOf("p256"),
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, tmpl, ecKey.Public(), ecKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := smx509.ParseCertificate(der)
	pfx, err := Encode(rand.Reader, ecKey, cert, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	key, c2, err := Decode(pfx, "")
	if err != nil || !ecKey.Equal(key) || !c2.Equal(cert) {
		t.Fatalf("P-256 with an empty password: %v", err)
	}
}

func TestTLCPPair(t *testing.T) {
	p := newTestPKI(t)
	pair := &TLCPPair{SignKey: p.signKey, SignCert: p.signCert, EncKey: p.encKey, EncCert: p.encCert, CACerts: []*smx509.Certificate{p.ca}}
	for _, e := range []Encoder{SM, Modern, TongsuoSM} {
		pfx, err := e.EncodeTLCP(pair, password)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeTLCP(pfx, password)
		if err != nil {
			t.Fatal(err)
		}
		if !p.signKey.Equal(got.SignKey) || !p.encKey.Equal(got.EncKey) || !got.SignCert.Equal(p.signCert) ||
			!got.EncCert.Equal(p.encCert) || len(got.CACerts) != 1 {
			t.Fatal("wrong pair")
		}
		if _, _, _, err := DecodeChain(pfx, password); err == nil {
			t.Error("DecodeChain accepted two keys")
		}
	}
	// Keys written in the other order, and roles only in the friendlyNames.
	pfx, err := SM.EncodeEntries([]Key{{p.encKey, "enc", nil}, {p.signKey, "sign", nil}},
		[]Certificate{{Certificate: p.encCert}, {Certificate: p.signCert}}, password)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeTLCP(pfx, password)
	if err != nil || !p.signKey.Equal(got.SignKey) {
		t.Fatalf("reversed order: %v", err)
	}
	// Mismatches.
	bad := *pair
	bad.EncKey = p.signKey
	if _, err := SM.EncodeTLCP(&bad, password); err == nil {
		t.Error("EncodeTLCP accepted an encryption key that is not the certificate's")
	}
	pfx, _ = SM.EncodeEntries([]Key{{Key: p.signKey}, {Key: p.encKey}}, []Certificate{{Certificate: p.signCert}}, password)
	if _, err := DecodeTLCP(pfx, password); err == nil {
		t.Error("DecodeTLCP accepted a key without its certificate")
	}
}

func TestKeyNotMatchingCertificate(t *testing.T) {
	p := newTestPKI(t)
	if _, err := SM.Encode(p.encKey, p.signCert, nil, password); err == nil {
		t.Error("Encode accepted a key that is not the certificate's")
	}
	pfx, err := SM.EncodeEntries([]Key{{Key: p.encKey}}, []Certificate{{Certificate: p.signCert}}, password)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := DecodeChain(pfx, password); err == nil || !strings.Contains(err.Error(), "matches") {
		t.Errorf("DecodeChain of a key without its certificate: %v", err)
	}
	// CFCA: a file whose key is not its certificate's.
	cf, err := EncodeCFCA(p.signKey, p.signCert, password)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EncodeCFCA(p.encKey, p.signCert, password); err == nil {
		t.Error("EncodeCFCA accepted a mismatched key")
	}
	swapped := bytes.Replace(cf, p.signCert.Raw, p.encCert.Raw, 1)
	if _, _, err := Decode(swapped, password); err == nil {
		t.Error("a CFCA file with another certificate was accepted")
	}
	key, cert, err := Decode(cf, password)
	if err != nil || !p.signKey.Equal(key) || !cert.Equal(p.signCert) {
		t.Fatalf("CFCA round trip: %v", err)
	}
}

// TestCFCAMatchesGmsm: our CFCA writer produces gmsm's bytes (the format
// has no randomness).
func TestCFCAMatchesGmsm(t *testing.T) {
	want := readFile(t, "cfca_sign.sm2")
	got, err := EncodeCFCA(readKey(t, "sign.key").(*sm2.PrivateKey), readCert(t, "sign.pem"), password)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("EncodeCFCA differs from gmsm's cfca.MarshalSM2: %v", err)
	}
	if _, _, err := Decode(want, "wrong"); err == nil {
		t.Error("wrong CFCA password accepted")
	}
	if _, _, err := Decode(want, ""); err == nil {
		t.Error("empty CFCA password accepted")
	}
}

func TestWrongMAC(t *testing.T) {
	p := newTestPKI(t)
	pfx, err := SM.Encode(p.signKey, p.signCert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	// The MAC digest is the first OCTET STRING of 32 bytes after the SM3
	// identifier near the end; flip its last byte.
	i := bytes.LastIndex(pfx, []byte{0x04, 0x20})
	bad := bytes.Clone(pfx)
	bad[i+2+31] ^= 1
	if _, err := Parse(bad, password); !errors.Is(err, ErrIncorrectPassword) {
		t.Errorf("corrupt MAC: %v", err)
	}
	// Corrupt content under a good MAC key: the MAC catches it.
	bad = bytes.Clone(pfx)
	bad[len(pfx)/2] ^= 1
	if _, err := Parse(bad, password); err == nil {
		t.Error("corrupt content accepted")
	}
}

func TestTruncated(t *testing.T) {
	for _, name := range []string{"tongsuo_sm4_sm3.p12", "tongsuo_legacy.p12", "cfca_sign.sm2", "tongsuo_nomac.p12"} {
		data := readFile(t, name)
		for n := range len(data) {
			if _, err := Parse(data[:n], password); err == nil {
				t.Fatalf("%s truncated to %d bytes was accepted", name, n)
			}
		}
		if _, err := Parse(append(bytes.Clone(data), 0), password); err == nil {
			t.Errorf("%s with a trailing byte was accepted", name)
		}
	}
}

func TestBounds(t *testing.T) {
	p := newTestPKI(t)
	many := make([]Certificate, maxBags+1)
	for i := range many {
		many[i] = Certificate{Certificate: p.ca}
	}
	if _, err := SM.EncodeEntries(nil, many, password); err == nil {
		t.Error("EncodeEntries wrote more bags than a reader accepts")
	}
	if _, err := SM.WithIterations(maxMACIterations+1).Encode(p.signKey, p.signCert, nil, password); err == nil {
		t.Error("an unreasonable iteration count was written")
	}
	if _, err := (Encoder{MAC: macSHA512}).Encode(p.signKey, p.signCert, nil, password); err == nil {
		t.Error("a read-only MAC was written")
	}
}

func nameOf(cn string) pkix.Name { return pkix.Name{CommonName: cn} }
