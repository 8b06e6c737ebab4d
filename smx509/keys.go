package smx509

import (
	smx "github.com/shangmi-go/shangmi/x509"
)

// The key encodings live in package x509 of this module; they are repeated
// here under crypto/x509's names so that code moving from crypto/x509 finds
// them where it expects them.

// ParsePKIXPublicKey parses a DER SubjectPublicKeyInfo; SM2 keys are returned
// as *sm2.PublicKey. See x509.ParsePKIXPublicKey in this module.
func ParsePKIXPublicKey(der []byte) (any, error) { return smx.ParsePKIXPublicKey(der) }

// MarshalPKIXPublicKey converts a public key (SM2 included) to DER
// SubjectPublicKeyInfo form.
func MarshalPKIXPublicKey(pub any) ([]byte, error) { return smx.MarshalPKIXPublicKey(pub) }

// ParsePKCS8PrivateKey parses an unencrypted PKCS #8 private key; SM2 keys are
// returned as *sm2.PrivateKey.
func ParsePKCS8PrivateKey(der []byte) (any, error) { return smx.ParsePKCS8PrivateKey(der) }

// MarshalPKCS8PrivateKey converts a private key (SM2 included) to PKCS #8 DER.
func MarshalPKCS8PrivateKey(key any) ([]byte, error) { return smx.MarshalPKCS8PrivateKey(key) }

// ParseECPrivateKey parses a SEC 1 EC private key; keys on sm2p256v1 are
// returned as *sm2.PrivateKey, others as *ecdsa.PrivateKey.
func ParseECPrivateKey(der []byte) (any, error) { return smx.ParseECPrivateKey(der) }

// MarshalECPrivateKey converts an SM2 or ECDSA private key to SEC 1 DER.
func MarshalECPrivateKey(key any) ([]byte, error) { return smx.MarshalECPrivateKey(key) }
