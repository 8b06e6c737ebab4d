// Package sm2 implements the SM2 elliptic curve public key algorithms of
// GB/T 32918-2016 (GM/T 0003-2012) on the recommended curve sm2p256v1:
// digital signatures (part 2), key exchange (part 3) and public key
// encryption (part 4), with the encodings of GM/T 0009-2012.
//
// Signatures hash a Z value derived from the signer's identifier and public
// key (DefaultUID unless told otherwise) together with the message, and are
// encoded as a DER SEQUENCE of r and s. Nonces are hedged: they are derived
// from fresh randomness, the private key and the digest, so a failing random
// source degrades to deterministic signing instead of repeating a nonce.
//
// # Key representation
//
// An SM2 key is a *PublicKey or a *PrivateKey of this package, and nothing
// else, everywhere in this module: package x509 parses SubjectPublicKeyInfo,
// PKCS #8 and SEC 1 into them and writes them, smx509's Certificate.PublicKey
// holds a *PublicKey, and tlcp's certificates and key files use them. Their
// only encodings are bytes: Bytes (04 || X || Y), BytesCompressed and
// NewPublicKey for public keys, Bytes (the 32-byte scalar) and NewPrivateKey
// for private keys. Both types are opaque, validated when made and safe for
// concurrent use, and *PrivateKey is the crypto.Signer and crypto.Decrypter.
// This is the shape Go gives crypto/ecdh and, since Go 1.25, crypto/ecdsa's
// Bytes and Parse functions.
//
// SM2 keys are not *ecdsa.PublicKey and *ecdsa.PrivateKey, although gmsm's
// are, because Go is closing that road. crypto/ecdsa's byte-oriented API
// (PublicKey.Bytes, ParseUncompressedPublicKey, ParseRawPrivateKey) accepts
// the NIST curves only, so an ecdsa key on sm2p256v1 can be built and read
// only through the big.Int fields X, Y and D, deprecated since Go 1.26; a
// custom elliptic.Curve is itself deprecated (its methods since Go 1.21),
// crypto/ecdsa handles such curves only in a math/big legacy implementation
// and refuses them in FIPS 140-only mode; and an ecdsa key on the SM2 curve signs
// ECDSA, not SM2, when handed to anything that calls ecdsa.Sign.
//
// For code that holds SM2 keys as crypto/ecdsa keys (gmsm users, mostly)
// there is one explicit bridge, in ecdsa.go: PublicKey.ECDSA and
// PrivateKey.ECDSA give a copy on P256(), and PublicKeyFromECDSA and
// PrivateKeyFromECDSA convert back, accepting any implementation of the curve
// (gmsm's included) by its parameters and validating the key. Convert once,
// where such a key enters; x509 and smx509 refuse an SM2 key held as an
// ecdsa key with an error naming the conversion rather than converting it
// silently. P256, an elliptic.Curve on this package's constant-time
// arithmetic, exists for the bridge and elliptic.Marshal-style code; its
// Params are also the plain way to read the curve's constants. The bridge is
// not deprecated, but it rests on the deprecated ecdsa fields and will keep
// working only as long as Go keeps them (the Go 1 promise keeps them
// compiling; the legacy curve path inside crypto/ecdsa may go sooner). New
// code should not need it.
//
// Ciphertexts are C1 || C3 || C2 by default (GB/T 32918.4-2016), optionally
// C1 || C2 || C3, compressed C1, or the GM/T 0009 ASN.1 form that TLCP uses.
// Every decryption failure is reported as ErrDecryption.
//
// The arithmetic lives in internal packages. Field elements are Montgomery
// residues modulo p, multiplied by assembly kernels on amd64 (MULX/ADCX/ADOX
// with BMI2 and ADX, MULQ otherwise) and arm64 (MUL/UMULH), and by Go code
// elsewhere and with the purego build tag; on amd64 the point doubling and
// additions are assembly functions over those kernels, and table scans use
// AVX-512 or AVX2. Inversion uses the constant-time safegcd divsteps (in
// assembly on amd64: conditional moves for the divsteps, IMULQ for the
// matrix updates).
//
// Every operation on secrets runs in constant time on every path: key
// generation, signing and the C1 of encryption use a fixed-base comb of odd
// signed 7-bit digits (37 windows of 64 precomputed odd multiples, selected
// by scanning whole windows); decryption and ECDH use signed 5-bit windows over
// a table of the point, also scanned whole. The key exchange computes its
// shared point [t](P + [x̄]R) as one constant-time double-scalar
// multiplication [t]P + [t·x̄]R, odd signed 5-bit digits of both secret
// scalars sharing one chain of doublings, with complete additions at every
// step, since the peer chooses both points and may relate them as it likes.
// Only signature verification, which handles public values alone, uses
// variable-time multi-scalar multiplication (wNAF), with a fixed table of
// odd multiples of G.
//
// Constant time is not the whole story for a key used again and again: the
// instructions do not depend on it, but the data do, and a CPU's power
// draw, and through it its clock, can follow the data (Hertzbleed). Some
// of issue 33's timing runs saw one repeated key differ from another in
// the comb. So the point multiplications that repeat a long-term key are
// blinded: the public key of NewPrivateKey is d·G computed as
// a·G + (d - a)·G for a fresh random a (twice the comb's cost, once per
// parsed key); decryption and ECDH rescale the point's per-call table by a
// fresh random factor (about 1 %, within the benchmark's noise), and ECDH
// over a public key's cached table (below) splits d as the comb does.
// Nonces and ephemeral keys, used once, take the plain comb and tables.
// The scalar arithmetic mod n of signing and of the key exchange still
// takes d's value as an operand, for well under a microsecond per
// operation; keeping d in random shares would be needed to change that,
// and its timing is at the noise floor in every run.
//
// A public key used more than once (from its second verification,
// encryption, ECDH or key exchange on) caches a 4 KiB table of multiples of
// 2^(64j)·P, j = 0…3, which cuts those operations to a quarter of their
// doublings; encryption, ECDH and the key exchange use it in constant time.
//
// Public keys are parsed at the cost of one on-curve check (plus a square
// root for compressed input): a valid uncompressed encoding is kept as the
// key's encoding rather than recomputed.
package sm2
