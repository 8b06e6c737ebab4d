// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp/internal/dgram"
)

// memDatagram is one end of an in-memory datagram link: each Write is one
// datagram, queued for the other end's Read (dropped if the queue is
// full, as a socket would). sent records what this end wrote.
type memDatagram struct {
	in, out chan []byte
	done    chan struct{}
	once    *sync.Once

	mu       sync.Mutex
	deadline time.Time
	sent     [][]byte
}

func memDatagramPair() (*memDatagram, *memDatagram) {
	a2b, b2a := make(chan []byte, 256), make(chan []byte, 256)
	done, once := make(chan struct{}), new(sync.Once)
	return &memDatagram{in: b2a, out: a2b, done: done, once: once}, &memDatagram{in: a2b, out: b2a, done: done, once: once}
}

func (m *memDatagram) Read(b []byte) (int, error) {
	m.mu.Lock()
	dl := m.deadline
	m.mu.Unlock()
	var timeout <-chan time.Time
	if !dl.IsZero() {
		d := time.Until(dl)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case p := <-m.in:
		return copy(b, p), nil
	case <-m.done:
		return 0, net.ErrClosed
	case <-timeout:
		return 0, os.ErrDeadlineExceeded
	}
}

func (m *memDatagram) Write(b []byte) (int, error) {
	p := append([]byte(nil), b...)
	m.mu.Lock()
	m.sent = append(m.sent, p)
	m.mu.Unlock()
	select {
	case m.out <- p:
	case <-m.done:
		return 0, net.ErrClosed
	default:
	}
	return len(b), nil
}

func (m *memDatagram) Close() error                  { m.once.Do(func() { close(m.done) }); return nil }
func (m *memDatagram) LocalAddr() net.Addr           { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (m *memDatagram) RemoteAddr() net.Addr          { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2} }
func (m *memDatagram) SetDeadline(t time.Time) error { return m.SetReadDeadline(t) }
func (m *memDatagram) SetReadDeadline(t time.Time) error {
	m.mu.Lock()
	m.deadline = t
	m.mu.Unlock()
	return nil
}
func (m *memDatagram) SetWriteDeadline(time.Time) error { return nil }

var fastDatagram = dgram.Options{RetransmitTimeout: 20 * time.Millisecond, MaxRetransmitTimeout: 200 * time.Millisecond, HandshakeTimeout: 10 * time.Second}

// datagramHandshake runs a DTLCP handshake between ccfg and scfg over an
// in-memory link and exchanges a message each way.
func datagramHandshake(t *testing.T, ccfg, scfg *Config) (client, server *Conn, cEnd *memDatagram) {
	t.Helper()
	ce, se := memDatagramPair()
	t.Cleanup(func() { ce.Close() })
	client = newDatagramConn(ce, ccfg, true, fastDatagram)
	server = newDatagramConn(se, scfg, false, fastDatagram)
	errc := make(chan error, 1)
	go func() {
		err := server.Handshake()
		if err == nil {
			buf := make([]byte, 10)
			var n int
			if n, err = server.Read(buf); err == nil {
				_, err = server.Write(buf[:n])
			}
		}
		errc <- err
	}()
	if err := client.Handshake(); err != nil {
		t.Fatal("client:", err)
	}
	if _, err := client.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := client.Read(buf); err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("client Read: %q, %v", buf[:n], err)
	}
	if err := <-errc; err != nil {
		t.Fatal("server:", err)
	}
	return client, server, ce
}

func datagramConfigs(t testing.TB) (ccfg, scfg *Config) {
	ccfg, scfg = testClientConfig(t), testServerConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
	ccfg.MinVersion, ccfg.MaxVersion = VersionTLCP, VersionTLCP
	scfg.MinVersion, scfg.MaxVersion = VersionTLCP, VersionTLCP
	return ccfg, scfg
}

