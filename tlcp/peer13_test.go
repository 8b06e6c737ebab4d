// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bufio"
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"golang.org/x/crypto/cryptobyte"
)

// A scripted TLS 1.3 peer, the TLS 1.3 counterpart of hostilePeer: it has
// a record layer of its own (RFC 8446 §5.2 record protection built from the
// suite's traffic keys, not the package's), drives the key schedule of
// package ciphersuite itself and marshals messages with the package's
// types. Tests use it to play a client or a server that does what a Conn
// never does: no key share, 0-RTT data, a wrong Finished, CertificateVerify
// or binder, a ServerHello that selects something else.

// protection13 protects one direction of the scripted peer's records.
type protection13 struct {
	aead cipher.AEAD
	iv   [12]byte
	seq  uint64
}

func newProtection13(suite *ciphersuite.TLS13Suite, secret []byte) *protection13 {
	key, iv := suite.TrafficKey(secret)
	b, err := sm4.NewCipher(key)
	if err != nil {
		panic(err)
	}
	p := &protection13{}
	copy(p.iv[:], iv)
	if suite.Cipher == ciphersuite.CipherSM4CCM {
		p.aead, err = sm4.NewCCM(b, 12, 16)
	} else {
		p.aead, err = cipher.NewGCM(b)
	}
	if err != nil {
		panic(err)
	}
	return p
}

func (p *protection13) nonce() []byte {
	n := p.iv
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], p.seq)
	for i := range s {
		n[4+i] ^= s[i]
	}
	p.seq++
	return n[:]
}

// seal returns a whole protected record carrying data of type typ.
func (p *protection13) seal(typ recordType, data []byte) []byte {
	inner := append(slices.Clone(data), byte(typ))
	n := len(inner) + p.aead.Overhead()
	hdr := []byte{byte(recordTypeApplicationData), 3, 3, byte(n >> 8), byte(n)}
	return p.aead.Seal(hdr, p.nonce(), inner, hdr)
}

// open removes the protection of a record.
func (p *protection13) open(hdr, body []byte) (recordType, []byte, error) {
	inner, err := p.aead.Open(nil, p.nonce(), body, hdr)
	if err != nil {
		return 0, nil, errors.New("peer13: record does not open")
	}
	i := len(inner) - 1
	for i >= 0 && inner[i] == 0 {
		i--
	}
	if i < 0 {
		return 0, nil, errors.New("peer13: record without a content type")
	}
	return recordType(inner[i]), inner[:i], nil
}

// peer13 is the record and message layer of a scripted TLS 1.3 peer.
type peer13 struct {
	conn       net.Conn
	r          *bufio.Reader
	in, out    *protection13 // nil while records are plaintext
	hand       []byte
	transcript *transcriptHash
	// recordVers is the version on plaintext records: 0x0301 for a
	// client's first hello, 0x0303 after.
	recordVers uint16
}

func newPeer13(c net.Conn) *peer13 {
	return &peer13{conn: c, transcript: newTranscript(false), recordVers: 0x0303}
}

// attach connects the peer to c.
func (p *peer13) attach(c net.Conn) { p.conn, p.r = c, bufio.NewReader(c) }

// writeRecord sends one record, protected if a write key is set.
func (p *peer13) writeRecord(typ recordType, data []byte) error {
	var rec []byte
	if p.out != nil && typ != recordTypeChangeCipherSpec {
		rec = p.out.seal(typ, data)
	} else {
		rec = append([]byte{byte(typ), byte(p.recordVers >> 8), byte(p.recordVers), byte(len(data) >> 8), byte(len(data))}, data...)
	}
	_, err := p.conn.Write(rec)
	return err
}

