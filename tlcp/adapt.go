// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"container/list"
	"slices"
	"sync"
	"time"
)

// A client adapts to the four points where deployed TLCP servers want
// different forms (INTEROP.md §12): extensions in ClientHello (D6), the
// ECDHE ClientKeyExchange framing (D2), the CertificateVerify form (D1)
// and the encryption certificate in ECC client authentication (D3). It
// takes a form from the server's flight where that flight tells which
// implementation it is, and otherwise retries once, on a new connection,
// with the other form when the server's refusal names it; the retry hint
// is remembered per server so that the next connection needs no retry.
//
// A form is never a weakening: the retry offers the same suites, the same
// versions and verifies the same way; dropping extensions is done only
// when the caller asked for no ALPN and no TLS 1.3, and the host name is
// still verified without SNI. The explicit switches in Config force their
// form whatever is detected, and Config.DisableInteropAdaptation turns all
// of this off.

// interopForms are the non-default forms a client uses, each true when
// the form the majority of peers speaks is replaced by the other one.
type interopForms struct {
	noExtensions bool // ClientHello without extensions (GmSSL 3.1.1)
	framing71    bool // 71-byte ECDHE ClientKeyExchange (GmSSL ≥ 3.2)
	rawCV        bool // CertificateVerify over the raw transcript (GmSSL ≥ 3.2)
	includeEnc   bool // ENC after SIGN in ECC client authentication (Tongsuo)
}

func (f interopForms) or(g interopForms) interopForms {
	return interopForms{
		noExtensions: f.noExtensions || g.noExtensions,
		framing71:    f.framing71 || g.framing71,
		rawCV:        f.rawCV || g.rawCV,
		includeEnc:   f.includeEnc || g.includeEnc,
	}
}

// covers reports whether f already uses every form g names.
func (f interopForms) covers(g interopForms) bool { return f.or(g) == f }

// switchForms are the forms the Config's explicit switches force.
func (c *Config) switchForms() interopForms {
	return interopForms{
		noExtensions: c.ClientHelloNoExtensions,
		framing71:    c.ClientECDHEFraming71,
		rawCV:        c.CertificateVerifyRawTranscript,
		includeEnc:   c.ClientCertIncludeEnc,
	}
}

// adaptive reports whether the client may choose forms by itself.
func (c *Config) adaptive() bool { return !c.DisableInteropAdaptation }

// mayDropExtensions reports whether a ClientHello without extensions
// offers what the caller asked for: not when ALPN is configured (the
// protocol would silently not be negotiated) or TLS 1.3 is enabled (it
// cannot be offered without extensions).
func (c *Config) mayDropExtensions() bool {
	return len(c.NextProtos) == 0 && !c.versionEnabled(VersionTLS13, true)
}

// allowed removes from f what this Config may not adapt to.
func (c *Config) allowed(f interopForms) interopForms {
	if !c.mayDropExtensions() {
		f.noExtensions = false
	}
	return f
}

// The flight rules (INTEROP.md §12.2). GmSSL's servers send an empty
// session ID (they never resume, D12) and a CertificateRequest whose only
// certificate type is ecdsa_sign (64); Tongsuo, gotlcp and tjfoc, which
// come from OpenSSL and crypto/tls, list rsa_sign (1) before it. tjfoc too
// sends an empty session ID, so the session ID alone does not tell GmSSL.

// gmsslFlight reports whether the server's flight is GmSSL's.
func gmsslFlight(sh *serverHelloMsg, req *certificateRequestMsg) bool {
	return len(sh.sessionID) == 0 && req != nil && len(req.certificateTypes) == 1 && req.certificateTypes[0] == certTypeECDSASign
}

// opensslOrGoFlight reports whether the CertificateRequest is one of the
// OpenSSL or crypto/tls lineage (Tongsuo, gotlcp, tjfoc), whose servers
// all take SIGN, ENC in ECC client authentication and of which Tongsuo
// requires it.
func opensslOrGoFlight(req *certificateRequestMsg) bool {
	return req != nil && slices.Contains(req.certificateTypes, certTypeRSASign)
}

