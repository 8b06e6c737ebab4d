package x509

import (
	"bytes"
	"crypto"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha3"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// The fixtures of testdata/keys, written by testdata/keys/gen.sh.
const (
	keysDir         = "../testdata/keys"
	fixturePassword = "shangmi-test"
)

func readKeyFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(keysDir, name))
	must(t, err)
	return data
}

func parseFixture(t testing.TB, name string, password []byte) crypto.Signer {
	t.Helper()
	k, err := ParsePrivateKeyPEM(readKeyFixture(t, name), password)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

type privEqualer interface{ Equal(crypto.PrivateKey) bool }

// cipherOfFixture returns the OpenSSL name of the cipher a fixture's file
// name says it uses.
func cipherOfFixture(name string) string {
	for short, long := range map[string]string{
		"aes-128-cbc": "AES-128-CBC", "aes-192-cbc": "AES-192-CBC", "aes-256-cbc": "AES-256-CBC",
		"sm4-cbc": "SM4-CBC", "des-ede3-cbc": "DES-EDE3-CBC",
		"_sm4.": "SM4-CBC", "_aes128": "AES-128-CBC", "_aes192": "AES-192-CBC", "_aes256": "AES-256-CBC", "_des3": "DES-EDE3-CBC",
	} {
		if strings.Contains(name, short) {
			return long
		}
	}
	return ""
}

// TestKeyFixtures reads every file in testdata/keys: each is the key of
// sm2.pem in another form unless it says otherwise, each encrypted one
// refuses a missing password (naming its cipher) and a wrong one.
func TestKeyFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(keysDir, "*.pem"))
	must(t, err)
	if len(files) < 50 {
		t.Fatalf("only %d fixtures; run testdata/keys/gen.sh", len(files))
	}
	want := parseFixture(t, "sm2.pem", nil).(*sm2.PrivateKey)
	pw := []byte(fixturePassword)
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data := readKeyFixture(t, name)
			wantKey := crypto.PrivateKey(want)
			encrypted := false
			switch {
			case name == "legacy_rsa_aes256.pem":
				wantKey, encrypted = parseFixture(t, "rsa_pkcs1.pem", nil), true
			case name == "legacy_p256_aes128.pem":
				wantKey, encrypted = parseFixture(t, "p256_ecparam.pem", nil), true
			case strings.HasPrefix(name, "legacy_"), strings.HasPrefix(name, "pbes2_"):
				encrypted = true
			case strings.HasPrefix(name, "pbes1_"):
				_, err := ParsePrivateKeyPEM(data, pw)
				if err == nil || !strings.Contains(err.Error(), "pbeWithSHA1And3-KeyTripleDES-CBC") || !strings.Contains(err.Error(), "PBES1") {
					t.Fatalf("PBES1 key: got %v, want a refusal naming the scheme", err)
				}
				if _, err2 := ParsePrivateKeyPEM(data, nil); err2 == nil || err2.Error() != err.Error() {
					t.Fatalf("PBES1 key without password: %v", err2)
				}
				return
			case name == "p256_ecparam.pem":
				k := parseFixture(t, name, nil)
				if ec, ok := k.(*ecdsa.PrivateKey); !ok || ec.Curve != elliptic.P256() {
					t.Fatalf("got %T, want a P-256 key", k)
				}
				return
			case name == "rsa_pkcs1.pem":
				if _, ok := parseFixture(t, name, nil).(*rsa.PrivateKey); !ok {
					t.Fatal("not an RSA key")
				}
				return
			case strings.HasPrefix(name, "sec1_"), strings.HasPrefix(name, "pkcs8_"), name == "sm2.pem":
			default:
				t.Fatalf("no expectation for fixture %s", name)
			}
			got := parseFixture(t, name, pw)
			if !got.(privEqualer).Equal(wantKey) {
				t.Fatal("parsed to a different key")
			}
			if !encrypted {
				// A password is ignored for a plain key.
				if _, err := ParsePrivateKeyPEM(data, nil); err != nil {
					t.Fatal(err)
				}
				return
			}
			_, err := ParsePrivateKeyPEM(data, nil)
			if !errors.Is(err, ErrPasswordRequired) || !strings.Contains(err.Error(), cipherOfFixture(name)) {
				t.Fatalf("no password: %v (want ErrPasswordRequired naming %s)", err, cipherOfFixture(name))
			}
			if !strings.Contains(DescribePEM(data), cipherOfFixture(name)) {
				t.Fatalf("DescribePEM does not name the cipher: %s", DescribePEM(data))
			}
			for _, wrong := range []string{"", "Shangmi-test", "shangmi-test\n", strings.Repeat("x", 200)} {
				if _, err := ParsePrivateKeyPEM(data, []byte(wrong)); !errors.Is(err, ErrIncorrectPassword) {
					t.Fatalf("wrong password %q: %v", wrong, err)
				}
			}
		})
	}
}

