// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dtlcp

import (
	"net"
	"os"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/tlcp/internal/dgram"
)

// Listener defaults.
const (
	defaultMaxConns    = 1024
	defaultBacklog     = 64
	defaultIdleTimeout = 5 * time.Minute
	peerQueue          = 64 // datagrams queued for one connection
)

// Listen listens on the UDP address laddr and returns a net.Listener whose
// Accept yields one *Conn per client address. config must hold at least
// one certificate pair (or set GetCertificate or GetConfigForClient).
func Listen(network, laddr string, config *tlcp.Config) (net.Listener, error) {
	return ListenWithOptions(network, laddr, config, nil)
}

// ListenWithOptions is Listen with datagram settings.
func ListenWithOptions(network, laddr string, config *tlcp.Config, opts *Options) (net.Listener, error) {
	pc, err := net.ListenPacket(network, laddr)
	if err != nil {
		return nil, err
	}
	return NewListener(pc, config, opts), nil
}

// NewListener serves DTLCP on pc, which the listener owns from then on.
//
// A datagram from an address with no connection must hold a ClientHello.
// One without a valid cookie is answered with a HelloVerifyRequest and
// forgotten (RFC 6347 §4.2.1): nothing is kept for a client until it has
// shown that it receives at its address. A ClientHello with a valid cookie
// makes a connection, which Accept returns; at most Options.MaxConns exist
// at a time, and one that has received nothing for Options.IdleTimeout is
// closed.
func NewListener(pc net.PacketConn, config *tlcp.Config, opts *Options) net.Listener {
	l := &listener{
		pc:       pc,
		config:   tlcpOnly(config),
		conns:    make(map[string]*peerConn),
		closed:   make(chan struct{}),
		sockDone: make(chan struct{}),
		cookies:  new(dgram.CookieJar),
	}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.MaxConns <= 0 {
		l.opts.MaxConns = defaultMaxConns
	}
	if l.opts.Backlog <= 0 {
		l.opts.Backlog = defaultBacklog
	}
	if l.opts.IdleTimeout <= 0 {
		l.opts.IdleTimeout = defaultIdleTimeout
	}
	l.accept = make(chan *Conn, l.opts.Backlog)
	l.dopts = l.opts.internal()
	l.dopts.Cookies = l.cookies
	go l.readLoop()
	go l.expire()
	return l
}

type listener struct {
	pc      net.PacketConn
	config  *tlcp.Config
	opts    Options
	dopts   dgram.Options
	cookies *dgram.CookieJar

	mu       sync.Mutex
	conns    map[string]*peerConn
	accept   chan *Conn
	closed   chan struct{}
	once     sync.Once
	sockOnce sync.Once
	sockDone chan struct{} // closed with the socket
	err      error
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.accept:
		return c, nil
	case <-l.closed:
		l.mu.Lock()
		defer l.mu.Unlock()
		return nil, l.err
	}
}

func (l *listener) Addr() net.Addr { return l.pc.LocalAddr() }

// Close stops the listener from accepting: connections not yet accepted
// are closed, ClientHellos from new addresses go unanswered. As with a TCP
// listener, the connections already accepted live on; the socket they
// share is closed when the last of them is.
func (l *listener) Close() error {
	first := false
	l.once.Do(func() {
		first = true
		l.mu.Lock()
		l.err = net.ErrClosed
		close(l.closed)
		l.mu.Unlock()
	})
	if !first {
		return net.ErrClosed
	}
	for {
		select {
		case c := <-l.accept:
			c.Close()
			continue
		default:
		}
		break
	}
	l.mu.Lock()
	idle := len(l.conns) == 0
	l.mu.Unlock()
	if idle {
		return l.closeSocket()
	}
	return nil
}

func (l *listener) closeSocket() error {
	var err error
	l.sockOnce.Do(func() { err = l.pc.Close(); close(l.sockDone) })
	return err
}

// fail ends everything after the socket failed.
func (l *listener) fail(err error) {
	l.once.Do(func() {
		l.mu.Lock()
		l.err = err
		close(l.closed)
		l.mu.Unlock()
	})
	l.mu.Lock()
	conns := l.conns
	l.conns = map[string]*peerConn{}
	l.mu.Unlock()
	for _, pc := range conns {
		pc.shut()
	}
	l.closeSocket()
}

// conns counts the connections, for tests.
func (l *listener) connCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

func (l *listener) readLoop() {
	buf := make([]byte, dgram.MaxDatagram)
	for {
		n, addr, err := l.pc.ReadFrom(buf)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			l.fail(err)
			return
		}
		l.handle(buf[:n], addr)
	}
}

