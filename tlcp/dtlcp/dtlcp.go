// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package dtlcp implements DTLCP, the datagram transport layer
// cryptography protocol of GM/T 0128-2023: TLCP (GB/T 38636-2020) over UDP,
// with the datagram mechanics of DTLS 1.2 (RFC 6347): explicit epochs and
// sequence numbers, a replay window, fragmented handshake messages,
// retransmitted flights and a stateless cookie exchange.
//
// The handshake, certificates, key exchange and record protection are
// package tlcp's, configured by the same *tlcp.Config; only the datagram
// layer under them is DTLCP's. A Conn keeps message boundaries: one Write
// is one record in one datagram, and a Write too large for one is an
// error that says the limit (Options.MTU).
//
// See tlcp/INTEROP.md §11 for the wire format and what was checked
// against gotlcp's dtlcp package.
package dtlcp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/internal/dgram"
)

// Options are the datagram settings of a connection or listener. The zero
// value, or a nil *Options, takes the defaults.
type Options struct {
	// MTU is the most one datagram may carry, DTLCP record headers
	// included (default 1400). Handshake messages are fragmented to fit;
	// application data must fit one record.
	MTU int
	// RetransmitTimeout is the first retransmission timer of a handshake
	// flight (default 1 s); each expiry doubles it, up to
	// MaxRetransmitTimeout (default 60 s), as RFC 6347 §4.2.4.1 advises.
	RetransmitTimeout    time.Duration
	MaxRetransmitTimeout time.Duration
	// HandshakeTimeout bounds a handshake (default 60 s).
	HandshakeTimeout time.Duration

	// Listener only.

	// MaxConns bounds the connections a listener keeps, accepted or
	// waiting to be (default 1024); a ClientHello beyond it is dropped.
	MaxConns int
	// Backlog bounds the connections waiting for Accept (default 64).
	Backlog int
	// IdleTimeout closes a listener's connection that has received
	// nothing for that long (default 5 min).
	IdleTimeout time.Duration
}

func (o *Options) internal() dgram.Options {
	if o == nil {
		return dgram.Options{}
	}
	return dgram.Options{
		MTU:                  o.MTU,
		RetransmitTimeout:    o.RetransmitTimeout,
		MaxRetransmitTimeout: o.MaxRetransmitTimeout,
		HandshakeTimeout:     o.HandshakeTimeout,
	}
}

// Conn is a DTLCP connection. Its methods are tlcp.Conn's: Read, Write,
// Close, Handshake, HandshakeContext, ConnectionState and those of
// net.Conn. During the handshake the connection sets its transport's read
// deadline itself, for the retransmission timer; bound a handshake with
// HandshakeContext or Options.HandshakeTimeout, and set deadlines for Read
// after it.
type Conn struct {
	*tlcp.Conn
}

func newConn(conn net.Conn, config *tlcp.Config, isClient bool, opts dgram.Options) *Conn {
	return &Conn{dgram.NewConn(conn, config, isClient, opts).(*tlcp.Conn)}
}

// tlcpOnly returns config limited to TLCP: TLS 1.3 has a datagram form of
// its own (DTLS 1.3), which DTLCP is not. A config that is already so is
// returned as it is, so that a server's session cache, which lives in its
// Config, serves every connection.
func tlcpOnly(config *tlcp.Config) *tlcp.Config {
	if config == nil || config.MinVersion == tlcp.VersionTLCP && config.MaxVersion == tlcp.VersionTLCP {
		return config
	}
	config = config.Clone()
	config.MinVersion, config.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLCP
	return config
}

// Client returns a client-side DTLCP connection to raddr over conn. If
// conn is a connected socket (a *net.UDPConn from net.DialUDP), raddr may
// be nil, and datagrams go with Write rather than WriteTo, which a
// connected socket refuses. config must set ServerName or
// InsecureSkipVerify. The handshake runs on first use.
func Client(conn net.PacketConn, raddr net.Addr, config *tlcp.Config) *Conn {
	return ClientWithOptions(conn, raddr, config, nil)
}

// ClientWithOptions is Client with datagram settings.
func ClientWithOptions(conn net.PacketConn, raddr net.Addr, config *tlcp.Config, opts *Options) *Conn {
	return newConn(packetTransport(conn, raddr), tlcpOnly(config), true, opts.internal())
}

// Server returns a server-side DTLCP connection with the one client at
// raddr over conn (see Client for a connected conn). Most servers use
// Listen, which serves many clients on one socket.
func Server(conn net.PacketConn, raddr net.Addr, config *tlcp.Config) *Conn {
	return ServerWithOptions(conn, raddr, config, nil)
}

// ServerWithOptions is Server with datagram settings.
func ServerWithOptions(conn net.PacketConn, raddr net.Addr, config *tlcp.Config, opts *Options) *Conn {
	return newConn(packetTransport(conn, raddr), tlcpOnly(config), false, opts.internal())
}

// Dial connects to the DTLCP server at addr ("udp", "udp4" or "udp6") and
// runs the handshake. If config.ServerName is empty, it is taken from
// addr's host.
func Dial(network, addr string, config *tlcp.Config) (*Conn, error) {
	return DialWithOptions(context.Background(), network, addr, config, nil)
}

// DialWithOptions is Dial with a context, which bounds the handshake too,
// and datagram settings.
func DialWithOptions(ctx context.Context, network, addr string, config *tlcp.Config, opts *Options) (*Conn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	pc, ok := raw.(net.PacketConn)
	if !ok {
		raw.Close()
		return nil, errors.New("dtlcp: Dial needs a datagram network (udp, udp4, udp6)")
	}
	if config == nil {
		config = &tlcp.Config{}
	}
	if config.ServerName == "" && !config.InsecureSkipVerify {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		config = config.Clone()
		config.ServerName = host
	}
	c := ClientWithOptions(pc, nil, config, opts)
	if err := c.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// packetTransport makes conn and raddr the one-datagram-per-call net.Conn
// that the connection runs over.
func packetTransport(conn net.PacketConn, raddr net.Addr) net.Conn {
	if nc, ok := conn.(net.Conn); ok && nc.RemoteAddr() != nil {
		// Connected: Read and Write are the peer's datagrams already.
		return nc
	}
	return &peerTransport{PacketConn: conn, raddr: raddr}
}

// peerTransport is an unconnected socket used for one peer: reads drop
// datagrams from anyone else.
type peerTransport struct {
	net.PacketConn
	raddr net.Addr
	ap    netip.AddrPort // raddr, for a *net.UDPConn
}

func (t *peerTransport) Read(b []byte) (int, error) {
	if uc, ok := t.PacketConn.(*net.UDPConn); ok {
		if ua, ok := t.raddr.(*net.UDPAddr); ok && !t.ap.IsValid() {
			t.ap = ua.AddrPort()
		}
		for {
			// ReadFromUDPAddrPort does not allocate.
			n, from, err := uc.ReadFromUDPAddrPort(b)
			if err != nil {
				return 0, err
			}
			if from.Addr().Unmap() == t.ap.Addr().Unmap() && from.Port() == t.ap.Port() {
				return n, nil
			}
		}
	}
	for {
		n, from, err := t.ReadFrom(b)
		if err != nil {
			return 0, err
		}
		if from.String() == t.raddr.String() {
			return n, nil
		}
	}
}

func (t *peerTransport) Write(b []byte) (int, error) { return t.WriteTo(b, t.raddr) }

func (t *peerTransport) RemoteAddr() net.Addr { return t.raddr }
