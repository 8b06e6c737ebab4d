// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
)

// Known-answer values of INTEROP.md §10.
const (
	katClientRandom   = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	katServerRandom   = "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	katServerSignPrv  = "256beb29f371dab0e646da0f1c20c32e837328939d7a3172f29d1beafbaa2c34"
	katServerEncPrv   = "4ad106836279ccc990c63737f18ec8b4e881a732f19933ce044bb62f6a441ac6"
	katServerEphPrv   = "bc220b976f9548852653eb14a0c46938012e3f8f995b2316e8b53b66e8390685"
	katClientEncPrv   = "6ab0fb1b8d37fb20970ecb8b946241b5eabf6951389a3206a97e4f7aa32288b9"
	katClientEphPrv   = "7c78b6c044e6200dfd09b140e4d8f7e986253f89ac21c7f2119e2101e15f6d80"
	katECDHEPremaster = "4daf8b9e445962329e7e7534b3dec613f16b053e25550bc67966fa91e9bed794" +
		"ee0c179eb62689cd13385a6aead81eb7"
	katECDHEMaster = "f9b174df1fc08d08c0423dee4a0182f5d8335d7aa212ec4777d461f115fa5a71" +
		"9400a6e5bca9f177e50b7d8b8c3501fb"
	katECCPremaster = "010102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
		"202122232425262728292a2b2c2d2e2f"
	katECCCiphertext = "30819802201d0ccc1566dd91df2e0b16562f5f2d12e9c3f805a67a533dc2b38d48df9bffbb" +
		"02207a3ddc026b5336ee85eeb5b33bce85bc302b67aa216b81baa8466751d07c04c5" +
		"042028be668e735f6be742d13ab086dfe7657f0d6e98e5207249f4afc4109ce497df" +
		"04305539841b5577ad2453ad8dea2ca3af2caddc6c450b4984a881627158550fe704790b02b81db72beb8143b68705150899"
	// E: the signatures with the fixed nonce.
	katECCSKESignature = "3046022100e0b61d09d8d1e4a74e6a8c2478dfafb3ec8aa8b7819043784363ddb47e13f6ff" +
		"02210088d174bb669eb98b6c25485865a3b9fe7ccbfa5cead6a9f9c575d59497122235"
	katECDHESKESignature = "304402200408036933a3f3441435ba92cfb5e9ca7b5600dd7d1a00ae76bc5637c73f9a56" +
		"0220770a9e8f81dad9b65b05c3c527b2dd95ef81ae73966ed548b7985c864d794d8e"
	katCVSignature = "3045022100db919e6996c4c4205ef10cfe77c14c7f69f6d8bde624af4d085188e06992593d" +
		"022049b8ba2b434212278092b5cf2c66674518c3f236960eb6ae28e94c98afcb4d0e"
)

func katKey(t *testing.T, h string) *sm2.PrivateKey {
	t.Helper()
	k, err := sm2.NewPrivateKey(unhex(t, h))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// pubCert is a certificate stand-in that carries only a public key, which
// is all the signature and key-exchange code reads.
func pubCert(k *sm2.PrivateKey) *smx509.Certificate {
	return &smx509.Certificate{PublicKey: k.PublicKey(), Raw: []byte("stand-in for DER of enc cert")}
}

// fixedRand yields the given bytes first, then real randomness.
func fixedRand(t *testing.T, h string) io.Reader {
	return io.MultiReader(bytes.NewReader(unhex(t, h)), rand.Reader)
}

// katECDHEPairs returns the keys of INTEROP.md §10 C and the pairs that
// carry them for D: only the keys matter, the certificates are stand-ins.
func katECDHEPairs(t *testing.T) (signKey, srvEnc, cliEnc *sm2.PrivateKey, serverPair, clientPair *CertificatePair) {
	signKey, srvEnc, cliEnc = katKey(t, katServerSignPrv), katKey(t, katServerEncPrv), katKey(t, katClientEncPrv)
	serverPair = &CertificatePair{
		Sign: Certificate{PrivateKey: signKey},
		Enc:  Certificate{Certificate: [][]byte{[]byte("x")}, PrivateKey: srvEnc},
	}
	clientPair = &CertificatePair{
		Sign: Certificate{Certificate: [][]byte{[]byte("x")}, PrivateKey: signKey},
		Enc:  Certificate{Certificate: [][]byte{[]byte("x")}, PrivateKey: cliEnc},
	}
	return
}

// TestKATECDHE: INTEROP.md §10 D, both roles, through the key agreement code.
func TestKATECDHE(t *testing.T) {
	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	signKey, srvEnc, cliEnc, serverPair, clientPair := katECDHEPairs(t)

	server := new(ecdheKeyAgreement)
	skx, err := server.generateServerKeyExchange(&Config{Rand: fixedRand(t, katServerEphPrv)}, serverPair, nil, cr, sr)
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "03002941"+katServerEphPub); !bytes.Equal(skx.params, want) {
		t.Fatalf("ServerECDHParams\n got %x\nwant %x", skx.params, want)
	}

	for _, f71 := range []bool{false, true} {
		client := new(ecdheKeyAgreement)
		ccfg := &Config{Rand: fixedRand(t, katClientEphPrv), ClientECDHEFraming71: f71}
		if err := client.processServerKeyExchange(ccfg, cr, sr, pubCert(signKey), nil, skx); err != nil {
			t.Fatal(err)
		}
		pm, ckx, err := client.generateClientKeyExchange(ccfg, pubCert(srvEnc), clientPair)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pm, unhex(t, katECDHEPremaster)) {
			t.Fatalf("client premaster %x", pm)
		}
		want := "10000045 03002941" + katClientEphPub
		if f71 {
			want = "10000047 0045 03002941" + katClientEphPub
		}
		if b, _ := ckx.marshal(); !bytes.Equal(b, unhex(t, want)) {
			t.Fatalf("ClientKeyExchange %x", b)
		}
		// The server parses the wire form, whichever framing.
		var parsed clientKeyExchangeMsg
		if !parsed.unmarshal(unhex(t, want)) {
			t.Fatal("ClientKeyExchange does not parse")
		}
		spm, err := server.processClientKeyExchange(&Config{}, serverPair, &parsed, pubCert(cliEnc))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(spm, pm) {
			t.Fatalf("server premaster %x", spm)
		}
	}
	if ms := ciphersuite.MasterSecret(unhex(t, katECDHEPremaster), cr, sr); !bytes.Equal(ms, unhex(t, katECDHEMaster)) {
		t.Fatalf("master secret %x", ms)
	}
}

