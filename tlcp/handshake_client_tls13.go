// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
)

// The client side of a TLS 1.3 handshake with the RFC 8998 suites
// (TLS13.md §2). The steps follow RFC 8446 §2's full and PSK flows:
//
//	ClientHello              →
//	                         ← [HelloRetryRequest → ClientHello]
//	                         ← ServerHello, [ChangeCipherSpec],
//	                           {EncryptedExtensions}, {CertificateRequest},
//	                           {Certificate, CertificateVerify}, {Finished}
//	[ChangeCipherSpec],
//	{Certificate, CertificateVerify}, {Finished} →
//	                         ← [NewSessionTicket]   (after the handshake)

// clientHandshakeStateTLS13 is one TLS 1.3 handshake of a client.
type clientHandshakeStateTLS13 struct {
	c           *Conn
	ctx         context.Context
	hello       *clientHelloMsg
	keyShares   []*clientKeyShare // the private halves of hello's key shares
	serverHello *serverHelloMsg
	suite       *ciphersuite.TLS13Suite
	transcript  *transcriptHash

	session   *ClientSessionState // the ticket offered, if any
	pskEarly  *ciphersuite.TLS13EarlySecret
	usingPSK  bool
	certReq   *certificateRequestMsgTLS13
	hsSecret  *ciphersuite.TLS13HandshakeSecret
	master    *ciphersuite.TLS13MasterSecret
	clientHS  []byte // client_handshake_traffic_secret
	serverHS  []byte
	clientAP  []byte // client_application_traffic_secret_0
	sentHRRCH bool   // a second ClientHello was sent
}

// offerTLS13 adds TLS 1.3 to a ClientHello if the Config enables it: the
// suites, groups and key shares, sm2sig_sm3, supported_versions and, with a
// cached ticket, a PSK. A hello that already offers TLCP suites stays
// TLCP-shaped (version 0x0101 on record and hello) and lists both
// versions; one without becomes an ordinary TLS 1.3 ClientHello. It
// returns nil if TLS 1.3 is not offered.
func (c *Conn) offerTLS13(ctx context.Context, hello *clientHelloMsg) (*clientHandshakeStateTLS13, error) {
	cfg := c.config
	if !cfg.versionEnabled(VersionTLS13, true) {
		return nil, nil
	}
	if cfg.ClientHelloNoExtensions {
		// TLS 1.3 cannot be offered without extensions.
		if len(hello.cipherSuites) > 0 {
			return nil, nil
		}
		return nil, errors.New("tlcp: TLS 1.3 needs ClientHello extensions, but Config.ClientHelloNoExtensions is set")
	}
	hs := &clientHandshakeStateTLS13{c: c, ctx: ctx, hello: hello}
	c.tls13.offered = true
	if len(hello.cipherSuites) == 0 {
		// TLS 1.3 alone: the record and hello versions of RFC 8446 §4.1.2
		// and §5.1, and 32 random bytes.
		hello.vers = 0x0303
		c.tls13.helloRecordVers = 0x0301
		hello.tls13.supportedVersions = []uint16{VersionTLS13}
		if _, err := io.ReadFull(cfg.rand(), hello.random); err != nil {
			return nil, errors.New("tlcp: short read from Rand: " + err.Error())
		}
	} else {
		hello.tls13.supportedVersions = []uint16{VersionTLS13, VersionTLCP}
	}
	hello.cipherSuites = append(cfg.tls13CipherSuites(), hello.cipherSuites...)
	if len(hello.sessionID) == 0 && !cfg.TLS13NoMiddleboxCompat {
		// Middlebox compatibility mode (RFC 8446 D.4).
		hello.sessionID = make([]byte, 32)
		if _, err := io.ReadFull(cfg.rand(), hello.sessionID); err != nil {
			return nil, errors.New("tlcp: short read from Rand: " + err.Error())
		}
	}
	groups := cfg.curvePreferences()
	if len(groups) == 0 {
		return nil, errors.New("tlcp: Config.CurvePreferences names no group this package has (CurveSM2MLKEM768, CurveSM2)")
	}
	for _, g := range groups {
		hello.tls13.supportedGroups = append(hello.tls13.supportedGroups, uint16(g))
	}
	hello.tls13.signatureAlgorithms = []uint16{signatureSM2SM3}
	hello.tls13.keyShareSeen = true
	// A share for the first group, and for curveSM2 beside the hybrid,
	// so that a server without the hybrid needs no HelloRetryRequest.
	// The curveSM2 share is the hybrid's SM2 key again, 65 more bytes and
	// no more work: the server completes one of the two exchanges, and a
	// hybrid's ECDH key may serve its classical group too
	// (draft-ietf-tls-hybrid-design §3.2; crypto/tls does the same with
	// X25519).
	k, ks, err := newClientKeyShare(cfg.rand(), groups[0], nil)
	if err != nil {
		return nil, err
	}
	hs.keyShares = []*clientKeyShare{k}
	hello.tls13.keyShares = []keyShare{ks}
	if groups[0] == CurveSM2MLKEM768 && slices.Contains(groups, CurveSM2) {
		k2, ks2, err := newClientKeyShare(cfg.rand(), CurveSM2, k.ecdh)
		if err != nil {
			return nil, err
		}
		hs.keyShares = append(hs.keyShares, k2)
		hello.tls13.keyShares = append(hello.tls13.keyShares, ks2)
	}
	if cfg.ClientSessionCache != nil {
		hello.tls13.pskModes = []uint8{pskModeDHE}
		hs.offerTicket()
	}
	if err := hs.updateBinders(nil); err != nil {
		return nil, err
	}
	return hs, nil
}

