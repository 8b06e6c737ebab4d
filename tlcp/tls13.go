// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// TLS13SM2ID is the SM2 distinguishing identifier that RFC 8998 §3.3 fixes
// for TLS 1.3 CertificateVerify signatures, and that Tongsuo and GmSSL use
// (TLS13.md §3). Certificates themselves keep the default ID.
const TLS13SM2ID = "TLSv1.3+GM+Cipher+Suite"

// downgradeSentinelTLCP ends the random of a TLCP ServerHello from a server
// that could have spoken TLS 1.3: RFC 8446 §4.1.3's value for versions
// below TLS 1.2, which is where Tongsuo's version logic ranks TLCP
// (TLS13.md §5). A client that offered TLS 1.3 and is answered in TLCP with
// either RFC 8446 sentinel aborts.
var (
	downgradeSentinelTLCP  = []byte("DOWNGRD\x00")
	downgradeSentinelTLS12 = []byte("DOWNGRD\x01")
)

// certificateVerifyContext is what a TLS 1.3 CertificateVerify signs
// (RFC 8446 §4.4.3): 64 spaces, the context string, a zero byte, the
// transcript hash.
func certificateVerifyContext(server bool, transcriptHash []byte) []byte {
	label := "TLS 1.3, client CertificateVerify"
	if server {
		label = "TLS 1.3, server CertificateVerify"
	}
	out := make([]byte, 0, 64+len(label)+1+len(transcriptHash))
	out = append(out, bytes.Repeat([]byte{0x20}, 64)...)
	out = append(out, label...)
	out = append(out, 0)
	return append(out, transcriptHash...)
}

// tls13SignID is the SM2 ID this side signs CertificateVerify with.
func (c *Config) tls13SignID() []byte {
	if c.TLS13DefaultSM2ID {
		return []byte(sm2.DefaultUID)
	}
	return []byte(TLS13SM2ID)
}

// signTLS13 signs a TLS 1.3 CertificateVerify with the SM2 ID uid.
func signTLS13(rand io.Reader, key crypto.PrivateKey, msg, uid []byte) ([]byte, error) {
	if k, ok := key.(*sm2.PrivateKey); ok {
		return sm2.SignASN1(rand, k, msg, uid)
	}
	s, ok := signerOf(key)
	if !ok {
		return nil, errors.New("tlcp: signing key is not an SM2 crypto.Signer")
	}
	return s.Sign(rand, msg, &sm2.SignerOpts{UID: uid})
}

// verifyTLS13 checks a peer's CertificateVerify signature: with RFC 8998's
// ID, and with TLS13DefaultSM2ID set also with the default ID (TLS13.md §3).
func (c *Config) verifyTLS13(cert *smx509.Certificate, msg, sig []byte) bool {
	pub, ok := cert.PublicKey.(*sm2.PublicKey)
	if !ok {
		return false
	}
	if sm2.VerifyASN1(pub, msg, []byte(TLS13SM2ID), sig) {
		return true
	}
	return c.TLS13DefaultSM2ID && sm2.VerifyASN1(pub, msg, nil, sig)
}

// messageHash replaces the first ClientHello in the transcript after a
// HelloRetryRequest (RFC 8446 §4.4.1): type 254, length 32, its SM3 hash.
func messageHash(clientHello []byte) []byte {
	t := newTranscript(false)
	t.Write(clientHello)
	return append([]byte{typeMessageHash, 0, 0, 32}, t.Sum()...)
}

// writeKeyLogTLS13 writes one NSS key log line for a TLS 1.3 secret.
func (c *Config) writeKeyLogTLS13(label string, clientRandom, secret []byte) error {
	if c.KeyLogWriter == nil {
		return nil
	}
	line := fmt.Sprintf("%s %x %x\n", label, clientRandom, secret)
	writerMutex.Lock()
	_, err := c.KeyLogWriter.Write([]byte(line))
	writerMutex.Unlock()
	return err
}

