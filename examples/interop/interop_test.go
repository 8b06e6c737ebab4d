// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package interop

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tjfoc/gmsm/gmtls"
	tjx509 "github.com/tjfoc/gmsm/x509"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// eccSM4CBCSM3 is the one suite gmtls implements correctly.
const eccSM4CBCSM3 uint16 = 0xE013

// timeout bounds every connection: handshake plus data transfer.
const timeout = 10 * time.Second

// certSets are the folders of testdata whose double certificates both
// implementations must accept: one made by this project's smtool, one by
// the openssl CLI. Both give every leaf the SANs localhost and 127.0.0.1,
// which gmtls needs because its client checks the name on every certificate
// the server sends, the encryption certificate included.
var certSets = []string{"tlcp", "openssl"}

// material is one folder of testdata: the root and the four leaves.
type material struct {
	caPEM []byte
	pem   map[string][2][]byte // "server_sign" → cert PEM, key PEM
	der   map[string][]byte    // "server_sign" → cert DER
}

func load(t *testing.T, set string) *material {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", set)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("testdata missing (run bash testdata/gen.sh from the repository root): %v", err)
		}
		return b
	}
	m := &material{caPEM: read("ca.pem"), pem: map[string][2][]byte{}, der: map[string][]byte{}}
	for _, name := range []string{"server_sign", "server_enc", "client_sign", "client_enc"} {
		certPEM := read(name + ".pem")
		m.pem[name] = [2][]byte{certPEM, read(name + ".key")}
		c, err := smx509.ParseCertificate(pemDER(t, certPEM))
		if err != nil {
			t.Fatalf("%s/%s.pem: %v", set, name, err)
		}
		m.der[name] = c.Raw
	}
	return m
}

func pemDER(t *testing.T, b []byte) []byte {
	t.Helper()
	block, rest := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) != 0 {
		t.Fatal("not a single PEM certificate")
	}
	return block.Bytes
}

// ---- this project's side ----

func (m *material) ourPair(t *testing.T, who string) tlcp.CertificatePair {
	t.Helper()
	get := func(name string) tlcp.Certificate {
		c, err := tlcp.X509KeyPair(m.pem[name][0], m.pem[name][1])
		if err != nil {
			t.Fatalf("tlcp.X509KeyPair(%s): %v", name, err)
		}
		return c
	}
	return tlcp.CertificatePair{Sign: get(who + "_sign"), Enc: get(who + "_enc")}
}

func (m *material) ourPool(t *testing.T) *smx509.CertPool {
	t.Helper()
	p := smx509.NewCertPool()
	if !p.AppendCertsFromPEM(m.caPEM) {
		t.Fatal("smx509: CA PEM not accepted")
	}
	return p
}

// ---- gmtls's side ----

func (m *material) theirCert(t *testing.T, name string) gmtls.Certificate {
	t.Helper()
	c, err := gmtls.X509KeyPair(m.pem[name][0], m.pem[name][1])
	if err != nil {
		t.Fatalf("gmtls.X509KeyPair(%s): %v", name, err)
	}
	return c
}

func (m *material) theirPool(t *testing.T) *tjx509.CertPool {
	t.Helper()
	p := tjx509.NewCertPool()
	if !p.AppendCertsFromPEM(m.caPEM) {
		t.Fatal("gmsm/x509: CA PEM not accepted")
	}
	return p
}

// guard runs f, turning a panic inside gmtls into an error: its ECDHE code
// is a bare panic, and one stray negotiation must fail the test, not end
// the whole test binary.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gmtls panicked: %v", r)
		}
	}()
	return f()
}

// ---- the exchange both directions use ----

