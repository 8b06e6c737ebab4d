// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"crypto/subtle"
	"io"
	"slices"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
)

// The server side of a TLS 1.3 handshake with the RFC 8998 suites
// (TLS13.md §2). The server answers in one flight, ServerHello,
// [ChangeCipherSpec], EncryptedExtensions, [CertificateRequest],
// Certificate, CertificateVerify and Finished, in one write. Its
// NewSessionTicket goes out with the first application data it writes
// (TLS13.md §6).

// serverHandshakeStateTLS13 is one TLS 1.3 handshake of a server.
type serverHandshakeStateTLS13 struct {
	c           *Conn
	ctx         context.Context
	clientHello *clientHelloMsg
	hello       *serverHelloMsg
	suite       *ciphersuite.TLS13Suite
	pair        *CertificatePair
	transcript  *transcriptHash
	// hrrPrefix is message_hash(ClientHello1) ‖ HelloRetryRequest after
	// a retry: the start of the transcript that binders cover.
	hrrPrefix []byte

	group       CurveID // the key exchange group chosen
	clientShare []byte  // the client's share of group, nil until it sends one
	usingPSK    bool
	early       *ciphersuite.TLS13EarlySecret
	hsSecret    *ciphersuite.TLS13HandshakeSecret
	master      *ciphersuite.TLS13MasterSecret
	clientHS    []byte
	serverHS    []byte
	clientAP    []byte

	requestClientCert bool
	// info describes the ClientHello; orig is the Config that
	// GetConfigForClient replaced, whose session cache keys seal the
	// tickets unless the new Config sets its own.
	info *ClientHelloInfo
	orig *Config
}

// maxPSKIdentities bounds the tickets of one ClientHello that are tried.
const maxPSKIdentities = 5

func (c *Conn) serverHandshakeTLS13(ctx context.Context, ch *clientHelloMsg, info *ClientHelloInfo, orig *Config) (err error) {
	c.vers = VersionTLS13
	hs := &serverHandshakeStateTLS13{c: c, ctx: ctx, clientHello: ch, transcript: newTranscript(false), info: info, orig: orig}
	if err := runSteps(hs.processClientHello, hs.checkForResumption, hs.pickCertificate); err != nil {
		return err
	}
	// The server's flight (ServerHello to Finished) goes out in one write.
	c.startFlight()
	if err := runSteps(
		hs.sendServerParameters,
		hs.sendServerCertificate,
		hs.sendServerFinished,
		c.finishFlight,
		hs.readClientCertificate,
		hs.readClientFinished,
	); err != nil {
		return err
	}
	c.isHandshakeComplete.Store(true)
	return nil
}

// processClientHello checks the ClientHello, picks the suite and the
// group and finds the client's share of it, asking for one with a
// HelloRetryRequest if it is missing.
func (hs *serverHandshakeStateTLS13) processClientHello() error {
	c, cfg := hs.c, hs.c.config
	ch := hs.clientHello
	if len(ch.compressionMethods) != 1 || ch.compressionMethods[0] != 0 {
		return errorf(alertIllegalParameter, "tlcp: a TLS 1.3 ClientHello must offer only the null compression method")
	}
	c.serverName = ch.serverName
	for _, id := range cfg.tls13CipherSuites() {
		if slices.Contains(ch.cipherSuites, id) {
			hs.suite = ciphersuite.LookupTLS13(id)
			break
		}
	}
	if hs.suite == nil {
		return errorf(alertHandshakeFailure, "tlcp: no TLS 1.3 cipher suite in common with the client (this server has %s)", suiteNames(cfg.tls13CipherSuites()))
	}
	c.cipherSuite = hs.suite.ID
	if ch.tls13.earlyData {
		// 0-RTT is refused: the early_data extension is not answered, and
		// the records the client sent under its early key are skipped.
		c.tls13.earlyDataBudget = maxEarlyDataSkipped
	}
	if err := hs.findKeyShare(); err != nil {
		return err
	}
	if hs.clientShare == nil {
		if err := hs.sendHelloRetryRequest(); err != nil {
			return err
		}
	}
	hs.transcript.Write(hs.clientHello.original)
	if alpn := negotiateALPN(cfg.NextProtos, hs.clientHello.alpnProtocols); alpn != "" {
		c.clientProtocol = alpn
	}
	return nil
}

