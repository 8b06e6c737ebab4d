// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
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

// VersionTLCP is TLCP's protocol version, 0x0101 (GB/T 38636-2020), on
// every record and in both hellos. TLS 1.3 with the ShangMi suites is
// VersionTLS13.
const VersionTLCP = 0x0101

// VersionTLS13 is TLS 1.3 (RFC 8446), which this package speaks with the
// ShangMi cipher suites of RFC 8998 only: TLS_SM4_GCM_SM3 and
// TLS_SM4_CCM_SM3, key shares on curveSM2MLKEM768 or curveSM2,
// sm2sig_sm3 signatures.
const VersionTLS13 = 0x0304

// CurveID is a TLS 1.3 key exchange group, a NamedGroup of RFC 8446
// §4.2.7, as crypto/tls's CurveID is.
type CurveID uint16

const (
	// CurveSM2 is ECDHE on the SM2 curve, RFC 8998 §3.2.1's curveSM2:
	// the only group of TLS 1.3-SM before the hybrid. Its code point is
	// that of curveSM2 in TLCP's ECDHE parameters.
	CurveSM2 CurveID = 41
	// CurveSM2MLKEM768 is the post-quantum hybrid of
	// draft-yang-tls-hybrid-sm2-mlkem, as Tongsuo 8.5 and OpenSSL 4 have
	// it: curveSM2 ECDHE and ML-KEM-768 (FIPS 203) together, the SM2 part
	// first in the key shares and in the shared secret (TLS13.md §10).
	CurveSM2MLKEM768 CurveID = 0x11EE
)

// String returns the group's name as OpenSSL and Tongsuo spell it.
func (id CurveID) String() string {
	switch id {
	case CurveSM2:
		return "curveSM2"
	case CurveSM2MLKEM768:
		return "curveSM2MLKEM768"
	}
	return fmt.Sprintf("CurveID(%d)", uint16(id))
}

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
// PrivateKey is an *sm2.PrivateKey or, for a key held elsewhere (an HSM,
// a cipher machine), a value that does the key's work:
//
//   - for a signing certificate, a crypto.Signer whose Public is the
//     certificate's *sm2.PublicKey. Sign is called with the message itself
//     and opts an *sm2.SignerOpts with UID nil (HashFunc 0: the message is
//     not a digest), and must return the DER signature that
//     sm2.SignASN1 makes with the default identifier. A device that signs
//     digests is given e = SM3(Z ‖ message), Z = pub.Z(nil).
//   - for an encryption certificate, a crypto.Decrypter (ECC suites), an
//     SM2KeyExchanger (ECDHE suites), or both. Decrypt is called with
//     Config.Rand, the ClientKeyExchange ciphertext in the GM/T 0009 DER
//     form of GB/T 32918.4 (SEQUENCE { x, y, C3, C2 }, C1C3C2) as one DER
//     element, and opts an *sm2.DecrypterOpts{Order: sm2.C1C3C2, ASN1:
//     true}, and returns the 48-byte premaster. As with RSA in TLS, a
//     failed decryption is not reported to the peer: the handshake goes
//     on with a random premaster and fails at Finished (INTEROP.md D9),
//     and the local error then includes any error Decrypt returned other
//     than sm2.ErrDecryption (a device failure, say).
//
// A key without SM2KeyExchanger cannot do the ECDHE suites: a server with
// such an encryption key chooses ECC suites only, a client offers them
// only. Each handshake checks that the keys' public keys are their
// certificates'.
type Certificate struct {
	Certificate [][]byte
	PrivateKey  crypto.PrivateKey
	// Leaf is the parsed Certificate[0]; if nil it is parsed when needed.
	Leaf *smx509.Certificate
	// OCSPStaple is a DER OCSP response for the leaf, sent to clients
	// that ask for one (status_request, RFC 6066 §8). A server staples
	// the Sign half's; the Enc half's is not used (ocsp_staple.go).
	OCSPStaple []byte
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
	// SupportedVersions are the versions the client offers: VersionTLCP,
	// VersionTLS13 or both. A TLS 1.3 handshake uses only the Sign half
	// of the pair GetCertificate returns.
	SupportedVersions []uint16
	// SupportedCurves are the TLS 1.3 key exchange groups the client
	// lists, in its order, known to this package or not; empty for a
	// TLCP ClientHello. A GetConfigForClient that requires the
	// post-quantum hybrid can refuse a client without CurveSM2MLKEM768.
	SupportedCurves []CurveID
	Conn            net.Conn
	ctx             context.Context

	// TrustedCAIndications are the CAs the client's trusted_ca_keys
	// extension names (RFC 6066 §6, GM/T 0024-2023), in its order; empty
	// if it sent none. Without GetCertificate the server takes the first
	// of Certificates whose Sign chain one of them issued (trusted_ca.go):
	// for a root to be matched by a hash rather than by name, the chain
	// must end with the root, which is not sent.
	TrustedCAIndications []TrustedAuthority
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
	// Version is the negotiated version. In TLS 1.3 only the Sign half of
	// the returned pair is used.
	Version uint16
	ctx     context.Context
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
		return errors.New("tlcp: ECDHE suites need an encryption certificate whose key is an *sm2.PrivateKey or a tlcp.SM2KeyExchanger")
	}
	if len(c.AcceptableCAs) > 0 && !issuedByOneOf(&p.Sign, c.AcceptableCAs) {
		return errors.New("tlcp: the signing certificate chain is not issued by a CA the server accepts")
	}
	return nil
}

