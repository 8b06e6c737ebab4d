// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// premasterLen is the length of every TLCP premaster secret (INTEROP.md §4.1).
const premasterLen = 48

// keyAgreement is one key-exchange family, as in crypto/tls. The server
// calls generateServerKeyExchange then processClientKeyExchange; the client
// processServerKeyExchange then generateClientKeyExchange.
type keyAgreement interface {
	generateServerKeyExchange(cfg *Config, pair *CertificatePair, encCert *smx509.Certificate, clientRandom, serverRandom []byte) (*serverKeyExchangeMsg, error)
	processClientKeyExchange(cfg *Config, pair *CertificatePair, ckx *clientKeyExchangeMsg, clientEncCert *smx509.Certificate) ([]byte, error)

	processServerKeyExchange(cfg *Config, clientRandom, serverRandom []byte, signCert, encCert *smx509.Certificate, skx *serverKeyExchangeMsg) error
	generateClientKeyExchange(cfg *Config, encCert *smx509.Certificate, clientPair *CertificatePair) ([]byte, *clientKeyExchangeMsg, error)
}

func newKeyAgreement(s *ciphersuite.Suite) keyAgreement {
	if s.KeyExchange == ciphersuite.KeyExchangeECDHE {
		return new(ecdheKeyAgreement)
	}
	return new(eccKeyAgreement)
}

// eccKeyAgreement: the client encrypts a 48-byte premaster to the server's
// encryption certificate with SM2 (INTEROP.md §3.9); ServerKeyExchange signs
// that certificate (§3.6).
type eccKeyAgreement struct {
	// keyErr is what a crypto.Decrypter holding the encryption key
	// returned, other than sm2.ErrDecryption: a device failure, which
	// the handshake hides from the peer like any decryption failure (D9)
	// but reports locally if it then fails at Finished.
	keyErr error
}

func (eccKeyAgreement) generateServerKeyExchange(cfg *Config, pair *CertificatePair, encCert *smx509.Certificate, cr, sr []byte) (*serverKeyExchangeMsg, error) {
	sig, err := sign(cfg.rand(), pair.Sign.PrivateKey, serverKeyExchangeTBS(cr, sr, pair.Enc.Certificate[0], nil))
	if err != nil {
		return nil, fmt.Errorf("tlcp: signing ServerKeyExchange: %w", err)
	}
	return &serverKeyExchangeMsg{signature: sig}, nil
}

// processClientKeyExchange decrypts the premaster. On any failure —
// decryption, length, or a version other than 0101 — it continues with a
// random premaster instead, so the handshake fails only at Finished and a
// peer learns nothing from the timing or kind of the failure (INTEROP.md D9,
// as RFC 5246 §7.4.7.1 for RSA).
func (ka *eccKeyAgreement) processClientKeyExchange(cfg *Config, pair *CertificatePair, ckx *clientKeyExchangeMsg, _ *smx509.Certificate) ([]byte, error) {
	if ckx.ciphertext == nil {
		return nil, errorf(alertDecodeError, "tlcp: ClientKeyExchange carries ECDHE parameters, but the suite is ECC")
	}
	premaster := make([]byte, premasterLen)
	if _, err := io.ReadFull(cfg.rand(), premaster); err != nil {
		return nil, err
	}
	decrypted, err := decryptPremaster(cfg, pair.Enc.PrivateKey, ckx.ciphertext)
	if _, ours := pair.Enc.PrivateKey.(*sm2.PrivateKey); err != nil && !ours && !errors.Is(err, sm2.ErrDecryption) {
		ka.keyErr = err
	}
	if err == nil && len(decrypted) == premasterLen {
		good := subtle.ConstantTimeByteEq(decrypted[0], VersionTLCP>>8) &
			subtle.ConstantTimeByteEq(decrypted[1], VersionTLCP&0xff)
		subtle.ConstantTimeCopy(good, premaster, decrypted)
	}
	return premaster, nil
}

func (eccKeyAgreement) processServerKeyExchange(cfg *Config, cr, sr []byte, signCert, encCert *smx509.Certificate, skx *serverKeyExchangeMsg) error {
	if skx.params != nil {
		return errorf(alertDecodeError, "tlcp: ServerKeyExchange carries ECDHE parameters, but the suite is ECC")
	}
	if !verify(signCert, serverKeyExchangeTBS(cr, sr, encCert.Raw, nil), skx.signature) {
		return errorf(alertDecryptError, "tlcp: ServerKeyExchange signature by the signing certificate is invalid")
	}
	return nil
}

func (eccKeyAgreement) generateClientKeyExchange(cfg *Config, encCert *smx509.Certificate, _ *CertificatePair) ([]byte, *clientKeyExchangeMsg, error) {
	pub, err := sm2PublicKey(encCert)
	if err != nil {
		return nil, nil, err
	}
	premaster := make([]byte, premasterLen)
	premaster[0], premaster[1] = VersionTLCP>>8, VersionTLCP&0xff
	if _, err := io.ReadFull(cfg.rand(), premaster[2:]); err != nil {
		return nil, nil, err
	}
	ct, err := sm2.EncryptASN1(cfg.rand(), pub, premaster)
	if err != nil {
		return nil, nil, fmt.Errorf("tlcp: encrypting the premaster: %w", err)
	}
	return premaster, &clientKeyExchangeMsg{ciphertext: ct}, nil
}