// offerTicket adds the cached ticket for this server to the hello if it
// may still be used.
func (hs *clientHandshakeStateTLS13) offerTicket() {
	c, cfg := hs.c, hs.c.config
	key := clientSessionCacheKey(c)
	s, ok := cfg.ClientSessionCache.Get(key)
	if !ok || s == nil || s.vers != VersionTLS13 || s.ticket == nil {
		return
	}
	now := cfg.time()
	age := now.Sub(s.receivedAt)
	sign, _, err := s.server.leaves()
	usable := age >= 0 && age < s.ticket.lifetime && err == nil && !certsExpired(now, sign) &&
		// A ticket from a connection that skipped verification must
		// not let this Config skip it (the cache may be shared).
		(cfg.InsecureSkipVerify || s.server.verified()) &&
		slices.Contains(cfg.tls13CipherSuites(), s.cipherSuite)
	if !usable {
		if age >= s.ticket.lifetime {
			cfg.ClientSessionCache.Put(key, nil)
		}
		return
	}
	hs.session = s
	hs.pskEarly = ciphersuite.NewTLS13EarlySecret(s.ticket.psk)
	ageMillis := uint32(age.Milliseconds())
	hs.hello.tls13.pskIdentities = []pskIdentity{{label: s.ticket.label, obfuscatedTicketAge: ageMillis + s.ticket.ageAdd}}
	hs.hello.tls13.pskBinders = nil
	c.sessionMu.Lock()
	c.clientSessionKey = key // a fatal alert drops the offered ticket
	c.sessionMu.Unlock()
}

// updateBinders computes the PSK binder over the hello without its
// binders, after prefix (the transcript before a second ClientHello), and
// re-marshals the hello (RFC 8446 §4.2.11.2).
func (hs *clientHandshakeStateTLS13) updateBinders(prefix []byte) error {
	h := hs.hello
	h.original = nil
	if hs.session == nil {
		return nil
	}
	h.tls13.pskBinders = [][]byte{make([]byte, finishedLenTLS13)}
	b, err := h.marshal()
	if err != nil {
		return errorf(alertInternalError, "tlcp: %w", err)
	}
	t := sm3.New()
	t.Write(prefix)
	t.Write(b[:len(b)-h.tls13.bindersSize()])
	h.tls13.pskBinders[0] = ciphersuite.TLS13FinishedVerifyData(hs.pskEarly.ResumptionBinderKey(), t.Sum(nil))
	h.original = nil
	_, err = h.marshal()
	return err
}