// TestKATSignatures: INTEROP.md §10 E, fixed signatures verify with the right input
// and the D1 raw-transcript reading is rejected.
func TestKATSignatures(t *testing.T) {
	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	signCert := pubCert(katKey(t, katServerSignPrv))
	ecc := &serverKeyExchangeMsg{}
	if !ecc.unmarshal(unhex(t, "0c00004a 0048"+katECCSKESignature)) {
		t.Fatal("ECC ServerKeyExchange does not parse")
	}
	if err := (eccKeyAgreement{}).processServerKeyExchange(&Config{}, cr, sr, signCert, signCert, ecc); err != nil {
		t.Fatalf("ECC ServerKeyExchange: %v", err)
	}
	// Any change to the signed data must fail.
	if err := (eccKeyAgreement{}).processServerKeyExchange(&Config{}, sr, cr, signCert, signCert, ecc); alertFor(err) != alertDecryptError {
		t.Fatalf("swapped randoms: %v", err)
	}

	ecdhe := &serverKeyExchangeMsg{}
	if !ecdhe.unmarshal(unhex(t, "0c00008d 03002941"+katServerEphPub+"0046"+katECDHESKESignature)) {
		t.Fatal("ECDHE ServerKeyExchange does not parse")
	}
	if err := new(ecdheKeyAgreement).processServerKeyExchange(&Config{}, cr, sr, signCert, nil, ecdhe); err != nil {
		t.Fatalf("ECDHE ServerKeyExchange: %v", err)
	}

	// CertificateVerify over the transcript "abc".
	sig := unhex(t, katCVSignature)
	tr := newTranscript(true)
	tr.Write([]byte("abc"))
	if !verify(signCert, certificateVerifyMessage(tr, false), sig) {
		t.Fatal("standard CertificateVerify does not verify")
	}
	if verify(signCert, certificateVerifyMessage(tr, true), sig) {
		t.Fatal("CertificateVerify verified over the raw transcript (D1)")
	}
}