// writeHandshakeBytes sends framed handshake messages, adding them to the
// transcript, in records of at most 2^14 bytes.
func (p *peer13) writeHandshakeBytes(b []byte) error {
	p.transcript.Write(b)
	for len(b) > 0 {
		n := min(len(b), maxPlaintext)
		if err := p.writeRecord(recordTypeHandshake, b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// send marshals and sends m.
func (p *peer13) send(m handshakeMessage) error {
	b, err := m.marshal()
	if err != nil {
		return err
	}
	return p.writeHandshakeBytes(b)
}

// sendCCS sends the middlebox-compatibility ChangeCipherSpec.
func (p *peer13) sendCCS() error { return p.writeRecord(recordTypeChangeCipherSpec, []byte{1}) }

// readRecord returns the next record that is not a ChangeCipherSpec,
// without its protection. An alert is returned as an AlertError.
func (p *peer13) readRecord() (recordType, []byte, error) {
	for {
		hdr := make([]byte, recordHeaderLen)
		if _, err := io.ReadFull(p.r, hdr); err != nil {
			return 0, nil, err
		}
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if _, err := io.ReadFull(p.r, body); err != nil {
			return 0, nil, err
		}
		typ := recordType(hdr[0])
		if typ == recordTypeChangeCipherSpec {
			continue
		}
		if p.in != nil && typ == recordTypeApplicationData {
			var err error
			if typ, body, err = p.in.open(hdr, body); err != nil {
				return 0, nil, err
			}
		}
		if typ == recordTypeAlert {
			if len(body) == 2 {
				return 0, nil, AlertError(body[1])
			}
			return 0, nil, errors.New("peer13: malformed alert")
		}
		return typ, body, nil
	}
}

// readMessage returns the next handshake message, parsed as TLS 1.3's,
// and adds it to the transcript.
func (p *peer13) readMessage() (handshakeMessage, error) {
	for {
		if len(p.hand) >= 4 {
			n := 4 + (int(p.hand[1])<<16 | int(p.hand[2])<<8 | int(p.hand[3]))
			if len(p.hand) >= n {
				raw := p.hand[:n:n]
				p.hand = p.hand[n:]
				m, ok := parseHandshakeMessageTLS13(raw)
				if !ok {
					return nil, fmt.Errorf("peer13: cannot parse message type %d", raw[0])
				}
				p.transcript.Write(raw)
				return m, nil
			}
		}
		typ, body, err := p.readRecord()
		if err != nil {
			return nil, err
		}
		if typ != recordTypeHandshake {
			return nil, fmt.Errorf("peer13: unexpected record type %d", typ)
		}
		p.hand = append(p.hand, body...)
	}
}

// expect reads the next message, which must be a T.
func expect[T handshakeMessage](p *peer13) (T, error) {
	m, err := p.readMessage()
	t, ok := m.(T)
	if err == nil && !ok {
		err = fmt.Errorf("peer13: got %T, want %T", m, t)
	}
	return t, err
}

// readAlert reads until an alert arrives and returns it, or the error that
// ended the connection.
func (p *peer13) readAlert() error {
	for {
		if _, _, err := p.readRecord(); err != nil {
			return err
		}
	}
}

// ticket13 is a ticket a scripted client took from a server, with its PSK.
type ticket13 struct {
	label []byte
	psk   []byte
	suite uint16
}

// client13 is a scripted TLS 1.3 client. Its fields say how it misbehaves;
// run does a whole handshake, and the steps can be called one by one by a
// test that deviates further.
type client13 struct {
	*peer13
	suite        *ciphersuite.TLS13Suite
	noCompat     bool      // no session ID, no ChangeCipherSpec
	omitKeyShare bool      // the first ClientHello has no key share
	groups       []CurveID // supported_groups, a share for the first; nil: curveSM2
	ticket       *ticket13 // offered as a PSK
	corruptBind  bool
	earlyData    []byte // sent after the ClientHello under an early key
	cert         *Certificate
	corruptFin   bool
	corruptCV    bool
	cvScheme     uint16 // 0: sm2sig_sm3
	entryExt     uint16 // an extension for its CertificateEntry

	hello     *clientHelloMsg
	key       *clientKeyShare
	prefix    []byte // message_hash(ClientHello1) ‖ HelloRetryRequest
	sh        *serverHelloMsg
	usedPSK   bool
	hrr       bool // a HelloRetryRequest came
	certReq   *certificateRequestMsgTLS13
	hsSecret  *ciphersuite.TLS13HandshakeSecret
	clientHS  []byte
	serverHS  []byte
	master    *ciphersuite.TLS13MasterSecret
	clientAP  []byte
	serverAP  []byte
	resMaster []byte
}

func newClient13() *client13 {
	return &client13{peer13: newPeer13(nil), suite: ciphersuite.LookupTLS13(ciphersuite.TLS_SM4_GCM_SM3)}
}

// run does the whole handshake.
func (s *client13) run() error {
	for _, step := range []func() error{s.sendHello, s.readServerHello, s.readServerFlight, s.sendFlight} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// sendHello sends the first ClientHello and any early data.
func (s *client13) sendHello() error {
	h := &clientHelloMsg{
		vers:               0x0303,
		random:             make([]byte, 32),
		sessionID:          []byte{},
		cipherSuites:       []uint16{s.suite.ID},
		compressionMethods: []uint8{0},
		serverName:         "tlcp.test",
	}
	rand.Read(h.random)
	if !s.noCompat {
		h.sessionID = make([]byte, 32)
		rand.Read(h.sessionID)
	}
	e := &h.tls13
	e.supportedVersions = []uint16{VersionTLS13}
	if s.groups == nil {
		s.groups = []CurveID{CurveSM2}
	}
	for _, g := range s.groups {
		e.supportedGroups = append(e.supportedGroups, uint16(g))
	}
	e.signatureAlgorithms = []uint16{signatureSM2SM3}
	e.keyShareSeen = true
	e.pskModes = []uint8{pskModeDHE}
	if !s.omitKeyShare {
		if err := s.newShare(h, s.groups[0]); err != nil {
			return err
		}
	}
	if s.ticket != nil {
		e.pskIdentities = []pskIdentity{{label: s.ticket.label}}
	}
	e.earlyData = s.earlyData != nil
	s.hello = h
	s.setBinder()
	s.recordVers = 0x0301
	err := s.send(h)
	s.recordVers = 0x0303
	if err != nil || s.earlyData == nil {
		return err
	}
	return s.sendEarlyData()
}

func (s *client13) newShare(h *clientHelloMsg, group CurveID) error {
	k, ks, err := newClientKeyShare(rand.Reader, group, nil)
	if err != nil {
		return err
	}
	s.key = k
	h.tls13.keyShares = []keyShare{ks}
	return nil
}

// setBinder computes the PSK binder of the hello over prefix and the hello
// without its binders (RFC 8446 §4.2.11.2).
func (s *client13) setBinder() {
	h := s.hello
	h.original = nil
	if s.ticket == nil {
		return
	}
	h.tls13.pskBinders = nil
	b, _ := h.marshal()
	t := sm3.New()
	t.Write(s.prefix)
	t.Write(b[:len(b)-h.tls13.bindersSize()])
	binder := ciphersuite.TLS13FinishedVerifyData(ciphersuite.NewTLS13EarlySecret(s.ticket.psk).ResumptionBinderKey(), t.Sum(nil))
	if s.corruptBind {
		binder[0] ^= 1
	}
	h.tls13.pskBinders = [][]byte{binder}
	h.original = nil
}

// sendEarlyData sends 0-RTT application data under
// client_early_traffic_secret, Derive-Secret(Early Secret, "c e traffic",
// ClientHello), or, without a PSK, under a key the server cannot know.
func (s *client13) sendEarlyData() error {
	secret := make([]byte, 32)
	if s.ticket != nil {
		th := sm3.Sum(s.hello.original)
		early := ciphersuite.TLS13Extract(nil, s.ticket.psk)
		secret = ciphersuite.TLS13ExpandLabel(early, "c e traffic", th[:], 32)
	} else {
		rand.Read(secret)
	}
	s.out = newProtection13(s.suite, secret)
	defer func() { s.out = nil }()
	data := s.earlyData
	for len(data) > 0 {
		n := min(len(data), maxPlaintext)
		if err := s.writeRecord(recordTypeApplicationData, data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// readServerHello reads the ServerHello, answering a HelloRetryRequest
// first, and derives the handshake secrets.
func (s *client13) readServerHello() error {
	sh, err := expect[*serverHelloMsg](s.peer13)
	if err != nil {
		return err
	}
	if sh.isHelloRetryRequest() {
		s.hrr = true
		s.prefix = append(messageHash(s.hello.original), sh.original...)
		s.transcript = newTranscript(false)
		s.transcript.Write(s.prefix)
		h := s.hello
		h.tls13.cookie = sh.tls13.cookie
		h.tls13.earlyData = false
		if sh.tls13.selectedGroup != 0 {
			if err := s.newShare(h, CurveID(sh.tls13.selectedGroup)); err != nil {
				return err
			}
		}
		s.setBinder()
		if err := s.send(h); err != nil {
			return err
		}
		if sh, err = expect[*serverHelloMsg](s.peer13); err != nil {
			return err
		}
	}
	s.sh = sh
	if sh.tls13.supportedVersion != VersionTLS13 || s.key == nil || sh.tls13.serverShare.group != uint16(s.key.group) {
		return fmt.Errorf("peer13: ServerHello %+v", sh.tls13)
	}
	shared, err := s.key.sharedSecret(sh.tls13.serverShare.data)
	if err != nil {
		return err
	}
	early := ciphersuite.NewTLS13EarlySecret(nil)
	if sh.tls13.selectedPSK {
		s.usedPSK = true
		early = ciphersuite.NewTLS13EarlySecret(s.ticket.psk)
	}
	s.hsSecret = early.HandshakeSecret(shared)
	th := s.transcript.Sum()
	s.clientHS = s.hsSecret.ClientHandshakeTrafficSecret(th)
	s.serverHS = s.hsSecret.ServerHandshakeTrafficSecret(th)
	s.in = newProtection13(s.suite, s.serverHS)
	return nil
}

// readServerFlight reads EncryptedExtensions to Finished; the server's
// certificate is not checked, its Finished is.
func (s *client13) readServerFlight() error {
	if _, err := expect[*encryptedExtensionsMsg](s.peer13); err != nil {
		return err
	}
	if !s.usedPSK {
		m, err := s.readMessage()
		if err != nil {
			return err
		}
		if req, ok := m.(*certificateRequestMsgTLS13); ok {
			s.certReq = req
			if m, err = s.readMessage(); err != nil {
				return err
			}
		}
		if _, ok := m.(*certificateMsgTLS13); !ok {
			return fmt.Errorf("peer13: got %T, want Certificate", m)
		}
		if _, err := expect[*certificateVerifyMsgTLS13](s.peer13); err != nil {
			return err
		}
	}
	want := ciphersuite.TLS13FinishedVerifyData(s.serverHS, s.transcript.Sum())
	fin, err := expect[*finishedMsgTLS13](s.peer13)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(want, fin.verifyData) != 1 {
		return errors.New("peer13: the server's Finished is wrong")
	}
	s.master = s.hsSecret.MasterSecret()
	th := s.transcript.Sum()
	s.clientAP = s.master.ClientApplicationTrafficSecret(th)
	s.serverAP = s.master.ServerApplicationTrafficSecret(th)
	return nil
}

// sendFlight sends [ChangeCipherSpec], [Certificate, CertificateVerify]
// and Finished, then switches to the application secrets.
func (s *client13) sendFlight() error {
	if !s.noCompat {
		if err := s.sendCCS(); err != nil {
			return err
		}
	}
	s.out = newProtection13(s.suite, s.clientHS)
	if s.certReq != nil {
		msg := &certificateMsgTLS13{context: s.certReq.context}
		if s.cert != nil {
			msg.certificates = tls13Chain(s.cert)
		}
		if err := s.sendCertificateMsg(msg, s.entryExt); err != nil {
			return err
		}
		if s.cert != nil {
			sig, err := signTLS13(rand.Reader, s.cert.PrivateKey, certificateVerifyContext(false, s.transcript.Sum()), []byte(TLS13SM2ID))
			if err != nil {
				return err
			}
			if s.corruptCV {
				sig[len(sig)-1] ^= 1
			}
			scheme := signatureSM2SM3
			if s.cvScheme != 0 {
				scheme = s.cvScheme
			}
			if err := s.send(&certificateVerifyMsgTLS13{scheme: scheme, signature: sig}); err != nil {
				return err
			}
		}
	}
	verifyData := ciphersuite.TLS13FinishedVerifyData(s.clientHS, s.transcript.Sum())
	if s.corruptFin {
		verifyData[0] ^= 1
	}
	if err := s.send(&finishedMsgTLS13{verifyData: verifyData}); err != nil {
		return err
	}
	s.resMaster = s.master.ResumptionMasterSecret(s.transcript.Sum())
	s.out = newProtection13(s.suite, s.clientAP)
	s.in = newProtection13(s.suite, s.serverAP)
	return nil
}

// readApplicationData reads records after the handshake until application
// data arrives, keeping the ticket of a NewSessionTicket.
func (s *client13) readApplicationData() ([]byte, *ticket13, error) {
	var t *ticket13
	for {
		typ, body, err := s.readRecord()
		if err != nil {
			return nil, t, err
		}
		switch typ {
		case recordTypeApplicationData:
			return body, t, nil
		case recordTypeHandshake:
			var m newSessionTicketMsg
			if !m.unmarshal(body) {
				return nil, t, errors.New("peer13: not a NewSessionTicket")
			}
			t = &ticket13{label: m.ticket, psk: ciphersuite.TLS13ResumptionPSK(s.resMaster, m.nonce), suite: s.suite.ID}
		default:
			return nil, t, fmt.Errorf("peer13: record type %d after the handshake", typ)
		}
	}
}

// server13 is a scripted TLS 1.3 server with one certificate.
type server13 struct {
	*peer13
	pair *CertificatePair
	// ticketKeys, if set, is the Config whose keys open the client's
	// tickets: the scripted server then resumes, checking the binder.
	ticketKeys *Config

	rejectHello      alert                 // answer the ClientHello with this alert
	hrrCookie        []byte                // ask for a second ClientHello with this cookie
	editHRR          func(*serverHelloMsg) // edits the HelloRetryRequest (sent if set)
	secondHRR        bool                  // answer the second ClientHello with another HelloRetryRequest
	selectedVersion  uint16                // 0: TLS 1.3
	afterServerHello func(*serverHelloMsg) // edits the ServerHello before it is sent
	extraSH          uint16                // an empty extension to add to the ServerHello
	extraEE          uint16                // an extension to add to EncryptedExtensions
	extraEEBody      []byte
	certRequest      []byte // a CertificateRequest to send as it is
	corruptFin       bool
	corruptCV        bool
	cvScheme         uint16
	entryExt         uint16  // an extension for its CertificateEntry
	group            CurveID // the group it takes the client's share of; 0: curveSM2

	hello    *clientHelloMsg
	suite    *ciphersuite.TLS13Suite
	prefix   []byte
	psk      []byte
	clientHS []byte
}

func newServer13(pair *CertificatePair) *server13 {
	return &server13{peer13: newPeer13(nil), pair: pair}
}

// run answers one ClientHello and reads the client's Finished.
func (s *server13) run() error {
	ch, err := expect[*clientHelloMsg](s.peer13)
	if err != nil {
		return err
	}
	if s.rejectHello != 0 {
		s.writeRecord(recordTypeAlert, []byte{alertLevelError, byte(s.rejectHello)})
		return AlertError(s.rejectHello)
	}
	for _, id := range ch.cipherSuites {
		if s.suite = ciphersuite.LookupTLS13(id); s.suite != nil {
			break
		}
	}
	if s.suite == nil {
		return errors.New("peer13: no TLS 1.3 suite offered")
	}
	if s.hrrCookie != nil || s.editHRR != nil {
		hrr := &serverHelloMsg{vers: 0x0303, random: helloRetryRequestRandom, sessionID: ch.sessionID, cipherSuite: s.suite.ID,
			tls13: serverHelloTLS13{supportedVersion: VersionTLS13, cookie: s.hrrCookie}}
		if s.editHRR != nil {
			s.editHRR(hrr)
		}
		b, err := hrr.marshal()
		if err != nil {
			return err
		}
		s.prefix = append(messageHash(ch.original), b...)
		s.transcript = newTranscript(false)
		s.transcript.Write(s.prefix[:len(s.prefix)-len(b)])
		if err := s.send(hrr); err != nil {
			return err
		}
		if ch, err = expect[*clientHelloMsg](s.peer13); err != nil {
			return err
		}
		if string(ch.tls13.cookie) != string(s.hrrCookie) {
			return errors.New("peer13: the second ClientHello lacks the cookie")
		}
		if s.secondHRR {
			hrr.original = nil
			if err := s.send(hrr); err != nil {
				return err
			}
			return s.readAlert()
		}
	}
	s.hello = ch
	if err := s.checkPSK(); err != nil {
		return err
	}
	if s.group == 0 {
		s.group = CurveSM2
	}
	var share []byte
	for _, ks := range ch.tls13.keyShares {
		if ks.group == uint16(s.group) {
			share = ks.data
		}
	}
	ks, shared, err := serverKeyShare(rand.Reader, s.group, share)
	if err != nil {
		return err
	}
	sh := &serverHelloMsg{vers: 0x0303, random: make([]byte, 32), sessionID: ch.sessionID, cipherSuite: s.suite.ID,
		tls13: serverHelloTLS13{supportedVersion: VersionTLS13, serverShare: ks, selectedPSK: s.psk != nil}}
	rand.Read(sh.random)
	if s.selectedVersion != 0 {
		sh.tls13.supportedVersion = s.selectedVersion
	}
	if s.afterServerHello != nil {
		s.afterServerHello(sh)
	}
	b, err := sh.marshal()
	if err != nil {
		return err
	}
	if s.extraSH != 0 {
		b = appendExtension(b, 4+2+32+1+len(sh.sessionID)+2+1, s.extraSH, nil)
	}
	if err := s.writeHandshakeBytes(b); err != nil {
		return err
	}
	if len(ch.sessionID) > 0 {
		if err := s.sendCCS(); err != nil {
			return err
		}
	}
	hsSecret := ciphersuite.NewTLS13EarlySecret(s.psk).HandshakeSecret(shared)
	th := s.transcript.Sum()
	s.clientHS = hsSecret.ClientHandshakeTrafficSecret(th)
	serverHS := hsSecret.ServerHandshakeTrafficSecret(th)
	s.out = newProtection13(s.suite, serverHS)
	s.in = newProtection13(s.suite, s.clientHS)
	if err := s.writeHandshakeBytes(s.encryptedExtensions(ch.serverName != "" && s.psk == nil)); err != nil {
		return err
	}
	if s.certRequest != nil {
		if err := s.writeHandshakeBytes(s.certRequest); err != nil {
			return err
		}
	}
	if s.psk == nil {
		if err := s.sendCertificate(); err != nil {
			return err
		}
	}
	verifyData := ciphersuite.TLS13FinishedVerifyData(serverHS, s.transcript.Sum())
	if s.corruptFin {
		verifyData[0] ^= 1
	}
	if err := s.send(&finishedMsgTLS13{verifyData: verifyData}); err != nil {
		return err
	}
	master := hsSecret.MasterSecret()
	th = s.transcript.Sum()
	s.out = newProtection13(s.suite, master.ServerApplicationTrafficSecret(th))
	want := ciphersuite.TLS13FinishedVerifyData(s.clientHS, s.transcript.Sum())
	fin, err := expect[*finishedMsgTLS13](s.peer13)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(want, fin.verifyData) != 1 {
		return errors.New("peer13: the client's Finished is wrong")
	}
	s.in = newProtection13(s.suite, master.ClientApplicationTrafficSecret(th))
	return nil
}

// checkPSK accepts the client's first PSK if ticketKeys opens it and its
// binder is right.
func (s *server13) checkPSK() error {
	e := &s.hello.tls13
	if s.ticketKeys == nil || len(e.pskIdentities) == 0 {
		return nil
	}
	var st serverTicketState
	plain := openTicket(s.ticketKeys, e.pskIdentities[0].label)
	if plain == nil || !st.unmarshal(plain) {
		return errors.New("peer13: the client's ticket does not open")
	}
	t := sm3.New()
	t.Write(s.prefix)
	t.Write(s.hello.original[:len(s.hello.original)-e.bindersLen])
	want := ciphersuite.TLS13FinishedVerifyData(ciphersuite.NewTLS13EarlySecret(st.psk).ResumptionBinderKey(), t.Sum(nil))
	if subtle.ConstantTimeCompare(want, e.pskBinders[0]) != 1 {
		return errors.New("peer13: the client's binder is wrong")
	}
	s.psk = st.psk
	return nil
}

// encryptedExtensions marshals EncryptedExtensions by hand, so that it can
// hold what the package's type would not send.
func (s *server13) encryptedExtensions(serverNameAck bool) []byte {
	var b cryptobyte.Builder
	b.AddUint8(typeEncryptedExtensions)
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			if serverNameAck {
				b.AddUint16(extensionServerName)
				b.AddUint16(0)
			}
			if s.extraEE != 0 {
				b.AddUint16(s.extraEE)
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(s.extraEEBody) })
			}
		})
	})
	return b.BytesOrPanic()
}

// sendCertificate sends Certificate and CertificateVerify.
func (s *server13) sendCertificate() error {
	if err := s.sendCertificateMsg(&certificateMsgTLS13{certificates: tls13Chain(&s.pair.Sign)}, s.entryExt); err != nil {
		return err
	}
	sig, err := signTLS13(rand.Reader, s.pair.Sign.PrivateKey, certificateVerifyContext(true, s.transcript.Sum()), []byte(TLS13SM2ID))
	if err != nil {
		return err
	}
	if s.corruptCV {
		sig[len(sig)-1] ^= 1
	}
	scheme := signatureSM2SM3
	if s.cvScheme != 0 {
		scheme = s.cvScheme
	}
	return s.send(&certificateVerifyMsgTLS13{scheme: scheme, signature: sig})
}

// againstServer runs a scripted client against a Server with scfg. serr is
// the server's handshake error; cerr the script's, or the alert it read
// after its flight if the server failed.
func (s *client13) againstServer(t testing.TB, scfg *Config) (server *Conn, cerr, serr error) {
	t.Helper()
	server, serr, cerr = scripted(t, s.peer13, func(c net.Conn) *Conn { return Server(c, scfg) }, s.run)
	if cerr == nil && serr != nil {
		cerr = s.readAlert()
	}
	return server, cerr, serr
}

// againstClient runs a Client with ccfg against a scripted server. serr is
// the script's error, which is the client's alert if the client failed.
func (s *server13) againstClient(t testing.TB, ccfg *Config) (client *Conn, cerr, serr error) {
	t.Helper()
	return scripted(t, s.peer13, func(c net.Conn) *Conn { return Client(c, ccfg) }, s.run)
}

// scripted connects p and a Conn that newConn makes over TCP, and runs the
// Conn's handshake against script.
func scripted(t testing.TB, p *peer13, newConn func(net.Conn) *Conn, script func() error) (conn *Conn, connErr, scriptErr error) {
	t.Helper()
	c, sc := tcpPair(t)
	p.attach(sc)
	conn = newConn(c)
	done := make(chan error, 1)
	go func() { done <- conn.Handshake() }()
	if scriptErr = script(); scriptErr != nil {
		// The Conn may wait for a flight that will not come.
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
	}
	return conn, <-done, scriptErr
}

// takeTicket makes server write, and returns the ticket that precedes its
// first application data.
func (s *client13) takeTicket(t testing.TB, server *Conn) *ticket13 {
	t.Helper()
	go server.Write([]byte("x"))
	_, ticket, err := s.readApplicationData()
	if err != nil || ticket == nil {
		t.Fatalf("no ticket: %v", err)
	}
	return ticket
}

// ticketFrom returns a ticket that a server with scfg issued to a scripted
// client.
func ticketFrom(t testing.TB, scfg *Config) *ticket13 {
	t.Helper()
	s := newClient13()
	server, cerr, serr := s.againstServer(t, scfg)
	if cerr != nil || serr != nil {
		t.Fatalf("client %v, server %v", cerr, serr)
	}
	return s.takeTicket(t, server)
}

// appendExtension adds extension typ with body to the end of the
// extension block of msg, a marshalled handshake message whose extension
// block starts at off and runs to its end, and fixes the lengths.
func appendExtension(msg []byte, off int, typ uint16, body []byte) []byte {
	ext := append([]byte{byte(typ >> 8), byte(typ), byte(len(body) >> 8), byte(len(body))}, body...)
	if len(msg) == off {
		msg = append(msg, 0, 0) // no extension block yet
	}
	out := append(slices.Clone(msg), ext...)
	n := int(out[off])<<8 | int(out[off+1]) + len(ext)
	out[off], out[off+1] = byte(n>>8), byte(n)
	m := len(out) - 4
	out[1], out[2], out[3] = byte(m>>16), byte(m>>8), byte(m)
	return out
}

// helloExtensionsOffset is where the extension block of a marshalled
// ClientHello starts.
func helloExtensionsOffset(b []byte) int {
	off := 4 + 2 + 32
	off += 1 + int(b[off])
	off += 2 + (int(b[off])<<8 | int(b[off+1]))
	return off + 1 + int(b[off])
}

// sendCertificateMsg sends m, with an empty extension of type ext in its
// first entry unless ext is 0.
func (p *peer13) sendCertificateMsg(m *certificateMsgTLS13, ext uint16) error {
	if ext == 0 || len(m.certificates) == 0 {
		return p.send(m)
	}
	var b cryptobyte.Builder
	b.AddUint8(typeCertificate)
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.context) })
		b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
			for i, c := range m.certificates {
				b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(c) })
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
					if i == 0 {
						b.AddUint16(ext)
						b.AddUint16(0)
					}
				})
			}
		})
	})
	return p.writeHandshakeBytes(b.BytesOrPanic())
}
