// Package smx509 parses, creates and verifies X.509 certificates, certificate
// requests and revocation lists signed with SM2-with-SM3 (GB/T 20518,
// GM/T 0015), as well as the RSA, ECDSA and Ed25519 kinds that crypto/x509
// handles. Its API follows crypto/x509 name for name, so code written against
// the standard library reads the same here.
//
// # Keys
//
// Key encodings are not here but in package x509 of this module
// (github.com/shangmi-go/shangmi/x509), which this package builds on:
// x509.ParsePKIXPublicKey and MarshalPKIXPublicKey, ParsePKCS8PrivateKey and
// MarshalPKCS8PrivateKey, ParseECPrivateKey and MarshalECPrivateKey, the
// password-protected PKCS #8 and the PEM key files (ParsePrivateKeyPEM). Code
// moving from crypto/x509 finds its certificate functions here under the same
// names and its key functions there. SM2 keys are *sm2.PublicKey and
// *sm2.PrivateKey (package primitives/sm2) wherever a key appears, as in
// Certificate.PublicKey and the signer of CreateCertificate.
//
// # SM2 signatures and the signer ID
//
// An SM2 signature hashes a value Z derived from a signer identifier. PKI
// practice (GM/T 0009, GM/T 0015) uses the default identifier
// "1234567812345678", and certificates this package creates are signed with
// it. OpenSSL 3.0, however, signs SM2 certificates with an empty identifier
// unless it is given "-sigopt distid:1234567812345678", and such certificates
// are in use. Verification therefore tries the default identifier first and,
// if that fails, the empty one. Both are fixed, public values, so accepting
// the second gives a forger at most two digests to aim at instead of one (one
// bit of security out of 128); any other identifier is rejected.
//
// # Parsing
//
// Every parser is written with golang.org/x/crypto/cryptobyte and requires DER
// where the ecosystem does. A few deviations seen in deployed SM2 certificates
// are tolerated and documented where they are handled:
//
//   - SM2-with-SM3 AlgorithmIdentifiers with an explicit NULL parameter
//     (the standard form has none);
//   - public keys whose algorithm is sm2p256v1 itself rather than
//     id-ecPublicKey with the sm2p256v1 curve;
//   - negative serial numbers, which some CA products issued;
//   - certificate request attributes (other than extensionRequest) whose
//     values are not wrapped in a SET, as CFCA's SM2 requests have them;
//   - PrintableString values holding '*', '&', '@' or '_', as crypto/x509 does
//     for the first two.
//
// Certificates come from untrusted peers, so parsing allocates in
// proportion to what it has checked: every list is checked element by
// element before anything is sized by its count, and long extension lists
// are checked for duplicates in n log n. A certificate costs at most 16
// bytes of allocation per input byte, plus about 150 bytes per URI (the
// size of a url.URL), plus a few KiB; a fuzz target holds the parser to
// that bound.
//
// # Verification
//
// (*Certificate).Verify builds chains to the given roots and checks validity
// periods, basic constraints and path lengths, name constraints, key usage
// and extended key usage, and the host name. There are no built-in SM2 roots:
// VerifyOptions.Roots should be set; when it is nil the operating system's
// PEM bundle is read, which holds only international roots.
//
// Revocation is checked from CRLs here (RevocationList) and from OCSP
// responses in package smx509/ocsp, which signs and checks them through
// SignTBS and ParseSignatureAlgorithmIdentifier so that both use this
// package's one table of signature algorithms.
package smx509
