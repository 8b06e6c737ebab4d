// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sessioncache_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	sessioncache "github.com/shangmi-go/shangmi/examples/sessioncache-redis"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// redisClient returns a client for the Redis at REDIS_ADDR or, if that
// is unset, for a redis-server this test starts on a free port of
// 127.0.0.1 with its files in a temporary directory and stops at the end.
// Without either the test is skipped.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	addr := os.Getenv("REDIS_ADDR")
	if addr == "" {
		addr = startRedis(t)
	}
	client := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
	t.Cleanup(func() { client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		t.Fatalf("Redis at %s: %v", addr, err)
	}
	return client
}

func startRedis(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("REDIS_ADDR is not set and redis-server is not on PATH")
	}
	dir := t.TempDir()
	for attempt := 0; attempt < 5; attempt++ {
		// A free port, released for redis-server to take; another
		// process may take it first, hence the attempts.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		logFile := filepath.Join(dir, "redis-"+port+".log")
		cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "no", "--logfile", logFile)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		addr := net.JoinHostPort("127.0.0.1", port)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			select {
			case <-exited:
				deadline = time.Time{} // try another port
				continue
			default:
			}
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				t.Cleanup(func() {
					cmd.Process.Kill()
					<-exited
				})
				return addr
			}
		}
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
		log, _ := os.ReadFile(logFile)
		t.Logf("redis-server on port %s did not start: %s", port, log)
	}
	t.Fatal("could not start redis-server")
	return ""
}

func testdata(name string) string { return filepath.Join("..", "..", "testdata", "openssl", name) }

func loadPair(t *testing.T, role string) tlcp.CertificatePair {
	t.Helper()
	pair, err := tlcp.LoadCertificatePair(testdata(role+"_sign.pem"), testdata(role+"_sign.key"), testdata(role+"_enc.pem"), testdata(role+"_enc.key"))
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

func roots(t *testing.T) *smx509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(testdata("ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := smx509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("no CA certificate")
	}
	return pool
}

// startServer runs a TLCP server that tells each client whether its
// session was resumed and whose certificate it saw.
func startServer(t *testing.T, cfg *tlcp.Config) string {
	t.Helper()
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				tc := c.(*tlcp.Conn)
				if err := tc.Handshake(); err != nil {
					return
				}
				st := tc.ConnectionState()
				client := "none"
				if st.PeerSignCertificate != nil {
					client = st.PeerSignCertificate.Subject.CommonName
				}
				fmt.Fprintf(c, "resumed=%v client=%s", st.DidResume, client)
			}()
		}
	}()
	return ln.Addr().String()
}

func dial(t *testing.T, addr string, cfg *tlcp.Config) string {
	t.Helper()
	conn, err := tlcp.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newKey(t *testing.T) [tlcp.SessionCacheKeySize]byte {
	var k [tlcp.SessionCacheKeySize]byte
	if _, err := rand.Read(k[:]); err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSessionResumedOnAnotherServer: a session made with one server is
// resumed by another that shares the Redis store and the key, for the ECC
// and the ECDHE suites with a verified client; Redis holds one sealed
// value per session, with the session lifetime as its TTL, and not the
// master secret; a server with another key does not resume it.
func TestSessionResumedOnAnotherServer(t *testing.T) {
	client := redisClient(t)
	ctx := context.Background()
	for _, suite := range []uint16{0xe053, 0xe051} { // ECC_SM4_GCM_SM3, ECDHE_SM4_GCM_SM3
		t.Run(tlcp.CipherSuiteName(suite), func(t *testing.T) {
			prefix := "tlcp-test:" + hex.EncodeToString(newKeySlice(t)) + ":"
			store := &sessioncache.Store{Client: client, Prefix: prefix, OnError: func(op string, err error) { t.Errorf("%s: %v", op, err) }}
			key := newKey(t)
			var keyLog bytes.Buffer
			server := func(keys ...[tlcp.SessionCacheKeySize]byte) string {
				cfg := &tlcp.Config{
					Certificates:       []tlcp.CertificatePair{loadPair(t, "server")},
					ClientAuth:         tlcp.RequireAndVerifyClientCert,
					ClientCAs:          roots(t),
					CipherSuites:       []uint16{suite},
					ServerSessionCache: store,
					SessionLifetime:    10 * time.Minute,
					KeyLogWriter:       &keyLog,
				}
				cfg.SetSessionCacheKeys(keys)
				return startServer(t, cfg)
			}
			a, b, other := server(key), server(key), server(newKey(t))

			ccfg := &tlcp.Config{
				RootCAs:            roots(t),
				ServerName:         "localhost",
				Certificates:       []tlcp.CertificatePair{loadPair(t, "client")},
				ClientSessionCache: tlcp.NewLRUClientSessionCache(4),
			}
			if got := dial(t, a, ccfg); got != "resumed=false client=shangmi openssl client" {
				t.Fatalf("server A: %s", got)
			}
			if got := dial(t, b, ccfg); got != "resumed=true client=shangmi openssl client" {
				t.Fatalf("server B: %s, want the session made with A resumed", got)
			}

			keys, err := client.Keys(ctx, prefix+"*").Result()
			if err != nil || len(keys) != 1 {
				t.Fatalf("Redis holds %v (%v), want one session", keys, err)
			}
			value, _ := client.Get(ctx, keys[0]).Bytes()
			master, _ := hex.DecodeString(strings.Fields(keyLog.String())[2])
			if len(master) != 48 || bytes.Contains(value, master) || bytes.Contains(value, []byte("shangmi openssl client")) {
				t.Fatal("Redis holds the master secret or the client's name in the clear")
			}
			if ttl := client.PTTL(ctx, keys[0]).Val(); ttl <= 9*time.Minute || ttl > 10*time.Minute {
				t.Fatalf("TTL %v, want the session lifetime", ttl)
			}

			if got := dial(t, other, ccfg); got != "resumed=false client=shangmi openssl client" {
				t.Fatalf("server with another key: %s", got)
			}
		})
	}
}

func newKeySlice(t *testing.T) []byte { k := newKey(t); return k[:8] }

// TestRedisDown: with Redis unreachable the handshakes still succeed, as
// full ones, and the failures are reported.
func TestRedisDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	rc := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, MaxRetries: -1})
	defer rc.Close()
	var mu sync.Mutex
	var failures []string
	store := &sessioncache.Store{Client: rc, Timeout: 200 * time.Millisecond, OnError: func(op string, err error) {
		mu.Lock()
		failures = append(failures, op)
		mu.Unlock()
	}}
	cfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{loadPair(t, "server")}, ServerSessionCache: store}
	srv := startServer(t, cfg)
	ccfg := &tlcp.Config{RootCAs: roots(t), ServerName: "localhost", ClientSessionCache: tlcp.NewLRUClientSessionCache(4)}
	for range 2 {
		if got := dial(t, srv, ccfg); got != "resumed=false client=none" {
			t.Fatalf("got %s", got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(failures, ",") != "put,get,put" {
		t.Fatalf("failures reported: %v", failures)
	}
}
