// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// clientHandshakeState holds the client's side of one handshake. Its methods
// are the steps, in protocol order.
type clientHandshakeState struct {
	c            *Conn
	ctx          context.Context
	hello        *clientHelloMsg
	serverHello  *serverHelloMsg
	suite        *ciphersuite.Suite
	transcript   *transcriptHash
	masterSecret []byte
	master       *ciphersuite.Master // masterSecret prepared for the PRF
	session      *ClientSessionState // the session offered for resumption, if any
	ka           keyAgreement
}

// makeRandom returns a hello random: 4 bytes of time and 28 random bytes
// (INTEROP.md §3.3).
func makeRandom(cfg *Config) ([]byte, error) {
	r := make([]byte, 32)
	binary.BigEndian.PutUint32(r, uint32(cfg.time().Unix()))
	if _, err := io.ReadFull(cfg.rand(), r[4:]); err != nil {
		return nil, errors.New("tlcp: short read from Rand: " + err.Error())
	}
	return r, nil
}

// clientCanDoECDHE reports whether the client has what ECDHE needs: a pair
// with an encryption key usable for the SM2 key exchange (INTEROP.md §3.2).
// With GetClientCertificate it cannot know beforehand and assumes yes.
func clientCanDoECDHE(cfg *Config) bool {
	if cfg.GetClientCertificate != nil {
		return true
	}
	for i := range cfg.Certificates {
		if canDoECDHE(&cfg.Certificates[i]) {
			return true
		}
	}
	return false
}

func (c *Conn) makeClientHello() (*clientHelloMsg, error) {
	cfg := c.config
	if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
		return nil, errors.New("tlcp: either ServerName or InsecureSkipVerify must be set in the Config")
	}
	ecdhe := clientCanDoECDHE(cfg)
	var suites []uint16
	if cfg.versionEnabled(VersionTLCP, true) {
		for _, id := range cfg.cipherSuites() {
			if ciphersuite.Lookup(id).KeyExchange == ciphersuite.KeyExchangeECDHE && !ecdhe {
				continue
			}
			suites = append(suites, id)
		}
	}
	// TLS 1.3 suites are added by offerTLS13.
	if len(suites) == 0 && !cfg.versionEnabled(VersionTLS13, true) {
		if cfg.minVersion() > cfg.maxVersion(true) {
			return nil, fmt.Errorf("tlcp: Config.MinVersion 0x%04x is above MaxVersion 0x%04x", cfg.minVersion(), cfg.maxVersion(true))
		}
		return nil, errors.New("tlcp: no cipher suites to offer (ECDHE suites need a client encryption certificate)")
	}
	random, err := makeRandom(cfg)
	if err != nil {
		return nil, err
	}
	hello := &clientHelloMsg{
		vers:               VersionTLCP,
		random:             random,
		sessionID:          []byte{},
		cipherSuites:       suites,
		compressionMethods: []uint8{0},
	}
	// server_name and ALPN, unless the peer cannot take extensions at
	// all (GmSSL 3.1.1: INTEROP.md §8, D6), as the switch says or the
	// server's earlier refusal taught (adapt.go).
	if !cfg.ClientHelloNoExtensions && !c.quirks.forms.noExtensions {
		hello.serverName = hostnameInSNI(cfg.ServerName)
		hello.alpnProtocols = cfg.NextProtos
		hello.ocspStapling = cfg.ocspRequested()
		hello.trustedAuthorities = cfg.TrustedCAIndications
	}
	return hello, nil
}

// hostnameInSNI returns the name to send in server_name for ServerName,
// as crypto/tls chooses it: nothing for an IP address (RFC 6066 §3 allows
// host names only), and a host name without its trailing dots.
func hostnameInSNI(name string) string {
	host := name
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	if i := strings.LastIndex(host, "%"); i > 0 {
		host = host[:i]
	}
	if net.ParseIP(host) != nil {
		return ""
	}
	return strings.TrimRight(name, ".")
}

// certsExpired reports whether any of certs is past its NotAfter at now:
// resuming a session must not outlive the certificates it was made with.
func certsExpired(now time.Time, certs ...*smx509.Certificate) bool {
	for _, c := range certs {
		if c != nil && now.After(c.NotAfter) {
			return true
		}
	}
	return false
}

