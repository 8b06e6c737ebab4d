// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// established returns a connected client and server with the given suite.
func established(t testing.TB, suite uint16) (*Conn, *Conn) {
	t.Helper()
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.CipherSuites = []uint16{suite}
	client, server, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, serr)
	}
	return client, server
}

// writeRawRecord sends a protected record of any content, including an
// empty one, which Write never does.
func writeRawRecord(t testing.TB, c *Conn, typ recordType, data []byte) {
	t.Helper()
	c.out.Lock()
	defer c.out.Unlock()
	out := []byte{byte(typ), 1, 1, 0, 0}
	out, err := c.out.rp.Seal(out, uint8(typ), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(out) - 5
	out[3], out[4] = byte(n>>8), byte(n)
	if _, err := c.conn.Write(out); err != nil {
		t.Fatal(err)
	}
}

func wantAlert(t testing.TB, err error, a alert) {
	t.Helper()
	var ae AlertError
	if errors.As(err, &ae) && alert(ae) == a {
		return
	}
	if err != nil && alertFor(err) == a {
		return
	}
	t.Fatalf("error %v, want alert %v", err, a)
}

// TestWrongRecordVersion: a TLS 1.2 record gets protocol_version from a
// TLCP-only server (tls13_test.go has the TLS 1.3-capable one).
func TestWrongRecordVersion(t *testing.T) {
	c, s := tcpPair(t)
	cfg := testServerConfig(t)
	cfg.MaxVersion = VersionTLCP
	server := Server(s, cfg)
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	// A ClientHello record with version 0x0303.
	c.Write([]byte{22, 3, 3, 0, 4, 1, 0, 0, 0})
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "version 0x0303") {
		t.Fatalf("server error %v", err)
	}
	s.Close()
	got, _ := io.ReadAll(c)
	if !bytes.Equal(got, []byte{21, 1, 1, 0, 2, 2, byte(alertProtocolVersion)}) {
		t.Fatalf("server sent %x, want a protocol_version alert", got)
	}
}

// TestClientHelloVersion: a TLCP record with a TLS ClientHello version.
func TestClientHelloVersion(t *testing.T) {
	c, s := tcpPair(t)
	server := Server(s, testServerConfig(t))
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	hello := &clientHelloMsg{vers: 0x0303, random: make([]byte, 32), cipherSuites: []uint16{0xe053}, compressionMethods: []uint8{0}}
	b, _ := hello.marshal()
	c.Write(append([]byte{22, 1, 1, byte(len(b) >> 8), byte(len(b))}, b...))
	wantAlert(t, <-errc, alertProtocolVersion)
}

// TestRecordOverflow: a record longer than 2^14+2048 is refused.
func TestRecordOverflow(t *testing.T) {
	for _, n := range []int{maxPlaintext + 1, maxCiphertext + 1} {
		c, s := tcpPair(t)
		server := Server(s, testServerConfig(t))
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		c.Write(append([]byte{22, 1, 1, byte(n >> 8), byte(n)}, make([]byte, n)...))
		wantAlert(t, <-errc, alertRecordOverflow)
	}
}

// tamperConn flips one byte of the next application-data record it writes.
type tamperConn struct {
	net.Conn
	mu     sync.Mutex
	offset int // from the start of the record body; negative from its end
	armed  bool
}

