// Package x509 holds the key and algorithm encodings that the SM2/SM3/SM4
// world adds to PKIX: object identifiers and AlgorithmIdentifiers, SM2 keys in
// SubjectPublicKeyInfo, PKCS #8 and SEC 1 form, password-protected PKCS #8
// and PEM helpers.
//
// # Key files
//
// ParsePrivateKeyPEM and ParsePrivateKeysPEM read the private key files that
// OpenSSL, Tongsuo and GmSSL write:
//
//   - PKCS #8 "PRIVATE KEY", and SEC 1 under "EC PRIVATE KEY" (GmSSL,
//     Tongsuo) and "SM2 PRIVATE KEY" (`openssl ec`), with or without the curve
//     OID and the public key, with the SM2 curve written out as explicit
//     parameters, or after an "EC PARAMETERS" / "SM2 PARAMETERS" block;
//   - "ENCRYPTED PRIVATE KEY": PBES2 with PBKDF2 or scrypt, and SM4-CBC,
//     AES-128/192/256-CBC or DES-EDE3-CBC. The PBKDF2 PRF is HMAC-SM3
//     (under both of its identifiers, in GmSSL's and Tongsuo's layouts),
//     HMAC with SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224,
//     SHA-512/256 or SHA3-224/256/384/512, or HMAC-MD5. PBES1 and PKCS #12
//     schemes are refused by name;
//   - legacy "Proc-Type: 4,ENCRYPTED" / "DEK-Info" PEM encryption with
//     SM4-CBC, AES-128/192/256-CBC or DES-EDE3-CBC;
//   - several keys in one file, as GmSSL 3 writes a TLCP server's signing
//     and encryption keys.
//
// A missing password gives an error wrapping ErrPasswordRequired that names
// the encryption, a wrong one ErrIncorrectPassword; a file that holds no key
// gives an error saying what it holds (DescribePEM).
//
// MarshalPrivateKeyPEMWithPassword writes PBES2 PKCS #8: by default SM4-CBC
// with PBKDF2-HMAC-SM3 as GmSSL reads it; PBES2OptionsForOpenSSL gives
// AES-256-CBC with PBKDF2-HMAC-SHA256 for OpenSSL 3 and most other readers,
// PBES2OptionsForTongsuo SM4-CBC with Tongsuo's HMAC-SM3 identifier. Legacy
// PEM encryption is read but never written.
//
// DecryptWithPassword and EncryptWithPassword apply the same schemes to any
// content named by its AlgorithmIdentifier (the EncryptedData of a PKCS #12
// file, see package smx509/pkcs12); DecryptWithPassword also reads the
// PKCS #12 schemes pbeWithSHA1And3-KeyTripleDES-CBC, -2-KeyTripleDES-CBC,
// -128BitRC2-CBC and -40BitRC2-CBC that old PFX files use.
//
// # KMC-issued keys
//
// ParseSM2EnvelopedKey reads GB/T 35276's SM2EnvelopedKey, the form in
// which a CA's key management centre delivers an encryption key pair to the
// holder of a signing key; SM2EnvelopedKey.Unwrap opens it with that key in
// memory or behind any crypto.Decrypter (smx509.UnwrapSM2EnvelopedKey also
// checks it against the encryption certificate); MarshalSM2EnvelopedKey
// makes one.
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
