// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"encoding/asn1"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// katScript is testdata/tlcp/kat.json, the output of testdata/tlcp/kat.py,
// which derives the known answers of INTEROP.md §10 A–F from the
// specifications with nothing of this module's code, after reproducing
// the SM2 standard's own examples with its SM2.
type katScript struct {
	A struct {
		MasterSecret   string `json:"master_secret"`
		ClientFinished string `json:"client_finished_over_sm3_abc"`
	}
	B struct {
		GCM   []string `json:"gcm_client_records"`
		CBCIV string   `json:"cbc_client_record_iv"`
		CBC   string   `json:"cbc_client_record"`
	}
	C struct {
		Private map[string]string
		Public  map[string]string
	}
	D struct {
		Premaster string `json:"ecdhe_premaster"`
		Master    string `json:"ecdhe_master_secret"`
	}
	E struct {
		K     string
		Z     string       `json:"z_server_sign"`
		ECC   katScriptSig `json:"ecc_server_key_exchange"`
		ECDHE katScriptSig `json:"ecdhe_server_key_exchange"`
		CV    katScriptSig `json:"certificate_verify"`
	}
	F struct {
		K         string
		Premaster string
		C1C3C2    string `json:"ciphertext_c1c3c2"`
		DER       string `json:"ciphertext_der"`
		Message   string
		Rejected  map[string]struct {
			Plaintext string
			DER       string `json:"ciphertext_der"`
		}
	}
	SelfCheck []string `json:"sm2_self_check"`
}

// katScriptSig is one signature of set E, with what it signs and the
// message that carries it.
type katScriptSig struct {
	Signed     string `json:"signed_data"`
	E, R, S    string
	Signature  string
	Message    string
	EncCert    string `json:"enc_cert"` // ECC ServerKeyExchange
	Params     string // ECDHE ServerKeyExchange
	Transcript string // CertificateVerify
}

// katStandardExamples are the SM2 examples of GB/T 32918 that kat.py must
// reproduce before it derives anything: signature and encryption on both
// the recommended curve and the standard's example curve.
var katStandardExamples = []string{
	"sm2-sign-gmt0003.5-annexA", "sm2-encrypt-gmt0003.5-annexC",
	"sm2-sign-gbt32918.2-A2", "sm2-encrypt-gbt32918.4-A2",
}