// clientSessionCacheKey names the server in the ClientSessionCache.
func clientSessionCacheKey(c *Conn) string {
	if c.config.ServerName != "" {
		return c.config.ServerName
	}
	return c.conn.RemoteAddr().String()
}

func (c *Conn) clientHandshake(ctx context.Context) error {
	if c.config == nil {
		c.config = defaultConfig()
	}
	c.startAdaptation()
	hello, err := c.makeClientHello()
	if err != nil {
		return err
	}
	c.serverName = c.config.ServerName

	session, cacheKey := c.loadClientSession(hello)

	hs := &clientHandshakeState{
		c:       c,
		ctx:     ctx,
		hello:   hello,
		session: session,
		// The raw transcript is kept while the CertificateVerify form
		// may still turn out to be GmSSL's (adapt.go).
		transcript: newTranscript(c.quirks.forms.rawCV || c.config.adaptive()),
	}
	offerTLCP := len(hello.cipherSuites) > 0
	hs13, err := c.offerTLS13(ctx, hello)
	if err != nil {
		return err
	}
	if err := c.writeHandshake(hello, hs.transcript); err != nil {
		return err
	}
	c.quirks.helloExtensions = extensionNames(hello)
	msg, err := c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	sh, ok := msg.(*serverHelloMsg)
	if !ok {
		return unexpectedMessageError("ServerHello", msg)
	}
	c.quirks.serverHelloSeen = true
	switch {
	case hs13 != nil && sh.isTLS13():
		return hs13.run(sh)
	case hs13 != nil && sh.tls13.supportedVersion != 0:
		return errorf(alertIllegalParameter, "tlcp: the server selected %s in supported_versions, which was not offered", versionName(sh.tls13.supportedVersion))
	case !offerTLCP:
		return errorf(alertProtocolVersion, "tlcp: the server answered in %s, but only TLS 1.3 was offered", versionName(sh.vers))
	}
	if err := c.checkTLCPServerHello(sh); err != nil {
		return err
	}
	hs.serverHello = sh
	if len(sh.sessionID) > 0 && !c.quirks.forms.rawCV {
		// Not a GmSSL flight (adapt.go): the standard form it is.
		hs.transcript.dropRaw()
	}
	if err := hs.handshake(); err != nil {
		return err
	}
	c.storeClientSession(cacheKey, hs)
	return nil
}

// checkTLCPServerHello runs the checks a TLCP ServerHello needs because the
// client offered TLS 1.3 too: no TLS 1.3 extensions, and no downgrade
// sentinel (TLS13.md §5).
func (c *Conn) checkTLCPServerHello(sh *serverHelloMsg) error {
	e := &sh.tls13
	if e.supportedVersion != 0 || e.serverShare.group != 0 || e.selectedGroup != 0 || e.selectedPSK || e.cookie != nil {
		return errorf(alertIllegalParameter, "tlcp: the server's TLCP ServerHello carries TLS 1.3 extensions")
	}
	if c.tls13.offered && len(sh.random) == 32 {
		if tail := sh.random[24:]; bytes.Equal(tail, downgradeSentinelTLCP) || bytes.Equal(tail, downgradeSentinelTLS12) {
			return errorf(alertIllegalParameter, "tlcp: the server answered in TLCP with a downgrade sentinel: it speaks TLS 1.3, which was offered, so the ClientHello was tampered with")
		}
	}
	return nil
}

// loadClientSession looks up the session to offer in hello, and sets
// hello's session ID to it. It returns the session, or nil, and the cache
// key ("" without a cache). The handshake functions call helpers like this
// one rather than holding their temporaries in their own frames, which lie
// under the key block's PRF (see ciphersuite.Master.NewRecordProtections).
func (c *Conn) loadClientSession(hello *clientHelloMsg) (session *ClientSessionState, cacheKey string) {
	if cache := c.config.ClientSessionCache; cache != nil && len(hello.cipherSuites) > 0 {
		cacheKey = clientSessionCacheKey(c)
		// A TLS 1.3 ticket (vers set) is offered by offerTLS13.
		if s, ok := cache.Get(cacheKey); ok && s != nil && s.vers == 0 {
			fresh := c.config.time().Sub(s.receivedAt) < c.config.lifetime()
			var sign, enc *smx509.Certificate
			if fresh {
				var err error
				sign, enc, err = s.server.leaves()
				fresh = err == nil && !certsExpired(c.config.time(), sign, enc)
			}
			if fresh && slices.Contains(hello.cipherSuites, s.cipherSuite) &&
				// A session made with InsecureSkipVerify, in a cache
				// shared with this Config, must not let it skip
				// verification, as crypto/tls also guards.
				(c.config.InsecureSkipVerify || s.server.verified()) {
				hello.sessionID = s.sessionID
				session = s
				// A fatal alert from here on drops the offered session.
				c.sessionMu.Lock()
				c.clientSessionKey = cacheKey
				c.sessionMu.Unlock()
			} else if !fresh {
				cache.Put(cacheKey, nil)
			}
		}
	}
	return session, cacheKey
}

