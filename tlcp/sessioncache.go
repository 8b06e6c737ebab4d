// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"errors"
	"io"
	"time"

	"golang.org/x/crypto/cryptobyte"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/smx509"
)

// ServerSessionCache is a store for a server's sessions, keyed by session
// ID (INTEROP.md §6.1), for servers that share sessions: several servers
// behind a load balancer resume each other's sessions when they use one
// store, such as Redis or memcached, and the same session cache keys
// (Config.SetSessionCacheKeys). Set it in Config.ServerSessionCache; when
// it is nil, a server keeps its sessions in memory, bounded by
// Config.SessionCacheSize and Config.SessionLifetime.
//
// The values are opaque and sealed: each holds the session's master
// secret, cipher suite, server name, creation time and the client's
// certificates (its verified chains, or its two unverified leaves),
// encrypted and authenticated with SM4-GCM under a key derived from the
// Config's session cache keys, with the session ID as additional data. A
// read of the store thus reveals neither master secrets nor client
// identities, and a write can neither forge a session nor move one to
// another session ID; what a reader does see is the session IDs (which
// travel in the clear in hellos anyway), the value sizes and which key
// sealed each value. A value takes about 120 bytes for a session without a
// client certificate, plus the DER of the client's certificates with one
// (1–3 KiB for a double certificate and its chain); the server stores none
// over 64 KiB.
//
// The handshake calls Get and Put with its context (see
// Conn.HandshakeContext), so a store should honour ctx and bound its own
// time; it calls Delete, with a background context, when a connection
// ends with a fatal alert. A store that fails reports a miss (Get) or
// drops the value (Put): the handshake then goes on as a full one, as it
// would after an eviction. The methods may be called concurrently.
type ServerSessionCache interface {
	// Get returns the value stored under sessionID, or ok false if there
	// is none.
	Get(ctx context.Context, sessionID []byte) (session []byte, ok bool)
	// Put stores session under sessionID for ttl (Config.SessionLifetime);
	// the store may drop it sooner.
	Put(ctx context.Context, sessionID, session []byte, ttl time.Duration)
	// Delete removes the value stored under sessionID, if any.
	Delete(ctx context.Context, sessionID []byte)
}

// SessionCacheKeySize is the size of a session cache key.
const SessionCacheKeySize = 32

