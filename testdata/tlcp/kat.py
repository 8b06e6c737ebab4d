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
    "1234567812345678", 48 bytes.

SM3, HMAC-SM3, SM4 and SM4-GCM come from testdata/tls13/kat.py; P_SM3,
SM4-CBC, SM2 arithmetic (affine, Python integers) and the key exchange
are written here. E (signatures with a fixed nonce) and F (the ECC
ClientKeyExchange with a fixed encryption nonce) are not derived yet.

    python3 testdata/tlcp/kat.py > testdata/tlcp/kat.json

tlcp's TestKATIndependentScript checks the package's values against the
JSON.
"""

import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tls13"))
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
CBC_IV = bytes.fromhex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
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

# ------------------------------------------------------------ SM2 (GB/T 32918.5 curve)

P = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF
A = P - 3
B = 0x28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93
N = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123
G = (0x32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7,
     0xBC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0)

def ec_add(p, q):
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0] and (p[1] + q[1]) % P == 0:
        return None
    if p == q:
        lam = (3 * p[0] * p[0] + A) * pow(2 * p[1], -1, P) % P
    else:
        lam = (q[1] - p[1]) * pow(q[0] - p[0], -1, P) % P
    x = (lam * lam - p[0] - q[0]) % P
    return x, (lam * (p[0] - x) - p[1]) % P

def ec_mul(k, p):
    r = None
    for bit in bin(k)[2:]:
        r = ec_add(r, r)
        if bit == "1":
            r = ec_add(r, p)
    return r

def on_curve(p):
    return (p[1] * p[1] - (p[0] ** 3 + A * p[0] + B)) % P == 0

def b32(v):
    return v.to_bytes(32, "big")

def encode(p):
    return b"\x04" + b32(p[0]) + b32(p[1])

def za(pub, uid=b"1234567812345678"):
    entl = struct.pack(">H", len(uid) * 8)
    return sm3(entl + uid + b32(A) + b32(B) + b32(G[0]) + b32(G[1]) + b32(pub[0]) + b32(pub[1]))

def kdf(z, klen):
    out, ct = b"", 1
    while len(out) < klen:
        out += sm3(z + struct.pack(">I", ct))
        ct += 1
    return out[:klen]

def xbar(x):
    # w = ceil(ceil(log2 n) / 2) - 1 = 127
    return (1 << 127) + (x & ((1 << 127) - 1))

def key_exchange_initiator(d_a, pub_a, r_a, pub_b, eph_b, klen):
    """GB/T 32918.3 section 6.1 A4-A8, seen from A; returns K."""
    ra = ec_mul(r_a, G)
    t_a = (d_a + xbar(ra[0]) * r_a) % N
    assert on_curve(eph_b)
    u = ec_mul(t_a, ec_add(pub_b, ec_mul(xbar(eph_b[0]), eph_b)))  # cofactor h = 1
    assert u is not None
    return kdf(b32(u[0]) + b32(u[1]) + za(pub_a) + za(pub_b), klen)

def key_exchange_responder(d_b, pub_b, r_b, pub_a, eph_a, klen):
    """GB/T 32918.3 section 6.1 B1-B5, seen from B; returns K."""
    rb = ec_mul(r_b, G)
    t_b = (d_b + xbar(rb[0]) * r_b) % N
    assert on_curve(eph_a)
    v = ec_mul(t_b, ec_add(pub_a, ec_mul(xbar(eph_a[0]), eph_a)))
    assert v is not None
    return kdf(b32(v[0]) + b32(v[1]) + za(pub_a) + za(pub_b), klen)

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

def main():
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
    pubs = {name: encode(ec_mul(int(d, 16), G)).hex() for name, d in SCALARS.items()}

    # D: both sides agree, computed from each side independently.
    d = {k: int(v, 16) for k, v in SCALARS.items()}
    pt = {k: ec_mul(v, G) for k, v in d.items()}
    k_a = key_exchange_initiator(d["server_enc"], pt["server_enc"], d["server_eph"], pt["client_enc"], pt["client_eph"], 48)
    k_b = key_exchange_responder(d["client_enc"], pt["client_enc"], d["client_eph"], pt["server_enc"], pt["server_eph"], 48)
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
    }, sys.stdout, indent=2, sort_keys=True)
    print()

if __name__ == "__main__":
    main()
