// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// katScript is testdata/tlcp/kat.json, the output of testdata/tlcp/kat.py,
// which derives the known answers of INTEROP.md §10 A–D from the
// specifications with nothing of this module's code.
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
}

// TestKATIndependentScript checks this package's values against the
// script's: the master secrets, the client Finished and the first
// records this package's writer produces, the public keys of the scalars,
// and the ECDHE premaster the key agreement code derives. The constants
// in kat_test.go are checked too, so that they and the script cannot
// drift apart.
func TestKATIndependentScript(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "tlcp", "kat.json"))
	if err != nil {
		t.Fatal(err)
	}
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
}
