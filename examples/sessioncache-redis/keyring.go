// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sessioncache

import (
	"context"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/tlcp"
)

// Defaults of a KeyRing's zero fields.
const (
	DefaultKeyRingName = "tlcp:keyring"
	DefaultPeriod      = 24 * time.Hour
	DefaultRefresh     = time.Minute
	// DefaultKeyLifetime is tlcp's default Config.SessionLifetime.
	DefaultKeyLifetime = time.Hour
)

// maxRingKeys bounds the ring. A schedule holds three keys at most (the
// one sealing, the one before it still opening, the next one published);
// the bound only guards against a misconfiguration (a Period shorter than
// Lifetime) filling Redis with keys.
const maxRingKeys = 16

// A KeyRing gives every server of a fleet the same session cache keys
// (tlcp.Config.SetSessionCacheKeys), kept in Redis and rotated on a
// schedule, so that a session or TLS 1.3 ticket sealed by one server opens
// on every other and nobody has to distribute keys by hand.
//
// The ring is one Redis value, sealed with SM4-GCM under WrapKey: each
// server is given WrapKey (from its secret store, as it is given its
// private keys), and Redis, its backups and anyone who reads them learn
// nothing of the session keys. A server that cannot open the ring (a
// wrong WrapKey, or a value altered in Redis) reports it and never
// overwrites it.
//
// Each key of the ring has the time from which it seals. A new key is
// written Lead before that time, so that every server has learned it, and
// opens with it, before any server seals with it; the key it replaces
// keeps opening for Lead plus Lifetime after it stops sealing, so that
// every session and ticket it sealed stays usable for as long as the
// servers would resume it. No session made before a rotation therefore
// fails to resume after it, provided every server refreshes at least once
// within Lead (Lead must exceed RefreshInterval plus the servers' clock skew) and
// Lifetime is at least the servers' Config.SessionLifetime.
//
// Writing the ring is a compare-and-set (WATCH/MULTI), so any number of
// servers may rotate it at once and one change wins; a server with
// ReadOnly set only reads it, for fleets where one server (or a job) is
// the writer.
type KeyRing struct {
	// Client is the Redis connection.
	Client redis.UniversalClient
	// Name is the Redis key of the ring; "" means DefaultKeyRingName.
	Name string
	// WrapKey seals the ring in Redis. Every server of the fleet has the
	// same one; it is 32 bytes from crypto/rand.
	WrapKey [32]byte
	// Period is how long a key seals before the next takes over; 0 means
	// DefaultPeriod.
	Period time.Duration
	// Lifetime is how long a key keeps opening after it stopped sealing,
	// beyond Lead: at least Config.SessionLifetime of the servers; 0 means
	// DefaultKeyLifetime.
	Lifetime time.Duration
	// RefreshInterval is how often Run reads the ring; 0 means
	// DefaultRefresh.
	RefreshInterval time.Duration
	// Lead is how long before it seals a new key is written: longer than
	// RefreshInterval plus the clock skew between servers; 0 means three
	// times RefreshInterval.
	Lead time.Duration
	// ReadOnly stops this server from writing the ring: it only reads it.
	// Someone else must then create and rotate it.
	ReadOnly bool
	// Timeout bounds each Redis call; 0 means DefaultTimeout.
	Timeout time.Duration
	// OnError, if set, is told of every failed refresh, e.g. to log it;
	// op is "read", "write" or "open". Run goes on after a failure: the
	// servers keep the keys they have.
	OnError func(op string, err error)
	// Time, if set, is the clock (for tests); nil means time.Now.
	Time func() time.Time

	mu      sync.Mutex
	configs []*tlcp.Config
	keys    []ringKey // what was last applied, sealer first
}

// ringKey is one key of the ring.
type ringKey struct {
	from   time.Time // when it starts to seal
	secret [tlcp.SessionCacheKeySize]byte
}

// ErrKeyRingUnreadable is returned (wrapped) when the ring in Redis does not
// open with WrapKey: another fleet's ring, a wrong key, or an altered value.
var ErrKeyRingUnreadable = errors.New("sessioncache: the key ring in Redis does not open with this WrapKey")

// Use adds configs whose session cache keys the ring sets on every
// refresh; those it has already read are set at once. A Config keeps its
// automatic keys until the first refresh succeeds.
func (r *KeyRing) Use(configs ...*tlcp.Config) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.configs = append(r.configs, configs...)
	if len(r.keys) > 0 {
		apply(configs, r.keys)
	}
}

// Keys returns the session cache keys the ring last gave the configs, the
// sealing key first; nil before the first successful refresh.
func (r *KeyRing) Keys() [][tlcp.SessionCacheKeySize]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.keys) == 0 {
		return nil
	}
	out := make([][tlcp.SessionCacheKeySize]byte, len(r.keys))
	for i, k := range r.keys {
		out[i] = k.secret
	}
	return out
}