func (c *tamperConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	if c.armed && len(b) > 5 && b[0] == byte(recordTypeApplicationData) {
		b = bytes.Clone(b)
		i := 5 + c.offset
		if c.offset < 0 {
			i = len(b) + c.offset
		}
		b[i] ^= 0x01
		c.armed = false
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

// TestBadPaddingAndBadMACSameAlert: CBC padding and MAC failures are both
// bad_record_mac (INTEROP.md §1.5), and GCM tag failures too.
func TestBadPaddingAndBadMACSameAlert(t *testing.T) {
	tests := []struct {
		name   string
		suite  uint16
		offset int
	}{
		// Flipping the IV flips plaintext bits in the first block: the
		// padding stays intact and the MAC fails.
		{"CBC bad MAC", ciphersuite.ECC_SM4_CBC_SM3, 0},
		// Flipping the next-to-last block garbles the padding byte.
		{"CBC bad padding", ciphersuite.ECC_SM4_CBC_SM3, -17},
		{"GCM bad tag", ciphersuite.ECC_SM4_GCM_SM3, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			ccfg.CipherSuites = []uint16{tt.suite}
			c, s := tcpPair(t)
			tc := &tamperConn{Conn: c, offset: tt.offset}
			client, server := Client(tc, ccfg), Server(s, scfg)
			errc := make(chan error, 1)
			go func() { errc <- server.Handshake() }()
			if err := client.Handshake(); err != nil {
				t.Fatal(err)
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			tc.mu.Lock()
			tc.armed = true
			tc.mu.Unlock()
			client.Write([]byte("a message of some length, two blocks or more"))
			_, err := server.Read(make([]byte, 100))
			wantAlert(t, err, alertBadRecordMAC)
			_, err = client.Read(make([]byte, 1))
			wantAlert(t, err, alertBadRecordMAC)
		})
	}
}

// TestEmptyRecords: empty application data is skipped (Tongsuo sends one),
// but not without limit.
func TestEmptyRecords(t *testing.T) {
	client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
	writeRawRecord(t, client, recordTypeApplicationData, nil)
	client.Write([]byte("x"))
	buf := make([]byte, 10)
	if n, err := server.Read(buf); err != nil || string(buf[:n]) != "x" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	for range maxUselessRecords + 1 {
		writeRawRecord(t, client, recordTypeApplicationData, nil)
	}
	_, err := server.Read(buf)
	wantAlert(t, err, alertUnexpectedMessage)
}

// TestEmptyHandshakeRecord: zero-length handshake fragments are illegal.
func TestEmptyHandshakeRecord(t *testing.T) {
	c, s := tcpPair(t)
	server := Server(s, testServerConfig(t))
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	c.Write([]byte{22, 1, 1, 0, 0})
	wantAlert(t, <-errc, alertUnexpectedMessage)
}

// TestRenegotiationRefused: a new ClientHello after the handshake gets a
// no_renegotiation warning and the connection carries on; so does a
// HelloRequest sent to a client.
func TestRenegotiationRefused(t *testing.T) {
	client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
	hello, err := client.makeClientHello()
	if err != nil {
		t.Fatal(err)
	}
	if err := client.writeHandshake(hello, nil); err != nil {
		t.Fatal(err)
	}
	client.Write([]byte("after"))
	buf := make([]byte, 10)
	if n, err := server.Read(buf); err != nil || string(buf[:n]) != "after" {
		t.Fatalf("server read %q, %v", buf[:n], err)
	}
	if err := server.writeHandshake(&helloRequestMsg{}, nil); err != nil {
		t.Fatal(err)
	}
	server.Write([]byte("reply"))
	// The client skips the warning, declines the HelloRequest, reads on.
	if n, err := client.Read(buf); err != nil || string(buf[:n]) != "reply" {
		t.Fatalf("client read %q, %v", buf[:n], err)
	}
	client.Write([]byte("more"))
	if n, err := server.Read(buf); err != nil || string(buf[:n]) != "more" {
		t.Fatalf("server read %q, %v", buf[:n], err)
	}
	// Any other handshake message after the handshake is fatal.
	server.writeHandshake(&serverHelloDoneMsg{}, nil)
	_, err = client.Read(buf)
	wantAlert(t, err, alertUnexpectedMessage)
}

// TestCloseNotifyAndTruncation: Close gives the peer io.EOF; a transport
// that just ends gives an error wrapping io.ErrUnexpectedEOF.
func TestCloseNotifyAndTruncation(t *testing.T) {
	client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
	client.Write([]byte("bye"))
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(server)
	if err != nil || string(got) != "bye" {
		t.Fatalf("read %q, %v", got, err)
	}

	client, server = established(t, ciphersuite.ECC_SM4_GCM_SM3)
	client.NetConn().Close()
	_, err = server.Read(make([]byte, 1))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncation: %v", err)
	}
}

// TestCloseWrite: half close.
func TestCloseWrite(t *testing.T) {
	client, server := established(t, ciphersuite.ECDHE_SM4_GCM_SM3)
	client.Write([]byte("q"))
	if err := client.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(server); err != nil || string(got) != "q" {
		t.Fatalf("%q %v", got, err)
	}
	server.Write([]byte("answer"))
	server.Close()
	if got, err := io.ReadAll(client); err != nil || string(got) != "answer" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := client.Write([]byte("x")); err == nil {
		t.Fatal("Write after CloseWrite succeeded")
	}
}

// fragmentConn splits every plaintext handshake record it writes into
// records of at most n bytes, or with n == 0 coalesces the handshake
// records of one flight into a single record (as Kona does).
type fragmentConn struct {
	net.Conn
	n       int
	pending []byte
	sawCCS  bool
}

func (c *fragmentConn) Write(b []byte) (int, error) {
	// A flight comes as several records in one Write: one at a time.
	total := len(b)
	for len(b) > 5 {
		n := 5 + (int(b[3])<<8 | int(b[4]))
		if _, err := c.writeRecord(b[:n]); err != nil {
			return 0, err
		}
		b = b[n:]
	}
	return total, nil
}

func (c *fragmentConn) writeRecord(b []byte) (int, error) {
	if c.sawCCS || b[0] != byte(recordTypeHandshake) {
		if b[0] == byte(recordTypeChangeCipherSpec) {
			c.sawCCS = true
		}
		if err := c.flush(); err != nil {
			return 0, err
		}
		return c.Conn.Write(b)
	}
	body := b[5:]
	if c.n == 0 {
		c.pending = append(c.pending, body...)
		return len(b), nil
	}
	for len(body) > 0 {
		m := min(len(body), c.n)
		if _, err := c.Conn.Write(append([]byte{22, 1, 1, 0, byte(m)}, body[:m]...)); err != nil {
			return 0, err
		}
		body = body[m:]
	}
	return len(b), nil
}

func (c *fragmentConn) Read(b []byte) (int, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

func (c *fragmentConn) flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	p := c.pending
	c.pending = nil
	_, err := c.Conn.Write(append([]byte{22, 1, 1, byte(len(p) >> 8), byte(len(p))}, p...))
	return err
}

// TestFragmentedAndCoalescedHandshake: the reassembly buffer handles
// messages split over records and records holding several messages, in
// both directions (INTEROP.md §1.7).
func TestFragmentedAndCoalescedHandshake(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100} {
		for _, suite := range []uint16{ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECDHE_SM4_GCM_SM3} {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			ccfg.CipherSuites = []uint16{suite}
			scfg.ClientAuth = RequireAndVerifyClientCert
			c, s := tcpPair(t)
			client := Client(&fragmentConn{Conn: c, n: n}, ccfg)
			server := Server(&fragmentConn{Conn: s, n: n}, scfg)
			errc := make(chan error, 1)
			go func() { errc <- server.Handshake() }()
			if err := client.Handshake(); err != nil {
				t.Fatalf("n=%d: client %v", n, err)
			}
			if err := <-errc; err != nil {
				t.Fatalf("n=%d: server %v", n, err)
			}
			exchange(t, client, server, 1000)
		}
	}
}