// TestDatagramMessageSeq checks what the client puts on the wire: a first
// ClientHello with message_seq 0 and no cookie, answered by a
// HelloVerifyRequest, then a second with message_seq 1 and the cookie,
// and message_seq counting on by one per message (a retransmission
// repeating its message's); record sequence numbers rise within each
// epoch, retransmissions included.
func TestDatagramMessageSeq(t *testing.T) {
	ccfg, scfg := datagramConfigs(t)
	_, server, ce := datagramHandshake(t, ccfg, scfg)
	if server.datagramFinishedSeqTolerated() {
		t.Error("our own Finished needed the gotlcp tolerance")
	}
	ce.mu.Lock()
	defer ce.mu.Unlock()
	next := uint16(0)
	var lastSeq [2]int64
	lastSeq[0], lastSeq[1] = -1, -1
	var types []uint8
	for _, d := range ce.sent {
		for rest := d; len(rest) > 0; {
			h, body, more, err := dgram.ParseRecord(rest)
			if err != nil {
				t.Fatal(err)
			}
			rest = more
			if int64(h.Seq) <= lastSeq[h.Epoch] {
				t.Errorf("epoch %d: record sequence number %d after %d", h.Epoch, h.Seq, lastSeq[h.Epoch])
			}
			lastSeq[h.Epoch] = int64(h.Seq)
			if h.Type != dgram.TypeHandshake || h.Epoch != 0 {
				continue
			}
			hh, frag, _, err := dgram.ParseHandshake(body)
			if err != nil {
				t.Fatal(err)
			}
			if int(hh.Seq) < len(types) {
				// A retransmission: the same message again.
				if types[hh.Seq] != hh.Type {
					t.Errorf("%s has the message_seq %d of a %s", messageName(hh.Type), hh.Seq, messageName(types[hh.Seq]))
				}
				continue
			}
			if hh.Seq != next {
				t.Errorf("%s has message_seq %d, want %d", messageName(hh.Type), hh.Seq, next)
			}
			if hh.Type == typeClientHello {
				_, cookie, _ := dgram.SplitCookie(frag)
				if (next == 0) != (len(cookie) == 0) {
					t.Errorf("ClientHello %d has a cookie of %d bytes", next, len(cookie))
				}
			}
			types = append(types, hh.Type)
			next++
		}
	}
	if len(types) < 3 || types[0] != typeClientHello || types[1] != typeClientHello {
		t.Fatalf("client messages in epoch 0: %v", types)
	}
	if lastSeq[1] < 1 {
		t.Fatal("no Finished and data in epoch 1")
	}
}

