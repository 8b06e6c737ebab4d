// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"context"
	"net"

	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/dtlcp"
)

// s_client and s_server over TCP (TLCP) or, with -dtlcp, UDP (DTLCP). The
// rest of both commands works on the *tlcp.Conn either way: a DTLCP
// connection is a tlcp.Conn over a datagram layer.

// dial connects and runs the handshake.
func (r *clientRun) dial(ctx context.Context, cfg *tlcp.Config) (net.Conn, error) {
	if !*r.o.dtlcp {
		return (&tlcp.Dialer{Config: cfg}).DialContext(ctx, "tcp", r.addr)
	}
	c, err := dtlcp.DialWithOptions(ctx, "udp", r.addr, cfg, nil)
	if err != nil {
		return nil, err
	}
	return c.Conn, nil
}

// listen opens the server's socket.
func (r *serverRun) listen(addr string, cfg *tlcp.Config) (net.Listener, error) {
	if !*r.o.dtlcp {
		return net.Listen("tcp", addr)
	}
	return dtlcp.Listen("udp", addr, cfg)
}

// serverConn makes the server connection of an accepted one.
func (r *serverRun) serverConn(raw net.Conn, cfg *tlcp.Config) *tlcp.Conn {
	if c, ok := raw.(*dtlcp.Conn); ok {
		return c.Conn
	}
	return tlcp.Server(raw, cfg)
}