// TestConcurrentReadWriteClose exercises the locking; run with -race.
func TestConcurrentReadWriteClose(t *testing.T) {
	client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
	go io.Copy(io.Discard, server)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 3000)
			for {
				if _, err := client.Write(buf); err != nil {
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		client.Read(make([]byte, 10)) // Returns when the connection closes.
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		client.ConnectionState()
	}()
	time.Sleep(50 * time.Millisecond)
	client.Close()
	wg.Wait()
	server.Close()
	if _, err := client.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
}

// TestZeroAllocsSteadyState: Write and Read allocate nothing per record
// once the connection is up.
func TestZeroAllocsSteadyState(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation test")
	}
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3} {
		client, server := established(t, suite)
		wbuf, rbuf := make([]byte, 4096), make([]byte, 4096)
		step := func() {
			if _, err := client.Write(wbuf); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(server, rbuf); err != nil {
				t.Fatal(err)
			}
		}
		step()
		if n := testing.AllocsPerRun(50, step); n != 0 {
			t.Errorf("%s: %v allocations per Write+Read", CipherSuiteName(suite), n)
		}
	}
}

// discardConn reads from r and discards writes; for fuzzing the reader.
type discardConn struct {
	net.Conn
	r io.Reader
}

func (c *discardConn) Read(b []byte) (int, error)       { return c.r.Read(b) }
func (c *discardConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c *discardConn) Close() error                     { return nil }
func (c *discardConn) SetDeadline(time.Time) error      { return nil }
func (c *discardConn) SetWriteDeadline(time.Time) error { return nil }
func (c *discardConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

// FuzzRecordReader feeds arbitrary bytes to both handshakes: any input
// must end in an error, never a panic or a hang.
func FuzzRecordReader(f *testing.F) {
	hello := &clientHelloMsg{vers: VersionTLCP, random: make([]byte, 32), cipherSuites: []uint16{0xe053, 0xe011}, compressionMethods: []uint8{0}}
	b, _ := hello.marshal()
	f.Add(append([]byte{22, 1, 1, byte(len(b) >> 8), byte(len(b))}, b...))
	f.Add([]byte{21, 1, 1, 0, 2, 2, 40})
	f.Add([]byte{22, 1, 1, 0, 4, 14, 0, 0, 0, 20, 1, 1, 0, 1, 1})
	scfg, ccfg := testServerConfig(f), testClientConfig(f)
	ccfg.InsecureSkipVerify = true
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []*Conn{
			Server(&discardConn{r: bytes.NewReader(data)}, scfg),
			Client(&discardConn{r: bytes.NewReader(data)}, ccfg),
		} {
			if err := c.Handshake(); err == nil {
				t.Fatal("handshake succeeded on fuzz input")
			}
		}
	})
}