// keyShareFor is the private half of the hello's share of group, or nil.
func (hs *clientHandshakeStateTLS13) keyShareFor(group CurveID) *clientKeyShare {
	for _, k := range hs.keyShares {
		if k.group == group {
			return k
		}
	}
	return nil
}

// isTLS13 reports whether a ServerHello (or HelloRetryRequest) selects TLS
// 1.3.
func (m *serverHelloMsg) isTLS13() bool { return m.tls13.supportedVersion == VersionTLS13 }

// isHelloRetryRequest reports whether a TLS 1.3 ServerHello is a
// HelloRetryRequest.
func (m *serverHelloMsg) isHelloRetryRequest() bool {
	return bytes.Equal(m.random, helloRetryRequestRandom)
}

// run completes the handshake after the first ServerHello.
func (hs *clientHandshakeStateTLS13) run(sh *serverHelloMsg) (err error) {
	c := hs.c
	c.vers = VersionTLS13
	hs.transcript = newTranscript(false)
	hs.transcript.Write(hs.hello.original)
	if sh.isHelloRetryRequest() {
		if err := hs.processHelloRetryRequest(sh); err != nil {
			return err
		}
		msg, err := c.readHandshake(nil)
		if err != nil {
			return err
		}
		var ok bool
		if sh, ok = msg.(*serverHelloMsg); !ok {
			return unexpectedMessageError("ServerHello", msg)
		}
		if sh.isHelloRetryRequest() {
			return errorf(alertUnexpectedMessage, "tlcp: the server sent a second HelloRetryRequest")
		}
		if sh.cipherSuite != hs.serverHello.cipherSuite {
			return errorf(alertIllegalParameter, "tlcp: the server's ServerHello changed the cipher suite of its HelloRetryRequest")
		}
	}
	hs.serverHello = sh
	if err := hs.processServerHello(); err != nil {
		return err
	}
	hs.transcript.Write(sh.original)
	// The rest of the handshake, in the order of RFC 8446 §2: keys from
	// the shares, the server's encrypted flight, then ours.
	if err := runSteps(
		hs.establishHandshakeKeys,
		hs.readServerParameters,
		hs.readServerCertificate,
		hs.readServerFinished,
		hs.sendClientFlight,
	); err != nil {
		return err
	}
	c.isHandshakeComplete.Store(true)
	return nil
}

// checkServerHelloCommon checks what a ServerHello and a
// HelloRetryRequest share (RFC 8446 §4.1.3, §4.1.4).
func (hs *clientHandshakeStateTLS13) checkServerHelloCommon(sh *serverHelloMsg) error {
	if sh.vers != 0x0303 {
		return errorf(alertIllegalParameter, "tlcp: the server's TLS 1.3 ServerHello has legacy_version 0x%04x, want 0x0303", sh.vers)
	}
	if sh.compressionMethod != 0 {
		return errorf(alertIllegalParameter, "tlcp: the server selected compression method %d", sh.compressionMethod)
	}
	if !bytes.Equal(sh.sessionID, hs.hello.sessionID) {
		return errorf(alertIllegalParameter, "tlcp: the server did not echo the client's legacy_session_id")
	}
	if !slices.Contains(hs.c.config.tls13CipherSuites(), sh.cipherSuite) || !slices.Contains(hs.hello.cipherSuites, sh.cipherSuite) {
		return errorf(alertIllegalParameter, "tlcp: the server selected cipher suite %s, which was not offered for TLS 1.3", ciphersuite.Name(sh.cipherSuite))
	}
	if sh.serverNameAck || sh.alpnProtocol != "" || sh.ocspStapling || sh.forbiddenExtension {
		return errorf(alertIllegalParameter, "tlcp: the server sent an extension in its TLS 1.3 ServerHello that may not appear there (server_name, ALPN, …)")
	}
	if sh.unknownExtension {
		return errorf(alertUnsupportedExtension, "tlcp: the server sent an extension in its ServerHello that was not offered")
	}
	hs.suite = ciphersuite.LookupTLS13(sh.cipherSuite)
	return nil
}

