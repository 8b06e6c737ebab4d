// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// tracer records what Config.MessageTrace reports for one connection.
type tracer struct {
	mu     sync.Mutex
	conn   *Conn    // the connection reported, once seen
	others int      // reports for any other connection
	events []string // "> hs 1", "< ccs", "> alert 1.0"
	raw    [][]byte // the messages, in the same order
}

func (tr *tracer) trace(c *Conn, sent bool, contentType uint8, msg []byte) {
	_ = c.RemoteAddr() // allowed while c is locked; must not deadlock
	tr.mu.Lock()
	if tr.conn == nil {
		tr.conn = c
	} else if tr.conn != c {
		tr.others++
	}
	tr.mu.Unlock()
	dir := "<"
	if sent {
		dir = ">"
	}
	var ev string
	switch recordType(contentType) {
	case recordTypeHandshake:
		ev = fmt.Sprintf("%s hs %d", dir, msg[0])
		if n := int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3]); n != len(msg)-4 {
			ev += fmt.Sprintf(" (header says %d bytes, %d given)", n, len(msg)-4)
		}
	case recordTypeChangeCipherSpec:
		ev = fmt.Sprintf("%s ccs %x", dir, msg)
	case recordTypeAlert:
		ev = fmt.Sprintf("%s alert %d.%d", dir, msg[0], msg[1])
	default:
		ev = fmt.Sprintf("%s type %d", dir, contentType)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events = append(tr.events, ev)
	tr.raw = append(tr.raw, bytes.Clone(msg))
}

func (tr *tracer) get() ([]string, [][]byte) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.events), slices.Clone(tr.raw)
}

// mirror turns one side's trace into what the other side must have seen.
func mirror(events []string) []string {
	out := make([]string, len(events))
	for i, e := range events {
		switch e[0] {
		case '>':
			out[i] = "<" + e[1:]
		case '<':
			out[i] = ">" + e[1:]
		}
	}
	return out
}

// sent returns the events and messages of one direction.
func sentOnly(events []string, raw [][]byte, sent bool) ([]string, [][]byte) {
	var es []string
	var rs [][]byte
	for i, e := range events {
		if (e[0] == '>') == sent {
			es = append(es, e)
			rs = append(rs, raw[i])
		}
	}
	return es, rs
}

// TestMessageTrace: every handshake message, ChangeCipherSpec and alert of
// both directions is reported once, in wire order, with its plaintext
// (the encrypted Finished included), and what one side reports as sent
// the other reports as received, byte for byte.
func TestMessageTrace(t *testing.T) {
	full := func(clientAuth bool) (client []string) {
		client = []string{"> hs 1", "< hs 2", "< hs 11", "< hs 12"}
		if clientAuth {
			client = append(client, "< hs 13")
		}
		client = append(client, "< hs 14")
		if clientAuth {
			client = append(client, "> hs 11", "> hs 16", "> hs 15")
		} else {
			client = append(client, "> hs 16")
		}
		return append(client, "> ccs 01", "> hs 20", "< ccs 01", "< hs 20")
	}
	resumed := []string{"> hs 1", "< hs 2", "< ccs 01", "< hs 20", "> ccs 01", "> hs 20"}
	closeNotify := []string{"> alert 1.0"}

	cache := NewLRUClientSessionCache(4)
	tests := []struct {
		name   string
		suite  uint16
		auth   ClientAuthType
		resume bool
		want   []string // the client's trace
	}{
		{"ECC", ciphersuite.ECC_SM4_GCM_SM3, NoClientCert, false, full(false)},
		{"ECC resumed", ciphersuite.ECC_SM4_GCM_SM3, NoClientCert, true, resumed},
		{"ECC client auth", ciphersuite.ECC_SM4_CBC_SM3, RequireAndVerifyClientCert, false, full(true)},
		{"ECDHE", ciphersuite.ECDHE_SM4_CBC_SM3, NoClientCert, false, full(true)},
	}
	scfg := testServerConfig(t)
	scfg.sessionCache() // created now, so that every Clone shares it
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ct, st tracer
			ccfg := testClientConfig(t)
			ccfg.CipherSuites = []uint16{tt.suite}
			ccfg.ClientSessionCache = cache
			ccfg.MessageTrace = ct.trace
			s := scfg.Clone()
			s.ClientAuth = tt.auth
			s.MessageTrace = st.trace
			client, server, cerr, serr := handshakePair(t, ccfg, s)
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			if client.ConnectionState().DidResume != tt.resume {
				t.Fatalf("DidResume = %v, want %v", !tt.resume, tt.resume)
			}
			exchange(t, client, server, 100) // application data is not traced
			client.Close()
			if _, err := server.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("server Read after close_notify: %v", err)
			}

			if ct.conn != client || st.conn != server || ct.others+st.others != 0 {
				t.Errorf("MessageTrace reported connections %p/%p, want %p/%p (%d others)", ct.conn, st.conn, client, server, ct.others+st.others)
			}
			cev, craw := ct.get()
			sev, sraw := st.get()
			want := append(slices.Clone(tt.want), closeNotify...)
			if !slices.Equal(cev, want) {
				t.Errorf("client trace\n%s\nwant\n%s", strings.Join(cev, "\n"), strings.Join(want, "\n"))
			}
			if !slices.Equal(sev, mirror(want)) {
				t.Errorf("server trace\n%s\nwant\n%s", strings.Join(sev, "\n"), strings.Join(mirror(want), "\n"))
			}
			// Byte for byte: what the client sent, the server received,
			// and the other way round.
			for _, dir := range []bool{true, false} {
				ce, cr := sentOnly(cev, craw, dir)
				_, sr := sentOnly(sev, sraw, !dir)
				for i := range min(len(cr), len(sr)) {
					if !bytes.Equal(cr[i], sr[i]) {
						t.Errorf("%s: the two sides report different bytes", ce[i])
					}
				}
			}
			// Finished is reported in plaintext: type, length 12, and
			// its verify_data.
			for i, e := range cev {
				if strings.HasSuffix(e, "hs 20") && (len(craw[i]) != 16 || !bytes.Equal(craw[i][:4], []byte{20, 0, 0, 12})) {
					t.Errorf("%s: % x, want a 16-byte Finished", e, craw[i])
				}
			}
		})
	}
}

