// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// Alert levels (INTEROP.md §7).
const (
	alertLevelWarning = 1
	alertLevelError   = 2
)

// alert is an alert description.
type alert uint8

// Alert descriptions, GB/T 38636-2020 6.4.3.3 (0–100) and GM/T 0024-2014
// Table 1 (200–205, recognised only; this package never sends them).
const (
	alertCloseNotify            alert = 0
	alertUnexpectedMessage      alert = 10
	alertBadRecordMAC           alert = 20
	alertDecryptionFailed       alert = 21
	alertRecordOverflow         alert = 22
	alertDecompressionFailure   alert = 30
	alertHandshakeFailure       alert = 40
	alertBadCertificate         alert = 42
	alertUnsupportedCertificate alert = 43
	alertCertificateRevoked     alert = 44
	alertCertificateExpired     alert = 45
	alertCertificateUnknown     alert = 46
	alertIllegalParameter       alert = 47
	alertUnknownCA              alert = 48
	alertAccessDenied           alert = 49
	alertDecodeError            alert = 50
	alertDecryptError           alert = 51
	alertProtocolVersion        alert = 70
	alertInsufficientSecurity   alert = 71
	alertInternalError          alert = 80
	alertUserCanceled           alert = 90
	alertNoRenegotiation        alert = 100
	alertUnsupportedSite2Site   alert = 200
	alertNoArea                 alert = 201
	alertUnsupportedAreaType    alert = 202
	alertBadIBCParam            alert = 203
	alertUnsupportedIBCParam    alert = 204
	alertIdentityNeed           alert = 205
)

// Alert descriptions that only TLS 1.3 has (RFC 8446 §6.2).
const (
	alertMissingExtension      alert = 109
	alertUnsupportedExtension  alert = 110
	alertUnrecognizedName      alert = 112
	alertUnknownPSKIdentity    alert = 115
	alertCertificateRequired   alert = 116
	alertNoApplicationProtocol alert = 120
)

var alertText = map[alert]string{
	alertCloseNotify:            "close notify",
	alertUnexpectedMessage:      "unexpected message",
	alertBadRecordMAC:           "bad record MAC",
	alertDecryptionFailed:       "decryption failed",
	alertRecordOverflow:         "record overflow",
	alertDecompressionFailure:   "decompression failure",
	alertHandshakeFailure:       "handshake failure",
	alertBadCertificate:         "bad certificate",
	alertUnsupportedCertificate: "unsupported certificate",
	alertCertificateRevoked:     "revoked certificate",
	alertCertificateExpired:     "expired certificate",
	alertCertificateUnknown:     "unknown certificate",
	alertIllegalParameter:       "illegal parameter",
	alertUnknownCA:              "unknown certificate authority",
	alertAccessDenied:           "access denied",
	alertDecodeError:            "error decoding message",
	alertDecryptError:           "error decrypting message",
	alertProtocolVersion:        "protocol version not supported",
	alertInsufficientSecurity:   "insufficient security level",
	alertInternalError:          "internal error",
	alertUserCanceled:           "user canceled",
	alertNoRenegotiation:        "no renegotiation",
	alertUnsupportedSite2Site:   "unsupported site2site",
	alertNoArea:                 "no area",
	alertUnsupportedAreaType:    "unsupported area type",
	alertBadIBCParam:            "bad IBC parameters",
	alertUnsupportedIBCParam:    "unsupported IBC parameters",
	alertIdentityNeed:           "identity needed",
	alertMissingExtension:       "missing extension",
	alertUnsupportedExtension:   "unsupported extension",
	alertUnrecognizedName:       "unrecognized name",
	alertUnknownPSKIdentity:     "unknown PSK identity",
	alertCertificateRequired:    "certificate required",
	alertNoApplicationProtocol:  "no application protocol",

	// RFC 6066 §8 (ocsp_staple.go).
	alertBadCertificateStatusResponse: "bad certificate status response",
}

func (e alert) String() string {
	if s, ok := alertText[e]; ok {
		return s
	}
	return "alert(" + strconv.Itoa(int(e)) + ")"
}

func (e alert) Error() string { return "tlcp: " + e.String() }

// AlertError is an alert received from the peer. Errors caused by one are
// *net.OpError values with Op "remote error" wrapping an AlertError, as in
// crypto/tls; use errors.As to inspect the code.
type AlertError uint8

func (e AlertError) Error() string { return alert(e).Error() }

// An AlertEvent is an alert as Config.OnAlert sees it.
type AlertEvent struct {
	// Sent is true for an alert this side sent, false for one received.
	Sent bool
	// Level is the alert's level on the wire: 1 (warning) or 2 (fatal).
	// TLS 1.3 treats every alert but close_notify and user_canceled as
	// fatal whatever its level says.
	Level uint8
	// Description is the alert; its Error method names it.
	Description AlertError
}

// onAlert reports an alert to Config.OnAlert.
func (c *Conn) onAlert(sent bool, level uint8, desc uint8) {
	if c.config != nil && c.config.OnAlert != nil {
		c.config.OnAlert(c, AlertEvent{Sent: sent, Level: level, Description: AlertError(desc)})
	}
}

// protocolError is a failure found locally: it carries the alert that tells
// the peer about it and a message that tells the application what went
// wrong. Every check in the handshake and record layer returns one.
type protocolError struct {
	alert alert
	err   error
}

func (e *protocolError) Error() string { return e.err.Error() }
func (e *protocolError) Unwrap() error { return e.err }

// errorf makes a protocolError. The message should start with "tlcp: " and
// say what failed, from this side's point of view.
func errorf(a alert, format string, args ...any) error {
	return &protocolError{alert: a, err: fmt.Errorf(format, args...)}
}

// alertFor is the one place that decides which alert an error is reported
// with. Errors that carry no alert of their own (an I/O error, a failing
// key) are internal errors, which is also the safe default.
func alertFor(err error) alert {
	var pe *protocolError
	switch {
	case errors.As(err, &pe):
		return pe.alert
	case errors.Is(err, ciphersuite.ErrBadRecordMAC):
		// Padding and MAC failures are one alert (INTEROP.md §1.5).
		return alertBadRecordMAC
	case errors.Is(err, ciphersuite.ErrRecordOverflow):
		return alertRecordOverflow
	case errors.Is(err, ciphersuite.ErrSequenceOverflow):
		// 2^64-1 records in one direction: TLCP has no way to rekey, so
		// the connection ends, as crypto/tls ends a TLS 1.2 connection.
		// Only a receiver can say so; a sender cannot seal the alert.
		return alertInternalError
	}
	var a alert
	if errors.As(err, &a) {
		return a
	}
	return alertInternalError
}
