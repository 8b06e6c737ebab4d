// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// TestSendKeyUpdate: either side updates its sending keys, with and
// without asking the peer to, many times in a row with data both ways
// between the updates. After each, the data reads correctly, the sender's
// secret is the next one in RFC 8446 §7.2's chain and protects the
// records right after the message, the receiver reads under it, and a
// requested update was answered (only then).
func TestSendKeyUpdate(t *testing.T) {
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		for _, fromClient := range []bool{true, false} {
			for _, request := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/fromClient=%v/request=%v", ciphersuite.Name(id), fromClient, request), func(t *testing.T) {
					ccfg := tls13ClientConfig(t)
					ccfg.CipherSuites = []uint16{id}
					client, server := mustHandshake13(t, ccfg, testServerConfig(t))
					sender, peer := client, server
					if !fromClient {
						sender, peer = server, client
					}
					// More updates than a run may hold without data
					// between (maxKeyUpdatesInARow): the data resets it.
					for i := range maxKeyUpdatesInARow + 8 {
						ours, theirs := sender.out.secret13, peer.out.secret13
						if err := sender.SendKeyUpdate(request); err != nil {
							t.Fatalf("update %d: %v", i, err)
						}
						// Sequence 0: the KeyUpdate went under the old
						// key, nothing yet under the new one.
						if !bytes.Equal(sender.out.secret13, ciphersuite.TLS13NextTrafficSecret(ours)) || sender.out.rp.Sequence() != 0 {
							t.Fatalf("update %d: the sending secret is not the next one, or records went under it (sequence %d)", i, sender.out.rp.Sequence())
						}
						exchange(t, sender, peer, 1000+i*100)
						if !bytes.Equal(peer.in.secret13, sender.out.secret13) {
							t.Fatalf("update %d: the peer does not read under the new secret", i)
						}
						wantTheirs := theirs
						if request {
							wantTheirs = ciphersuite.TLS13NextTrafficSecret(theirs)
						}
						if !bytes.Equal(peer.out.secret13, wantTheirs) || !bytes.Equal(sender.in.secret13, peer.out.secret13) {
							t.Fatalf("update %d: request=%v, the peer's sending secret moved %v", i, request, !bytes.Equal(peer.out.secret13, theirs))
						}
					}
				})
			}
		}
	}
}

// TestSendKeyUpdateRecordsFollowUnderNewKey: the first record after the
// KeyUpdate is protected under the new secret (RFC 8446 §4.6.3): the
// sequence number of the new key counts it from zero.
func TestSendKeyUpdateRecordsFollowUnderNewKey(t *testing.T) {
	client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
	exchange(t, client, server, 10)
	if err := client.SendKeyUpdate(false); err != nil {
		t.Fatal(err)
	}
	if n := client.out.rp.Sequence(); n != 0 {
		t.Fatalf("sequence %d under the new key before any data", n)
	}
	exchange(t, client, server, 10)
	if n := client.out.rp.Sequence(); n != 1 {
		t.Fatalf("sequence %d after one record under the new key", n)
	}
}

// TestSendKeyUpdateConcurrent: updates from one goroutine while others
// write and read, on both sides; every byte arrives (run it with -race).
func TestSendKeyUpdateConcurrent(t *testing.T) {
	client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
	const chunks, chunk = 200, 3000
	var want [sha256.Size]byte
	{
		h := sha256.New()
		for i := range chunks {
			h.Write(bytes.Repeat([]byte{byte(i)}, chunk))
		}
		copy(want[:], h.Sum(nil))
	}
	errc := make(chan error, 4)
	// The server echoes everything back.
	go func() {
		_, err := io.Copy(server, io.LimitReader(server, chunks*chunk))
		errc <- err
	}()
	// Both sides update their keys, asking and not, meanwhile.
	// Once the stream stalls for the last chunk, runs of updates with no
	// data after them reach the cap, which SendKeyUpdate(true) reports.
	const updates = 40
	var updaters sync.WaitGroup
	var sent [2]int
	for side, c := range []*Conn{client, server} {
		updaters.Add(1)
		go func() {
			defer updaters.Done()
			for i := range updates {
				c.out.Lock()
				before := c.out.rp
				c.out.Unlock()
				switch err := c.SendKeyUpdate(i%2 == 0); {
				case errors.Is(err, errKeyUpdateRunFull):
				case err != nil:
					errc <- fmt.Errorf("SendKeyUpdate %d: %w", i, err)
					return
				default:
					c.out.Lock()
					if c.out.rp != before {
						sent[side]++
					}
					c.out.Unlock()
				}
				time.Sleep(200 * time.Microsecond)
			}
		}()
	}
	// The last chunk waits for the updates, so that they all fall
	// within the stream.
	go func() {
		for i := range chunks {
			if i == chunks-1 {
				updaters.Wait()
			}
			if _, err := client.Write(bytes.Repeat([]byte{byte(i)}, chunk)); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(client, chunks*chunk)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-errc:
		t.Fatal(err) // an updater failed
	default:
	}
	if !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatal("the echoed data differs")
	}
	if sent[0] == 0 || sent[1] == 0 {
		t.Fatalf("updates sent: client %d, server %d", sent[0], sent[1])
	}
	t.Logf("updates sent: client %d, server %d", sent[0], sent[1])
	exchange(t, client, server, 100)
}

