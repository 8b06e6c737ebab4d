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
// The arithmetic lives in internal packages: constant-time field and scalar
// arithmetic, and points with complete addition formulas. Only signature
// verification, which handles public values alone, uses variable-time
// multi-scalar multiplication, with a fixed table of odd multiples of G and,
// from a key's second verification on, a table of the key cached in it.
//
// Public keys are parsed at the cost of one on-curve check (plus a square
// root for compressed input): a valid uncompressed encoding is kept as the
// key's encoding rather than recomputed.
package sm2
