// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sessioncache_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sessioncache "github.com/shangmi-go/shangmi/examples/sessioncache-redis"
	"github.com/shangmi-go/shangmi/tlcp"
)

// fakeClock is the time of the servers, their rings and the clients.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time           { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) set(t time.Time)          { c.ns.Store(t.UnixNano()) }
func (c *fakeClock) since(t time.Time) string { return c.now().Sub(t).String() }

// TestKeyRingRotationDuringResumption: two servers share a Redis store and
// a key ring that A writes and B only reads; clients resume, alternately on
// A and on B, sessions and TLS 1.3 tickets across a rotation (the new key
// written, then sealing), with B refreshing only every other minute. Every
// resumption succeeds, sessions made on either side of the rotation open
// on both servers, and the old key leaves the ring once its successor has
// sealed for Lead plus Lifetime.
func TestKeyRingRotationDuringResumption(t *testing.T) {
	client := redisClient(t)
	ctx := context.Background()
	prefix := "tlcp-test:" + hex.EncodeToString(newKeySlice(t)) + ":"
	clock := new(fakeClock)
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	clock.set(t0)
	wrap := newKey(t)
	ring := func(readOnly bool) *sessioncache.KeyRing {
		return &sessioncache.KeyRing{
			Client: client, Name: prefix + "keyring", WrapKey: wrap,
			Period: time.Hour, Lifetime: 30 * time.Minute, RefreshInterval: time.Minute, Lead: 3 * time.Minute,
			ReadOnly: readOnly, Time: clock.now,
			OnError: func(op string, err error) { t.Errorf("ring %s: %v", op, err) },
		}
	}
	ringA, ringB := ring(false), ring(true)
	store := &sessioncache.Store{Client: client, Prefix: prefix, OnError: func(op string, err error) { t.Errorf("%s: %v", op, err) }}
	server := func(r *sessioncache.KeyRing) string {
		cfg := &tlcp.Config{
			Certificates:       []tlcp.CertificatePair{loadPair(t, "server")},
			ServerSessionCache: store,
			SessionLifetime:    30 * time.Minute,
			Time:               clock.now,
		}
		r.Use(cfg)
		return startServer(t, cfg)
	}
	a, b := server(ringA), server(ringB)
	if err := ringA.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ringB.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ringA.Keys()) != 1 || ringA.Keys()[0] != ringB.Keys()[0] {
		t.Fatal("the servers do not share the first key")
	}
	k1 := ringA.Keys()[0]

	protocols := []struct {
		name string
		vers uint16
	}{{"TLCP", tlcp.VersionTLCP}, {"TLS 1.3", tlcp.VersionTLS13}}
	newClient := func(vers uint16) *tlcp.Config {
		return &tlcp.Config{
			RootCAs: roots(t), ServerName: "localhost", Time: clock.now,
			MinVersion: vers, MaxVersion: vers,
			ClientSessionCache: tlcp.NewLRUClientSessionCache(4),
		}
	}
	expect := func(addr string, cfg *tlcp.Config, resumed bool, what string) {
		t.Helper()
		want := fmt.Sprintf("resumed=%v client=none", resumed)
		if got := dial(t, addr, cfg); got != want {
			t.Fatalf("%s at +%s: %s, want %s", what, clock.since(t0), got, want)
		}
	}

	// Sessions made before the rotation, with the first key.
	clock.set(t0.Add(50 * time.Minute))
	old := map[string]*tlcp.Config{}
	for _, p := range protocols {
		for _, srv := range []string{a, b} {
			c := newClient(p.vers)
			expect(srv, c, false, p.name+" first handshake")
			old[p.name+srv] = c
		}
	}

	// Minute by minute through the rotation: the new key is written at
	// +57 and seals from +60; B refreshes on even minutes only.
	for minute := 51; minute <= 70; minute++ {
		clock.set(t0.Add(time.Duration(minute) * time.Minute))
		if err := ringA.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if minute%2 == 0 {
			if err := ringB.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range protocols {
			// Each old client resumes on the other server than last time.
			for i, first := range []string{a, b} {
				srv := []string{a, b}[(minute+i)%2]
				expect(srv, old[p.name+first], true, p.name+" session from before the rotation")
			}
			// A session made now on one server resumes on the other.
			for _, pair := range [][2]string{{a, b}, {b, a}} {
				c := newClient(p.vers)
				expect(pair[0], c, false, p.name+" new session")
				expect(pair[1], c, true, p.name+" new session on the other server")
			}
		}
	}
	keysA, keysB := ringA.Keys(), ringB.Keys()
	if len(keysA) != 2 || keysA[1] != k1 || keysA[0] == k1 {
		t.Fatalf("after the rotation A has %d keys, want the new one sealing and the old one opening", len(keysA))
	}
	if len(keysB) != 2 || keysB[0] != keysA[0] {
		t.Fatal("B does not seal with the new key")
	}

	// The old key goes at +60 +Lead +Lifetime.
	clock.set(t0.Add(92 * time.Minute))
	ringA.Refresh(ctx)
	if len(ringA.Keys()) != 2 {
		t.Fatal("the old key went early")
	}
	clock.set(t0.Add(93 * time.Minute))
	ringA.Refresh(ctx)
	ringB.Refresh(ctx)
	if len(ringA.Keys()) != 1 || len(ringB.Keys()) != 1 || ringA.Keys()[0] == k1 {
		t.Fatal("the old key is still in the ring")
	}
	raw, err := client.Get(ctx, prefix+"keyring").Bytes()
	if err != nil || bytes.Contains(raw, k1[:8]) || bytes.Contains(raw, keysA[0][:8]) {
		t.Fatalf("the ring in Redis (%v) holds a key in the clear", err)
	}
}