// findKeyShare picks the group, the first of the server's that the client
// lists, and finds the client's share of it. A server that takes a group
// the client has no share of, rather than one it has, pays a
// HelloRetryRequest for its preference: so a client that lists the hybrid
// gets it, as with Tongsuo's default groups. A client with no group in
// common is handshake_failure.
func (hs *serverHandshakeStateTLS13) findKeyShare() error {
	e := &hs.clientHello.tls13
	if e.supportedGroups == nil {
		return errorf(alertMissingExtension, "tlcp: the client's TLS 1.3 ClientHello has no supported_groups")
	}
	if !e.keyShareSeen {
		return errorf(alertMissingExtension, "tlcp: the client's TLS 1.3 ClientHello has no key_share")
	}
	for _, ks := range e.keyShares {
		// RFC 8446 §4.2.8: every share is of a group the client lists.
		if !slices.Contains(e.supportedGroups, ks.group) {
			return errorf(alertIllegalParameter, "tlcp: the client sent a key share for group %v, which its supported_groups does not list", CurveID(ks.group))
		}
	}
	groups := hs.c.config.curvePreferences()
	hs.group = 0
	for _, g := range groups {
		if slices.Contains(e.supportedGroups, uint16(g)) {
			hs.group = g
			break
		}
	}
	if hs.group == 0 {
		return errorf(alertHandshakeFailure, "tlcp: no key exchange group in common with the client (it offers %v, this server has %v)", e.supportedGroups, groups)
	}
	for _, ks := range e.keyShares {
		if ks.group == uint16(hs.group) {
			hs.clientShare = ks.data
		}
	}
	return nil
}

// sendHelloRetryRequest asks for a share of the chosen group and reads the second
// ClientHello (RFC 8446 §4.1.4).
func (hs *serverHandshakeStateTLS13) sendHelloRetryRequest() error {
	c := hs.c
	ch1 := hs.clientHello
	hrr := &serverHelloMsg{
		vers:              0x0303,
		random:            helloRetryRequestRandom,
		sessionID:         ch1.sessionID,
		cipherSuite:       hs.suite.ID,
		compressionMethod: 0,
		tls13:             serverHelloTLS13{supportedVersion: VersionTLS13, selectedGroup: uint16(hs.group)},
	}
	hrrBytes, err := hrr.marshal()
	if err != nil {
		return errorf(alertInternalError, "tlcp: %w", err)
	}
	hs.hrrPrefix = append(messageHash(ch1.original), hrrBytes...)
	hs.transcript = newTranscript(false)
	hs.transcript.Write(hs.hrrPrefix[:len(hs.hrrPrefix)-len(hrrBytes)])
	if err := c.writeHandshake(hrr, hs.transcript); err != nil {
		return err
	}

	ch2, err := c.readClientHello("a second ClientHello")
	if err != nil {
		return err
	}
	switch {
	case !ch2.tls13.offersTLS13():
		return errorf(alertIllegalParameter, "tlcp: the client's second ClientHello does not offer TLS 1.3")
	case !slices.Contains(ch2.cipherSuites, hs.suite.ID):
		return errorf(alertIllegalParameter, "tlcp: the client's second ClientHello drops the cipher suite of the HelloRetryRequest")
	case ch2.tls13.earlyData:
		return errorf(alertIllegalParameter, "tlcp: the client's second ClientHello offers early data (RFC 8446 §4.2.10)")
	case ch2.tls13.cookie != nil:
		return errorf(alertIllegalParameter, "tlcp: the client's second ClientHello has a cookie that was not sent")
	case string(ch2.sessionID) != string(ch1.sessionID) || !slices.Equal(ch2.compressionMethods, ch1.compressionMethods):
		return errorf(alertIllegalParameter, "tlcp: the client's second ClientHello changes its session ID or compression methods")
	}
	hs.clientHello = ch2
	hs.clientShare = nil
	want := hs.group
	if err := hs.findKeyShare(); err != nil {
		return err
	}
	// RFC 8446 §4.1.2: the second hello holds one share, of the group
	// the HelloRetryRequest named.
	if ks := ch2.tls13.keyShares; hs.group != want || len(ks) != 1 || ks[0].group != uint16(want) {
		return errorf(alertIllegalParameter, "tlcp: the client's second ClientHello does not hold exactly one key share, of the group %v that the HelloRetryRequest asked for", want)
	}
	if c.tls13.earlyDataBudget > 0 {
		// After a retry, early data is whatever application data comes
		// before the client's flight (RFC 8446 §4.2.10).
		c.tls13.earlyDataBudget = maxEarlyDataSkipped
	}
	return nil
}

