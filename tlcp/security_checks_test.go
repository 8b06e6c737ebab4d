// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

// Negative tests for the handshake's security checks, each written so that
// it fails if its check is removed (issue 25, item 0): the Finished
// verification, the chain of the peer's encryption certificate in both
// directions, the key usage of the encryption certificate in both directions
// and the ServerKeyExchange signature of the ECDHE (and ECC) suites. They use the public API,
// the handshake message types and scripted peers on a loopback connection,
// nothing of the record layer, so that they survive its redesign.

import (
	"bytes"
	"crypto/rand"
	"crypto/x509/pkix"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// clientHelloTamperer returns a client end and a server end joined by a
// proxy that passes everything through, except that it applies modify to
// the first ClientHello (which a Conn sends in one record) and re-frames it.
// It is an active attacker on the unauthenticated part of the handshake:
// a change that leaves both sides deriving the same keys is caught only by
// the Finished messages, which cover the transcript.
func clientHelloTamperer(t *testing.T, modify func(*clientHelloMsg)) (client, server net.Conn) {
	t.Helper()
	client, fromClient := tcpPair(t)
	toServer, server := tcpPair(t)
	go func() {
		defer toServer.Close()
		hdr := make([]byte, recordHeaderLen)
		if _, err := io.ReadFull(fromClient, hdr); err != nil {
			return
		}
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if _, err := io.ReadFull(fromClient, body); err != nil {
			return
		}
		var ch clientHelloMsg
		if recordType(hdr[0]) == recordTypeHandshake && ch.unmarshal(body) {
			modify(&ch)
			ch.original = nil
			b, err := ch.marshal()
			if err != nil {
				return
			}
			body = b
			hdr[3], hdr[4] = byte(len(b)>>8), byte(len(b))
		}
		if _, err := toServer.Write(append(hdr, body...)); err != nil {
			return
		}
		io.Copy(toServer, fromClient)
	}()
	go func() {
		defer fromClient.Close()
		io.Copy(fromClient, toServer)
	}()
	return client, server
}

// addUnknownSuite appends a cipher suite value nobody implements: the server
// ignores it, so the keys are unchanged and only the transcripts differ.
func addUnknownSuite(ch *clientHelloMsg) {
	ch.cipherSuites = append(ch.cipherSuites, 0x0A0A)
}

// tamperedHandshake runs a handshake through clientHelloTamperer with
// addUnknownSuite.
func tamperedHandshake(t *testing.T, ccfg, scfg *Config) (cerr, serr error) {
	c, s := clientHelloTamperer(t, addUnknownSuite)
	client, server := Client(c, ccfg), Server(s, scfg)
	done := make(chan error, 1)
	go func() { done <- server.Handshake() }()
	cerr = client.Handshake()
	return cerr, <-done
}

// wantPeerAlert checks that err is the alert a, as the peer received it.
func wantPeerAlert(t *testing.T, who string, err error, a alert) {
	t.Helper()
	var ae AlertError
	if !errors.As(err, &ae) || alert(ae) != a {
		t.Errorf("%s: error %v, want alert %v", who, err, a)
	}
}

// wantError checks that err mentions want.
func wantError(t *testing.T, who string, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %v, want one mentioning %q", who, err, want)
	}
}

const finishedError = "Finished is incorrect"

// TestFinishedCatchesTamperedClientHello: with a ClientHello changed in
// flight, the server rejects the client's Finished in a full handshake
// (the client's comes first) with decrypt_error (RFC 5246 §7.4.9, which
// GB/T 38636 follows). The ECC suites without client authentication are
// where the Finished messages alone cover the transcript; on ECDHE the
// client's CertificateVerify, which signs the transcript too, fails first.
func TestFinishedCatchesTamperedClientHello(t *testing.T) {
	for _, id := range supportedSuites() {
		if ciphersuite.Lookup(id).KeyExchange != ciphersuite.KeyExchangeECC {
			continue
		}
		t.Run(CipherSuiteName(id), func(t *testing.T) {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			ccfg.CipherSuites = []uint16{id}
			scfg.CipherSuites = []uint16{id}
			cerr, serr := tamperedHandshake(t, ccfg, scfg)
			wantError(t, "server", serr, finishedError)
			wantPeerAlert(t, "client", cerr, alertDecryptError)
		})
	}
}

