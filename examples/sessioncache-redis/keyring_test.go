// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sessioncache

import (
	"bytes"
	"crypto/rand"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

// TestStep walks the writer's schedule: the first key seals at once, the
// next is written Lead before its Period ends, a pending key is never
// doubled, and a key goes once its successor has sealed for Lead plus
// Lifetime.
func TestStep(t *testing.T) {
	s := schedule{period: time.Hour, lifetime: 10 * time.Minute, lead: 3 * time.Minute}
	ring, changed, err := step(nil, t0, s, false, rand.Reader)
	if err != nil || !changed || len(ring) != 1 || !ring[0].from.Equal(t0) {
		t.Fatalf("bootstrap: %v %v %v", ring, changed, err)
	}
	k1 := ring[0]
	if next, changed, _ := step(ring, t0.Add(56*time.Minute), s, false, rand.Reader); changed || len(next) != 1 {
		t.Fatalf("56 min: %d keys, changed %v; want no change before Period-Lead", len(next), changed)
	}
	ring, changed, _ = step(ring, t0.Add(57*time.Minute), s, false, rand.Reader)
	if !changed || len(ring) != 2 || !ring[1].from.Equal(t0.Add(time.Hour)) || ring[1].secret == k1.secret {
		t.Fatalf("57 min: %v, want a new key sealing at the end of the Period", ring)
	}
	if next, changed, _ := step(ring, t0.Add(58*time.Minute), s, true, rand.Reader); changed || len(next) != 2 {
		t.Fatal("a forced rotation added a second pending key")
	}
	if got := ordered(ring, t0.Add(59*time.Minute)); got[0].secret != k1.secret {
		t.Fatal("the pending key seals before its time")
	}
	if got := ordered(ring, t0.Add(60*time.Minute)); got[0].secret != ring[1].secret || got[1].secret != k1.secret {
		t.Fatal("at its time the new key does not seal, with the old one opening")
	}
	if next, changed, _ := step(ring, t0.Add(72*time.Minute), s, false, rand.Reader); changed || len(next) != 2 {
		t.Fatal("the old key went before its successor sealed for Lead+Lifetime")
	}
	ring, changed, _ = step(ring, t0.Add(73*time.Minute), s, false, rand.Reader)
	if !changed || len(ring) != 1 || ring[0].secret == k1.secret {
		t.Fatalf("73 min: %d keys, want the old key dropped", len(ring))
	}
	// A forced rotation seals Lead from now, not at the end of the Period.
	ring, changed, _ = step(ring, t0.Add(80*time.Minute), s, true, rand.Reader)
	if !changed || len(ring) != 2 || !ring[1].from.Equal(t0.Add(83*time.Minute)) {
		t.Fatalf("forced: %v", ring)
	}
	// A writer that was down for several Periods catches up with one key.
	ring, _, _ = step(ring, t0.Add(10*time.Hour), s, false, rand.Reader)
	if len(ring) != 2 || !ring[1].from.Equal(t0.Add(10*time.Hour+3*time.Minute)) {
		t.Fatalf("after a long absence: %v", ring)
	}
}

// TestOrderedClockBehind: a server whose clock is behind every key seals
// with the oldest one, which every server has.
func TestOrderedClockBehind(t *testing.T) {
	ring := []ringKey{{from: t0}, {from: t0.Add(time.Hour)}}
	ring[0].secret[0], ring[1].secret[0] = 1, 2
	if got := ordered(ring, t0.Add(-time.Second)); got[0].secret[0] != 1 || len(got) != 2 {
		t.Fatalf("got %v", got)
	}
}

// TestSealOpen: the ring's value opens only with the same WrapKey and
// name, hides the secrets, and a damaged value is refused.
func TestSealOpen(t *testing.T) {
	r := &KeyRing{Name: "a"}
	rand.Read(r.WrapKey[:])
	ring, _, _ := step(nil, t0, schedule{time.Hour, time.Hour, time.Minute}, false, rand.Reader)
	v, err := r.seal(ring)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(v, ring[0].secret[:8]) {
		t.Fatal("the sealed ring holds the secret in the clear")
	}
	got, err := r.open(v)
	if err != nil || len(got) != 1 || got[0].secret != ring[0].secret || !got[0].from.Equal(t0) {
		t.Fatalf("open: %v %v", got, err)
	}
	other := &KeyRing{Name: "b", WrapKey: r.WrapKey}
	if _, err := other.open(v); err == nil {
		t.Fatal("opened under another name")
	}
	other = &KeyRing{Name: "a"}
	if _, err := other.open(v); err == nil {
		t.Fatal("opened with another WrapKey")
	}
	for _, bad := range [][]byte{nil, v[:10], v[:len(v)-1], append(bytes.Clone(v[:len(v)-1]), v[len(v)-1]^1)} {
		if _, err := r.open(bad); err == nil {
			t.Fatalf("opened a damaged value of %d bytes", len(bad))
		}
	}
}
