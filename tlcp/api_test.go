// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// These tests pin the crypto/tls behaviours that callers of a Conn rely
// on.

// TestWriteRunsHandshake: the first Write (or Read) runs the handshake.
func TestWriteRunsHandshake(t *testing.T) {
	c, s := tcpPair(t)
	client, server := Client(c, testClientConfig(t)), Server(s, testServerConfig(t))
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 5)
		_, err := io.ReadFull(server, buf)
		if err == nil && string(buf) != "hello" {
			err = errors.New("server read " + string(buf))
		}
		done <- err
	}()
	if _, err := client.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !client.ConnectionState().HandshakeComplete || !server.ConnectionState().HandshakeComplete {
		t.Fatal("handshake not complete after Write/Read")
	}
}

// TestConnectionStateBeforeHandshake: a zero state, not a block or panic.
func TestConnectionStateBeforeHandshake(t *testing.T) {
	c, _ := tcpPair(t)
	client := Client(c, testClientConfig(t))
	st := client.ConnectionState()
	if st.HandshakeComplete || st.Version != 0 || st.CipherSuite != 0 || st.PeerCertificates != nil || st.DidResume {
		t.Fatalf("state before handshake: %+v", st)
	}
	if err := client.VerifyHostname("tlcp.test"); err == nil {
		t.Fatal("VerifyHostname before handshake succeeded")
	}
	if err := client.CloseWrite(); err == nil {
		t.Fatal("CloseWrite before handshake succeeded")
	}
}

// TestConcurrentHandshakes: several goroutines calling Handshake (and
// Read and Write) at once run one handshake, and all see its result.
func TestConcurrentHandshakes(t *testing.T) {
	c, s := tcpPair(t)
	client, server := Client(c, testClientConfig(t)), Server(s, testServerConfig(t))
	go func() {
		if err := server.Handshake(); err != nil {
			t.Error(err)
			return
		}
		io.Copy(server, server)
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 6 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- client.Handshake() }()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := client.Write([]byte("ping"))
		errs <- err
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 4)
		_, err := io.ReadFull(client, buf)
		errs <- err
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if client.ConnectionState().DidResume {
		t.Fatal("a second handshake ran")
	}
}

// TestHandshakeErrorIsSticky: after a failed handshake every call returns
// the same error, without touching the network again.
func TestHandshakeErrorIsSticky(t *testing.T) {
	ccfg := testClientConfig(t)
	ccfg.ServerName = "wrong.test"
	client, _, cerr, _ := handshakePair(t, ccfg, testServerConfig(t))
	if cerr == nil {
		t.Fatal("handshake with the wrong name succeeded")
	}
	if err := client.Handshake(); err != cerr {
		t.Fatalf("second Handshake: %v, want %v", err, cerr)
	}
	if _, err := client.Write([]byte("x")); err != cerr {
		t.Fatalf("Write: %v, want %v", err, cerr)
	}
	if _, err := client.Read(make([]byte, 1)); err != cerr {
		t.Fatalf("Read: %v, want %v", err, cerr)
	}
	if err := client.HandshakeContext(context.Background()); err != cerr {
		t.Fatalf("HandshakeContext: %v, want %v", err, cerr)
	}
}