// storeClientSession caches the session of the handshake hs has completed
// under cacheKey, unless it was resumed or the server sent no session ID.
func (c *Conn) storeClientSession(cacheKey string, hs *clientHandshakeState) {
	sh := hs.serverHello
	if cacheKey != "" && len(sh.sessionID) > 0 && !c.didResume {
		c.config.ClientSessionCache.Put(cacheKey, &ClientSessionState{
			sessionID:    bytes.Clone(sh.sessionID),
			cipherSuite:  c.cipherSuite,
			masterSecret: hs.masterSecret,
			master:       hs.master,
			server:       newSessionPeer(c.peerSignCert, c.peerEncCert, c.verifiedChains),
			receivedAt:   c.config.time(),
		})
	}
	if cacheKey != "" && len(sh.sessionID) > 0 {
		c.sessionMu.Lock()
		c.clientSessionKey = cacheKey
		c.sessionMu.Unlock()
	}
}

func (hs *clientHandshakeState) handshake() error {
	c := hs.c
	if err := hs.processServerHello(); err != nil {
		return err
	}
	// From here on, each flight goes out in one transport write.
	c.startFlight()
	resumed := hs.session != nil && len(hs.serverHello.sessionID) > 0 &&
		bytes.Equal(hs.serverHello.sessionID, hs.session.sessionID)
	var err error
	if resumed {
		err = hs.doResumeHandshake()
	} else {
		err = runSteps(hs.doFullHandshake, hs.establishKeys, hs.sendFinished, hs.readFinished)
	}
	if err != nil {
		return err
	}
	if err := c.finishFlight(); err != nil {
		return err
	}
	c.isHandshakeComplete.Store(true)
	return nil
}

// processServerHello checks ServerHello against what was offered (INTEROP.md
// §3.4).
func (hs *clientHandshakeState) processServerHello() error {
	c, sh := hs.c, hs.serverHello
	if sh.vers != VersionTLCP {
		return errorf(alertProtocolVersion, "tlcp: server selected version 0x%04x, want 0x0101", sh.vers)
	}
	c.vers = VersionTLCP
	if sh.compressionMethod != 0 {
		return errorf(alertIllegalParameter, "tlcp: server selected compression method %d", sh.compressionMethod)
	}
	if !slices.Contains(hs.hello.cipherSuites, sh.cipherSuite) {
		return errorf(alertIllegalParameter, "tlcp: server selected cipher suite %s, which was not offered", ciphersuite.Name(sh.cipherSuite))
	}
	if sh.unknownExtension || sh.forbiddenExtension {
		return errorf(alertIllegalParameter, "tlcp: server sent an extension that was not offered")
	}
	if sh.serverNameAck && hs.hello.serverName == "" {
		return errorf(alertIllegalParameter, "tlcp: server acknowledged a server_name that was not sent")
	}
	if sh.alpnProtocol != "" {
		if !slices.Contains(hs.hello.alpnProtocols, sh.alpnProtocol) {
			return errorf(alertIllegalParameter, "tlcp: server selected ALPN protocol %q, which was not offered", sh.alpnProtocol)
		}
		c.clientProtocol = sh.alpnProtocol
	}
	if sh.ocspStapling {
		if !hs.hello.ocspStapling {
			return errorf(alertUnsupportedExtension, "tlcp: server sent status_request, which was not offered")
		}
		if len(sh.ocspStatus) > 0 { // gotlcp's form
			if err := c.takeStaple(sh.ocspStatus, "in ServerHello's status_request"); err != nil {
				return err
			}
		}
	}
	hs.suite = ciphersuite.Lookup(sh.cipherSuite)
	c.cipherSuite = sh.cipherSuite
	hs.ka = newKeyAgreement(hs.suite)
	return nil
}