// TestKATIndependentScript checks this package's values against the
// script's: the master secrets, the client Finished and the first
// records this package's writer produces, the public keys of the scalars,
// the ECDHE premaster the key agreement code derives (A–D), what the
// ServerKeyExchange and CertificateVerify signatures sign, their messages
// and that they are the fixed-nonce signatures (E), and the ECC
// ClientKeyExchange the client writes with the fixed nonce, which the
// server decrypts, and the plaintexts it must not take as a premaster (F).
// The constants in kat_test.go are checked too, so that they and the
// script cannot drift apart. Where python3 is installed, the script is run
// and kat.json must be its output.
func TestKATIndependentScript(t *testing.T) {
	path := filepath.Join("..", "testdata", "tlcp", "kat.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("script", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 not found; kat.json is checked as committed")
		}
		cmd := exec.Command(py, filepath.Join("..", "testdata", "tlcp", "kat.py"))
		// The script imports ../tls13/kat.py: leave no bytecode in the tree.
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.Output()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			t.Fatalf("kat.py: %v\n%s", err, ee.Stderr)
		} else if err != nil {
			t.Skipf("python3 does not start: %v", err)
		}
		if !bytes.Equal(out, raw) {
			t.Errorf("%s is not kat.py's output; regenerate it: python3 testdata/tlcp/kat.py > testdata/tlcp/kat.json", path)
		}
	})

	var k katScript
	if err := json.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	same := func(what string, got []byte, want string) {
		t.Helper()
		if !bytes.Equal(got, unhex(t, want)) {
			t.Errorf("%s:\n tlcp   %x\n script %s", what, got, want)
		}
	}

	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	master := ciphersuite.MasterSecret(unhex(t, katECCPremaster), cr, sr)
	same("A master secret", master, k.A.MasterSecret)
	abc := sm3.Sum([]byte("abc"))
	same("A client Finished", ciphersuite.FinishedVerifyData(master, ciphersuite.LabelClientFinished, abc[:]), k.A.ClientFinished)

	for _, tt := range []struct {
		suite uint16
		rand  string
		want  []string
	}{
		{ciphersuite.ECC_SM4_GCM_SM3, "", k.B.GCM},
		{ciphersuite.ECC_SM4_CBC_SM3, k.B.CBCIV, []string{k.B.CBC}},
	} {
		s := ciphersuite.Lookup(tt.suite)
		client, _ := s.KeyBlock(master, cr, sr)
		out, err := s.NewRecordProtection(client)
		if err != nil {
			t.Fatal(err)
		}
		rc := &recordingConn{}
		c := Client(rc, &Config{Rand: bytes.NewReader(unhex(t, tt.rand))})
		c.out.rp = out
		for i, want := range tt.want {
			rc.buf.Reset()
			c.out.Lock()
			_, err := c.writeRecordLocked(recordTypeApplicationData, []byte("hello, TLCP"))
			c.out.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			same(s.Name+" record "+string(rune('0'+i)), rc.buf.Bytes(), want)
		}
	}

	for name, d := range map[string]string{
		"server_sign": katServerSignPrv, "server_enc": katServerEncPrv, "server_eph": katServerEphPrv,
		"client_enc": katClientEncPrv, "client_eph": katClientEphPrv,
	} {
		if k.C.Private[name] != d {
			t.Errorf("C %s: kat_test.go has scalar %s, the script %s", name, d, k.C.Private[name])
		}
		same("C public key "+name, katKey(t, d).PublicKey().Bytes(), k.C.Public[name])
	}
	same("C server ephemeral (handshake_messages_test.go)", unhex(t, katServerEphPub), k.C.Public["server_eph"])
	same("C client ephemeral (handshake_messages_test.go)", unhex(t, katClientEphPub), k.C.Public["client_eph"])

	// D through the key agreement code, as TestKATECDHE drives it.
	signKey, srvEnc, _, serverPair, clientPair := katECDHEPairs(t)
	server := new(ecdheKeyAgreement)
	skx, err := server.generateServerKeyExchange(&Config{Rand: fixedRand(t, katServerEphPrv)}, serverPair, nil, cr, sr)
	if err != nil {
		t.Fatal(err)
	}
	client := new(ecdheKeyAgreement)
	ccfg := &Config{Rand: fixedRand(t, katClientEphPrv)}
	if err := client.processServerKeyExchange(ccfg, cr, sr, pubCert(signKey), nil, skx); err != nil {
		t.Fatal(err)
	}
	pm, _, err := client.generateClientKeyExchange(ccfg, pubCert(srvEnc), clientPair)
	if err != nil {
		t.Fatal(err)
	}
	same("D ECDHE premaster", pm, k.D.Premaster)
	same("D ECDHE premaster (kat_test.go)", unhex(t, katECDHEPremaster), k.D.Premaster)
	same("D ECDHE master secret", ciphersuite.MasterSecret(pm, cr, sr), k.D.Master)

	for _, id := range katStandardExamples {
		if !slices.Contains(k.SelfCheck, id) {
			t.Errorf("kat.json does not list %s among the SM2 examples the script reproduced", id)
		}
	}
	katScriptE(t, &k, skx, same)
	katScriptF(t, &k, same)
}

