package smx509

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// TestRoundTripEveryKeyType issues root → intermediate → leaf for every
// combination of issuer and subject key type, parses the results back and
// verifies the chain.
func TestRoundTripEveryKeyType(t *testing.T) {
	for _, caKind := range allKinds {
		for _, leafKind := range allKinds {
			t.Run(string(caKind)+"/"+string(leafKind), func(t *testing.T) {
				rootKey := testKey(t, caKind, "root")
				interKey := testKey(t, caKind, "inter")
				leafKey := testKey(t, leafKind, "leaf")

				rootT := caTemplate("Root " + string(caKind))
				root := issue(t, rootT, rootT, rootKey.Public(), rootKey)
				inter := issue(t, caTemplate("Intermediate "+string(caKind)), root, interKey.Public(), rootKey)
				lt := leafTemplate("leaf", KeyUsageDigitalSignature)
				leaf := issue(t, lt, inter, leafKey.Public(), interKey)

				if got, want := leaf.PublicKeyAlgorithm.String(), map[keyKind]string{kindSM2: "SM2", kindECDSA: "ECDSA", kindRSA: "RSA", kindEd25519: "Ed25519"}[leafKind]; got != want {
					t.Errorf("PublicKeyAlgorithm = %s, want %s", got, want)
				}
				if caKind == kindSM2 && leaf.SignatureAlgorithm != SM2WithSM3 {
					t.Errorf("SignatureAlgorithm = %v", leaf.SignatureAlgorithm)
				}
				must(t, leaf.CheckSignatureFrom(inter))
				must(t, inter.CheckSignatureFrom(root))
				must(t, root.CheckSignatureFrom(root))

				roots := NewCertPool()
				roots.AddCert(root)
				inters := NewCertPool()
				inters.AddCert(inter)
				chains, err := leaf.Verify(VerifyOptions{Roots: roots, Intermediates: inters, CurrentTime: testTime, DNSName: "localhost"})
				must(t, err)
				if len(chains) != 1 || len(chains[0]) != 3 || !chains[0][2].Equal(root) {
					t.Fatalf("unexpected chains %v", chains)
				}

				// Fields survive the trip.
				if leaf.Subject.CommonName != "leaf" || !reflect.DeepEqual(leaf.DNSNames, lt.DNSNames) ||
					len(leaf.IPAddresses) != 2 || leaf.KeyUsage != KeyUsageDigitalSignature ||
					!reflect.DeepEqual(leaf.ExtKeyUsage, lt.ExtKeyUsage) || leaf.IsCA ||
					!leaf.NotBefore.Equal(lt.NotBefore) || !leaf.NotAfter.Equal(lt.NotAfter) ||
					leaf.SerialNumber.Cmp(lt.SerialNumber) != 0 || len(leaf.AuthorityKeyId) == 0 ||
					string(leaf.AuthorityKeyId) != string(inter.SubjectKeyId) {
					t.Errorf("fields did not round-trip: %+v", leaf)
				}
				if leafKind != kindSM2 && caKind != kindSM2 {
					xc, err := leaf.ToX509()
					must(t, err)
					back, err := FromX509(xc)
					must(t, err)
					if !back.Equal(leaf) {
						t.Error("FromX509(ToX509()) changed the certificate")
					}
				} else if _, err := leaf.ToX509(); err == nil {
					t.Error("ToX509 accepted an SM2 certificate")
				}
			})
		}
	}
}

func TestCSRRoundTrip(t *testing.T) {
	for _, kind := range allKinds {
		t.Run(string(kind), func(t *testing.T) {
			key := testKey(t, kind, "csr")
			der, err := CreateCertificateRequest(rand.Reader, &CertificateRequest{
				Subject:        pkix.Name{CommonName: "csr test", Country: []string{"CN"}},
				DNSNames:       []string{"localhost"},
				EmailAddresses: []string{"a@example.com"},
			}, key)
			must(t, err)
			csr, err := ParseCertificateRequest(der)
			must(t, err)
			must(t, csr.CheckSignature())
			if csr.Subject.CommonName != "csr test" || len(csr.DNSNames) != 1 || csr.EmailAddresses[0] != "a@example.com" {
				t.Errorf("unexpected CSR %+v", csr)
			}
			// Flip a bit of the signed part.
			bad := append([]byte(nil), der...)
			csr2, err := ParseCertificateRequest(bad)
			must(t, err)
			csr2.RawTBSCertificateRequest = append([]byte(nil), csr2.RawTBSCertificateRequest...)
			csr2.RawTBSCertificateRequest[len(csr2.RawTBSCertificateRequest)-3] ^= 1
			mustFail(t, csr2.CheckSignature(), "tampered CSR")
		})
	}
}