// processHelloRetryRequest answers a HelloRetryRequest with a second
// ClientHello (RFC 8446 §4.1.4).
func (hs *clientHandshakeStateTLS13) processHelloRetryRequest(hrr *serverHelloMsg) error {
	c := hs.c
	hs.serverHello = hrr
	if err := hs.checkServerHelloCommon(hrr); err != nil {
		return err
	}
	e := &hrr.tls13
	if e.serverShare.group != 0 || e.selectedPSK {
		return errorf(alertIllegalParameter, "tlcp: the server's HelloRetryRequest carries a key share or a PSK")
	}
	if e.selectedGroup == 0 && e.cookie == nil {
		return errorf(alertIllegalParameter, "tlcp: the server's HelloRetryRequest asks for nothing")
	}
	h := hs.hello
	if e.selectedGroup != 0 {
		group := CurveID(e.selectedGroup)
		if !slices.Contains(h.tls13.supportedGroups, e.selectedGroup) {
			return errorf(alertIllegalParameter, "tlcp: the server's HelloRetryRequest asks for group %v, which was not offered (the ClientHello lists %v)", group, h.tls13.supportedGroups)
		}
		if hs.keyShareFor(group) != nil {
			return errorf(alertIllegalParameter, "tlcp: the server's HelloRetryRequest asks for a %v key share, which the ClientHello had", group)
		}
		// RFC 8446 §4.1.2: the second hello has one share, of the
		// group asked for.
		k, ks, err := newClientKeyShare(c.config.rand(), group, nil)
		if err != nil {
			return err
		}
		hs.keyShares = []*clientKeyShare{k}
		h.tls13.keyShares = []keyShare{ks}
	}
	h.tls13.cookie = e.cookie
	h.tls13.earlyData = false // RFC 8446 §4.2.10
	// The transcript restarts from the hash of the first ClientHello.
	prefix := append(messageHash(h.original), hrr.original...)
	hs.transcript = newTranscript(false)
	hs.transcript.Write(prefix)
	if hs.session != nil {
		// The ticket's age moves on; its binder now covers the
		// HelloRetryRequest too.
		age := uint32(c.config.time().Sub(hs.session.receivedAt).Milliseconds())
		h.tls13.pskIdentities[0].obfuscatedTicketAge = age + hs.session.ticket.ageAdd
	}
	if err := hs.updateBinders(prefix); err != nil {
		return err
	}
	hs.sentHRRCH = true
	return c.writeHandshake(h, hs.transcript)
}

// processServerHello checks the ServerHello and computes the shared
// secret, with or without the offered PSK.
func (hs *clientHandshakeStateTLS13) processServerHello() error {
	c, sh := hs.c, hs.serverHello
	if err := hs.checkServerHelloCommon(sh); err != nil {
		return err
	}
	e := &sh.tls13
	if e.cookie != nil || e.selectedGroup != 0 {
		return errorf(alertIllegalParameter, "tlcp: the server's ServerHello carries HelloRetryRequest extensions")
	}
	k := hs.keyShareFor(CurveID(e.serverShare.group))
	if k == nil {
		return errorf(alertIllegalParameter, "tlcp: the server's key share is for group %v, for which the ClientHello had no share", CurveID(e.serverShare.group))
	}
	shared, err := k.sharedSecret(e.serverShare.data)
	if err != nil {
		return err
	}
	c.curveID = k.group
	early := ciphersuite.NewTLS13EarlySecret(nil)
	if e.selectedPSK {
		if hs.session == nil || e.selectedIdentity != 0 {
			return errorf(alertIllegalParameter, "tlcp: the server selected PSK %d, which was not offered", e.selectedIdentity)
		}
		hs.usingPSK = true
		early = hs.pskEarly
		c.didResume = true
		sign, _, list, err := hs.session.server.certificates()
		if err != nil {
			return errorf(alertInternalError, "tlcp: the cached session's server certificate no longer parses: %w", err)
		}
		c.peerCertificates = list
		c.peerSignCert, c.peerEncCert = sign, nil
		c.verifiedChains = hs.session.server.chains
	}
	c.cipherSuite = hs.suite.ID
	hs.hsSecret = early.HandshakeSecret(shared)
	return nil
}