// payload returns n deterministic bytes that differ per seed, so that a
// record delivered to the wrong place or out of order is noticed.
func payload(seed byte, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*0x9E3779B9 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// The sizes span several records (16 KiB each) and are not multiples of the
// SM4 block size, so CBC padding and record splitting are exercised.
var (
	toServer = payload(1, 50_001)
	toClient = payload(2, 70_013)
)

// clientSide writes toServer, reads and checks toClient, then closes.
func clientSide(c net.Conn) error {
	if _, err := c.Write(toServer); err != nil {
		return fmt.Errorf("client write: %w", err)
	}
	got := make([]byte, len(toClient))
	if _, err := io.ReadFull(c, got); err != nil {
		return fmt.Errorf("client read: %w", err)
	}
	if !bytes.Equal(got, toClient) {
		return errors.New("client received corrupted application data")
	}
	return c.Close()
}

// serverSide reads and checks toServer, writes toClient, then expects the
// client's close_notify as a clean io.EOF.
func serverSide(c net.Conn) error {
	got := make([]byte, len(toServer))
	if _, err := io.ReadFull(c, got); err != nil {
		return fmt.Errorf("server read: %w", err)
	}
	if !bytes.Equal(got, toServer) {
		return errors.New("server received corrupted application data")
	}
	if _, err := c.Write(toClient); err != nil {
		return fmt.Errorf("server write: %w", err)
	}
	var one [1]byte
	if n, err := c.Read(one[:]); n != 0 || err != io.EOF {
		return fmt.Errorf("server: after the data, Read = %d, %v; want 0, io.EOF (close_notify)", n, err)
	}
	return nil
}

// pipe listens on loopback, runs server on the accepted connection in a
// goroutine and client on a dialled one, and returns both errors. Every
// connection has a deadline, and pipe itself gives up after twice timeout.
func pipe(t *testing.T, server, client func(net.Conn) error) (serverErr, clientErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(timeout))

	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- fmt.Errorf("accept: %w", err)
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(timeout))
		done <- server(c)
	}()

	raw, err := net.DialTimeout("tcp", ln.Addr().String(), timeout)
	if err != nil {
		t.Fatal(err)
	}
	raw.SetDeadline(time.Now().Add(timeout))
	clientErr = client(raw)
	raw.Close() // unblocks a server still waiting for the client

	select {
	case serverErr = <-done:
	case <-time.After(2 * timeout):
		t.Fatal("server side did not finish in time")
	}
	return serverErr, clientErr
}

// ---- this project's client against gmtls's server ----

