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

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// lru is a small map + list LRU used by the session caches. It holds at
// most maxEntries entries and, if maxBytes > 0, entries whose costs add up
// to at most maxBytes, evicting the least recently used beyond either.
type lru[V any] struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int64
	used       int64
	m          map[string]*list.Element
	q          list.List // front is most recently used
}

type lruEntry[V any] struct {
	key   string
	value V
	cost  int64
}

func newLRU[V any](maxEntries int, maxBytes int64) *lru[V] {
	return &lru[V]{maxEntries: max(maxEntries, 1), maxBytes: maxBytes, m: make(map[string]*list.Element)}
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

// put adds or replaces an entry of the given cost. An entry that costs
// more than a quarter of maxBytes is not stored (and replaces nothing),
// so that one cannot flush all the others.
func (c *lru[V]) put(key string, v V, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		c.removeLocked(e)
	}
	if c.maxBytes > 0 && cost > c.maxBytes/4 {
		return
	}
	for c.q.Len() > 0 && (c.q.Len() >= c.maxEntries || (c.maxBytes > 0 && c.used+cost > c.maxBytes)) {
		c.removeLocked(c.q.Back())
	}
	c.m[key] = c.q.PushFront(&lruEntry[V]{key, v, cost})
	c.used += cost
}

func (c *lru[V]) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		c.removeLocked(e)
	}
}

func (c *lru[V]) removeLocked(e *list.Element) {
	ent := c.q.Remove(e).(*lruEntry[V])
	delete(c.m, ent.key)
	c.used -= ent.cost
}

// stats returns the number of entries and their total cost.
func (c *lru[V]) stats() (n int, used int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.q.Len(), c.used
}

// lruClientSessionCache is the ClientSessionCache of NewLRUClientSessionCache.
type lruClientSessionCache struct{ c *lru[*ClientSessionState] }

// NewLRUClientSessionCache returns a ClientSessionCache holding up to
// capacity sessions (64 if capacity < 1), evicting the least recently used.
func NewLRUClientSessionCache(capacity int) ClientSessionCache {
	if capacity < 1 {
		capacity = 64
	}
	return &lruClientSessionCache{newLRU[*ClientSessionState](capacity, 0)}
}

func (c *lruClientSessionCache) Get(key string) (*ClientSessionState, bool) { return c.c.get(key) }

func (c *lruClientSessionCache) Put(key string, cs *ClientSessionState) {
	if cs == nil {
		c.c.remove(key)
		return
	}
	c.c.put(key, cs, 0)
}

// sessionPeer is what a session keeps of the peer's certificates: what
// resumption needs and no more (issue 10). Verified certificates are kept
// parsed, with their chains; unverified ones only as the DER of the two
// leaves, parsed again when the session resumes, so that a peer nobody
// authenticated costs the cache its two leaves and nothing else it sent.
type sessionPeer struct {
	sign, enc       *smx509.Certificate
	chains          [][]*smx509.Certificate
	signDER, encDER []byte
}

func newSessionPeer(sign, enc *smx509.Certificate, chains [][]*smx509.Certificate) sessionPeer {
	if len(chains) > 0 {
		return sessionPeer{sign: sign, enc: enc, chains: chains}
	}
	var p sessionPeer
	if sign != nil {
		p.signDER = sign.Raw
	}
	if enc != nil && enc != sign {
		p.encDER = enc.Raw
	}
	return p
}

// hasCert reports whether the peer authenticated with a certificate.
func (p *sessionPeer) hasCert() bool { return p.sign != nil || p.signDER != nil }

// verified reports whether the peer's certificates were verified.
func (p *sessionPeer) verified() bool { return len(p.chains) > 0 }

// certificates returns the peer's signing and encryption certificates
// and the list ConnectionState.PeerCertificates shows after resumption:
// SIGN, ENC (if any), then the intermediates of the first verified chain.
func (p *sessionPeer) certificates() (sign, enc *smx509.Certificate, list []*smx509.Certificate, err error) {
	if sign, enc, err = p.leaves(); err != nil || sign == nil {
		return nil, nil, nil, err
	}
	n := 2
	if len(p.chains) > 0 && len(p.chains[0]) > 2 {
		n += len(p.chains[0]) - 2
	}
	list = make([]*smx509.Certificate, 0, n)
	list = append(list, sign)
	if enc != nil {
		list = append(list, enc)
	}
	if len(p.chains) > 0 && len(p.chains[0]) > 2 {
		list = append(list, p.chains[0][1:len(p.chains[0])-1]...)
	}
	return sign, enc, list, nil
}

// leaves returns the peer's signing and encryption certificates, as
// certificates does, without the list.
func (p *sessionPeer) leaves() (sign, enc *smx509.Certificate, err error) {
	sign, enc = p.sign, p.enc
	if p.signDER != nil {
		if sign, err = parsePeerCertificate(p.signDER); err != nil {
			return nil, nil, err
		}
	}
	if p.encDER != nil {
		if enc, err = parsePeerCertificate(p.encDER); err != nil {
			return nil, nil, err
		}
	}
	if sign == nil {
		enc = nil
	}
	return sign, enc, nil
}

// cost estimates the memory the certificates hold. Roots belong to the
// Config's pool and are not counted.
func (p *sessionPeer) cost() int64 {
	n := int64(len(p.signDER) + len(p.encDER))
	seen := make(map[*smx509.Certificate]bool)
	add := func(c *smx509.Certificate) {
		if c != nil && !seen[c] {
			seen[c] = true
			n += certCost(c)
		}
	}
	add(p.sign)
	add(p.enc)
	for _, chain := range p.chains {
		for _, c := range chain[:len(chain)-1] {
			add(c)
		}
	}
	return n
}

// serverSession is what a server remembers about a session (INTEROP.md
// §6.1): only what resuming it needs.
type serverSession struct {
	cipherSuite  uint16
	masterSecret []byte
	master       *ciphersuite.Master // masterSecret prepared for the PRF; nil if not yet
	peer         sessionPeer
	serverName   string
	created      time.Time
}

// cost estimates the memory of a cached session: the entry, its key and
// map slot, the secrets and names, and the client's certificates.
func (s *serverSession) cost() int64 {
	return 256 + int64(len(s.masterSecret)+len(s.serverName)) + s.peer.cost()
}

// sessionBytesPerEntry is the average memory per session the server's
// cache allows: Config.SessionCacheSize sessions hold at most that many
// times this. It fits a session with a verified double certificate of
// ordinary size, so that a cache of such sessions is bounded by count.
const sessionBytesPerEntry = 8 << 10

// serverSessionCache maps session IDs to sessions.
type serverSessionCache struct{ c *lru[*serverSession] }

func newServerSessionCache(maxEntries int) *serverSessionCache {
	return &serverSessionCache{newLRU[*serverSession](maxEntries, int64(maxEntries)*sessionBytesPerEntry)}
}

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