// establishHandshakeKeys derives the handshake traffic secrets and
// switches the read side to the server's; the write side switches when
// the client's flight starts.
func (hs *clientHandshakeStateTLS13) establishHandshakeKeys() error {
	c := hs.c
	var err error
	hs.clientHS, hs.serverHS, err = c.config.handshakeTrafficSecrets(hs.hsSecret, hs.transcript.Sum(), hs.hello.random)
	if err != nil {
		return err
	}
	return c.setReadSecretTLS13(hs.suite, hs.serverHS)
}

func (hs *clientHandshakeStateTLS13) readServerParameters() error {
	c := hs.c
	msg, err := c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	ee, ok := msg.(*encryptedExtensionsMsg)
	if !ok {
		return unexpectedMessageError("EncryptedExtensions", msg)
	}
	switch {
	case ee.forbidden != 0:
		return errorf(alertIllegalParameter, "tlcp: the server sent extension %d in EncryptedExtensions, where it may not appear (RFC 8446 §4.3.1)", ee.forbidden)
	case ee.unexpected != 0:
		return errorf(alertUnsupportedExtension, "tlcp: the server sent extension %d in EncryptedExtensions, which was not offered", ee.unexpected)
	case ee.earlyData:
		return errorf(alertUnsupportedExtension, "tlcp: the server accepted early data, which was not offered")
	case ee.serverNameAck && hs.hello.serverName == "":
		return errorf(alertUnsupportedExtension, "tlcp: the server acknowledged a server_name that was not sent")
	case ee.alpnProtocol != "" && len(hs.hello.alpnProtocols) == 0:
		return errorf(alertUnsupportedExtension, "tlcp: the server selected ALPN protocol %q, but the client offered no ALPN", ee.alpnProtocol)
	}
	if ee.alpnProtocol != "" {
		if !slices.Contains(hs.hello.alpnProtocols, ee.alpnProtocol) {
			return errorf(alertIllegalParameter, "tlcp: the server selected ALPN protocol %q, which was not offered", ee.alpnProtocol)
		}
		c.clientProtocol = ee.alpnProtocol
	}
	return nil
}

// readServerCertificate reads CertificateRequest, Certificate and
// CertificateVerify of a full handshake.
func (hs *clientHandshakeStateTLS13) readServerCertificate() error {
	c, cfg := hs.c, hs.c.config
	if hs.usingPSK {
		return c.verifyConnection()
	}
	msg, err := c.readHandshake(hs.transcript)
	if err != nil {
		return err
	}
	if req, ok := msg.(*certificateRequestMsgTLS13); ok {
		switch {
		case len(req.context) != 0:
			return errorf(alertIllegalParameter, "tlcp: the server's CertificateRequest has a certificate_request_context, which only post-handshake requests have")
		case req.signatureAlgorithms == nil:
			return errorf(alertMissingExtension, "tlcp: the server's CertificateRequest has no signature_algorithms (RFC 8446 §4.3.2)")
		case req.forbidden != 0:
			return errorf(alertIllegalParameter, "tlcp: the server sent extension %d in CertificateRequest, where it may not appear", req.forbidden)
		}
		hs.certReq = req
		if msg, err = c.readHandshake(hs.transcript); err != nil {
			return err
		}
	}
	empty, err := c.readPeerCertificateTLS13(msg, hs.transcript, peerCertificateCheck{
		fromServer: true,
		roots:      cfg.RootCAs,
		host:       cfg.ServerName,
		eku:        smx509.ExtKeyUsageServerAuth,
		verify:     !cfg.InsecureSkipVerify,
	})
	if err != nil {
		return err
	}
	if empty {
		// RFC 8446 §4.4.2.4.
		return errorf(alertDecodeError, "tlcp: the server sent no certificate")
	}
	if err := c.checkOCSPStaple(); err != nil {
		return err
	}
	return c.verifyConnection()
}