// ConnectionState records facts about the connection.
type ConnectionState struct {
	Version            uint16 // VersionTLCP or VersionTLS13 once the handshake is done
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
	// may have sent no encryption certificate. In TLS 1.3 a peer has a
	// single certificate, PeerSignCertificate, and PeerEncCertificate is nil.
	PeerSignCertificate *smx509.Certificate
	PeerEncCertificate  *smx509.Certificate
	// VerifiedChains are the chains built for PeerSignCertificate, if it
	// was verified.
	VerifiedChains [][]*smx509.Certificate
	// CurveID is the key exchange group: in TLS 1.3 the group of the key
	// shares (after a resumption too, which is psk_dhe_ke), in TLCP
	// CurveSM2 after a full handshake with an ECDHE suite (the SM2 key
	// exchange), and zero with the ECC suites, whose premaster secret is
	// encrypted to the server's encryption key, and on a resumed TLCP
	// session, which exchanges no key.
	CurveID CurveID
	// Protocol is what was negotiated, which Version alone does not say
	// on the one-port listener: TLCP, TLS 1.3 with the SM suites, or
	// ordinary TLS handed to crypto/tls (ConnectionStateFromRequest).
	Protocol Protocol
	// OCSPResponse is the OCSP response the server stapled, if the
	// client asked for one (Config.RequestOCSPStaple) and it came; in a
	// resumed handshake, which carries none, it is empty.
	OCSPResponse []byte

	ekm ekmFunc // see ExportKeyingMaterial
}

// ClientSessionState is a resumable session held by a client.
type ClientSessionState struct {
	sessionID    []byte
	cipherSuite  uint16
	masterSecret []byte
	master       *ciphersuite.Master // masterSecret prepared for the PRF
	server       sessionPeer
	receivedAt   time.Time
	// vers is VersionTLS13 for a TLS 1.3 ticket (ticket.go), else 0.
	vers   uint16
	ticket *clientTicket
}