// TestPBES2FixturePRFs checks that the PRF of each openssl-written PBES2
// fixture is recognised as the one its name says (not, say, defaulted).
func TestPBES2FixturePRFs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(keysDir, "pbes2_hmacWith*.pem"))
	if len(files) != 40 {
		t.Fatalf("%d PBES2 PBKDF2 fixtures, want 8 PRFs x 5 ciphers", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		prf := strings.SplitN(strings.TrimPrefix(name, "pbes2_hmacWith"), "_", 2)[0]
		prf = "PBKDF2-HMAC-" + strings.Replace(prf, "SHA512-", "SHA512/", 1)
		if d := DescribePEM(readKeyFixture(t, name)); !strings.Contains(d, prf+",") {
			t.Errorf("%s: %q does not name %s", name, d, prf)
		}
	}
}

// sec1 builds a SEC 1 ECPrivateKey with optional curve and public key.
func sec1(d []byte, curve asn1.ObjectIdentifier, pub []byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(1)
		b.AddASN1OctetString(d)
		if curve != nil {
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(curve)
			})
		}
		if pub != nil {
			b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1BitString(pub)
			})
		}
	})
	return b.BytesOrPanic()
}

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// TestSEC1CurveForms: SEC 1 keys with and without the curve OID and the
// public key, under both labels, as OpenSSL, Tongsuo and GmSSL write them
// and as hand-written tools leave them.
func TestSEC1CurveForms(t *testing.T) {
	sk := sm2Key(t)
	d, pub := sk.Bytes(), sk.PublicKey().Bytes()
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p256DER, _ := MarshalECPrivateKey(p256)
	p256D, err := p256.Bytes()
	must(t, err)
	p256Pub, err := p256.PublicKey.Bytes()
	must(t, err)
	params := pemOf(PEMTypeSM2Parameters, sm2CurveElement)
	ok := map[string][]byte{
		"SM2 label, curve, public key":    pemOf(PEMTypeSM2PrivateKey, sec1(d, OIDNamedCurveSM2, pub)),
		"SM2 label, curve":                pemOf(PEMTypeSM2PrivateKey, sec1(d, OIDNamedCurveSM2, nil)),
		"SM2 label, public key":           pemOf(PEMTypeSM2PrivateKey, sec1(d, nil, pub)),
		"SM2 label alone":                 pemOf(PEMTypeSM2PrivateKey, sec1(d, nil, nil)),
		"EC label, curve, public key":     pemOf(PEMTypeECPrivateKey, sec1(d, OIDNamedCurveSM2, pub)),
		"EC label, curve":                 pemOf(PEMTypeECPrivateKey, sec1(d, OIDNamedCurveSM2, nil)),
		"EC label, public key (inferred)": pemOf(PEMTypeECPrivateKey, sec1(d, nil, pub)),
		"parameters block, EC label":      append(params, pemOf(PEMTypeECPrivateKey, sec1(d, nil, nil))...),
		"compressed public key":           pemOf(PEMTypeSM2PrivateKey, sec1(d, OIDNamedCurveSM2, compress(pub))),
	}
	for name, data := range ok {
		got, err := ParsePrivateKeyPEM(data, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !sk.Equal(got) {
			t.Errorf("%s: different key", name)
		}
	}
	other := sm2Key(t)
	bad := map[string]struct {
		data []byte
		msg  string
	}{
		"EC label, no curve, no public key": {pemOf(PEMTypeECPrivateKey, sec1(d, nil, nil)), "could be SM2 or P-256"},
		"EC label, no curve, P-256 public":  {pemOf(PEMTypeECPrivateKey, sec1(p256D, nil, p256Pub)), "not an SM2 key"},
		"SM2 label on a P-256 key":          {pemOf(PEMTypeSM2PrivateKey, p256DER), "different curve than its PEM label"},
		"mismatched public key":             {pemOf(PEMTypeSM2PrivateKey, sec1(d, OIDNamedCurveSM2, other.PublicKey().Bytes())), "does not match"},
		"P-256 parameters, SM2 label": {append(pemOf(PEMTypeECParameters, mustMarshal(OIDNamedCurveP256)),
			pemOf(PEMTypeSM2PrivateKey, sec1(d, nil, nil))...), "parameters of another curve"},
	}
	for name, c := range bad {
		if _, err := ParsePrivateKeyPEM(c.data, nil); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.msg)
		}
	}
	// The parameters block applies to the key right after it only.
	twoKeys := append(append(params, pemOf(PEMTypeECPrivateKey, sec1(d, nil, nil))...),
		pemOf(PEMTypeECPrivateKey, sec1(other.Bytes(), nil, nil))...)
	if _, err := ParsePrivateKeysPEM(twoKeys, nil); err == nil || !strings.Contains(err.Error(), "private key 2 of 2") {
		t.Errorf("parameters applied to a later key: %v", err)
	}
}