func TestOurClientTheirServer(t *testing.T) {
	for _, set := range certSets {
		m := load(t, set)
		for _, tc := range []struct {
			name          string
			mutual        bool
			includeEnc    bool // client sends SIGN, ENC (tlcp/INTEROP.md D3)
			defaultSuites bool // our client offers its whole default list
			extensions    bool // our client sends server_name and ALPN
			// fixed sets DisableInteropAdaptation: the client sends the
			// forms the switches name, and nothing detected.
			fixed bool
			// adapted: the default client, which takes gmtls's
			// CertificateRequest (rsa_sign listed, INTEROP.md §12.2) for
			// one that wants SIGN, ENC, and sends both.
			adapted bool
		}{
			{name: "server-auth"},
			{name: "server-auth/default-suites", defaultSuites: true},
			{name: "server-auth/sni+alpn", extensions: true},
			{name: "mutual-auth/sign-only", mutual: true, fixed: true},
			{name: "mutual-auth/sign+enc", mutual: true, includeEnc: true},
			{name: "mutual-auth/default", mutual: true, adapted: true},
		} {
			t.Run(set+"/"+tc.name, func(t *testing.T) {
				srvCfg := &gmtls.Config{
					GMSupport: gmtls.NewGMSupport(),
					// SIGN first, ENC second: the order gmtls sends them in.
					Certificates:           []gmtls.Certificate{m.theirCert(t, "server_sign"), m.theirCert(t, "server_enc")},
					CipherSuites:           []uint16{eccSM4CBCSM3},
					SessionTicketsDisabled: true,
				}
				if tc.mutual {
					srvCfg.ClientAuth = gmtls.RequireAndVerifyClientCert
					srvCfg.ClientCAs = m.theirPool(t)
				}
				cliCfg := &tlcp.Config{
					RootCAs:                  m.ourPool(t),
					ServerName:               "localhost",
					CipherSuites:             []uint16{eccSM4CBCSM3},
					ClientCertIncludeEnc:     tc.includeEnc,
					DisableInteropAdaptation: tc.fixed,
				}
				// gmtls's flight, as the client received it: the
				// evidence for the detection rule.
				var flight struct{ sessionIDLen, certTypes []byte }
				cliCfg.MessageTrace = func(_ *tlcp.Conn, sent bool, typ uint8, msg []byte) {
					switch {
					case sent || typ != 22 || len(msg) < 5:
					case msg[0] == 2 && len(msg) > 4+34:
						flight.sessionIDLen = msg[4+34 : 4+35]
					case msg[0] == 13:
						flight.certTypes = bytes.Clone(msg[5 : 5+int(msg[4])])
					}
				}
				if tc.defaultSuites {
					cliCfg.CipherSuites = nil
				}
				if tc.mutual {
					cliCfg.Certificates = []tlcp.CertificatePair{m.ourPair(t, "client")}
				}
				if tc.extensions {
					cliCfg.SendServerName = true
					cliCfg.NextProtos = []string{"x-unknown", "http/1.1"}
					srvCfg.NextProtos = []string{"http/1.1"}
				}

				serverErr, clientErr := pipe(t, func(raw net.Conn) error {
					c := gmtls.Server(raw, srvCfg)
					if err := guard(c.Handshake); err != nil {
						return fmt.Errorf("gmtls server handshake: %w", err)
					}
					st := c.ConnectionState()
					if st.CipherSuite != eccSM4CBCSM3 {
						return fmt.Errorf("gmtls server negotiated %#04x, want %#04x", st.CipherSuite, eccSM4CBCSM3)
					}
					if st.Version != tlcp.VersionTLCP {
						return fmt.Errorf("gmtls server version %#04x", st.Version)
					}
					if tc.extensions && (st.ServerName != "localhost" || st.NegotiatedProtocol != "http/1.1") {
						return fmt.Errorf("gmtls server saw server_name %q, ALPN %q", st.ServerName, st.NegotiatedProtocol)
					}
					if tc.mutual {
						want := 1
						if tc.includeEnc || tc.adapted {
							want = 2
						}
						if len(st.PeerCertificates) != want {
							return fmt.Errorf("gmtls server got %d client certificates, want %d", len(st.PeerCertificates), want)
						}
						if !bytes.Equal(st.PeerCertificates[0].Raw, m.der["client_sign"]) {
							return errors.New("gmtls server: first client certificate is not client_sign")
						}
						if len(st.VerifiedChains) == 0 {
							return errors.New("gmtls server did not verify the client certificate")
						}
						if want == 2 && !bytes.Equal(st.PeerCertificates[1].Raw, m.der["client_enc"]) {
							return errors.New("gmtls server: second client certificate is not client_enc")
						}
					} else if len(st.PeerCertificates) != 0 {
						return errors.New("gmtls server got client certificates it did not ask for")
					}
					return guard(func() error { return serverSide(c) })
				}, func(raw net.Conn) error {
					c := tlcp.Client(raw, cliCfg)
					if err := c.Handshake(); err != nil {
						return fmt.Errorf("our client handshake: %w", err)
					}
					st := c.ConnectionState()
					if err := checkOurState(st, m, "server", true); err != nil {
						return fmt.Errorf("our client: %w", err)
					}
					want := ""
					if tc.extensions {
						want = "http/1.1"
					}
					if st.NegotiatedProtocol != want {
						return fmt.Errorf("our client: ALPN %q, want %q", st.NegotiatedProtocol, want)
					}
					return clientSide(c)
				})
				if serverErr != nil {
					t.Errorf("server (gmtls): %v", serverErr)
				}
				if clientErr != nil {
					t.Errorf("client (ours): %v", clientErr)
				}
				// gmtls never sends a session ID in a full handshake, and
				// lists rsa_sign and ecdsa_sign (1, 64), as crypto/tls.
				if !bytes.Equal(flight.sessionIDLen, []byte{0}) {
					t.Errorf("gmtls ServerHello session ID length %x, want 00", flight.sessionIDLen)
				}
				if tc.mutual && !bytes.Equal(flight.certTypes, []byte{1, 64}) {
					t.Errorf("gmtls CertificateRequest certificate_types %x, want 01 40", flight.certTypes)
				}
			})
		}
	}
}

