// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dtlcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/internal/dgram"
)

const td = "../../testdata/tlcp/"

var (
	pkiOnce              sync.Once
	serverPair, clientPr tlcp.CertificatePair
	roots                *smx509.CertPool
)

func loadPKI(t testing.TB) {
	t.Helper()
	pkiOnce.Do(func() {
		var err error
		serverPair, err = tlcp.LoadCertificatePair(td+"server_sign.pem", td+"server_sign.key", td+"server_enc.pem", td+"server_enc.key")
		if err != nil {
			panic(err)
		}
		clientPr, err = tlcp.LoadCertificatePair(td+"client_sign.pem", td+"client_sign.key", td+"client_enc.pem", td+"client_enc.key")
		if err != nil {
			panic(err)
		}
		roots = smx509.NewCertPool()
		pemBytes, err := os.ReadFile(td + "ca.pem")
		if err != nil {
			panic(err)
		}
		ca, err := smx509.ParseCertificatePEM(pemBytes)
		if err != nil {
			panic(err)
		}
		roots.AddCert(ca)
	})
}

// fastOptions keeps the retransmission schedule short, so that a lossy
// link costs the tests little time.
func fastOptions() *Options {
	return &Options{RetransmitTimeout: 20 * time.Millisecond, MaxRetransmitTimeout: 320 * time.Millisecond, HandshakeTimeout: 30 * time.Second}
}

func serverConfig(clientAuth bool) *tlcp.Config {
	cfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{serverPair}}
	if clientAuth {
		cfg.ClientAuth = tlcp.RequireAndVerifyClientCert
		cfg.ClientCAs = roots
	}
	return cfg
}

func clientConfig(suite uint16, clientCert bool) *tlcp.Config {
	cfg := &tlcp.Config{RootCAs: roots, ServerName: "localhost", CipherSuites: []uint16{suite}}
	if clientCert {
		cfg.Certificates = []tlcp.CertificatePair{clientPr}
	}
	return cfg
}

// relay forwards datagrams between clients and a server, losing,
// duplicating, reordering and delaying some. Like a NAT, it gives each
// client address a socket of its own towards the server, so that the
// server sees each client at its own address: a client that comes after
// another is not taken for it restarted on its port (RFC 6347 §4.2.8,
// which TestSameAddressNewHandshake and
// TestStaleFlightBeforeHelloVerifyRequest test on their own).
type relay struct {
	front              *net.UDPConn // the clients' side
	server             *net.UDPAddr
	loss, dup, reorder float64

	mu      sync.Mutex
	rng     *rand.Rand
	backs   map[string]*net.UDPConn // per client address, connected to the server
	client  *net.UDPAddr            // the latest client
	held    [2]*relayed             // a datagram per direction held back for reordering
	counts  struct{ in, dropped, duplicated, reordered int }
	tamper  func(toServer bool, b []byte) [][]byte // optional: replaces forwarding
	closing chan struct{}
	start   time.Time
	log     []relayEvent // the last datagrams and what became of them, for a failure's report
}

// relayed is a datagram and the client it comes from or goes to.
type relayed struct {
	b    []byte
	peer *net.UDPAddr
}

// relayLogLen bounds the relay's log.
const relayLogLen = 400

// relayEvent is one line of the relay's log, formatted only by dump.
type relayEvent struct {
	at       time.Duration
	toServer bool
	what     string
	d        relayed // d.b is the relay's own copy, never written again
}

// note records what happened to d (r.mu held).
func (r *relay) note(toServer bool, what string, d relayed) {
	if len(r.log) == relayLogLen {
		r.log = append(r.log[:0], r.log[relayLogLen/2:]...)
	}
	r.log = append(r.log, relayEvent{time.Since(r.start), toServer, what, d})
}