func compress(uncompressed []byte) []byte {
	c := make([]byte, 33)
	c[0] = 2 + uncompressed[64]&1
	copy(c[1:], uncompressed[1:33])
	return c
}

// TestExplicitSM2Parameters: the SM2 curve written out is accepted by value;
// any other explicit curve is refused, including SM2 with one value changed.
func TestExplicitSM2Parameters(t *testing.T) {
	data := readKeyFixture(t, "sec1_sm2_explicit.pem")
	block, _ := pem.Decode(data)
	der := block.Bytes
	if _, err := ParseECPrivateKey(der); err != nil {
		t.Fatal(err)
	}
	// Flip one bit of b (in the curve SEQUENCE) and of the order.
	b := sm2.P256().Params().B.Bytes()
	i := bytes.Index(der, b)
	n := sm2.P256().Params().N.Bytes()
	j := bytes.Index(der, n)
	if i < 0 || j < 0 {
		t.Fatal("fixture does not hold the SM2 parameters")
	}
	for _, at := range []int{i + 5, j + 7} {
		bad := bytes.Clone(der)
		bad[at] ^= 0x10
		if _, err := ParseECPrivateKey(bad); !errors.Is(err, errExplicitNotSM2) {
			t.Errorf("altered parameters: %v", err)
		}
	}
}

// pbes2DER builds an EncryptedPrivateKeyInfo by hand from its parts, so that
// the parser is tested against layouts written independently of our
// encoder: kdfParams is the content of the PBKDF2-params SEQUENCE.
func pbes2DER(kdfParams func(*cryptobyte.Builder), cipherOID asn1.ObjectIdentifier, iv, ciphertext []byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDPBES2)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(OIDPBKDF2)
					b.AddASN1(cbasn1.SEQUENCE, kdfParams)
				})
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(cipherOID)
					b.AddASN1OctetString(iv)
				})
			})
		})
		b.AddASN1OctetString(ciphertext)
	})
	return b.BytesOrPanic()
}

// sm4CBCEncrypt pads and encrypts plain, as GmSSL's sm4_cbc_padding_encrypt.
func sm4CBCEncrypt(t *testing.T, key, iv, plain []byte) []byte {
	block, err := sm4.NewCipher(key)
	must(t, err)
	out := pad(plain, 16)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, out)
	return out
}

// TestPBES2SM3Layouts: the HMAC-SM3 files of GmSSL 3 (1.2.156.10197.1.401.2,
// key length 16, no NULL), of GmSSL 3.0 (same OID with NULL, no key length)
// and of Tongsuo (1.2.156.10197.1.401.3.1, NULL, no key length), all built
// here from their documented layouts, decrypt to the key.
func TestPBES2SM3Layouts(t *testing.T) {
	sk := sm2Key(t)
	plain, err := MarshalPKCS8PrivateKey(sk)
	must(t, err)
	salt, iv := make([]byte, 16), make([]byte, 16)
	rand.Read(salt)
	rand.Read(iv)
	const iter = 2048
	dk, err := pbkdf2.Key(sm3.New, "pw", salt, iter, 16)
	must(t, err)
	ct := sm4CBCEncrypt(t, dk, iv, plain)
	layouts := map[string]func(*cryptobyte.Builder){
		"GmSSL 3": func(b *cryptobyte.Builder) {
			b.AddASN1OctetString(salt)
			b.AddASN1Int64(iter)
			b.AddASN1Int64(16)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(OIDHMACWithSM3) })
		},
		"GmSSL 3.0": func(b *cryptobyte.Builder) {
			b.AddASN1OctetString(salt)
			b.AddASN1Int64(iter)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(OIDHMACWithSM3)
				b.AddASN1NULL()
			})
		},
		"Tongsuo": func(b *cryptobyte.Builder) {
			b.AddASN1OctetString(salt)
			b.AddASN1Int64(iter)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(OIDHMACWithSM3Tongsuo)
				b.AddASN1NULL()
			})
		},
	}
	for name, kdf := range layouts {
		der := pbes2DER(kdf, OIDSM4CBC, iv, ct)
		got, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("pw"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !sk.Equal(got) {
			t.Fatalf("%s: different key", name)
		}
		if _, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("px")); err != ErrIncorrectPassword {
			t.Fatalf("%s: wrong password gave %v", name, err)
		}
	}
	// A key length that disagrees with the cipher is refused.
	der := pbes2DER(func(b *cryptobyte.Builder) {
		b.AddASN1OctetString(salt)
		b.AddASN1Int64(iter)
		b.AddASN1Int64(32)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(OIDHMACWithSM3) })
	}, OIDSM4CBC, iv, ct)
	if _, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("pw")); err == nil || !strings.Contains(err.Error(), "key length") {
		t.Fatalf("bad key length: %v", err)
	}
}