// doResumeHandshake runs the abbreviated flow (INTEROP.md §3.2, §6.1).
func (hs *clientHandshakeState) doResumeHandshake() error {
	c, s := hs.c, hs.session
	if s.cipherSuite != hs.serverHello.cipherSuite {
		return errorf(alertIllegalParameter, "tlcp: server resumed a session with a different cipher suite")
	}
	c.didResume = true
	sign, enc, list, err := s.server.certificates()
	if err != nil {
		return errorf(alertInternalError, "tlcp: the cached session's server certificate no longer parses: %w", err)
	}
	c.peerCertificates = list
	c.peerSignCert, c.peerEncCert = sign, enc
	c.verifiedChains = s.server.chains
	hs.masterSecret, hs.master = s.masterSecret, s.master
	// A line per client random lets Wireshark decrypt resumed connections.
	if err := c.config.writeKeyLog(hs.hello.random, hs.masterSecret); err != nil {
		return errorf(alertInternalError, "tlcp: writing the key log: %w", err)
	}
	if err := c.verifyConnection(); err != nil {
		return err
	}
	if err := hs.establishKeys(); err != nil {
		return err
	}
	if err := hs.readFinished(); err != nil {
		return err
	}
	return hs.sendFinished()
}

func (hs *clientHandshakeState) doFullHandshake() error {
	c, cfg := hs.c, hs.c.config
	msg, err := c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	certMsg, ok := msg.(*certificateMsg)
	if !ok {
		return unexpectedMessageError("Certificate", msg)
	}
	if err := hs.verifyServerCertificates(certMsg.certificates); err != nil {
		return err
	}

	msg, err = c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	if msg, err = hs.readCertificateStatus(msg); err != nil {
		return err
	}
	if err := c.checkOCSPStaple(); err != nil {
		return err
	}
	if err := c.verifyConnection(); err != nil {
		return err
	}
	skx, ok := msg.(*serverKeyExchangeMsg)
	if !ok {
		// ServerKeyExchange is mandatory in TLCP (INTEROP.md §3.6).
		return unexpectedMessageError("ServerKeyExchange", msg)
	}
	if err := hs.ka.processServerKeyExchange(cfg, hs.hello.random, hs.serverHello.random, c.peerSignCert, c.peerEncCert, skx); err != nil {
		return err
	}

	msg, err = c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	certReq, ok := msg.(*certificateRequestMsg)
	if ok {
		if msg, err = c.readHandshake(hs.transcript); err != nil {
			return err
		}
	}
	if _, ok := msg.(*serverHelloDoneMsg); !ok {
		return unexpectedMessageError("ServerHelloDone", msg)
	}
	ecdhe := hs.suite.KeyExchange == ciphersuite.KeyExchangeECDHE
	if ecdhe {
		c.curveID = CurveSM2 // the SM2 key exchange of the ECDHE suites
	}
	if ecdhe && certReq == nil {
		return errorf(alertHandshakeFailure, "tlcp: server did not request a client certificate, which ECDHE suites require")
	}

	// The forms of the client's flight: the switches' and the hint's, and
	// what the server's flight shows (adapt.go).
	forms := c.quirks.forms
	if cfg.adaptive() {
		forms = forms.or(detectForms(c.quirks.helloExtensions != "", hs.serverHello, certReq, ecdhe))
	}
	if !forms.rawCV {
		hs.transcript.dropRaw()
	}

	var pair *CertificatePair
	if certReq != nil {
		if pair, err = hs.getClientCertificate(certReq); err != nil {
			return err
		}
		certs, err := clientCertificateList(pair, ecdhe || forms.includeEnc)
		if err != nil {
			return err
		}
		if err := c.writeHandshake(&certificateMsg{certificates: certs}, hs.transcript); err != nil {
			return err
		}
		c.quirks.eccSignOnly = !ecdhe && pair != nil && pair.hasEnc() && !forms.includeEnc
	}

	premaster, ckx, err := hs.ka.generateClientKeyExchange(cfg, c.peerEncCert, pair)
	if err != nil {
		return err
	}
	if ecdhe {
		ckx.vector = forms.framing71
	}
	if err := c.writeHandshake(ckx, hs.transcript); err != nil {
		return err
	}
	c.quirks.bareECDHE = ecdhe && !forms.framing71

	if pair != nil && len(pair.Sign.Certificate) > 0 {
		tbs := certificateVerifyMessage(hs.transcript, forms.rawCV)
		sig, err := sign(cfg.rand(), pair.Sign.PrivateKey, tbs)
		if err != nil {
			return errorf(alertInternalError, "tlcp: signing CertificateVerify: %w", err)
		}
		if err := c.writeHandshake(&certificateVerifyMsg{signature: sig}, hs.transcript); err != nil {
			return err
		}
		c.quirks.hashCV = !forms.rawCV
		hs.transcript.dropRaw()
	}

	hs.masterSecret = ciphersuite.MasterSecret(premaster, hs.hello.random, hs.serverHello.random)
	if err := cfg.writeKeyLog(hs.hello.random, hs.masterSecret); err != nil {
		return errorf(alertInternalError, "tlcp: writing the key log: %w", err)
	}
	return nil
}