// TestSendKeyUpdateInARow: an application that calls SendKeyUpdate with
// no data between never makes the peer end the connection for a flood.
// After maxKeyUpdatesInARow updates with nothing after them, an update
// that does not ask the peer sends nothing (the keys are unused), one that
// asks returns an error, and the connection stays usable; the next data
// ends the run.
func TestSendKeyUpdateInARow(t *testing.T) {
	for _, request := range []bool{false, true} {
		t.Run(fmt.Sprintf("request=%v", request), func(t *testing.T) {
			client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
			exchange(t, client, server, 10)
			secrets := map[string]bool{string(client.out.secret13): true}
			for i := range maxKeyUpdatesInARow {
				if err := client.SendKeyUpdate(request); err != nil {
					t.Fatalf("update %d: %v", i, err)
				}
				secrets[string(client.out.secret13)] = true
			}
			if len(secrets) != maxKeyUpdatesInARow+1 {
				t.Fatalf("%d distinct secrets after %d updates", len(secrets), maxKeyUpdatesInARow)
			}
			last := client.out.secret13
			err := client.SendKeyUpdate(request)
			if request != (err != nil) || !bytes.Equal(last, client.out.secret13) {
				t.Fatalf("update %d: %v, secret moved %v", maxKeyUpdatesInARow+1, err, !bytes.Equal(last, client.out.secret13))
			}
			if err != nil && !strings.Contains(err.Error(), "none was sent") {
				t.Fatalf("error %q", err)
			}
			// The server took them all and, when asked, answered each.
			exchange(t, client, server, 100)
			if !bytes.Equal(server.in.secret13, client.out.secret13) || !bytes.Equal(client.in.secret13, server.out.secret13) {
				t.Fatal("the sides disagree on the keys")
			}
			if err := client.SendKeyUpdate(request); err != nil || bytes.Equal(last, client.out.secret13) {
				t.Fatalf("after data: %v", err)
			}
			exchange(t, client, server, 100)
		})
	}
}