// TestHandshakeContextCancel: a context that ends during the handshake
// makes HandshakeContext return its error promptly and closes the
// connection; a context that was done before the call does too.
func TestHandshakeContextCancel(t *testing.T) {
	for _, already := range []bool{false, true} {
		c, s := tcpPair(t) // the server never answers
		client := Client(c, testClientConfig(t))
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if already {
			cancel()
		}
		start := time.Now()
		err := client.HandshakeContext(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Fatalf("already=%v: error %v, want the context's", already, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v", d)
		}
		// The transport is closed: the peer sees EOF (after at most a
		// ClientHello), and the Conn cannot be used.
		s.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadAll(s); err != nil {
			t.Fatalf("peer: %v, want EOF", err)
		}
		if _, err := client.Write([]byte("x")); err == nil {
			t.Fatal("Write after a cancelled handshake succeeded")
		}
	}
}

// TestCloseUnblocksRead: Close from another goroutine ends a Read that is
// waiting for data, after the handshake and during it.
func TestCloseUnblocksRead(t *testing.T) {
	t.Run("established", func(t *testing.T) {
		client, _ := established(t, ciphersuite.ECC_SM4_GCM_SM3)
		readErr := make(chan error, 1)
		go func() {
			_, err := client.Read(make([]byte, 1))
			readErr <- err
		}()
		time.Sleep(20 * time.Millisecond)
		if err := client.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-readErr:
			if !errors.Is(err, net.ErrClosed) {
				t.Fatalf("Read: %v, want net.ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Read still blocked after Close")
		}
	})
	t.Run("handshaking", func(t *testing.T) {
		c, _ := tcpPair(t) // the server never answers
		client := Client(c, testClientConfig(t))
		readErr := make(chan error, 1)
		go func() {
			_, err := client.Read(make([]byte, 1))
			readErr <- err
		}()
		time.Sleep(20 * time.Millisecond)
		if err := client.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-readErr:
			if !errors.Is(err, net.ErrClosed) {
				t.Fatalf("Read: %v, want net.ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Read still blocked after Close")
		}
	})
}

// TestUseAfterClose: Write and a second Close return net.ErrClosed, Read
// fails, as with crypto/tls.
func TestUseAfterClose(t *testing.T) {
	client, _ := established(t, ciphersuite.ECC_SM4_CBC_SM3)
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
	if err := client.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := client.Read(make([]byte, 1)); err == nil {
		t.Fatal("Read after Close succeeded")
	}
	// Before the handshake, too.
	c, _ := tcpPair(t)
	fresh := Client(c, testClientConfig(t))
	if err := fresh.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close before handshake: %v", err)
	}
	if err := fresh.Handshake(); err == nil {
		t.Fatal("Handshake after Close succeeded")
	}
}

// TestReadDeadline: a read timeout is a net.Error with Timeout, not
// fatal: after a new deadline the connection reads on, as crypto/tls.
func TestReadDeadline(t *testing.T) {
	client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
	client.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := client.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v, want a timeout", err)
	}
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := server.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(client, buf); err != nil || string(buf) != "late" {
		t.Fatalf("Read after the timeout: %q, %v", buf, err)
	}

	// A deadline during the handshake fails the handshake with a timeout.
	c, _ := tcpPair(t) // the server never answers
	hs := Client(c, testClientConfig(t))
	hs.SetDeadline(time.Now().Add(20 * time.Millisecond))
	err = hs.Handshake()
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("handshake past the deadline: %v, want a timeout", err)
	}
}

// TestWriteDeadline: a write timeout is fatal for writing (a record may
// be half sent), as with crypto/tls.
func TestWriteDeadline(t *testing.T) {
	client, _ := established(t, ciphersuite.ECC_SM4_GCM_SM3) // nobody reads
	client.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	buf := make([]byte, 1<<16)
	var err error
	for start := time.Now(); err == nil && time.Since(start) < 10*time.Second; {
		_, err = client.Write(buf)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Write past the deadline: %v, want a timeout", err)
	}
	client.SetWriteDeadline(time.Time{})
	if _, err2 := client.Write([]byte("x")); err2 == nil {
		t.Fatal("Write after a write timeout succeeded")
	}
}

// TestNilConfig: a server without a Config fails its handshake cleanly.
func TestNilConfig(t *testing.T) {
	c, s := tcpPair(t)
	server := Server(s, nil)
	go func() { c.Write([]byte{22, 1, 1, 0, 4, 1, 0, 0, 0}) }()
	if err := server.Handshake(); err == nil {
		t.Fatal("a server with a nil Config completed a handshake")
	}
	client := Client(c, nil) // needs ServerName or InsecureSkipVerify
	if err := client.Handshake(); err == nil {
		t.Fatal("a client with a nil Config completed a handshake")
	}
}

// TestClientConfigErrorSendsNothing: a client whose Config cannot make a
// ClientHello fails without putting anything on the wire.
func TestClientConfigErrorSendsNothing(t *testing.T) {
	for name, cfg := range map[string]*Config{
		"no ServerName":  {RootCAs: getPKI(t).roots},
		"no suites":      {ServerName: "tlcp.test", CipherSuites: []uint16{ciphersuite.ECDHE_SM4_GCM_SM3}},
		"unknown suites": {ServerName: "tlcp.test", CipherSuites: []uint16{0x1301}},
	} {
		t.Run(name, func(t *testing.T) {
			c, s := tcpPair(t)
			client := Client(c, cfg)
			if err := client.Handshake(); err == nil {
				t.Fatal("handshake succeeded")
			}
			client.Close()
			if got, err := io.ReadAll(s); err != nil || len(got) != 0 {
				t.Fatalf("peer received %x, %v; want nothing", got, err)
			}
		})
	}
}

