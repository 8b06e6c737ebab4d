// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dtlcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/internal/dgram"
)

// clientHello returns a minimal DTLCP ClientHello datagram with cookie.
func clientHello(random byte, cookie []byte) []byte {
	body := append([]byte{1, 1}, make([]byte, 32)...)
	body[2] = random
	body = append(body, 0)
	body = append(body, byte(len(cookie)))
	body = append(body, cookie...)
	body = append(body, 0, 2, 0xe0, 0x13, 1, 0)
	b := make([]byte, dgram.RecordHeaderLen+dgram.HandshakeHeaderLen+len(body))
	dgram.PutRecordHeader(b, dgram.TypeHandshake, 0, 0, dgram.HandshakeHeaderLen+len(body))
	dgram.PutHandshakeHeader(b[dgram.RecordHeaderLen:], dgram.HandshakeHeader{Type: dgram.TypeClientHello, Length: len(body), FragLen: len(body)})
	copy(b[dgram.RecordHeaderLen+dgram.HandshakeHeaderLen:], body)
	return b
}

// TestCookieFlood: ClientHellos without a valid cookie, from many
// addresses, are answered with HelloVerifyRequests no larger than they are
// and leave the listener with nothing; a real client still gets in.
func TestCookieFlood(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	ln := l.(*listener)
	var socks []*net.UDPConn
	for range 8 {
		s, err := net.DialUDP("udp", nil, l.Addr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		socks = append(socks, s)
	}
	answered := 0
	buf := make([]byte, 2048)
	for i := range 400 {
		s := socks[i%len(socks)]
		cookie := []byte(nil)
		if i%3 == 0 {
			cookie = []byte(strings.Repeat("f", 32)) // forged
		}
		ch := clientHello(byte(i), cookie)
		if _, err := s.Write(ch); err != nil {
			t.Fatal(err)
		}
		s.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := s.Read(buf)
		if err != nil {
			continue
		}
		answered++
		rh, body, _, err := dgram.ParseRecord(buf[:n])
		if err != nil || rh.Type != dgram.TypeHandshake || body[0] != dgram.TypeHelloVerifyRequest {
			t.Fatalf("answer to a cookie-less ClientHello: %x", buf[:n])
		}
		if n > len(ch) {
			t.Fatalf("HelloVerifyRequest of %d bytes for a ClientHello of %d: amplification", n, len(ch))
		}
		if got := ln.connCount(); got != 0 {
			t.Fatalf("after %d ClientHellos without a cookie the listener holds %d connections", i+1, got)
		}
	}
	if answered < 300 {
		t.Fatalf("only %d of 400 ClientHellos answered", answered)
	}
	go serve(t, l)
	c, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	echo(t, c, []byte("after the flood"))
	if got := ln.connCount(); got != 1 {
		t.Fatalf("listener holds %d connections, want 1", got)
	}
}

// echoes sends n short messages on c, through r, and checks that each comes
// back; cause says what a failure most likely means.
func echoes(t *testing.T, c *Conn, r *relay, n int, cause string) {
	t.Helper()
	buf := make([]byte, 100)
	for i := range n {
		msg := fmt.Sprint("m", i)
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		got, err := c.Read(buf)
		if err != nil || string(buf[:got]) != msg {
			r.dump(t)
			t.Fatalf("echo %d: %q, %v, want %q (%s)", i, buf[:got], err, msg, cause)
		}
	}
}

// TestReplayDropped: after the handshake every datagram from the client is
// delivered twice and the first one again later, and an epoch-0
// application data record is slipped in; the server's echo shows it read
// each record once and nothing of the old epoch.
func TestReplayDropped(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	go serve(t, l)
	r := newRelay(t, l.Addr(), 0, 0, 0, 1)
	c := handshakeVia(t, r, clientConfig(ciphersuite.ECC_SM4_CBC_SM3, false))
	defer c.Close()
	var mu sync.Mutex
	var first []byte
	r.mu.Lock()
	r.tamper = func(toServer bool, b []byte) [][]byte {
		if !toServer || b[0] != 23 {
			return [][]byte{b}
		}
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = b
			return [][]byte{b, b}
		}
		old := make([]byte, dgram.RecordHeaderLen+4)
		dgram.PutRecordHeader(old, 23, 0, 99, 4)
		copy(old[dgram.RecordHeaderLen:], "evil")
		return [][]byte{b, b, first, old}
	}
	r.mu.Unlock()
	echoes(t, c, r, 80, "a replayed or old-epoch record was taken, or a genuine one dropped")
	// Nothing more comes: no second copy of any echo.
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	buf := make([]byte, 100)
	if n, err := c.Read(buf); err == nil {
		t.Fatalf("extra echo %q", buf[:n])
	}
}