// getClientCertificate picks the pair to answer CertificateRequest with,
// or nil to send an empty list.
func (hs *clientHandshakeState) getClientCertificate(req *certificateRequestMsg) (*CertificatePair, error) {
	c, cfg := hs.c, hs.c.config
	ecdhe := hs.suite.KeyExchange == ciphersuite.KeyExchangeECDHE
	info := &CertificateRequestInfo{
		AcceptableCAs: req.certificateAuthorities,
		CipherSuite:   c.cipherSuite,
		ctx:           hs.ctx,
	}
	var pair *CertificatePair
	if cfg.GetClientCertificate != nil {
		p, err := cfg.GetClientCertificate(info)
		if err != nil {
			return nil, errorf(alertInternalError, "tlcp: GetClientCertificate: %w", err)
		}
		pair = p
	} else {
		pair = chooseClientPair(cfg.Certificates, info)
	}
	if pair == nil || len(pair.Sign.Certificate) == 0 {
		if ecdhe {
			return nil, errorf(alertHandshakeFailure, "tlcp: ECDHE suites need a client certificate pair, and none is configured")
		}
		return nil, nil
	}
	if _, _, err := checkPair(pair, ecdhe); err != nil {
		return nil, errorf(alertHandshakeFailure, "%w", err)
	}
	return pair, nil
}

// chooseClientPair picks the pair to answer a CertificateRequest with when
// there is no GetClientCertificate, as crypto/tls does: the first pair that
// info.SupportsCertificate accepts; else the first pair the suite can use,
// so that a server that lists other CAs still gets a certificate and can
// say what is wrong with it; else the first pair, which the caller's checks
// then reject with a reason.
func chooseClientPair(pairs []CertificatePair, info *CertificateRequestInfo) *CertificatePair {
	if len(pairs) == 0 {
		return nil
	}
	for i := range pairs {
		if info.SupportsCertificate(&pairs[i]) == nil {
			return &pairs[i]
		}
	}
	if s := ciphersuite.Lookup(info.CipherSuite); s != nil && s.KeyExchange == ciphersuite.KeyExchangeECDHE {
		for i := range pairs {
			if canDoECDHE(&pairs[i]) {
				return &pairs[i]
			}
		}
	}
	return &pairs[0]
}

// clientCertificateList is the client's Certificate message content
// (INTEROP.md §3.8): SIGN, ENC, chain for ECDHE (or when asked to include the
// encryption certificate); SIGN, chain otherwise. Self-signed roots are
// never sent.
func clientCertificateList(pair *CertificatePair, withEnc bool) ([][]byte, error) {
	if pair == nil || len(pair.Sign.Certificate) == 0 {
		return nil, nil
	}
	certs := [][]byte{pair.Sign.Certificate[0]}
	if withEnc && pair.hasEnc() {
		certs = append(certs, pair.Enc.Certificate[0])
	}
	return append(certs, withoutRoots(pair.Sign.Certificate[1:])...), nil
}

// withoutRoots drops self-issued CA certificates (roots) from a chain: a
// root is never sent, the peer must already have it.
func withoutRoots(chain [][]byte) [][]byte {
	var out [][]byte
	for _, der := range chain {
		if cert, err := parseCertificate(der); err == nil && isCA(cert) && bytes.Equal(cert.RawIssuer, cert.RawSubject) {
			continue
		}
		out = append(out, der)
	}
	return out
}