// TestChangeCipherSpecOrder: Finished before ChangeCipherSpec, a
// ChangeCipherSpec before keys are agreed or where none is expected, and a
// malformed one are all refused.
func TestChangeCipherSpecOrder(t *testing.T) {
	finished := append([]byte{22, 1, 1, 0, 16, 20, 0, 0, 12}, make([]byte, 12)...)
	ccs := []byte{20, 1, 1, 0, 1, 1}
	read := func(wire []byte, expectCCS, keys bool) error {
		c := Client(&discardConn{r: bytes.NewReader(wire)}, &Config{})
		if keys {
			s := ciphersuite.Lookup(ciphersuite.ECC_SM4_GCM_SM3)
			k, _ := s.KeyBlock(make([]byte, 48), make([]byte, 32), make([]byte, 32))
			c.in.nextRP, _ = s.NewRecordProtection(k)
		}
		c.in.Lock()
		defer c.in.Unlock()
		return c.readRecordOrCCS(expectCCS)
	}
	wantAlert(t, read(finished, true, true), alertUnexpectedMessage)
	wantAlert(t, read(ccs, true, false), alertUnexpectedMessage)
	wantAlert(t, read(ccs, false, true), alertUnexpectedMessage)
	wantAlert(t, read([]byte{20, 1, 1, 0, 1, 2}, true, true), alertDecodeError)
	if err := read(ccs, true, true); err != nil {
		t.Fatalf("valid ChangeCipherSpec: %v", err)
	}
	// Application data before the handshake is done.
	wantAlert(t, read([]byte{23, 1, 1, 0, 1, 'x'}, false, false), alertUnexpectedMessage)
	// An unknown content type.
	wantAlert(t, read([]byte{24, 1, 1, 0, 1, 'x'}, false, false), alertUnexpectedMessage)
}