// SetSessionCacheKeys sets the keys that seal the sessions a server puts
// in Config.ServerSessionCache, as SetSessionTicketKeys does for TLS
// session tickets in crypto/tls: the first key seals new sessions, and
// every key opens them. Each key should be 32 bytes from crypto/rand,
// known only to the servers that share the store; they must all set the
// same keys. It panics if keys is empty.
//
// Without it, each Config makes a random key of its own and replaces it
// every SessionLifetime, keeping the previous one, so that a server can
// resume its own sessions from the store but no other server can: a fleet
// must set the keys. To rotate them without losing sessions, give every
// server the new key after the current one, then, once all have it, first,
// and drop the old key SessionLifetime later.
//
// It may be called while the Config is in use. The keys are not used for
// the in-memory cache, which never leaves the process. They also seal TLS
// 1.3 session tickets (TLS13.md §6).
func (c *Config) SetSessionCacheKeys(keys [][SessionCacheKeySize]byte) {
	if len(keys) == 0 {
		panic("tlcp: SetSessionCacheKeys called with no keys")
	}
	derived := make([]sessionKey, len(keys))
	for i := range keys {
		derived[i] = newSessionKey(keys[i][:])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sessionKeys = derived
	c.sessionKeysSet = true
}

// sessionKey is one derived session cache key.
type sessionKey struct {
	name    [8]byte // says which key sealed a value
	aead    cipher.AEAD
	created time.Time // automatic keys only
}

// newSessionKey derives the key name and the SM4-GCM key from a secret.
func newSessionKey(secret []byte) sessionKey {
	prf := func(label string) []byte {
		m := hmac.New(sm3.New, secret)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	var k sessionKey
	copy(k.name[:], prf("tlcp session cache key name"))
	block, err := sm4.NewCipher(prf("tlcp session cache SM4-GCM key")[:16])
	if err != nil {
		panic(err) // unreachable: 16 bytes
	}
	if k.aead, err = cipher.NewGCM(block); err != nil {
		panic(err)
	}
	return k
}

// currentSessionKeys returns the keys that seal (first) and open sessions:
// those set with SetSessionCacheKeys, or the automatic ones, made and
// rotated here.
func (c *Config) currentSessionKeys() ([]sessionKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessionKeysSet {
		return c.sessionKeys, nil
	}
	now := c.time()
	if len(c.sessionKeys) > 0 && now.Sub(c.sessionKeys[0].created) < c.lifetime() && !now.Before(c.sessionKeys[0].created) {
		return c.sessionKeys, nil
	}
	// A new key first; the previous one still opens the sessions it
	// sealed, which are at most a lifetime old when it is dropped.
	var secret [SessionCacheKeySize]byte
	if _, err := io.ReadFull(rand.Reader, secret[:]); err != nil {
		return nil, err
	}
	k := newSessionKey(secret[:])
	k.created = now
	keys := []sessionKey{k}
	if len(c.sessionKeys) > 0 {
		keys = append(keys, c.sessionKeys[0])
	}
	c.sessionKeys = keys
	return keys, nil
}

// sessionKeysOwner returns the Config whose session cache keys serve a
// handshake under c, which GetConfigForClient returned for orig: its own
// if it has set them, else orig's, as crypto/tls does with ticket keys.
func (c *Config) sessionKeysOwner(orig *Config) *Config {
	if orig == nil || orig == c {
		return c
	}
	c.mu.Lock()
	set := c.sessionKeysSet
	c.mu.Unlock()
	if set {
		return c
	}
	return orig
}

// sessionStore is where a server keeps sessions: the in-memory cache or a
// ServerSessionCache through sealing.
type sessionStore interface {
	get(ctx context.Context, id []byte) (*serverSession, bool)
	put(ctx context.Context, id []byte, s *serverSession)
	remove(ctx context.Context, id []byte)
}

// sessionStoreFor returns the store for a handshake under c, which
// GetConfigForClient returned for orig (nil if c is the Config passed to
// Server), or nil if resumption is off. A Config from GetConfigForClient
// uses orig's store unless it sets ServerSessionCache itself or turns
// resumption off, so that a callback returning a fresh Config per
// connection does not lose every session.
func (c *Config) sessionStoreFor(orig *Config) sessionStore {
	if c.SessionCacheSize < 0 {
		return nil
	}
	owner := c
	if c.ServerSessionCache == nil && orig != nil && orig != c {
		owner = orig
	}
	switch {
	case owner.SessionCacheSize < 0:
		return nil
	case owner.ServerSessionCache != nil:
		return &sealedSessionStore{cache: owner.ServerSessionCache, keys: c.sessionKeysOwner(orig), lifetime: c.lifetime()}
	}
	return owner.sessionCache()
}

func (c *serverSessionCache) get(_ context.Context, id []byte) (*serverSession, bool) {
	return c.c.get(string(id))
}

func (c *serverSessionCache) put(_ context.Context, id []byte, s *serverSession) {
	c.c.put(string(id), s, s.cost())
}

func (c *serverSessionCache) remove(_ context.Context, id []byte) { c.c.remove(string(id)) }

// sealedSessionStore keeps sessions in a ServerSessionCache, sealed.
type sealedSessionStore struct {
	cache    ServerSessionCache
	keys     *Config // whose session cache keys seal and open
	lifetime time.Duration
}

// maxSealedSession bounds what is put in a ServerSessionCache.
const maxSealedSession = 64 << 10

// sealedSessionVersion is the first byte of every sealed value, so that a
// later format can be told apart.
const sealedSessionVersion = 1

func (s *sealedSessionStore) get(ctx context.Context, id []byte) (*serverSession, bool) {
	value, ok := s.cache.Get(ctx, id)
	if !ok || len(value) > maxSealedSession {
		return nil, false
	}
	keys, err := s.keys.currentSessionKeys()
	if err != nil {
		return nil, false
	}
	plain, ok := openSession(keys, id, value)
	if !ok {
		return nil, false
	}
	sess, err := unmarshalSession(plain)
	return sess, err == nil
}

func (s *sealedSessionStore) put(ctx context.Context, id []byte, sess *serverSession) {
	plain, err := marshalSession(sess)
	if err != nil || len(plain) > maxSealedSession-64 {
		return
	}
	keys, err := s.keys.currentSessionKeys()
	if err != nil {
		return
	}
	value, err := sealSession(keys[0], id, plain)
	if err != nil {
		return
	}
	s.cache.Put(ctx, id, value, s.lifetime)
}

func (s *sealedSessionStore) remove(ctx context.Context, id []byte) { s.cache.Delete(ctx, id) }

// A sealed session is
//
//	version(1) = 01 ‖ key name(8) ‖ nonce(12) ‖ SM4-GCM(session) ‖ tag(16)
//
// with additional data version ‖ key name ‖ session ID: a value opens only
// under the session ID it was stored for. Nonces are random; a key seals
// at most the sessions of one rotation period, far below the 2^32 that
// random 96-bit GCM nonces allow.
const sealedHeaderLen = 1 + 8

func sealedAAD(hdr, id []byte) []byte {
	aad := make([]byte, 0, sealedHeaderLen+len(id))
	return append(append(aad, hdr[:sealedHeaderLen]...), id...)
}

func sealSession(k sessionKey, id, plain []byte) ([]byte, error) {
	ns := k.aead.NonceSize()
	out := make([]byte, sealedHeaderLen+ns, sealedHeaderLen+ns+len(plain)+k.aead.Overhead())
	out[0] = sealedSessionVersion
	copy(out[1:], k.name[:])
	if _, err := io.ReadFull(rand.Reader, out[sealedHeaderLen:]); err != nil {
		return nil, err
	}
	return k.aead.Seal(out, out[sealedHeaderLen:], plain, sealedAAD(out, id)), nil
}

func openSession(keys []sessionKey, id, value []byte) ([]byte, bool) {
	if len(keys) == 0 {
		return nil, false
	}
	ns := keys[0].aead.NonceSize()
	if len(value) < sealedHeaderLen+ns+keys[0].aead.Overhead() || value[0] != sealedSessionVersion {
		return nil, false
	}
	for _, k := range keys {
		if !hmac.Equal(k.name[:], value[1:sealedHeaderLen]) {
			continue
		}
		plain, err := k.aead.Open(nil, value[sealedHeaderLen:sealedHeaderLen+ns], value[sealedHeaderLen+ns:], sealedAAD(value, id))
		return plain, err == nil
	}
	return nil, false
}

// The plaintext of a sealed session:
//
//	format(1) = 01 ‖ suite(2) ‖ created, Unix ms(8) ‖ master secret<1..255> ‖
//	server name<0..2^16-1> ‖ verified(1) ‖ certificates<0..255> of <1..2^24-1> ‖
//	sign index(1) ‖ enc index(1) ‖ chains<0..255> of indexes<1..255>
//
// The certificates are each distinct one, once; an index of FF means none.
// Unverified sessions list the client's two leaves (or none) and no chains.
const sessionFormat = 1

const noCert = 0xff

var errSessionTooLarge = errors.New("tlcp: session too large to store")

func marshalSession(s *serverSession) ([]byte, error) {
	var certs [][]byte
	index := func(der []byte) int {
		for i, c := range certs {
			if string(c) == string(der) {
				return i
			}
		}
		certs = append(certs, der)
		return len(certs) - 1
	}
	p := &s.peer
	signIdx, encIdx := noCert, noCert
	var chains [][]int
	if p.verified() {
		if p.sign != nil {
			signIdx = index(p.sign.Raw)
		}
		if p.enc != nil {
			encIdx = index(p.enc.Raw)
		}
		for _, chain := range p.chains {
			idx := make([]int, len(chain))
			for i, c := range chain {
				idx[i] = index(c.Raw)
			}
			chains = append(chains, idx)
		}
	} else {
		if p.signDER != nil {
			signIdx = index(p.signDER)
		}
		if p.encDER != nil {
			encIdx = index(p.encDER)
		}
	}
	// Indexes are one byte, FF meaning none.
	if len(certs) >= noCert || len(chains) > 255 {
		return nil, errSessionTooLarge
	}
	for _, idx := range chains {
		if len(idx) == 0 || len(idx) > 255 {
			return nil, errSessionTooLarge
		}
	}
	if len(s.masterSecret) == 0 || len(s.masterSecret) > 255 || len(s.serverName) > 0xffff {
		return nil, errSessionTooLarge
	}
	var b cryptobyte.Builder
	b.AddUint8(sessionFormat)
	b.AddUint16(s.cipherSuite)
	b.AddUint64(uint64(s.created.UnixMilli()))
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(s.masterSecret) })
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(s.serverName)) })
	if p.verified() {
		b.AddUint8(1)
	} else {
		b.AddUint8(0)
	}
	b.AddUint8(uint8(len(certs)))
	for _, c := range certs {
		if len(c) == 0 || len(c) >= 1<<24 {
			return nil, errSessionTooLarge
		}
		b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(c) })
	}
	b.AddUint8(uint8(signIdx))
	b.AddUint8(uint8(encIdx))
	b.AddUint8(uint8(len(chains)))
	for _, idx := range chains {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, i := range idx {
				b.AddUint8(uint8(i))
			}
		})
	}
	return b.Bytes()
}