func isCA(c *smx509.Certificate) bool { return c.BasicConstraintsValid && c.IsCA }

// splitServerCertificates finds the signing and encryption certificates in
// a server's list: SIGN, ENC, CA… normally, SIGN, CA…, ENC from TASSL built
// with ENC_CERT_LAST, recognised as Kona does (INTEROP.md §3.5, D4).
func splitServerCertificates(certs []*smx509.Certificate) (sign, enc *smx509.Certificate, intermediates []*smx509.Certificate) {
	n := len(certs)
	if n >= 3 && isCA(certs[1]) && !isCA(certs[n-1]) {
		return certs[0], certs[n-1], certs[1 : n-1]
	}
	return certs[0], certs[1], certs[2:]
}

// checkPeerKeyType refuses a peer certificate whose key is not SM2 with
// unsupported_certificate (INTEROP.md §7). It runs before the key-usage
// checks, which would call such a certificate bad_certificate.
func checkPeerKeyType(peer, role string, cert *smx509.Certificate) error {
	if cert.PublicKeyAlgorithm == smx509.SM2 {
		return nil
	}
	kind := cert.PublicKeyAlgorithm.String()
	if cert.PublicKeyAlgorithm == smx509.UnknownPublicKeyAlgorithm {
		kind = "unknown"
	}
	return errorf(alertUnsupportedCertificate, "tlcp: the %s's %s certificate has an %s key; TLCP needs SM2", peer, role, kind)
}

// sameEntity reports whether two certificates name the same entity: same
// subject, or a DNS name or IP address in common (INTEROP.md §5, D16).
func sameEntity(a, b *smx509.Certificate) bool {
	if bytes.Equal(a.RawSubject, b.RawSubject) {
		return true
	}
	for _, n := range a.DNSNames {
		if slices.Contains(b.DNSNames, n) {
			return true
		}
	}
	for _, ip := range a.IPAddresses {
		for _, ip2 := range b.IPAddresses {
			if ip.Equal(ip2) {
				return true
			}
		}
	}
	return false
}

// verifyServerCertificates checks the server's double certificate: at least
// two certificates, the key usage of each role, the chain of each to
// RootCAs, the host name on the signing certificate and that the
// encryption certificate belongs to the same entity.
func (hs *clientHandshakeState) verifyServerCertificates(raw [][]byte) error {
	c, cfg := hs.c, hs.c.config
	if len(raw) < 2 {
		return errorf(alertBadCertificate, "tlcp: server sent %d certificate(s); TLCP servers must send a signing and an encryption certificate", len(raw))
	}
	certs := make([]*smx509.Certificate, len(raw))
	for i, der := range raw {
		cert, err := parsePeerCertificate(der)
		if err != nil {
			return errorf(alertBadCertificate, "tlcp: parsing server certificate %d: %w", i, err)
		}
		certs[i] = cert
	}
	sign, enc, inter := splitServerCertificates(certs)
	if err := checkPeerKeyType("server", "signing", sign); err != nil {
		return err
	}
	if err := checkPeerKeyType("server", "encryption", enc); err != nil {
		return err
	}
	if !sign.IsTLCPSignCert() {
		return errorf(alertBadCertificate, "tlcp: the server's signing certificate (first in its list) is not an SM2 end-entity certificate with key usage digitalSignature")
	}
	if !enc.IsTLCPEncCert() {
		return errorf(alertBadCertificate, "tlcp: the server's encryption certificate is not an SM2 end-entity certificate with key usage keyEncipherment, dataEncipherment or keyAgreement")
	}
	var chains [][]*smx509.Certificate
	if !cfg.InsecureSkipVerify {
		pool := smx509.NewCertPool()
		for _, ic := range inter {
			pool.AddCert(ic)
		}
		opts := smx509.VerifyOptions{
			DNSName:       cfg.ServerName,
			Roots:         cfg.RootCAs,
			Intermediates: pool,
			CurrentTime:   cfg.time(),
			KeyUsages:     []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth},
		}
		var err error
		if chains, err = sign.Verify(opts); err != nil {
			if cfg.RootCAs == nil {
				// The usual cause, worth saying: unlike crypto/tls
				// there is no system pool to fall back on.
				err = fmt.Errorf("%w (Config.RootCAs is not set, and there are no built-in SM2 roots)", err)
			}
			return certificateAlert("server's signing certificate", certs, err)
		}
		// The host name is checked on the signing certificate only; the
		// encryption certificate must chain and name the same entity.
		opts.DNSName = ""
		if _, err := enc.Verify(opts); err != nil {
			return certificateAlert("server's encryption certificate", certs, err)
		}
		if !sameEntity(sign, enc) {
			return errorf(alertBadCertificate, "tlcp: the server's signing and encryption certificates name different entities")
		}
	}
	if cfg.VerifyPeerCertificate != nil {
		if err := cfg.VerifyPeerCertificate(raw, chains); err != nil {
			return errorf(alertBadCertificate, "tlcp: VerifyPeerCertificate: %w", err)
		}
	}
	if chains != nil {
		// Verified: worth keeping parsed for the next connection.
		rememberVerified(chains, enc)
	}
	c.peerCertificates = certs
	c.peerSignCert, c.peerEncCert = sign, enc
	c.verifiedChains = chains
	return nil
}

