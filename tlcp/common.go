// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// VersionTLCP is the only protocol version, 0x0101 (GB/T 38636-2020), on
// every record and in both hellos.
const VersionTLCP = 0x0101

// Record layer constants (INTEROP.md §1).
const (
	recordHeaderLen = 5
	maxPlaintext    = ciphersuite.MaxPlaintext
	maxCiphertext   = ciphersuite.MaxCiphertext
)

// Record content types (INTEROP.md §1.2).
type recordType uint8

const (
	recordTypeChangeCipherSpec recordType = 20
	recordTypeAlert            recordType = 21
	recordTypeHandshake        recordType = 22
	recordTypeApplicationData  recordType = 23
)

// ClientAuthType is the server's policy for client certificates, as in
// crypto/tls. The ECDHE suites always request a certificate and always
// require one, whatever the policy, because the SM2 key exchange needs the
// client's encryption key (INTEROP.md §3.2).
type ClientAuthType int

const (
	// NoClientCert: no CertificateRequest (except for ECDHE suites).
	NoClientCert ClientAuthType = iota
	// RequestClientCert: ask, accept none, do not verify.
	RequestClientCert
	// RequireAnyClientCert: require one, do not verify it.
	RequireAnyClientCert
	// VerifyClientCertIfGiven: accept none, verify any that is sent.
	VerifyClientCertIfGiven
	// RequireAndVerifyClientCert: require one and verify it.
	RequireAndVerifyClientCert
)

func (t ClientAuthType) String() string {
	switch t {
	case NoClientCert:
		return "NoClientCert"
	case RequestClientCert:
		return "RequestClientCert"
	case RequireAnyClientCert:
		return "RequireAnyClientCert"
	case VerifyClientCertIfGiven:
		return "VerifyClientCertIfGiven"
	case RequireAndVerifyClientCert:
		return "RequireAndVerifyClientCert"
	}
	return fmt.Sprintf("ClientAuthType(%d)", int(t))
}

// Certificate is one certificate chain, leaf first, with the private key of
// its leaf. It is one half of a [CertificatePair].
//
// PrivateKey is an *sm2.PrivateKey, or for keys held elsewhere (an HSM) a
// crypto.Signer for a signing certificate and a crypto.Decrypter for an
// encryption certificate used with ECC suites. The ECDHE suites need the
// encryption key as an *sm2.PrivateKey, because the SM2 key exchange
// computes with the scalar itself.
type Certificate struct {
	Certificate [][]byte
	PrivateKey  crypto.PrivateKey
	// Leaf is the parsed Certificate[0]; if nil it is parsed when needed.
	Leaf *smx509.Certificate
}

// leaf returns the parsed leaf certificate.
func (c *Certificate) leaf() (*smx509.Certificate, error) {
	if len(c.Certificate) == 0 {
		return nil, errors.New("tlcp: empty certificate chain")
	}
	if c.Leaf != nil {
		return c.Leaf, nil
	}
	return parseCertificate(c.Certificate[0])
}

// CertificatePair is the double certificate of TLCP (INTEROP.md §3.5, §5): the
// signing certificate (key usage digitalSignature) and the encryption
// certificate (keyEncipherment, dataEncipherment or keyAgreement) of one
// entity. The two fields name the roles so that they cannot be swapped by
// accident; the handshake also checks each certificate's key usage against
// its role and fails with a clear error if they do not match.
//
// A server needs both. A client needs Sign for client authentication with
// ECC suites and both for ECDHE suites.
type CertificatePair struct {
	Sign Certificate
	Enc  Certificate
}

// hasEnc reports whether the encryption half is configured.
func (p *CertificatePair) hasEnc() bool { return len(p.Enc.Certificate) > 0 && p.Enc.PrivateKey != nil }

// ClientHelloInfo describes a ClientHello, for Config.GetCertificate.
type ClientHelloInfo struct {
	CipherSuites    []uint16
	ServerName      string
	SupportedProtos []string
	Conn            net.Conn
	ctx             context.Context
}

// Context returns the context of the handshake in progress.
func (c *ClientHelloInfo) Context() context.Context { return c.ctx }

// CertificateRequestInfo describes a CertificateRequest, for
// Config.GetClientCertificate.
type CertificateRequestInfo struct {
	// AcceptableCAs are the DER distinguished names of the CAs the server
	// accepts; empty means any.
	AcceptableCAs [][]byte
	// CipherSuite is the negotiated suite; for ECDHE suites the returned
	// pair must include the encryption certificate.
	CipherSuite uint16
	ctx         context.Context
}

