// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"container/list"
	"hash/maphash"
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

// The parsed-certificate cache.
//
// Connections share parsed certificates, as crypto/tls does: a client that
// reconnects, or a server that sees the same clients again, parses each
// certificate once. Parsed certificates are treated as immutable everywhere
// in this package.
//
// What goes in is limited to what this process has reason to keep: the
// local certificates of a Config, and a peer's certificates once they have
// been verified (the members of a verified chain). Certificates that an
// unauthenticated peer sends are looked up, never added, so an anonymous
// client cannot make the server hold what it sent after its connection
// ends (issue 10). Every entry owns a private copy of exactly its DER,
// never a window into a larger buffer such as the reassembled handshake
// message, and the cache is bounded in bytes: certCacheBytes of estimated
// memory (DER plus parsed form) for the whole process.

// certCacheBytes bounds the estimated memory of the parsed-certificate
// cache: about a thousand typical certificates.
const certCacheBytes = 4 << 20

// certCost estimates the memory a parsed certificate holds: its DER, the
// strings decoded from it, and the parsed structure (about 3 KiB for a
// typical SM2 certificate, measured).
func certCost(c *smx509.Certificate) int64 { return 2*int64(len(c.Raw)) + 3<<10 }

type certCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	seed  maphash.Seed
	m     map[uint64]*list.Element
	q     list.List // front is most recently used
}

type certCacheEntry struct {
	key  uint64
	cert *smx509.Certificate
	cost int64
}

func newCertCache(limit int64) *certCache {
	return &certCache{limit: limit, seed: maphash.MakeSeed(), m: make(map[uint64]*list.Element)}
}

var parsedCerts = newCertCache(certCacheBytes)

// lookup returns the cached certificate whose DER is der, if any. A hash
// collision is a miss: the DER itself is compared.
func (c *certCache) lookup(der []byte) *smx509.Certificate {
	key := maphash.Bytes(c.seed, der)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil
	}
	ent := e.Value.(*certCacheEntry)
	if !bytes.Equal(ent.cert.Raw, der) {
		return nil
	}
	c.q.MoveToFront(e)
	return ent.cert
}

// add caches cert, evicting the least recently used entries to stay
// within the limit. A certificate that would take more than a quarter of
// the budget is not cached, so that one cannot flush all the others.
func (c *certCache) add(cert *smx509.Certificate) {
	cost := certCost(cert)
	if cost > c.limit/4 {
		return
	}
	key := maphash.Bytes(c.seed, cert.Raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		if ent := e.Value.(*certCacheEntry); bytes.Equal(ent.cert.Raw, cert.Raw) {
			c.q.MoveToFront(e)
			return
		}
		c.removeLocked(e)
	}
	for c.used+cost > c.limit && c.q.Len() > 0 {
		c.removeLocked(c.q.Back())
	}
	c.m[key] = c.q.PushFront(&certCacheEntry{key, cert, cost})
	c.used += cost
}

func (c *certCache) removeLocked(e *list.Element) {
	ent := c.q.Remove(e).(*certCacheEntry)
	delete(c.m, ent.key)
	c.used -= ent.cost
}

// stats returns the number of entries and their estimated bytes.
func (c *certCache) stats() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.q.Len(), c.used
}

// parseOwn parses der from a private copy, so that the result does not
// keep the caller's buffer alive.
func parseOwn(der []byte) (*smx509.Certificate, error) {
	return smx509.ParseCertificate(bytes.Clone(der))
}

// parseCertificate parses a local certificate (one of a Config's chains)
// through the cache, adding it.
func parseCertificate(der []byte) (*smx509.Certificate, error) {
	if cert := parsedCerts.lookup(der); cert != nil {
		return cert, nil
	}
	cert, err := parseOwn(der)
	if err != nil {
		return nil, err
	}
	parsedCerts.add(cert)
	return cert, nil
}

// parsePeerCertificate parses a certificate the peer sent. It uses the
// cache but does not add to it: see rememberVerified.
func parsePeerCertificate(der []byte) (*smx509.Certificate, error) {
	if cert := parsedCerts.lookup(der); cert != nil {
		return cert, nil
	}
	return parseOwn(der)
}

// rememberVerified caches the certificates of verified chains (the peer's
// leaf and the intermediates that led to a trusted root), and extra, which
// the caller has verified too.
func rememberVerified(chains [][]*smx509.Certificate, extra ...*smx509.Certificate) {
	for _, chain := range chains {
		for _, cert := range chain {
			parsedCerts.add(cert)
		}
	}
	for _, cert := range extra {
		if cert != nil {
			parsedCerts.add(cert)
		}
	}
}
