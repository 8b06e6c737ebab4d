// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shangmi-go/shangmi/tlcp"
)

// The concurrent rows of the tlcp group: one server listening on loopback
// TCP, concurrentClients client goroutines, GOMAXPROCS as it is (the
// cores). They show whether anything in the server (the session cache,
// the certificate caches, pooled buffers) serialises connections: the
// figures are per CPU-second of the whole process, so a lock that made
// cores wait would show as CPU spent spinning or as a lower rate.

const (
	concurrentClients = 64
	concurrentBulk    = 1 << 20 // bytes each client sends per bulk op
)

// side abstracts the two libraries for the concurrent rows.
type side struct {
	server func(net.Conn) interface {
		Handshake() error
		io.ReadWriteCloser
	}
	client func(i int, c net.Conn) interface {
		Handshake() error
		io.ReadWriteCloser
		didResume() bool
	}
}

type tlcpClientConn struct{ *tlcp.Conn }

func (c tlcpClientConn) didResume() bool { return c.ConnectionState().DidResume }

type tlsClientConn struct{ *tls.Conn }

func (c tlsClientConn) didResume() bool { return c.ConnectionState().DidResume }

// concurrentTLCP and concurrentTLS return the two libraries' sides for
// suite, each client with a session cache of its own when resume is set.
func concurrentTLCP(suite uint16, resume bool) (*side, error) {
	srv, cli, err := tlcpConfigs(suite, resume)
	if err != nil {
		return nil, err
	}
	clients := make([]*tlcp.Config, concurrentClients)
	for i := range clients {
		clients[i] = cli.Clone()
		if resume {
			clients[i].ClientSessionCache = tlcp.NewLRUClientSessionCache(1)
		}
	}
	return tlcpSide(srv, clients), nil
}

// tlcpSide makes package tlcp's side; client i uses clients[i % len].
func tlcpSide(srv *tlcp.Config, clients []*tlcp.Config) *side {
	return &side{
		server: func(c net.Conn) interface {
			Handshake() error
			io.ReadWriteCloser
		} {
			return tlcp.Server(c, srv)
		},
		client: func(i int, c net.Conn) interface {
			Handshake() error
			io.ReadWriteCloser
			didResume() bool
		} {
			return tlcpClientConn{tlcp.Client(c, clients[i%len(clients)])}
		},
	}
}

func concurrentTLS(suite uint16, resume bool) (*side, error) {
	srv, cli, err := stdTLSConfigs(suite, resume)
	if err != nil {
		return nil, err
	}
	clients := make([]*tls.Config, concurrentClients)
	for i := range clients {
		clients[i] = cli.Clone()
		if resume {
			clients[i].ClientSessionCache = tls.NewLRUClientSessionCache(1)
		}
	}
	return tlsSide(srv, clients), nil
}

// tlsSide makes crypto/tls's side; client i uses clients[i % len].
func tlsSide(srv *tls.Config, clients []*tls.Config) *side {
	return &side{
		server: func(c net.Conn) interface {
			Handshake() error
			io.ReadWriteCloser
		} {
			return tls.Server(c, srv)
		},
		client: func(i int, c net.Conn) interface {
			Handshake() error
			io.ReadWriteCloser
			didResume() bool
		} {
			return tlsClientConn{tls.Client(c, clients[i%len(clients)])}
		},
	}
}

// serve accepts on ln for the rest of the process: each connection is
// handshaken and then drained until the client closes it.
func serve(ln net.Listener, s *side) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			sc := s.server(c)
			if sc.Handshake() != nil {
				return
			}
			io.Copy(io.Discard, sc)
		}()
	}
}