// TestFinishedCatchesTamperedResumption: in an abbreviated handshake the
// server's Finished comes first, and nothing else covers the transcript,
// so with the ClientHello changed in flight it is the client that must
// reject it, with decrypt_error, on every suite.
func TestFinishedCatchesTamperedResumption(t *testing.T) {
	for _, id := range supportedSuites() {
		t.Run(CipherSuiteName(id), func(t *testing.T) {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			ccfg.CipherSuites = []uint16{id}
			scfg.CipherSuites = []uint16{id}
			ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
			if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
				t.Fatal(cerr, serr)
			}
			// Untampered, the second handshake resumes.
			client, _, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil || !client.ConnectionState().DidResume {
				t.Fatalf("no resumption to tamper with: client %v, server %v", cerr, serr)
			}
			cerr, serr = tamperedHandshake(t, ccfg, scfg)
			wantError(t, "client", cerr, finishedError)
			wantPeerAlert(t, "server", serr, alertDecryptError)
		})
	}
}

// nonCAIssuer returns a certificate issued by the test root that has
// keyCertSign but is not a CA (basicConstraints cA false): only the rule
// that issuers are CAs keeps what it signs from chaining.
func nonCAIssuer(t *testing.T) (*smx509.Certificate, *sm2.PrivateKey) {
	p := getPKI(t)
	return mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: "Not A CA"},
		KeyUsage:              smx509.KeyUsageCertSign | smx509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  false,
	}, p.ca, p.caKey)
}

// withChain returns c with more certificates after its leaf.
func withChain(c Certificate, chain ...*smx509.Certificate) Certificate {
	c.Certificate = append([][]byte{c.Certificate[0]}, c.Certificate[1:]...)
	for _, ch := range chain {
		c.Certificate = append(c.Certificate, ch.Raw)
	}
	return c
}

// badEncPairs returns pair with its encryption certificate replaced by one
// for the same entity from a CA nobody trusts, and by one issued by a
// certificate that is not a CA. In the second, the non-CA follows the
// signing certificate, where the sender puts its chain (SIGN, ENC, CA…),
// so that the peer has it as an intermediate to build with.
func badEncPairs(t *testing.T, pair CertificatePair, cn string, eku smx509.ExtKeyUsage) map[string]CertificatePair {
	p := getPKI(t)
	notCA, notCAKey := nonCAIssuer(t)
	return map[string]CertificatePair{
		"untrusted CA": {Sign: pair.Sign, Enc: makePair(t, cn, eku, p.ca2, p.ca2Key).Enc},
		"issued by a non-CA": {
			Sign: withChain(pair.Sign, notCA),
			Enc:  makePair(t, cn, eku, notCA, notCAKey).Enc,
		},
	}
}

// wantEncChainRefused checks that the verifying side failed on the chain of
// role's encryption certificate and that its peer was told unknown_ca.
func wantEncChainRefused(t *testing.T, verifier string, err error, role string, peerErr error) {
	t.Helper()
	wantError(t, verifier, err, role+"'s encryption certificate")
	if !errors.As(err, new(*CertificateVerificationError)) {
		t.Errorf("%s: error %v is not a CertificateVerificationError", verifier, err)
	}
	wantPeerAlert(t, role, peerErr, alertUnknownCA)
}