// katScriptE checks set E. This package's signatures have hedged nonces,
// so they cannot equal the script's; instead the test checks that this
// package signs exactly the bytes the script signs (its own signature
// verifies over the script's signed data), that it frames the script's
// signature into the script's message and accepts that message, and that
// each of the script's signatures is the one with the fixed nonce: with
// d known, a valid (r, s) determines its nonce as s + (r + s)·d mod n.
func katScriptE(t *testing.T, k *katScript, ecdheSKX *serverKeyExchangeMsg, same func(string, []byte, string)) {
	t.Helper()
	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	signKey := katKey(t, katServerSignPrv)
	signCert := pubCert(signKey)
	same("E Z of the signing key", signKey.PublicKey().Z(nil), k.E.Z)

	check := func(name string, s katScriptSig, signed, ourSig []byte, ourMsg handshakeMessage) {
		t.Helper()
		same(name+" signed data", signed, s.Signed)
		e := sm3.Sum(append(signKey.PublicKey().Z(nil), signed...))
		same(name+" e", e[:], s.E)
		if !sm2.VerifyASN1(signKey.PublicKey(), unhex(t, s.Signed), nil, ourSig) {
			t.Errorf("%s: this package's signature does not verify over the script's signed data", name)
		}
		sig := unhex(t, s.Signature)
		if !verify(signCert, signed, sig) {
			t.Errorf("%s: the script's signature does not verify", name)
		}
		var rs struct{ R, S *big.Int }
		if rest, err := asn1.Unmarshal(sig, &rs); err != nil || len(rest) != 0 {
			t.Fatalf("%s: signature DER: %v", name, err)
		}
		same(name+" r", rs.R.FillBytes(make([]byte, 32)), s.R)
		same(name+" s", rs.S.FillBytes(make([]byte, 32)), s.S)
		n := sm2.P256().Params().N
		d := new(big.Int).SetBytes(signKey.Bytes())
		nonce := new(big.Int).Add(rs.R, rs.S)
		nonce.Mul(nonce, d).Add(nonce, rs.S).Mod(nonce, n)
		same(name+" nonce", nonce.FillBytes(make([]byte, 32)), k.E.K)
		b, err := ourMsg.marshal()
		if err != nil {
			t.Fatal(err)
		}
		same(name+" message", b, s.Message)
	}

	// ECC: the signing key signs the randoms and the encryption certificate.
	encDER := []byte("stand-in for DER of enc cert")
	same("E ECC encryption certificate", encDER, k.E.ECC.EncCert)
	same("E ECC encryption certificate (kat_test.go)", signCert.Raw, k.E.ECC.EncCert)
	pair := &CertificatePair{Sign: Certificate{PrivateKey: signKey}, Enc: Certificate{Certificate: [][]byte{encDER}}}
	ours, err := eccKeyAgreement{}.generateServerKeyExchange(&Config{}, pair, nil, cr, sr)
	if err != nil {
		t.Fatal(err)
	}
	check("E ECC ServerKeyExchange", k.E.ECC, serverKeyExchangeTBS(cr, sr, encDER, nil), ours.signature,
		&serverKeyExchangeMsg{signature: unhex(t, k.E.ECC.Signature)})
	var skx serverKeyExchangeMsg
	if !skx.unmarshal(unhex(t, k.E.ECC.Message)) {
		t.Fatal("E: the script's ECC ServerKeyExchange does not parse")
	}
	if err := (eccKeyAgreement{}).processServerKeyExchange(&Config{}, cr, sr, signCert, signCert, &skx); err != nil {
		t.Errorf("E: the script's ECC ServerKeyExchange: %v", err)
	}
	same("E ECC signature (kat_test.go)", unhex(t, katECCSKESignature), k.E.ECC.Signature)

	// ECDHE: the parameters of D, which the server generated above.
	same("E ECDHE parameters", ecdheSKX.params, k.E.ECDHE.Params)
	check("E ECDHE ServerKeyExchange", k.E.ECDHE, serverKeyExchangeTBS(cr, sr, nil, ecdheSKX.params), ecdheSKX.signature,
		&serverKeyExchangeMsg{params: ecdheSKX.params, signature: unhex(t, k.E.ECDHE.Signature)})
	if !skx.unmarshal(unhex(t, k.E.ECDHE.Message)) {
		t.Fatal("E: the script's ECDHE ServerKeyExchange does not parse")
	}
	if err := new(ecdheKeyAgreement).processServerKeyExchange(&Config{}, cr, sr, signCert, nil, &skx); err != nil {
		t.Errorf("E: the script's ECDHE ServerKeyExchange: %v", err)
	}
	same("E ECDHE signature (kat_test.go)", unhex(t, katECDHESKESignature), k.E.ECDHE.Signature)

	// CertificateVerify: the hash of the transcript, not the transcript (D1).
	tr := newTranscript(true)
	tr.Write(unhex(t, k.E.CV.Transcript))
	tbs := certificateVerifyMessage(tr, false)
	ourSig, err := sign(nil, signKey, tbs)
	if err != nil {
		t.Fatal(err)
	}
	check("E CertificateVerify", k.E.CV, tbs, ourSig, &certificateVerifyMsg{signature: unhex(t, k.E.CV.Signature)})
	var cv certificateVerifyMsg
	if !cv.unmarshal(unhex(t, k.E.CV.Message)) || !verify(signCert, tbs, cv.signature) {
		t.Error("E: the script's CertificateVerify does not parse or verify")
	}
	if verify(signCert, certificateVerifyMessage(tr, true), cv.signature) {
		t.Error("E: the script's CertificateVerify verifies over the raw transcript (D1)")
	}
	same("E CertificateVerify signature (kat_test.go)", unhex(t, katCVSignature), k.E.CV.Signature)
}