// describeDatagram lists a datagram's records: type, epoch, sequence
// number, and for a clear handshake record its messages' types and
// message_seq.
func describeDatagram(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		h, body, rest, err := dgram.ParseRecord(b)
		if err != nil {
			sb.WriteString("[unparsable]")
			break
		}
		b = rest
		fmt.Fprintf(&sb, "[t%d e%d s%d", h.Type, h.Epoch, h.Seq)
		if h.Type == 22 && h.Epoch == 0 {
			for len(body) > 0 {
				hh, _, r2, err := dgram.ParseHandshake(body)
				if err != nil {
					break
				}
				fmt.Fprintf(&sb, " m%d/%d@%d+%d", hh.Type, hh.Seq, hh.Offset, hh.FragLen)
				body = r2
			}
		}
		sb.WriteString("]")
	}
	return sb.String()
}

// dump reports the relay's log.
func (r *relay) dump(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	lines := make([]string, len(r.log))
	for i, e := range r.log {
		dir := "s->c"
		if e.toServer {
			dir = "c->s"
		}
		lines[i] = fmt.Sprintf("%8.3fms %s %5d %-10s %s", float64(e.at.Microseconds())/1000, dir, e.d.peer.Port, e.what, describeDatagram(e.d.b))
	}
	t.Logf("relay %+v, last %d datagrams:\n%s", r.counts, len(r.log), strings.Join(lines, "\n"))
	if v, ok := serverErrors.Load(r.server.String()); ok {
		s := v.(*serverLog)
		s.mu.Lock()
		t.Logf("server connections that ended in an error: %d\n%s", len(s.lines), strings.Join(s.lines, "\n"))
		s.mu.Unlock()
	}
}

func newRelay(t testing.TB, server net.Addr, loss, dup, reorder float64, seed uint64) *relay {
	t.Helper()
	front, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{front: front, server: server.(*net.UDPAddr), loss: loss, dup: dup, reorder: reorder,
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), backs: map[string]*net.UDPConn{},
		closing: make(chan struct{}), start: time.Now()}
	go r.pumpFront()
	t.Cleanup(func() {
		close(r.closing)
		front.Close()
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, b := range r.backs {
			b.Close()
		}
	})
	return r
}

func (r *relay) addr() net.Addr { return r.front.LocalAddr() }

// pumpFront takes the clients' datagrams, opening a socket towards the
// server for each new client address.
func (r *relay) pumpFront() {
	buf := make([]byte, 65536)
	for {
		n, from, err := r.front.ReadFromUDP(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.client = from
		back := r.backs[from.String()]
		if back == nil {
			if back, err = net.DialUDP("udp", nil, r.server); err != nil {
				r.mu.Unlock()
				return
			}
			r.backs[from.String()] = back
			go r.pumpBack(back, from)
		}
		r.mu.Unlock()
		for _, out := range r.decide(true, relayed{append([]byte(nil), buf[:n]...), from}) {
			r.send(true, out)
		}
	}
}

// pumpBack takes the server's datagrams for the client at peer.
func (r *relay) pumpBack(back *net.UDPConn, peer *net.UDPAddr) {
	buf := make([]byte, 65536)
	for {
		n, err := back.Read(buf)
		if err != nil {
			return
		}
		for _, out := range r.decide(false, relayed{append([]byte(nil), buf[:n]...), peer}) {
			r.send(false, out)
		}
	}
}

// decide returns the datagrams to send now for d.
func (r *relay) decide(toServer bool, d relayed) []relayed {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tamper != nil {
		r.note(toServer, "tampered", d)
		var out []relayed
		for _, b := range r.tamper(toServer, d.b) {
			out = append(out, relayed{b, d.peer})
		}
		return out
	}
	r.counts.in++
	dir := 0
	if toServer {
		dir = 1
	}
	var out []relayed
	switch p := r.rng.Float64(); {
	case p < r.loss:
		r.counts.dropped++
		r.note(toServer, "dropped", d)
	case p < r.loss+r.reorder && r.held[dir] == nil:
		// Held until the next datagram in this direction has gone.
		r.counts.reordered++
		r.note(toServer, "held", d)
		held := &d
		r.held[dir] = held
		time.AfterFunc(30*time.Millisecond, func() {
			r.mu.Lock()
			if r.held[dir] != held {
				r.mu.Unlock()
				return
			}
			r.held[dir] = nil
			r.note(toServer, "released", *held)
			r.mu.Unlock()
			r.send(toServer, *held)
		})
		return nil
	case p < r.loss+r.reorder+r.dup:
		r.counts.duplicated++
		r.note(toServer, "doubled", d)
		out = append(out, d, d)
	default:
		r.note(toServer, "forwarded", d)
		out = append(out, d)
	}
	if h := r.held[dir]; h != nil && len(out) > 0 {
		r.held[dir] = nil
		r.note(toServer, "released", *h)
		out = append(out, *h)
	}
	return out
}

func (r *relay) send(toServer bool, d relayed) {
	if !toServer {
		r.front.WriteToUDP(d.b, d.peer)
		return
	}
	r.mu.Lock()
	back := r.backs[d.peer.String()]
	r.mu.Unlock()
	if back != nil {
		back.Write(d.b)
	}
}

// serverErrors keeps, per listener address, how serve's connections
// ended, for a failed dial's report: a server whose handshake fails
// sends an alert the lossy link may drop, and the client then sees only
// its own timeout.
var serverErrors sync.Map // string -> *serverLog

type serverLog struct {
	mu    sync.Mutex
	lines []string
}

func (s *serverLog) add(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lines) < 100 {
		s.lines = append(s.lines, fmt.Sprintf(format, args...))
	}
}