// TestPBES2PRFTable: every PRF identifier that no openssl-written fixture
// covers (OpenSSL 3.0 cannot write them; Tongsuo and other tools can) is
// mapped to its hash, checked against an encryption made here with the
// hash named independently.
func TestPBES2PRFTable(t *testing.T) {
	sk := sm2Key(t)
	plain, err := MarshalPKCS8PrivateKey(sk)
	must(t, err)
	salt, iv := make([]byte, 8), make([]byte, 16)
	rand.Read(salt)
	rand.Read(iv)
	for _, c := range []struct {
		oid asn1.ObjectIdentifier
		h   func() hash.Hash
	}{
		{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 13}, func() hash.Hash { return sha3.New224() }},
		{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 14}, func() hash.Hash { return sha3.New256() }},
		{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 15}, func() hash.Hash { return sha3.New384() }},
		{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 16}, func() hash.Hash { return sha3.New512() }},
		{asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 8, 1, 1}, md5.New},  // hmac-md5 (RFC 2104 arc)
		{asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 8, 1, 2}, sha1.New}, // hmac-sha1
		{OIDHMACWithSM3, sm3.New},
		{OIDHMACWithSM3Tongsuo, sm3.New},
	} {
		dk, err := pbkdf2.Key(c.h, "pw", salt, 100, 16)
		must(t, err)
		ct := sm4CBCEncrypt(t, dk, iv, plain)
		der := pbes2DER(func(b *cryptobyte.Builder) {
			b.AddASN1OctetString(salt)
			b.AddASN1Int64(100)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(c.oid)
				b.AddASN1NULL()
			})
		}, OIDSM4CBC, iv, ct)
		got, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("pw"))
		if err != nil || !sk.Equal(got) {
			t.Errorf("PRF %v: %v", c.oid, err)
		}
	}
}

// TestPBES2TongsuoWriter pins what PBES2OptionsForTongsuo writes: PBKDF2
// params {salt, iterations, {hmacWithSM3 1.2.156.10197.1.401.3.1, NULL}}.
func TestPBES2TongsuoWriter(t *testing.T) {
	sk := sm2Key(t)
	opts := PBES2OptionsForTongsuo()
	opts.Iterations = 1000
	der, err := MarshalPKCS8PrivateKeyWithPassword(rand.Reader, sk, []byte("pw"), opts)
	must(t, err)
	// INTEGER 1000, SEQUENCE { OID 1.2.156.10197.1.401.3.1, NULL }, SEQUENCE { sm4-cbc
	want := []byte{0x02, 0x02, 0x03, 0xe8, 0x30, 0x0e, 0x06, 0x0a, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x03, 0x01, 0x05, 0x00,
		0x30, 0x1c, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x68, 0x02}
	if !bytes.Contains(der, want) {
		t.Fatalf("not in Tongsuo's layout: %x", der)
	}
	got, err := ParsePKCS8PrivateKeyWithPassword(der, []byte("pw"))
	must(t, err)
	if !sk.Equal(got) {
		t.Fatal("different key")
	}
	if d := DescribePEM(pemOf(PEMTypeEncryptedPrivateKey, der)); d != "1 encrypted private key (PKCS #8, PBES2: PBKDF2-HMAC-SM3, 1000 iterations, SM4-CBC)" {
		t.Fatal(d)
	}
}