// TestServerEncCertificateChain: the client verifies the chain of the
// server's encryption certificate, not only of its signing certificate: an
// encryption certificate from an untrusted CA, or issued by a certificate
// that is not a CA, fails the handshake with unknown_ca although the
// signing certificate is good, on ECC and ECDHE suites.
func TestServerEncCertificateChain(t *testing.T) {
	for name, pair := range badEncPairs(t, getPKI(t).server, "tlcp.test", smx509.ExtKeyUsageServerAuth) {
		for _, id := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_GCM_SM3} {
			t.Run(name+"/"+CipherSuiteName(id), func(t *testing.T) {
				ccfg, scfg := testClientConfig(t), testServerConfig(t)
				ccfg.CipherSuites = []uint16{id}
				scfg.Certificates = []CertificatePair{pair}
				_, _, cerr, serr := handshakePair(t, ccfg, scfg)
				wantEncChainRefused(t, "client", cerr, "server", serr)
			})
		}
	}
}

// TestClientEncCertificateChain: the server verifies the chain of the
// client's encryption certificate when it has one (ECDHE, and ECC with the
// Tongsuo-style SIGN, ENC list): one from an untrusted CA, or issued by a
// non-CA, fails the handshake with unknown_ca although the client's signing
// certificate is good.
func TestClientEncCertificateChain(t *testing.T) {
	for name, pair := range badEncPairs(t, getPKI(t).client, "client.test", smx509.ExtKeyUsageClientAuth) {
		for _, sc := range []struct {
			id         uint16
			includeEnc bool
		}{
			{ciphersuite.ECDHE_SM4_GCM_SM3, false},
			{ciphersuite.ECDHE_SM4_CBC_SM3, false},
			{ciphersuite.ECC_SM4_GCM_SM3, true},
		} {
			name := name + "/" + CipherSuiteName(sc.id)
			if sc.includeEnc {
				name += "/ClientCertIncludeEnc"
			}
			t.Run(name, func(t *testing.T) {
				ccfg, scfg := testClientConfig(t), testServerConfig(t)
				ccfg.Certificates = []CertificatePair{pair}
				ccfg.CipherSuites = []uint16{sc.id}
				ccfg.ClientCertIncludeEnc = sc.includeEnc
				scfg.ClientAuth = RequireAndVerifyClientCert
				_, _, cerr, serr := handshakePair(t, ccfg, scfg)
				wantEncChainRefused(t, "server", serr, "client", cerr)
			})
		}
	}
}

// scriptedServer answers the ClientHello on the raw end s with the messages
// flight makes, then reports the alert the client sends, or -2 if the
// client went on to its ChangeCipherSpec (it accepted the flight), or -1
// if the connection ended first. It closes s when done, so that a client
// that went on does not wait for a Finished that never comes.
func scriptedServer(s net.Conn, flight func(ch *clientHelloMsg) ([]handshakeMessage, error)) <-chan int {
	res := make(chan int, 1)
	go func() {
		defer s.Close()
		h := newHostilePeer(s)
		raw, err := h.readMessage()
		if err != nil {
			res <- -1
			return
		}
		var ch clientHelloMsg
		if !ch.unmarshal(raw) {
			res <- -1
			return
		}
		msgs, err := flight(&ch)
		if err != nil {
			res <- -1
			return
		}
		for _, m := range msgs {
			if err := h.send(m); err != nil {
				res <- -1
				return
			}
		}
		for {
			typ, body, err := h.readRecord()
			switch {
			case err != nil:
				res <- -1
				return
			case typ == recordTypeAlert && len(body) == 2:
				res <- int(body[1])
				return
			case typ == recordTypeChangeCipherSpec:
				res <- -2
				return
			}
		}
	}()
	return res
}

// serverHello answers ch with suite.
func serverHello(suite uint16) *serverHelloMsg {
	random := make([]byte, 32)
	rand.Read(random)
	return &serverHelloMsg{vers: VersionTLCP, random: random, sessionID: []byte{}, cipherSuite: suite}
}

// skxTBS is what a ServerKeyExchange signs (GB/T 38636 6.4.5.4): the
// randoms, then the ECDHE parameters, or the encryption certificate as a
// u24 vector for ECC. It is written out here rather than taken from the
// handshake code, so that the test states the format independently.
func skxTBS(cr, sr, params, encDER []byte) []byte {
	tbs := append(append([]byte{}, cr...), sr...)
	if params != nil {
		return append(tbs, params...)
	}
	n := len(encDER)
	return append(append(tbs, byte(n>>16), byte(n>>8), byte(n)), encDER...)
}