// TestKeyRingConcurrentWriters: servers that all write the ring, refreshing
// at the same moments, agree on it: one new key per rotation, never two.
func TestKeyRingConcurrentWriters(t *testing.T) {
	client := redisClient(t)
	ctx := context.Background()
	name := "tlcp-test:" + hex.EncodeToString(newKeySlice(t)) + ":keyring"
	clock := new(fakeClock)
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	clock.set(t0)
	wrap := newKey(t)
	rings := make([]*sessioncache.KeyRing, 4)
	for i := range rings {
		rings[i] = &sessioncache.KeyRing{Client: client, Name: name, WrapKey: wrap, Period: time.Hour,
			Lifetime: 10 * time.Minute, Lead: 3 * time.Minute, Time: clock.now}
	}
	refreshAll := func() {
		var wg sync.WaitGroup
		for _, r := range rings {
			wg.Go(func() {
				if err := r.Refresh(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	for minute := 0; minute <= 130; minute += 1 {
		clock.set(t0.Add(time.Duration(minute) * time.Minute))
		refreshAll()
	}
	// Last changes (a key dropped) may be seen by late readers only at the
	// next refresh.
	refreshAll()
	want := rings[0].Keys()
	for i, r := range rings {
		if got := r.Keys(); len(got) != len(want) || got[0] != want[0] {
			t.Fatalf("ring %d has %d keys, sealer %x; ring 0 has %d, sealer %x", i, len(got), got[0][:4], len(want), want[0][:4])
		}
	}
	// +130: keys from 0, 60 and 120; the first went at 60+3+10.
	if len(want) != 2 {
		t.Fatalf("%d keys after two rotations, want 2", len(want))
	}
}

// TestKeyRingWrongWrapKey: a server given another WrapKey cannot read the
// ring, says so, and leaves it as it was; a reader finding no ring fails.
func TestKeyRingWrongWrapKey(t *testing.T) {
	client := redisClient(t)
	ctx := context.Background()
	name := "tlcp-test:" + hex.EncodeToString(newKeySlice(t)) + ":keyring"
	reader := &sessioncache.KeyRing{Client: client, Name: name, WrapKey: newKey(t), ReadOnly: true}
	if err := reader.Refresh(ctx); err == nil {
		t.Fatal("a reader refreshed a ring that does not exist")
	}
	good := &sessioncache.KeyRing{Client: client, Name: name, WrapKey: newKey(t)}
	if err := good.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	before, _ := client.Get(ctx, name).Bytes()
	var ops []string
	bad := &sessioncache.KeyRing{Client: client, Name: name, WrapKey: newKey(t), OnError: func(op string, err error) { ops = append(ops, op) }}
	cfg := &tlcp.Config{}
	bad.Use(cfg)
	if err := bad.Refresh(ctx); !errors.Is(err, sessioncache.ErrKeyRingUnreadable) {
		t.Fatalf("got %v, want ErrKeyRingUnreadable", err)
	}
	if err := bad.Rotate(ctx); !errors.Is(err, sessioncache.ErrKeyRingUnreadable) {
		t.Fatalf("Rotate: got %v, want ErrKeyRingUnreadable", err)
	}
	if after, _ := client.Get(ctx, name).Bytes(); !bytes.Equal(before, after) {
		t.Fatal("a server with the wrong WrapKey changed the ring")
	}
	if len(ops) != 2 || ops[0] != "open" || bad.Keys() != nil {
		t.Fatalf("reported %v, keys %v", ops, bad.Keys())
	}
	if err := (&sessioncache.KeyRing{Client: client, Name: name, WrapKey: good.WrapKey, ReadOnly: true}).Rotate(ctx); err == nil {
		t.Fatal("Rotate on a ReadOnly ring")
	}
}

// TestKeyRingRun: Run applies the ring at once, refreshes it on its
// interval and returns when its context ends.
func TestKeyRingRun(t *testing.T) {
	client := redisClient(t)
	name := "tlcp-test:" + hex.EncodeToString(newKeySlice(t)) + ":keyring"
	var refreshes atomic.Int32
	r := &sessioncache.KeyRing{Client: client, Name: name, WrapKey: newKey(t), RefreshInterval: 20 * time.Millisecond,
		Time: func() time.Time { refreshes.Add(1); return time.Now() }}
	cfg := &tlcp.Config{}
	r.Use(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for deadline := time.Now().Add(5 * time.Second); refreshes.Load() < 6; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Run does not refresh")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if len(r.Keys()) != 1 {
		t.Fatal("Run did not apply the ring")
	}
}
