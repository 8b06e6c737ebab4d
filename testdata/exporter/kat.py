#!/usr/bin/env python3
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

"""Known answers for the keying material exporters of tlcp.Conn:

  * TLCP, RFC 5705 over the TLCP PRF (P_SM3 of RFC 5246 section 5 with
    HMAC-SM3): PRF(master_secret, label, client_random || server_random
    [|| uint16(len(context)) || context]);
  * TLS 1.3 with the SM suites, RFC 8446 section 7.5:
    HKDF-Expand-Label(Derive-Secret(exporter_master_secret, label, ""),
    "exporter", SM3(context), length).

SM3, HMAC, HKDF-Expand-Label and Derive-Secret come from
testdata/tls13/kat.py (written from the specifications, not from the Go
code); P_SM3 is written here. Where the openssl 3 CLI is present, P_SM3 is
checked a second time against its TLS1-PRF with digest SM3.

    python3 testdata/exporter/kat.py > testdata/exporter/kat.json

The inputs are SHA-256 of ASCII labels, reproducible and random-looking.
"""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tls13"))
from kat import sm3, hmac_sm3, expand_label, derive_secret  # noqa: E402


def p_sm3(secret, seed, length):
    out, a = b"", seed
    while len(out) < length:
        a = hmac_sm3(secret, a)
        out += hmac_sm3(secret, a + seed)
    return out[:length]


def data(label, n):
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(("%s %d" % (label, i)).encode()).digest()
        i += 1
    return out[:n]


def tlcp_case(name, label, context, length):
    master = data(name + " master", 48)
    cr, sr = data(name + " client random", 32), data(name + " server random", 32)
    seed = cr + sr
    if context is not None:
        seed += struct.pack(">H", len(context)) + context
    out = p_sm3(master, label.encode() + seed, length)
    openssl = shutil.which("openssl")
    if openssl:
        r = subprocess.run([openssl, "kdf", "-keylen", str(length), "-kdfopt", "digest:SM3",
                            "-kdfopt", "hexsecret:" + master.hex(),
                            "-kdfopt", "hexseed:" + (label.encode() + seed).hex(), "TLS1-PRF"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            got = bytes.fromhex(r.stdout.strip().replace(":", ""))
            assert got == out, "openssl TLS1-PRF disagrees for " + name
    return {"name": name, "master": master.hex(), "client_random": cr.hex(), "server_random": sr.hex(),
            "label": label, "context": None if context is None else context.hex(), "length": length,
            "output": out.hex()}


def tls13_case(name, label, context, length):
    ems = data(name + " exporter master secret", 32)
    secret = derive_secret(ems, label, sm3(b""))
    out = expand_label(secret, "exporter", sm3(context or b""), length)
    return {"name": name, "exporter_master_secret": ems.hex(), "label": label,
            "context": None if context is None else context.hex(), "length": length, "output": out.hex()}


def main():
    tlcp = [
        tlcp_case("no context", "EXPORTER-shangmi", None, 32),
        tlcp_case("empty context", "EXPORTER-shangmi", b"", 32),
        tlcp_case("context", "EXPORTER-shangmi", b"channel binding", 48),
        tlcp_case("long output", "EXPORTER-Channel-Binding", b"\x00\x01", 100),
    ]
    tls13 = [
        tls13_case("no context", "EXPORTER-shangmi", None, 32),
        tls13_case("context", "EXPORTER-shangmi", b"channel binding", 48),
        tls13_case("long output", "EXPORTER-Channel-Binding", b"\x00\x01", 100),
    ]
    json.dump({"tlcp": tlcp, "tls13": tls13}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
