// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"errors"
	"fmt"
)

// ID is a TLCP cipher suite code point, as carried in ClientHello and ServerHello.
type ID = uint16

// Cipher suites of GB/T 38636-2020 (TLCP), the legacy GM/T 0024-2014 ones, and this
// project's private ZUC-128 suites. Only the suites whose Suite.Supported is true can be
// negotiated; the others are known so that they print by name and fail with a clear error.
const (
	// GM/T 0024-2014 SM1 suites. SM1 is a classified, hardware-only cipher.
	ECDHE_SM1_SM3 ID = 0xE001
	ECC_SM1_SM3   ID = 0xE003
	IBSDH_SM1_SM3 ID = 0xE005
	IBC_SM1_SM3   ID = 0xE007
	RSA_SM1_SM3   ID = 0xE009
	RSA_SM1_SHA1  ID = 0xE00A

	// GB/T 38636-2020 suites (the CBC ones are also GM/T 0024-2014's X_SM4_SM3).
	ECDHE_SM4_CBC_SM3  ID = 0xE011
	ECC_SM4_CBC_SM3    ID = 0xE013
	IBSDH_SM4_CBC_SM3  ID = 0xE015
	IBC_SM4_CBC_SM3    ID = 0xE017
	RSA_SM4_CBC_SM3    ID = 0xE019
	RSA_SM4_SHA1       ID = 0xE01A // GM/T 0024-2014 only
	RSA_SM4_CBC_SHA256 ID = 0xE01C
	ECDHE_SM4_GCM_SM3  ID = 0xE051
	ECC_SM4_GCM_SM3    ID = 0xE053
	IBSDH_SM4_GCM_SM3  ID = 0xE055
	IBC_SM4_GCM_SM3    ID = 0xE057
	RSA_SM4_GCM_SM3    ID = 0xE059
	RSA_SM4_GCM_SHA256 ID = 0xE05A

	// This project's private, opt-in ZUC-128 suites (0xFFxx is reserved for private
	// use), defined in ZUC.md. Never offered by default.
	ECDHE_ZUC128_SM3 ID = 0xFF11
	ECC_ZUC128_SM3   ID = 0xFF13
)

// KeyExchange is the key exchange (and authentication) family of a suite.
type KeyExchange int

const (
	// KeyExchangeECC: the client encrypts the premaster secret with SM2 to the
	// server's encryption certificate.
	KeyExchangeECC KeyExchange = iota + 1
	// KeyExchangeECDHE: the SM2 key exchange protocol (GB/T 32918.3), server as
	// initiator, with both sides' encryption key pairs.
	KeyExchangeECDHE
	// KeyExchangeIBC: SM9 identity-based encryption of the premaster. Not implemented.
	KeyExchangeIBC
	// KeyExchangeIBSDH: SM9 identity-based key exchange. Not implemented.
	KeyExchangeIBSDH
	// KeyExchangeRSA: RSA encryption of the premaster. Not implemented.
	KeyExchangeRSA
)

func (k KeyExchange) String() string {
	switch k {
	case KeyExchangeECC:
		return "ECC"
	case KeyExchangeECDHE:
		return "ECDHE"
	case KeyExchangeIBC:
		return "IBC"
	case KeyExchangeIBSDH:
		return "IBSDH"
	case KeyExchangeRSA:
		return "RSA"
	}
	return fmt.Sprintf("KeyExchange(%d)", int(k))
}

// Cipher is the record protection of a suite.
type Cipher int

const (
	// CipherSM4CBC: SM4-CBC with HMAC, MAC-then-encrypt, explicit IV (tlcp/INTEROP.md §1.5).
	CipherSM4CBC Cipher = iota + 1
	// CipherSM4GCM: SM4-GCM with a 4-byte implicit and 8-byte explicit nonce (§1.6).
	CipherSM4GCM
	// CipherZUC128: ZUC-128 with HMAC-SM3, encrypt-then-MAC (ZUC.md).
	CipherZUC128
	// CipherSM1: SM1-CBC with HMAC. SM1 has no software implementation.
	CipherSM1
	// CipherSM4CCM: SM4-CCM with a 16-byte tag, TLS 1.3 only (RFC 8998; tls13.go).
	CipherSM4CCM
)

func (c Cipher) String() string {
	switch c {
	case CipherSM4CBC:
		return "SM4-CBC"
	case CipherSM4GCM:
		return "SM4-GCM"
	case CipherZUC128:
		return "ZUC-128"
	case CipherSM1:
		return "SM1-CBC"
	case CipherSM4CCM:
		return "SM4-CCM"
	}
	return fmt.Sprintf("Cipher(%d)", int(c))
}

// Hash names the hash of a suite: its PRF and transcript hash, and the HMAC hash of
// its record MAC where it has one.
type Hash int

