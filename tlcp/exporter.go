// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// Keying material exporters: RFC 5705 over the TLCP PRF, RFC 8446 §7.5 for
// TLS 1.3. A handshake leaves in the Conn a function that holds only what
// the exporter needs (the TLCP master secret and the randoms, or TLS 1.3's
// exporter_master_secret), as crypto/tls does.

// ekmFunc exports length bytes of keying material for label and context
// (nil: no context).
type ekmFunc func(label string, context []byte, length int) ([]byte, error)

var errEKMBeforeHandshake = errors.New("tlcp: ExportKeyingMaterial is unavailable before the handshake completes")

// ExportKeyingMaterial returns length bytes of keying material derived from
// the connection's secrets for label and context, as crypto/tls's
// ConnectionState.ExportKeyingMaterial: RFC 5705 with the TLCP PRF
// (P_SM3), or RFC 8446 §7.5's TLS-Exporter with HKDF-SM3. In TLCP a nil
// context and an empty one give different results (RFC 5705 §4); in TLS
// 1.3 they are the same. TLCP has no
// extended master secret, so what a TLCP exporter gives is bound to the
// handshake's randoms and master secret but, as in TLS 1.2 without RFC
// 7627, not to the certificates; TLCP refuses the labels its own key
// schedule uses.
func (c *Conn) ExportKeyingMaterial(label string, context []byte, length int) ([]byte, error) {
	c.handshakeMutex.Lock()
	ekm := c.ekm
	c.handshakeMutex.Unlock()
	if ekm == nil || !c.isHandshakeComplete.Load() {
		return nil, errEKMBeforeHandshake
	}
	return ekm(label, context, length)
}

// ExportKeyingMaterial is Conn.ExportKeyingMaterial for the connection the
// state was taken from (the form of crypto/tls, for code that only has a
// ConnectionState, e.g. from ConnectionStateFromRequest).
func (cs *ConnectionState) ExportKeyingMaterial(label string, context []byte, length int) ([]byte, error) {
	if cs.ekm == nil || !cs.HandshakeComplete {
		return nil, errEKMBeforeHandshake
	}
	return cs.ekm(label, context, length)
}

// maxEKMLength bounds an export: P_SM3 and HKDF-Expand-SM3 give at most
// 255 × 32 bytes (RFC 5869 §2.3), and the TLCP PRF is held to the same.
const maxEKMLength = 255 * 32

// tlcpExporter is RFC 5705 §4 over the TLCP PRF, from the handshake's
// prepared master secret and randoms. It is not inlined into establishKeys,
// which lies on the resumed handshake's path to the key block's PRF and
// must stay small (stack_test.go).
//
//go:noinline
func tlcpExporter(master *ciphersuite.Master, clientRandom, serverRandom []byte) ekmFunc {
	cr, sr := append([]byte(nil), clientRandom...), append([]byte(nil), serverRandom...)
	return func(label string, context []byte, length int) ([]byte, error) {
		switch label {
		case ciphersuite.LabelClientFinished, ciphersuite.LabelServerFinished, "master secret", "key expansion":
			// RFC 5705 §4: a label of the key schedule could export its keys.
			return nil, fmt.Errorf("tlcp: ExportKeyingMaterial: reserved label %q", label)
		}
		if length < 0 || length > maxEKMLength {
			return nil, fmt.Errorf("tlcp: ExportKeyingMaterial: length %d out of range", length)
		}
		if len(context) >= 1<<16 {
			return nil, errors.New("tlcp: ExportKeyingMaterial: context too long")
		}
		return master.ExportKeyingMaterial(label, cr, sr, context, length), nil
	}
}

// tls13Exporter is RFC 8446 §7.5's TLS-Exporter from exporter_master_secret.
func tls13Exporter(exporterMasterSecret []byte) ekmFunc {
	return func(label string, context []byte, length int) ([]byte, error) {
		if length < 0 || length > maxEKMLength {
			return nil, fmt.Errorf("tlcp: ExportKeyingMaterial: length %d out of range", length)
		}
		return ciphersuite.TLS13Exporter(exporterMasterSecret, label, context, length), nil
	}
}
