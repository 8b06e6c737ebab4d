// Package pkcs7 reads and writes the SM2 cryptographic message syntax of
// GB/T 35275-2017 (formerly GM/T 0010-2012) and its PKCS #7 / CMS (RFC
// 5652) counterpart: SignedData, EnvelopedData, SignedAndEnvelopedData,
// EncryptedData and DigestedData, with SM2 signatures over SM3, SM2 key
// transport, and SM4-CBC or SM4-GCM content encryption. Certificates are
// smx509's, keys are primitives/sm2's.
//
// Parse reads a DER (or BER) ContentInfo of either identifier family; the
// Message says which type and family it was. Sign, SignDetached, Encrypt,
// SignAndEncrypt, EncryptWithKey and Digest write one. SignedData.Verify
// checks every signer's signature and attributes and builds its chain with
// smx509; a failure is a *SignerError naming the signer and the reason.
//
// # Identifier families
//
// GmSSL 3 writes and reads only the GM/T 0010 content types
// (1.2.156.10197.6.1.4.2.x); Tongsuo and OpenSSL write and read only
// PKCS #7's (1.2.840.113549.1.7.x). This package reads both and writes the
// GM/T 0010 family unless Family is PKCS7, since it is the family the
// standard names and the one GmSSL and the Chinese SDKs use; DigestedData,
// which GM/T 0010 lacks, always has PKCS #7's type.
//
// # Signatures
//
// GB/T 35275 signs with SM2 as GB/T 32918 defines it: the digest is
// SM3(Z || M) with the signer's identifier in Z (DefaultUID unless the
// Signer says otherwise), and M is the DER of the signed attributes or, when
// there are none, the content. That is what this package writes, and what
// Tongsuo writes with signed attributes. Deployed writers also sign
// without Z when there are no signed attributes, and verification accepts
// these forms unless VerifyOptions.StrictZ is set:
//
//   - SM3 of the content: OpenSSL and Tongsuo (openssl cms -sign -noattr);
//     SignOptions.WithoutZ writes it;
//   - SM3 of the DER of the encapsulated ContentInfo: GmSSL 3's cmssign,
//     the only form its cmsverify accepts; SignOptions.GmSSL writes it. In
//     a SignedAndEnvelopedData GmSSL's [0] holds the content's octets
//     without their OCTET STRING header, and that is what is hashed there.
//
// A signature without Z over a content that begins with some Z is also a
// GB/T 32918 signature over the rest of that content, so a verifier that
// only ever meets standard signers should set StrictZ.
//
// With the default identifier the empty identifier is also tried, as
// smx509 does for certificates, since OpenSSL-based signers default to it.
//
// # Tolerances
//
// Parsing accepts what deployed writers produce where they differ from
// each other or from DER, each for the writer named:
//
//   - BER: indefinite lengths, constructed (chunked) OCTET STRINGs and
//     non-minimal lengths, from Java writers (BouncyCastle, CFCA's SDK) and
//     openssl cms -stream. Such input is rewritten as DER in one bounded
//     pass before parsing; DER input is parsed in place;
//   - digestEncryptionAlgorithm sm2-with-sm3 (GmSSL and Tongsuo write it,
//     GmSSL requires it, and it is written by default), sm2-1
//     1.2.156.10197.1.301.1 (GB/T 35275's; gmsm and CFCA write and require
//     it, Tongsuo reads it; SignOptions.SignatureAlgorithm writes it) or the
//     curve identifier 1.2.156.10197.1.301 (older Java writers);
//   - keyEncryptionAlgorithm sm2-3 1.2.156.10197.1.301.3 (GB/T 35275, gmsm),
//     GmSSL's 1.2.156.10197.1.301.2, or the curve identifier;
//   - absent or NULL parameters of SM3 (GmSSL writes none, Tongsuo NULL)
//     and of the SM2 algorithms (gmsm writes NULL);
//   - SM2 key transport ciphertexts in the GM/T 0009 ASN.1 form GB/T 35275
//     specifies, and raw C1C3C2 or C1C2C3 (older CFCA and Java writers);
//   - PKCS #7 v1.5 encapsulated content that is not wrapped in an OCTET
//     STRING;
//   - any version number (GmSSL writes and requires 1 where CMS has 0 in
//     EnvelopedData, its recipients and EncryptedData, so the GM/T 0010
//     family writes 1 there), and recipient kinds other than key
//     transport, which are counted and skipped;
//   - the sharedInfo1 and sharedInfo2 fields GB/T 35275 adds to
//     EncryptedContentInfo (GmSSL's API writes them).
//
// Output is always DER, with SET OF elements sorted.
//
// # Confidentiality without integrity
//
// An EnvelopedData with SM4-CBC, the only cipher GmSSL and Tongsuo read,
// is not authenticated: anyone can alter the ciphertext, and a receiver
// that reports padding errors differently from other failures can be used
// to decrypt it. Sign what is enveloped (a SignedData inside, or a
// SignedAndEnvelopedData) or use SM4-GCM where the peer reads it.
//
// # Bounds
//
// A message comes from an untrusted sender, so parsing allocates in
// proportion to what it has read: the BER pass at most one buffer slightly
// larger than its input, the parser a fixed cost per element, and each
// certificate and CRL what smx509 allows. A fuzz target holds Parse to 24
// bytes per input byte plus a fixed 64 KiB.
package pkcs7