// ClientSessionCache caches sessions for resumption, as in crypto/tls:
// TLCP sessions by session ID, TLS 1.3 sessions by ticket, one per server.
// Keys are the server name or address. Put with a nil state
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
	// the first pair unless GetCertificate is set. TLS 1.3 uses only a
	// pair's Sign half, so a pair without Enc serves TLS 1.3 alone. A client without
	// GetClientCertificate answers a CertificateRequest with the first pair
	// that CertificateRequestInfo.SupportsCertificate accepts (issued by a
	// CA the server lists; with an encryption key for ECDHE suites), or
	// else the first pair.
	Certificates []CertificatePair
	// GetCertificate, if set, chooses the server's pair per ClientHello.
	GetCertificate func(*ClientHelloInfo) (*CertificatePair, error)
	// GetConfigForClient, if set, is called after a ClientHello is
	// received, before GetCertificate, and may return a Config to handle
	// the connection with instead of this one (nil keeps this one), as in
	// crypto/tls. An error ends the handshake with internal_error. The
	// returned Config must not be modified afterwards. Sessions stay in
	// this Config's store (its in-memory cache or ServerSessionCache)
	// unless the returned Config sets ServerSessionCache itself or turns
	// resumption off with a negative SessionCacheSize; the session cache
	// keys too are this Config's unless the returned one has had
	// SetSessionCacheKeys called. A session resumes only for the server
	// name it was made with.
	GetConfigForClient func(*ClientHelloInfo) (*Config, error)
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
	// ServerName is checked against the server's signing certificate and,
	// if it is a host name rather than an IP address, sent in the
	// server_name extension (SNI), as crypto/tls does, unless
	// ClientHelloNoExtensions is set.
	ServerName string
	// ClientHelloNoExtensions makes the client send a ClientHello without
	// any extension: no server_name and no ALPN (NextProtos is then not
	// offered, and NegotiatedProtocol stays empty). GmSSL 3.1.1 servers
	// refuse a ClientHello that carries any extension with
	// unexpected_message (INTEROP.md §8, D6); when a server rejects a
	// ClientHello with extensions, the handshake error names this switch.
	// Servers ignore it.
	ClientHelloNoExtensions bool
	// RequestOCSPStaple makes the client ask for the server's OCSP
	// staple (status_request); ConnectionState.OCSPResponse holds it.
	// RequireOCSPStaple asks too, and fails the handshake with
	// bad_certificate_status_response unless the staple is an OCSP
	// response for the server's certificate, signed by its issuer or a
	// responder the issuer delegated, current at Time, and good
	// (ocsp_staple.go).
	RequestOCSPStaple, RequireOCSPStaple bool
	// TLCPStapleInServerHello makes a TLCP server send its staple in
	// the ServerHello's status_request extension, gotlcp's form, instead
	// of the CertificateStatus message of RFC 6066 §8 that Tongsuo sends
	// and reads. Clients of this package read both.
	TLCPStapleInServerHello bool
	// TrustedCAIndications are sent by a client in the trusted_ca_keys
	// extension (RFC 6066 §6; GM/T 0024-2023 A.2), for a server with
	// certificates from several CAs to choose by; NewTrustedAuthority
	// makes them from CA certificates.
	TrustedCAIndications []TrustedAuthority
	// SendServerName has no effect: server_name is sent by default.
	//
	// Deprecated: before server_name became the default this field turned
	// it on. To send no extensions at all, for servers that refuse them,
	// set ClientHelloNoExtensions.
	SendServerName bool

	// VerifyPeerCertificate, if set, is called after normal verification
	// with the raw certificates and the chains (nil if not verified).
	VerifyPeerCertificate func(rawCerts [][]byte, verifiedChains [][]*smx509.Certificate) error
	// VerifyConnection, if set, is called after the peer's certificates are
	// verified, in full and resumed handshakes.
	VerifyConnection func(ConnectionState) error

	// CipherSuites lists the enabled suites of both protocols, each in
	// order of preference: TLCP suites (ciphersuite.ECC_SM4_GCM_SM3, …)
	// and TLS 1.3 suites (ciphersuite.TLS_SM4_GCM_SM3 and
	// TLS_SM4_CCM_SM3). nil means ciphersuite.DefaultPreference() and
	// ciphersuite.TLS13DefaultPreference(). A list without suites of a
	// protocol disables that protocol. The server uses its own preference.
	CipherSuites []uint16

	// MinVersion and MaxVersion bound the protocols this side speaks,
	// compared as numbers: VersionTLCP (0x0101) and VersionTLS13
	// (0x0304). Zero MinVersion means VersionTLCP. Zero MaxVersion means
	// VersionTLS13 for a server; for a client it means VersionTLS13 if
	// CipherSuites names a TLS 1.3 suite or MinVersion is VersionTLS13,
	// and VersionTLCP otherwise, so that a client keeps sending the TLCP
	// ClientHello that TLCP servers accept, without TLS 1.3's extensions,
	// unless told otherwise. A client whose range holds both protocols
	// sends one TLCP-shaped ClientHello that offers both, which this
	// package's servers and Tongsuo's answer (TLS13.md §1); a client with
	// TLS 1.3 alone sends an ordinary TLS 1.3 ClientHello. TLS 1.3 needs
	// extensions: ClientHelloNoExtensions leaves it out.
	MinVersion, MaxVersion uint16
	// NextProtos lists ALPN protocols, most preferred first. A client sends
	// the ALPN extension only if this is set (and ClientHelloNoExtensions
	// is not).
	NextProtos []string

	// ClientSessionCache enables resumption on the client.
	ClientSessionCache ClientSessionCache
	// SessionCacheSize is the number of sessions a server keeps in
	// memory for resumption: 0 means 1024, negative disables resumption
	// (in ServerSessionCache too). The cache is bounded in memory too, to 8 KiB per session on average (8 MiB
	// for 1024), which an ordinary session with a verified client double
	// certificate fits; sessions are evicted least recently used first.
	// A session keeps what resuming it needs: the master secret, the
	// suite, and the client's verified certificates and chains, or, if
	// they were not verified, the DER of its two leaf certificates only.
	SessionCacheSize int
	// SessionLifetime bounds how long a session may be resumed: 0 means
	// one hour. It is also the lifetime of TLS 1.3 tickets (at most 7
	// days).
	SessionLifetime time.Duration
	// ServerSessionCache, if set, is where a server keeps its sessions
	// instead of its in-memory cache: a store that servers behind a load
	// balancer share, so that a session made with one resumes on another.
	// What it holds is sealed with SM4-GCM under the session cache keys
	// (see SetSessionCacheKeys, which a fleet must call with the same keys
	// on every server). SessionCacheSize does not apply to it, except that
	// a negative value still turns resumption off.
	ServerSessionCache ServerSessionCache
	// SessionTicketsDisabled stops a TLS 1.3 server from sending
	// NewSessionTicket, and so from resuming, as does a negative
	// SessionCacheSize. A server keeps nothing of
	// TLS 1.3 sessions: the tickets are sealed with the session cache keys
	// (SetSessionCacheKeys), so that servers sharing keys resume each
	// other's tickets. TLCP never uses tickets.
	SessionTicketsDisabled bool

	// KeyLogWriter, if set, receives master secrets in NSS key log format
	// ("CLIENT_RANDOM <client_random> <master_secret>"), for debugging with
	// Wireshark. It compromises security.
	KeyLogWriter io.Writer

	// OnAlert, if set, is called for every alert the connection sends or
	// receives (close_notify and warnings included), e.g. to count and
	// log what peers send, as gotlcp's OnAlert. It runs on the goroutine
	// that sends or reads the alert, with the connection's locks held: it
	// must return quickly and call no method of the Conn other than
	// LocalAddr and RemoteAddr.
	OnAlert func(c *Conn, e AlertEvent)
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
	// CertificateVerifyRawTranscript makes a client sign CertificateVerify
	// in the form of GmSSL 3.0.0 and ≥ 3.2, over the raw handshake
	// transcript instead of its SM3 hash (INTEROP.md D1, §3.10), as a
	// GmSSL 3.0.0 or ≥ 3.2 server requires. Off by default: the standard
	// form is what GB/T 38636 6.4.5.9 specifies and every other
	// implementation uses; a client whose CertificateVerify a server
	// rejects gets an error naming this switch. Servers accept both forms
	// whatever it says.
	CertificateVerifyRawTranscript bool
	// ClientCertIncludeEnc makes a client send its encryption certificate
	// after the signing one for ECC suites too, as Tongsuo servers require
	// (INTEROP.md D3). ECDHE suites always send it.
	ClientCertIncludeEnc bool
	// DisableInteropAdaptation makes a client use exactly the forms the
	// four switches above and ClientHelloNoExtensions name. Without it a
	// client takes the form a server wants from what the server's flight
	// shows (a GmSSL or a Tongsuo flight), and when a server refuses a
	// form in a way that names the other, Dial, DialWithDialer and
	// Dialer.DialContext retry once on a new connection with it, and every
	// client remembers it for that server (its name and address, up to
	// 1024 servers, for an hour), so that the next connection needs no
	// retry. A Conn made with Client over the caller's connection cannot
	// redial: its handshake fails with the error naming the switch, and
	// the caller's next connection to that server uses the form. Nothing
	// adapted weakens what was asked: the suites, versions and
	// verification are the same, and extensions are left out only when
	// neither ALPN nor TLS 1.3 is asked for (INTEROP.md §12). The switches
	// win over what is detected. Servers ignore it.
	DisableInteropAdaptation bool

	// TLS13DefaultSM2ID makes TLS 1.3 CertificateVerify signatures use
	// the default SM2 ID 1234567812345678 instead of RFC 8998's
	// "TLSv1.3+GM+Cipher+Suite" (TLS13SM2ID), which Tongsuo and GmSSL
	// use; a side with it set accepts a peer's signature with either ID.
	// Certificate signatures always use the default ID.
	TLS13DefaultSM2ID bool
	// TLS13NoMiddleboxCompat turns off TLS 1.3's middlebox
	// compatibility mode (RFC 8446 D.4): a client sends an empty
	// legacy_session_id and no ChangeCipherSpec, and a server sends no
	// ChangeCipherSpec. GmSSL's server mistakes a client's
	// ChangeCipherSpec for its Certificate under client authentication
	// (TLS13.md §7).
	TLS13NoMiddleboxCompat bool
	// CurvePreferences lists the TLS 1.3 key exchange groups this side
	// accepts, most preferred first: CurveSM2MLKEM768 and CurveSM2;
	// other values are ignored. nil means both, the hybrid first, so
	// that a session recorded today cannot be decrypted by a quantum
	// computer tomorrow. A client lists these groups in supported_groups
	// and sends a key share for the first, and also for CurveSM2 when the
	// first is the hybrid and CurveSM2 is listed, so that a server
	// without the hybrid needs no HelloRetryRequest (as crypto/tls sends
	// X25519 beside X25519MLKEM768). A server takes the first of its
	// groups that the client lists, and asks for its share with a
	// HelloRetryRequest if the client sent none, so that a client that
	// lists the hybrid gets it. TLCP's ECDHE suites always use curveSM2.
	CurvePreferences []CurveID

	mu          sync.Mutex
	serverCache *serverSessionCache
	// sessionKeys seal what goes into ServerSessionCache and TLS 1.3
	// tickets, the first sealing (sessioncache.go); sessionKeysSet says
	// they were set by SetSessionCacheKeys rather than made here.
	sessionKeys    []sessionKey
	sessionKeysSet bool
}

