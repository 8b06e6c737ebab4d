// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// hostilePeer is a scripted TLCP peer with a record and handshake writer
// of its own. It speaks only plaintext records (the part of a handshake an
// anonymous peer controls before any key is agreed) and sends exactly what
// the test says, including what a Conn never would: oversized messages,
// certificates nobody verifies, truncated headers.
type hostilePeer struct {
	conn net.Conn
	r    *bufio.Reader
	hand []byte // handshake bytes received and not yet returned
}

func newHostilePeer(c net.Conn) *hostilePeer {
	return &hostilePeer{conn: c, r: bufio.NewReader(c)}
}

// dialHostile connects a hostilePeer to addr.
func dialHostile(addr string) (*hostilePeer, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return newHostilePeer(c), nil
}

// record writes one plaintext record as given, whatever its length.
func (h *hostilePeer) record(typ recordType, body []byte) error {
	hdr := []byte{byte(typ), VersionTLCP >> 8, VersionTLCP & 0xff, byte(len(body) >> 8), byte(len(body))}
	_, err := h.conn.Write(append(hdr, body...))
	return err
}

// handshakeBytes writes already framed handshake messages, split into
// records of at most 2^14 bytes.
func (h *hostilePeer) handshakeBytes(msg []byte) error {
	for len(msg) > 0 {
		n := min(len(msg), maxPlaintext)
		if err := h.record(recordTypeHandshake, msg[:n]); err != nil {
			return err
		}
		msg = msg[n:]
	}
	return nil
}

// send marshals m and writes it with handshakeBytes.
func (h *hostilePeer) send(m handshakeMessage) error {
	b, err := m.marshal()
	if err != nil {
		return err
	}
	return h.handshakeBytes(b)
}

// readRecord reads one record.
func (h *hostilePeer) readRecord() (recordType, []byte, error) {
	var hdr [recordHeaderLen]byte
	if _, err := io.ReadFull(h.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	if _, err := io.ReadFull(h.r, body); err != nil {
		return 0, nil, err
	}
	return recordType(hdr[0]), body, nil
}

// readMessage returns the next plaintext handshake message, header
// included. An alert from the other side is returned as an AlertError.
func (h *hostilePeer) readMessage() ([]byte, error) {
	for {
		if len(h.hand) >= 4 {
			n := 4 + (int(h.hand[1])<<16 | int(h.hand[2])<<8 | int(h.hand[3]))
			if len(h.hand) >= n {
				msg := h.hand[:n:n]
				h.hand = h.hand[n:]
				return msg, nil
			}
		}
		typ, body, err := h.readRecord()
		if err != nil {
			return nil, err
		}
		switch typ {
		case recordTypeHandshake:
			h.hand = append(h.hand, body...)
		case recordTypeAlert:
			if len(body) == 2 {
				return nil, AlertError(body[1])
			}
			return nil, errors.New("malformed alert")
		default:
			return nil, fmt.Errorf("unexpected record type %d", typ)
		}
	}
}

// readUntil reads handshake messages until one of type typ has been read.
func (h *hostilePeer) readUntil(typ uint8) error {
	for {
		msg, err := h.readMessage()
		if err != nil {
			return err
		}
		if msg[0] == typ {
			return nil
		}
	}
}

// readAlert reads records until an alert arrives and returns it, or -1
// if the connection ends first.
func (h *hostilePeer) readAlert() int {
	for {
		typ, body, err := h.readRecord()
		if err != nil {
			return -1
		}
		if typ == recordTypeAlert && len(body) == 2 {
			return int(body[1])
		}
	}
}

// hello sends a ClientHello offering suites.
func (h *hostilePeer) hello(suites ...uint16) error {
	return h.send(&clientHelloMsg{
		vers:               VersionTLCP,
		random:             make([]byte, 32),
		sessionID:          []byte{},
		cipherSuites:       suites,
		compressionMethods: []uint8{0},
	})
}

func (h *hostilePeer) Close() error { return h.conn.Close() }

// bigPair returns a double certificate with keys, each certificate about
// size bytes (see bigCertificate), issued by a CA nobody trusts.
func bigPair(t testing.TB, cn string, size int) CertificatePair {
	t.Helper()
	ca, caKey := mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: "Untrusted CA"},
		KeyUsage:              smx509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, nil, nil)
	leaf := func(ku smx509.KeyUsage) Certificate {
		cert, key := mustIssue(t, &smx509.Certificate{
			Subject:         pkix.Name{CommonName: cn},
			DNSNames:        []string{cn},
			KeyUsage:        ku,
			ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, Value: bytes.Repeat([]byte{'P'}, size)}},
		}, ca, caKey)
		return Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
	}
	return CertificatePair{Sign: leaf(smx509.KeyUsageDigitalSignature), Enc: leaf(smx509.KeyUsageKeyAgreement)}
}