// TestPBES2Refusals: schemes, KDFs and parameters outside what is supported
// fail with errors that say what was found.
func TestPBES2Refusals(t *testing.T) {
	salt := make([]byte, 8)
	iv := make([]byte, 16)
	ct := make([]byte, 32)
	scryptDER := func(n, r, p int64) []byte {
		var b cryptobyte.Builder
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(OIDPBES2)
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1ObjectIdentifier(OIDScrypt)
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1OctetString(salt)
							b.AddASN1Int64(n)
							b.AddASN1Int64(r)
							b.AddASN1Int64(p)
						})
					})
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1ObjectIdentifier(OIDAES256CBC)
						b.AddASN1OctetString(iv)
					})
				})
			})
			b.AddASN1OctetString(ct)
		})
		return b.BytesOrPanic()
	}
	prfDER := func(oid asn1.ObjectIdentifier, iter int64, cipherOID asn1.ObjectIdentifier, iv []byte) []byte {
		return pbes2DER(func(b *cryptobyte.Builder) {
			b.AddASN1OctetString(salt)
			b.AddASN1Int64(iter)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(oid)
				b.AddASN1NULL()
			})
		}, cipherOID, iv, ct)
	}
	for name, c := range map[string]struct {
		der []byte
		msg string
	}{
		"scrypt 1 GiB":     {scryptDER(1<<20, 8, 1), "too much memory"},
		"scrypt N not 2^k": {scryptDER(1000, 8, 1), "invalid scrypt"},
		"scrypt p too big": {scryptDER(1024, 8, 64), "too much"},
		"unknown PRF":      {prfDER(asn1.ObjectIdentifier{1, 2, 3}, 10, OIDAES256CBC, iv), "unsupported PBKDF2 PRF 1.2.3"},
		"huge iterations":  {prfDER(OIDHMACWithSHA256, 1<<30, OIDAES256CBC, iv), "unreasonably large"},
		"unknown cipher":   {prfDER(OIDHMACWithSHA256, 10, asn1.ObjectIdentifier{1, 3, 14, 3, 2, 7}, iv[:8]), "unsupported PBES2 cipher 1.3.14.3.2.7"},
		"short IV":         {prfDER(OIDHMACWithSHA256, 10, OIDAES256CBC, iv[:8]), "IV is 8 bytes"},
		"DES-EDE3 long IV": {prfDER(OIDHMACWithSHA256, 10, OIDDESEDE3CBC, iv), "IV is 16 bytes, want 8"},
		"truncated":        {scryptDER(1024, 8, 1)[:40], "malformed"},
		"PBES1 MD5-DES":    {pbes1DER(asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 3}), "pbeWithMD5AndDES-CBC"},
		"unknown scheme":   {pbes1DER(asn1.ObjectIdentifier{1, 2, 3, 4}), "unsupported password-based encryption scheme 1.2.3.4"},
		"unknown KDF":      {pbes2KDF(asn1.ObjectIdentifier{1, 2, 3, 5}), "unsupported PBES2 key derivation function 1.2.3.5"},
	} {
		if _, err := ParsePKCS8PrivateKeyWithPassword(c.der, []byte("pw")); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", name, err, c.msg)
		}
	}
	// Writing refuses read-only choices.
	sk := sm2Key(t)
	for _, o := range []*PBES2Options{{Cipher: desEDE3CBC, PRF: HMACWithSHA256}, {PRF: hmacWithSHA1}, {PRF: hmacWithMD5}, {Cipher: 99}} {
		if _, err := MarshalPKCS8PrivateKeyWithPassword(rand.Reader, sk, []byte("pw"), o); err == nil {
			t.Errorf("%+v accepted for writing", o)
		}
	}
}

func pbes1DER(oid asn1.ObjectIdentifier) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(oid)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1OctetString(make([]byte, 8))
				b.AddASN1Int64(2048)
			})
		})
		b.AddASN1OctetString(make([]byte, 16))
	})
	return b.BytesOrPanic()
}

func pbes2KDF(oid asn1.ObjectIdentifier) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDPBES2)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(oid)
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {})
				})
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier(OIDAES256CBC)
					b.AddASN1OctetString(make([]byte, 16))
				})
			})
		})
		b.AddASN1OctetString(make([]byte, 16))
	})
	return b.BytesOrPanic()
}

// TestEVPBytesToKey checks the legacy PEM key derivation against
// `openssl enc -aes-256-cbc -md md5 -S 0102030405060708 -pass pass:password -P`
// (and -aes-128-cbc, -des-ede3-cbc for the shorter keys).
func TestEVPBytesToKey(t *testing.T) {
	salt := []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}
	for _, c := range []struct {
		keyLen int
		want   string
	}{
		{16, "e7b0971e52ca5cc8d0539fb3412f6316"},
		{24, "e7b0971e52ca5cc8d0539fb3412f6316f7ba2e6ee293d9f3"},
		{32, "e7b0971e52ca5cc8d0539fb3412f6316f7ba2e6ee293d9f3457b99436b51ce02"},
	} {
		got := fmt.Sprintf("%x", evpBytesToKeyMD5([]byte("password"), salt, c.keyLen))
		if got != c.want {
			t.Errorf("keyLen %d: %s, want %s", c.keyLen, got, c.want)
		}
	}
}

// TestLegacyPEMHeaders: malformed or unsupported legacy headers are refused
// with what they say; corrupt bodies never panic.
func TestLegacyPEMHeaders(t *testing.T) {
	data := readKeyFixture(t, "legacy_aes256.pem")
	block, _ := pem.Decode(data)
	for name, c := range map[string]struct {
		procType, dekInfo, msg string
	}{
		"DES-CBC":             {"4,ENCRYPTED", "DES-CBC,0102030405060708", `unsupported legacy PEM cipher "DES-CBC"`},
		"MIC-ONLY":            {"4,MIC-ONLY", "AES-256-CBC,00000000000000000000000000000000", "Proc-Type"},
		"no comma":            {"4,ENCRYPTED", "AES-256-CBC", "malformed PEM DEK-Info"},
		"short IV":            {"4,ENCRYPTED", "AES-256-CBC,0102", "malformed IV"},
		"bad hex":             {"4,ENCRYPTED", "AES-256-CBC,zz02030405060708090a0b0c0d0e0f10", "malformed IV"},
		"no DEK-Info":         {"4,ENCRYPTED", "", "no DEK-Info"},
		"lower-case DEK-Info": {"4,ENCRYPTED", strings.ToLower(block.Headers["DEK-Info"]), ""},
	} {
		b := &pem.Block{Type: block.Type, Headers: map[string]string{"Proc-Type": c.procType}, Bytes: block.Bytes}
		if c.dekInfo != "" {
			b.Headers["DEK-Info"] = c.dekInfo
		}
		_, err := ParsePrivateKeyPEM(pem.EncodeToMemory(b), []byte(fixturePassword))
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", name, err, c.msg)
		}
	}
	// Truncated and extended bodies: not a whole number of blocks.
	for _, n := range []int{0, 15, 17} {
		b := *block
		b.Bytes = append(bytes.Clone(block.Bytes[:min(n, len(block.Bytes))]), make([]byte, max(0, n-len(block.Bytes)))...)
		if _, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&b), []byte(fixturePassword)); err == nil {
			t.Errorf("%d-byte body accepted", n)
		}
	}
}