// establishKeys derives the key block and prepares the record protection
// that the next ChangeCipherSpec in each direction switches to.
func (hs *clientHandshakeState) establishKeys() error {
	if hs.master == nil {
		hs.master = ciphersuite.NewMaster(hs.masterSecret)
	}
	return establishKeys(hs.c, hs.suite, hs.master, hs.hello.random, hs.serverHello.random)
}

// establishKeys derives the key block from the master secret, prepared
// once for it and both Finished messages.
func establishKeys(c *Conn, suite *ciphersuite.Suite, master *ciphersuite.Master, clientRandom, serverRandom []byte) error {
	clientRP, serverRP, err := master.NewRecordProtections(suite, clientRandom, serverRandom)
	if err != nil {
		return errorf(alertInternalError, "tlcp: %w", err)
	}
	if c.isClient {
		c.in.nextRP, c.out.nextRP = serverRP, clientRP
	} else {
		c.in.nextRP, c.out.nextRP = clientRP, serverRP
	}
	c.ekm = tlcpExporter(master, clientRandom, serverRandom)
	return nil
}

func (hs *clientHandshakeState) sendFinished() error {
	return sendFinished(hs.c, hs.transcript, hs.master, ciphersuite.LabelClientFinished)
}

func (hs *clientHandshakeState) readFinished() error {
	return readFinished(hs.c, hs.transcript, hs.master, ciphersuite.LabelServerFinished)
}

// sendFinished sends ChangeCipherSpec and Finished (INTEROP.md §3.11, §3.11).
func sendFinished(c *Conn, t *transcriptHash, master *ciphersuite.Master, label string) error {
	if err := c.writeChangeCipherSpec(); err != nil {
		return err
	}
	vd := master.FinishedVerifyData(label, t.finishedHash())
	return c.writeHandshake(&finishedMsg{verifyData: vd}, t)
}

// readFinished reads the peer's ChangeCipherSpec and Finished and checks
// verify_data in constant time.
func readFinished(c *Conn, t *transcriptHash, master *ciphersuite.Master, label string) error {
	if err := c.readChangeCipherSpec(); err != nil {
		return err
	}
	return c.readPeerFinished(t, master.FinishedVerifyData(label, t.finishedHash()))
}

// readPeerFinished reads the peer's Finished, TLCP's or TLS 1.3's, and
// compares its verify_data with want in constant time: decrypt_error if
// they differ.
func (c *Conn) readPeerFinished(t *transcriptHash, want []byte) error {
	msg, err := c.readHandshake(nil)
	if err != nil {
		return err
	}
	var got, raw []byte
	switch fin := msg.(type) {
	case *finishedMsg:
		got, raw = fin.verifyData, fin.original
	case *finishedMsgTLS13:
		got, raw = fin.verifyData, fin.original
	default:
		return unexpectedMessageError("Finished", msg)
	}
	if subtle.ConstantTimeCompare(want, got) != 1 {
		peer := "client"
		if c.isClient {
			peer = "server"
		}
		return errorf(alertDecryptError, "tlcp: the %s's Finished is incorrect (wrong keys, or a tampered handshake)", peer)
	}
	t.Write(raw)
	return nil
}