// serve accepts connections on l and echoes what each reads.
func serve(t testing.TB, l net.Listener) {
	logv, _ := serverErrors.LoadOrStore(l.Addr().String(), new(serverLog))
	slog := logv.(*serverLog)
	start := time.Now()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			buf := make([]byte, 2048)
			for {
				n, err := c.Read(buf)
				if err != nil {
					if err != io.EOF {
						slog.add("%8.3fms server conn from %v: %v", float64(time.Since(start).Microseconds())/1000, c.RemoteAddr(), err)
					}
					return
				}
				if _, err := c.Write(buf[:n]); err != nil {
					return
				}
			}
		}()
	}
}

func listen(t testing.TB, cfg *tlcp.Config, opts *Options) net.Listener {
	t.Helper()
	l, err := ListenWithOptions("udp", "127.0.0.1:0", cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// echoed keeps, per connection, the messages echo has sent on it: over a
// lossy link a message is written again when its answer is late, and the
// late answers then come before the next message's.
var echoed sync.Map // *Conn -> *[][]byte

// echo writes msg and reads it back, retrying over a lossy link. An answer
// to one of the connection's earlier messages is passed over; any other
// answer fails the test.
func echo(t testing.TB, c *Conn, msg []byte) {
	t.Helper()
	v, _ := echoed.LoadOrStore(c, new([][]byte))
	earlier := v.(*[][]byte)
	defer func() { *earlier = append(*earlier, msg) }()
	isEarlier := func(b []byte) bool {
		for _, m := range *earlier {
			if bytes.Equal(b, m) {
				return true
			}
		}
		return false
	}
	buf := make([]byte, 2048)
	for try := 0; ; try++ {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		for {
			n, err := c.Read(buf)
			if err == nil && isEarlier(buf[:n]) {
				continue // a late answer to an earlier message
			}
			if err == nil {
				if !bytes.Equal(buf[:n], msg) {
					t.Fatalf("echo: got %q, want %q", buf[:n], msg)
				}
				c.SetReadDeadline(time.Time{})
				return
			}
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() || try > 50 {
				t.Fatalf("echo: %v", err)
			}
			break
		}
	}
}

var suites = []uint16{ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3, ciphersuite.ECDHE_SM4_GCM_SM3}

func TestHandshakeClean(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	go serve(t, l)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := DialWithOptions(ctx, "udp", l.Addr().String(), clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	echo(t, c, []byte("hello dtlcp"))
	st := c.ConnectionState()
	if st.CipherSuite != ciphersuite.ECC_SM4_GCM_SM3 || st.Version != tlcp.VersionTLCP {
		t.Fatalf("state %+v", st)
	}
}

// TestSuitesLossy runs every suite, with and without client certificates
// (ECDHE requires them), over a link that loses 20% of the datagrams,
// reorders 10% and duplicates 5%.
func TestSuitesLossy(t *testing.T) {
	loadPKI(t)
	for _, suite := range suites {
		for _, auth := range []bool{false, true} {
			ecdhe := ciphersuite.Lookup(suite).KeyExchange == ciphersuite.KeyExchangeECDHE
			if ecdhe && !auth {
				continue // TLCP's ECDHE needs the client's encryption certificate
			}
			name := fmt.Sprintf("%s/clientcert=%v", ciphersuite.Name(suite), auth)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				l := listen(t, serverConfig(auth), fastOptions())
				go serve(t, l)
				r := newRelay(t, l.Addr(), 0.2, 0.05, 0.1, uint64(suite)*2+map[bool]uint64{false: 0, true: 1}[auth])
				start := time.Now()
				c := handshakeVia(t, r, clientConfig(suite, auth))
				defer c.Close()
				st := c.ConnectionState()
				if st.CipherSuite != suite {
					t.Fatalf("suite %s, want %s", ciphersuite.Name(st.CipherSuite), ciphersuite.Name(suite))
				}
				for i := range 5 {
					echo(t, c, []byte(strings.Repeat(fmt.Sprint(i), 100+i)))
				}
				r.mu.Lock()
				t.Logf("%v; relay: %+v", time.Since(start), r.counts)
				r.mu.Unlock()
			})
		}
	}
}

func handshakeVia(t testing.TB, r *relay, cfg *tlcp.Config) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := DialWithOptions(ctx, "udp", r.addr().String(), cfg, fastOptions())
	if err != nil {
		r.dump(t)
		t.Fatal(err)
	}
	return c
}

