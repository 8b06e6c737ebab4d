#!/usr/bin/env python3
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

"""An independent derivation of the TLCP known answers of tlcp/INTEROP.md
section 10, written from GB/T 38636-2020, GB/T 32918 and RFC 5246, not
from the Go code:

  * A: the master secret of the ECC premaster (TLCP PRF: P_SM3 of
    RFC 5246 section 5 over HMAC-SM3, label "master secret"), the key
    block, and the client Finished over the handshake hash SM3("abc");
  * B: the first two GCM records (nonce = client_write_IV || explicit
    nonce, the explicit nonce being the sequence number; AAD = seq ||
    type || version || length) and the first CBC record (IV || SM4-CBC(
    data || HMAC-SM3(seq || type || version || length || data) ||
    padding)), each protecting "hello, TLCP";
  * C: the public keys of the SM2 private scalars the sets use;
  * D: the ECDHE premaster of the SM2 key exchange (GB/T 32918.3 section
    6.1), the server as initiator A (its encryption key and ephemeral),
    the client as responder B, both with the default ID
    "1234567812345678", 48 bytes;
  * E: SM2 signatures (GB/T 32918.2 section 6.1, default ID) by the
    server's signing key with the fixed nonce k = SM3("TLCP-KAT fixed k
    for signature"): the ECC ServerKeyExchange over the randoms and a
    stand-in encryption certificate, the ECDHE ServerKeyExchange over the
    randoms and the parameters of D, and CertificateVerify over SM3("abc"),
    each with its handshake message;
  * F: the premaster of A encrypted (GB/T 32918.4 section 6.1) to the
    server's encryption key with the fixed nonce k = SM3("TLCP-KAT fixed
    k for encryption"), as C1 || C3 || C2, as the GM/T 0009 DER TLCP sends
    and as the ClientKeyExchange message; and, encrypted the same way,
    three plaintexts the server must replace by a random premaster (D9):
    a wrong version and lengths 47 and 49.

SM3, HMAC-SM3, SM4 and SM4-GCM come from testdata/tls13/kat.py; P_SM3,
SM4-CBC, the SM2 arithmetic (affine, Python integers), signing,
encryption, the key exchange, DER and the handshake framing are written
here. Before deriving anything the script reproduces the standard's own SM2
examples (GB/T 32918.5 Annexes A and C, GB/T 32918.2, .3 and .4 Annex A.2,
as testdata/vectors/sm2.json holds them) and stops if one differs.

    python3 testdata/tlcp/kat.py > testdata/tlcp/kat.json

tlcp's TestKATIndependentScript checks the package's values against the
JSON, and runs the script to check the JSON is its output.
"""

import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tls13"))
from kat import sm3, hmac_sm3, sm4_gcm_seal, sm4_encrypt_block, _sm4_round_keys  # noqa: E402

# The inputs, as INTEROP.md section 10 gives them.
CLIENT_RANDOM = bytes(range(0x00, 0x20))
SERVER_RANDOM = bytes(range(0x20, 0x40))
ECC_PREMASTER = bytes.fromhex("0101") + bytes(range(0x02, 0x30))
SCALARS = {
    "server_sign": "256beb29f371dab0e646da0f1c20c32e837328939d7a3172f29d1beafbaa2c34",
    "server_enc": "4ad106836279ccc990c63737f18ec8b4e881a732f19933ce044bb62f6a441ac6",
    "server_eph": "bc220b976f9548852653eb14a0c46938012e3f8f995b2316e8b53b66e8390685",
    "client_enc": "6ab0fb1b8d37fb20970ecb8b946241b5eabf6951389a3206a97e4f7aa32288b9",
    "client_eph": "7c78b6c044e6200dfd09b140e4d8f7e986253f89ac21c7f2119e2101e15f6d80",
}
# Each scalar is SM3 of "TLCP-KAT " and its role (main checks this).
SCALAR_LABELS = {
    "server_sign": "server sign", "server_enc": "server enc", "server_eph": "server ephemeral",
    "client_enc": "client enc", "client_eph": "client ephemeral",
}
CBC_IV = bytes.fromhex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
# E and F: the fixed nonces are SM3 of ASCII labels too. One k for several
# signatures by one key would reveal the key: this is for known answers only.
SIGN_K_LABEL = b"TLCP-KAT fixed k for signature"
ENC_K_LABEL = b"TLCP-KAT fixed k for encryption"
STAND_IN_ENC_CERT = b"stand-in for DER of enc cert"
CV_TRANSCRIPT = b"abc"
PLAINTEXT = b"hello, TLCP"
VERSION = b"\x01\x01"