// handshakeTrafficSecrets derives both handshake traffic secrets for the
// transcript hash th (ClientHello…ServerHello) and writes them to the key
// log.
func (c *Config) handshakeTrafficSecrets(hsSecret *ciphersuite.TLS13HandshakeSecret, th, clientRandom []byte) (clientHS, serverHS []byte, err error) {
	clientHS = hsSecret.ClientHandshakeTrafficSecret(th)
	serverHS = hsSecret.ServerHandshakeTrafficSecret(th)
	if err := c.writeKeyLogTLS13(keyLogClientHandshake, clientRandom, clientHS); err != nil {
		return nil, nil, errorf(alertInternalError, "tlcp: writing the key log: %w", err)
	}
	if err := c.writeKeyLogTLS13(keyLogServerHandshake, clientRandom, serverHS); err != nil {
		return nil, nil, errorf(alertInternalError, "tlcp: writing the key log: %w", err)
	}
	return clientHS, serverHS, nil
}

// applicationTrafficSecrets derives the master secret and both
// application traffic secrets for the transcript hash th (ClientHello…
// server Finished) and writes them, with the exporter secret, to the key
// log, if there is one; the exporter secret is derived for nothing else.
func (c *Config) applicationTrafficSecrets(hsSecret *ciphersuite.TLS13HandshakeSecret, th, clientRandom []byte) (master *ciphersuite.TLS13MasterSecret, clientAP, serverAP []byte, err error) {
	master = hsSecret.MasterSecret()
	clientAP = master.ClientApplicationTrafficSecret(th)
	serverAP = master.ServerApplicationTrafficSecret(th)
	if c.KeyLogWriter == nil {
		return master, clientAP, serverAP, nil
	}
	for _, l := range []struct {
		label  string
		secret []byte
	}{{keyLogClientTraffic, clientAP}, {keyLogServerTraffic, serverAP}, {keyLogExporter, master.ExporterMasterSecret(th)}} {
		if err := c.writeKeyLogTLS13(l.label, clientRandom, l.secret); err != nil {
			return nil, nil, nil, errorf(alertInternalError, "tlcp: writing the key log: %w", err)
		}
	}
	return master, clientAP, serverAP, nil
}

// sendFinishedTLS13 sends this side's Finished, keyed by its handshake
// traffic secret (RFC 8446 §4.4.4).
func (c *Conn) sendFinishedTLS13(t *transcriptHash, trafficSecret []byte) error {
	verifyData := ciphersuite.TLS13FinishedVerifyData(trafficSecret, t.Sum())
	return c.writeHandshake(&finishedMsgTLS13{verifyData: verifyData}, t)
}

// readFinishedTLS13 reads the peer's Finished and checks it against the
// peer's handshake traffic secret.
func (c *Conn) readFinishedTLS13(t *transcriptHash, trafficSecret []byte) error {
	return c.readPeerFinished(t, ciphersuite.TLS13FinishedVerifyData(trafficSecret, t.Sum()))
}

// serverFinishedTLS13 is the server's Finished seen from either side: the
// server sends it, the client reads and checks it. Then both derive the
// application secrets, and the server-to-client direction moves to the
// server's. It returns what the client's Finished and direction need.
func (c *Conn) serverFinishedTLS13(t *transcriptHash, suite *ciphersuite.TLS13Suite, hsSecret *ciphersuite.TLS13HandshakeSecret,
	serverHS, clientRandom []byte) (master *ciphersuite.TLS13MasterSecret, clientAP []byte, err error) {
	if c.isClient {
		err = c.readFinishedTLS13(t, serverHS)
	} else {
		err = c.sendFinishedTLS13(t, serverHS)
	}
	if err != nil {
		return nil, nil, err
	}
	th := t.Sum()
	master, clientAP, serverAP, err := c.config.applicationTrafficSecrets(hsSecret, th, clientRandom)
	if err != nil {
		return nil, nil, err
	}
	c.ekm = tls13Exporter(master.ExporterMasterSecret(th))
	if c.isClient {
		err = c.setReadSecretTLS13(suite, serverAP)
	} else {
		err = c.setWriteSecretTLS13(suite, serverAP)
	}
	return master, clientAP, err
}