// Run refreshes the ring now and then every RefreshInterval until ctx is done;
// it returns ctx's error. Failures go to OnError and the next refresh
// tries again.
func (r *KeyRing) Run(ctx context.Context) error {
	t := time.NewTicker(r.refresh())
	defer t.Stop()
	for {
		if err := r.Refresh(ctx); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Refresh reads the ring, rotates it if the schedule says so (unless
// ReadOnly), and sets the configs' session cache keys. A ReadOnly server
// that finds no ring yet changes nothing and returns an error.
func (r *KeyRing) Refresh(ctx context.Context) error {
	return r.update(ctx, false)
}

// Rotate writes a new key now, off schedule, as Refresh does when a Period
// ends: it seals from Lead on (the time every server needs to learn it),
// and the schedule goes on from it. A key already waiting to seal is kept
// and Rotate does nothing. It fails on a ReadOnly ring.
func (r *KeyRing) Rotate(ctx context.Context) error {
	if r.ReadOnly {
		return errors.New("sessioncache: Rotate on a ReadOnly KeyRing")
	}
	return r.update(ctx, true)
}

func (r *KeyRing) update(ctx context.Context, force bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name := r.name()
	var ring []ringKey
	if r.ReadOnly {
		v, err := r.Client.Get(ctx, name).Bytes()
		if err != nil {
			if errors.Is(err, redis.Nil) {
				err = fmt.Errorf("sessioncache: no key ring at %q yet", name)
			}
			r.report("read", err)
			return err
		}
		if ring, err = r.open(v); err != nil {
			r.report("open", err)
			return err
		}
	} else {
		// Compare-and-set: the transaction fails if another server wrote
		// the ring between the read and the write; then read it again.
		var err error
		for attempt := 0; attempt < 5; attempt++ {
			err = r.Client.Watch(ctx, func(tx *redis.Tx) error {
				var readErr error
				ring, readErr = r.readTx(ctx, tx, name)
				if readErr != nil {
					return readErr
				}
				next, changed, stepErr := step(ring, r.now(), r.schedule(), force, rand.Reader)
				if stepErr != nil {
					return stepErr
				}
				if !changed {
					return nil
				}
				sealed, sealErr := r.seal(next)
				if sealErr != nil {
					return sealErr
				}
				_, werr := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, name, sealed, 0)
					return nil
				})
				if werr == nil {
					ring = next
				}
				return werr
			}, name)
			if !errors.Is(err, redis.TxFailedErr) {
				break
			}
		}
		if err != nil {
			op := "write"
			if errors.Is(err, ErrKeyRingUnreadable) {
				op = "open"
			}
			r.report(op, err)
			return err
		}
	}

	keys := ordered(ring, r.now())
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = keys
	apply(r.configs, keys)
	return nil
}

func (r *KeyRing) readTx(ctx context.Context, tx *redis.Tx, name string) ([]ringKey, error) {
	v, err := tx.Get(ctx, name).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return r.open(v)
}

func (r *KeyRing) report(op string, err error) {
	if r.OnError != nil {
		r.OnError(op, err)
	}
}

func (r *KeyRing) name() string {
	if r.Name == "" {
		return DefaultKeyRingName
	}
	return r.Name
}

func (r *KeyRing) now() time.Time {
	if r.Time != nil {
		return r.Time()
	}
	return time.Now()
}

func (r *KeyRing) refresh() time.Duration {
	if r.RefreshInterval <= 0 {
		return DefaultRefresh
	}
	return r.RefreshInterval
}

// schedule is the ring's timing with the defaults filled in.
type schedule struct {
	period, lifetime, lead time.Duration
}

func (r *KeyRing) schedule() schedule {
	s := schedule{period: r.Period, lifetime: r.Lifetime, lead: r.Lead}
	if s.period <= 0 {
		s.period = DefaultPeriod
	}
	if s.lifetime <= 0 {
		s.lifetime = DefaultKeyLifetime
	}
	if s.lead <= 0 {
		s.lead = 3 * r.refresh()
	}
	return s
}