// TestMessageTraceAlerts: the fatal alert of a failed handshake is reported
// by the side that sends it and the side that receives it.
func TestMessageTraceAlerts(t *testing.T) {
	var ct, st tracer
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_CBC_SM3}
	scfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
	ccfg.MessageTrace, scfg.MessageTrace = ct.trace, st.trace
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr == nil || serr == nil {
		t.Fatalf("handshake without a common suite: client %v, server %v", cerr, serr)
	}
	want := []string{"> hs 1", "< alert 2.40"} // handshake_failure
	if cev, _ := ct.get(); !slices.Equal(cev, want) {
		t.Errorf("client trace %q, want %q", cev, want)
	}
	if sev, _ := st.get(); !slices.Equal(sev, mirror(want)) {
		t.Errorf("server trace %q, want %q", sev, mirror(want))
	}
}

// TestMessageTraceAfterHandshake: a HelloRequest after the handshake
// (protected) and the no_renegotiation warning that declines it are
// reported too.
func TestMessageTraceAfterHandshake(t *testing.T) {
	var ct, st tracer
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.MessageTrace, scfg.MessageTrace = ct.trace, st.trace
	client, server, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatalf("client %v, server %v", cerr, serr)
	}
	if err := server.writeHandshake(&helloRequestMsg{}, nil); err != nil {
		t.Fatal(err)
	}
	exchange(t, client, server, 10) // the client's Read meets the HelloRequest first
	exchange(t, client, server, 10) // the server's Read meets the warning
	cev, _ := ct.get()
	sev, _ := st.get()
	if want := []string{"< hs 0", "> alert 1.100"}; !slices.Equal(cev[len(cev)-2:], want) {
		t.Errorf("client trace ends %q, want %q", cev[len(cev)-2:], want)
	}
	if want := []string{"> hs 0", "< alert 1.100"}; !slices.Equal(sev[len(sev)-2:], want) {
		t.Errorf("server trace ends %q, want %q", sev[len(sev)-2:], want)
	}
}

// TestMessageTraceSharedConfig: a server's one Config serves many
// connections, and each report names its connection, so that a tool can
// keep their traces apart.
func TestMessageTraceSharedConfig(t *testing.T) {
	scfg := testServerConfig(t)
	var mu sync.Mutex
	perConn := map[*Conn][]string{}
	scfg.MessageTrace = func(c *Conn, sent bool, contentType uint8, msg []byte) {
		mu.Lock()
		defer mu.Unlock()
		perConn[c] = append(perConn[c], fmt.Sprintf("%v %d", sent, contentType))
	}
	const n = 4
	servers := make(chan *Conn, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, s := tcpPair(t)
			client, server := Client(c, testClientConfig(t)), Server(s, scfg)
			done := make(chan error, 1)
			go func() { done <- server.Handshake() }()
			if err := client.Handshake(); err != nil {
				t.Error(err)
			}
			if err := <-done; err != nil {
				t.Error(err)
			}
			servers <- server
		}()
	}
	wg.Wait()
	close(servers)
	mu.Lock()
	defer mu.Unlock()
	if len(perConn) != n {
		t.Fatalf("reports name %d connections, want %d", len(perConn), n)
	}
	for s := range servers {
		// ClientHello in ... Finished out: 10 reports for an ECC handshake.
		if got := len(perConn[s]); got != 10 {
			t.Errorf("connection %p: %d reports, want 10: %v", s, got, perConn[s])
		}
	}
}