// TestParsePrivateKeysPEM reads GmSSL 3's two-key file (the signing key,
// then the encryption key, both encrypted with one password) in order.
func TestParsePrivateKeysPEM(t *testing.T) {
	sign, enc := sm2Key(t), sm2Key(t)
	var file []byte
	for _, k := range []*sm2.PrivateKey{sign, enc} {
		p, err := MarshalPrivateKeyPEMWithPassword(rand.Reader, k, []byte("P@ssw0rd"), &PBES2Options{Iterations: 1000})
		must(t, err)
		file = append(file, p...)
	}
	keys, err := ParsePrivateKeysPEM(file, []byte("P@ssw0rd"))
	must(t, err)
	if len(keys) != 2 || !sign.Equal(keys[0]) || !enc.Equal(keys[1]) {
		t.Fatalf("got %d keys, or in the wrong order", len(keys))
	}
	first, err := ParsePrivateKeyPEM(file, []byte("P@ssw0rd"))
	must(t, err)
	if !sign.Equal(first) {
		t.Fatal("ParsePrivateKeyPEM did not return the first key")
	}
	if _, err := ParsePrivateKeysPEM(file, []byte("wrong")); !errors.Is(err, ErrIncorrectPassword) || !strings.Contains(err.Error(), "private key 1 of 2") {
		t.Fatalf("wrong password: %v", err)
	}
	if d := DescribePEM(file); d != "2 encrypted private keys (PKCS #8, PBES2: PBKDF2-HMAC-SM3, 1000 iterations, SM4-CBC)" {
		t.Fatal(d)
	}
}

// TestDescribePEM: what the error messages say a file holds.
func TestDescribePEM(t *testing.T) {
	sk := sm2Key(t)
	pkcs8, _ := MarshalPKCS8PrivateKey(sk)
	pubPEM, _ := MarshalPublicKeyPEM(sk.Public())
	rsaPEM := readKeyFixture(t, "rsa_pkcs1.pem")
	cert := pemOf("CERTIFICATE", []byte{0x30, 0})
	ca, _ := os.ReadFile("../testdata/openssl/ca.pem")
	caBlock, _ := pem.Decode(ca)
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "nothing (it is empty)"},
		{[]byte("  \n"), "nothing (it is empty)"},
		{[]byte("hello"), "no PEM data"},
		{[]byte("-----BEGIN CERTIFICATE-----\nAAAA\n"), "no readable PEM block (a BEGIN line without a matching END line, or bad base64)"},
		{pkcs8, "no PEM data (DER data: SM2 private key, PKCS #8; PEM-encode it with `openssl pkey -inform DER`)"},
		{caBlock.Bytes, "no PEM data (DER data: a certificate; PEM-encode it with `openssl x509 -inform DER`)"},
		{append(append(bytes.Clone(cert), cert...), pemOf(PEMTypePrivateKey, pkcs8)...), "2 certificates and 1 SM2 private key (PKCS #8)"},
		{append(bytes.Clone(pubPEM), rsaPEM...), "1 SM2 public key and 1 RSA-2048 private key (PKCS #1)"},
		{readKeyFixture(t, "p256_ecparam.pem"), "1 EC PARAMETERS block (P-256) and 1 ECDSA P-256 private key (SEC 1 EC PRIVATE KEY)"},
		{readKeyFixture(t, "legacy_sm4.pem"), "1 encrypted SM2 private key (SEC 1 SM2 PRIVATE KEY, legacy PEM encryption SM4-CBC)"},
		{readKeyFixture(t, "pbes2_scrypt_sm4-cbc.pem"), "1 encrypted private key (PKCS #8, PBES2: scrypt N=16384 r=8 p=1, SM4-CBC)"},
		{readKeyFixture(t, "pbes1_sha1_3des.pem"), "1 encrypted private key (PKCS #8, PBES1 pbeWithSHA1And3-KeyTripleDES-CBC (PKCS #12), unsupported)"},
		{pemOf("X509 CRL", []byte{1}), "1 CRL"},
		{pemOf("OPENSSH PRIVATE KEY", []byte{1}), "1 OpenSSH private key (unsupported; convert it with ssh-keygen -p -m PKCS8)"},
		{pemOf("FOO", []byte{1}), `1 "FOO" block`},
		{pemOf(PEMTypePrivateKey, []byte{1}), "1 malformed private key (PKCS #8)"},
	} {
		if got := DescribePEM(c.data); got != c.want {
			t.Errorf("DescribePEM(%.40q)\n got %s\nwant %s", c.data, got, c.want)
		}
	}
	if _, err := ParsePublicKeyPEM(pemOf(PEMTypePrivateKey, pkcs8)); err == nil || !strings.HasSuffix(err.Error(), "it holds 1 SM2 private key (PKCS #8)") {
		t.Fatal(err)
	}
	// Errors for files without a key carry the description.
	_, err := ParsePrivateKeyPEM(append(cert, cert...), nil)
	if err == nil || err.Error() != "x509: no private key found in PEM data; it holds 2 certificates" {
		t.Fatal(err)
	}
}