// ephemeralParams returns ECDHE parameters with a fresh SM2 key.
func ephemeralParams(t *testing.T) []byte {
	k, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return marshalECDHEParams(k.PublicKey().Bytes())
}

// serverFlight is what scriptedServer sends for suite id: ServerHello, a
// Certificate with the server's signing certificate and enc, a
// ServerKeyExchange signed by the server's signing key, CertificateRequest
// (ECDHE) and ServerHelloDone. For ECC the signature covers signedEnc;
// for ECDHE it covers fresh parameters, which with forgeParams are then
// replaced by others, as an attacker would substitute its own key.
type serverFlight struct {
	id             uint16
	enc, signedEnc []byte
	forgeParams    bool
}

// run plays the flight to a client with the test Config, and returns what
// scriptedServer saw and the client's error.
func (f serverFlight) run(t *testing.T) (int, error) {
	p := getPKI(t)
	ecdhe := ciphersuite.Lookup(f.id).KeyExchange == ciphersuite.KeyExchangeECDHE
	c, s := tcpPair(t)
	res := scriptedServer(s, func(ch *clientHelloMsg) ([]handshakeMessage, error) {
		sh := serverHello(f.id)
		skx := &serverKeyExchangeMsg{}
		var tbs []byte
		if ecdhe {
			skx.params = ephemeralParams(t)
			tbs = skxTBS(ch.random, sh.random, skx.params, nil)
			if f.forgeParams {
				skx.params = ephemeralParams(t)
			}
		} else {
			tbs = skxTBS(ch.random, sh.random, nil, f.signedEnc)
		}
		sig, err := sm2.SignASN1(rand.Reader, p.server.Sign.PrivateKey.(*sm2.PrivateKey), tbs, nil)
		if err != nil {
			return nil, err
		}
		skx.signature = sig
		msgs := []handshakeMessage{sh, &certificateMsg{certificates: [][]byte{p.server.Sign.Certificate[0], f.enc}}, skx}
		if ecdhe {
			msgs = append(msgs, &certificateRequestMsg{certificateTypes: []byte{certTypeECDSASign}})
		}
		return append(msgs, &serverHelloDoneMsg{}), nil
	})
	ccfg := testClientConfig(t)
	ccfg.CipherSuites = []uint16{f.id}
	err := Client(c, ccfg).Handshake()
	return <-res, err
}

// expect runs the flight: with wantErr empty, the client must accept it
// and go on to its ChangeCipherSpec; otherwise fail with an error that
// mentions wantErr and send alert want.
func (f serverFlight) expect(t *testing.T, wantErr string, want alert) {
	t.Helper()
	got, err := f.run(t)
	if wantErr == "" {
		if got != -2 {
			t.Fatalf("client refused the flight: %v, alert %d", err, got)
		}
		return
	}
	wantError(t, "client", err, wantErr)
	if got != int(want) {
		t.Errorf("client sent %d, want alert %v", got, want)
	}
}

// TestServerKeyExchangeSignature: a client refuses a ServerKeyExchange whose
// signature by the server's signing certificate does not cover what it
// carries, with decrypt_error: on the ECDHE suites an ephemeral key
// substituted under the signature of another (an active attacker's key
// exchange), on the ECC suites a signature over another encryption
// certificate. The same flight correctly signed is accepted, so the
// signature is what is refused.
func TestServerKeyExchangeSignature(t *testing.T) {
	p := getPKI(t)
	other := makePair(t, "tlcp.test", smx509.ExtKeyUsageServerAuth, p.ca, p.caKey)
	enc := p.server.Enc.Certificate[0]
	for _, id := range []uint16{ciphersuite.ECDHE_SM4_CBC_SM3, ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECC_SM4_GCM_SM3} {
		t.Run(CipherSuiteName(id)+"/correct", func(t *testing.T) {
			serverFlight{id: id, enc: enc, signedEnc: enc}.expect(t, "", 0)
		})
		t.Run(CipherSuiteName(id)+"/forged", func(t *testing.T) {
			f := serverFlight{id: id, enc: enc, signedEnc: other.Enc.Certificate[0], forgeParams: true}
			f.expect(t, "ServerKeyExchange signature", alertDecryptError)
		})
	}
}