// checkOurState checks a ConnectionState of package tlcp after a full
// handshake with gmtls: version, suite and which peer certificates arrived.
// peer is "server" or "client"; wantEnc says whether the peer sent its
// encryption certificate (a server always does).
func checkOurState(st tlcp.ConnectionState, m *material, peer string, wantEnc bool) error {
	if !st.HandshakeComplete {
		return errors.New("handshake not complete")
	}
	if st.Version != tlcp.VersionTLCP {
		return fmt.Errorf("version %#04x, want %#04x", st.Version, tlcp.VersionTLCP)
	}
	if st.CipherSuite != eccSM4CBCSM3 {
		return fmt.Errorf("negotiated %s (%#04x), want ECC_SM4_CBC_SM3", tlcp.CipherSuiteName(st.CipherSuite), st.CipherSuite)
	}
	if st.DidResume {
		return errors.New("DidResume on a first connection")
	}
	if st.PeerSignCertificate == nil || !bytes.Equal(st.PeerSignCertificate.Raw, m.der[peer+"_sign"]) {
		return fmt.Errorf("PeerSignCertificate is not %s_sign", peer)
	}
	if wantEnc {
		if st.PeerEncCertificate == nil || !bytes.Equal(st.PeerEncCertificate.Raw, m.der[peer+"_enc"]) {
			return fmt.Errorf("PeerEncCertificate is not %s_enc", peer)
		}
	} else if st.PeerEncCertificate != nil {
		return errors.New("PeerEncCertificate set although the peer sent only its signing certificate")
	}
	if len(st.VerifiedChains) == 0 {
		return errors.New("peer certificate was not verified")
	}
	return nil
}

// ---- gmtls's client against this project's server ----

func TestTheirClientOurServer(t *testing.T) {
	for _, set := range certSets {
		m := load(t, set)
		for _, tc := range []struct {
			name          string
			mutual        bool
			includeEnc    bool   // gmtls client sends SIGN, ENC
			serverName    string // "" means localhost
			defaultSuites bool   // gmtls client offers its default list (E013, E011)
		}{
			{name: "server-auth"},
			{name: "server-auth/ip-name", serverName: "127.0.0.1"},
			{name: "server-auth/default-suites", defaultSuites: true},
			{name: "mutual-auth", mutual: true},
			{name: "mutual-auth/sign+enc", mutual: true, includeEnc: true},
		} {
			t.Run(set+"/"+tc.name, func(t *testing.T) {
				srvCfg := &tlcp.Config{
					Certificates: []tlcp.CertificatePair{m.ourPair(t, "server")},
					// One-shot connections: keep the cache out of the way.
					SessionCacheSize: -1,
				}
				if tc.mutual {
					srvCfg.ClientAuth = tlcp.RequireAndVerifyClientCert
					srvCfg.ClientCAs = m.ourPool(t)
				}
				cliCfg := &gmtls.Config{
					GMSupport:              gmtls.NewGMSupport(),
					RootCAs:                m.theirPool(t),
					ServerName:             "localhost",
					CipherSuites:           []uint16{eccSM4CBCSM3},
					SessionTicketsDisabled: true,
				}
				if tc.serverName != "" {
					cliCfg.ServerName = tc.serverName
				}
				if tc.defaultSuites {
					cliCfg.CipherSuites = nil
				}
				if tc.mutual {
					sign := m.theirCert(t, "client_sign")
					if tc.includeEnc {
						sign.Certificate = append(sign.Certificate, m.der["client_enc"])
					}
					cliCfg.Certificates = []gmtls.Certificate{sign, m.theirCert(t, "client_enc")}
				}

				serverErr, clientErr := pipe(t, func(raw net.Conn) error {
					c := tlcp.Server(raw, srvCfg)
					if err := c.Handshake(); err != nil {
						return fmt.Errorf("our server handshake: %w", err)
					}
					st := c.ConnectionState()
					if tc.mutual {
						if err := checkOurState(st, m, "client", tc.includeEnc); err != nil {
							return fmt.Errorf("our server: %w", err)
						}
					} else if err := checkServerOnly(st); err != nil {
						return fmt.Errorf("our server: %w", err)
					}
					return serverSide(c)
				}, func(raw net.Conn) error {
					c := gmtls.Client(raw, cliCfg)
					if err := guard(c.Handshake); err != nil {
						return fmt.Errorf("gmtls client handshake: %w", err)
					}
					st := c.ConnectionState()
					if st.CipherSuite != eccSM4CBCSM3 {
						return fmt.Errorf("gmtls client negotiated %#04x, want %#04x", st.CipherSuite, eccSM4CBCSM3)
					}
					if st.Version != tlcp.VersionTLCP {
						return fmt.Errorf("gmtls client version %#04x", st.Version)
					}
					if len(st.PeerCertificates) != 2 ||
						!bytes.Equal(st.PeerCertificates[0].Raw, m.der["server_sign"]) ||
						!bytes.Equal(st.PeerCertificates[1].Raw, m.der["server_enc"]) {
						return fmt.Errorf("gmtls client got %d server certificates, want exactly server_sign, server_enc", len(st.PeerCertificates))
					}
					if len(st.VerifiedChains) == 0 {
						return errors.New("gmtls client did not verify the server certificates")
					}
					return guard(func() error { return clientSide(c) })
				})
				if serverErr != nil {
					t.Errorf("server (ours): %v", serverErr)
				}
				if clientErr != nil {
					t.Errorf("client (gmtls): %v", clientErr)
				}
			})
		}
	}
}

