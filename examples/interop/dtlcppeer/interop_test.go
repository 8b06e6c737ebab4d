// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dtlcppeer

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	gdtlcp "gitee.com/Trisia/gotlcp/dtlcp"
	gx509 "github.com/emmansun/gmsm/smx509"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/dtlcp"
)

const td = "../../../testdata/tlcp/"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(td + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Our side's configuration.

func ourPair(t testing.TB, who string) tlcp.CertificatePair {
	p, err := tlcp.LoadCertificatePair(td+who+"_sign.pem", td+who+"_sign.key", td+who+"_enc.pem", td+who+"_enc.key")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ourRoots(t testing.TB) *smx509.CertPool {
	ca, err := smx509.ParseCertificatePEM(read(t, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := smx509.NewCertPool()
	pool.AddCert(ca)
	return pool
}

func ourServerConfig(t testing.TB, auth bool) *tlcp.Config {
	cfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{ourPair(t, "server")}}
	if auth {
		cfg.ClientAuth = tlcp.RequireAndVerifyClientCert
		cfg.ClientCAs = ourRoots(t)
	}
	return cfg
}

func ourClientConfig(t testing.TB, suite uint16, auth bool) *tlcp.Config {
	cfg := &tlcp.Config{RootCAs: ourRoots(t), ServerName: "localhost", CipherSuites: []uint16{suite}}
	if auth {
		cfg.Certificates = []tlcp.CertificatePair{ourPair(t, "client")}
	}
	return cfg
}

// gotlcp's configuration.

func theirCert(t testing.TB, name string) gdtlcp.Certificate {
	c, err := gdtlcp.X509KeyPair(read(t, name+".pem"), read(t, name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func theirRoots(t testing.TB) *gx509.CertPool {
	pool := gx509.NewCertPool()
	if !pool.AppendCertsFromPEM(read(t, "ca.pem")) {
		t.Fatal("gotlcp: CA")
	}
	return pool
}

func theirServerConfig(t testing.TB, auth bool) *gdtlcp.Config {
	cfg := &gdtlcp.Config{
		Certificates: []gdtlcp.Certificate{theirCert(t, "server_sign"), theirCert(t, "server_enc")},
		SessionCache: gdtlcp.NewLRUSessionCache(16),
	}
	if auth {
		cfg.ClientAuth = gdtlcp.RequireAndVerifyClientCert
		cfg.ClientCAs = theirRoots(t)
	}
	return cfg
}

func theirClientConfig(t testing.TB, suite uint16, auth bool) *gdtlcp.Config {
	cfg := &gdtlcp.Config{RootCAs: theirRoots(t), ServerName: "localhost", CipherSuites: []uint16{suite}, EnableDebug: os.Getenv("GOTLCP_DEBUG") != ""}
	if auth {
		cfg.Certificates = []gdtlcp.Certificate{theirCert(t, "client_sign"), theirCert(t, "client_enc")}
	}
	return cfg
}

var suites = []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3}

type cell struct {
	suite  uint16
	auth   bool
	resume bool
}

func (c cell) String() string {
	return fmt.Sprintf("%s/clientcert=%v/resume=%v", ciphersuite.Name(c.suite), c.auth, c.resume)
}

func cells() []cell {
	var cs []cell
	for _, s := range suites {
		ecdhe := ciphersuite.Lookup(s).KeyExchange == ciphersuite.KeyExchangeECDHE
		for _, auth := range []bool{false, true} {
			if ecdhe && !auth {
				continue // TLCP's ECDHE needs the client's encryption certificate
			}
			cs = append(cs, cell{s, auth, false}, cell{s, auth, true})
		}
	}
	return cs
}

var opts = &dtlcp.Options{RetransmitTimeout: 200 * time.Millisecond, HandshakeTimeout: 15 * time.Second}

// TestOurClientTheirServer: shangmi's client, gotlcp's server.
func TestOurClientTheirServer(t *testing.T) {
	for _, c := range cells() {
		t.Run(c.String(), func(t *testing.T) {
			scfg := theirServerConfig(t, c.auth)
			ccfg := ourClientConfig(t, c.suite, c.auth)
			ccfg.ClientSessionCache = tlcp.NewLRUClientSessionCache(4)
			rounds := 1
			if c.resume {
				rounds = 2
			}
			for i := range rounds {
				spc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
				if err != nil {
					t.Fatal(err)
				}
				errc := make(chan error, 1)
				go func() {
					s := gdtlcp.Server(spc, nil, scfg)
					defer s.Close()
					if err := s.Handshake(); err != nil {
						errc <- fmt.Errorf("gotlcp server: %w", err)
						return
					}
					buf := make([]byte, 2048)
					n, err := s.Read(buf)
					if err == nil {
						_, err = s.Write(buf[:n])
					}
					errc <- err
				}()
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				cc, err := dtlcp.DialWithOptions(ctx, "udp", spc.LocalAddr().String(), ccfg, opts)
				cancel()
				if err != nil {
					t.Fatalf("round %d: our client: %v", i, err)
				}
				msg := []byte("ping from shangmi")
				if _, err := cc.Write(msg); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 100)
				cc.SetReadDeadline(time.Now().Add(5 * time.Second))
				n, err := cc.Read(buf)
				if err != nil || string(buf[:n]) != string(msg) {
					t.Fatalf("round %d: echo %q, %v", i, buf[:n], err)
				}
				if err := <-errc; err != nil {
					t.Fatalf("round %d: %v", i, err)
				}
				st := cc.ConnectionState()
				if st.CipherSuite != c.suite || st.DidResume != (i > 0) {
					t.Fatalf("round %d: suite %s, resumed %v", i, ciphersuite.Name(st.CipherSuite), st.DidResume)
				}
				cc.Close()
			}
		})
	}
}

// TestTheirClientOurServer: gotlcp's client, shangmi's server (a
// dtlcp.Listener, with its HelloVerifyRequest exchange).
func TestTheirClientOurServer(t *testing.T) {
	for _, c := range cells() {
		t.Run(c.String(), func(t *testing.T) {
			l, err := dtlcp.ListenWithOptions("udp", "127.0.0.1:0", ourServerConfig(t, c.auth), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			type result struct {
				st  tlcp.ConnectionState
				err error
			}
			results := make(chan result, 2)
			go func() {
				for {
					sc, err := l.Accept()
					if err != nil {
						return
					}
					go func() {
						defer sc.Close()
						conn := sc.(*dtlcp.Conn)
						buf := make([]byte, 2048)
						n, err := conn.Read(buf)
						if err == nil {
							_, err = conn.Write(buf[:n])
						}
						results <- result{conn.ConnectionState(), err}
					}()
				}
			}()
			ccfg := theirClientConfig(t, c.suite, c.auth)
			ccfg.SessionCache = gdtlcp.NewLRUSessionCache(4)
			rounds := 1
			if c.resume {
				rounds = 2
			}
			for i := range rounds {
				// gotlcp's Dial fails on Linux (WriteTo on a connected
				// socket): its Client on a socket of our own.
				pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
				if err != nil {
					t.Fatal(err)
				}
				gc := gdtlcp.Client(pc, l.Addr(), ccfg)
				done := make(chan error, 1)
				go func() { done <- gc.Handshake() }()
				select {
				case err = <-done:
				case <-time.After(15 * time.Second):
					err = fmt.Errorf("handshake timed out")
				}
				if err != nil {
					gc.Close()
					t.Fatalf("round %d: gotlcp client: %v", i, err)
				}
				msg := []byte("ping from gotlcp")
				if _, err := gc.Write(msg); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 100)
				gc.SetReadDeadline(time.Now().Add(5 * time.Second))
				n, err := gc.Read(buf)
				if err != nil || string(buf[:n]) != string(msg) {
					t.Fatalf("round %d: echo %q, %v", i, buf[:n], err)
				}
				r := <-results
				if r.err != nil {
					t.Fatalf("round %d: our server: %v", i, r.err)
				}
				if r.st.CipherSuite != c.suite || r.st.DidResume != (i > 0) {
					t.Fatalf("round %d: suite %s, resumed %v", i, ciphersuite.Name(r.st.CipherSuite), r.st.DidResume)
				}
				gc.Close()
			}
		})
	}
}

// capture is a socket that logs the datagrams through it.
type capture struct {
	*net.UDPConn
	mu  sync.Mutex
	log []string
}

func (c *capture) note(dir string, b []byte) {
	c.mu.Lock()
	c.log = append(c.log, dir+" "+hex.EncodeToString(b))
	c.mu.Unlock()
}

func (c *capture) Read(b []byte) (int, error) {
	n, err := c.UDPConn.Read(b)
	if err == nil {
		c.note("<", b[:n])
	}
	return n, err
}

func (c *capture) Write(b []byte) (int, error) {
	c.note(">", b)
	return c.UDPConn.Write(b)
}

// TestCapture writes the datagrams of one handshake of our client with
// gotlcp's server to $DTLCP_CAPTURE, for INTEROP.md.
func TestCapture(t *testing.T) {
	out := os.Getenv("DTLCP_CAPTURE")
	if out == "" {
		t.Skip("DTLCP_CAPTURE not set")
	}
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3} {
		spc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		auth := suite == ciphersuite.ECDHE_SM4_CBC_SM3
		go func() {
			s := gdtlcp.Server(spc, nil, theirServerConfig(t, auth))
			defer s.Close()
			if s.Handshake() == nil {
				buf := make([]byte, 100)
				if n, err := s.Read(buf); err == nil {
					s.Write(buf[:n])
				}
			}
		}()
		raw, err := net.DialUDP("udp", nil, spc.LocalAddr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		capc := &capture{UDPConn: raw}
		cc := dtlcp.ClientWithOptions(capc, spc.LocalAddr(), ourClientConfig(t, suite, auth), opts)
		if err := cc.Handshake(); err != nil {
			t.Fatal(err)
		}
		cc.Write([]byte("ping"))
		buf := make([]byte, 100)
		cc.SetReadDeadline(time.Now().Add(5 * time.Second))
		cc.Read(buf)
		cc.Close()
		capc.mu.Lock()
		text := "# " + ciphersuite.Name(suite) + "\n" + strings.Join(capc.log, "\n") + "\n"
		capc.mu.Unlock()
		f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
}
