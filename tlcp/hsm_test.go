// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// The wrappers below stand for keys in an HSM: the handshake sees only the
// interfaces, never the *sm2.PrivateKey, and each checks that it is called
// the way the Certificate documentation says.

// hsmSigner signs digests, as devices do (SDF_InternalSign_ECC): it is
// given the message and computes e = SM3(Z ‖ M) itself.
type hsmSigner struct {
	k     *sm2.PrivateKey
	calls *atomic.Int32
	t     testing.TB
}

func (s hsmSigner) Public() crypto.PublicKey { return s.k.Public() }

func (s hsmSigner) Sign(rand io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	o, ok := opts.(*sm2.SignerOpts)
	if !ok || o.HashFunc() != 0 || o.UID != nil {
		s.t.Errorf("Sign called with opts %#v", opts)
	}
	s.calls.Add(1)
	z := s.k.PublicKey().Z(nil)
	e := sm3.Sum(append(z, msg...))
	return sm2.SignDigestASN1(rand, s.k, e[:])
}

// hsmDecrypter decrypts the raw form only after checking the DER form was
// asked for and given as exactly one element.
type hsmDecrypter struct {
	k     *sm2.PrivateKey
	calls *atomic.Int32
	fail  error // if set, returned instead of decrypting (a device failure)
	t     testing.TB
}

func (d hsmDecrypter) Public() crypto.PublicKey { return d.k.Public() }

func (d hsmDecrypter) Decrypt(rand io.Reader, ct []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	o, ok := opts.(*sm2.DecrypterOpts)
	if !ok || !o.ASN1 || o.Order != sm2.C1C3C2 {
		d.t.Errorf("Decrypt called with opts %#v", opts)
	}
	in, elem := cryptobyte.String(ct), cryptobyte.String(nil)
	if !in.ReadASN1Element(&elem, asn1.SEQUENCE) || !in.Empty() {
		d.t.Errorf("Decrypt given %d bytes that are not one DER SEQUENCE", len(ct))
	}
	d.calls.Add(1)
	if d.fail != nil {
		return nil, d.fail
	}
	return sm2.Decrypt(d.k, ct, o)
}

// hsmExchanger runs the SM2 key exchange behind its own type, checking
// the call order of SM2KeyExchange's documentation.
type hsmExchanger struct {
	k     *sm2.PrivateKey
	calls *atomic.Int32
	t     testing.TB
}

func (x hsmExchanger) Public() crypto.PublicKey { return x.k.Public() }

func (x hsmExchanger) NewKeyExchange(uid []byte, keyLen int, initiator bool) (SM2KeyExchange, error) {
	if uid != nil || keyLen != 48 {
		x.t.Errorf("NewKeyExchange(%q, %d, %v)", uid, keyLen, initiator)
	}
	ke, err := sm2.NewKeyExchange(x.k, nil, keyLen, initiator)
	if err != nil {
		return nil, err
	}
	x.calls.Add(1)
	return &hsmExchange{ke: ke, initiator: initiator, t: x.t}, nil
}

type hsmExchange struct {
	ke        *sm2.KeyExchange
	initiator bool
	step      string
	t         testing.TB
}

func (e *hsmExchange) Init(rand io.Reader) (*sm2.PublicKey, error) {
	if !e.initiator || e.step != "" {
		e.t.Errorf("Init after %q, initiator %v", e.step, e.initiator)
	}
	e.step = "Init"
	return e.ke.Init(rand)
}

func (e *hsmExchange) EphemeralPublicKey() *sm2.PublicKey {
	if e.initiator || e.step != "Respond" {
		e.t.Errorf("EphemeralPublicKey after %q, initiator %v", e.step, e.initiator)
	}
	return e.ke.EphemeralPublicKey()
}

func (e *hsmExchange) Respond(rand io.Reader, peerPub *sm2.PublicKey, peerUID []byte, peerR *sm2.PublicKey) ([]byte, []byte, error) {
	if e.initiator || e.step != "" || peerUID != nil {
		e.t.Errorf("Respond after %q, initiator %v", e.step, e.initiator)
	}
	e.step = "Respond"
	key, _, err := e.ke.Respond(rand, peerPub, nil, peerR)
	return key, nil, err
}

func (e *hsmExchange) Complete(peerPub *sm2.PublicKey, peerUID []byte, peerR *sm2.PublicKey, sB []byte) ([]byte, []byte, error) {
	if !e.initiator || e.step != "Init" || peerUID != nil || sB != nil {
		e.t.Errorf("Complete after %q, initiator %v", e.step, e.initiator)
	}
	e.step = "Complete"
	key, _, err := e.ke.Complete(peerPub, nil, peerR, nil)
	return key, nil, err
}