func checkServerOnly(st tlcp.ConnectionState) error {
	if !st.HandshakeComplete || st.Version != tlcp.VersionTLCP || st.DidResume {
		return fmt.Errorf("state: complete=%v version=%#04x resumed=%v", st.HandshakeComplete, st.Version, st.DidResume)
	}
	if st.CipherSuite != eccSM4CBCSM3 {
		return fmt.Errorf("negotiated %s (%#04x), want ECC_SM4_CBC_SM3", tlcp.CipherSuiteName(st.CipherSuite), st.CipherSuite)
	}
	if len(st.PeerCertificates) != 0 || st.PeerSignCertificate != nil {
		return errors.New("client certificates present without client authentication")
	}
	return nil
}

// ---- failures must be failures ----

// TestRejections checks that verification is really on in both directions:
// each case must make the handshake fail on the side named by wantFail,
// within the deadlines, and never pass silently.
func TestRejections(t *testing.T) {
	m := load(t, "tlcp")
	other := load(t, "openssl") // a second, unrelated CA

	theirServer := func(mutual bool) func(net.Conn) error {
		cfg := &gmtls.Config{
			GMSupport:              gmtls.NewGMSupport(),
			Certificates:           []gmtls.Certificate{m.theirCert(t, "server_sign"), m.theirCert(t, "server_enc")},
			CipherSuites:           []uint16{eccSM4CBCSM3},
			SessionTicketsDisabled: true,
		}
		if mutual {
			cfg.ClientAuth = gmtls.RequireAndVerifyClientCert
			cfg.ClientCAs = m.theirPool(t)
		}
		return func(raw net.Conn) error { return guard(gmtls.Server(raw, cfg).Handshake) }
	}
	ourClient := func(cfg *tlcp.Config) func(net.Conn) error {
		return func(raw net.Conn) error { return tlcp.Client(raw, cfg).Handshake() }
	}
	ourServer := func(cfg *tlcp.Config) func(net.Conn) error {
		cfg.Certificates = []tlcp.CertificatePair{m.ourPair(t, "server")}
		cfg.SessionCacheSize = -1
		return func(raw net.Conn) error { return tlcp.Server(raw, cfg).Handshake() }
	}
	theirClient := func(withCert *material) func(net.Conn) error {
		cfg := &gmtls.Config{
			GMSupport:              gmtls.NewGMSupport(),
			RootCAs:                m.theirPool(t),
			ServerName:             "localhost",
			CipherSuites:           []uint16{eccSM4CBCSM3},
			SessionTicketsDisabled: true,
		}
		if withCert != nil {
			// GetClientCertificate, because gmtls would otherwise send
			// nothing when the issuer is not among the requested CAs.
			sign := withCert.theirCert(t, "client_sign")
			cfg.GetClientCertificate = func(*gmtls.CertificateRequestInfo) (*gmtls.Certificate, error) {
				return &sign, nil
			}
		}
		return func(raw net.Conn) error { return guard(gmtls.Client(raw, cfg).Handshake) }
	}

	for _, tc := range []struct {
		name     string
		server   func(net.Conn) error
		client   func(net.Conn) error
		wantFail string // "client" or "server": the side that must detect it
		wantText string // if set, the detecting side's error must contain it
	}{
		{
			name:     "our client, server from an unknown CA",
			server:   theirServer(false),
			client:   ourClient(&tlcp.Config{RootCAs: other.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{eccSM4CBCSM3}}),
			wantFail: "client",
		},
		{
			name:     "our client, wrong server name",
			server:   theirServer(false),
			client:   ourClient(&tlcp.Config{RootCAs: m.ourPool(t), ServerName: "wrong.example", CipherSuites: []uint16{eccSM4CBCSM3}}),
			wantFail: "client",
		},
		{
			// Our client has no certificate, so it answers the
			// CertificateRequest with an empty list; gmtls must parse that
			// and refuse for lack of a certificate, not for a bad message.
			name:     "their server requires a client certificate, our client has none",
			server:   theirServer(true),
			client:   ourClient(&tlcp.Config{RootCAs: m.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{eccSM4CBCSM3}}),
			wantFail: "server",
			wantText: "didn't provide a certificate",
		},
		{
			name:   "their server, our client certificate from an unknown CA",
			server: theirServer(true),
			client: ourClient(&tlcp.Config{RootCAs: m.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{eccSM4CBCSM3},
				Certificates: []tlcp.CertificatePair{other.ourPair(t, "client")}}),
			wantFail: "server",
			wantText: "failed to verify client's certificate",
		},
		{
			name:     "our server requires a client certificate, their client has none",
			server:   ourServer(&tlcp.Config{ClientAuth: tlcp.RequireAndVerifyClientCert, ClientCAs: m.ourPool(t)}),
			client:   theirClient(nil),
			wantFail: "server",
			wantText: "no certificate",
		},
		{
			name:     "our server, their client certificate from an unknown CA",
			server:   ourServer(&tlcp.Config{ClientAuth: tlcp.RequireAndVerifyClientCert, ClientCAs: m.ourPool(t)}),
			client:   theirClient(other),
			wantFail: "server",
			wantText: "unknown authority",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serverErr, clientErr := pipe(t, tc.server, tc.client)
			detected := clientErr
			if tc.wantFail == "server" {
				detected = serverErr
			}
			if detected == nil {
				t.Fatalf("%s accepted the handshake (server err: %v, client err: %v)", tc.wantFail, serverErr, clientErr)
			}
			if tc.wantText != "" && !strings.Contains(detected.Error(), tc.wantText) {
				t.Fatalf("%s failed for another reason: %v", tc.wantFail, detected)
			}
			if serverErr == nil || clientErr == nil {
				// The other side must learn of the failure too (an alert
				// or the closed connection), not believe it succeeded.
				t.Errorf("one side completed the handshake: server err %v, client err %v", serverErr, clientErr)
			}
			t.Logf("server: %v; client: %v", serverErr, clientErr)
		})
	}
}

