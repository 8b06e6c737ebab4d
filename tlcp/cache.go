// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"container/list"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
)

// lru is a small map + list LRU used by both caches.
type lru[V any] struct {
	mu       sync.Mutex
	capacity int
	m        map[string]*list.Element
	q        list.List
}

type lruEntry[V any] struct {
	key   string
	value V
}

func newLRU[V any](capacity int) *lru[V] {
	if capacity < 1 {
		capacity = 1
	}
	return &lru[V]{capacity: capacity, m: make(map[string]*list.Element)}
}

func (c *lru[V]) get(key string) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		c.q.MoveToFront(e)
		return e.Value.(*lruEntry[V]).value, true
	}
	return v, false
}

func (c *lru[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		e.Value.(*lruEntry[V]).value = v
		c.q.MoveToFront(e)
		return
	}
	if c.q.Len() >= c.capacity {
		old := c.q.Back()
		c.q.Remove(old)
		delete(c.m, old.Value.(*lruEntry[V]).key)
	}
	c.m[key] = c.q.PushFront(&lruEntry[V]{key, v})
}

func (c *lru[V]) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		c.q.Remove(e)
		delete(c.m, key)
	}
}

func (c *lru[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.q.Len()
}

// lruClientSessionCache is the ClientSessionCache of NewLRUClientSessionCache.
type lruClientSessionCache struct{ c *lru[*ClientSessionState] }

// NewLRUClientSessionCache returns a ClientSessionCache holding up to
// capacity sessions (64 if capacity < 1), evicting the least recently used.
func NewLRUClientSessionCache(capacity int) ClientSessionCache {
	if capacity < 1 {
		capacity = 64
	}
	return &lruClientSessionCache{newLRU[*ClientSessionState](capacity)}
}

func (c *lruClientSessionCache) Get(key string) (*ClientSessionState, bool) { return c.c.get(key) }

func (c *lruClientSessionCache) Put(key string, cs *ClientSessionState) {
	if cs == nil {
		c.c.remove(key)
		return
	}
	c.c.put(key, cs)
}

// serverSession is what a server remembers about a session (INTEROP.md §6.1).
type serverSession struct {
	cipherSuite    uint16
	masterSecret   []byte
	peerCerts      []*smx509.Certificate
	signCert       *smx509.Certificate
	encCert        *smx509.Certificate
	verifiedChains [][]*smx509.Certificate
	serverName     string
	alpn           string
	created        time.Time
}

// serverSessionCache maps session IDs to sessions.
type serverSessionCache struct{ c *lru[*serverSession] }

func newServerSessionCache(capacity int) *serverSessionCache {
	return &serverSessionCache{newLRU[*serverSession](capacity)}
}

func (c *serverSessionCache) get(id []byte) (*serverSession, bool) { return c.c.get(string(id)) }
func (c *serverSessionCache) put(id []byte, s *serverSession)      { c.c.put(string(id), s) }
func (c *serverSessionCache) remove(id []byte)                     { c.c.remove(string(id)) }

// certCache shares parsed certificates between connections, as crypto/tls
// does: a client that reconnects, or a server that sees the same clients
// again, parses each certificate once. Parsed certificates are treated as
// immutable everywhere in this package.
type certCache struct {
	mu  sync.Mutex
	max int
	m   map[string]*list.Element
	q   list.List
}

type certCacheEntry struct {
	der  string
	cert *smx509.Certificate
}

var parsedCerts = &certCache{max: 512, m: make(map[string]*list.Element)}

// parseCertificate is smx509.ParseCertificate through the cache.
func parseCertificate(der []byte) (*smx509.Certificate, error) {
	c := parsedCerts
	c.mu.Lock()
	if e, ok := c.m[string(der)]; ok {
		c.q.MoveToFront(e)
		cert := e.Value.(*certCacheEntry).cert
		c.mu.Unlock()
		return cert, nil
	}
	c.mu.Unlock()
	cert, err := smx509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[string(der)]; !ok {
		if c.q.Len() >= c.max {
			old := c.q.Back()
			c.q.Remove(old)
			delete(c.m, old.Value.(*certCacheEntry).der)
		}
		key := string(der)
		c.m[key] = c.q.PushFront(&certCacheEntry{key, cert})
	}
	return cert, nil
}