// katScriptF checks set F: this package's client, given the premaster's
// random part and then the fixed nonce as its randomness, writes the
// script's ClientKeyExchange; the server decrypts it to the premaster;
// and the server replaces each plaintext the script encrypted that is not
// a TLCP premaster by a random one, with no error (D9).
func katScriptF(t *testing.T, k *katScript, same func(string, []byte, string)) {
	t.Helper()
	srvEnc := katKey(t, katServerEncPrv)
	pm, nonce := unhex(t, k.F.Premaster), unhex(t, k.F.K)
	same("F premaster (kat_test.go)", unhex(t, katECCPremaster), k.F.Premaster)

	raw, err := sm2.Encrypt(bytes.NewReader(nonce), srvEnc.PublicKey(), pm, nil)
	if err != nil {
		t.Fatal(err)
	}
	same("F C1 || C3 || C2", raw, k.F.C1C3C2)

	rnd := bytes.NewReader(append(bytes.Clone(pm[2:]), nonce...))
	ka := eccKeyAgreement{}
	cpm, ckx, err := ka.generateClientKeyExchange(&Config{Rand: rnd}, pubCert(srvEnc), nil)
	if err != nil {
		t.Fatal(err)
	}
	same("F client premaster", cpm, k.F.Premaster)
	same("F ciphertext", ckx.ciphertext, k.F.DER)
	same("F ciphertext (kat_test.go)", unhex(t, katECCCiphertext), k.F.DER)
	b, err := ckx.marshal()
	if err != nil {
		t.Fatal(err)
	}
	same("F ClientKeyExchange", b, k.F.Message)

	pair := &CertificatePair{Enc: Certificate{PrivateKey: srvEnc}}
	var parsed clientKeyExchangeMsg
	if !parsed.unmarshal(unhex(t, k.F.Message)) {
		t.Fatal("F: the script's ClientKeyExchange does not parse")
	}
	spm, err := ka.processClientKeyExchange(&Config{}, pair, &parsed, nil)
	if err != nil {
		t.Fatal(err)
	}
	same("F server premaster", spm, k.F.Premaster)

	if len(k.F.Rejected) != 3 {
		t.Errorf("F: %d rejected plaintexts, want 3", len(k.F.Rejected))
	}
	for name, r := range k.F.Rejected {
		ct, plain := unhex(t, r.DER), unhex(t, r.Plaintext)
		// The ciphertext is sound, so what the server refuses is the plaintext.
		got, err := sm2.DecryptASN1(srvEnc, ct)
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("F %s: decrypts to %x, %v; the script encrypted %x", name, got, err, plain)
		}
		spm, err := ka.processClientKeyExchange(&Config{}, pair, &clientKeyExchangeMsg{ciphertext: ct}, nil)
		if err != nil || len(spm) != premasterLen || bytes.HasPrefix(plain, spm) || bytes.HasPrefix(spm, plain) || bytes.Equal(spm, pm) {
			t.Errorf("F %s: server premaster %x, %v; want a random one", name, spm, err)
		}
	}
}