// hsmEncKey is an encryption key that both decrypts and exchanges.
type hsmEncKey struct {
	hsmDecrypter
	x hsmExchanger
}

func (k hsmEncKey) NewKeyExchange(uid []byte, keyLen int, initiator bool) (SM2KeyExchange, error) {
	return k.x.NewKeyExchange(uid, keyLen, initiator)
}

// hsmCounts counts the calls the handshake made into the "device".
type hsmCounts struct{ sign, decrypt, exchange atomic.Int32 }

// inHSM returns p with its keys behind the wrappers. enc selects what the
// encryption key can do: "both", "decrypt" or "exchange".
func inHSM(t testing.TB, p CertificatePair, enc string, n *hsmCounts) CertificatePair {
	out := p
	out.Sign.PrivateKey = hsmSigner{p.Sign.PrivateKey.(*sm2.PrivateKey), &n.sign, t}
	if p.hasEnc() {
		k := p.Enc.PrivateKey.(*sm2.PrivateKey)
		d := hsmDecrypter{k, &n.decrypt, nil, t}
		x := hsmExchanger{k, &n.exchange, t}
		switch enc {
		case "both":
			out.Enc.PrivateKey = hsmEncKey{d, x}
		case "decrypt":
			out.Enc.PrivateKey = d
		case "exchange":
			out.Enc.PrivateKey = x
		}
	}
	return out
}

// TestKeysOutsideTheProcess: on every suite, with client authentication,
// both sides' keys behind interfaces only, the handshake works and each
// key was used through its interface.
func TestKeysOutsideTheProcess(t *testing.T) {
	p := getPKI(t)
	for _, id := range supportedSuites() {
		s := ciphersuite.Lookup(id)
		t.Run(s.Name, func(t *testing.T) {
			var sn, cn hsmCounts
			scfg := testServerConfig(t)
			scfg.Certificates = []CertificatePair{inHSM(t, p.server, "both", &sn)}
			scfg.ClientAuth = RequireAndVerifyClientCert
			scfg.CipherSuites = []uint16{id}
			ccfg := testClientConfig(t)
			ccfg.Certificates = []CertificatePair{inHSM(t, p.client, "both", &cn)}
			ccfg.CipherSuites = []uint16{id}
			client, server, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			exchange(t, client, server, 1000)
			ecdhe := s.KeyExchange == ciphersuite.KeyExchangeECDHE
			want := func(name string, got int32, want int32) {
				t.Helper()
				if got != want {
					t.Errorf("%s: %d calls, want %d", name, got, want)
				}
			}
			want("server Sign", sn.sign.Load(), 1)
			want("client Sign", cn.sign.Load(), 1)
			if ecdhe {
				want("server NewKeyExchange", sn.exchange.Load(), 1)
				want("client NewKeyExchange", cn.exchange.Load(), 1)
				want("server Decrypt", sn.decrypt.Load(), 0)
			} else {
				want("server Decrypt", sn.decrypt.Load(), 1)
				want("server NewKeyExchange", sn.exchange.Load(), 0)
			}
		})
	}
}

// TestKeyCapabilitiesChooseSuites: an encryption key that only decrypts
// gives ECC suites, one that only exchanges gives ECDHE suites, on either
// side.
func TestKeyCapabilitiesChooseSuites(t *testing.T) {
	p := getPKI(t)
	both := []uint16{ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECC_SM4_GCM_SM3}
	for _, tc := range []struct {
		name       string
		server     string
		client     string
		want       uint16
		wantServer string // substring of the server's error, if it must fail
	}{
		{name: "server decrypts only", server: "decrypt", client: "both", want: ciphersuite.ECC_SM4_GCM_SM3},
		{name: "server exchanges only", server: "exchange", client: "both", want: ciphersuite.ECDHE_SM4_GCM_SM3},
		{name: "client cannot exchange", server: "both", client: "decrypt", want: ciphersuite.ECC_SM4_GCM_SM3},
		{name: "neither can do the other's", server: "exchange", client: "decrypt", wantServer: "no cipher suite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n hsmCounts
			scfg := testServerConfig(t)
			scfg.Certificates = []CertificatePair{inHSM(t, p.server, tc.server, &n)}
			scfg.CipherSuites = both
			ccfg := testClientConfig(t)
			ccfg.Certificates = []CertificatePair{inHSM(t, p.client, tc.client, &n)}
			ccfg.CipherSuites = both
			client, _, cerr, serr := handshakePair(t, ccfg, scfg)
			if tc.wantServer != "" {
				if serr == nil || !strings.Contains(serr.Error(), tc.wantServer) {
					t.Fatalf("server error %v, want %q", serr, tc.wantServer)
				}
				return
			}
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			if got := client.ConnectionState().CipherSuite; got != tc.want {
				t.Fatalf("negotiated %s, want %s", CipherSuiteName(got), CipherSuiteName(tc.want))
			}
		})
	}
}