# ------------------------------------------------------------ the TLCP PRF

def p_sm3(secret, seed, length):
    out, a = b"", seed
    while len(out) < length:
        a = hmac_sm3(secret, a)
        out += hmac_sm3(secret, a + seed)
    return out[:length]

def prf(secret, label, seed, length):
    return p_sm3(secret, label + seed, length)

# ------------------------------------------------------------ SM2 (GB/T 32918)

DEFAULT_UID = b"1234567812345678"  # GM/T 0009's default user identifier

class Curve:
    """A short Weierstrass curve y^2 = x^3 + ax + b over F_p with a base
    point G of prime order n and cofactor 1, in affine coordinates with
    Python integers; None is the point at infinity. Slow and not constant
    time: for known answers only."""

    def __init__(self, p, a, b, gx, gy, n):
        self.p, self.a, self.b, self.n = p, a, b, n
        self.g = (gx, gy)
        assert self.on_curve(self.g)

    def on_curve(self, pt):
        x, y = pt
        return 0 <= x < self.p and 0 <= y < self.p and (y * y - (x * x * x + self.a * x + self.b)) % self.p == 0

    def add(self, p1, p2):
        if p1 is None:
            return p2
        if p2 is None:
            return p1
        p = self.p
        (x1, y1), (x2, y2) = p1, p2
        if x1 == x2 and (y1 + y2) % p == 0:
            return None
        if p1 == p2:
            lam = (3 * x1 * x1 + self.a) * pow(2 * y1, -1, p) % p
        else:
            lam = (y2 - y1) * pow(x2 - x1, -1, p) % p
        x3 = (lam * lam - x1 - x2) % p
        return x3, (lam * (x1 - x3) - y1) % p

    def mul(self, k, pt):
        r = None
        for bit in bin(k)[2:]:
            r = self.add(r, r)
            if bit == "1":
                r = self.add(r, pt)
        return r

    def base_mul(self, k):
        return self.mul(k, self.g)

    def z(self, pub, uid=DEFAULT_UID):
        """Z = SM3(ENTL || ID || a || b || xG || yG || xA || yA), GB/T 32918.2 section 5.5."""
        assert len(uid) * 8 < 1 << 16
        return sm3(struct.pack(">H", len(uid) * 8) + uid + b32(self.a) + b32(self.b) +
                   b32(self.g[0]) + b32(self.g[1]) + b32(pub[0]) + b32(pub[1]))

def b32(v):
    return v.to_bytes(32, "big")

def encode(pt):
    return b"\x04" + b32(pt[0]) + b32(pt[1])

# The recommended curve, GB/T 32918.5.
SM2 = Curve(
    p=0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF,
    a=0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFC,
    b=0x28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93,
    gx=0x32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7,
    gy=0xBC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0,
    n=0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123,
)

def kdf(z, klen):
    """The KDF of GB/T 32918.4 section 5.4.3 (klen in bytes)."""
    out, ct = b"", 1
    while len(out) < klen:
        out += sm3(z + struct.pack(">I", ct))
        ct += 1
    return out[:klen]

def sm2_sign(c, d, msg, k, uid=DEFAULT_UID):
    """GB/T 32918.2 section 6.1 A1-A7 with the nonce k given; returns (e, r, s).
    A fixed k cannot be replaced, so the cases that call for a new k fail."""
    pub = c.base_mul(d)
    e = sm3(c.z(pub, uid) + msg)                  # A1, A2
    assert 1 <= k < c.n                           # A3
    x1, _ = c.base_mul(k)                         # A4
    r = (int.from_bytes(e, "big") + x1) % c.n     # A5
    assert r != 0 and r + k != c.n, "k must be replaced"
    s = pow(1 + d, -1, c.n) * (k - r * d) % c.n   # A6
    assert s != 0, "k must be replaced"
    return e, r, s