// sendCertificateTLS13 sends Certificate with the chain of cert, or an
// empty one if cert is nil, and with a certificate its CertificateVerify
// over the transcript (RFC 8446 §4.4.2, §4.4.3). staple, the server's
// answer to status_request, goes in the leaf's entry (§4.4.2.1).
func (c *Conn) sendCertificateTLS13(t *transcriptHash, context []byte, cert *Certificate, staple []byte) error {
	fromServer := !c.isClient
	certMsg := &certificateMsgTLS13{context: context}
	if len(staple) > 0 {
		certMsg.leafStatus = certificateStatusBody(staple)
	}
	if cert != nil {
		certMsg.certificates = tls13Chain(cert)
	}
	if err := c.writeHandshake(certMsg, t); err != nil {
		return err
	}
	if cert == nil {
		return nil
	}
	signed := certificateVerifyContext(fromServer, t.Sum())
	sig, err := signTLS13(c.config.rand(), cert.PrivateKey, signed, c.config.tls13SignID())
	if err != nil {
		return errorf(alertInternalError, "tlcp: signing CertificateVerify: %w", err)
	}
	return c.writeHandshake(&certificateVerifyMsgTLS13{scheme: signatureSM2SM3, signature: sig}, t)
}

// peerCertificateCheck says how a side checks the other's certificate.
type peerCertificateCheck struct {
	fromServer bool
	roots      *smx509.CertPool
	host       string
	eku        smx509.ExtKeyUsage
	verify     bool // verify the chain, not only parse and type-check it
}

// readPeerCertificateTLS13 checks the peer's Certificate, msg, and reads
// and checks the CertificateVerify that follows it. An empty certificate
// list is reported by empty, without an error: what it means depends on
// the side.
func (c *Conn) readPeerCertificateTLS13(msg handshakeMessage, t *transcriptHash, check peerCertificateCheck) (empty bool, err error) {
	peer := "client"
	if check.fromServer {
		peer = "server"
	}
	certMsg, ok := msg.(*certificateMsgTLS13)
	if !ok {
		return false, unexpectedMessageError("Certificate", msg)
	}
	if len(certMsg.context) != 0 {
		return false, errorf(alertIllegalParameter, "tlcp: the %s's Certificate has a certificate_request_context that was not sent", peer)
	}
	if certMsg.leafStatus != nil {
		if !check.fromServer || !c.config.ocspRequested() {
			return false, errorf(alertUnsupportedExtension, "tlcp: the %s's Certificate has a status_request, which was not requested", peer)
		}
		if err := c.takeStaple(certMsg.leafStatus, "in the leaf's CertificateEntry"); err != nil {
			return false, err
		}
	}
	if certMsg.entryExtension != 0 {
		// RFC 8446 §4.4.2: they must answer extensions of the hello or
		// CertificateRequest, and this side sends none that they could.
		return false, errorf(alertUnsupportedExtension, "tlcp: the %s's Certificate has extension %d, which was not requested", peer, certMsg.entryExtension)
	}
	if len(certMsg.certificates) == 0 {
		return true, nil
	}
	if err := c.verifyPeerLeafTLS13(certMsg.certificates, peer, check.roots, check.host, check.eku, check.verify); err != nil {
		return false, err
	}
	return false, c.readPeerCertificateVerifyTLS13(t, check.fromServer)
}

// Key log labels of TLS 1.3 (the NSS key log format).
const (
	keyLogClientHandshake = "CLIENT_HANDSHAKE_TRAFFIC_SECRET"
	keyLogServerHandshake = "SERVER_HANDSHAKE_TRAFFIC_SECRET"
	keyLogClientTraffic   = "CLIENT_TRAFFIC_SECRET_0"
	keyLogServerTraffic   = "SERVER_TRAFFIC_SECRET_0"
	keyLogExporter        = "EXPORTER_SECRET"
)