// detectForms returns the forms the server's flight asks for.
// sentExtensions says whether the ClientHello carried extensions: a GmSSL
// server that accepted one with extensions is
// not 3.1.1 (which refuses any), so it is ≥ 3.2; one that saw none may be
// either, except with an ECDHE suite, which GmSSL 3.1.1 does not have.
func detectForms(sentExtensions bool, sh *serverHelloMsg, req *certificateRequestMsg, ecdhe bool) interopForms {
	var f interopForms
	if gmsslFlight(sh, req) && (sentExtensions || ecdhe) {
		f.rawCV, f.framing71 = true, true
	}
	if opensslOrGoFlight(req) {
		f.includeEnc = true
	}
	return f
}

// The hint cache. It is one per process rather than one per Config: what
// it holds describes a server, not a client's settings, and Configs are
// often made per connection (a command's run, configFor's clone in Dial),
// which would lose a per-Config hint and retry every time. A hint only
// selects forms, none of them weaker, and each Config filters it through
// allowed, so sharing it cannot lower what any Config asked for.
const (
	interopCacheSize = 1024
	interopHintTTL   = time.Hour // servers get upgraded; forget what they wanted
)

type interopEntry struct {
	key     string
	forms   interopForms
	expires time.Time
}

// interopCache is a bounded LRU of hints with expiry.
type interopCache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	m     map[string]*list.Element
	order *list.List // front: most recently used
}

func newInteropCache(size int, ttl time.Duration) *interopCache {
	return &interopCache{size: size, ttl: ttl, m: make(map[string]*list.Element), order: list.New()}
}

var interopHints = newInteropCache(interopCacheSize, interopHintTTL)

func (c *interopCache) get(key string, now time.Time) interopForms {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return interopForms{}
	}
	ent := e.Value.(*interopEntry)
	if !now.Before(ent.expires) {
		c.order.Remove(e)
		delete(c.m, key)
		return interopForms{}
	}
	c.order.MoveToFront(e)
	return ent.forms
}

// add merges f into key's hint and restarts its lifetime.
func (c *interopCache) add(key string, f interopForms, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		ent := e.Value.(*interopEntry)
		if now.Before(ent.expires) {
			f = ent.forms.or(f)
		}
		ent.forms, ent.expires = f, now.Add(c.ttl)
		c.order.MoveToFront(e)
		return
	}
	c.m[key] = c.order.PushFront(&interopEntry{key: key, forms: f, expires: now.Add(c.ttl)})
	for c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.m, oldest.Value.(*interopEntry).key)
	}
}

func (c *interopCache) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		c.order.Remove(e)
		delete(c.m, key)
	}
}

func (c *interopCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// interopKey names the server c talks to in the hint cache: its address
// and the name the client asked for, "" when there is no network address
// to remember (net.Pipe and other in-memory connections).
func interopKey(c *Conn) string {
	ra := c.conn.RemoteAddr()
	if ra == nil {
		return ""
	}
	switch ra.Network() {
	case "tcp", "tcp4", "tcp6", "unix", "udp", "udp4", "udp6":
	default:
		return ""
	}
	return c.config.ServerName + "\x00" + ra.String()
}

// startAdaptation sets the forms c begins its handshake with: the
// switches', or with adaptation on, those and the remembered hint (or the
// one a redial passed in).
func (c *Conn) startAdaptation() {
	cfg, q := c.config, &c.quirks
	q.forms = cfg.switchForms()
	if !cfg.adaptive() {
		return
	}
	q.cacheKey = interopKey(c)
	hint := q.retryForms
	if q.cacheKey != "" {
		remembered := cfg.allowed(interopHints.get(q.cacheKey, cfg.time()))
		q.hinted = !q.forms.covers(remembered)
		hint = hint.or(remembered)
	}
	q.forms = q.forms.or(cfg.allowed(hint))
}

// rememberRetry records, for an adaptive client whose server refused a
// form that err's hint names, the other form under the server's key, so
// that the next connection (the redial of Dial, or the caller's next
// Client over a new connection) uses it.
func (c *Conn) rememberRetry(retry interopForms) {
	cfg, q := c.config, &c.quirks
	if !cfg.adaptive() || q.cacheKey == "" || q.forms.covers(retry) {
		return
	}
	interopHints.add(q.cacheKey, retry, cfg.time())
}