// TestFragmentedLossy: an MTU of 256 cuts the certificates into many
// fragments, which a lossy, reordering link scrambles.
func TestFragmentedLossy(t *testing.T) {
	loadPKI(t)
	opts := fastOptions()
	opts.MTU = 256
	l := listen(t, serverConfig(true), opts)
	go serve(t, l)
	r := newRelay(t, l.Addr(), 0.1, 0.1, 0.2, 42)
	c, err := DialWithOptions(context.Background(), "udp", r.addr().String(), clientConfig(ciphersuite.ECDHE_SM4_GCM_SM3, true), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	echo(t, c, []byte("fragmented"))
}

// TestHandshakeTimeout: with no server, the client retransmits its
// ClientHello with a doubling timer and gives up at the deadline.
func TestHandshakeTimeout(t *testing.T) {
	loadPKI(t)
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	var times []time.Time
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			if _, _, err := sink.ReadFrom(buf); err != nil {
				return
			}
			times = append(times, time.Now())
		}
	}()
	opts := &Options{RetransmitTimeout: 50 * time.Millisecond, MaxRetransmitTimeout: 200 * time.Millisecond, HandshakeTimeout: 900 * time.Millisecond}
	start := time.Now()
	_, err = DialWithOptions(context.Background(), "udp", sink.LocalAddr().String(), clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false), opts)
	elapsed := time.Since(start)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Dial: %v, want a deadline error", err)
	}
	if elapsed < 850*time.Millisecond || elapsed > 2*time.Second {
		t.Fatalf("gave up after %v, want about 900ms", elapsed)
	}
	sink.Close()
	<-done
	// 0, 50, 150, 350, 550, 750: the gaps double up to the cap.
	if len(times) < 5 || len(times) > 7 {
		t.Fatalf("%d ClientHellos sent, want 5 to 7", len(times))
	}
	for i := 2; i < len(times); i++ {
		if g, p := times[i].Sub(times[i-1]), times[i-1].Sub(times[i-2]); g < p*3/2 && g < 180*time.Millisecond {
			t.Fatalf("gap %d is %v after %v: the timer does not double", i, g, p)
		}
	}
}

// TestListenerLifetime: an accepted connection outlives the listener's
// Close, as with TCP; a connection idle for IdleTimeout is closed and
// forgotten.
func TestListenerLifetime(t *testing.T) {
	loadPKI(t)
	opts := fastOptions()
	opts.IdleTimeout = 300 * time.Millisecond
	l := listen(t, serverConfig(false), opts)
	ln := l.(*listener)
	go serve(t, l)
	c, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	echo(t, c, []byte("before Close"))
	l.Close()
	echo(t, c, []byte("after Close"))
	if _, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false),
		&Options{RetransmitTimeout: 20 * time.Millisecond, HandshakeTimeout: 200 * time.Millisecond}); err == nil {
		t.Fatal("a closed listener accepted a new client")
	}
	deadline := time.Now().Add(3 * time.Second)
	for ln.connCount() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the idle connection was not expired")
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-ln.sockDone:
	case <-time.After(time.Second):
		t.Fatal("the socket stayed open after the last connection went")
	}
}

// TestServerHelloRecordSeq: after a HelloVerifyRequest sent with the first
// ClientHello's record sequence number, the server's first record takes
// the second ClientHello's, so that a client with a replay window does not
// drop it (RFC 6347 §4.2.1).
func TestServerHelloRecordSeq(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	go serve(t, l)
	r := newRelay(t, l.Addr(), 0, 0, 0, 1)
	var mu sync.Mutex
	var fromClient, fromServer []dgram.RecordHeader
	r.mu.Lock()
	r.tamper = func(toServer bool, b []byte) [][]byte {
		h, _, _, err := dgram.ParseRecord(b)
		if err == nil && h.Epoch == 0 && h.Type == dgram.TypeHandshake {
			mu.Lock()
			if toServer {
				fromClient = append(fromClient, h)
			} else {
				fromServer = append(fromServer, h)
			}
			mu.Unlock()
		}
		return [][]byte{b}
	}
	r.mu.Unlock()
	c := handshakeVia(t, r, clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false))
	defer c.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(fromClient) < 2 || len(fromServer) < 2 {
		t.Fatalf("%d client and %d server datagrams", len(fromClient), len(fromServer))
	}
	if fromServer[0].Seq != fromClient[0].Seq {
		t.Errorf("HelloVerifyRequest record %d, first ClientHello's %d", fromServer[0].Seq, fromClient[0].Seq)
	}
	if fromServer[1].Seq != fromClient[1].Seq {
		t.Errorf("ServerHello record %d, second ClientHello's %d", fromServer[1].Seq, fromClient[1].Seq)
	}
}