// step is the writer's schedule: it returns the ring as it must be at
// now, and whether that differs from ring.
//   - An empty ring gets its first key, sealing at once: nobody has
//     sealed anything with the ring yet, so nobody needs to learn it first.
//   - When the newest key has sealed for Period less Lead (or force is
//     set) and no key waits, a new key is added that seals Lead from now,
//     or at the end of the Period if that is later.
//   - A key is dropped once the key after it has sealed for Lead plus
//     Lifetime: every server stopped sealing with it at most Lead after
//     the next one began, and what it sealed last has lived its Lifetime.
func step(ring []ringKey, now time.Time, s schedule, force bool, rnd io.Reader) ([]ringKey, bool, error) {
	next := slices.Clone(ring)
	slices.SortFunc(next, func(a, b ringKey) int { return a.from.Compare(b.from) })
	changed := false
	add := func(from time.Time) error {
		var k ringKey
		if _, err := io.ReadFull(rnd, k.secret[:]); err != nil {
			return err
		}
		k.from = from
		next = append(next, k)
		changed = true
		return nil
	}
	if len(next) == 0 {
		if err := add(now); err != nil {
			return nil, false, err
		}
	} else if newest := next[len(next)-1]; !newest.from.After(now) && (force || !now.Before(newest.from.Add(s.period-s.lead))) {
		from := now.Add(s.lead)
		if end := newest.from.Add(s.period); !force && end.After(from) {
			from = end
		}
		if err := add(from); err != nil {
			return nil, false, err
		}
	}
	for len(next) > 1 && !now.Before(next[1].from.Add(s.lead+s.lifetime)) {
		next = next[1:]
		changed = true
	}
	if len(next) > maxRingKeys {
		next = next[len(next)-maxRingKeys:]
		changed = true
	}
	return next, changed, nil
}

// ordered returns the ring's keys as SetSessionCacheKeys takes them: the
// newest one already sealing at now first, then the others, newest first.
// A server whose clock is behind the writer's may find every key in the
// future; it then seals with the oldest, which every server has.
func ordered(ring []ringKey, now time.Time) []ringKey {
	keys := slices.Clone(ring)
	slices.SortFunc(keys, func(a, b ringKey) int { return b.from.Compare(a.from) })
	sealer := len(keys) - 1
	for i, k := range keys {
		if !k.from.After(now) {
			sealer = i
			break
		}
	}
	if sealer > 0 {
		k := keys[sealer]
		copy(keys[1:sealer+1], keys[:sealer])
		keys[0] = k
	}
	return keys
}

func apply(configs []*tlcp.Config, keys []ringKey) {
	if len(keys) == 0 {
		return
	}
	secrets := make([][tlcp.SessionCacheKeySize]byte, len(keys))
	for i, k := range keys {
		secrets[i] = k.secret
	}
	for _, c := range configs {
		c.SetSessionCacheKeys(secrets)
	}
}

// The ring's value in Redis: a 12-byte random nonce, then the SM4-GCM
// sealing (key derived from WrapKey, additional data the ring's name, so a
// value copied to another name does not open) of:
//
//	version (1 byte, 1) | count (1 byte) | count × (from: Unix ns, 8 bytes | secret, 32 bytes)
const ringVersion = 1

func (r *KeyRing) aead() cipher.AEAD {
	m := hmac.New(sm3.New, r.WrapKey[:])
	m.Write([]byte("shangmi sessioncache key ring SM4-GCM key"))
	a, err := sm4.NewGCMWithKey(m.Sum(nil)[:sm4.KeySize])
	if err != nil {
		panic(err) // unreachable: the key has the right size
	}
	return a
}

func (r *KeyRing) seal(ring []ringKey) ([]byte, error) {
	plain := []byte{ringVersion, byte(len(ring))}
	for _, k := range ring {
		plain = binary.BigEndian.AppendUint64(plain, uint64(k.from.UnixNano()))
		plain = append(plain, k.secret[:]...)
	}
	a := r.aead()
	out := make([]byte, a.NonceSize(), a.NonceSize()+len(plain)+a.Overhead())
	if _, err := io.ReadFull(rand.Reader, out); err != nil {
		return nil, err
	}
	return a.Seal(out, out, plain, []byte(r.name())), nil
}

func (r *KeyRing) open(v []byte) ([]ringKey, error) {
	a := r.aead()
	if len(v) < a.NonceSize()+a.Overhead() {
		return nil, fmt.Errorf("%w (%d bytes)", ErrKeyRingUnreadable, len(v))
	}
	plain, err := a.Open(nil, v[:a.NonceSize()], v[a.NonceSize():], []byte(r.name()))
	if err != nil {
		return nil, ErrKeyRingUnreadable
	}
	const entry = 8 + tlcp.SessionCacheKeySize
	if len(plain) < 2 || plain[0] != ringVersion || len(plain) != 2+int(plain[1])*entry || plain[1] == 0 {
		return nil, fmt.Errorf("sessioncache: the key ring in Redis has an unknown format")
	}
	ring := make([]ringKey, plain[1])
	for i := range ring {
		e := plain[2+i*entry:]
		ring[i].from = time.Unix(0, int64(binary.BigEndian.Uint64(e)))
		copy(ring[i].secret[:], e[8:entry])
	}
	return ring, nil
}