// checkForResumption accepts the first offered ticket that opens, is
// fresh, suits the current policy and has a valid binder.
func (hs *serverHandshakeStateTLS13) checkForResumption() error {
	c, cfg := hs.c, hs.c.config
	ch := hs.clientHello
	e := &ch.tls13
	if len(e.pskIdentities) == 0 {
		return nil
	}
	if e.pskModes == nil {
		return errorf(alertMissingExtension, "tlcp: the client offered a PSK without psk_key_exchange_modes")
	}
	if cfg.SessionTicketsDisabled || cfg.SessionCacheSize < 0 || !slices.Contains(e.pskModes, pskModeDHE) {
		return nil
	}
	for i, id := range e.pskIdentities {
		if i >= maxPSKIdentities {
			break
		}
		plain := openTicket(cfg.sessionKeysOwner(hs.orig), id.label)
		if plain == nil {
			continue
		}
		var s serverTicketState
		if !s.unmarshal(plain) {
			continue
		}
		now := cfg.time()
		if age := now.Sub(s.created); age < 0 || age >= cfg.lifetime() || age.Seconds() >= maxTicketLifetime {
			continue
		}
		// Both RFC 8998 suites hash with SM3, so a ticket of either suite
		// resumes under the one chosen now, if it is still enabled.
		if !slices.Contains(cfg.tls13CipherSuites(), s.suite) || s.serverName != ch.serverName {
			continue
		}
		early := ciphersuite.NewTLS13EarlySecret(s.psk)
		t := sm3.New()
		t.Write(hs.hrrPrefix)
		t.Write(ch.original[:len(ch.original)-e.bindersLen])
		want := ciphersuite.TLS13FinishedVerifyData(early.ResumptionBinderKey(), t.Sum(nil))
		if subtle.ConstantTimeCompare(want, e.pskBinders[i]) != 1 {
			return errorf(alertDecryptError, "tlcp: the client's PSK binder is invalid")
		}
		if !hs.clientCertsFromTicket(&s) {
			continue
		}
		hs.usingPSK = true
		hs.early = early
		hs.hello = &serverHelloMsg{tls13: serverHelloTLS13{selectedPSK: true, selectedIdentity: uint16(i)}}
		c.didResume = true
		return nil
	}
	return nil
}

// pickCertificate chooses the certificate of a full handshake and checks
// that the client can verify sm2sig_sm3 signatures.
func (hs *serverHandshakeStateTLS13) pickCertificate() error {
	cfg := hs.c.config
	if hs.usingPSK {
		return nil
	}
	ch := hs.clientHello
	if ch.tls13.signatureAlgorithms == nil {
		return errorf(alertMissingExtension, "tlcp: the client's TLS 1.3 ClientHello has no signature_algorithms")
	}
	if !slices.Contains(ch.tls13.signatureAlgorithms, signatureSM2SM3) {
		return errorf(alertHandshakeFailure, "tlcp: the client does not accept sm2sig_sm3 (0x0708) signatures, the only ones an SM2 certificate makes")
	}
	// After a HelloRetryRequest, ch is the second ClientHello.
	hs.info.CipherSuites, hs.info.SupportedProtos = ch.cipherSuites, ch.alpnProtocols
	var err error
	if hs.pair, err = cfg.serverPair(hs.info); err != nil {
		return err
	}
	if _, _, err := checkPair(hs.pair, false); err != nil {
		return errorf(alertInternalError, "%w", err)
	}
	return nil
}

// sendServerParameters sends ServerHello, the compatibility
// ChangeCipherSpec and EncryptedExtensions, switching to the handshake
// keys in between.
func (hs *serverHandshakeStateTLS13) sendServerParameters() error {
	c, cfg := hs.c, hs.c.config
	ch := hs.clientHello
	ks, shared, err := serverKeyShare(cfg.rand(), hs.group, hs.clientShare)
	if err != nil {
		return err
	}
	c.curveID = hs.group
	if hs.hello == nil {
		hs.hello = new(serverHelloMsg)
	}
	h := hs.hello
	h.vers = 0x0303
	h.random = make([]byte, 32)
	if _, err := io.ReadFull(cfg.rand(), h.random); err != nil {
		return errorf(alertInternalError, "tlcp: short read from Rand: %w", err)
	}
	h.sessionID = ch.sessionID
	h.cipherSuite = hs.suite.ID
	h.tls13.supportedVersion = VersionTLS13
	h.tls13.serverShare = ks
	if err := c.writeHandshake(h, hs.transcript); err != nil {
		return err
	}
	if len(ch.sessionID) > 0 && !cfg.TLS13NoMiddleboxCompat {
		if err := c.writeChangeCipherSpec(); err != nil {
			return err
		}
	}

	if hs.early == nil {
		hs.early = ciphersuite.NewTLS13EarlySecret(nil)
	}
	hs.hsSecret = hs.early.HandshakeSecret(shared)
	hs.clientHS, hs.serverHS, err = cfg.handshakeTrafficSecrets(hs.hsSecret, hs.transcript.Sum(), ch.random)
	if err != nil {
		return err
	}
	if err := c.setWriteSecretTLS13(hs.suite, hs.serverHS); err != nil {
		return err
	}
	if err := c.setReadSecretTLS13(hs.suite, hs.clientHS); err != nil {
		return err
	}

	ee := &encryptedExtensionsMsg{alpnProtocol: c.clientProtocol, serverNameAck: ch.serverName != "" && !hs.usingPSK}
	return c.writeHandshake(ee, hs.transcript)
}