// TestAlerts: a client that cannot verify the server sends
// unknown_ca, which the server's handshake reports; a server that
// requires a certificate the client lacks sends bad_certificate.
func TestAlerts(t *testing.T) {
	loadPKI(t)
	for _, tc := range []struct {
		name           string
		auth, clientOK bool
		clientWant     string
		serverWant     string
	}{
		{"unverifiable server", false, false, "certificate", "remote error: tlcp: unknown certificate authority"},
		{"missing client certificate", true, true, "remote error: tlcp: bad certificate", "the client sent no certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := listen(t, serverConfig(tc.auth), fastOptions())
			serverErr := make(chan error, 1)
			go func() {
				c, err := l.Accept()
				if err != nil {
					serverErr <- err
					return
				}
				defer c.Close()
				serverErr <- c.(*Conn).Handshake()
			}()
			cfg := clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false)
			if !tc.clientOK {
				cfg.RootCAs = nil
			}
			_, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), cfg, fastOptions())
			if err == nil || !strings.Contains(err.Error(), tc.clientWant) {
				t.Fatalf("client: %v, want an error containing %q", err, tc.clientWant)

			}
			select {
			case err := <-serverErr:
				if err == nil || !strings.Contains(err.Error(), tc.serverWant) {
					t.Fatalf("server: %v, want an error containing %q", err, tc.serverWant)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the server's handshake did not end")
			}
		})
	}
}

// TestMaxConns: a listener keeps at most MaxConns connections; a client
// beyond them gets no answer until one goes.
func TestMaxConns(t *testing.T) {
	loadPKI(t)
	opts := fastOptions()
	opts.MaxConns = 1
	l := listen(t, serverConfig(false), opts)
	go serve(t, l)
	cfg := clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false)
	c1, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), cfg, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	short := &Options{RetransmitTimeout: 20 * time.Millisecond, HandshakeTimeout: 300 * time.Millisecond}
	if _, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), cfg, short); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("second client: %v, want a handshake timeout", err)
	}
	c1.Close()
	deadline := time.Now().Add(2 * time.Second)
	for l.(*listener).connCount() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	c2, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), cfg, fastOptions())
	if err != nil {
		t.Fatal("after the first left:", err)
	}
	c2.Close()
}

// TestUnconnectedSocket: Client and Server on unconnected sockets, each
// for one peer, the way gotlcp is used; datagrams from a third address
// are ignored.
func TestUnconnectedSocket(t *testing.T) {
	loadPKI(t)
	a, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	noise, err := net.DialUDP("udp", nil, b.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer noise.Close()
	noise.Write(clientHello(1, nil))
	s := ServerWithOptions(b, a.LocalAddr(), serverConfig(false), fastOptions())
	c := ClientWithOptions(a, b.LocalAddr(), clientConfig(ciphersuite.ECDHE_SM4_GCM_SM3, true), fastOptions())
	errc := make(chan error, 1)
	go func() {
		err := s.Handshake()
		if err == nil {
			buf := make([]byte, 100)
			var n int
			if n, err = s.Read(buf); err == nil {
				_, err = s.Write(buf[:n])
			}
		}
		errc <- err
	}()
	echo(t, c, []byte("unconnected"))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestLastFlightRetransmitted: the side that sends a handshake's last
// flight keeps it, and sends it again when the peer, not having seen it,
// retransmits its own: the server's ChangeCipherSpec and Finished in a full
// handshake, the client's in a resumed one. The relay drops that flight
// once.
func TestLastFlightRetransmitted(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	go serve(t, l)
	r := newRelay(t, l.Addr(), 0, 0, 0, 1)
	cfg := clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false)
	cfg.ClientSessionCache = tlcp.NewLRUClientSessionCache(2)
	for _, resumed := range []bool{false, true} {
		dropped := 0
		r.mu.Lock()
		r.tamper = func(toServer bool, b []byte) [][]byte {
			// A datagram that starts with a ChangeCipherSpec: in a full
			// handshake the server's is its last flight, in a resumed
			// one the client's.
			if b[0] == 20 && toServer == resumed && dropped == 0 {
				dropped++
				return nil
			}
			return [][]byte{b}
		}
		r.mu.Unlock()
		c := handshakeVia(t, r, cfg)
		echo(t, c, []byte("after the lost flight"))
		if c.ConnectionState().DidResume != resumed {
			t.Fatalf("DidResume = %v, want %v", c.ConnectionState().DidResume, resumed)
		}
		c.Close()
		r.mu.Lock()
		if dropped != 1 {
			t.Fatalf("resumed=%v: the relay dropped %d flights, want 1", resumed, dropped)
		}
		r.mu.Unlock()
	}
}

// TestSameAddressNewHandshake: a client that starts a new handshake from
// the address of a connection the listener still has (a restart on the
// same port) gets a new connection after the cookie exchange; the old one
// ends.
func TestSameAddressNewHandshake(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	go serve(t, l)
	sock, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	cfg := clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false)
	first := ClientWithOptions(sock, l.Addr(), cfg, fastOptions())
	echo(t, first, []byte("first"))
	// The same socket, a new client: as if the process had restarted.
	second := ClientWithOptions(sock, l.Addr(), cfg, fastOptions())
	echo(t, second, []byte("second"))
	if n := l.(*listener).connCount(); n != 1 {
		t.Fatalf("the listener holds %d connections, want 1", n)
	}
}