// verifyPeerLeafTLS13 parses and checks the single certificate chain of a
// TLS 1.3 peer: an SM2 end-entity certificate with key usage
// digitalSignature, verified against roots (unless skip) for the given
// host and extended key usage. It sets the Conn's peer certificates.
func (c *Conn) verifyPeerLeafTLS13(raw [][]byte, peer string, roots *smx509.CertPool, host string, eku smx509.ExtKeyUsage, verify bool) error {
	cfg := c.config
	certs := make([]*smx509.Certificate, len(raw))
	for i, der := range raw {
		cert, err := parsePeerCertificate(der)
		if err != nil {
			return errorf(alertBadCertificate, "tlcp: parsing %s certificate %d: %w", peer, i, err)
		}
		certs[i] = cert
	}
	leaf := certs[0]
	if err := checkPeerKeyType(peer, "signing", leaf); err != nil {
		return err
	}
	if !leaf.IsTLCPSignCert() {
		return errorf(alertBadCertificate, "tlcp: the %s's certificate is not an SM2 end-entity certificate with key usage digitalSignature", peer)
	}
	var chains [][]*smx509.Certificate
	if verify {
		pool := smx509.NewCertPool()
		for _, ic := range certs[1:] {
			pool.AddCert(ic)
		}
		opts := smx509.VerifyOptions{
			DNSName:       host,
			Roots:         roots,
			Intermediates: pool,
			CurrentTime:   cfg.time(),
			KeyUsages:     []smx509.ExtKeyUsage{eku},
		}
		var err error
		if chains, err = leaf.Verify(opts); err != nil {
			if roots == nil && peer == "server" {
				err = fmt.Errorf("%w (Config.RootCAs is not set, and there are no built-in SM2 roots)", err)
			}
			return certificateAlert(peer+"'s certificate", certs, err)
		}
	}
	if cfg.VerifyPeerCertificate != nil {
		if err := cfg.VerifyPeerCertificate(raw, chains); err != nil {
			return errorf(alertBadCertificate, "tlcp: VerifyPeerCertificate: %w", err)
		}
	}
	if chains != nil {
		rememberVerified(chains)
	}
	c.peerCertificates = certs
	c.peerSignCert, c.peerEncCert = leaf, nil
	c.verifiedChains = chains
	return nil
}

// tls13Chain is what a side sends in its TLS 1.3 Certificate: the leaf of
// the signing half and its intermediates, never a self-signed root.
func tls13Chain(cert *Certificate) [][]byte {
	return append([][]byte{cert.Certificate[0]}, withoutRoots(cert.Certificate[1:])...)
}

// readPeerCertificateVerifyTLS13 reads the peer's CertificateVerify, which
// signs the transcript up to its Certificate, and checks it against the
// peer's certificate. fromServer says which side signed.
func (c *Conn) readPeerCertificateVerifyTLS13(transcript *transcriptHash, fromServer bool) error {
	peer, asked := "client", "requested"
	if fromServer {
		peer, asked = "server", "offered"
	}
	signed := certificateVerifyContext(fromServer, transcript.Sum())
	msg, err := c.readHandshake(transcript)
	if err != nil {
		return err
	}
	cv, ok := msg.(*certificateVerifyMsgTLS13)
	if !ok {
		return unexpectedMessageError("CertificateVerify", msg)
	}
	if cv.scheme != signatureSM2SM3 {
		return errorf(alertIllegalParameter, "tlcp: the %s signed with scheme 0x%04x; only sm2sig_sm3 (0x0708) was %s", peer, cv.scheme, asked)
	}
	if !c.config.verifyTLS13(c.peerSignCert, signed, cv.signature) {
		return errorf(alertDecryptError, "tlcp: the %s's CertificateVerify signature is invalid (checked with the SM2 ID %q)", peer, TLS13SM2ID)
	}
	return nil
}
