#!/usr/bin/env python3
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

"""Known answers for the curveSM2MLKEM768 hybrid key share (TLS13.md section 8).

Run from the module root, with Tongsuo 8.5 built (see examples/interop):

    TONGSUO=/path/to/tongsuo/prefix python3 testdata/tls13/hybrid/kat.py > testdata/tls13/hybrid/kat.json

What comes from where:
  - the client's SM2 private scalar and ML-KEM-768 seed are SHA-256 of ASCII labels;
  - its key share comes from testdata/tls13/hybrid/share (package sm2's point and
    crypto/mlkem's encapsulation key from the seed); this script recomputes the point
    in Python (affine arithmetic on the SM2 curve) and checks it is the share's first
    65 bytes;
  - the server's share and the 64-byte shared secret come from Tongsuo's libcrypto
    (encap.c: its curveSM2MLKEM768 KEM, the code its TLS server runs);
  - this script checks that the secret's first 32 bytes are the x coordinate of the
    SM2 ECDH of the client's scalar with the point that begins the server's share;
  - the key schedule from that secret is computed by ../kat.py's HKDF-SM3 and checked
    against the openssl CLI (Tongsuo's) kdf HKDF and TLS13-KDF with digest SM3.
tlcp/keyshare_kat_test.go rebuilds the client's key from the scalar and the seed,
checks its share, decapsulates Tongsuo's share and derives the same secrets.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
import kat  # noqa: E402  (../kat.py)

# SM2 curve (GB/T 32918.5).
P = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF
A = P - 3
B = 0x28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93
N = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123
G = (0x32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7,
     0xBC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0)


def ec_add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if p1 == p2:
        lam = (3 * x1 * x1 + A) * pow(2 * y1, -1, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


def ec_mul(k, pt):
    out = None
    while k:
        if k & 1:
            out = ec_add(out, pt)
        pt = ec_add(pt, pt)
        k >>= 1
    return out


def point_bytes(pt):
    return b"\x04" + pt[0].to_bytes(32, "big") + pt[1].to_bytes(32, "big")


def parse_point(b):
    assert len(b) == 65 and b[0] == 4
    x, y = int.from_bytes(b[1:33], "big"), int.from_bytes(b[33:], "big")
    assert (y * y - (x * x * x + A * x + B)) % P == 0, "not on the curve"
    return (x, y)


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def main():
    tongsuo = os.environ.get("TONGSUO")
    if not tongsuo:
        sys.exit("kat.py: set TONGSUO to Tongsuo 8.5's install prefix (with include/ and lib64/)")
    libdir = os.path.join(tongsuo, "lib64")
    env = dict(os.environ, LD_LIBRARY_PATH=libdir + ":" + os.path.join(tongsuo, "lib"))

    d = int.from_bytes(kat.label_bytes("shangmi tls13-sm hybrid kat: client sm2 private key"), "big") % (N - 2) + 1
    seed = kat.label_bytes("shangmi tls13-sm hybrid kat: ml-kem seed d") + kat.label_bytes("shangmi tls13-sm hybrid kat: ml-kem seed z")
    d_hex = d.to_bytes(32, "big").hex()

    client_share = bytes.fromhex(run(["go", "run", "./testdata/tls13/hybrid/share", d_hex, seed.hex()]).strip())
    assert len(client_share) == 65 + 1184
    assert client_share[:65] == point_bytes(ec_mul(d, G)), "the share's point is not d*G"

    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "encap")
        run(["cc", "-o", exe, os.path.join(here, "encap.c"), "-I" + os.path.join(tongsuo, "include"),
             "-L" + libdir, "-lcrypto"])
        out = run([exe, client_share.hex()], env=env).split()
    server_share, secret = bytes.fromhex(out[0]), bytes.fromhex(out[1])
    assert len(server_share) == 65 + 1088 and len(secret) == 64
    x = ec_mul(d, parse_point(server_share[:65]))[0].to_bytes(32, "big")
    assert secret[:32] == x, "the secret does not start with the SM2 ECDH x coordinate"

    hello_hash = kat.label_bytes("shangmi tls13-sm hybrid kat: transcript ClientHello..ServerHello")
    empty = kat.sm3(b"")
    zeros = b"\x00" * 32
    early = kat.hkdf_extract(zeros, zeros)
    derived = kat.derive_secret(early, "derived", empty)
    hs = kat.hkdf_extract(derived, secret)
    c_hs = kat.derive_secret(hs, "c hs traffic", hello_hash)
    s_hs = kat.derive_secret(hs, "s hs traffic", hello_hash)

    openssl = os.path.join(tongsuo, "bin", "openssl")
    got = run([openssl, "kdf", "-keylen", "32", "-kdfopt", "digest:SM3", "-kdfopt", "mode:EXTRACT_ONLY",
               "-kdfopt", "hexkey:" + secret.hex(), "-kdfopt", "hexsalt:" + derived.hex(), "HKDF"], env=env)
    assert got.strip().replace(":", "").lower() == hs.hex(), "openssl kdf HKDF disagrees"
    for label, want in (("c hs traffic", c_hs), ("s hs traffic", s_hs)):
        got = run([openssl, "kdf", "-keylen", "32", "-kdfopt", "digest:SM3", "-kdfopt", "mode:EXPAND_ONLY",
                   "-kdfopt", "hexkey:" + hs.hex(), "-kdfopt", "hexprefix:" + b"tls13 ".hex(),
                   "-kdfopt", "hexlabel:" + label.encode().hex(), "-kdfopt", "hexdata:" + hello_hash.hex(),
                   "TLS13-KDF"], env=env)
        assert got.strip().replace(":", "").lower() == want.hex(), "openssl kdf TLS13-KDF disagrees: " + label

    version = run([openssl, "version"], env=env).strip()
    doc = {
        "algorithm": "curveSM2MLKEM768 (0x11EE) TLS 1.3 hybrid key share: SM2 ECDH then ML-KEM-768, and the HKDF-SM3 handshake secrets of its 64-byte shared secret",
        "source": "testdata/tls13/hybrid/kat.py; server share and shared secret from " + version + " (encap.c), key schedule checked with its kdf command",
        "encoding": "lowercase hex",
        "client_sm2_private_hex": d_hex,
        "client_mlkem768_seed_hex": seed.hex(),
        "client_share_hex": client_share.hex(),
        "server_share_hex": server_share.hex(),
        "shared_secret_hex": secret.hex(),
        "hello_hash_hex": hello_hash.hex(),
        "handshake_secret_hex": hs.hex(),
        "client_handshake_traffic_secret_hex": c_hs.hex(),
        "server_handshake_traffic_secret_hex": s_hs.hex(),
    }
    json.dump(doc, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
