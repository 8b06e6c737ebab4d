// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcpcreds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/shangmi-go/shangmi/examples/grpc/internal/echo"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// who calls the unary method's "who" and returns the server's report on
// this client, and the server's AuthInfo as the client saw it.
func who(t *testing.T, cc *grpc.ClientConn, opts ...grpc.CallOption) (string, credentials.AuthInfo) {
	t.Helper()
	var p peer.Peer
	out, err := echo.Unary(ctxT(t, 10*time.Second), cc, []byte("who"), append(opts, grpc.Peer(&p))...)
	if err != nil {
		t.Fatalf("unary: %v", err)
	}
	return string(out), p.AuthInfo
}

func mustContain(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%q does not contain %q", got, w)
		}
	}
}

// TestUnaryAndBidi runs both kinds of RPC over each protocol with client
// authentication, and checks what each side learns of the other: the
// handler reads the client's two certificates from peer.FromContext, the
// client the server's two from grpc.Peer.
func TestUnaryAndBidi(t *testing.T) {
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			_, addr := startServer(t, NewServer(serverConfig(t)), nil)
			cc := dial(t, addr, NewClient(clientConfig(t, s.id)))

			got, server := who(t, cc)
			mustContain(t, got, "type="+s.proto, "suite="+tlcp.CipherSuiteName(s.id), "alpn=h2",
				`sign="shangmi test client"`, "chains=1", "level=PrivacyAndIntegrity", "resumed=false")
			if s.proto == ProtocolTLCP {
				mustContain(t, got, `enc="shangmi test client"`, "version=0x0101")
			} else {
				mustContain(t, got, `enc="-"`, "version=0x0304")
			}

			a, ok := server.(AuthInfo)
			if !ok {
				t.Fatalf("client-side AuthInfo is %T", server)
			}
			if a.SecurityLevel != credentials.PrivacyAndIntegrity || a.AuthType() != s.proto {
				t.Errorf("client-side AuthInfo: level %v, type %q", a.SecurityLevel, a.AuthType())
			}
			if a.State.PeerSignCertificate == nil || a.State.PeerSignCertificate.Subject.CommonName != "shangmi test server" {
				t.Errorf("client did not see the server's signing certificate")
			}
			if (a.State.PeerEncCertificate != nil) != (s.proto == ProtocolTLCP) {
				t.Errorf("server's encryption certificate seen: %v, want %v", a.State.PeerEncCertificate != nil, s.proto == ProtocolTLCP)
			}
			if err := a.ValidateAuthority("localhost:443"); err != nil {
				t.Errorf("ValidateAuthority(localhost): %v", err)
			}
			if err := a.ValidateAuthority("example.com"); err == nil {
				t.Error("ValidateAuthority(example.com) accepted a name the certificate does not have")
			}

			// A large message spans several records each way.
			big := make([]byte, 300_000)
			for i := range big {
				big[i] = byte(i * 7)
			}
			out, err := echo.Unary(ctxT(t, 10*time.Second), cc, big)
			if err != nil || string(out) != string(big) {
				t.Fatalf("unary echo of 300 kB: %d bytes back, %v", len(out), err)
			}

			st, err := echo.Bidi(ctxT(t, 10*time.Second), cc)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				msg := fmt.Appendf(nil, "message %d", i)
				if err := st.SendMsg(&msg); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
				var back []byte
				if err := st.RecvMsg(&back); err != nil || string(back) != "echo:"+string(msg) {
					t.Fatalf("receive %d: %q, %v", i, back, err)
				}
			}
			if err := st.CloseSend(); err != nil {
				t.Fatal(err)
			}
			var rest []byte
			if err := st.RecvMsg(&rest); err != io.EOF {
				t.Fatalf("after CloseSend: %v, want io.EOF", err)
			}
		})
	}
}