// ecdheKeyAgreement: the SM2 key exchange of GB/T 32918.3 (GB/T 32918.3)
// with the server as initiator and the client as responder, each using its
// encryption key pair as the static key, the default ID and a 48-byte
// output, which is the premaster.
type ecdheKeyAgreement struct {
	ke       SM2KeyExchange // server: our side of the exchange
	peerEphe *sm2.PublicKey // client: the server's ephemeral key RA
}

func (ka *ecdheKeyAgreement) generateServerKeyExchange(cfg *Config, pair *CertificatePair, _ *smx509.Certificate, cr, sr []byte) (*serverKeyExchangeMsg, error) {
	kx, ok := keyExchangerOf(pair.Enc.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("tlcp: ECDHE suites need the encryption key as an *sm2.PrivateKey or a tlcp.SM2KeyExchanger, have %T", pair.Enc.PrivateKey)
	}
	ke, err := kx.NewKeyExchange(nil, premasterLen, true)
	if err != nil {
		return nil, fmt.Errorf("tlcp: starting the SM2 key exchange: %w", err)
	}
	ra, err := ke.Init(cfg.rand())
	if err != nil {
		return nil, fmt.Errorf("tlcp: making the ephemeral key of the SM2 key exchange: %w", err)
	}
	ka.ke = ke
	params := marshalECDHEParams(ra.Bytes())
	sig, err := sign(cfg.rand(), pair.Sign.PrivateKey, serverKeyExchangeTBS(cr, sr, nil, params))
	if err != nil {
		return nil, fmt.Errorf("tlcp: signing ServerKeyExchange: %w", err)
	}
	return &serverKeyExchangeMsg{params: params, signature: sig}, nil
}

func (ka *ecdheKeyAgreement) processClientKeyExchange(cfg *Config, pair *CertificatePair, ckx *clientKeyExchangeMsg, clientEncCert *smx509.Certificate) ([]byte, error) {
	if ckx.params == nil {
		return nil, errorf(alertDecodeError, "tlcp: ClientKeyExchange carries an ECC ciphertext, but the suite is ECDHE")
	}
	if clientEncCert == nil {
		return nil, errorf(alertHandshakeFailure, "tlcp: ECDHE needs the client's encryption certificate")
	}
	_, point, _ := parseECDHEParams(ckx.params)
	rb, err := sm2.NewPublicKey(point)
	if err != nil {
		return nil, errorf(alertIllegalParameter, "tlcp: client's ephemeral ECDHE key is invalid: %v", err)
	}
	pb, err := sm2PublicKey(clientEncCert)
	if err != nil {
		return nil, err
	}
	key, _, err := ka.ke.Complete(pb, nil, rb, nil)
	if err != nil {
		return nil, errorf(alertIllegalParameter, "tlcp: SM2 key exchange failed: %w", err)
	}
	if len(key) != premasterLen {
		return nil, errorf(alertInternalError, "tlcp: the SM2 key exchange returned a key of %d bytes, want %d", len(key), premasterLen)
	}
	return key, nil
}

func (ka *ecdheKeyAgreement) processServerKeyExchange(cfg *Config, cr, sr []byte, signCert, _ *smx509.Certificate, skx *serverKeyExchangeMsg) error {
	if skx.params == nil {
		return errorf(alertDecodeError, "tlcp: ServerKeyExchange lacks ECDHE parameters, but the suite is ECDHE")
	}
	// Check the signature before using anything it covers (INTEROP.md §3.6).
	if !verify(signCert, serverKeyExchangeTBS(cr, sr, nil, skx.params), skx.signature) {
		return errorf(alertDecryptError, "tlcp: ServerKeyExchange signature by the signing certificate is invalid")
	}
	// The curve id is not checked: it is SM2 whatever it says (D7).
	_, point, _ := parseECDHEParams(skx.params)
	ra, err := sm2.NewPublicKey(point)
	if err != nil {
		return errorf(alertIllegalParameter, "tlcp: server's ephemeral ECDHE key is invalid: %v", err)
	}
	ka.peerEphe = ra
	return nil
}

func (ka *ecdheKeyAgreement) generateClientKeyExchange(cfg *Config, encCert *smx509.Certificate, clientPair *CertificatePair) ([]byte, *clientKeyExchangeMsg, error) {
	if clientPair == nil || !clientPair.hasEnc() {
		return nil, nil, errorf(alertHandshakeFailure, "tlcp: ECDHE suites need a client encryption certificate and key")
	}
	kx, ok := keyExchangerOf(clientPair.Enc.PrivateKey)
	if !ok {
		return nil, nil, errorf(alertInternalError, "tlcp: ECDHE suites need the encryption key as an *sm2.PrivateKey or a tlcp.SM2KeyExchanger, have %T", clientPair.Enc.PrivateKey)
	}
	pa, err := sm2PublicKey(encCert)
	if err != nil {
		return nil, nil, err
	}
	ke, err := kx.NewKeyExchange(nil, premasterLen, false)
	if err != nil {
		return nil, nil, errorf(alertInternalError, "tlcp: starting the SM2 key exchange: %w", err)
	}
	key, _, err := ke.Respond(cfg.rand(), pa, nil, ka.peerEphe)
	if err != nil {
		return nil, nil, errorf(alertIllegalParameter, "tlcp: SM2 key exchange failed: %w", err)
	}
	rb := ke.EphemeralPublicKey()
	if rb == nil || len(key) != premasterLen {
		return nil, nil, errorf(alertInternalError, "tlcp: the SM2 key exchange returned no ephemeral key or a key of %d bytes, want %d", len(key), premasterLen)
	}
	return key, &clientKeyExchangeMsg{params: marshalECDHEParams(rb.Bytes()), vector: cfg.ClientECDHEFraming71}, nil
}