// Context returns the context of the handshake in progress.
func (c *CertificateRequestInfo) Context() context.Context { return c.ctx }

// SupportsCertificate returns nil if p suits the request: for ECDHE suites
// it has an encryption key the SM2 key exchange can use, and if the server
// listed acceptable CAs, the signing chain is issued by one of them or
// contains one. It is what a client without GetClientCertificate uses to
// choose among Config.Certificates, for GetClientCertificate callbacks to
// reuse.
func (c *CertificateRequestInfo) SupportsCertificate(p *CertificatePair) error {
	if p == nil || len(p.Sign.Certificate) == 0 {
		return errors.New("tlcp: no signing certificate")
	}
	if s := ciphersuite.Lookup(c.CipherSuite); s != nil && s.KeyExchange == ciphersuite.KeyExchangeECDHE && !canDoECDHE(p) {
		return errors.New("tlcp: ECDHE suites need an encryption certificate with an *sm2.PrivateKey")
	}
	if len(c.AcceptableCAs) > 0 && !issuedByOneOf(&p.Sign, c.AcceptableCAs) {
		return errors.New("tlcp: the signing certificate chain is not issued by a CA the server accepts")
	}
	return nil
}

// ConnectionState records facts about the connection.
type ConnectionState struct {
	Version            uint16 // always VersionTLCP once the handshake is done
	HandshakeComplete  bool
	DidResume          bool
	CipherSuite        uint16
	NegotiatedProtocol string
	// ServerName is the name the client sent (server side) or asked to
	// verify (client side).
	ServerName string
	// PeerCertificates are the peer's certificates in the order received.
	PeerCertificates []*smx509.Certificate
	// PeerSignCertificate and PeerEncCertificate are the peer's signing and
	// encryption certificates. A client that authenticated with an ECC suite
	// may have sent no encryption certificate.
	PeerSignCertificate *smx509.Certificate
	PeerEncCertificate  *smx509.Certificate
	// VerifiedChains are the chains built for PeerSignCertificate, if it
	// was verified.
	VerifiedChains [][]*smx509.Certificate
}

// ClientSessionState is a resumable session held by a client.
type ClientSessionState struct {
	sessionID    []byte
	cipherSuite  uint16
	masterSecret []byte
	server       sessionPeer
	receivedAt   time.Time
}

// ClientSessionCache caches sessions for resumption by session ID, as in
// crypto/tls. Keys are the server name or address. Put with a nil state
// removes an entry (done after a fatal alert).
type ClientSessionCache interface {
	Get(sessionKey string) (session *ClientSessionState, ok bool)
	Put(sessionKey string, cs *ClientSessionState)
}