// Clone returns a shallow copy of c. The server's in-memory session cache
// and the session cache keys, once made, are shared.
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
		GetConfigForClient:             c.GetConfigForClient,
		GetClientCertificate:           c.GetClientCertificate,
		RootCAs:                        c.RootCAs,
		ClientCAs:                      c.ClientCAs,
		ClientAuth:                     c.ClientAuth,
		InsecureSkipVerify:             c.InsecureSkipVerify,
		ServerName:                     c.ServerName,
		ClientHelloNoExtensions:        c.ClientHelloNoExtensions,
		SendServerName:                 c.SendServerName,
		RequestOCSPStaple:              c.RequestOCSPStaple,
		RequireOCSPStaple:              c.RequireOCSPStaple,
		TLCPStapleInServerHello:        c.TLCPStapleInServerHello,
		TrustedCAIndications:           c.TrustedCAIndications,
		VerifyPeerCertificate:          c.VerifyPeerCertificate,
		VerifyConnection:               c.VerifyConnection,
		CipherSuites:                   c.CipherSuites,
		NextProtos:                     c.NextProtos,
		ClientSessionCache:             c.ClientSessionCache,
		SessionCacheSize:               c.SessionCacheSize,
		SessionLifetime:                c.SessionLifetime,
		ServerSessionCache:             c.ServerSessionCache,
		KeyLogWriter:                   c.KeyLogWriter,
		MessageTrace:                   c.MessageTrace,
		OnAlert:                        c.OnAlert,
		ClientECDHEFraming71:           c.ClientECDHEFraming71,
		CertificateVerifyRawTranscript: c.CertificateVerifyRawTranscript,
		ClientCertIncludeEnc:           c.ClientCertIncludeEnc,
		DisableInteropAdaptation:       c.DisableInteropAdaptation,
		MinVersion:                     c.MinVersion,
		MaxVersion:                     c.MaxVersion,
		SessionTicketsDisabled:         c.SessionTicketsDisabled,
		TLS13DefaultSM2ID:              c.TLS13DefaultSM2ID,
		TLS13NoMiddleboxCompat:         c.TLS13NoMiddleboxCompat,
		CurvePreferences:               c.CurvePreferences,
		serverCache:                    c.serverCache,
		sessionKeys:                    c.sessionKeys,
		sessionKeysSet:                 c.sessionKeysSet,
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
func (c *Config) cipherSuites() []uint16 { return c.appendCipherSuites(nil) }