def sm2_verify(c, pub, msg, r, s, uid=DEFAULT_UID):
    """GB/T 32918.2 section 7.1 B1-B7."""
    if not (1 <= r < c.n and 1 <= s < c.n):
        return False
    e = int.from_bytes(sm3(c.z(pub, uid) + msg), "big")
    t = (r + s) % c.n
    if t == 0:
        return False
    pt = c.add(c.base_mul(s), c.mul(t, pub))
    return pt is not None and (e + pt[0]) % c.n == r

def sm2_encrypt(c, pub, msg, k):
    """GB/T 32918.4 section 6.1 A1-A7 with the nonce k given; returns
    (C1, C3, C2), C1 a point."""
    assert 1 <= k < c.n and msg                   # A1
    c1 = c.base_mul(k)                            # A2
    # A3: S = [h]P_B is P_B itself, as h = 1, and P_B is not infinity.
    x2, y2 = c.mul(k, pub)                        # A4
    t = kdf(b32(x2) + b32(y2), len(msg))          # A5
    assert any(t), "k must be replaced"
    c2 = bytes(m ^ u for m, u in zip(msg, t))     # A6
    c3 = sm3(b32(x2) + msg + b32(y2))             # A7
    return c1, c3, c2

def sm2_decrypt(c, d, c1, c3, c2):
    """GB/T 32918.4 section 7.1 B1-B6; None when C3 does not match."""
    assert c.on_curve(c1)
    x2, y2 = c.mul(d, c1)
    t = kdf(b32(x2) + b32(y2), len(c2))
    if not any(t):
        return None
    msg = bytes(m ^ u for m, u in zip(c2, t))
    return msg if sm3(b32(x2) + msg + b32(y2)) == c3 else None

def xbar(c, x):
    """x-bar of GB/T 32918.3 section 6.1: 2^w + (x mod 2^w), with
    w = ceil(ceil(log2 n) / 2) - 1 (127 for both 256-bit curves used here)."""
    w = ((c.n - 1).bit_length() + 1) // 2 - 1
    return (1 << w) + (x & ((1 << w) - 1))

def key_exchange_initiator(c, d_a, r_a, pub_b, eph_b, klen, uid_a=DEFAULT_UID, uid_b=DEFAULT_UID):
    """GB/T 32918.3 section 6.1 A4-A8, seen from A; returns (U, K)."""
    pub_a, ra = c.base_mul(d_a), c.base_mul(r_a)
    t_a = (d_a + xbar(c, ra[0]) * r_a) % c.n
    assert c.on_curve(eph_b)
    u = c.mul(t_a, c.add(pub_b, c.mul(xbar(c, eph_b[0]), eph_b)))  # cofactor h = 1
    assert u is not None
    return u, kdf(b32(u[0]) + b32(u[1]) + c.z(pub_a, uid_a) + c.z(pub_b, uid_b), klen)

def key_exchange_responder(c, d_b, r_b, pub_a, eph_a, klen, uid_a=DEFAULT_UID, uid_b=DEFAULT_UID):
    """GB/T 32918.3 section 6.1 B1-B5, seen from B; returns (V, K)."""
    pub_b, rb = c.base_mul(d_b), c.base_mul(r_b)
    t_b = (d_b + xbar(c, rb[0]) * r_b) % c.n
    assert c.on_curve(eph_a)
    v = c.mul(t_b, c.add(pub_a, c.mul(xbar(c, eph_a[0]), eph_a)))
    assert v is not None
    return v, kdf(b32(v[0]) + b32(v[1]) + c.z(pub_a, uid_a) + c.z(pub_b, uid_b), klen)

# ------------------------------------------------------------ DER (GM/T 0009)

