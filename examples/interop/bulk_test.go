// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package interop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/tjfoc/gmsm/gmtls"

	"github.com/shangmi-go/shangmi/tlcp"
)

// duplex writes out while it reads len(in) bytes, checks them, and waits
// for its own write to finish: both directions are in flight at once, which
// a lock-step exchange never exercises. Writes go in uneven pieces so that
// records of many sizes, down to one byte, cross the wire.
func duplex(c net.Conn, out, in []byte) error {
	werr := make(chan error, 1)
	go func() {
		rest := out
		for n := 0; len(rest) > 0; n = (n*7 + 3) % 40000 {
			k := min(n+1, len(rest))
			if _, err := c.Write(rest[:k]); err != nil {
				werr <- fmt.Errorf("write: %w", err)
				return
			}
			rest = rest[k:]
		}
		werr <- nil
	}()
	got := make([]byte, len(in))
	_, rerr := io.ReadFull(c, got)
	if err := <-werr; err != nil {
		return err
	}
	if rerr != nil {
		return fmt.Errorf("read: %w", rerr)
	}
	if !bytes.Equal(got, in) {
		return errors.New("received corrupted application data")
	}
	return nil
}

// expectEOF checks that the peer's close_notify arrives as io.EOF.
func expectEOF(c net.Conn) error {
	var one [1]byte
	if n, err := c.Read(one[:]); n != 0 || err != io.EOF {
		return fmt.Errorf("after the data, Read = %d, %v; want 0, io.EOF (close_notify)", n, err)
	}
	return nil
}

// TestBulkDuplex moves a MiB each way at the same time, then the server
// closes first, so close_notify is also checked from server to client.
func TestBulkDuplex(t *testing.T) {
	m := load(t, "tlcp")
	up, down := payload(3, 1<<20+5), payload(4, 1<<20+11)

	t.Run("our client, their server", func(t *testing.T) {
		srvCfg := &gmtls.Config{
			GMSupport:              gmtls.NewGMSupport(),
			Certificates:           []gmtls.Certificate{m.theirCert(t, "server_sign"), m.theirCert(t, "server_enc")},
			CipherSuites:           []uint16{eccSM4CBCSM3},
			SessionTicketsDisabled: true,
		}
		cliCfg := &tlcp.Config{RootCAs: m.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{eccSM4CBCSM3}}
		serverErr, clientErr := pipe(t, func(raw net.Conn) error {
			c := gmtls.Server(raw, srvCfg)
			return guard(func() error {
				if err := c.Handshake(); err != nil {
					return err
				}
				if err := duplex(c, down, up); err != nil {
					return err
				}
				return c.Close()
			})
		}, func(raw net.Conn) error {
			c := tlcp.Client(raw, cliCfg)
			if err := duplex(c, up, down); err != nil {
				return err
			}
			if err := expectEOF(c); err != nil {
				return err
			}
			return c.Close()
		})
		if serverErr != nil || clientErr != nil {
			t.Fatalf("server (gmtls): %v; client (ours): %v", serverErr, clientErr)
		}
	})

	t.Run("their client, our server", func(t *testing.T) {
		srvCfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{m.ourPair(t, "server")}, SessionCacheSize: -1}
		cliCfg := &gmtls.Config{
			GMSupport: gmtls.NewGMSupport(), RootCAs: m.theirPool(t), ServerName: "localhost",
			CipherSuites: []uint16{eccSM4CBCSM3}, SessionTicketsDisabled: true,
		}
		serverErr, clientErr := pipe(t, func(raw net.Conn) error {
			c := tlcp.Server(raw, srvCfg)
			if err := duplex(c, down, up); err != nil {
				return err
			}
			return c.Close()
		}, func(raw net.Conn) error {
			c := gmtls.Client(raw, cliCfg)
			return guard(func() error {
				if err := c.Handshake(); err != nil {
					return err
				}
				if err := duplex(c, up, down); err != nil {
					return err
				}
				if err := expectEOF(c); err != nil {
					return err
				}
				return c.Close()
			})
		})
		if serverErr != nil || clientErr != nil {
			t.Fatalf("server (ours): %v; client (gmtls): %v", serverErr, clientErr)
		}
	})
}