// TestKeyUpdateAnswersStayUnderPeerLimit: a side that reads and does not
// write answers the peer's requests, each KeyUpdate first under its key,
// only as long as the peer takes such a run: a client that asks for an
// update before each of its writes to a server that never writes must
// not make the server's answers a flood that the client ends the
// connection for. The server's key stops moving after the run (it has
// protected nothing since).
func TestKeyUpdateAnswersStayUnderPeerLimit(t *testing.T) {
	client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
	first := server.out.secret13
	const n = maxKeyUpdatesInARow + 8
	go func() {
		for range n {
			if client.SendKeyUpdate(true) != nil {
				return
			}
			if _, err := client.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	if _, err := io.ReadFull(server, make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	want := first
	for range maxKeyUpdatesInARow {
		want = ciphersuite.TLS13NextTrafficSecret(want)
	}
	if !bytes.Equal(server.out.secret13, want) {
		t.Fatal("the server did not answer exactly maxKeyUpdatesInARow requests")
	}
	go server.Write([]byte("y"))
	buf := make([]byte, 1)
	if _, err := io.ReadFull(client, buf); err != nil || buf[0] != 'y' {
		t.Fatalf("client read %q, %v", buf, err)
	}
	exchange(t, client, server, 100)
}

// TestSendKeyUpdateNotTLS13: a TLCP connection has no KeyUpdate; the call
// fails and writes nothing.
func TestSendKeyUpdateNotTLS13(t *testing.T) {
	client, server, cerr, serr := handshakePair(t, testClientConfig(t), testServerConfig(t))
	if cerr != nil || serr != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, serr)
	}
	exchange(t, client, server, 10)
	seq := client.out.rp.Sequence()
	for _, request := range []bool{false, true} {
		err := client.SendKeyUpdate(request)
		if err == nil || !strings.Contains(err.Error(), "TLCP connection") {
			t.Fatalf("SendKeyUpdate(%v) on TLCP: %v", request, err)
		}
	}
	if client.out.rp.Sequence() != seq {
		t.Fatal("a record was sent")
	}
	exchange(t, client, server, 10)
}

// TestSendKeyUpdateBeforeHandshake: before the handshake the call fails
// and writes nothing (it does not start the handshake); after Close it
// fails as Write does.
func TestSendKeyUpdateBeforeHandshake(t *testing.T) {
	c, s := tcpPair(t)
	client := Client(c, tls13ClientConfig(t))
	if err := client.SendKeyUpdate(true); !errors.Is(err, errKeyUpdateBeforeHandshake) {
		t.Fatalf("before the handshake: %v", err)
	}
	s.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := s.Read(make([]byte, 1)); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server read %d bytes (%v)", n, err)
	}

	client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
	exchange(t, client, server, 10)
	if err := client.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if err := client.SendKeyUpdate(false); !errors.Is(err, errShutdown) {
		t.Fatalf("after close_notify: %v", err)
	}
	client.Close()
	if err := client.SendKeyUpdate(false); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestSendKeyUpdateScriptedPeer runs our server's updates against a
// scripted client: the KeyUpdate is the message RFC 8446 §4.6.3 defines,
// records after it open only under the next secret, a peer that answers
// a request with no KeyUpdate of its own is read on (we cannot tell it
// from one whose answer crossed our data, and its data is under a key we
// still hold), and a peer that announces an update and keeps sealing
// under its old key fails with bad_record_mac.
func TestSendKeyUpdateScriptedPeer(t *testing.T) {
	for _, misbehave := range []bool{false, true} {
		t.Run(fmt.Sprintf("oldKeyAfterUpdate=%v", misbehave), func(t *testing.T) {
			s := newClient13()
			server, cerr, serr := s.againstServer(t, testServerConfig(t))
			if cerr != nil || serr != nil {
				t.Fatalf("handshake: client %v, server %v", cerr, serr)
			}
			if err := server.SendKeyUpdate(true); err != nil {
				t.Fatal(err)
			}
			typ, body, err := s.readRecord()
			if err != nil || typ != recordTypeHandshake || !bytes.Equal(body, []byte{typeKeyUpdate, 0, 0, 1, keyUpdateRequested}) {
				t.Fatalf("read %d %x, %v; want a KeyUpdate(update_requested)", typ, body, err)
			}
			old := s.in
			s.serverAP = ciphersuite.TLS13NextTrafficSecret(s.serverAP)
			s.in = newProtection13(s.suite, s.serverAP)
			if misbehave {
				if err := s.send(&keyUpdateMsg{request: keyUpdateNotRequested}); err != nil {
					t.Fatal(err)
				}
				// s.out stays on the old secret.
			}
			if err := s.writeRecord(recordTypeApplicationData, []byte("ping")); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 10)
			n, err := server.Read(buf)
			if misbehave {
				if err == nil {
					t.Fatalf("the server read %q under the old key", buf[:n])
				}
				if aerr := s.readAlert(); aerr != AlertError(alertBadRecordMAC) {
					t.Fatalf("server: %v; alert %v, want bad_record_mac", err, aerr)
				}
				return
			}
			if err != nil || string(buf[:n]) != "ping" {
				t.Fatalf("server read %q, %v", buf[:n], err)
			}
			go server.Write([]byte("pong"))
			// The ticket, held for the first data, and the data follow
			// under the new key; the old one no longer opens them.
			hdr := make([]byte, recordHeaderLen)
			if _, err := io.ReadFull(s.r, hdr); err != nil {
				t.Fatal(err)
			}
			rec := make([]byte, int(hdr[3])<<8|int(hdr[4]))
			if _, err := io.ReadFull(s.r, rec); err != nil {
				t.Fatal(err)
			}
			if _, _, err := old.open(hdr, rec); err == nil {
				t.Fatal("a record after the KeyUpdate opens under the old key")
			}
			typ, data, err := s.in.open(hdr, rec)
			if err != nil {
				t.Fatalf("the record after the KeyUpdate: %v", err)
			}
			if typ != recordTypeApplicationData {
				data, _, err = s.readApplicationData()
			}
			if err != nil || string(data) != "pong" {
				t.Fatalf("read %q, %v", data, err)
			}
		})
	}
}
