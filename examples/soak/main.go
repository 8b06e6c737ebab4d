// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command soak holds a tlcp server under mixed load and faults for a given
// time, over loopback and in one process, and fails if a correct client
// ever fails or if memory, goroutines or file descriptors grow without
// bound.
//
//	go run ./examples/soak -duration 1h -interval 1m -csv soak.csv -svg soak.svg
//
// The correct clients do full and resumed handshakes on every TLCP suite
// (ECC and ECDHE × GCM and CBC) and both TLS 1.3 suites (GCM, CCM), plus
// the combined ClientHello that offers both protocols; echo small
// messages and bulk transfers (checked byte for byte); update keys; keep connections
// idle; and half-close. The faulty ones close without close_notify, reset
// the TCP connection in the middle of a record, send a ClientHello one
// byte at a time (slowloris), stop reading while the server writes, flip
// a byte of a protected record, send garbage, an oversized record header
// or a truncated ClientHello, idle past the server's timeout, and replay
// the tlcp tests' hostile-peer scripts (testdata/hostile, see
// internal/hostile), each of which must draw its alert. Each faulty
// client checks that the server closes on it within a bound.
//
// Every interval it prints and records the handshakes, bytes, errors by
// kind (the server's and the faulty clients'), resident memory, live heap
// (after a GC), goroutines and open file descriptors. At the end it fits
// a line to each of the last four over the second half of the run and
// fails if the fitted growth over that half exceeds -tolerance of the
// mean plus a small absolute floor (a run needs at least four samples in
// its second half for the check).
//
// On TLS 1.3 connections a correct client also sends KeyUpdates
// (Conn.SendKeyUpdate), requested and not, each followed by an echo
// checked byte for byte; they are counted in the report.
package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/internal/hostile"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// The server's timeouts: what cuts slowloris, idle and non-reading peers.
const (
	handshakeTimeout = 3 * time.Second
	idleTimeout      = 4 * time.Second
	writeTimeout     = 3 * time.Second
	// A faulty client waits this long past the server's timeout for it to
	// close the connection before counting a failure.
	closeGrace = 5 * time.Second
)

func main() {
	duration := flag.Duration("duration", 10*time.Minute, "how long to run")
	interval := flag.Duration("interval", time.Minute, "how often to report and sample")
	workers := flag.Int("workers", 6, "concurrent correct clients")
	faulty := flag.Int("faulty", 2, "concurrent faulty clients")
	csvPath := flag.String("csv", "", "write the samples to this CSV file")
	svgPath := flag.String("svg", "", "write a chart of the samples to this SVG file")
	tolerance := flag.Float64("tolerance", 0.10, "allowed growth over the second half, as a fraction of the mean")
	hostileDir := flag.String("hostile", "testdata/hostile", "the hostile-peer scripts the faulty clients replay (the tlcp tests write and replay them)")
	flag.Parse()

	s := newSoak()
	scripts, err := hostile.Load(*hostileDir)
	if err != nil {
		log.Fatalf("%v (run the soak from the module root, or give -hostile)", err)
	}
	s.scripts = scripts
	if err := s.start(); err != nil {
		log.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); s.correctLoop(stop) }()
	}
	for i := 0; i < *faulty; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); s.faultyLoop(stop) }()
	}

	begin := time.Now()
	s.sample(0) // the baseline, before any load has run long
	tick := time.NewTicker(*interval)
	deadline := time.After(*duration)