// TestResumption resumes a session by its ID over the lossy link.
func TestResumption(t *testing.T) {
	loadPKI(t)
	for _, auth := range []bool{false, true} {
		t.Run(fmt.Sprint("clientcert=", auth), func(t *testing.T) {
			l := listen(t, serverConfig(auth), fastOptions())
			go serve(t, l)
			r := newRelay(t, l.Addr(), 0.2, 0.05, 0.1, 7)
			cfg := clientConfig(ciphersuite.ECC_SM4_GCM_SM3, auth)
			cfg.ClientSessionCache = tlcp.NewLRUClientSessionCache(4)
			for i := range 3 {
				c := handshakeVia(t, r, cfg)
				echo(t, c, []byte("resume"))
				if got, want := c.ConnectionState().DidResume, i > 0; got != want {
					t.Fatalf("connection %d: DidResume = %v, want %v", i, got, want)
				}
				c.Close()
			}
		})
	}
}

// TestWriteLimit: one Write is one record, and a Write too large for
// one datagram fails with the limit.
func TestWriteLimit(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	go serve(t, l)
	opts := fastOptions()
	opts.MTU = 600
	c, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), clientConfig(ciphersuite.ECC_SM4_GCM_SM3, false), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	limit := 600 - dgram.RecordHeaderLen - 24
	echo(t, c, bytes.Repeat([]byte{'x'}, limit))
	_, err = c.Write(make([]byte, limit+1))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(limit)) {
		t.Fatalf("oversize Write: %v, want an error naming %d", err, limit)
	}
	echo(t, c, []byte("still usable"))
}

// TestCloseNotify: Close sends close_notify, and the peer's Read ends
// with io.EOF.
func TestCloseNotify(t *testing.T) {
	loadPKI(t)
	l := listen(t, serverConfig(false), fastOptions())
	got := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- err
			return
		}
		buf := make([]byte, 100)
		for {
			if _, err := c.Read(buf); err != nil {
				got <- err
				return
			}
		}
	}()
	c, err := DialWithOptions(context.Background(), "udp", l.Addr().String(), clientConfig(ciphersuite.ECC_SM4_CBC_SM3, false), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("x"))
	c.Close()
	select {
	case err := <-got:
		if err != io.EOF {
			t.Fatalf("server Read: %v, want io.EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no close_notify")
	}
}