const (
	HashSM3 Hash = iota + 1
	HashSHA256
	HashSHA1 // record MAC only (RSA_*_SHA1 legacy suites); their PRF is unspecified
)

func (h Hash) String() string {
	switch h {
	case HashSM3:
		return "SM3"
	case HashSHA256:
		return "SHA-256"
	case HashSHA1:
		return "SHA-1"
	}
	return fmt.Sprintf("Hash(%d)", int(h))
}

// Suite describes one cipher suite. The values returned by Lookup, Get and All point
// into the package's table and must not be modified.
type Suite struct {
	ID          ID
	Name        string // GB/T 38636-2020 name, e.g. "ECC_SM4_GCM_SM3"
	Alias       string // GM/T 0024-2014 name where it differs, e.g. "ECC_SM4_SM3"
	KeyExchange KeyExchange
	Cipher      Cipher
	Hash        Hash

	// Lengths, per direction, of the key-block parts (tlcp/INTEROP.md §4.2): MAC key,
	// encryption key and IV (the GCM implicit nonce; unused by the CBC suites).
	MACLen, KeyLen, IVLen int

	// Supported reports whether this package and tlcp implement the suite.
	Supported bool
	// OptIn marks suites that are negotiated only when the application lists them
	// (the private ZUC suites); they are never in DefaultPreference.
	OptIn bool
}

func (s *Suite) String() string { return s.Name }

// The key-block lengths of the record-protection families.
const (
	cbcMACLen, cbcKeyLen, cbcIVLen = 32, 16, 16
	gcmMACLen, gcmKeyLen, gcmIVLen = 0, 16, 4
	zucMACLen, zucKeyLen, zucIVLen = 32, 16, 16
)

func cbcSuite(id ID, name, alias string, kx KeyExchange, h Hash, supported bool) Suite {
	macLen := cbcMACLen
	if h == HashSHA1 {
		macLen = 20
	}
	return Suite{ID: id, Name: name, Alias: alias, KeyExchange: kx, Cipher: CipherSM4CBC,
		Hash: h, MACLen: macLen, KeyLen: cbcKeyLen, IVLen: cbcIVLen, Supported: supported}
}

func gcmSuite(id ID, name string, kx KeyExchange, h Hash, supported bool) Suite {
	return Suite{ID: id, Name: name, KeyExchange: kx, Cipher: CipherSM4GCM,
		Hash: h, MACLen: gcmMACLen, KeyLen: gcmKeyLen, IVLen: gcmIVLen, Supported: supported}
}

func sm1Suite(id ID, name string, kx KeyExchange, h Hash) Suite {
	// SM1 is a 128-bit block cipher with a 128-bit key used in CBC mode.
	macLen := 32
	if h == HashSHA1 {
		macLen = 20
	}
	return Suite{ID: id, Name: name, KeyExchange: kx, Cipher: CipherSM1,
		Hash: h, MACLen: macLen, KeyLen: 16, IVLen: 16}
}

func zucSuite(id ID, name string, kx KeyExchange) Suite {
	return Suite{ID: id, Name: name, KeyExchange: kx, Cipher: CipherZUC128, Hash: HashSM3,
		MACLen: zucMACLen, KeyLen: zucKeyLen, IVLen: zucIVLen, Supported: true, OptIn: true}
}