// Config configures a client or a server. A Config may be reused and must
// not be modified once passed to this package.
type Config struct {
	// Rand is the source of randomness; nil means crypto/rand.Reader.
	Rand io.Reader
	// Time returns the current time; nil means time.Now.
	Time func() time.Time

	// Certificates holds the local double certificates. A server uses
	// the first pair unless GetCertificate is set. A client without
	// GetClientCertificate answers a CertificateRequest with the first pair
	// that CertificateRequestInfo.SupportsCertificate accepts (issued by a
	// CA the server lists; with an encryption key for ECDHE suites), or
	// else the first pair.
	Certificates []CertificatePair
	// GetCertificate, if set, chooses the server's pair per ClientHello.
	GetCertificate func(*ClientHelloInfo) (*CertificatePair, error)
	// GetClientCertificate, if set, chooses the client's pair when the
	// server asks for one. Returning a pair with no Sign certificate sends
	// an empty list (fatal for ECDHE suites).
	GetClientCertificate func(*CertificateRequestInfo) (*CertificatePair, error)

	// RootCAs verifies server certificates. There are no built-in SM2
	// roots, so clients should set it unless InsecureSkipVerify is set.
	RootCAs *smx509.CertPool
	// ClientCAs verifies client certificates; its subjects are sent in
	// CertificateRequest.
	ClientCAs *smx509.CertPool
	// ClientAuth is the policy for client certificates. ECDHE suites
	// always request and require the client's signing and encryption
	// certificates; under NoClientCert they are verified if ClientCAs is
	// set, under the other policies as the policy says.
	ClientAuth ClientAuthType
	// InsecureSkipVerify makes a client accept any server certificates
	// (key usages are still checked). For tests only.
	InsecureSkipVerify bool
	// ServerName is checked against the signing certificate and, if
	// SendServerName is set, sent in the server_name extension.
	ServerName string
	// SendServerName makes the client send server_name. TLCP peers such as
	// GmSSL 3.1 reject any extension, so it is off by default (INTEROP.md §8).
	SendServerName bool

	// VerifyPeerCertificate, if set, is called after normal verification
	// with the raw certificates and the chains (nil if not verified).
	VerifyPeerCertificate func(rawCerts [][]byte, verifiedChains [][]*smx509.Certificate) error
	// VerifyConnection, if set, is called after the peer's certificates are
	// verified, in full and resumed handshakes.
	VerifyConnection func(ConnectionState) error

	// CipherSuites lists enabled suites in order of preference; nil means
	// ciphersuite.DefaultPreference(). The server uses its own preference.
	CipherSuites []uint16
	// NextProtos lists ALPN protocols, most preferred first. A client sends
	// the ALPN extension only if this is set.
	NextProtos []string

	// ClientSessionCache enables resumption on the client.
	ClientSessionCache ClientSessionCache
	// SessionCacheSize is the number of sessions a server keeps for
	// resumption: 0 means 1024, negative disables resumption. The cache
	// is bounded in memory too, to 8 KiB per session on average (8 MiB
	// for 1024), which an ordinary session with a verified client double
	// certificate fits; sessions are evicted least recently used first.
	// A session keeps what resuming it needs: the master secret, the
	// suite, and the client's verified certificates and chains, or, if
	// they were not verified, the DER of its two leaf certificates only.
	SessionCacheSize int
	// SessionLifetime bounds how long a session may be resumed: 0 means
	// one hour.
	SessionLifetime time.Duration

	// KeyLogWriter, if set, receives master secrets in NSS key log format
	// ("CLIENT_RANDOM <client_random> <master_secret>"), for debugging with
	// Wireshark. It compromises security.
	KeyLogWriter io.Writer
	// MessageTrace, if set, is called with each handshake message,
	// ChangeCipherSpec and alert that a connection sends or receives, in
	// wire order, as OpenSSL's SSL_CTX_set_msg_callback is; debugging tools
	// print a handshake trace with it (smtool s_client -msg). c is the
	// connection (a server shares its Config among all of them), sent the
	// direction, contentType the record type, and msg the plaintext:
	//
	//   - 22 (handshake): the whole message with its 4-byte header,
	//     reassembled if it spanned records, decrypted if it was protected
	//     (Finished, and anything after the handshake);
	//   - 20 (ChangeCipherSpec): its one byte;
	//   - 21 (alert): level and description.
	//
	// Application data is not reported. A message is reported as sent once
	// it is written, and as received before it is parsed, so a malformed
	// one still shows. The function runs on the goroutine that reads or
	// writes c while it holds c's locks: it may call c.LocalAddr,
	// c.RemoteAddr and c.NetConn but no other method of c, should return
	// quickly and must not keep msg. A reading and a writing goroutine may
	// call it concurrently. Like KeyLogWriter it is for debugging.
	MessageTrace func(c *Conn, sent bool, contentType uint8, msg []byte)

	// ClientECDHEFraming71 makes the client send ClientECDHEParams as a
	// u16-prefixed vector (71 bytes), the literal reading of GB/T 38636
	// 6.4.5.8 that GmSSL 3.2+ requires. The default is the bare 69-byte
	// form the deployed base uses. Servers accept both (INTEROP.md D2).
	ClientECDHEFraming71 bool
	// CertificateVerifyRawTranscript selects the CertificateVerify form of
	// GmSSL 3.0.0 and ≥ 3.2, which signs the raw handshake transcript
	// instead of its SM3 hash (INTEROP.md D1, §3.10). On a client it changes
	// what is signed. On a server it makes the server accept that form as
	// well as the standard one. Off by default: the standard form is what
	// GB/T 38636 6.4.5.9 specifies and every other implementation uses.
	CertificateVerifyRawTranscript bool
	// ClientCertIncludeEnc makes a client send its encryption certificate
	// after the signing one for ECC suites too, as Tongsuo servers require
	// (INTEROP.md D3). ECDHE suites always send it.
	ClientCertIncludeEnc bool

	mu          sync.Mutex
	serverCache *serverSessionCache
}

