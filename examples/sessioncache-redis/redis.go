// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package sessioncache is a tlcp.ServerSessionCache on Redis, so that the
// TLCP servers behind a load balancer resume each other's sessions.
//
// Every server of the fleet uses the same Redis (or Redis Cluster, or
// Sentinel-managed set: any redis.UniversalClient) and the same session
// cache keys:
//
//	cfg := &tlcp.Config{
//		Certificates:       []tlcp.CertificatePair{pair},
//		ServerSessionCache: sessioncache.New(redis.NewClient(&redis.Options{Addr: "redis:6379"})),
//	}
//	cfg.SetSessionCacheKeys(keys) // the same 32-byte secrets on every server
//
// The session cache keys can come from a KeyRing instead: kept in Redis
// beside the sessions, sealed under a WrapKey every server is given, and
// rotated on a schedule with an overlap, so that no session or TLS 1.3
// ticket made before a rotation fails to resume after it (see KeyRing).
//
// The values tlcp stores are sealed (SM4-GCM under the session cache keys,
// bound to the session ID), so the Redis contents reveal no master secret
// and cannot be used to forge a session. Each is stored with SET PX under
// "tlcp:session:" and the session ID in hexadecimal, and expires with
// Config.SessionLifetime.
//
// A Redis that is slow or down costs a full handshake, never a failed
// one: each call is bounded by Timeout as well as by the handshake's
// context, and a failure is a cache miss (reported to OnError if set).
package sessioncache

import (
	"context"
	"encoding/hex"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shangmi-go/shangmi/tlcp"
)

// DefaultTimeout bounds each Redis call when Store.Timeout is zero.
const DefaultTimeout = 500 * time.Millisecond

// Store is a tlcp.ServerSessionCache on Redis.
type Store struct {
	// Client is the Redis connection.
	Client redis.UniversalClient
	// Prefix starts every key; "" means "tlcp:session:". Servers that
	// must not share sessions use different prefixes (or keys).
	Prefix string
	// Timeout bounds each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// OnError, if set, is told of every failed call other than a miss,
	// e.g. to log it; op is "get", "put" or "delete".
	OnError func(op string, err error)
}

var _ tlcp.ServerSessionCache = (*Store)(nil)

// New returns a Store on client with the default prefix and timeout.
func New(client redis.UniversalClient) *Store { return &Store{Client: client} }

func (s *Store) key(id []byte) string {
	prefix := s.Prefix
	if prefix == "" {
		prefix = "tlcp:session:"
	}
	return prefix + hex.EncodeToString(id)
}

func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	t := s.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	return context.WithTimeout(ctx, t)
}

func (s *Store) report(op string, err error) {
	if err != nil && s.OnError != nil {
		s.OnError(op, err)
	}
}

// Get returns the sealed session stored under sessionID.
func (s *Store) Get(ctx context.Context, sessionID []byte) ([]byte, bool) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	v, err := s.Client.Get(ctx, s.key(sessionID)).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			s.report("get", err)
		}
		return nil, false
	}
	return v, true
}

// Put stores a sealed session for ttl.
func (s *Store) Put(ctx context.Context, sessionID, session []byte, ttl time.Duration) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	s.report("put", s.Client.Set(ctx, s.key(sessionID), session, ttl).Err())
}

// Delete removes a session, after its connection ended with a fatal alert.
func (s *Store) Delete(ctx context.Context, sessionID []byte) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	s.report("delete", s.Client.Del(ctx, s.key(sessionID)).Err())
}