func TestCRLRoundTrip(t *testing.T) {
	for _, kind := range allKinds {
		t.Run(string(kind), func(t *testing.T) {
			key := testKey(t, kind, "root")
			rt := caTemplate("CRL root")
			ca := issue(t, rt, rt, key.Public(), key)
			now := time.Date(2027, 5, 1, 0, 0, 0, 0, time.UTC)
			der, err := CreateRevocationList(rand.Reader, &RevocationList{
				Number:     big.NewInt(7),
				ThisUpdate: now,
				NextUpdate: now.Add(30 * 24 * time.Hour),
				RevokedCertificateEntries: []RevocationListEntry{
					{SerialNumber: big.NewInt(42), RevocationTime: now.Add(-time.Hour), ReasonCode: 1},
					{SerialNumber: big.NewInt(43), RevocationTime: now.Add(-2 * time.Hour)},
				},
			}, ca, key)
			must(t, err)
			crl, err := ParseRevocationList(der)
			must(t, err)
			must(t, crl.CheckSignatureFrom(ca))
			if crl.Number.Int64() != 7 || len(crl.RevokedCertificateEntries) != 2 ||
				crl.RevokedCertificateEntries[0].ReasonCode != 1 ||
				crl.RevokedCertificateEntries[1].SerialNumber.Int64() != 43 ||
				!crl.ThisUpdate.Equal(now) || string(crl.AuthorityKeyId) != string(ca.SubjectKeyId) {
				t.Errorf("unexpected CRL %+v", crl)
			}
			other := testKey(t, kind, "other")
			ot := caTemplate("CRL root")
			impostor := issue(t, ot, ot, other.Public(), other)
			mustFail(t, crl.CheckSignatureFrom(impostor), "CRL signed by another key")
		})
	}
}

func TestExplicitSignatureAlgorithms(t *testing.T) {
	for _, tc := range []struct {
		kind keyKind
		algo SignatureAlgorithm
	}{
		{kindRSA, SHA256WithRSAPSS},
		{kindRSA, SHA384WithRSAPSS},
		{kindRSA, SHA512WithRSA},
		{kindECDSA, ECDSAWithSHA384},
		{kindSM2, SM2WithSM3},
		{kindEd25519, PureEd25519},
	} {
		t.Run(tc.algo.String(), func(t *testing.T) {
			key := testKey(t, tc.kind, "root")
			rt := caTemplate("algo root")
			rt.SignatureAlgorithm = tc.algo
			c := issue(t, rt, rt, key.Public(), key)
			if c.SignatureAlgorithm != tc.algo {
				t.Fatalf("got %v", c.SignatureAlgorithm)
			}
			must(t, c.CheckSignatureFrom(c))
			if tc.kind != kindSM2 {
				if _, err := c.ToX509(); err != nil {
					t.Fatalf("crypto/x509 cannot parse our %v certificate: %v", tc.algo, err)
				}
			}
		})
	}
	key := testKey(t, kindRSA, "root")
	rt := caTemplate("sha1")
	rt.SignatureAlgorithm = SHA1WithRSA
	if _, err := CreateCertificate(rand.Reader, rt, rt, key.Public(), key); err == nil {
		t.Fatal("SHA-1 signature accepted for creation")
	}
}