// TestServerEncCertificateKeyUsage: a client refuses a server encryption
// certificate whose key usage allows neither key encipherment, data
// encipherment nor key agreement, with bad_certificate, although it chains
// to a trusted root, names the server and is covered by a valid
// ServerKeyExchange signature. The same flight with a proper encryption
// certificate is accepted, so the key usage is what is refused.
func TestServerEncCertificateKeyUsage(t *testing.T) {
	p := getPKI(t)
	good := p.server.Enc.Certificate[0]
	// A certificate for the server with key usage digitalSignature only.
	bad := makePair(t, "tlcp.test", smx509.ExtKeyUsageServerAuth, p.ca, p.caKey).Sign.Certificate[0]
	for _, id := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_GCM_SM3} {
		t.Run(CipherSuiteName(id)+"/keyEncipherment", func(t *testing.T) {
			serverFlight{id: id, enc: good, signedEnc: good}.expect(t, "", 0)
		})
		t.Run(CipherSuiteName(id)+"/digitalSignature only", func(t *testing.T) {
			serverFlight{id: id, enc: bad, signedEnc: bad}.expect(t, "server's encryption certificate is not", alertBadCertificate)
		})
	}
}

// TestClientEncCertificateKeyUsage: a server refuses a client encryption
// certificate (ECDHE) whose key usage allows neither key encipherment, data
// encipherment nor key agreement, with bad_certificate, although it chains
// to a trusted root and names the client. The scripted client then sends a
// ClientKeyExchange with a point off the curve: with a proper encryption
// certificate the server gets that far and refuses the point
// (illegal_parameter), so the key usage is what is refused.
func TestClientEncCertificateKeyUsage(t *testing.T) {
	p := getPKI(t)
	// A certificate for the client with key usage digitalSignature only.
	signOnly := makePair(t, "client.test", smx509.ExtKeyUsageClientAuth, p.ca, p.caKey).Sign
	offCurve := append([]byte{4}, bytes.Repeat([]byte{1}, 64)...)
	for _, id := range []uint16{ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3} {
		for _, bad := range []bool{false, true} {
			name := CipherSuiteName(id) + "/keyAgreement"
			enc := p.client.Enc.Certificate[0]
			want, wantErr := alertIllegalParameter, "ephemeral ECDHE key is invalid"
			if bad {
				name = CipherSuiteName(id) + "/digitalSignature only"
				enc = signOnly.Certificate[0]
				want, wantErr = alertBadCertificate, "client's encryption certificate is not"
			}
			t.Run(name, func(t *testing.T) {
				c, s := tcpPair(t)
				scfg := testServerConfig(t)
				scfg.CipherSuites = []uint16{id}
				scfg.ClientAuth = RequireAndVerifyClientCert
				done := make(chan error, 1)
				go func() { done <- Server(s, scfg).Handshake() }()
				h := newHostilePeer(c)
				if err := h.hello(id); err != nil {
					t.Fatal(err)
				}
				if err := h.readUntil(typeServerHelloDone); err != nil {
					t.Fatal(err)
				}
				if err := h.send(&certificateMsg{certificates: [][]byte{p.client.Sign.Certificate[0], enc}}); err != nil {
					t.Fatal(err)
				}
				if err := h.send(&clientKeyExchangeMsg{params: marshalECDHEParams(offCurve)}); err != nil {
					t.Fatal(err)
				}
				got := h.readAlert()
				serr := <-done
				wantError(t, "server", serr, wantErr)
				if got != int(want) {
					t.Errorf("server sent %d, want alert %v", got, want)
				}
			})
		}
	}
}
