// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// serverHandshakeState holds the server's side of one handshake.
type serverHandshakeState struct {
	c            *Conn
	ctx          context.Context
	clientHello  *clientHelloMsg
	hello        *serverHelloMsg
	suite        *ciphersuite.Suite
	pair         *CertificatePair
	prepared     *preparedPair // pair, parsed and checked (paircache.go)
	encCert      *smx509.Certificate
	transcript   *transcriptHash
	masterSecret []byte
	master       *ciphersuite.Master // masterSecret prepared for the PRF
	session      *serverSession      // the session being resumed, if any
	ka           keyAgreement
	// info describes the ClientHello, and orig is the Config that
	// GetConfigForClient replaced (nil if none).
	info *ClientHelloInfo
	orig *Config
}

func (c *Conn) serverHandshake(ctx context.Context) error {
	if c.config == nil {
		return errors.New("tlcp: a server needs a Config")
	}
	// The ClientHello, and the Config GetConfigForClient chooses for it,
	// decide the protocol (TLS13.md §1).
	ch, err := c.readClientHello("ClientHello")
	if err != nil {
		return err
	}
	c.serverName = ch.serverName
	info := &ClientHelloInfo{
		CipherSuites:      ch.cipherSuites,
		ServerName:        ch.serverName,
		SupportedProtos:   ch.alpnProtocols,
		SupportedVersions: supportedVersionsOf(ch),
		SupportedCurves:   curvesOf(ch),
		Conn:              c.conn,
		ctx:               ctx,
	}
	info.TrustedCAIndications = ch.trustedAuthorities
	var orig *Config
	if cfg := c.config; cfg.GetConfigForClient != nil {
		newCfg, err := cfg.GetConfigForClient(info)
		if err != nil {
			return errorf(alertInternalError, "tlcp: GetConfigForClient: %w", err)
		}
		if newCfg != nil {
			orig = cfg
			c.config = newCfg
		}
	}
	if tls13, err := c.chooseServerVersion(ch); err != nil {
		return err
	} else if tls13 {
		return c.serverHandshakeTLS13(ctx, ch, info, orig)
	}
	hs := &serverHandshakeState{
		c:           c,
		ctx:         ctx,
		clientHello: ch,
		info:        info,
		orig:        orig,
		// The raw transcript is kept until it is known whether a
		// CertificateVerify will come: it may be of either form (D1).
		transcript: newTranscript(true),
	}
	hs.transcript.Write(ch.original)
	if err := hs.processClientHello(); err != nil {
		return err
	}
	// Each flight goes out in one transport write.
	c.startFlight()
	if hs.session != nil {
		// Not through runSteps, whose frame would push a resumed
		// handshake past a first goroutine stack (stack_test.go).
		err = hs.resume()
	} else {
		// The session is cached before the client can see our Finished:
		// a client that reconnects the moment its handshake completes
		// must find it. A failure from here on that sends a fatal alert
		// drops it again; the client caches its side only after our
		// Finished.
		err = runSteps(hs.doFullHandshake, hs.establishKeys, hs.readFinished, hs.saveSession, hs.sendFinished)
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

// chooseServerVersion decides which protocol answers a ClientHello: TLS 1.3
// if both sides may speak it, else TLCP if both may (TLS13.md §1).
func (c *Conn) chooseServerVersion(ch *clientHelloMsg) (tls13 bool, err error) {
	cfg := c.config
	tls13OK, tlcpOK := cfg.versionEnabled(VersionTLS13, false), cfg.versionEnabled(VersionTLCP, false)
	offers13 := ch.tls13.offersTLS13()
	offersTLCP := ch.vers == VersionTLCP || slices.Contains(ch.tls13.supportedVersions, VersionTLCP)
	switch {
	case offers13 && tls13OK:
		return true, nil
	case offersTLCP && tlcpOK:
		return false, nil
	case offers13 && !offersTLCP:
		return false, errorf(alertProtocolVersion, "tlcp: the client offers only TLS 1.3, which this server does not speak (MinVersion/MaxVersion, or no TLS 1.3 suite in CipherSuites)")
	case offersTLCP:
		return false, errorf(alertProtocolVersion, "tlcp: the client offers only TLCP, which this server does not speak (MinVersion/MaxVersion, or no TLCP suite in CipherSuites)")
	}
	return false, errorf(alertProtocolVersion, "tlcp: the client offered %s (0x%04x) without TLS 1.3; this server speaks TLCP and TLS 1.3 with the ShangMi suites only",
		versionName(ch.vers), ch.vers)
}

// curvesOf lists a ClientHello's supported_groups as CurveIDs. It is not
// inlined: its loop would enlarge the frame of serverHandshake, which is
// on the stack under the key block's PRF (stack_test.go).
//
//go:noinline
func curvesOf(ch *clientHelloMsg) []CurveID {
	var out []CurveID
	for _, g := range ch.tls13.supportedGroups {
		out = append(out, CurveID(g))
	}
	return out
}

// supportedVersionsOf lists the versions a ClientHello offers, for
// ClientHelloInfo.
func supportedVersionsOf(ch *clientHelloMsg) []uint16 {
	if len(ch.tls13.supportedVersions) > 0 {
		return ch.tls13.supportedVersions
	}
	return []uint16{ch.vers}
}

// markDowngrade ends a TLCP ServerHello's random with the downgrade
// sentinel if this server could have spoken TLS 1.3 (TLS13.md §5).
func (c *Conn) markDowngrade(random []byte) {
	if c.config.versionEnabled(VersionTLS13, false) && len(random) == 32 {
		copy(random[24:], downgradeSentinelTLCP)
	}
}

// resume is the rest of an abbreviated handshake: ServerHello,
// ChangeCipherSpec and Finished, then the client's.
func (hs *serverHandshakeState) resume() error {
	if err := hs.doResumeHandshake(); err != nil {
		return err
	}
	if err := hs.establishKeys(); err != nil {
		return err
	}
	if err := hs.sendFinished(); err != nil {
		return err
	}
	return hs.readFinished()
}

// serverPair returns the pair a server uses for the ClientHello info
// describes, from GetCertificate or else the first of Certificates.
func (c *Config) serverPair(info *ClientHelloInfo) (*CertificatePair, error) {
	pair := (*CertificatePair)(nil)
	if c.GetCertificate != nil {
		p, err := c.GetCertificate(info)
		if err != nil {
			return nil, errorf(alertInternalError, "tlcp: GetCertificate: %w", err)
		}
		pair = p
	} else if len(c.Certificates) > 0 {
		var tas []TrustedAuthority
		if info != nil {
			tas = info.TrustedCAIndications
		}
		pair = pairForIndications(c.Certificates, tas)
	}
	if pair == nil {
		return nil, errorf(alertInternalError, "tlcp: the server has no certificate pair configured")
	}
	return pair, nil
}

// readClientHello reads a ClientHello, the first or (what says which)
// the one after a HelloRetryRequest, and refuses what RFC 8446 forbids in
// one that parses.
func (c *Conn) readClientHello(what string) (*clientHelloMsg, error) {
	msg, err := c.readHandshake(nil)
	if err != nil {
		return nil, err
	}
	ch, ok := msg.(*clientHelloMsg)
	if !ok {
		return nil, unexpectedMessageError(what, msg)
	}
	return ch, ch.tls13.check()
}

// processClientHello checks the ClientHello, picks the certificate pair
// and the suite, and decides whether to resume.
func (hs *serverHandshakeState) processClientHello() error {
	c, cfg := hs.c, hs.c.config
	ch := hs.clientHello
	if ch.vers != VersionTLCP {
		return errorf(alertProtocolVersion, "tlcp: client offered version 0x%04x; this server speaks only TLCP 0x0101", ch.vers)
	}
	c.vers = VersionTLCP
	if !slices.Contains(ch.compressionMethods, 0) {
		return errorf(alertIllegalParameter, "tlcp: client does not offer the null compression method")
	}
	c.sessions = cfg.sessionStoreFor(hs.orig)

	var err error
	if hs.pair, err = cfg.serverPair(hs.info); err != nil {
		return err
	}
	if hs.prepared, err = preparePair(hs.pair); err != nil {
		return errorf(alertInternalError, "%w", err)
	}
	hs.encCert = hs.prepared.enc

	if alpn := negotiateALPN(cfg.NextProtos, ch.alpnProtocols); alpn != "" {
		c.clientProtocol = alpn
	}

	random, err := makeRandom(cfg)
	if err != nil {
		return err
	}
	c.markDowngrade(random)
	hs.hello = &serverHelloMsg{
		vers:          VersionTLCP,
		random:        random,
		serverNameAck: ch.serverName != "",
		alpnProtocol:  c.clientProtocol,
	}

	if hs.checkForResumption() {
		hs.hello.sessionID = ch.sessionID
		hs.hello.cipherSuite = hs.session.cipherSuite
		hs.suite = ciphersuite.Lookup(hs.session.cipherSuite)
		c.cipherSuite = hs.session.cipherSuite
		c.didResume = true
		hs.transcript.dropRaw()
		return nil
	}

	if err := hs.pickCipherSuite(); err != nil {
		return err
	}
	if c.sessions != nil {
		hs.hello.sessionID = make([]byte, 32)
		if _, err := io.ReadFull(cfg.rand(), hs.hello.sessionID); err != nil {
			return errorf(alertInternalError, "tlcp: making a session ID: %w", err)
		}
	} else {
		hs.hello.sessionID = []byte{}
	}
	return nil
}

// negotiateALPN picks the server's most preferred protocol the client also
// offers. A client offering no common protocol gets none (no alert), which
// keeps HTTP/1.1 fallbacks working.
func negotiateALPN(server, client []string) string {
	for _, p := range server {
		if slices.Contains(client, p) {
			return p
		}
	}
	return ""
}

// pickCipherSuite chooses by the server's preference (INTEROP.md §2.2),
// among the suites the encryption key can do: ECC needs a crypto.Decrypter,
// ECDHE an SM2KeyExchanger.
func (hs *serverHandshakeState) pickCipherSuite() error {
	c := hs.c
	_, eccOK := decrypterOf(hs.pair.Enc.PrivateKey)
	_, ecdheOK := keyExchangerOf(hs.pair.Enc.PrivateKey)
	var buf [8]uint16
	for _, id := range c.config.appendCipherSuites(buf[:0]) {
		if !slices.Contains(hs.clientHello.cipherSuites, id) {
			continue
		}
		s := ciphersuite.Lookup(id)
		if s.KeyExchange == ciphersuite.KeyExchangeECDHE && !ecdheOK || s.KeyExchange == ciphersuite.KeyExchangeECC && !eccOK {
			continue
		}
		hs.suite = s
		hs.hello.cipherSuite = id
		c.cipherSuite = id
		hs.ka = newKeyAgreement(s)
		return nil
	}
	return errorf(alertHandshakeFailure, "tlcp: no cipher suite in common with the client")
}

// checkForResumption looks the offered session ID up in the cache (INTEROP.md
// §6.1).
func (hs *serverHandshakeState) checkForResumption() bool {
	c, cfg := hs.c, hs.c.config
	cache := c.sessions
	if cache == nil || len(hs.clientHello.sessionID) == 0 {
		return false
	}
	s, ok := cache.get(hs.ctx, hs.clientHello.sessionID)
	if !ok {
		return false
	}
	if cfg.time().Sub(s.created) >= cfg.lifetime() {
		cache.remove(hs.ctx, hs.clientHello.sessionID)
		return false
	}
	var buf [8]uint16
	if !slices.Contains(hs.clientHello.cipherSuites, s.cipherSuite) || !slices.Contains(cfg.appendCipherSuites(buf[:0]), s.cipherSuite) {
		return false
	}
	// A session made without a client certificate does not satisfy a
	// policy that now requires one.
	needCert := cfg.ClientAuth == RequireAnyClientCert || cfg.ClientAuth == RequireAndVerifyClientCert
	if needCert && !s.peer.hasCert() {
		return false
	}
	// Nor does one whose certificate was not verified satisfy a policy
	// that verifies (the cache is shared by Config.Clone).
	if s.peer.hasCert() && cfg.ClientAuth >= VerifyClientCertIfGiven && !s.peer.verified() {
		return false
	}
	if s.serverName != hs.clientHello.serverName {
		return false
	}
	sign, enc, list, err := s.peer.certificates()
	if err != nil || certsExpired(cfg.time(), sign, enc) {
		cache.remove(hs.ctx, hs.clientHello.sessionID)
		return false
	}
	hs.session = s
	c.peerCertificates = list
	c.peerSignCert, c.peerEncCert = sign, enc
	c.verifiedChains = s.peer.chains
	return true
}

func (hs *serverHandshakeState) doResumeHandshake() error {
	c := hs.c
	if err := c.writeHandshake(hs.hello, hs.transcript); err != nil {
		return err
	}
	hs.masterSecret, hs.master = hs.session.masterSecret, hs.session.master
	if err := c.config.writeKeyLog(hs.clientHello.random, hs.masterSecret); err != nil {
		return errorf(alertInternalError, "tlcp: writing the key log: %w", err)
	}
	c.sessionMu.Lock()
	c.serverSessionID = hs.hello.sessionID
	c.sessionMu.Unlock()
	return c.verifyConnection()
}

func (hs *serverHandshakeState) doFullHandshake() error {
	c, cfg := hs.c, hs.c.config
	ecdhe := hs.suite.KeyExchange == ciphersuite.KeyExchangeECDHE
	if ecdhe {
		c.curveID = CurveSM2 // the SM2 key exchange of the ECDHE suites
	}

	staple := hs.stapleTLCP()
	if err := c.writeHandshake(hs.hello, hs.transcript); err != nil {
		return err
	}
	// SIGN, ENC, then the signing chain's intermediates (INTEROP.md §3.5),
	// marshalled once per pair.
	certs := &certificateMsg{certificates: hs.prepared.certs, original: hs.prepared.certMsg}
	if err := c.writeHandshake(certs, hs.transcript); err != nil {
		return err
	}
	if staple != nil {
		if err := c.writeHandshake(&certificateStatusMsg{body: staple}, hs.transcript); err != nil {
			return err
		}
	}
	skx, err := hs.ka.generateServerKeyExchange(cfg, hs.pair, hs.encCert, hs.clientHello.random, hs.hello.random)
	if err != nil {
		return errorf(alertInternalError, "%w", err)
	}
	if err := c.writeHandshake(skx, hs.transcript); err != nil {
		return err
	}
	// ECDHE always asks for the client's certificates (INTEROP.md D11).
	requestCert := ecdhe || cfg.ClientAuth >= RequestClientCert
	if !requestCert {
		hs.transcript.dropRaw() // no CertificateVerify will come
	}
	if requestCert {
		req := &certificateRequestMsg{certificateTypes: []byte{certTypeECDSASign}}
		if cfg.ClientCAs != nil {
			req.certificateAuthorities = cfg.ClientCAs.Subjects()
		}
		if err := c.writeHandshake(req, hs.transcript); err != nil {
			return err
		}
	}
	if err := c.writeHandshake(&serverHelloDoneMsg{}, hs.transcript); err != nil {
		return err
	}

	var clientEnc *smx509.Certificate
	if requestCert {
		msg, err := c.readHandshake(hs.transcript)
		if err != nil {
			return err
		}
		certMsg, ok := msg.(*certificateMsg)
		if !ok {
			return unexpectedMessageError("Certificate", msg)
		}
		if clientEnc, err = hs.processClientCertificates(certMsg.certificates); err != nil {
			return err
		}
	}
	// Called whether or not there were client certificates, as in
	// crypto/tls.
	if err := c.verifyConnection(); err != nil {
		return err
	}

	msg, err := c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	ckx, ok := msg.(*clientKeyExchangeMsg)
	if !ok {
		return unexpectedMessageError("ClientKeyExchange", msg)
	}
	premaster, err := hs.ka.processClientKeyExchange(cfg, hs.pair, ckx, clientEnc)
	if err != nil {
		return err
	}

	if c.peerSignCert == nil {
		hs.transcript.dropRaw()
	} else {
		// CertificateVerify signs the transcript up to here, in one of
		// two forms (INTEROP.md D1): SM3(transcript), which the standard
		// and most peers use, or the raw transcript, which GmSSL 3.0.0
		// and ≥ 3.2 sign. Both are accepted. They cannot be confused: a
		// transcript is never 32 bytes long, so no one signature is valid
		// for both, and either proves the same possession of the key over
		// the same handshake.
		hashed := hs.transcript.Sum()
		raw := hs.transcript.raw
		hs.transcript.dropRaw()
		msg, err := c.readHandshake(hs.transcript)
		if err != nil {
			return err
		}
		cv, ok := msg.(*certificateVerifyMsg)
		if !ok {
			return unexpectedMessageError("CertificateVerify", msg)
		}
		if !verify(c.peerSignCert, hashed, cv.signature) && !verify(c.peerSignCert, raw, cv.signature) {
			return errorf(alertDecryptError, "tlcp: the client's CertificateVerify signature is invalid (in both the SM3-of-transcript and the raw-transcript form)")
		}
	}

	hs.masterSecret = ciphersuite.MasterSecret(premaster, hs.clientHello.random, hs.hello.random)
	if err := cfg.writeKeyLog(hs.clientHello.random, hs.masterSecret); err != nil {
		return errorf(alertInternalError, "tlcp: writing the key log: %w", err)
	}
	return nil
}

// processClientCertificates handles the client's Certificate message in
// either shape (INTEROP.md §3.8, D3): cert[0] is the signing certificate; for
// ECDHE the encryption certificate is cert[1] (or the last one, after CAs);
// every other certificate only helps build chains. It returns the client's
// encryption certificate for ECDHE.
func (hs *serverHandshakeState) processClientCertificates(raw [][]byte) (*smx509.Certificate, error) {
	c, cfg := hs.c, hs.c.config
	ecdhe := hs.suite.KeyExchange == ciphersuite.KeyExchangeECDHE
	if len(raw) == 0 {
		if ecdhe {
			return nil, errorf(alertHandshakeFailure, "tlcp: the client sent no certificates, but ECDHE suites need its signing and encryption certificates")
		}
		if cfg.ClientAuth == RequireAnyClientCert || cfg.ClientAuth == RequireAndVerifyClientCert {
			return nil, errorf(alertBadCertificate, "tlcp: the client sent no certificate, and one is required")
		}
		return nil, nil
	}
	if ecdhe && len(raw) < 2 {
		return nil, errorf(alertHandshakeFailure, "tlcp: the client sent one certificate, but ECDHE suites need its signing and encryption certificates")
	}
	certs := make([]*smx509.Certificate, len(raw))
	for i, der := range raw {
		cert, err := parsePeerCertificate(der)
		if err != nil {
			return nil, errorf(alertBadCertificate, "tlcp: parsing client certificate %d: %w", i, err)
		}
		certs[i] = cert
	}
	sign := certs[0]
	var enc *smx509.Certificate
	var others []*smx509.Certificate
	if ecdhe {
		sign, enc, others = splitServerCertificates(certs)
	} else {
		others = certs[1:]
	}
	if err := checkPeerKeyType("client", "signing", sign); err != nil {
		return nil, err
	}
	if enc != nil {
		if err := checkPeerKeyType("client", "encryption", enc); err != nil {
			return nil, err
		}
	}
	if !sign.IsTLCPSignCert() {
		return nil, errorf(alertBadCertificate, "tlcp: the client's first certificate is not an SM2 end-entity certificate with key usage digitalSignature")
	}
	if enc != nil && !enc.IsTLCPEncCert() {
		return nil, errorf(alertBadCertificate, "tlcp: the client's encryption certificate is not an SM2 end-entity certificate with key usage keyEncipherment, dataEncipherment or keyAgreement")
	}
	// For ECC, a Tongsuo-style SIGN, ENC list: note the encryption
	// certificate too, for ConnectionState.
	if enc == nil && len(certs) > 1 && certs[1].IsTLCPEncCert() {
		enc = certs[1]
	}

	var chains [][]*smx509.Certificate
	// ECDHE under NoClientCert still gets a certificate; it is verified
	// if there are ClientCAs to verify it with.
	if cfg.ClientAuth >= VerifyClientCertIfGiven || (ecdhe && cfg.ClientAuth == NoClientCert && cfg.ClientCAs != nil) {
		pool := smx509.NewCertPool()
		for _, o := range others {
			pool.AddCert(o)
		}
		opts := smx509.VerifyOptions{
			Roots:         cfg.ClientCAs,
			Intermediates: pool,
			CurrentTime:   cfg.time(),
			KeyUsages:     []smx509.ExtKeyUsage{smx509.ExtKeyUsageClientAuth},
		}
		var err error
		if chains, err = sign.Verify(opts); err != nil {
			return nil, certificateAlert("client's signing certificate", certs, err)
		}
		if enc != nil && enc != sign {
			if _, err := enc.Verify(opts); err != nil {
				return nil, certificateAlert("client's encryption certificate", certs, err)
			}
			if !sameEntity(sign, enc) {
				return nil, errorf(alertBadCertificate, "tlcp: the client's signing and encryption certificates name different entities")
			}
		}
	}
	if cfg.VerifyPeerCertificate != nil {
		if err := cfg.VerifyPeerCertificate(raw, chains); err != nil {
			return nil, errorf(alertBadCertificate, "tlcp: VerifyPeerCertificate: %w", err)
		}
	}
	if chains != nil {
		// Verified: worth keeping parsed for the next connection.
		rememberVerified(chains, enc)
	}
	c.peerCertificates = certs
	c.peerSignCert, c.peerEncCert = sign, enc
	c.verifiedChains = chains
	if ecdhe {
		return enc, nil
	}
	return nil, nil
}

func (hs *serverHandshakeState) establishKeys() error {
	if hs.master == nil {
		hs.master = ciphersuite.NewMaster(hs.masterSecret)
	}
	return establishKeys(hs.c, hs.suite, hs.master, hs.clientHello.random, hs.hello.random)
}

func (hs *serverHandshakeState) sendFinished() error {
	return sendFinished(hs.c, hs.transcript, hs.master, ciphersuite.LabelServerFinished)
}

func (hs *serverHandshakeState) readFinished() error {
	err := readFinished(hs.c, hs.transcript, hs.master, ciphersuite.LabelClientFinished)
	if eka, ok := hs.ka.(*eccKeyAgreement); ok && eka.keyErr != nil && err != nil {
		// Only now, and only locally: the peer was told nothing more.
		err = fmt.Errorf("%w (earlier, the encryption key's Decrypt failed: %v)", err, eka.keyErr)
	}
	return err
}

// saveSession stores a completed full handshake for resumption. It
// cannot fail; it returns an error to be a step of runSteps.
func (hs *serverHandshakeState) saveSession() error {
	c := hs.c
	cache := c.sessions
	if cache == nil || len(hs.hello.sessionID) == 0 {
		return nil
	}
	cache.put(hs.ctx, hs.hello.sessionID, &serverSession{
		cipherSuite:  hs.hello.cipherSuite,
		masterSecret: hs.masterSecret,
		master:       hs.master,
		peer:         newSessionPeer(c.peerSignCert, c.peerEncCert, c.verifiedChains),
		serverName:   hs.clientHello.serverName,
		created:      c.config.time(),
	})
	c.sessionMu.Lock()
	c.serverSessionID = hs.hello.sessionID
	c.sessionMu.Unlock()
	return nil
}