// TestHandshakeContext: a context that ends first ends the handshake with
// its error.
func TestHandshakeContext(t *testing.T) {
	loadPKI(t)
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = DialWithOptions(ctx, "udp", sink.LocalAddr().String(), clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false), nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("Dial: %v after %v, want the context's deadline", err, time.Since(start))
	}
}

// TestStaleFlightBeforeHelloVerifyRequest: a client on the address of an
// earlier connection gets that connection's server flight (the server
// retransmits it, or it was late) before the HelloVerifyRequest. Its
// messages carry the message_seq the client expects after the cookie
// exchange; taken, the stale ServerHello would stand in for the real one,
// and the handshake would end at its timeout (CI saw this as a rare
// TestResumption failure over the lossy relay, which then gave every
// client the same address at the server). Its record sequence numbers are
// far ahead, which must not make the client drop the HelloVerifyRequest.
// The client drops what came before the HelloVerifyRequest.
func TestStaleFlightBeforeHelloVerifyRequest(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	go serve(t, l)
	r := newRelay(t, l.Addr(), 0, 0, 0, 1)
	var stale []byte
	var firstClient string
	injected := false
	r.mu.Lock() // the relay's pumps read tamper, and run it, under r.mu
	r.tamper = func(toServer bool, b []byte) [][]byte {
		if !toServer && stale == nil && len(b) > dgram.RecordHeaderLen+1 && b[0] == 22 && b[dgram.RecordHeaderLen] == 2 {
			// The first connection's ServerHello flight, its record
			// sequence numbers moved far ahead, as after many
			// retransmissions.
			for rest := b; len(rest) > 0; {
				h, body, next, err := dgram.ParseRecord(rest)
				if err != nil {
					break
				}
				rec := make([]byte, dgram.RecordHeaderLen, dgram.RecordHeaderLen+len(body))
				dgram.PutRecordHeader(rec, h.Type, h.Epoch, h.Seq+1000, len(body))
				stale = append(stale, append(rec, body...)...)
				rest = next
			}
			firstClient = r.client.String()
		}
		if toServer && stale != nil && !injected && r.client.String() != firstClient {
			// The second client's first datagram: before it reaches the
			// server, the first connection's flight reaches the client.
			injected = true
			r.front.WriteToUDP(stale, r.client)
		}
		return [][]byte{b}
	}
	r.mu.Unlock()
	cfg := clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false)
	first := handshakeVia(t, r, cfg)
	echo(t, first, []byte("first"))
	first.Close()
	r.mu.Lock()
	seen := stale != nil
	r.mu.Unlock()
	if !seen {
		t.Fatal("no ServerHello flight seen")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	second, err := DialWithOptions(ctx, "udp", r.addr().String(), cfg, fastOptions())
	if err != nil {
		r.dump(t)
		t.Fatalf("second client, after the stale flight: %v", err)
	}
	defer second.Close()
	r.mu.Lock()
	done := injected
	r.mu.Unlock()
	if !done {
		t.Fatal("the stale flight was not injected")
	}
	echo(t, second, []byte("second"))
}