// closeAbortive closes a client connection without leaving it in
// TIME_WAIT, so that thousands of handshakes do not use up the loopback
// ports.
func closeAbortive(c io.Closer, raw net.Conn) {
	if tc, ok := raw.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

// concurrentHandshakes runs b.N handshakes spread over concurrentClients
// goroutines, each dialling, handshaking and closing in a loop.
func concurrentHandshakes(mk func(suite uint16, resume bool) (*side, error), suite uint16, resume bool) setupFunc {
	return func() (benchFunc, error) {
		s, err := mk(suite, resume)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		go serve(ln, s)
		addr := ln.Addr().String()
		one := func(i int) error {
			raw, err := net.Dial("tcp", addr)
			if err != nil {
				return err
			}
			cc := s.client(i, raw)
			err = cc.Handshake()
			if err == nil && cc.didResume() != resume {
				err = fmt.Errorf("resumed = %v, want %v", cc.didResume(), resume)
			}
			closeAbortive(cc, raw)
			return err
		}
		// Every client's first handshake is a full one: do it now.
		if resume {
			for i := range concurrentClients {
				raw, err := net.Dial("tcp", addr)
				if err != nil {
					return nil, err
				}
				cc := s.client(i, raw)
				err = cc.Handshake()
				closeAbortive(cc, raw)
				if err != nil {
					return nil, err
				}
			}
		}
		return func(b *testing.B) {
			var next atomic.Int64
			var wg sync.WaitGroup
			var firstErr atomic.Value
			for i := range concurrentClients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						if err := one(i); err != nil {
							firstErr.CompareAndSwap(nil, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if err, ok := firstErr.Load().(error); ok {
				fail(b, err)
			}
		}, nil
	}
}

// concurrentBulkRow: concurrentClients established connections; one op is
// every client sending concurrentBulk bytes at once, received and
// discarded by the server.
func concurrentBulkRow(mk func(suite uint16, resume bool) (*side, error), suite uint16) setupFunc {
	return func() (benchFunc, error) {
		s, err := mk(suite, false)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer ln.Close()
		type pair struct {
			client io.Writer
			server io.Reader
		}
		pairs := make([]pair, concurrentClients)
		for i := range pairs {
			cc, err := connectPair(ln, s, i, &pairs[i].server)
			if err != nil {
				return nil, err
			}
			pairs[i].client = cc
		}
		chunk := randBytes(256 << 10)
		// Each connection's reader and writer run for the rest of the
		// process, started and awaited per op through channels.
		start := make([]chan int, concurrentClients)
		done := make(chan error, 2*concurrentClients)
		for i := range pairs {
			start[i] = make(chan int, 1)
			go func() {
				for n := range start[i] {
					var err error
					for j := 0; j < n && err == nil; j++ {
						for sent := 0; sent < concurrentBulk && err == nil; sent += len(chunk) {
							_, err = pairs[i].client.Write(chunk)
						}
					}
					done <- err
				}
			}()
		}
		recv := make([]chan int, concurrentClients)
		for i := range pairs {
			recv[i] = make(chan int, 1)
			go func() {
				buf := make([]byte, 64<<10)
				for n := range recv[i] {
					_, err := io.CopyBuffer(io.Discard, io.LimitReader(pairs[i].server, int64(n)*concurrentBulk), buf)
					done <- err
				}
			}()
		}
		return func(b *testing.B) {
			for i := range pairs {
				recv[i] <- b.N
				start[i] <- b.N
			}
			var first error
			for range 2 * concurrentClients {
				if err := <-done; err != nil && first == nil {
					first = err
				}
			}
			if first != nil {
				fail(b, first)
			}
		}, nil
	}
}

// connectPair accepts on ln while dialling it, and handshakes both ends
// of the connection with s's client i (see dialHandshakeAsync).
func connectPair(ln net.Listener, s *side, i int, server *io.Reader) (io.Writer, error) {
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	return dialHandshakeAsync(ln.Addr().String(), s, i, accepted, server)
}

// dialHandshakeAsync dials, then runs the client and the server handshake
// at once (the server end comes from accepted), and stores the server
// connection in server.
func dialHandshakeAsync(addr string, s *side, i int, accepted chan net.Conn, server *io.Reader) (io.Writer, error) {
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	sraw := <-accepted
	if sraw == nil {
		return nil, errors.New("accept failed")
	}
	sc := s.server(sraw)
	errc := make(chan error, 1)
	go func() { errc <- sc.Handshake() }()
	cc := s.client(i, raw)
	cerr := cc.Handshake()
	serr := <-errc
	if cerr != nil || serr != nil {
		raw.Close()
		sraw.Close()
		return nil, fmt.Errorf("client %v, server %v", cerr, serr)
	}
	*server = sc
	return cc, nil
}