loop:
	for {
		select {
		case <-tick.C:
			s.sample(time.Since(begin))
		case <-deadline:
			break loop
		}
	}
	tick.Stop()
	close(stop)
	wg.Wait()
	s.sample(time.Since(begin))
	s.ln.Close()

	if *csvPath != "" {
		if err := s.writeCSV(*csvPath); err != nil {
			log.Fatal(err)
		}
	}
	if *svgPath != "" {
		if err := os.WriteFile(*svgPath, s.chart(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	failed := false
	if f := s.failures(); len(f) > 0 {
		failed = true
		fmt.Printf("FAIL: %d failures (of a correct client, or of the server to cut a faulty one in time); the first:\n", s.correctFail.Load())
		for _, m := range f {
			fmt.Println("  ", m)
		}
	}
	for _, v := range s.growth(*tolerance) {
		fmt.Println(v.String())
		if v.bad {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Println("PASS")
}

type soak struct {
	ln       net.Listener
	addr     string
	srvCfg   *tlcp.Config
	variants []variant
	scripts  []*hostile.Script // replayed by the "hostile script" fault

	full, resumed, resumeMiss atomic.Int64
	bytes                     atomic.Int64
	keyUpdates                atomic.Int64 // sent by correct clients (keyupdate.go)
	correctFail               atomic.Int64

	mu       sync.Mutex
	errs     map[string]int64 // by kind, cumulative
	firstBad []string
	samples  []sample
}

// variant is one protocol and suite a correct client speaks: cfg has its
// own session cache, so that resumption stays within the variant; fresh
// has none, for the full handshakes.
type variant struct {
	name       string
	cfg, fresh *tlcp.Config
}

type sample struct {
	at                  time.Duration
	full, resumed, miss int64
	bytes               int64
	keyUpdates          int64
	errs                map[string]int64
	rss, heap           uint64
	goroutines, fds     int
	correctFailures     int64
}

func newSoak() *soak { return &soak{errs: map[string]int64{}} }

// issue makes an SM2 key and a certificate, signed by parent or self-signed.
func issue(tmpl, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey, error) {
	key, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl.SerialNumber, _ = rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(30*24*time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := smx509.ParseCertificate(der)
	return cert, key, err
}

func pair(ca *smx509.Certificate, caKey *sm2.PrivateKey, eku smx509.ExtKeyUsage, name string) (tlcp.CertificatePair, error) {
	leaf := func(ku smx509.KeyUsage) (tlcp.Certificate, error) {
		cert, key, err := issue(&smx509.Certificate{
			Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
			KeyUsage: ku, BasicConstraintsValid: true, ExtKeyUsage: []smx509.ExtKeyUsage{eku},
		}, ca, caKey)
		if err != nil {
			return tlcp.Certificate{}, err
		}
		return tlcp.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}, nil
	}
	sign, err := leaf(smx509.KeyUsageDigitalSignature)
	if err != nil {
		return tlcp.CertificatePair{}, err
	}
	enc, err := leaf(smx509.KeyUsageKeyEncipherment | smx509.KeyUsageKeyAgreement)
	return tlcp.CertificatePair{Sign: sign, Enc: enc}, err
}

func (s *soak) start() error {
	ca, caKey, err := issue(&smx509.Certificate{
		Subject: pkix.Name{CommonName: "soak CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: smx509.KeyUsageCertSign,
	}, nil, nil)
	if err != nil {
		return err
	}
	pool := smx509.NewCertPool()
	pool.AddCert(ca)
	srvPair, err := pair(ca, caKey, smx509.ExtKeyUsageServerAuth, "soak.example")
	if err != nil {
		return err
	}
	cliPair, err := pair(ca, caKey, smx509.ExtKeyUsageClientAuth, "client.example")
	if err != nil {
		return err
	}
	s.srvCfg = &tlcp.Config{
		Certificates: []tlcp.CertificatePair{srvPair},
		ClientCAs:    pool,
		ClientAuth:   tlcp.VerifyClientCertIfGiven,
		MaxVersion:   tlcp.VersionTLS13,
	}
	s.ln, err = tlcp.Listen("tcp", "127.0.0.1:0", s.srvCfg)
	if err != nil {
		return err
	}
	s.addr = s.ln.Addr().String()
	go s.serve()

	mk := func(name string, suites []uint16, maxVers uint16) variant {
		cfg := &tlcp.Config{
			RootCAs: pool, ServerName: "soak.example", Certificates: []tlcp.CertificatePair{cliPair},
			CipherSuites: suites, MaxVersion: maxVers, ClientSessionCache: tlcp.NewLRUClientSessionCache(4),
		}
		fresh := cfg.Clone()
		fresh.ClientSessionCache = nil
		return variant{name, cfg, fresh}
	}
	for _, id := range []ciphersuite.ID{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3,
		ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_CBC_SM3} {
		s.variants = append(s.variants, mk(ciphersuite.Lookup(id).Name, []uint16{uint16(id)}, tlcp.VersionTLCP))
	}
	s.variants = append(s.variants,
		mk("TLS_SM4_GCM_SM3", []uint16{uint16(ciphersuite.TLS_SM4_GCM_SM3)}, tlcp.VersionTLS13),
		mk("TLS_SM4_CCM_SM3", []uint16{uint16(ciphersuite.TLS_SM4_CCM_SM3)}, tlcp.VersionTLS13),
		mk("both protocols offered", nil, tlcp.VersionTLS13))
	return nil
}

// serve is the server under test: an echo service with the timeouts a
// server facing the Internet would have.
func (s *soak) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.countErr("server accept", err)
			continue
		}
		go s.handle(c.(*tlcp.Conn))
	}
}

func (s *soak) handle(c *tlcp.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	if err := c.Handshake(); err != nil {
		s.countErr("server handshake", err)
		return
	}
	buf := make([]byte, 32<<10)
	for {
		c.SetReadDeadline(time.Now().Add(idleTimeout))
		n, err := c.Read(buf)
		if n > 0 {
			c.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, werr := c.Write(buf[:n]); werr != nil {
				s.countErr("server write", werr)
				return
			}
		}
		if err == io.EOF {
			return // the client half-closed or closed: Close answers with close_notify
		}
		if err != nil {
			s.countErr("server read", err)
			return
		}
	}
}

// kind names an error for the counts: the operation and a short class.
func kind(op string, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return op + ": EOF"
	case errors.As(err, &ne) && ne.Timeout():
		return op + ": timeout"
	case errors.Is(err, syscall.ECONNRESET):
		return op + ": connection reset"
	case errors.Is(err, syscall.EPIPE):
		return op + ": broken pipe"
	}
	msg := err.Error()
	if i := strings.Index(msg, "tlcp: "); i >= 0 {
		msg = msg[i+len("tlcp: "):]
	}
	// The first words name the failure; the rest carries values.
	w := strings.Fields(msg)
	if len(w) > 5 {
		w = w[:5]
	}
	return op + ": " + strings.Join(w, " ")
}

func (s *soak) countErr(op string, err error) {
	k := kind(op, err)
	s.mu.Lock()
	s.errs[k]++
	s.mu.Unlock()
}

// fail records a correct client's failure: the soak fails.
func (s *soak) fail(what string, err error) {
	s.correctFail.Add(1)
	s.mu.Lock()
	if len(s.firstBad) < 10 {
		s.firstBad = append(s.firstBad, fmt.Sprintf("%s: %v", what, err))
	}
	s.mu.Unlock()
}

func (s *soak) failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.firstBad...)
}

