// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// Golden handshakes with real peers: testdata/tls13/*.capture hold TLS 1.3
// handshakes between this package and Tongsuo or GmSSL, recorded by
// examples/interop/tls13.sh (tls13peer -capture): the key log and the raw
// bytes of both directions. The test decrypts them with the logged
// secrets and checks the peer's messages with this package's parsers and
// key schedule: every handshake message parses, each Finished verifies
// under the sender's handshake traffic secret, each CertificateVerify
// verifies with RFC 8998's SM2 ID and not with the default one, and the
// NewSessionTicket and application data decrypt under the application
// secrets. So the facts the interop runs established stay checked in CI,
// without the peers.

// capturedHandshake is a parsed capture file.
type capturedHandshake struct {
	name        string
	keys        map[string][]byte // key log label → secret
	sent, recvd []byte            // by the side that recorded, and by its peer
	ourSide     string            // "client" or "server"
}

func loadCapture(t *testing.T, path string) *capturedHandshake {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &capturedHandshake{name: filepath.Base(path), keys: map[string][]byte{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# tls13peer "):
			c.ourSide = "client"
			for _, arg := range strings.Fields(line) {
				if arg == "-server" {
					c.ourSide = "server"
				}
			}
		case strings.HasPrefix(line, "KEYLOG "):
			fields := strings.Fields(line)
			if _, seen := c.keys[fields[1]]; len(fields) == 4 && !seen { // the first connection's
				c.keys[fields[1]], _ = hex.DecodeString(fields[3])
			}
		case strings.HasPrefix(line, "> "), strings.HasPrefix(line, "< "):
			b, err := hex.DecodeString(line[2:])
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if line[0] == '>' {
				c.sent = append(c.sent, b...)
			} else {
				c.recvd = append(c.recvd, b...)
			}
		}
	}
	return c
}

// capturedMessage is one handshake message of a capture.
type capturedMessage struct {
	from string // "client" or "server"
	raw  []byte
	msg  handshakeMessage
}