// TestDatagramFinishedSeqZero: a client that sends its Finished with
// message_seq 0, as gotlcp v1.5.0 does, is accepted by our server. The
// Finished is the one message of epoch 1, so it cannot be mistaken for a
// retransmission, and it is hashed as it came, which is what the peer
// hashes (INTEROP.md §11.7). The misbehaviour is scripted through the
// client's MessageTrace.
func TestDatagramFinishedSeqZero(t *testing.T) {
	for _, resume := range []bool{false, true} {
		ccfg, scfg := datagramConfigs(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		bug := func(c *Conn, sent bool, ct uint8, msg []byte) {
			// After the ClientKeyExchange in a full handshake, the
			// ServerHello in a resumed one, the client's next
			// message is its Finished.
			if ct == uint8(recordTypeHandshake) && (sent && msg[0] == typeClientKeyExchange || !sent && resume && msg[0] == typeServerHello) {
				c.dg.sendSeq = 0
			}
		}
		if resume {
			datagramHandshake(t, ccfg, scfg)
		}
		ccfg.MessageTrace = bug
		client, server, _ := datagramHandshake(t, ccfg, scfg)
		if !server.datagramFinishedSeqTolerated() {
			t.Fatalf("resume=%v: the server did not see the message_seq-0 Finished", resume)
		}
		if client.ConnectionState().DidResume != resume {
			t.Fatalf("DidResume = %v, want %v", client.ConnectionState().DidResume, resume)
		}
	}
}

// feedConn hands out a fixed list of datagrams and then ends: a server
// reads a scripted client's flights with no waiting.
type feedConn struct {
	memDatagram
	feed [][]byte
}

func (f *feedConn) Read(b []byte) (int, error) {
	if len(f.feed) == 0 {
		return 0, net.ErrClosed
	}
	n := copy(b, f.feed[0])
	f.feed = f.feed[1:]
	return n, nil
}

func (f *feedConn) Write(b []byte) (int, error) { return len(b), nil }

// splitDatagrams cuts b into datagrams at 2-byte length prefixes.
func splitDatagrams(b []byte) [][]byte {
	var out [][]byte
	for len(b) >= 2 {
		n := min(int(b[0])<<8|int(b[1]), len(b)-2)
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	return out
}

func joinDatagrams(ds [][]byte) []byte {
	var b []byte
	for _, d := range ds {
		b = append(b, byte(len(d)>>8), byte(len(d)))
		b = append(b, d...)
	}
	return b
}

// FuzzDatagramServer feeds mutated client datagrams, recorded from real
// handshakes, to a DTLCP server: the record, fragment, cookie and
// epoch paths of datagram.go see near-valid input. Nothing may panic.
func FuzzDatagramServer(f *testing.F) {
	_, scfg := datagramConfigs(f)
	// One cookie secret for the recording and the fuzzing, so that the
	// recorded second ClientHello's cookie passes and the server goes on
	// to the rest of the flight.
	jar := &dgram.CookieJar{Rand: bytes.NewReader(make([]byte, 1<<20)), Now: func() time.Time { return fuzzTime }}
	recOpts := fastDatagram
	recOpts.Cookies = jar
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3} {
		ccfg, _ := datagramConfigs(f)
		ccfg.CipherSuites = []uint16{suite}
		ce, se := memDatagramPair()
		client := newDatagramConn(ce, ccfg, true, fastDatagram)
		server := newDatagramConn(se, scfg, false, recOpts)
		go server.Handshake()
		if err := client.Handshake(); err != nil {
			f.Fatal(err)
		}
		ce.mu.Lock()
		f.Add(joinDatagrams(ce.sent))
		ce.mu.Unlock()
		ce.Close()
	}
	opts := dgram.Options{RetransmitTimeout: time.Millisecond, HandshakeTimeout: 50 * time.Millisecond, Cookies: jar}
	f.Fuzz(func(t *testing.T, b []byte) {
		fc := &feedConn{feed: splitDatagrams(b)}
		s := newDatagramConn(fc, scfg, false, opts)
		// With the recorded flights it gets as far as the client's
		// ChangeCipherSpec; the Finished was computed over another server
		// random, so completing would mean a replayed flight was accepted.
		if s.Handshake() == nil {
			t.Fatal("a replayed client flight completed the datagram handshake")
		}
	})
}

// TestDatagramRefusesTLS13: a ClientHello that offers TLS 1.3 over
// datagrams is refused with protocol_version, whatever the server's
// Config allows: that would be DTLS 1.3, another protocol.
func TestDatagramRefusesTLS13(t *testing.T) {
	ccfg, scfg := datagramConfigs(t)
	ccfg.CipherSuites = nil
	ccfg.MinVersion, ccfg.MaxVersion = VersionTLCP, VersionTLS13
	scfg.MinVersion, scfg.MaxVersion = VersionTLCP, VersionTLS13
	ce, se := memDatagramPair()
	defer ce.Close()
	client := newDatagramConn(ce, ccfg, true, fastDatagram)
	server := newDatagramConn(se, scfg, false, fastDatagram)
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	cerr := client.Handshake()
	serr := <-errc
	if serr == nil || !strings.Contains(serr.Error(), "DTLCP is TLCP over datagrams only") {
		t.Fatalf("server: %v", serr)
	}
	if cerr == nil || !strings.Contains(cerr.Error(), "protocol version") {
		t.Fatalf("client: %v, want the server's protocol_version alert", cerr)
	}
}