// appendCipherSuites is cipherSuites appending to out, for the handshake's
// checks, which pass a buffer on the stack rather than allocate the list.
func (c *Config) appendCipherSuites(out []uint16) []uint16 {
	ids := c.CipherSuites
	if ids == nil {
		ids = ciphersuite.DefaultPreference()
	}
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
	if err := checkKey("signing", sign, p.Sign.PrivateKey, true); err != nil {
		return nil, nil, err
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
	if err := checkKey("encryption", enc, p.Enc.PrivateKey, false); err != nil {
		return nil, nil, err
	}
	return sign, enc, nil
}

// checkKey checks that a local certificate's private key can serve its
// role and belongs to the certificate, so that a key from an HSM that is
// the wrong one fails here, with a reason, rather than at Finished.
func checkKey(role string, cert *smx509.Certificate, key crypto.PrivateKey, signing bool) error {
	var pub crypto.PublicKey
	if signing {
		s, ok := signerOf(key)
		if !ok {
			return fmt.Errorf("tlcp: the signing certificate's private key (%T) is not an SM2 crypto.Signer", key)
		}
		pub = s.Public()
	} else {
		d, okD := decrypterOf(key)
		x, okX := keyExchangerOf(key)
		switch {
		case okD:
			pub = d.Public()
		case okX:
			pub = x.Public()
		default:
			return fmt.Errorf("tlcp: the encryption certificate's private key (%T) is neither an SM2 crypto.Decrypter nor a tlcp.SM2KeyExchanger", key)
		}
	}
	if want, ok := cert.PublicKey.(*sm2.PublicKey); !ok || !want.Equal(pub) {
		return fmt.Errorf("tlcp: the %s certificate's private key %w", role, errKeyMismatch)
	}
	return nil
}

// canDoECDHE reports whether p has an encryption key that can take part in
// the SM2 key exchange.
func canDoECDHE(p *CertificatePair) bool {
	if !p.hasEnc() {
		return false
	}
	_, ok := keyExchangerOf(p.Enc.PrivateKey)
	return ok
}

// issuedByOneOf reports whether a chain was issued by, or contains, one of
// the CAs named (DER distinguished names, as in CertificateRequest).
// Certificates that do not parse are skipped: the handshake reports them
// if the pair is used.
func issuedByOneOf(c *Certificate, names [][]byte) bool {
	for i, der := range c.Certificate {
		var cert *smx509.Certificate
		if i == 0 && c.Leaf != nil {
			cert = c.Leaf
		} else if parsed, err := parseCertificate(der); err == nil {
			cert = parsed
		} else {
			continue
		}
		for _, name := range names {
			if bytes.Equal(cert.RawIssuer, name) || (i > 0 && bytes.Equal(cert.RawSubject, name)) {
				return true
			}
		}
	}
	return false
}

// minVersion is the lowest version this side speaks.
func (c *Config) minVersion() uint16 {
	if c.MinVersion == 0 {
		return VersionTLCP
	}
	return c.MinVersion
}

// maxVersion is the highest version this side speaks. Unset, a server
// speaks TLS 1.3 too, and a client only if CipherSuites names a TLS 1.3
// suite or MinVersion is above TLCP: a client's default ClientHello stays
// the plain TLCP one that every TLCP server accepts.
func (c *Config) maxVersion(isClient bool) uint16 {
	if c.MaxVersion != 0 {
		return c.MaxVersion
	}
	if !isClient || c.MinVersion > VersionTLCP ||
		slices.ContainsFunc(c.CipherSuites, func(id uint16) bool { return ciphersuite.LookupTLS13(id) != nil }) {
		return VersionTLS13
	}
	return VersionTLCP
}

// tls13CipherSuites returns the enabled TLS 1.3 suites in preference
// order: those CipherSuites lists, or by default both RFC 8998 suites.
func (c *Config) tls13CipherSuites() []uint16 {
	ids := c.CipherSuites
	if ids == nil {
		return ciphersuite.TLS13DefaultPreference()
	}
	var out []uint16
	for _, id := range ids {
		if ciphersuite.LookupTLS13(id) != nil && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// defaultCurvePreferences is CurvePreferences when it is nil.
var defaultCurvePreferences = []CurveID{CurveSM2MLKEM768, CurveSM2}

// curvePreferences is CurvePreferences without the groups this package
// does not implement, or the default; it is empty if every listed group
// is unknown.
func (c *Config) curvePreferences() []CurveID {
	if c.CurvePreferences == nil {
		return defaultCurvePreferences
	}
	var out []CurveID
	for _, id := range c.CurvePreferences {
		if (id == CurveSM2 || id == CurveSM2MLKEM768) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// versionEnabled reports whether this side may speak v: v is within
// [minVersion, maxVersion] and a suite of v is enabled.
func (c *Config) versionEnabled(v uint16, isClient bool) bool {
	if v < c.minVersion() || v > c.maxVersion(isClient) {
		return false
	}
	switch v {
	case VersionTLCP:
		var buf [8]uint16
		return len(c.appendCipherSuites(buf[:0])) > 0
	case VersionTLS13:
		// As tls13CipherSuites would say (the defaults are never empty),
		// without making the list.
		return c.CipherSuites == nil ||
			slices.ContainsFunc(c.CipherSuites, func(id uint16) bool { return ciphersuite.LookupTLS13(id) != nil })
	}
	return false
}