def der(tag, body):
    n = len(body)
    if n < 0x80:
        length = bytes([n])
    else:
        nb = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(nb)]) + nb
    return bytes([tag]) + length + body

def der_uint(v):
    # Minimal two's complement: a leading 00 when the top bit is set.
    return der(0x02, v.to_bytes(v.bit_length() // 8 + 1, "big"))

def der_signature(r, s):
    """SEQUENCE { r INTEGER, s INTEGER }."""
    return der(0x30, der_uint(r) + der_uint(s))

def der_ciphertext(c1, c3, c2):
    """GM/T 0009: SEQUENCE { x INTEGER, y INTEGER, C3 OCTET STRING, C2 OCTET STRING }."""
    return der(0x30, der_uint(c1[0]) + der_uint(c1[1]) + der(0x04, c3) + der(0x04, c2))

# ------------------------------------------------------------ SM2 self-check

# The standard's own examples, as testdata/vectors/sm2.json holds them
# (primitives/sm2's vector tests read the same file): GB/T 32918.5 (GM/T
# 0003.5) Annexes A and C on the recommended curve, and GB/T 32918.2, .3
# and .4 Annex A.2 on the standard's 256-bit example curve.
STANDARD_EXAMPLES = (
    "sm2-za-gmt0003.5-annexA",
    "sm2-sign-gmt0003.5-annexA",
    "sm2-encrypt-gmt0003.5-annexC",
    "sm2-sign-gbt32918.2-A2",
    "sm2-encrypt-gbt32918.4-A2",
    "sm2-keyexchange-gbt32918.3-A2",
    "sm2-kdf-gbt32918.4-A2",
)
# The examples' KDF outputs are shorter than one SM3 block; these longer
# ones (generated, and reproduced by OpenSSL's X9.63 KDF with SM3) check
# the counter too.
KDF_CROSS_CHECKS = (
    "sm2-kdf-gen-z64-k264",
    "sm2-kdf-gen-z100-k1000",
)

def sm2_self_check():
    """Reproduces the standard's examples with the code above, so that a
    wrong SM2 here cannot agree with a wrong one in Go by accident. Only
    the inputs are taken from the file; every output is recomputed and
    compared."""
    path = os.path.join(HERE, "..", "vectors", "sm2.json")
    with open(path) as f:
        data = json.load(f)
    curves = {}
    for name, cp in data["curves"].items():
        assert cp["h"] == 1
        curves[name] = Curve(*(int(cp[k], 16) for k in ("p", "a", "b", "gx", "gy", "n")))
    rec = curves["sm2p256v1"]
    assert (rec.p, rec.a, rec.b, rec.g, rec.n) == (SM2.p, SM2.a, SM2.b, SM2.g, SM2.n), "recommended curve"
    vectors = {v["id"]: v for v in data["vectors"]}

    def ok(cond, vid, what):
        if not cond:
            sys.exit("kat.py: SM2 self-check failed: %s: %s" % (vid, what))

    for vid in STANDARD_EXAMPLES + KDF_CROSS_CHECKS:
        v = vectors[vid]
        c = curves[v.get("curve", "sm2p256v1")]
        x = lambda key: bytes.fromhex(v[key])  # noqa: E731
        if v["kind"] == "kdf":
            ok(v["klen_bits"] % 8 == 0 and kdf(x("z_hex"), v["klen_bits"] // 8) == x("output_hex"), vid, "KDF")
            continue
        if v["kind"] == "key_exchange":
            d_a, d_b = int(v["d_a_hex"], 16), int(v["d_b_hex"], 16)
            r_a, r_b = int(v["r_a_hex"], 16), int(v["r_b_hex"], 16)
            uid_a, uid_b = x("id_a_hex"), x("id_b_hex")
            pub_a, pub_b = c.base_mul(d_a), c.base_mul(d_b)
            ok(encode(pub_a) == x("p_a_hex") and encode(pub_b) == x("p_b_hex"), vid, "public keys")
            ok(encode(c.base_mul(r_a)) == x("R_a_hex") and encode(c.base_mul(r_b)) == x("R_b_hex"), vid, "ephemeral keys")
            ok(c.z(pub_a, uid_a) == x("z_a_hex") and c.z(pub_b, uid_b) == x("z_b_hex"), vid, "Z_A, Z_B")
            klen = v["klen_bits"] // 8
            u, k_a = key_exchange_initiator(c, d_a, r_a, pub_b, c.base_mul(r_b), klen, uid_a, uid_b)
            w, k_b = key_exchange_responder(c, d_b, r_b, pub_a, c.base_mul(r_a), klen, uid_a, uid_b)
            ok(u == w and b32(u[0]) + b32(u[1]) == x("x_v_hex") + x("y_v_hex"), vid, "shared point")
            ok(k_a == k_b == x("key_hex"), vid, "key")
            continue
        d = int(v["private_key_hex"], 16)
        pub = c.base_mul(d)
        ok(encode(pub) == x("public_key_hex"), vid, "public key")
        if v["kind"] == "za":
            ok(c.z(pub, x("id_hex")) == x("za_hex"), vid, "Z_A")
        elif v["kind"] == "sign":
            uid, msg = x("id_hex"), x("message_hex")
            ok(c.z(pub, uid) == x("za_hex"), vid, "Z_A")
            e, r, s = sm2_sign(c, d, msg, int(v["k_hex"], 16), uid)
            ok(e == x("e_hex"), vid, "e")
            ok(b32(r) == x("r_hex") and b32(s) == x("s_hex"), vid, "signature")
            ok(sm2_verify(c, pub, msg, r, s, uid), vid, "verification")
            ok(not sm2_verify(c, pub, msg + b"!", r, s, uid), vid, "verification of another message")
        elif v["kind"] == "encrypt":
            msg = x("message_hex")
            c1, c3, c2 = sm2_encrypt(c, pub, msg, int(v["k_hex"], 16))
            ok(encode(c1) == x("c1_hex") and c3 == x("c3_hex") and c2 == x("c2_hex"), vid, "C1, C3, C2")
            ok(encode(c1) + c3 + c2 == x("ciphertext_c1c3c2_hex"), vid, "C1 || C3 || C2")
            ok(der_ciphertext(c1, c3, c2) == x("ciphertext_asn1_hex"), vid, "DER ciphertext")
            ok(sm2_decrypt(c, d, c1, c3, c2) == msg, vid, "decryption")
            ok(sm2_decrypt(c, d, c1, c3, bytes([c2[0] ^ 1]) + c2[1:]) is None, vid, "C3 check")
        else:
            ok(False, vid, "unexpected kind " + v["kind"])
    return list(STANDARD_EXAMPLES + KDF_CROSS_CHECKS)

# ------------------------------------------------------------ records

def sm4_cbc_encrypt(key, iv, data):
    rk = _sm4_round_keys(key)
    out, prev = b"", iv
    for i in range(0, len(data), 16):
        prev = sm4_encrypt_block(rk, bytes(x ^ y for x, y in zip(data[i:i + 16], prev)))
        out += prev
    return out

def gcm_records(key, fixed_iv, count):
    out = []
    for seq in range(count):
        explicit = struct.pack(">Q", seq)
        aad = struct.pack(">Q", seq) + b"\x17" + VERSION + struct.pack(">H", len(PLAINTEXT))
        body = explicit + sm4_gcm_seal(key, fixed_iv + explicit, PLAINTEXT, aad)
        out.append((b"\x17" + VERSION + struct.pack(">H", len(body)) + body).hex())
    return out

def cbc_record(mac_key, key, iv):
    seq = 0
    mac = hmac_sm3(mac_key, struct.pack(">Q", seq) + b"\x17" + VERSION + struct.pack(">H", len(PLAINTEXT)) + PLAINTEXT)
    data = PLAINTEXT + mac
    pad = 15 - len(data) % 16
    data += bytes([pad]) * (pad + 1)
    body = iv + sm4_cbc_encrypt(key, iv, data)
    return (b"\x17" + VERSION + struct.pack(">H", len(body)) + body).hex()

# ------------------------------------------------------------ handshake messages

def vec16(b):
    return struct.pack(">H", len(b)) + b

def vec24(b):
    return len(b).to_bytes(3, "big") + b

def handshake(msg_type, body):
    return bytes([msg_type]) + vec24(body)

SERVER_KEY_EXCHANGE, CERTIFICATE_VERIFY, CLIENT_KEY_EXCHANGE = 12, 15, 16
SIGN_K = int.from_bytes(sm3(SIGN_K_LABEL), "big")
ENC_K = int.from_bytes(sm3(ENC_K_LABEL), "big")
CURVE_SM2 = 41  # NamedCurve curveSM2

def ecdh_params(pt):
    """ServerECDHParams: curve_type named_curve (3), the curve, and the
    point as an opaque<1..2^8-1>."""
    point = encode(pt)
    return b"\x03" + struct.pack(">H", CURVE_SM2) + bytes([len(point)]) + point

def signature(d, signed):
    """The SM2 signature (default ID) of signed with the fixed k of E."""
    e, r, s = sm2_sign(SM2, d, signed, SIGN_K)
    assert sm2_verify(SM2, SM2.base_mul(d), signed, r, s)
    sig = der_signature(r, s)
    return sig, {"signed_data": signed.hex(), "e": e.hex(), "r": b32(r).hex(), "s": b32(s).hex(), "signature": sig.hex()}

def set_e(d, server_eph):
    """E: the ECC ServerKeyExchange signs the randoms and the encryption
    certificate as an opaque<0..2^24-1> (here a stand-in for the DER); the
    ECDHE one signs the randoms and the ServerECDHParams it carries;
    CertificateVerify signs SM3 of the handshake messages (here "abc"). The
    body of each is its signature as an opaque<0..2^16-1>, after the
    parameters for ECDHE."""
    out = {"k_label": SIGN_K_LABEL.decode(), "k": b32(SIGN_K).hex(),
           "z_server_sign": SM2.z(SM2.base_mul(d)).hex()}
    sig, out["ecc_server_key_exchange"] = signature(d, CLIENT_RANDOM + SERVER_RANDOM + vec24(STAND_IN_ENC_CERT))
    out["ecc_server_key_exchange"]["enc_cert"] = STAND_IN_ENC_CERT.hex()
    out["ecc_server_key_exchange"]["message"] = handshake(SERVER_KEY_EXCHANGE, vec16(sig)).hex()
    params = ecdh_params(server_eph)
    sig, out["ecdhe_server_key_exchange"] = signature(d, CLIENT_RANDOM + SERVER_RANDOM + params)
    out["ecdhe_server_key_exchange"]["params"] = params.hex()
    out["ecdhe_server_key_exchange"]["message"] = handshake(SERVER_KEY_EXCHANGE, params + vec16(sig)).hex()
    sig, out["certificate_verify"] = signature(d, sm3(CV_TRANSCRIPT))
    out["certificate_verify"]["transcript"] = CV_TRANSCRIPT.hex()
    out["certificate_verify"]["message"] = handshake(CERTIFICATE_VERIFY, vec16(sig)).hex()
    return out

def encrypt_premaster(d_enc, pm):
    c1, c3, c2 = sm2_encrypt(SM2, SM2.base_mul(d_enc), pm, ENC_K)
    assert sm2_decrypt(SM2, d_enc, c1, c3, c2) == pm
    return c1, c3, c2

def set_f(d_enc):
    """F: the ECC premaster of A (01 01 || 46 bytes) encrypted to the
    server's encryption key with the fixed k of F; TLCP sends the GM/T 0009
    DER of C1, C3, C2 as an opaque<0..2^16-1>. Then plaintexts the server
    must not accept as a premaster (D9: a version other than 01 01, a
    length other than 48), encrypted the same way."""
    c1, c3, c2 = encrypt_premaster(d_enc, ECC_PREMASTER)
    ct = der_ciphertext(c1, c3, c2)
    out = {"k_label": ENC_K_LABEL.decode(), "k": b32(ENC_K).hex(), "premaster": ECC_PREMASTER.hex(),
           "c1": encode(c1).hex(), "c3": c3.hex(), "c2": c2.hex(),
           "ciphertext_c1c3c2": (encode(c1) + c3 + c2).hex(), "ciphertext_der": ct.hex(),
           "message": handshake(CLIENT_KEY_EXCHANGE, vec16(ct)).hex(), "rejected": {}}
    for name, pm in (("version_0102", ECC_PREMASTER[:1] + b"\x02" + ECC_PREMASTER[2:]),
                     ("length_47", ECC_PREMASTER[:47]),
                     ("length_49", ECC_PREMASTER + b"\x30")):
        out["rejected"][name] = {"plaintext": pm.hex(), "ciphertext_der": der_ciphertext(*encrypt_premaster(d_enc, pm)).hex()}
    return out

def main():
    self_check = sm2_self_check()

    # A
    master = prf(ECC_PREMASTER, b"master secret", CLIENT_RANDOM + SERVER_RANDOM, 48)
    finished = prf(master, b"client finished", sm3(b"abc"), 12)
    # The key block's seed is server_random || client_random (RFC 5246
    # section 6.3); the order of its parts: client and server MAC keys,
    # client and server keys, client and server IVs.
    def key_block(mac_len, key_len, iv_len):
        kb = prf(master, b"key expansion", SERVER_RANDOM + CLIENT_RANDOM, 2 * (mac_len + key_len + iv_len))
        o = 0
        parts = {}
        for name, n in (("client_mac", mac_len), ("server_mac", mac_len), ("client_key", key_len),
                        ("server_key", key_len), ("client_iv", iv_len), ("server_iv", iv_len)):
            parts[name], o = kb[o:o + n], o + n
        return parts
    gcm = key_block(0, 16, 4)
    cbc = key_block(32, 16, 16)

    # C
    for name, label in SCALAR_LABELS.items():
        assert sm3(b"TLCP-KAT " + label.encode()).hex() == SCALARS[name], name
    d = {k: int(v, 16) for k, v in SCALARS.items()}
    pt = {k: SM2.base_mul(v) for k, v in d.items()}
    pubs = {k: encode(v).hex() for k, v in pt.items()}

    # D: both sides agree, computed from each side independently.
    _, k_a = key_exchange_initiator(SM2, d["server_enc"], d["server_eph"], pt["client_enc"], pt["client_eph"], 48)
    _, k_b = key_exchange_responder(SM2, d["client_enc"], d["client_eph"], pt["server_enc"], pt["server_eph"], 48)
    assert k_a == k_b, "the two sides of the key exchange disagree"
    ecdhe_master = prf(k_a, b"master secret", CLIENT_RANDOM + SERVER_RANDOM, 48)

    json.dump({
        "source": "testdata/tlcp/kat.py (independent of the Go code)",
        "A": {
            "ecc_premaster": ECC_PREMASTER.hex(),
            "client_random": CLIENT_RANDOM.hex(),
            "server_random": SERVER_RANDOM.hex(),
            "master_secret": master.hex(),
            "client_finished_over_sm3_abc": finished.hex(),
            "gcm_key_block": {k: v.hex() for k, v in gcm.items()},
            "cbc_key_block": {k: v.hex() for k, v in cbc.items()},
        },
        "B": {
            "plaintext": PLAINTEXT.decode(),
            "gcm_client_records": gcm_records(gcm["client_key"], gcm["client_iv"], 2),
            "cbc_client_record_iv": CBC_IV.hex(),
            "cbc_client_record": cbc_record(cbc["client_mac"], cbc["client_key"], CBC_IV),
        },
        "C": {"private": SCALARS, "public": pubs},
        "D": {"ecdhe_premaster": k_a.hex(), "ecdhe_master_secret": ecdhe_master.hex()},
        "E": set_e(d["server_sign"], pt["server_eph"]),
        "F": set_f(d["server_enc"]),
        "sm2_self_check": self_check,
    }, sys.stdout, indent=2, sort_keys=True)
    print()

if __name__ == "__main__":
    main()