var errBadSession = errors.New("tlcp: malformed stored session")

func unmarshalSession(data []byte) (*serverSession, error) {
	s := cryptobyte.String(data)
	var format, verified, nCerts, signIdx, encIdx, nChains uint8
	var created uint64
	var master, name cryptobyte.String
	sess := new(serverSession)
	if !s.ReadUint8(&format) || format != sessionFormat ||
		!s.ReadUint16(&sess.cipherSuite) || !s.ReadUint64(&created) ||
		!s.ReadUint8LengthPrefixed(&master) || len(master) == 0 ||
		!s.ReadUint16LengthPrefixed(&name) || !s.ReadUint8(&verified) || verified > 1 ||
		!s.ReadUint8(&nCerts) {
		return nil, errBadSession
	}
	ders := make([][]byte, nCerts)
	for i := range ders {
		var der cryptobyte.String
		if !s.ReadUint24LengthPrefixed(&der) || len(der) == 0 {
			return nil, errBadSession
		}
		ders[i] = der
	}
	if !s.ReadUint8(&signIdx) || !s.ReadUint8(&encIdx) || !s.ReadUint8(&nChains) {
		return nil, errBadSession
	}
	valid := func(i uint8) bool { return i == noCert || int(i) < len(ders) }
	// A session with an encryption certificate has a signing one.
	if !valid(signIdx) || !valid(encIdx) || (signIdx == noCert && encIdx != noCert) {
		return nil, errBadSession
	}
	chainIdx := make([][]byte, nChains)
	for i := range chainIdx {
		var idx cryptobyte.String
		if !s.ReadUint8LengthPrefixed(&idx) || len(idx) == 0 {
			return nil, errBadSession
		}
		for _, j := range idx {
			if int(j) >= len(ders) {
				return nil, errBadSession
			}
		}
		chainIdx[i] = idx
	}
	if !s.Empty() || (verified == 1) != (nChains > 0) {
		return nil, errBadSession
	}
	sess.masterSecret = []byte(master)
	sess.serverName = string(name)
	sess.created = time.UnixMilli(int64(created))
	if verified == 0 {
		if signIdx != noCert {
			sess.peer.signDER = ders[signIdx]
		}
		if encIdx != noCert && encIdx != signIdx {
			sess.peer.encDER = ders[encIdx]
		}
		return sess, nil
	}
	// Verified when the session was made, by a server holding the key
	// that sealed it: the certificates are this fleet's to trust, and
	// enter the parsed-certificate cache as verified ones do.
	certs := make([]*smx509.Certificate, len(ders))
	for i, der := range ders {
		c, err := parseCertificate(der)
		if err != nil {
			return nil, err
		}
		certs[i] = c
	}
	if signIdx != noCert {
		sess.peer.sign = certs[signIdx]
	}
	if encIdx != noCert {
		sess.peer.enc = certs[encIdx]
	}
	for _, idx := range chainIdx {
		chain := make([]*smx509.Certificate, len(idx))
		for i, j := range idx {
			chain[i] = certs[j]
		}
		sess.peer.chains = append(sess.peer.chains, chain)
	}
	return sess, nil
}