// TestNoRootCAsHint: verification without RootCAs says why it failed.
func TestNoRootCAsHint(t *testing.T) {
	ccfg := testClientConfig(t)
	ccfg.RootCAs = nil
	_, _, cerr, serr := handshakePair(t, ccfg, testServerConfig(t))
	if cerr == nil || !strings.Contains(cerr.Error(), "Config.RootCAs is not set") {
		t.Fatalf("client error %v, want a hint about RootCAs", cerr)
	}
	wantAlert(t, cerr, alertUnknownCA)
	wantAlert(t, serr, alertUnknownCA)
	var ua smx509.UnknownAuthorityError
	if !errors.As(cerr, &ua) {
		t.Fatal("the hint hides the x509 error")
	}
}

// TestCloneCopiesEveryField guards Config.Clone against fields added later
// and forgotten there.
func TestCloneCopiesEveryField(t *testing.T) {
	var c Config
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint16:
			f.SetUint(7)
		case reflect.String:
			f.SetString("x")
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Func:
			f.Set(reflect.MakeFunc(f.Type(), func([]reflect.Value) []reflect.Value { return nil }))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Interface:
			switch f.Type() {
			case reflect.TypeOf((*io.Reader)(nil)).Elem():
				f.Set(reflect.ValueOf(strings.NewReader("")))
			case reflect.TypeOf((*io.Writer)(nil)).Elem():
				f.Set(reflect.ValueOf(io.Discard))
			case reflect.TypeOf((*ClientSessionCache)(nil)).Elem():
				f.Set(reflect.ValueOf(NewLRUClientSessionCache(1)))
			case reflect.TypeOf((*ServerSessionCache)(nil)).Elem():
				f.Set(reflect.ValueOf(newMapSessionCache()))
			default:
				t.Fatalf("no test value for field %s", v.Type().Field(i).Name)
			}
		default:
			t.Fatalf("no test value for field %s of kind %v", v.Type().Field(i).Name, f.Kind())
		}
	}
	clone := reflect.ValueOf(c.Clone()).Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		if clone.Field(i).IsZero() {
			t.Errorf("Clone does not copy %s", v.Type().Field(i).Name)
		}
	}
}

// TestCloseUnblocksWrite: Close ends a Write that is blocked because the
// peer does not read, and does not itself hang on close_notify.
func TestCloseUnblocksWrite(t *testing.T) {
	client, _ := established(t, ciphersuite.ECC_SM4_GCM_SM3) // nobody reads
	writeErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 1<<16)
		for {
			if _, err := client.Write(buf); err != nil {
				writeErr <- err
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond) // let the socket buffers fill
	closed := make(chan error, 1)
	go func() { closed <- client.Close() }()
	select {
	case err := <-writeErr:
		if err == nil {
			t.Fatal("Write succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Write still blocked after Close")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung")
	}
}

// TestHTTPPeer: a TLCP client talking to an HTTP server, or an HTTP
// client to a TLCP server, gets an error that says so.
func TestHTTPPeer(t *testing.T) {
	c, s := tcpPair(t)
	client := Client(c, testClientConfig(t))
	go func() {
		readRecords(t, s, 1)
		io.WriteString(s, "HTTP/1.1 400 Bad Request\r\n\r\n")
	}()
	if err := client.Handshake(); err == nil || !strings.Contains(err.Error(), "server answered in HTTP") {
		t.Fatalf("client error %v", err)
	}

	c, s = tcpPair(t)
	server := Server(s, testServerConfig(t))
	go io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	err := server.Handshake()
	if err == nil || !strings.Contains(err.Error(), "client sent an HTTP request to a TLCP server") {
		t.Fatalf("server error %v", err)
	}
	wantAlert(t, err, alertProtocolVersion)
}