// stampPair returns a copy of a bigPair whose certificates carry n in
// their padding: distinct certificates with the same keys.
func stampPair(t testing.TB, p CertificatePair, n int) CertificatePair {
	t.Helper()
	stamped := func(c Certificate) Certificate {
		pad := bytes.Index(c.Certificate[0], bytes.Repeat([]byte{'P'}, 64))
		der := stamp(c.Certificate[0], pad, n)
		leaf, err := smx509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		// Leaf is set, so that the client does not put its own
		// certificates in the cache.
		return Certificate{Certificate: [][]byte{der}, PrivateKey: c.PrivateKey, Leaf: leaf}
	}
	return CertificatePair{Sign: stamped(p.Sign), Enc: stamped(p.Enc)}
}

// bigCertificate returns an SM2 certificate of about size bytes, padded with
// a non-critical private extension, issued by a CA nobody trusts. The
// padding is a run of 'P' bytes, so that a test can stamp each copy with
// a distinct value without re-signing (nobody checks the signature of an
// unverified certificate; every copy still parses).
func bigCertificate(t testing.TB, cn string, ku smx509.KeyUsage, size int) (der []byte, pad int) {
	t.Helper()
	ca, caKey := mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: "Untrusted CA"},
		KeyUsage:              smx509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, nil, nil)
	padding := make([]byte, size)
	for i := range padding {
		padding[i] = 'P'
	}
	cert, _ := mustIssue(t, &smx509.Certificate{
		Subject:         pkix.Name{CommonName: cn},
		DNSNames:        []string{cn},
		KeyUsage:        ku,
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, Value: padding}},
	}, ca, caKey)
	for i := 0; i+64 <= len(cert.Raw); i++ {
		if cert.Raw[i] == 'P' && string(cert.Raw[i:i+64]) == string(padding[:64]) {
			return cert.Raw, i
		}
	}
	t.Fatal("padding not found")
	return nil, 0
}

// ecdsaCertificate returns a self-signed ECDSA P-256 certificate with the
// given key usage: a certificate TLCP cannot use, whatever its usage.
func ecdsaCertificate(t testing.TB, cn string, ku smx509.KeyUsage) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &smx509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: cn},
		DNSNames:     []string{cn},
		KeyUsage:     ku,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// stamp returns a copy of der with n written into its padding at pad.
func stamp(der []byte, pad, n int) []byte {
	out := append([]byte(nil), der...)
	copy(out[pad:], fmt.Sprintf("%016x", n))
	return out
}

// TestServerKeyExchangeShape: a ServerKeyExchange of the other key
// exchange's shape does not parse for the suite, which is decode_error
// (INTEROP.md §7), before its signature is looked at.
func TestServerKeyExchangeShape(t *testing.T) {
	p := getPKI(t)
	params := marshalECDHEParams(p.server.Enc.Leaf.PublicKey.(*sm2.PublicKey).Bytes())
	for _, tc := range []struct {
		suite uint16
		skx   *serverKeyExchangeMsg
		want  string
	}{
		{ciphersuite.ECC_SM4_GCM_SM3, &serverKeyExchangeMsg{params: params, signature: []byte{0x30, 0}}, "carries ECDHE parameters"},
		{ciphersuite.ECDHE_SM4_GCM_SM3, &serverKeyExchangeMsg{signature: []byte{0x30, 0}}, "lacks ECDHE parameters"},
	} {
		t.Run(ciphersuite.Name(tc.suite), func(t *testing.T) {
			c, s := tcpPair(t)
			fakeServer(t, s, func(ch *clientHelloMsg) []handshakeMessage {
				return []handshakeMessage{
					&serverHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{}, cipherSuite: tc.suite},
					&certificateMsg{certificates: [][]byte{p.server.Sign.Certificate[0], p.server.Enc.Certificate[0]}},
					tc.skx,
				}
			})
			err := Client(c, testClientConfig(t)).Handshake()
			wantAlert(t, err, alertDecodeError)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("client error %v", err)
			}
			if got := readAlert(s); got != int(alertDecodeError) {
				t.Fatalf("client sent alert %d, want decode_error", got)
			}
		})
	}
}