// TestKATECCPremaster: INTEROP.md §10 F, and the D9 substitution on bad input.
func TestKATECCPremaster(t *testing.T) {
	pair := &CertificatePair{Enc: Certificate{PrivateKey: katKey(t, katServerEncPrv)}}
	ka := eccKeyAgreement{}
	pm, err := ka.processClientKeyExchange(&Config{}, pair, &clientKeyExchangeMsg{ciphertext: unhex(t, katECCCiphertext)}, nil)
	if err != nil || !bytes.Equal(pm, unhex(t, katECCPremaster)) {
		t.Fatalf("premaster %x, %v", pm, err)
	}
	// Trailing bytes after the DER are tolerated (D15).
	pm, err = ka.processClientKeyExchange(&Config{}, pair, &clientKeyExchangeMsg{ciphertext: unhex(t, katECCCiphertext+"0000")}, nil)
	if err != nil || !bytes.Equal(pm, unhex(t, katECCPremaster)) {
		t.Fatalf("with trailing bytes: premaster %x, %v", pm, err)
	}

	// Corrupt ciphertext, a wrong version and a wrong length all give a
	// random premaster and no error.
	bad := unhex(t, katECCCiphertext)
	bad[len(bad)-1] ^= 1
	wrongVersion := bytes.Clone(unhex(t, katECCPremaster))
	wrongVersion[1] = 2
	ctVersion, _ := sm2.EncryptASN1(rand.Reader, katKey(t, katServerEncPrv).PublicKey(), wrongVersion)
	ctShort, _ := sm2.EncryptASN1(rand.Reader, katKey(t, katServerEncPrv).PublicKey(), wrongVersion[:47])
	for name, ct := range map[string][]byte{"corrupt": bad, "version": ctVersion, "length": ctShort, "garbage": {1, 2, 3}} {
		pm, err := ka.processClientKeyExchange(&Config{}, pair, &clientKeyExchangeMsg{ciphertext: ct}, nil)
		if err != nil || len(pm) != 48 || bytes.Equal(pm, wrongVersion) || bytes.Equal(pm, unhex(t, katECCPremaster)) {
			t.Errorf("%s: premaster %x, %v", name, pm, err)
		}
	}

	// And the client side makes 01 01 ‖ 46 random, which the server reads.
	cpm, ckx, err := ka.generateClientKeyExchange(&Config{}, pubCert(katKey(t, katServerEncPrv)), nil)
	if err != nil || cpm[0] != 1 || cpm[1] != 1 || len(cpm) != 48 {
		t.Fatalf("client premaster %x, %v", cpm, err)
	}
	if spm, _ := ka.processClientKeyExchange(&Config{}, pair, ckx, nil); !bytes.Equal(spm, cpm) {
		t.Fatal("server read a different premaster")
	}
}

// recordingConn keeps what is written to it.
type recordingConn struct {
	net.Conn
	buf bytes.Buffer
}

func (c *recordingConn) Write(b []byte) (int, error) { return c.buf.Write(b) }

// TestKATRecordsAndFinished: INTEROP.md §10 A and B through this package's record
// writer and reader: the key block of the ECC premaster, the client
// Finished message, and the first two GCM records and the CBC record
// (whose IV comes from Config.Rand).
func TestKATRecordsAndFinished(t *testing.T) {
	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	master := ciphersuite.MasterSecret(unhex(t, katECCPremaster), cr, sr)
	if want := unhex(t, "2f4441f8438f07b18b2bf73eeafed437fafbdb8eace17433816c6617a8a327cdc3748d92d98d07aeb532acee5882c12b"); !bytes.Equal(master, want) {
		t.Fatalf("master %x", master)
	}
	abc := sm3.Sum([]byte("abc"))
	fin := &finishedMsg{verifyData: ciphersuite.FinishedVerifyData(master, ciphersuite.LabelClientFinished, abc[:])}
	if b, _ := fin.marshal(); !bytes.Equal(b, unhex(t, "1400000cbb04ba2f8d40b1cae1b8071a")) {
		t.Fatalf("client Finished %x", b)
	}

	tests := []struct {
		suite uint16
		rand  string
		want  []string
	}{
		{ciphersuite.ECC_SM4_GCM_SM3, "", []string{
			"170101002300000000000000008d7a95bb03f6d3e88c17d004fc2bf2026379250a6c19bbe3f41f4c",
			"170101002300000000000000012345df6c58c1249292af2b47c16f534ebee7114f0b8f5030d2fbe1",
		}},
		{ciphersuite.ECC_SM4_CBC_SM3, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", []string{
			"1701010040 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf d11ec6245b2bd5ce429e1ad271bb79259e2028f61880206a681083cec1ae1a0c a6cbcbcc49e12090265065b38214194c",
		}},
	}
	for _, tt := range tests {
		s := ciphersuite.Lookup(tt.suite)
		client, _ := s.KeyBlock(master, cr, sr)
		out, err := s.NewRecordProtection(client)
		if err != nil {
			t.Fatal(err)
		}
		rc := &recordingConn{}
		cfg := &Config{Rand: bytes.NewReader(unhex(t, tt.rand))}
		c := Client(rc, cfg)
		c.out.rp = out
		for i, want := range tt.want {
			rc.buf.Reset()
			c.out.Lock()
			_, err := c.writeRecordLocked(recordTypeApplicationData, []byte("hello, TLCP"))
			c.out.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rc.buf.Bytes(), unhex(t, want)) {
				t.Fatalf("%s record %d:\n got %x\nwant %s", s.Name, i, rc.buf.Bytes(), want)
			}
		}

		// And the server's reader opens them.
		in, _ := s.NewRecordProtection(client)
		var wire []byte
		for _, w := range tt.want {
			wire = append(wire, unhex(t, w)...)
		}
		sc := Server(&discardConn{r: bytes.NewReader(wire)}, &Config{})
		sc.in.rp = in
		sc.isHandshakeComplete.Store(true)
		for range tt.want {
			buf := make([]byte, 20)
			n, err := sc.Read(buf)
			if err != nil || string(buf[:n]) != "hello, TLCP" {
				t.Fatalf("%s: read %q, %v", s.Name, buf[:n], err)
			}
		}
	}
}
