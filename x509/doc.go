// Package x509 holds the key and algorithm encodings that the SM2/SM3/SM4
// world adds to PKIX: object identifiers and AlgorithmIdentifiers, SM2 keys in
// SubjectPublicKeyInfo, PKCS #8 and SEC 1 form, password-protected PKCS #8
// (PBES2 with PBKDF2-HMAC-SM3 or -SHA-2 and SM4-CBC or AES-CBC, in the
// layouts GmSSL and OpenSSL write; Tongsuo follows OpenSSL) and PEM helpers.
//
// Keys of other types (RSA, ECDSA on the NIST curves, Ed25519, X25519) are
// handed to Go's crypto/x509, so one call site handles every key a TLCP or TLS
// deployment meets. Certificates live in package smx509.
//
// An SM2 public key is written the way GB/T 20518 (GM/T 0015) and every
// maintained implementation write it: algorithm id-ecPublicKey with the named
// curve sm2p256v1 (1.2.156.10197.1.301) as parameter. When parsing, the curve OID is
// also accepted in place of id-ecPublicKey, because early GmSSL releases and
// some hardware tokens wrote it that way.
package x509