// ---- session caches on both sides, no resumption possible ----

// TestNoResumption runs two connections in each direction with session
// caching enabled on both ends. gmtls resumes only with session tickets and
// sends an empty session ID; package tlcp resumes only by session ID and
// never does tickets. So the second connection must be a clean full
// handshake: our client must not try to resume on an empty ID, and our
// server must ignore the session_ticket extension gmtls's client sends.
func TestNoResumption(t *testing.T) {
	m := load(t, "tlcp")

	t.Run("our client, their server", func(t *testing.T) {
		srvCfg := &gmtls.Config{
			GMSupport:    gmtls.NewGMSupport(),
			Certificates: []gmtls.Certificate{m.theirCert(t, "server_sign"), m.theirCert(t, "server_enc")},
			CipherSuites: []uint16{eccSM4CBCSM3},
		}
		cliCfg := &tlcp.Config{
			RootCAs: m.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{eccSM4CBCSM3},
			ClientSessionCache: tlcp.NewLRUClientSessionCache(4),
		}
		for i := range 2 {
			serverErr, clientErr := pipe(t, func(raw net.Conn) error {
				c := gmtls.Server(raw, srvCfg)
				if err := guard(c.Handshake); err != nil {
					return err
				}
				if c.ConnectionState().DidResume {
					return errors.New("gmtls server resumed")
				}
				return guard(func() error { return serverSide(c) })
			}, func(raw net.Conn) error {
				c := tlcp.Client(raw, cliCfg)
				if err := c.Handshake(); err != nil {
					return err
				}
				if err := checkOurState(c.ConnectionState(), m, "server", true); err != nil {
					return err
				}
				return clientSide(c)
			})
			if serverErr != nil || clientErr != nil {
				t.Fatalf("connection %d: server (gmtls): %v; client (ours): %v", i+1, serverErr, clientErr)
			}
		}
	})

	t.Run("their client, our server", func(t *testing.T) {
		srvCfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{m.ourPair(t, "server")}}
		cliCfg := &gmtls.Config{
			GMSupport: gmtls.NewGMSupport(), RootCAs: m.theirPool(t), ServerName: "localhost",
			CipherSuites:       []uint16{eccSM4CBCSM3},
			ClientSessionCache: gmtls.NewLRUClientSessionCache(4), // makes it send session_ticket
		}
		for i := range 2 {
			serverErr, clientErr := pipe(t, func(raw net.Conn) error {
				c := tlcp.Server(raw, srvCfg)
				if err := c.Handshake(); err != nil {
					return err
				}
				if err := checkServerOnly(c.ConnectionState()); err != nil {
					return err
				}
				return serverSide(c)
			}, func(raw net.Conn) error {
				c := gmtls.Client(raw, cliCfg)
				if err := guard(c.Handshake); err != nil {
					return err
				}
				if c.ConnectionState().DidResume {
					return errors.New("gmtls client resumed")
				}
				return guard(func() error { return clientSide(c) })
			})
			if serverErr != nil || clientErr != nil {
				t.Fatalf("connection %d: server (ours): %v; client (gmtls): %v", i+1, serverErr, clientErr)
			}
		}
	})
}

