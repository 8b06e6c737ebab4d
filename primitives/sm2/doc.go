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
// A public key used more than once (from its second verification,
// encryption, ECDH or key exchange on) caches a 4 KiB table of multiples of
// 2^(64j)·P, j = 0…3, which cuts those operations to a quarter of their
// doublings; encryption, ECDH and the key exchange use it in constant time.
//
// Public keys are parsed at the cost of one on-curve check (plus a square
// root for compressed input): a valid uncompressed encoding is kept as the
// key's encoding rather than recomputed.
package sm2