func TestCRLIssuerMustSignCRLs(t *testing.T) {
	key := testKey(t, kindSM2, "root")
	rt := caTemplate("no crl sign")
	rt.KeyUsage = KeyUsageCertSign
	ca := issue(t, rt, rt, key.Public(), key)
	_, err := CreateRevocationList(rand.Reader, &RevocationList{Number: big.NewInt(1), ThisUpdate: testTime, NextUpdate: testTime.Add(time.Hour)}, ca, key)
	mustFail(t, err, "CRL from an issuer without cRLSign")
	_, err = CreateRevocationList(rand.Reader, &RevocationList{ThisUpdate: testTime}, ca, key)
	mustFail(t, err, "CRL without a number")
}

// TestSM2KeyHeldAsECDSA: an SM2 key held as a crypto/ecdsa key is refused as
// subject key and as signer of certificates, requests and CRLs, with an error
// that names the conversion (crypto/ecdsa would sign ECDSA with it, not SM2);
// converted, it issues as the SM2 key does.
func TestSM2KeyHeldAsECDSA(t *testing.T) {
	key := testKey(t, kindSM2, "root").(*sm2.PrivateKey)
	view := key.ECDSA()
	rt := caTemplate("ecdsa view root")
	ca := issue(t, rt, rt, key.Public(), key)
	wantErr := func(what string, err error, conversion string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), conversion) {
			t.Errorf("%s: got %v, want an error naming %s", what, err, conversion)
		}
	}
	_, err := CreateCertificate(rand.Reader, rt, rt, &view.PublicKey, key)
	wantErr("subject key", err, "sm2.PublicKeyFromECDSA")
	_, err = CreateCertificate(rand.Reader, leafTemplate("leaf", KeyUsageDigitalSignature), ca, key.Public(), view)
	wantErr("certificate signer", err, "sm2.PrivateKeyFromECDSA")
	_, err = CreateCertificateRequest(rand.Reader, &CertificateRequest{Subject: pkix.Name{CommonName: "csr"}}, view)
	wantErr("request signer", err, "sm2.PrivateKeyFromECDSA")
	_, err = CreateRevocationList(rand.Reader, &RevocationList{Number: big.NewInt(1), ThisUpdate: testTime, NextUpdate: testTime.Add(time.Hour)}, ca, view)
	wantErr("CRL signer", err, "sm2.PrivateKeyFromECDSA")

	priv, err := sm2.PrivateKeyFromECDSA(view)
	must(t, err)
	leaf := issue(t, leafTemplate("leaf", KeyUsageDigitalSignature), ca, key.Public(), priv)
	if leaf.SignatureAlgorithm != SM2WithSM3 {
		t.Fatalf("SignatureAlgorithm = %v", leaf.SignatureAlgorithm)
	}
	must(t, leaf.CheckSignatureFrom(ca))
}

// TestCRLCheckSignatureFromNeedsCRLIssuer: a CRL's signature verifies only
// from an issuer allowed to sign CRLs: a CA, and one with cRLSign if it
// has a key-usage extension. The three issuers hold the same key, so only
// those rules tell them apart (mutants smx509-crl-parent-* of
// internal/mutation).
func TestCRLCheckSignatureFromNeedsCRLIssuer(t *testing.T) {
	key := testKey(t, kindSM2, "root")
	rt := caTemplate("crl issuer")
	ca := issue(t, rt, rt, key.Public(), key)
	der, err := CreateRevocationList(rand.Reader, &RevocationList{Number: big.NewInt(1), ThisUpdate: testTime, NextUpdate: testTime.Add(time.Hour)}, ca, key)
	if err != nil {
		t.Fatal(err)
	}
	crl, err := ParseRevocationList(der)
	if err != nil {
		t.Fatal(err)
	}
	if err := crl.CheckSignatureFrom(ca); err != nil {
		t.Fatalf("from its CA: %v", err)
	}
	noCRLSign := caTemplate("crl issuer")
	noCRLSign.KeyUsage = KeyUsageCertSign
	notCA := caTemplate("crl issuer")
	notCA.IsCA, notCA.MaxPathLen = false, 0
	for name, tmpl := range map[string]*Certificate{"without cRLSign": noCRLSign, "not a CA": notCA} {
		if err := crl.CheckSignatureFrom(issue(t, tmpl, tmpl, key.Public(), key)); err == nil {
			t.Errorf("CRL signature accepted from an issuer %s", name)
		}
	}
}