// sendServerCertificate sends CertificateRequest, Certificate and
// CertificateVerify in a full handshake.
func (hs *serverHandshakeStateTLS13) sendServerCertificate() error {
	c, cfg := hs.c, hs.c.config
	if hs.usingPSK {
		return nil
	}
	hs.requestClientCert = cfg.ClientAuth >= RequestClientCert
	if hs.requestClientCert {
		req := &certificateRequestMsgTLS13{signatureAlgorithms: []uint16{signatureSM2SM3}}
		if cfg.ClientCAs != nil {
			req.certificateAuthorities = cfg.ClientCAs.Subjects()
		}
		if err := c.writeHandshake(req, hs.transcript); err != nil {
			return err
		}
	}
	var staple []byte
	if hs.clientHello.ocspStapling {
		staple = hs.pair.Sign.OCSPStaple
	}
	return c.sendCertificateTLS13(hs.transcript, nil, &hs.pair.Sign, staple)
}

// sendServerFinished sends Finished and moves the write side to the
// application secret; the ticket waits for the client's Finished
// (prepareTicket).
func (hs *serverHandshakeStateTLS13) sendServerFinished() error {
	var err error
	hs.master, hs.clientAP, err = hs.c.serverFinishedTLS13(hs.transcript, hs.suite, hs.hsSecret, hs.serverHS, hs.clientHello.random)
	return err
}

// prepareTicket makes the connection's one NewSessionTicket (GmSSL's
// client cannot resume with two, TLS13.md §7), which Write sends before
// the first application data: sent within the handshake, a ticket that
// the client does not read would hold up a server on an unbuffered
// transport such as net.Pipe. A ticket that cannot be made is not sent.
func (hs *serverHandshakeStateTLS13) prepareTicket(resumptionSecret []byte) {
	m, err := hs.newTicket(resumptionSecret)
	if err != nil || m == nil {
		return
	}
	if b, err := m.marshal(); err == nil {
		hs.c.tls13.pendingTicket = b
	}
}

// readClientCertificate reads the client's Certificate and
// CertificateVerify if a certificate was requested, and applies the
// ClientAuth policy.
func (hs *serverHandshakeStateTLS13) readClientCertificate() error {
	c, cfg := hs.c, hs.c.config
	if hs.requestClientCert {
		msg, err := c.readHandshake(hs.transcript)
		if err != nil {
			return err
		}
		empty, err := c.readPeerCertificateTLS13(msg, hs.transcript, peerCertificateCheck{
			roots:  cfg.ClientCAs,
			eku:    smx509.ExtKeyUsageClientAuth,
			verify: cfg.ClientAuth >= VerifyClientCertIfGiven,
		})
		if err != nil {
			return err
		}
		if empty && (cfg.ClientAuth == RequireAnyClientCert || cfg.ClientAuth == RequireAndVerifyClientCert) {
			return errorf(alertCertificateRequired, "tlcp: the client sent no certificate, and one is required")
		}
	}
	// Called whether or not there were client certificates, and on
	// resumption, as in crypto/tls.
	return c.verifyConnection()
}

// readClientFinished checks the client's Finished and moves the read side
// to the application secret.
func (hs *serverHandshakeStateTLS13) readClientFinished() error {
	c := hs.c
	if err := c.readFinishedTLS13(hs.transcript, hs.clientHS); err != nil {
		return err
	}
	if err := c.setReadSecretTLS13(hs.suite, hs.clientAP); err != nil {
		return err
	}
	if c.config.ticketsEnabled(hs.clientHello) {
		hs.prepareTicket(hs.master.ResumptionMasterSecret(hs.transcript.Sum()))
	}
	c.tls13.suite = hs.suite
	return nil
}