// --- correct clients ---

func (s *soak) correctLoop(stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		v := s.variants[mrand.IntN(len(s.variants))]
		var err error
		what := ""
		switch r := mrand.IntN(100); {
		case r < 25:
			what, err = "echo", s.echo(v, 1+mrand.IntN(2000), 0)
		case r < 35:
			what, err = "keyupdate", s.updateKeys(v) // keyupdate.go
		case r < 55:
			what, err = "resume", s.resume(v)
		case r < 70:
			what, err = "bulk", s.echo(v, 256<<10+mrand.IntN(2<<20), 0)
		case r < 85:
			what, err = "idle", s.echo(v, 100, time.Duration(mrand.IntN(int(idleTimeout/2))))
		default:
			what, err = "half-close", s.halfClose(v)
		}
		if err != nil {
			s.fail(v.name+" "+what, err)
		}
	}
}

// dial connects with cfg (v.cfg to resume, v.fresh for a full handshake).
func (s *soak) dial(cfg *tlcp.Config) (*tlcp.Conn, error) {
	c, err := tlcp.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", s.addr, cfg)
	if err != nil {
		return nil, err
	}
	if c.ConnectionState().DidResume {
		s.resumed.Add(1)
	} else {
		s.full.Add(1)
	}
	return c, nil
}

