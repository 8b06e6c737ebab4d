// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/shangmi-go/shangmi/tlcp"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// writeSession writes s_client's session as OpenSSL writes an SSL_SESSION
// (ssl/ssl_asn1.c: "SSL SESSION PARAMETERS" PEM), so that Tongsuo's
// `sess_id -text` prints it and its `s_client -sess_in` can resume it
// against a server that still caches it:
//
//	SEQUENCE {
//	  version INTEGER (1), ssl_version INTEGER (0x0101 for TLCP/NTLS),
//	  cipher OCTET STRING (2 bytes), session_id OCTET STRING,
//	  master_key OCTET STRING,
//	  time [1] INTEGER, timeout [2] INTEGER, peer [3] Certificate,
//	  verify_result [5] INTEGER, hostname [6] OCTET STRING OPTIONAL }
//
// The master secret is what the key log gives; the session ID is the
// ServerHello's, from the trace. A second block, "SHANGMI TLCP SESSION",
// holds the session as tlcp marshals it (with the server's certificates and
// chains, which SSL_SESSION has no room for); -sess_in reads that one, and
// OpenSSL's reader skips it.
func writeSession(path string, info *connInfo, cs *tlcp.ClientSessionState, serverName string, sniSent bool) error {
	info.keys.mu.Lock()
	master := info.keys.master
	info.keys.mu.Unlock()
	if len(master) != 48 {
		return errors.New("-sess_out: the handshake gave no master secret")
	}
	if len(info.sessionID) == 0 {
		return errors.New("-sess_out: the server sent no session ID, so the session cannot be resumed (GmSSL never resumes)")
	}
	st := info.state
	verifyResult := int64(0)
	if info.verifyErr != nil || info.verified == nil {
		verifyResult = 20 // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, near enough
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(1)
		b.AddASN1Int64(tlcp.VersionTLCP)
		b.AddASN1OctetString([]byte{byte(st.CipherSuite >> 8), byte(st.CipherSuite)})
		b.AddASN1OctetString(info.sessionID)
		b.AddASN1OctetString(master)
		b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1Int64(time.Now().Unix())
		})
		b.AddASN1(cbasn1.Tag(2).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1Int64(3600) // tlcp's default session lifetime
		})
		if st.PeerSignCertificate != nil {
			b.AddASN1(cbasn1.Tag(3).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddBytes(st.PeerSignCertificate.Raw)
			})
		}
		b.AddASN1(cbasn1.Tag(5).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1Int64(verifyResult)
		})
		if sniSent && serverName != "" {
			b.AddASN1(cbasn1.Tag(6).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1OctetString([]byte(serverName))
			})
		}
	})
	der, err := b.Bytes()
	if err != nil {
		return err
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "SSL SESSION PARAMETERS", Bytes: der})
	if cs != nil {
		ours, err := cs.MarshalBinary()
		if err != nil {
			return err
		}
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: sessionPEMType, Bytes: ours})...)
	}
	return os.WriteFile(path, out, 0o600)
}

const sessionPEMType = "SHANGMI TLCP SESSION"

// writeTicket writes a TLS 1.3 session, the last ticket the server sent,
// as tlcp marshals it; -sess_in reads it. OpenSSL's SSL_SESSION of a TLS
// 1.3 session holds its own ticket encoding, which smtool does not write.
func writeTicket(path string, cache tlcp.ClientSessionCache, key string) error {
	cs, ok := cache.Get(key)
	if !ok || cs == nil || cs.Version() != tlcp.VersionTLS13 {
		return errors.New("-sess_out: the server sent no TLS 1.3 session ticket (or -no_ticket dropped it), so there is no session to write")
	}
	ours, err := cs.MarshalBinary()
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: sessionPEMType, Bytes: ours}), 0o600)
}

// readSession reads a session that -sess_out wrote.
func readSession(path string) (*tlcp.ClientSessionState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sawOpenSSL := false
	for rest := data; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		switch b.Type {
		case sessionPEMType:
			cs, err := tlcp.ParseClientSessionState(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("-sess_in %s: %w", path, err)
			}
			return cs, nil
		case "SSL SESSION PARAMETERS":
			sawOpenSSL = true
		}
	}
	if sawOpenSSL {
		return nil, fmt.Errorf("-sess_in %s: the file holds only an OpenSSL SSL_SESSION (written by openssl or Tongsuo?), which lacks the server's encryption certificate and chains that a TLCP session keeps; write it with smtool s_client -sess_out", path)
	}
	return nil, fmt.Errorf("-sess_in %s: no session in the file (want the PEM that smtool s_client -sess_out writes)", path)
}
