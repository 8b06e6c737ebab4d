// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// readRecords reads n records from the raw end c, discarding them. It may
// run on any goroutine.
func readRecords(t *testing.T, c net.Conn, n int) {
	for range n {
		hdr := make([]byte, 5)
		if _, err := io.ReadFull(c, hdr); err != nil {
			t.Error(err)
			return
		}
		if _, err := io.ReadFull(c, make([]byte, int(hdr[3])<<8|int(hdr[4]))); err != nil {
			t.Error(err)
			return
		}
	}
}

// wantClosedDuring checks the wrapped error of a peer that hung up
// mid-handshake: it says who and when, still matches target with
// errors.Is, and is what every later call returns.
func wantClosedDuring(t *testing.T, c *Conn, err error, want string, target error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	if !errors.Is(err, target) {
		t.Fatalf("errors.Is(%v, %v) = false", err, target)
	}
	if err2 := c.Handshake(); err2 != err {
		t.Fatalf("second Handshake returned %v, want the same error", err2)
	}
	if _, err2 := c.Read(make([]byte, 1)); err2 != err {
		t.Fatalf("Read after the failed handshake returned %v", err2)
	}
}

func TestPeerClosesDuringHandshake(t *testing.T) {
	t.Run("server closes after ClientHello", func(t *testing.T) {
		c, s := tcpPair(t)
		client := Client(c, testClientConfig(t))
		go func() { readRecords(t, s, 1); s.Close() }()
		err := client.Handshake()
		wantClosedDuring(t, client, err, "tlcp: the server closed the connection during the handshake (after ClientHello)", io.EOF)
	})
	t.Run("server closes after ServerHello", func(t *testing.T) {
		c, s := tcpPair(t)
		client := Client(c, testClientConfig(t))
		server := Server(s, testServerConfig(t))
		// A server that stops after its first flight: it reads what the
		// client sends next, then closes.
		hs := &serverHandshakeState{c: server, transcript: newTranscript(false)}
		go func() {
			server.in.Lock()
			defer server.in.Unlock()
			msg, err := server.readHandshake(hs.transcript)
			if err != nil {
				t.Error(err)
				return
			}
			hs.clientHello = msg.(*clientHelloMsg)
			if err := hs.processClientHello(); err != nil {
				t.Error(err)
			}
			// Send only ServerHello; the client waits for Certificate.
			server.writeHandshake(hs.hello, hs.transcript)
			s.Close()
		}()
		err := client.Handshake()
		wantClosedDuring(t, client, err, "the server closed the connection during the handshake (after ServerHello)", io.EOF)
	})
	t.Run("server resets after ClientHello", func(t *testing.T) {
		c, s := tcpPair(t)
		client := Client(c, testClientConfig(t))
		go func() {
			readRecords(t, s, 1)
			s.(*net.TCPConn).SetLinger(0) // close with RST
			s.Close()
		}()
		err := client.Handshake()
		wantClosedDuring(t, client, err, "the server reset the connection during the handshake (after ClientHello)", syscall.ECONNRESET)
		var ne net.Error
		if !errors.As(err, &ne) {
			t.Fatal("the wrapped error no longer matches net.Error")
		}
	})
	t.Run("server closes mid-record", func(t *testing.T) {
		c, s := tcpPair(t)
		client := Client(c, testClientConfig(t))
		go func() {
			readRecords(t, s, 1)
			s.Write([]byte{22, 1, 1, 0, 40, 2, 0}) // a record cut short
			s.Close()
		}()
		err := client.Handshake()
		wantClosedDuring(t, client, err, "the server closed the connection during the handshake (after ClientHello)", io.ErrUnexpectedEOF)
	})
	t.Run("server sends close_notify after ClientHello", func(t *testing.T) {
		c, s := tcpPair(t)
		client := Client(c, testClientConfig(t))
		go func() {
			readRecords(t, s, 1)
			s.Write([]byte{21, 1, 1, 0, 2, 1, 0})
		}()
		err := client.Handshake()
		wantClosedDuring(t, client, err, "the server closed the connection during the handshake (after ClientHello)", io.EOF)
	})
	t.Run("client closes before ClientHello", func(t *testing.T) {
		c, s := tcpPair(t)
		server := Server(s, testServerConfig(t))
		c.Close()
		err := server.Handshake()
		wantClosedDuring(t, server, err, "tlcp: the client closed the connection during the handshake (before ClientHello)", io.EOF)
	})
	t.Run("client closes after ServerHelloDone", func(t *testing.T) {
		c, s := tcpPair(t)
		server := Server(s, testServerConfig(t))
		client := Client(c, testClientConfig(t))
		go func() {
			hello, err := client.makeClientHello()
			if err != nil {
				t.Error(err)
				return
			}
			client.writeHandshake(hello, nil)
			// ServerHello, Certificate, ServerKeyExchange, ServerHelloDone.
			readRecords(t, c, 4)
			c.Close()
		}()
		err := server.Handshake()
		wantClosedDuring(t, server, err, "the client closed the connection during the handshake (after ServerHelloDone)", io.EOF)
	})
}

// brokenPipeConn fails every write after the first ok ones with EPIPE,
// once ready is closed, as a kernel does after the peer's reset.
type brokenPipeConn struct {
	net.Conn
	ok    int
	ready chan struct{}
}

func (c *brokenPipeConn) Write(b []byte) (int, error) {
	if c.ok > 0 {
		c.ok--
		return c.Conn.Write(b)
	}
	<-c.ready
	return 0, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
}

// TestAlertBehindBrokenPipe: a server rejects the client's certificate,
// sends bad_certificate and closes while the client is still sending its
// flight. The client's write fails, and the client reports the alert that
// explains why rather than "broken pipe".
func TestAlertBehindBrokenPipe(t *testing.T) {
	c, s := tcpPair(t)
	scfg := testServerConfig(t)
	scfg.ClientAuth = RequireAndVerifyClientCert
	scfg.ClientCAs = smx509.NewCertPool() // trusts nobody
	scfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
	server := Server(s, scfg)
	ready := make(chan struct{})
	serr := make(chan error, 1)
	go func() {
		err := server.Handshake()
		close(ready)
		serr <- err
	}()
	// ClientHello and Certificate go through; ClientKeyExchange breaks.
	client := Client(&brokenPipeConn{Conn: c, ok: 2, ready: ready}, testClientConfig(t))
	err := client.Handshake()
	wantAlert(t, <-serr, alertUnknownCA)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" {
		t.Fatalf("client error %v, want the server's alert", err)
	}
	wantAlert(t, err, alertUnknownCA)

	// Without an alert behind it, the write error stays.
	c2, s2 := tcpPair(t)
	s2.Close()
	client = Client(c2, testClientConfig(t))
	werr := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	client.in.Lock()
	got := client.alertAfterBrokenWrite(werr)
	client.in.Unlock()
	if got != error(werr) {
		t.Fatalf("alertAfterBrokenWrite = %v, want the write error", got)
	}
}