// decryptCapture splits one direction into records, removes their
// protection with the key log's secrets, and returns the handshake
// messages and how many bytes of application data were there. The
// handshake traffic secret takes over after the last plaintext handshake
// message (the ServerHello, or the second ClientHello), the application
// secret after the Finished.
func decryptCapture(t *testing.T, stream []byte, from string, suite *ciphersuite.TLS13Suite, hs, ap []byte) ([]capturedMessage, int) {
	t.Helper()
	var msgs []capturedMessage
	var hand []byte
	var rp ciphersuite.RecordProtection
	appData, skipped := 0, 0
	for len(stream) >= 5 {
		typ, n := recordType(stream[0]), int(stream[3])<<8|int(stream[4])
		if len(stream) < 5+n {
			t.Fatalf("%s: truncated record", from)
		}
		body := bytes.Clone(stream[5 : 5+n])
		stream = stream[5+n:]
		switch {
		case typ == recordTypeChangeCipherSpec:
			continue
		case typ == recordTypeApplicationData:
			if rp == nil {
				var err error
				if rp, err = suite.NewRecordProtection(hs); err != nil {
					t.Fatal(err)
				}
			}
			inner, content, err := rp.Open(uint8(typ), body)
			if err != nil {
				if len(msgs) == 0 && from == "client" && skipped < 4 {
					skipped++ // rejected early data, under the early key
					continue
				}
				t.Fatalf("%s: record after %d messages does not decrypt: %v", from, len(msgs), err)
			}
			typ, body = recordType(inner), content
		}
		switch typ {
		case recordTypeHandshake:
			hand = append(hand, body...)
		case recordTypeApplicationData:
			appData += len(body)
			continue
		default:
			continue
		}
		for len(hand) >= 4 {
			l := int(hand[1])<<16 | int(hand[2])<<8 | int(hand[3])
			if len(hand) < 4+l {
				break
			}
			raw := bytes.Clone(hand[:4+l])
			hand = hand[4+l:]
			m, ok := parseHandshakeMessageTLS13(raw)
			if !ok {
				t.Fatalf("%s: message type %d (%s) does not parse: %x", from, raw[0], messageName(raw[0]), raw)
			}
			msgs = append(msgs, capturedMessage{from, raw, m})
			if raw[0] == typeKeyUpdate {
				ap = ciphersuite.TLS13NextTrafficSecret(ap)
			}
			if raw[0] == typeFinished || raw[0] == typeKeyUpdate {
				var err error
				if rp, err = suite.NewRecordProtection(ap); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return msgs, appData
}

func TestGoldenPeerCaptures(t *testing.T) {
	files, _ := filepath.Glob(captureGlob)
	if len(files) == 0 {
		t.Skip("no captures in testdata/tls13")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			checkCapture(t, loadCapture(t, path))
		})
	}
}

func checkCapture(t *testing.T, c *capturedHandshake) {
	fromClient, fromServer := c.sent, c.recvd
	if c.ourSide == "server" {
		fromClient, fromServer = c.recvd, c.sent
	}
	// The plaintext hellos come first in each direction.
	hellos := func(stream []byte) (msgs [][]byte, rest []byte) {
		for len(stream) >= 5 && stream[0] != byte(recordTypeApplicationData) {
			n := int(stream[3])<<8 | int(stream[4])
			if stream[0] == byte(recordTypeHandshake) {
				msgs = append(msgs, stream[5:5+n])
			}
			stream = stream[5+n:]
		}
		return msgs, stream
	}
	chs, clientRest := hellos(fromClient)
	shs, serverRest := hellos(fromServer)
	if len(chs) == 0 || len(shs) == 0 {
		t.Fatal("no hellos")
	}
	var sh serverHelloMsg
	if !sh.unmarshal(shs[len(shs)-1]) || !sh.isTLS13() || sh.isHelloRetryRequest() {
		t.Fatalf("the last plaintext server message is not a TLS 1.3 ServerHello")
	}
	suite := ciphersuite.LookupTLS13(sh.cipherSuite)
	if suite == nil {
		t.Fatalf("suite %x", sh.cipherSuite)
	}
	var transcript []byte
	for i, ch := range chs {
		var m clientHelloMsg
		if !m.unmarshal(bytes.Clone(ch)) || !m.tls13.offersTLS13() {
			t.Fatalf("ClientHello %d does not parse as TLS 1.3", i)
		}
		group := CurveID(sh.tls13.serverShare.group)
		if !slicesContainsUint16(m.tls13.signatureAlgorithms, signatureSM2SM3) || !slicesContainsUint16(m.tls13.supportedGroups, uint16(group)) {
			t.Errorf("ClientHello %d lacks sm2sig_sm3 or the group %v of the ServerHello", i, group)
		}
		if i == len(chs)-1 {
			checkCapturedShares(t, &m, &sh)
		}
		if i == 0 && len(chs) > 1 {
			var hrr serverHelloMsg
			if !hrr.unmarshal(bytes.Clone(shs[0])) || !hrr.isHelloRetryRequest() {
				t.Fatal("two ClientHellos without a HelloRetryRequest")
			}
			transcript = append(messageHash(ch), shs[0]...)
			continue
		}
		transcript = append(transcript, ch...)
	}
	transcript = append(transcript, shs[len(shs)-1]...)
	k := c.keys
	for _, l := range []string{keyLogClientHandshake, keyLogServerHandshake, keyLogClientTraffic, keyLogServerTraffic} {
		if len(k[l]) != 32 {
			t.Fatalf("key log lacks %s", l)
		}
	}
	serverMsgs, serverData := decryptCapture(t, serverRest, "server", suite, k[keyLogServerHandshake], k[keyLogServerTraffic])
	clientMsgs, clientData := decryptCapture(t, clientRest, "client", suite, k[keyLogClientHandshake], k[keyLogClientTraffic])

	// Walk the transcript in protocol order: the server's flight up to its
	// Finished, then the client's.
	var leaf [2]*smx509.Certificate // by side: 0 server, 1 client
	walk := func(msgs []capturedMessage, side int, secret []byte) []capturedMessage {
		for i, m := range msgs {
			switch msg := m.msg.(type) {
			case *certificateMsgTLS13:
				if len(msg.certificates) > 0 {
					cert, err := smx509.ParseCertificate(msg.certificates[0])
					if err != nil {
						t.Fatalf("%s certificate: %v", m.from, err)
					}
					leaf[side] = cert
				}
			case *certificateVerifyMsgTLS13:
				signed := certificateVerifyContext(side == 0, sm3Sum(transcript))
				pub := leaf[side].PublicKey.(*sm2.PublicKey)
				if msg.scheme != signatureSM2SM3 || !sm2.VerifyASN1(pub, signed, []byte(TLS13SM2ID), msg.signature) {
					t.Errorf("%s CertificateVerify does not verify with RFC 8998's ID", m.from)
				}
				if sm2.VerifyASN1(pub, signed, nil, msg.signature) {
					t.Errorf("%s CertificateVerify verifies with the default ID", m.from)
				}
			case *finishedMsgTLS13:
				want := ciphersuite.TLS13FinishedVerifyData(secret, sm3Sum(transcript))
				if subtle.ConstantTimeCompare(want, msg.verifyData) != 1 {
					t.Errorf("%s Finished does not verify", m.from)
				}
				transcript = append(transcript, m.raw...)
				return msgs[i+1:]
			case *newSessionTicketMsg:
				t.Errorf("NewSessionTicket inside the %s's flight", m.from)
			}
			transcript = append(transcript, m.raw...)
		}
		t.Fatalf("the %s's flight has no Finished", msgs[0].from)
		return nil
	}
	after := walk(serverMsgs, 0, k[keyLogServerHandshake])
	var tickets, updates int
	post := func(msgs []capturedMessage) {
		for _, m := range msgs {
			switch m.msg.(type) {
			case *newSessionTicketMsg:
				tickets++
			case *keyUpdateMsg:
				updates++
			default:
				t.Errorf("%s sent %s after its Finished", m.from, messageName(m.raw[0]))
			}
		}
	}
	post(after)
	post(walk(clientMsgs, 1, k[keyLogClientHandshake]))
	resumed := leaf[0] == nil
	server := "none (resumed)"
	if !resumed {
		server = fmt.Sprintf("%q", leaf[0].Subject.CommonName)
	}
	t.Logf("%s (%s recorded): %s, %d ClientHello(s), %d+%d handshake messages, server certificate %s, client certificate %v, %d ticket(s), %d KeyUpdate(s), %d+%d bytes of data",
		c.name, c.ourSide, suite.Name, len(chs), len(serverMsgs), len(clientMsgs), server, leaf[1] != nil,
		tickets, updates, clientData, serverData)
	if clientData == 0 || serverData == 0 {
		t.Error("no application data both ways")
	}
}

func sm3Sum(b []byte) []byte {
	t := newTranscript(false)
	t.Write(b)
	return t.Sum()
}

func slicesContainsUint16(s []uint16, v uint16) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// checkCapturedShares checks the wire facts of TLS13.md §10 on a peer's
// hello: the key shares of the negotiated group have the sizes and layout
// of their group, the SM2 point first and uncompressed.
func checkCapturedShares(t *testing.T, ch *clientHelloMsg, sh *serverHelloMsg) {
	t.Helper()
	group := CurveID(sh.tls13.serverShare.group)
	sizes := map[CurveID][2]int{
		CurveSM2:         {65, 65},
		CurveSM2MLKEM768: {65 + 1184, 65 + 1088},
	}[group]
	wantClient, wantServer := sizes[0], sizes[1]
	if wantClient == 0 {
		t.Fatalf("the ServerHello's group is %v", group)
	}
	var client []byte
	for _, ks := range ch.tls13.keyShares {
		if ks.group == uint16(group) {
			client = ks.data
		}
	}
	server := sh.tls13.serverShare.data
	if len(client) != wantClient || len(server) != wantServer || client[0] != 4 || server[0] != 4 {
		t.Fatalf("%v shares: client %d bytes (%x…), server %d bytes (%x…); want %d and %d, each starting with an uncompressed point",
			group, len(client), client[:min(len(client), 1)], len(server), server[:min(len(server), 1)], wantClient, wantServer)
	}
	if _, err := sm2.NewPublicKey(client[:65]); err != nil {
		t.Errorf("the client's SM2 point: %v", err)
	}
	if _, err := sm2.NewPublicKey(server[:65]); err != nil {
		t.Errorf("the server's SM2 point: %v", err)
	}
	t.Logf("%v: client share %d bytes, server share %d bytes", group, len(client), len(server))
}

var captureGlob = filepath.Join("..", "testdata", "tls13", "*.capture")