// TestGmtlsECDHE: gmtls offers ECDHE_SM4_CBC_SM3 (0xE011) but does not
// implement it: its server side is an unconditional panic and its client
// side does TLS 1.0 style ECDH with a SHA-1 signature check instead of the
// SM2 key exchange. Forced onto that suite, our endpoints must fail the
// handshake cleanly (an error, no hang) and gmtls must not succeed either.
func TestGmtlsECDHE(t *testing.T) {
	m := load(t, "tlcp")
	const ecdheSM4CBCSM3 uint16 = 0xE011

	t.Run("their client, our server", func(t *testing.T) {
		srvCfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{m.ourPair(t, "server")}, ClientCAs: m.ourPool(t), SessionCacheSize: -1}
		cliCfg := &gmtls.Config{
			GMSupport: gmtls.NewGMSupport(), RootCAs: m.theirPool(t), ServerName: "localhost",
			CipherSuites:           []uint16{ecdheSM4CBCSM3},
			Certificates:           []gmtls.Certificate{m.theirCert(t, "client_sign"), m.theirCert(t, "client_enc")},
			SessionTicketsDisabled: true,
		}
		serverErr, clientErr := pipe(t, func(raw net.Conn) error {
			return tlcp.Server(raw, srvCfg).Handshake()
		}, func(raw net.Conn) error {
			return guard(gmtls.Client(raw, cliCfg).Handshake)
		})
		if serverErr == nil || clientErr == nil {
			t.Fatalf("want both sides to fail: server (ours): %v; client (gmtls): %v", serverErr, clientErr)
		}
		t.Logf("server (ours): %v; client (gmtls): %v", serverErr, clientErr)
	})

	t.Run("our client, their server", func(t *testing.T) {
		srvCfg := &gmtls.Config{
			GMSupport:              gmtls.NewGMSupport(),
			Certificates:           []gmtls.Certificate{m.theirCert(t, "server_sign"), m.theirCert(t, "server_enc")},
			CipherSuites:           []uint16{ecdheSM4CBCSM3},
			SessionTicketsDisabled: true,
		}
		cliCfg := &tlcp.Config{
			RootCAs: m.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{ecdheSM4CBCSM3},
			Certificates: []tlcp.CertificatePair{m.ourPair(t, "client")},
		}
		serverErr, clientErr := pipe(t, func(raw net.Conn) error {
			return guard(gmtls.Server(raw, srvCfg).Handshake)
		}, func(raw net.Conn) error {
			return tlcp.Client(raw, cliCfg).Handshake()
		})
		if serverErr == nil || clientErr == nil {
			t.Fatalf("want both sides to fail: server (gmtls): %v; client (ours): %v", serverErr, clientErr)
		}
		t.Logf("server (gmtls): %v; client (ours): %v", serverErr, clientErr)
	})
}