// TestAutoServer serves TLCP, TLS 1.3-SM and ordinary TLS (grpc's own
// credentials.NewTLS on the client) on one port.
func TestAutoServer(t *testing.T) {
	stdServer, stdClient := ecdsaTLS(t)
	creds := NewAutoServer(serverConfig(t), stdServer)
	if got := creds.Info().SecurityProtocol; got != "tlcp,tls13-sm,tls" {
		t.Errorf("Info().SecurityProtocol = %q", got)
	}
	// Ordinary TLS clients have no SM2 certificate: verify if given.
	cfg := serverConfig(t)
	cfg.ClientAuth = tlcp.VerifyClientCertIfGiven
	_, addr := startServer(t, NewAutoServer(cfg, stdServer), nil)
	for _, s := range suites {
		got, _ := who(t, dial(t, addr, NewClient(clientConfig(t, s.id))))
		mustContain(t, got, "type="+s.proto, "suite="+tlcp.CipherSuiteName(s.id), `sign="shangmi test client"`)
	}
	got, server := who(t, dial(t, addr, credentials.NewTLS(stdClient)))
	mustContain(t, got, "type=tls", "version=0x0304", "alpn=h2")
	if _, ok := server.(credentials.TLSInfo); !ok {
		t.Errorf("ordinary TLS client got AuthInfo %T", server)
	}
	// A client that offers both protocols in one ClientHello.
	both := clientConfig(t, 0)
	both.CipherSuites = nil
	both.MaxVersion = tlcp.VersionTLS13
	got, _ = who(t, dial(t, addr, NewClient(both)))
	mustContain(t, got, "type=tls13-sm")
}

// TestHandshakeFailure checks that a failed handshake reaches the caller
// as codes.Unavailable with the tlcp package's reason in the message.
func TestHandshakeFailure(t *testing.T) {
	_, addr := startServer(t, NewServer(serverConfig(t)), nil)
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			// A client that trusts no root refuses the server.
			cfg := clientConfig(t, s.id)
			cfg.RootCAs = smx509.NewCertPool()
			_, err := echo.Unary(ctxT(t, 10*time.Second), dial(t, addr, NewClient(cfg)), []byte("x"))
			if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "tlcp: ") ||
				!strings.Contains(err.Error(), "certificate") {
				t.Errorf("untrusted server: %v; want Unavailable naming the certificate problem", err)
			}
			t.Logf("untrusted server: %v", err)

			// A client without certificates is refused by the server.
			cfg = clientConfig(t, s.id)
			cfg.Certificates = nil
			_, err = echo.Unary(ctxT(t, 10*time.Second), dial(t, addr, NewClient(cfg)), []byte("x"))
			// In TLS 1.3 the client's handshake is over before the
			// server judges its certificate: the server's alert comes
			// after, and grpc may report the write that the closed
			// connection broke before a read would have shown the alert
			// (as with crypto/tls).
			if status.Code(err) != codes.Unavailable || (s.proto == ProtocolTLCP && !strings.Contains(err.Error(), "tlcp")) {
				t.Errorf("client without certificate: %v; want Unavailable with tlcp's reason", err)
			}
			t.Logf("client without certificate: %v", err)
		})
	}
}

// TestALPNRequired: a peer that negotiates no "h2" is refused, as grpc's
// TLS credentials refuse it.
func TestALPNRequired(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// A tlcp server without ALPN (not through these credentials).
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := tlcp.Server(c, serverConfig(t))
				sc.Handshake()
				io.Copy(io.Discard, sc)
			}()
		}
	}()
	for _, s := range suites {
		raw, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = NewClient(clientConfig(t, s.id)).ClientHandshake(ctxT(t, 10*time.Second), ln.Addr().String(), raw)
		if err == nil || !strings.Contains(err.Error(), "ALPN") {
			t.Errorf("%s: server without ALPN: %v, want an ALPN error", s.name, err)
		}
		raw.Close()
	}
}