// TestWrongKeyRefused: a key that is not the certificate's, or cannot do
// its role, is refused before anything is signed, with the reason.
func TestWrongKeyRefused(t *testing.T) {
	p := getPKI(t)
	var n hsmCounts
	swapped := p.server
	swapped.Sign.PrivateKey = hsmSigner{p.client.Sign.PrivateKey.(*sm2.PrivateKey), &n.sign, t}
	encWrong := p.server
	encWrong.Enc.PrivateKey = hsmDecrypter{p.client.Enc.PrivateKey.(*sm2.PrivateKey), &n.decrypt, nil, t}
	notAKey := p.server
	notAKey.Enc.PrivateKey = struct{ crypto.PublicKey }{p.server.Enc.Leaf.PublicKey}
	for name, tc := range map[string]struct {
		pair CertificatePair
		want string
	}{
		"signing key of another certificate":    {swapped, "signing certificate's private key does not match"},
		"encryption key of another certificate": {encWrong, "encryption certificate's private key does not match"},
		"encryption key without an interface":   {notAKey, "neither an SM2 crypto.Decrypter nor a tlcp.SM2KeyExchanger"},
	} {
		t.Run(name, func(t *testing.T) {
			scfg := testServerConfig(t)
			scfg.Certificates = []CertificatePair{tc.pair}
			_, _, cerr, serr := handshakePair(t, testClientConfig(t), scfg)
			if serr == nil || !strings.Contains(serr.Error(), tc.want) {
				t.Fatalf("server error %v, want %q", serr, tc.want)
			}
			wantAlert(t, cerr, alertInternalError)
		})
	}
	if n.sign.Load() != 0 || n.decrypt.Load() != 0 {
		t.Fatal("a mismatched key was used")
	}
}

// TestDecrypterFailureReportedLocally: a device failure during the ECC
// premaster decryption is hidden from the client (decrypt_error at
// Finished, as for a bad ciphertext: D9; the client's encrypted Finished
// then fails as bad_record_mac) but named in the server's error.
func TestDecrypterFailureReportedLocally(t *testing.T) {
	p := getPKI(t)
	var n hsmCounts
	pair := inHSM(t, p.server, "decrypt", &n)
	d := pair.Enc.PrivateKey.(hsmDecrypter)
	d.fail = errors.New("HSM: session handle invalid")
	pair.Enc.PrivateKey = d
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{pair}
	_, _, cerr, serr := handshakePair(t, testClientConfig(t), scfg)
	wantAlert(t, cerr, alertBadRecordMAC)
	if serr == nil || !strings.Contains(serr.Error(), "session handle invalid") {
		t.Fatalf("server error %v", serr)
	}
	if strings.Contains(cerr.Error(), "HSM") {
		t.Fatalf("the client learnt of the device failure: %v", cerr)
	}
}

// TestDecrypterGetsOneDERElement: bytes a client appends after the
// ciphertext (D15) are removed before the Decrypter sees it.
func TestDecrypterGetsOneDERElement(t *testing.T) {
	var n hsmCounts
	key := katKey(t, katServerEncPrv)
	pair := &CertificatePair{Enc: Certificate{PrivateKey: hsmDecrypter{key, &n.decrypt, nil, t}}}
	ka := eccKeyAgreement{}
	for _, suffix := range []string{"", "0000", "ff"} {
		pm, err := ka.processClientKeyExchange(&Config{}, pair, &clientKeyExchangeMsg{ciphertext: unhex(t, katECCCiphertext+suffix)}, nil)
		if err != nil || !bytes.Equal(pm, unhex(t, katECCPremaster)) {
			t.Fatalf("suffix %q: premaster %x, %v", suffix, pm, err)
		}
	}
	if ka.keyErr != nil || n.decrypt.Load() != 3 {
		t.Fatalf("keyErr %v, %d calls", ka.keyErr, n.decrypt.Load())
	}
}

// TestSupportsCertificateWithHSMKeys: the client's choice among pairs
// knows what an HSM key can do.
func TestSupportsCertificateWithHSMKeys(t *testing.T) {
	p := getPKI(t)
	var n hsmCounts
	info := &CertificateRequestInfo{CipherSuite: ciphersuite.ECDHE_SM4_GCM_SM3}
	for enc, ok := range map[string]bool{"both": true, "exchange": true, "decrypt": false} {
		pair := inHSM(t, p.client, enc, &n)
		if err := info.SupportsCertificate(&pair); (err == nil) != ok {
			t.Errorf("%s: %v", enc, err)
		}
	}
}