// handle gives one datagram to its connection, or answers or drops it.
func (l *listener) handle(b []byte, addr net.Addr) {
	key := addr.String()
	l.mu.Lock()
	pc := l.conns[key]
	l.mu.Unlock()
	h, isHello := dgram.ParseHello(b)
	if pc != nil && (!isHello || pc.sameHello(h)) {
		pc.deliver(b)
		return
	}
	select {
	case <-l.closed:
		return // not accepting
	default:
	}
	if !isHello {
		return // not a ClientHello: nothing to answer, nothing to keep
	}
	if !l.cookies.Verify(key, h.TLCPBody, h.Cookie) {
		cookie, err := l.cookies.Cookie(key, h.TLCPBody)
		if err == nil {
			l.pc.WriteTo(dgram.HelloVerifyRequest(h, cookie), addr)
		}
		return
	}
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		return
	default:
	}
	if old := l.conns[key]; old != nil {
		// A new handshake, its cookie valid, from an address that has a
		// connection: the client restarted on the same port (RFC 6347
		// §4.2.8). The address is the new client's now; the old
		// connection ends.
		delete(l.conns, key)
		old.shut()
	}
	if len(l.conns) >= l.opts.MaxConns || len(l.accept) == cap(l.accept) {
		l.mu.Unlock()
		return
	}
	pc = newPeerConn(l, addr, key)
	copy(pc.random[:], h.TLCPBody[2:34])
	l.conns[key] = pc
	l.mu.Unlock()
	pc.deliver(b)
	l.accept <- newConn(pc, l.config, false, l.dopts) // room checked above, under l.mu
}

func (l *listener) remove(key string, pc *peerConn) {
	l.mu.Lock()
	if l.conns[key] == pc {
		delete(l.conns, key)
	}
	last := len(l.conns) == 0
	l.mu.Unlock()
	select {
	case <-l.closed:
		if last {
			l.closeSocket()
		}
	default:
	}
}

// expire closes connections idle for longer than IdleTimeout.
func (l *listener) expire() {
	t := time.NewTicker(max(l.opts.IdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-l.sockDone:
			return
		case now := <-t.C:
			var idle []*peerConn
			l.mu.Lock()
			for _, pc := range l.conns {
				if now.Sub(pc.lastRecv()) > l.opts.IdleTimeout {
					idle = append(idle, pc)
				}
			}
			l.mu.Unlock()
			for _, pc := range idle {
				pc.Close()
			}
		}
	}
}

// bufPool holds datagram buffers on their way from the listener's socket
// to a connection's Read.
var bufPool = sync.Pool{New: func() any { b := make([]byte, dgram.MaxDatagram); return &b }}

// queued is one datagram waiting for its connection's Read.
type queued struct {
	buf *[]byte
	n   int
}

// peerConn is the transport of one client of a listener: its datagrams,
// as the listener demultiplexes them, and writes to its address.
type peerConn struct {
	l    *listener
	addr net.Addr
	key  string
	in   chan queued
	done chan struct{}
	once sync.Once

	random [32]byte // of the ClientHello that made the connection

	mu       sync.Mutex
	deadline time.Time
	wake     chan struct{} // closed when the deadline changes
	last     time.Time
	timer    *time.Timer
}

func newPeerConn(l *listener, addr net.Addr, key string) *peerConn {
	return &peerConn{l: l, addr: addr, key: key, in: make(chan queued, peerQueue),
		done: make(chan struct{}), wake: make(chan struct{}), last: time.Now()}
}

// sameHello reports whether h belongs to the handshake that made the
// connection (a retransmission) rather than to a new one.
func (p *peerConn) sameHello(h dgram.Hello) bool {
	return len(h.TLCPBody) >= 34 && [32]byte(h.TLCPBody[2:34]) == p.random
}

func (p *peerConn) lastRecv() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// deliver queues a copy of b, or drops it if the connection is behind
// (a datagram transport may lose datagrams; the handshake retransmits).
func (p *peerConn) deliver(b []byte) {
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
	buf := bufPool.Get().(*[]byte)
	n := copy(*buf, b)
	select {
	case p.in <- queued{buf, n}:
	default:
		bufPool.Put(buf)
	}
}

func (p *peerConn) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		dl, wake := p.deadline, p.wake
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				p.mu.Unlock()
				return 0, os.ErrDeadlineExceeded
			}
			if p.timer == nil {
				p.timer = time.NewTimer(d)
			} else {
				p.timer.Reset(d)
			}
			timeout = p.timer.C
		}
		p.mu.Unlock()
		select {
		case q := <-p.in:
			n := copy(b, (*q.buf)[:q.n])
			bufPool.Put(q.buf)
			return n, nil
		case <-p.done:
			return 0, net.ErrClosed
		case <-wake:
		case <-timeout:
		}
	}
}

func (p *peerConn) Write(b []byte) (int, error) {
	select {
	case <-p.done:
		return 0, net.ErrClosed
	default:
	}
	return p.l.pc.WriteTo(b, p.addr)
}

// shut ends the connection's transport; Close also forgets it.
func (p *peerConn) shut() {
	p.once.Do(func() { close(p.done) })
}

func (p *peerConn) Close() error {
	p.shut()
	p.l.remove(p.key, p)
	return nil
}

func (p *peerConn) LocalAddr() net.Addr  { return p.l.pc.LocalAddr() }
func (p *peerConn) RemoteAddr() net.Addr { return p.addr }

func (p *peerConn) SetDeadline(t time.Time) error { return p.SetReadDeadline(t) }

func (p *peerConn) SetReadDeadline(t time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deadline = t
	close(p.wake)
	p.wake = make(chan struct{})
	return nil
}

// SetWriteDeadline does nothing: a datagram write does not wait for the
// peer.
func (p *peerConn) SetWriteDeadline(time.Time) error { return nil }