// TestDeadlines: an RPC past its deadline ends with DeadlineExceeded; a
// client handshake with a silent server ends at the context's deadline;
// a server handshake with a silent client ends at grpc.ConnectionTimeout.
func TestDeadlines(t *testing.T) {
	_, addr := startServer(t, NewServer(serverConfig(t)), nil)
	cc := dial(t, addr, NewClient(clientConfig(t, suites[0].id)))
	start := time.Now()
	_, err := echo.Unary(ctxT(t, 300*time.Millisecond), cc, []byte("sleep:10s"))
	if status.Code(err) != codes.DeadlineExceeded || time.Since(start) > 5*time.Second {
		t.Errorf("RPC past its deadline: %v after %v", err, time.Since(start))
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // says nothing until the test ends
		}
	}()
	raw, err := net.Dial("tcp", silent.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	start = time.Now()
	_, _, err = NewClient(clientConfig(t, suites[0].id)).ClientHandshake(ctxT(t, 200*time.Millisecond), "127.0.0.1", raw)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("client handshake with a silent server: %v after %v", err, time.Since(start))
	}

	for name, creds := range map[string]credentials.TransportCredentials{
		"NewServer": NewServer(serverConfig(t)), "NewAutoServer": NewAutoServer(serverConfig(t), nil),
	} {
		_, addr := startServer(t, creds, nil, grpc.ConnectionTimeout(300*time.Millisecond))
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = c.Read(make([]byte, 1))
		if err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("%s: a client that says nothing: Read %v after %v, want the server to hang up", name, err, time.Since(start))
		}
		c.Close()
	}
}

// TestReconnectResume: a new connection resumes the session of the last
// one, and after the server restarts on the same address the channel
// reconnects by itself and resumes too (the restarted server keeps the
// credentials, and so the session cache and ticket keys).
func TestReconnectResume(t *testing.T) {
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			screds := NewServer(serverConfig(t))
			srv, addr := startServer(t, screds, nil)
			ccreds := NewClient(clientConfig(t, s.id))

			cc := dial(t, addr, ccreds)
			got, _ := who(t, cc)
			mustContain(t, got, "resumed=false")
			// TLS 1.3 tickets arrive after the handshake: one more
			// round trip makes sure the client has read them.
			who(t, cc)
			cc.Close()

			cc = dial(t, addr, ccreds)
			got, server := who(t, cc)
			mustContain(t, got, "resumed=true", `sign="shangmi test client"`)
			if !server.(AuthInfo).State.DidResume {
				t.Error("client side: DidResume false")
			}

			srv.Stop()
			// The channel notices the connection is gone before the
			// server comes back.
			for st := cc.GetState(); st == connectivity.Ready; st = cc.GetState() {
				if !cc.WaitForStateChange(ctxT(t, 10*time.Second), st) {
					t.Fatal("the channel stayed ready after the server stopped")
				}
			}
			var ln net.Listener
			var err error
			for range 50 { // the port may take a moment to be free
				if ln, err = net.Listen("tcp", addr); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			startServer(t, screds, ln)
			got, _ = who(t, cc, grpc.WaitForReady(true))
			mustContain(t, got, "resumed=true", `sign="shangmi test client"`)
		})
	}
}

func TestInfoCloneOverride(t *testing.T) {
	for _, c := range []struct {
		cfg      *tlcp.Config
		isClient bool
		want     string
	}{
		{&tlcp.Config{}, true, "tlcp"},
		{&tlcp.Config{}, false, "tlcp,tls13-sm"},
		{&tlcp.Config{MaxVersion: tlcp.VersionTLS13}, true, "tlcp,tls13-sm"},
		{&tlcp.Config{MinVersion: tlcp.VersionTLS13}, true, "tls13-sm"},
		{clientConfig(t, suites[2].id), true, "tls13-sm"},
		{clientConfig(t, suites[0].id), true, "tlcp"},
		{&tlcp.Config{MaxVersion: tlcp.VersionTLCP}, false, "tlcp"},
	} {
		var creds credentials.TransportCredentials
		if c.isClient {
			creds = NewClient(c.cfg)
		} else {
			creds = NewServer(c.cfg)
		}
		if got := creds.Info().SecurityProtocol; got != c.want {
			t.Errorf("client %v, Min %#x Max %#x suites %x: Info().SecurityProtocol = %q, want %q",
				c.isClient, c.cfg.MinVersion, c.cfg.MaxVersion, c.cfg.CipherSuites, got, c.want)
		}
	}
	a := NewClient(&tlcp.Config{ServerName: "a"})
	b := a.Clone()
	if err := b.OverrideServerName("b"); err != nil {
		t.Fatal(err)
	}
	if a.Info().ServerName != "a" || b.Info().ServerName != "b" {
		t.Errorf("after Clone and OverrideServerName: %q, %q", a.Info().ServerName, b.Info().ServerName)
	}
}