// TestOpenSSLBothWays: every PBES2 PRF/cipher pair and every legacy cipher
// `openssl` writes is read here, and every pair we write that OpenSSL 3.0
// has (all but the HMAC-SM3 PRFs) is read by `openssl pkey -passin`.
func TestOpenSSLBothWays(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	if testing.Short() {
		t.Skip("runs openssl about 60 times")
	}
	dir := t.TempDir()
	sk := sm2Key(t)
	plain, err := MarshalPrivateKeyPEM(sk)
	must(t, err)
	in := filepath.Join(dir, "plain.pem")
	must(t, os.WriteFile(in, plain, 0o600))
	run := func(args ...string) []byte {
		t.Helper()
		out, err := exec.Command("openssl", args...).Output()
		if err != nil {
			t.Fatalf("openssl %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	check := func(what string, data []byte) {
		t.Helper()
		got, err := ParsePrivateKeyPEM(data, []byte("pw"))
		if err != nil {
			t.Errorf("%s: %v", what, err)
		} else if !sk.Equal(got) {
			t.Errorf("%s: different key", what)
		}
	}
	// openssl writes, we read.
	for _, prf := range []string{"hmacWithSHA1", "hmacWithSHA224", "hmacWithSHA256", "hmacWithSHA384", "hmacWithSHA512", "hmacWithSHA512-224", "hmacWithSHA512-256", "hmacWithMD5"} {
		for _, c := range []string{"aes-128-cbc", "aes-192-cbc", "aes-256-cbc", "sm4-cbc", "des-ede3-cbc"} {
			check("openssl pkcs8 -v2 "+c+" -v2prf "+prf, run("pkcs8", "-topk8", "-in", in, "-v2", c, "-v2prf", prf, "-passout", "pass:pw"))
		}
	}
	check("openssl pkcs8 -scrypt", run("pkcs8", "-topk8", "-in", in, "-scrypt", "-passout", "pass:pw"))
	for _, c := range []string{"sm4", "aes128", "aes192", "aes256", "des3"} {
		check("openssl ec -"+c, run("ec", "-in", in, "-"+c, "-passout", "pass:pw"))
	}
	// We write, openssl reads.
	out := filepath.Join(dir, "ours.pem")
	for _, c := range []PBES2Cipher{SM4CBC, AES128CBC, AES192CBC, AES256CBC} {
		for _, prf := range []PBKDF2PRF{HMACWithSHA256, HMACWithSHA384, HMACWithSHA512} {
			enc, err := MarshalPrivateKeyPEMWithPassword(rand.Reader, sk, []byte("pw"), &PBES2Options{Cipher: c, PRF: prf, Iterations: 2048})
			must(t, err)
			must(t, os.WriteFile(out, enc, 0o600))
			check(fmt.Sprintf("openssl pkey of ours (cipher %d, PRF %d)", c, prf), run("pkey", "-in", out, "-passin", "pass:pw"))
		}
	}
	enc, err := MarshalPrivateKeyPEMWithPassword(rand.Reader, sk, []byte("pw"), PBES2OptionsForOpenSSL())
	must(t, err)
	must(t, os.WriteFile(out, enc, 0o600))
	check("openssl pkey of PBES2OptionsForOpenSSL", run("pkey", "-in", out, "-passin", "pass:pw"))
	text := string(run("asn1parse", "-in", out))
	if !strings.Contains(text, "hmacWithSHA256") || !strings.Contains(text, "aes-256-cbc") {
		t.Errorf("PBES2OptionsForOpenSSL wrote:\n%s", text)
	}
}

// peerTool returns the path of a GmSSL or Tongsuo binary named by the
// environment variable env (for example SHANGMI_TONGSUO=/opt/tongsuo/bin/tongsuo),
// or skips: neither tool is packaged for the CI machine.
func peerTool(t *testing.T, env string) func(stdin string, args ...string) ([]byte, error) {
	path := os.Getenv(env)
	if path == "" {
		t.Skip(env + " is not set")
	}
	prefix := filepath.Dir(filepath.Dir(path))
	return func(stdin string, args ...string) ([]byte, error) {
		cmd := exec.Command(path, args...)
		cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Join(prefix, "lib")+":"+filepath.Join(prefix, "lib64"))
		cmd.Stdin = strings.NewReader(stdin)
		return cmd.Output()
	}
}

// TestTongsuoBothWays (with SHANGMI_TONGSUO set): Tongsuo's HMAC-SM3 and
// HMAC-SHA3 PBES2, its legacy SM4 PEM and its SEC 1 output read here, and
// Tongsuo reads what PBES2OptionsForTongsuo and PBES2OptionsForOpenSSL write.
func TestTongsuoBothWays(t *testing.T) {
	tongsuo := peerTool(t, "SHANGMI_TONGSUO")
	dir := t.TempDir()
	sk := sm2Key(t)
	plain, err := MarshalPrivateKeyPEM(sk)
	must(t, err)
	in := filepath.Join(dir, "plain.pem")
	must(t, os.WriteFile(in, plain, 0o600))
	for name, args := range map[string][]string{
		"pkcs8 sm4 hmacWithSM3":           {"pkcs8", "-topk8", "-v2", "sm4", "-v2prf", "hmacWithSM3", "-passout", "pass:pw"},
		"pkcs8 aes-256-cbc hmac-sha3-256": {"pkcs8", "-topk8", "-v2", "aes-256-cbc", "-v2prf", "hmac-sha3-256", "-passout", "pass:pw"},
		"ec -sm4":                         {"ec", "-sm4", "-passout", "pass:pw"},
		"ec":                              {"ec"},
	} {
		out, err := tongsuo("", append(args, "-in", in)...)
		must(t, err)
		got, err := ParsePrivateKeyPEM(out, []byte("pw"))
		if err != nil || !sk.Equal(got) {
			t.Errorf("tongsuo %s: %v", name, err)
		}
	}
	for name, opts := range map[string]*PBES2Options{"Tongsuo": PBES2OptionsForTongsuo(), "OpenSSL": PBES2OptionsForOpenSSL()} {
		enc, err := MarshalPrivateKeyPEMWithPassword(rand.Reader, sk, []byte("pw"), opts)
		must(t, err)
		f := filepath.Join(dir, name+".pem")
		must(t, os.WriteFile(f, enc, 0o600))
		out, err := tongsuo("", "pkey", "-in", f, "-passin", "pass:pw")
		if err != nil {
			t.Errorf("tongsuo cannot read PBES2OptionsFor%s: %v", name, err)
			continue
		}
		if got, err := ParsePrivateKeyPEM(out, nil); err != nil || !sk.Equal(got) {
			t.Errorf("tongsuo decrypted PBES2OptionsFor%s to another key: %v", name, err)
		}
	}
}

// TestGmSSLBothWays (with SHANGMI_GMSSL set): `gmssl sm2keygen -pass`
// output reads here, and GmSSL signs with a key we encrypted with the
// default options (the signature verifies under our public key).
func TestGmSSLBothWays(t *testing.T) {
	gmssl := peerTool(t, "SHANGMI_GMSSL")
	dir := t.TempDir()
	keyFile, pubFile := filepath.Join(dir, "k.pem"), filepath.Join(dir, "pub.pem")
	_, err := gmssl("", "sm2keygen", "-pass", "pw", "-out", keyFile, "-pubout", pubFile)
	must(t, err)
	k, err := ParsePrivateKeyPEM(readFile(t, keyFile), []byte("pw"))
	must(t, err)
	pub, err := ParsePublicKeyPEM(readFile(t, pubFile))
	must(t, err)
	if !k.(*sm2.PrivateKey).PublicKey().Equal(pub) {
		t.Fatal("gmssl key parsed to another key")
	}
	sk := sm2Key(t)
	enc, err := MarshalPrivateKeyPEMWithPassword(rand.Reader, sk, []byte("pw"), nil)
	must(t, err)
	must(t, os.WriteFile(keyFile, enc, 0o600))
	sig, err := gmssl("hello", "sm2sign", "-key", keyFile, "-pass", "pw")
	if err != nil {
		t.Fatalf("gmssl cannot use our default encrypted key: %v", err)
	}
	if !sm2.VerifyASN1(sk.PublicKey(), []byte("hello"), []byte(sm2.DefaultUID), sig) {
		t.Fatal("gmssl signed with another key")
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	must(t, err)
	return b
}