// readServerFinished checks the server's Finished and moves the read side
// to the application traffic secret.
func (hs *clientHandshakeStateTLS13) readServerFinished() error {
	var err error
	hs.master, hs.clientAP, err = hs.c.serverFinishedTLS13(hs.transcript, hs.suite, hs.hsSecret, hs.serverHS, hs.hello.random)
	return err
}

// sendClientFlight sends [ChangeCipherSpec], the client's Certificate and
// CertificateVerify if asked, and Finished, in one write, then moves to
// the application traffic secret.
func (hs *clientHandshakeStateTLS13) sendClientFlight() error {
	c, cfg := hs.c, hs.c.config
	c.startFlight()
	if len(hs.hello.sessionID) > 0 && !cfg.TLS13NoMiddleboxCompat {
		if err := c.writeChangeCipherSpec(); err != nil {
			return err
		}
	}
	if err := c.setWriteSecretTLS13(hs.suite, hs.clientHS); err != nil {
		return err
	}
	if hs.certReq != nil {
		if err := hs.sendClientCertificate(); err != nil {
			return err
		}
	}
	if err := c.sendFinishedTLS13(hs.transcript, hs.clientHS); err != nil {
		return err
	}
	if err := c.finishFlight(); err != nil {
		return err
	}
	if err := c.setWriteSecretTLS13(hs.suite, hs.clientAP); err != nil {
		return err
	}

	c.tls13.suite = hs.suite
	if cfg.ClientSessionCache != nil {
		c.tls13.resumptionSecret = hs.master.ResumptionMasterSecret(hs.transcript.Sum())
		// The template of the sessions that NewSessionTicket messages
		// will carry.
		server := newSessionPeer(c.peerSignCert, nil, c.verifiedChains)
		if hs.usingPSK {
			server = hs.session.server
		}
		c.tls13.session = &ClientSessionState{cipherSuite: hs.suite.ID, server: server, vers: VersionTLS13, ticket: &clientTicket{}}
		c.tls13.cacheKey = clientSessionCacheKey(c)
		c.sessionMu.Lock()
		c.clientSessionKey = c.tls13.cacheKey
		c.sessionMu.Unlock()
	}
	return nil
}

// sendClientCertificate answers the server's CertificateRequest: the
// Sign half of the chosen pair, or an empty list if there is none or the
// server does not take sm2sig_sm3.
func (hs *clientHandshakeStateTLS13) sendClientCertificate() error {
	c, cfg := hs.c, hs.c.config
	req := hs.certReq
	var pair *CertificatePair
	if slices.Contains(req.signatureAlgorithms, signatureSM2SM3) {
		info := &CertificateRequestInfo{
			AcceptableCAs: req.certificateAuthorities,
			CipherSuite:   hs.suite.ID,
			Version:       VersionTLS13,
			ctx:           hs.ctx,
		}
		if cfg.GetClientCertificate != nil {
			p, err := cfg.GetClientCertificate(info)
			if err != nil {
				return errorf(alertInternalError, "tlcp: GetClientCertificate: %w", err)
			}
			pair = p
		} else {
			pair = chooseClientPair(cfg.Certificates, info)
		}
	}
	if pair != nil && len(pair.Sign.Certificate) == 0 {
		pair = nil
	}
	if pair != nil {
		if _, _, err := checkPair(pair, false); err != nil {
			return errorf(alertInternalError, "%w", err)
		}
	}
	var cert *Certificate
	if pair != nil {
		cert = &pair.Sign
	}
	return c.sendCertificateTLS13(hs.transcript, req.context, cert, nil)
}