// suites is the table, in code-point order (tlcp/INTEROP.md §2.1, §2.1, ZUC.md).
var suites = [...]Suite{
	sm1Suite(ECDHE_SM1_SM3, "ECDHE_SM1_SM3", KeyExchangeECDHE, HashSM3),
	sm1Suite(ECC_SM1_SM3, "ECC_SM1_SM3", KeyExchangeECC, HashSM3),
	sm1Suite(IBSDH_SM1_SM3, "IBSDH_SM1_SM3", KeyExchangeIBSDH, HashSM3),
	sm1Suite(IBC_SM1_SM3, "IBC_SM1_SM3", KeyExchangeIBC, HashSM3),
	sm1Suite(RSA_SM1_SM3, "RSA_SM1_SM3", KeyExchangeRSA, HashSM3),
	sm1Suite(RSA_SM1_SHA1, "RSA_SM1_SHA1", KeyExchangeRSA, HashSHA1),
	cbcSuite(ECDHE_SM4_CBC_SM3, "ECDHE_SM4_CBC_SM3", "ECDHE_SM4_SM3", KeyExchangeECDHE, HashSM3, true),
	cbcSuite(ECC_SM4_CBC_SM3, "ECC_SM4_CBC_SM3", "ECC_SM4_SM3", KeyExchangeECC, HashSM3, true),
	cbcSuite(IBSDH_SM4_CBC_SM3, "IBSDH_SM4_CBC_SM3", "IBSDH_SM4_SM3", KeyExchangeIBSDH, HashSM3, false),
	cbcSuite(IBC_SM4_CBC_SM3, "IBC_SM4_CBC_SM3", "IBC_SM4_SM3", KeyExchangeIBC, HashSM3, false),
	cbcSuite(RSA_SM4_CBC_SM3, "RSA_SM4_CBC_SM3", "RSA_SM4_SM3", KeyExchangeRSA, HashSM3, false),
	cbcSuite(RSA_SM4_SHA1, "RSA_SM4_SHA1", "", KeyExchangeRSA, HashSHA1, false),
	cbcSuite(RSA_SM4_CBC_SHA256, "RSA_SM4_CBC_SHA256", "", KeyExchangeRSA, HashSHA256, false),
	gcmSuite(ECDHE_SM4_GCM_SM3, "ECDHE_SM4_GCM_SM3", KeyExchangeECDHE, HashSM3, true),
	gcmSuite(ECC_SM4_GCM_SM3, "ECC_SM4_GCM_SM3", KeyExchangeECC, HashSM3, true),
	gcmSuite(IBSDH_SM4_GCM_SM3, "IBSDH_SM4_GCM_SM3", KeyExchangeIBSDH, HashSM3, false),
	gcmSuite(IBC_SM4_GCM_SM3, "IBC_SM4_GCM_SM3", KeyExchangeIBC, HashSM3, false),
	gcmSuite(RSA_SM4_GCM_SM3, "RSA_SM4_GCM_SM3", KeyExchangeRSA, HashSM3, false),
	gcmSuite(RSA_SM4_GCM_SHA256, "RSA_SM4_GCM_SHA256", KeyExchangeRSA, HashSHA256, false),
	zucSuite(ECDHE_ZUC128_SM3, "ECDHE_ZUC128_SM3", KeyExchangeECDHE),
	zucSuite(ECC_ZUC128_SM3, "ECC_ZUC128_SM3", KeyExchangeECC),
}

// Lookup returns the suite with the given code point, supported or not, or nil if
// the code point is not a TLCP suite.
func Lookup(id ID) *Suite {
	for i := range suites {
		if suites[i].ID == id {
			return &suites[i]
		}
	}
	return nil
}

// ErrUnsupported is wrapped by the errors of Get and NewRecordProtection for suites
// that are known but not implemented.
var ErrUnsupported = errors.New("ciphersuite: cipher suite not supported")

// Get returns the suite with the given code point if it is implemented. Otherwise it
// returns an error that names the suite and says why it cannot be used.
func Get(id ID) (*Suite, error) {
	s := Lookup(id)
	if s == nil {
		return nil, fmt.Errorf("ciphersuite: unknown cipher suite %s", Name(id))
	}
	if err := s.supportedErr(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Suite) supportedErr() error {
	if s.Supported {
		return nil
	}
	var why string
	switch {
	case s.Cipher == CipherSM1:
		why = "SM1 is a hardware-only cipher"
	case s.KeyExchange == KeyExchangeIBC || s.KeyExchange == KeyExchangeIBSDH:
		why = "SM9 identity-based key exchange is not implemented"
	case s.KeyExchange == KeyExchangeRSA:
		why = "RSA key exchange is not implemented"
	default:
		why = "not implemented"
	}
	return fmt.Errorf("%w: %s (0x%04X): %s", ErrUnsupported, s.Name, s.ID, why)
}

// Name returns the name of the TLCP or TLS 1.3 suite with the given code point, or
// its value in hexadecimal ("0xE0A1") if it is neither.
func Name(id ID) string {
	if s := Lookup(id); s != nil {
		return s.Name
	}
	if s := LookupTLS13(id); s != nil {
		return s.Name
	}
	if id == 0x00FF {
		// Commonly appended by clients (tlcp/INTEROP.md §2.2); it is not a suite.
		return "EMPTY_RENEGOTIATION_INFO_SCSV"
	}
	return fmt.Sprintf("0x%04X", id)
}

// All returns every suite the package knows, supported or not, in code-point order.
// The returned slice is a fresh copy; the suites it points to must not be modified.
func All() []*Suite {
	all := make([]*Suite, len(suites))
	for i := range suites {
		all[i] = &suites[i]
	}
	return all
}

// DefaultPreference returns the suites offered and preferred by default, most
// preferred first: GCM before CBC, ECC before ECDHE (INTEROP.md §2.2). The opt-in
// ZUC suites are never included. The returned slice is a fresh copy.
func DefaultPreference() []ID {
	return []ID{ECC_SM4_GCM_SM3, ECC_SM4_CBC_SM3, ECDHE_SM4_GCM_SM3, ECDHE_SM4_CBC_SM3}
}