// exchange writes n random bytes (concurrently, so that a bulk transfer
// never deadlocks on full buffers) and checks that the same come back.
func (s *soak) exchange(c *tlcp.Conn, n int) error {
	msg := make([]byte, n)
	rand.Read(msg)
	want := sha256.Sum256(msg)
	werr := make(chan error, 1)
	go func() {
		_, err := c.Write(msg)
		werr <- err
	}()
	h := sha256.New()
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	got, err := io.CopyN(h, c, int64(n))
	if err != nil {
		return fmt.Errorf("read %d of %d echoed bytes: %w", got, n, err)
	}
	if err := <-werr; err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if !bytes.Equal(h.Sum(nil), want[:]) {
		return errors.New("the echo differs from what was sent")
	}
	s.bytes.Add(2 * int64(n))
	return nil
}

func (s *soak) echo(v variant, n int, idle time.Duration) error {
	cfg := v.fresh
	if mrand.IntN(2) == 0 {
		cfg = v.cfg // resumes if the cache has a session
	}
	c, err := s.dial(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if idle > 0 {
		time.Sleep(idle)
	}
	return s.exchange(c, n)
}

// resume connects twice; the second connection should resume. A miss is
// counted, not failed: the cache may have been overwritten by another
// worker in between, which is correct behaviour.
func (s *soak) resume(v variant) error {
	for i := 0; i < 2; i++ {
		c, err := s.dial(v.cfg)
		if err != nil {
			return err
		}
		// Reading the echo also takes in a TLS 1.3 ticket.
		err = s.exchange(c, 64)
		if i == 1 && !c.ConnectionState().DidResume {
			s.resumeMiss.Add(1)
		}
		c.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// halfClose sends, closes its write side and reads the echo up to the
// server's close_notify.
func (s *soak) halfClose(v variant) error {
	c, err := s.dial(v.fresh)
	if err != nil {
		return err
	}
	defer c.Close()
	msg := make([]byte, 1+mrand.IntN(64<<10))
	rand.Read(msg)
	if _, err := c.Write(msg); err != nil {
		return err
	}
	if err := c.CloseWrite(); err != nil {
		return err
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		return fmt.Errorf("reading after CloseWrite: %w", err)
	}
	if !bytes.Equal(got, msg) {
		return fmt.Errorf("echo after CloseWrite: %d bytes, want %d", len(got), len(msg))
	}
	s.bytes.Add(2 * int64(len(msg)))
	return nil
}

// --- faulty clients ---

func (s *soak) faultyLoop(stop chan struct{}) {
	faults := []struct {
		name string
		run  func(variant) error
	}{
		{"abrupt close", s.abruptClose},
		{"reset mid-record", s.resetMidRecord},
		{"slowloris", s.slowloris},
		{"stop reading", s.stopReading},
		{"flipped byte", s.flippedByte},
		{"garbage", s.garbage},
		{"oversized record", s.oversized},
		{"truncated hello", s.truncatedHello},
		{"idle past timeout", s.idlePastTimeout},
		{"hostile script", s.hostileScript},
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		f := faults[mrand.IntN(len(faults))]
		v := s.variants[mrand.IntN(len(s.variants))]
		if err := f.run(v); err != nil {
			// The server did not cut a faulty peer in time, or a
			// handshake a faulty client needed failed.
			s.fail("faulty client "+f.name+" on "+v.name, err)
		}
	}
}

// faultConn lets a client misbehave at the TCP level after the handshake.
type faultConn struct {
	*net.TCPConn
	mode atomic.Int32 // 0 pass, 1 reset after half of the next write, 2 flip a byte of it
}

func (f *faultConn) Write(b []byte) (int, error) {
	switch f.mode.Load() {
	case 1:
		f.TCPConn.Write(b[:len(b)/2])
		f.TCPConn.SetLinger(0) // Close sends RST
		f.TCPConn.Close()
		return 0, net.ErrClosed
	case 2:
		c := append([]byte(nil), b...)
		c[len(c)-1] ^= 0x80
		f.mode.Store(0)
		return f.TCPConn.Write(c)
	}
	return f.TCPConn.Write(b)
}

func (s *soak) rawDial() (*net.TCPConn, error) {
	c, err := net.DialTimeout("tcp", s.addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return c.(*net.TCPConn), nil
}

func (s *soak) faultyHandshake(v variant) (*tlcp.Conn, *faultConn, error) {
	raw, err := s.rawDial()
	if err != nil {
		return nil, nil, err
	}
	fc := &faultConn{TCPConn: raw}
	c := tlcp.Client(fc, v.fresh)
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if err := c.Handshake(); err != nil {
		raw.Close()
		return nil, nil, fmt.Errorf("handshake: %w", err)
	}
	s.full.Add(1)
	return c, fc, nil
}

// awaitClose reads from c until the server closes it, failing if that
// takes longer than within.
func (s *soak) awaitClose(op string, c net.Conn, within time.Duration) error {
	c.SetReadDeadline(time.Now().Add(within))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("the server did not close within %v", within)
	}
	if err != nil {
		s.countErr(op, err)
	}
	return nil
}

func (s *soak) abruptClose(v variant) error {
	c, fc, err := s.faultyHandshake(v)
	if err != nil {
		return err
	}
	c.Write([]byte("half a conversation"))
	return fc.TCPConn.Close()
}

func (s *soak) resetMidRecord(v variant) error {
	c, fc, err := s.faultyHandshake(v)
	if err != nil {
		return err
	}
	fc.mode.Store(1)
	c.Write(make([]byte, 1000))
	return nil
}

func (s *soak) flippedByte(v variant) error {
	c, fc, err := s.faultyHandshake(v)
	if err != nil {
		return err
	}
	defer fc.TCPConn.Close()
	fc.mode.Store(2)
	c.Write(make([]byte, 100))
	// The server must refuse the record (bad_record_mac) and close.
	return s.awaitClose("client after a flipped byte", c, closeGrace)
}

func (s *soak) stopReading(v variant) error {
	c, fc, err := s.faultyHandshake(v)
	if err != nil {
		return err
	}
	defer fc.TCPConn.Close()
	// Write until the server, whose echoes nobody reads, gives up: once
	// the buffers are full its write blocks, its write deadline closes the
	// connection and our writes fail. How long the buffers take to fill
	// depends on the machine's load, so the bound is on one blocked write:
	// the server must cut us within its write timeout of stalling.
	chunk := make([]byte, 16<<10)
	for start := time.Now(); time.Since(start) < 5*time.Minute; {
		fc.SetWriteDeadline(time.Now().Add(writeTimeout + closeGrace))
		if _, err := c.Write(chunk); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return errors.New("the server kept a non-reading client past its write timeout")
			}
			s.countErr("client that stopped reading", err)
			return nil
		}
	}
	return errors.New("the server echoed for 5 minutes to a client that reads nothing")
}

func (s *soak) slowloris(variant) error {
	c, err := s.rawDial()
	if err != nil {
		return err
	}
	defer c.Close()
	// A handshake record header announcing a ClientHello that never comes.
	hello := []byte{0x16, 0x01, 0x01, 0x00, 0x80, 0x01, 0x00, 0x00, 0x7c, 0x01, 0x01}
	start := time.Now()
	for i := 0; time.Since(start) < handshakeTimeout+closeGrace; i++ {
		if _, err := c.Write(hello[i%len(hello) : i%len(hello)+1]); err != nil {
			s.countErr("slowloris client", err)
			return nil
		}
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil {
			var ne net.Error
			if !(errors.As(err, &ne) && ne.Timeout()) {
				s.countErr("slowloris client", err)
				return nil // closed by the server
			}
		}
	}
	return fmt.Errorf("the server kept a slowloris handshake past %v", handshakeTimeout+closeGrace)
}

func (s *soak) rawScript(op string, payload []byte) error {
	c, err := s.rawDial()
	if err != nil {
		return err
	}
	defer c.Close()
	c.Write(payload)
	return s.awaitClose(op, c, handshakeTimeout+closeGrace)
}

func (s *soak) garbage(variant) error {
	b := make([]byte, 1+mrand.IntN(2000))
	rand.Read(b)
	return s.rawScript("garbage client", b)
}

func (s *soak) oversized(variant) error {
	return s.rawScript("oversized-record client", []byte{0x16, 0x01, 0x01, 0xff, 0xff, 0x01, 0x00, 0xff, 0xfb})
}

func (s *soak) truncatedHello(variant) error {
	// A ClientHello record whose body ends early, then an EOF.
	c, err := s.rawDial()
	if err != nil {
		return err
	}
	defer c.Close()
	c.Write([]byte{0x16, 0x01, 0x01, 0x00, 0x30, 0x01, 0x00, 0x00, 0x2c, 0x01, 0x01, 0, 0, 0})
	c.CloseWrite()
	return s.awaitClose("truncated-hello client", c, handshakeTimeout+closeGrace)
}

// hostileScript replays one of the tlcp tests' hostile-peer scripts: the
// server must answer it with the alert the script names and close, as it
// does in the unit test, while the correct clients load it.
func (s *soak) hostileScript(variant) error {
	c, err := s.rawDial()
	if err != nil {
		return err
	}
	return s.scripts[mrand.IntN(len(s.scripts))].Run(c, handshakeTimeout+closeGrace)
}

func (s *soak) idlePastTimeout(v variant) error {
	c, fc, err := s.faultyHandshake(v)
	if err != nil {
		return err
	}
	defer fc.TCPConn.Close()
	return s.awaitClose("client idle past the timeout", c, idleTimeout+closeGrace)
}

// --- sampling, checks and output ---

func (s *soak) sample(at time.Duration) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	sm := sample{
		at: at, full: s.full.Load(), resumed: s.resumed.Load(), miss: s.resumeMiss.Load(),
		bytes: s.bytes.Load(), keyUpdates: s.keyUpdates.Load(), rss: rss(), heap: ms.HeapAlloc,
		goroutines: runtime.NumGoroutine(), fds: openFDs(), correctFailures: s.correctFail.Load(),
	}
	s.mu.Lock()
	sm.errs = make(map[string]int64, len(s.errs))
	for k, v := range s.errs {
		sm.errs[k] = v
	}
	s.samples = append(s.samples, sm)
	s.mu.Unlock()
	fmt.Printf("%7.1fmin handshakes %d full %d resumed (%d misses)  %s  %d KeyUpdates  RSS %.1f MiB  heap %.1f MiB  goroutines %d  fds %d  failures %d\n",
		at.Minutes(), sm.full, sm.resumed, sm.miss, mib(sm.bytes), sm.keyUpdates, float64(sm.rss)/(1<<20), float64(sm.heap)/(1<<20),
		sm.goroutines, sm.fds, sm.correctFailures)
	for _, k := range sortedKeys(sm.errs) {
		fmt.Printf("          %8d  %s\n", sm.errs[k], k)
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB moved", float64(n)/(1<<20)) }

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rss is the resident set size from /proc (0 where there is none).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, res uint64
	fmt.Sscan(string(b), &size, &res)
	return res * uint64(os.Getpagesize())
}

// openFDs counts the process's open file descriptors (-1 where /proc is
// missing).
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

type verdict struct {
	name                 string
	slope, growth, limit float64
	unit                 string
	bad, skipped         bool
}

func (v verdict) String() string {
	if v.skipped {
		return fmt.Sprintf("growth check %-10s skipped: fewer than 4 samples in the second half", v.name)
	}
	res := "ok"
	if v.bad {
		res = "GROWS"
	}
	return fmt.Sprintf("growth check %-10s fitted growth over the second half %+.2f %s (limit %.2f): %s", v.name, v.growth, v.unit, v.limit, res)
}

// growth fits a least-squares line to each resource over the samples of
// the second half of the run; the fitted growth across that half must
// stay under tolerance × mean + floor.
func (s *soak) growth(tolerance float64) []verdict {
	metrics := []struct {
		name, unit string
		floor      float64
		get        func(sample) float64
	}{
		{"RSS", "MiB", 16, func(x sample) float64 { return float64(x.rss) / (1 << 20) }},
		{"heap", "MiB", 8, func(x sample) float64 { return float64(x.heap) / (1 << 20) }},
		{"goroutines", "", 40, func(x sample) float64 { return float64(x.goroutines) }},
		{"fds", "", 40, func(x sample) float64 { return float64(x.fds) }},
	}
	var half []sample
	if n := len(s.samples); n > 0 {
		end := s.samples[n-1].at
		for _, x := range s.samples {
			if x.at >= end/2 {
				half = append(half, x)
			}
		}
	}
	var out []verdict
	for _, m := range metrics {
		v := verdict{name: m.name, unit: m.unit}
		if len(half) < 4 {
			v.skipped = true
			out = append(out, v)
			continue
		}
		var sx, sy, sxx, sxy float64
		for _, x := range half {
			t, y := x.at.Seconds(), m.get(x)
			sx, sy, sxx, sxy = sx+t, sy+y, sxx+t*t, sxy+t*y
		}
		n := float64(len(half))
		v.slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
		span := half[len(half)-1].at.Seconds() - half[0].at.Seconds()
		v.growth = v.slope * span
		v.limit = tolerance*sy/n + m.floor
		v.bad = v.growth > v.limit
		out = append(out, v)
	}
	return out
}

func (s *soak) writeCSV(path string) error {
	kinds := map[string]bool{}
	for _, x := range s.samples {
		for k := range x.errs {
			kinds[k] = true
		}
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	b.WriteString("seconds,full_handshakes,resumed_handshakes,resume_misses,bytes,rss_bytes,heap_bytes,goroutines,fds,failures,key_updates")
	for _, k := range ks {
		b.WriteString(",\"" + strings.ReplaceAll(k, "\"", "'") + "\"")
	}
	b.WriteByte('\n')
	for _, x := range s.samples {
		fmt.Fprintf(&b, "%.0f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", x.at.Seconds(), x.full, x.resumed, x.miss, x.bytes, x.rss, x.heap, x.goroutines, x.fds, x.correctFailures, x.keyUpdates)
		for _, k := range ks {
			fmt.Fprintf(&b, ",%d", x.errs[k])
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// chart draws one panel per resource, and the handshake rate, against
// minutes, in plain SVG.
func (s *soak) chart() []byte {
	type series struct {
		title string
		ys    []float64
	}
	var xs []float64
	var rs, hs, gs, fs, hsRate []float64
	for i, x := range s.samples {
		xs = append(xs, x.at.Minutes())
		rs = append(rs, float64(x.rss)/(1<<20))
		hs = append(hs, float64(x.heap)/(1<<20))
		gs = append(gs, float64(x.goroutines))
		fs = append(fs, float64(x.fds))
		r := 0.0
		if i > 0 {
			prev := s.samples[i-1]
			if dt := (x.at - prev.at).Seconds(); dt > 0 {
				r = float64(x.full+x.resumed-prev.full-prev.resumed) / dt
			}
		}
		hsRate = append(hsRate, r)
	}
	panels := []series{{"RSS (MiB)", rs}, {"live heap after GC (MiB)", hs}, {"goroutines", gs}, {"open file descriptors", fs}, {"handshakes per second", hsRate}}
	const w, ph, left, top = 640.0, 150.0, 60.0, 30.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, top+float64(len(panels))*(ph+30)+20)
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="13">shangmi soak: %d samples over %.1f min</text>`+"\n", left, len(s.samples), lastOr0(xs))
	xmax := max(lastOr0(xs), 1e-9)
	for i, p := range panels {
		y0 := top + float64(i)*(ph+30)
		ymax := 0.0
		for _, y := range p.ys {
			ymax = max(ymax, y)
		}
		if ymax == 0 {
			ymax = 1
		}
		ymax *= 1.1
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", left, y0+10, p.title)
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", left, y0+15, w-left-20, ph-15)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="end">%.1f</text><text x="%.0f" y="%.0f" text-anchor="end">0</text>`+"\n", left-4, y0+25, ymax, left-4, y0+ph)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="end">%.1f min</text>`+"\n", w-20, y0+ph+12, xmax)
		b.WriteString(`<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points="`)
		for j, y := range p.ys {
			px := left + xs[j]/xmax*(w-left-20)
			py := y0 + ph - y/ymax*(ph-15)
			fmt.Fprintf(&b, "%.1f,%.1f ", px, py)
		}
		b.WriteString("\"/>\n")
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func lastOr0(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}