// Clone returns a shallow copy of c. The server session cache is shared.
func (c *Config) Clone() *Config {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return &Config{
		Rand:                           c.Rand,
		Time:                           c.Time,
		Certificates:                   c.Certificates,
		GetCertificate:                 c.GetCertificate,
		GetClientCertificate:           c.GetClientCertificate,
		RootCAs:                        c.RootCAs,
		ClientCAs:                      c.ClientCAs,
		ClientAuth:                     c.ClientAuth,
		InsecureSkipVerify:             c.InsecureSkipVerify,
		ServerName:                     c.ServerName,
		SendServerName:                 c.SendServerName,
		VerifyPeerCertificate:          c.VerifyPeerCertificate,
		VerifyConnection:               c.VerifyConnection,
		CipherSuites:                   c.CipherSuites,
		NextProtos:                     c.NextProtos,
		ClientSessionCache:             c.ClientSessionCache,
		SessionCacheSize:               c.SessionCacheSize,
		SessionLifetime:                c.SessionLifetime,
		KeyLogWriter:                   c.KeyLogWriter,
		MessageTrace:                   c.MessageTrace,
		ClientECDHEFraming71:           c.ClientECDHEFraming71,
		CertificateVerifyRawTranscript: c.CertificateVerifyRawTranscript,
		ClientCertIncludeEnc:           c.ClientCertIncludeEnc,
		serverCache:                    c.serverCache,
	}
}

var emptyConfig Config

func defaultConfig() *Config { return &emptyConfig }

func (c *Config) rand() io.Reader {
	if c.Rand != nil {
		return c.Rand
	}
	return rand.Reader
}

func (c *Config) time() time.Time {
	if c.Time != nil {
		return c.Time()
	}
	return time.Now()
}

func (c *Config) lifetime() time.Duration {
	if c.SessionLifetime > 0 {
		return c.SessionLifetime
	}
	return time.Hour
}

// cipherSuites returns the enabled suites that this package can negotiate,
// in preference order.
func (c *Config) cipherSuites() []uint16 {
	ids := c.CipherSuites
	if ids == nil {
		ids = ciphersuite.DefaultPreference()
	}
	out := make([]uint16, 0, len(ids))
	for _, id := range ids {
		if s := ciphersuite.Lookup(id); s != nil && s.Supported && !slices.Contains(out, id) &&
			(s.KeyExchange == ciphersuite.KeyExchangeECC || s.KeyExchange == ciphersuite.KeyExchangeECDHE) {
			out = append(out, id)
		}
	}
	return out
}

// sessionCache returns the server's session cache, or nil if resumption is
// disabled.
func (c *Config) sessionCache() *serverSessionCache {
	if c.SessionCacheSize < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.serverCache == nil {
		n := c.SessionCacheSize
		if n == 0 {
			n = 1024
		}
		c.serverCache = newServerSessionCache(n)
	}
	return c.serverCache
}

// writeKeyLog writes one NSS key log line.
func (c *Config) writeKeyLog(clientRandom, masterSecret []byte) error {
	if c.KeyLogWriter == nil {
		return nil
	}
	line := fmt.Sprintf("CLIENT_RANDOM %x %x\n", clientRandom, masterSecret)
	writerMutex.Lock()
	_, err := c.KeyLogWriter.Write([]byte(line))
	writerMutex.Unlock()
	return err
}

// writerMutex serialises key log writes across connections.
var writerMutex sync.Mutex

// signer returns the crypto.Signer of a signing certificate's key.
func signerOf(key crypto.PrivateKey) (crypto.Signer, bool) {
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, false
	}
	if _, ok := s.Public().(*sm2.PublicKey); !ok {
		return nil, false
	}
	return s, true
}

// checkPair validates a local pair for use in a handshake: both leaves parse
// and match their roles' key usages, and the keys are usable.
func checkPair(p *CertificatePair, needEnc bool) (sign, enc *smx509.Certificate, err error) {
	sign, err = p.Sign.leaf()
	if err != nil {
		return nil, nil, fmt.Errorf("tlcp: signing certificate: %w", err)
	}
	if !sign.IsTLCPSignCert() {
		return nil, nil, errors.New("tlcp: the configured signing certificate is not an SM2 end-entity certificate with key usage digitalSignature (are Sign and Enc swapped?)")
	}
	if _, ok := signerOf(p.Sign.PrivateKey); !ok {
		return nil, nil, errors.New("tlcp: the signing certificate's private key is not an SM2 crypto.Signer")
	}
	if !needEnc && !p.hasEnc() {
		return sign, nil, nil
	}
	if !p.hasEnc() {
		return nil, nil, errors.New("tlcp: no encryption certificate configured; TLCP needs a signing and an encryption certificate")
	}
	enc, err = p.Enc.leaf()
	if err != nil {
		return nil, nil, fmt.Errorf("tlcp: encryption certificate: %w", err)
	}
	if !enc.IsTLCPEncCert() {
		return nil, nil, errors.New("tlcp: the configured encryption certificate is not an SM2 end-entity certificate with key usage keyEncipherment, dataEncipherment or keyAgreement (are Sign and Enc swapped?)")
	}
	return sign, enc, nil
}
