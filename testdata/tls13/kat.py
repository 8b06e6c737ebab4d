#!/usr/bin/env python3
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

"""Known-answer values for the TLS 1.3 key schedule and record protection of
RFC 8998 (HKDF over HMAC-SM3, TLS_SM4_GCM_SM3, TLS_SM4_CCM_SM3).

Everything is computed from first principles in this file: SM3 (GB/T 32905),
HMAC (RFC 2104), HKDF (RFC 5869), HKDF-Expand-Label and Derive-Secret
(RFC 8446 section 7.1), SM4 (GB/T 32907), GCM (NIST SP 800-38D) and CCM
(NIST SP 800-38C). Where the machine has them, the values are checked a
second time against other implementations: hashlib's SM3, the openssl 3.x
CLI's TLS13-KDF and HKDF with digest SM3, pyca/cryptography's SM4-GCM and,
with SHANGMI_GMSSL set to a gmssl 3 binary, GmSSL's sm4_gcm and sm4_ccm.

    [SHANGMI_GMSSL=.../gmssl] python3 testdata/tls13/kat.py > testdata/tls13/hkdf_sm3.json

The inputs are SHA-256 of ASCII labels, so that they are reproducible and
look random. Nothing here is derived from the Go code under test.
"""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys

# ---------------------------------------------------------------- SM3

def _rotl(x, n):
    n %= 32
    return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF

def sm3(msg):
    iv = [0x7380166F, 0x4914B2B9, 0x172442D7, 0xDA8A0600,
          0xA96F30BC, 0x163138AA, 0xE38DEE4D, 0xB0FB0E4E]
    n = len(msg)
    m = msg + b"\x80" + b"\x00" * ((55 - n) % 64) + struct.pack(">Q", n * 8)
    v = iv[:]
    for off in range(0, len(m), 64):
        w = list(struct.unpack(">16I", m[off:off + 64]))
        for j in range(16, 68):
            x = w[j - 16] ^ w[j - 9] ^ _rotl(w[j - 3], 15)
            p1 = x ^ _rotl(x, 15) ^ _rotl(x, 23)
            w.append(p1 ^ _rotl(w[j - 13], 7) ^ w[j - 6])
        w1 = [w[j] ^ w[j + 4] for j in range(64)]
        a, b, c, d, e, f, g, h = v
        for j in range(64):
            t = 0x79CC4519 if j < 16 else 0x7A879D8A
            ss1 = _rotl((_rotl(a, 12) + e + _rotl(t, j)) & 0xFFFFFFFF, 7)
            ss2 = ss1 ^ _rotl(a, 12)
            if j < 16:
                ff = a ^ b ^ c
                gg = e ^ f ^ g
            else:
                ff = (a & b) | (a & c) | (b & c)
                gg = (e & f) | (~e & g)
            tt1 = (ff + d + ss2 + w1[j]) & 0xFFFFFFFF
            tt2 = (gg + h + ss1 + w[j]) & 0xFFFFFFFF
            d, c, b, a = c, _rotl(b, 9), a, tt1
            h, g, f = g, _rotl(f, 19), e
            e = tt2 ^ _rotl(tt2, 9) ^ _rotl(tt2, 17)
        v = [x ^ y for x, y in zip(v, [a, b, c, d, e, f, g, h])]
    return struct.pack(">8I", *v)

def hmac_sm3(key, msg):
    if len(key) > 64:
        key = sm3(key)
    key = key + b"\x00" * (64 - len(key))
    ipad = bytes(k ^ 0x36 for k in key)
    opad = bytes(k ^ 0x5C for k in key)
    return sm3(opad + sm3(ipad + msg))

def hkdf_extract(salt, ikm):
    return hmac_sm3(salt, ikm)

def hkdf_expand(prk, info, length):
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac_sm3(prk, t + info + bytes([i]))
        out += t
        i += 1
    return out[:length]

def expand_label(secret, label, context, length):
    full = b"tls13 " + label.encode()
    info = struct.pack(">H", length) + bytes([len(full)]) + full + bytes([len(context)]) + context
    return hkdf_expand(secret, info, length)

def derive_secret(secret, label, transcript_hash):
    return expand_label(secret, label, transcript_hash, 32)

# ---------------------------------------------------------------- SM4

SBOX = bytes.fromhex(
    "d690e9fecce13db716b614c228fb2c052b679a762abe04c3aa441326498606999c4250f491ef987a33540b43edcfac62"
    "e4b31ca9c908e89580df94fa758f3fa64707a7fcf37317ba83593c19e6854fa8686b81b27164da8bf8eb0f4b70569d35"
    "1e240e5e6358d1a225227c3b01217887d40046579fd327524c3602e7a0c4c89eeabf8ad240c738b5a3f7f2cef96115a1"
    "e0ae5da49b341a55ad933230f58cb1e31df6e22e8266ca60c02923ab0d534e6fd5db3745defd8e2f03ff6a726d6c5b51"
    "8d1baf92bbddbc7f11d95c411f105ad80ac13188a5cd7bbd2d74d012b8e5b4b08969974a0c96777e65b9f109c56ec684"
    "18f07dec3adc4d2079ee5f3ed7cb3948")
FK = [0xA3B1BAC6, 0x56AA3350, 0x677D9197, 0xB27022DC]
CK = [(((4 * i) * 7 % 256) << 24) | (((4 * i + 1) * 7 % 256) << 16) |
      (((4 * i + 2) * 7 % 256) << 8) | ((4 * i + 3) * 7 % 256) for i in range(32)]

def _tau(x):
    return struct.unpack(">I", bytes(SBOX[b] for b in struct.pack(">I", x)))[0]

def _sm4_round_keys(key):
    k = [x ^ f for x, f in zip(struct.unpack(">4I", key), FK)]
    rk = []
    for i in range(32):
        t = _tau(k[i + 1] ^ k[i + 2] ^ k[i + 3] ^ CK[i])
        k.append(k[i] ^ t ^ _rotl(t, 13) ^ _rotl(t, 23))
        rk.append(k[-1])
    return rk

def sm4_encrypt_block(rk, block):
    x = list(struct.unpack(">4I", block))
    for i in range(32):
        t = _tau(x[i + 1] ^ x[i + 2] ^ x[i + 3] ^ rk[i])
        x.append(x[i] ^ t ^ _rotl(t, 2) ^ _rotl(t, 10) ^ _rotl(t, 18) ^ _rotl(t, 24))
    return struct.pack(">4I", x[35], x[34], x[33], x[32])

# ---------------------------------------------------------------- GCM, CCM

def _xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))

def _gf_mult(x, y):
    r = 0xE1 << 120
    z, v = 0, y
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ r if v & 1 else v >> 1
    return z

def _ghash(h, aad, ct):
    def blocks(b):
        b = b + b"\x00" * (-len(b) % 16)
        return [int.from_bytes(b[i:i + 16], "big") for i in range(0, len(b), 16)]
    y = 0
    for blk in blocks(aad) + blocks(ct) + [(len(aad) * 8 << 64) | (len(ct) * 8)]:
        y = _gf_mult(y ^ blk, h)
    return y.to_bytes(16, "big")

def _ctr(rk, counter_block, data, first):
    out = b""
    ctr = int.from_bytes(counter_block, "big")
    for i in range(0, len(data), 16):
        ks = sm4_encrypt_block(rk, ((ctr & ~0xFFFFFFFF) | ((ctr + first + i // 16) & 0xFFFFFFFF)).to_bytes(16, "big"))
        out += _xor(data[i:i + 16], ks)
    return out

def sm4_gcm_seal(key, nonce, pt, aad):
    rk = _sm4_round_keys(key)
    h = int.from_bytes(sm4_encrypt_block(rk, b"\x00" * 16), "big")
    j0 = nonce + b"\x00\x00\x00\x01"
    ct = _ctr(rk, j0, pt, 1)
    tag = _xor(sm4_encrypt_block(rk, j0), _ghash(h, aad, ct))
    return ct + tag

def sm4_ccm_seal(key, nonce, pt, aad, tag_len=16):
    rk = _sm4_round_keys(key)
    q = 15 - len(nonce)
    flags = (0x40 if aad else 0) | (((tag_len - 2) // 2) << 3) | (q - 1)
    b = bytes([flags]) + nonce + len(pt).to_bytes(q, "big")
    if aad:
        a = struct.pack(">H", len(aad)) + aad  # len(aad) < 2^16 - 2^8 here
        b += a + b"\x00" * (-len(a) % 16)
    b += pt + b"\x00" * (-len(pt) % 16)
    x = b"\x00" * 16
    for i in range(0, len(b), 16):
        x = sm4_encrypt_block(rk, _xor(x, b[i:i + 16]))
    ctr0 = bytes([q - 1]) + nonce + b"\x00" * q
    ct = b""
    for i in range(0, len(pt), 16):
        cb = bytes([q - 1]) + nonce + (i // 16 + 1).to_bytes(q, "big")
        ct += _xor(pt[i:i + 16], sm4_encrypt_block(rk, cb))
    return ct + _xor(x[:tag_len], sm4_encrypt_block(rk, ctr0))[:tag_len]

# ---------------------------------------------------------------- self-checks

def _self_checks():
    # Published values: GB/T 32905 Appendix A, GB/T 32907 Appendix A,
    # RFC 8998 Appendix A (SM4-GCM and SM4-CCM).
    assert sm3(b"abc").hex() == "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    k = bytes.fromhex("0123456789abcdeffedcba9876543210")
    assert sm4_encrypt_block(_sm4_round_keys(k), k).hex() == "681edf34d206965e86b3e94f536e4246"
    key = bytes.fromhex("0123456789ABCDEFFEDCBA9876543210")
    iv = bytes.fromhex("00001234567800000000ABCD")
    aad = bytes.fromhex("FEEDFACEDEADBEEFFEEDFACEDEADBEEFABADDAD2")
    pt = bytes.fromhex("AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBCCCCCCCCCCCCCCCCDDDDDDDDDDDDDDDD"
                       "EEEEEEEEEEEEEEEEFFFFFFFFFFFFFFFFEEEEEEEEEEEEEEEEAAAAAAAAAAAAAAAA")
    assert sm4_gcm_seal(key, iv, pt, aad).hex().endswith("83de3541e4c2b58177e065a9bf7b62ec")
    assert sm4_ccm_seal(key, iv, pt, aad).hex().endswith("16842d4fa186f56ab33256971fa110f4")

# ---------------------------------------------------------------- the vectors

def label_bytes(label, n=32):
    return hashlib.sha256(label.encode()).digest()[:n]

def h(b):
    return b.hex()

def key_schedule_vector():
    shared = label_bytes("shangmi tls13-sm kat: ecdhe shared secret")
    hello_hash = label_bytes("shangmi tls13-sm kat: transcript ClientHello..ServerHello")
    server_fin_hash = label_bytes("shangmi tls13-sm kat: transcript ClientHello..server Finished")
    client_fin_hash = label_bytes("shangmi tls13-sm kat: transcript ClientHello..client Finished")
    cert_verify_hash = label_bytes("shangmi tls13-sm kat: transcript ClientHello..server CertificateVerify")
    empty = sm3(b"")
    zeros = b"\x00" * 32

    early = hkdf_extract(zeros, zeros)
    hs = hkdf_extract(derive_secret(early, "derived", empty), shared)
    c_hs = derive_secret(hs, "c hs traffic", hello_hash)
    s_hs = derive_secret(hs, "s hs traffic", hello_hash)
    master = hkdf_extract(derive_secret(hs, "derived", empty), zeros)
    c_ap = derive_secret(master, "c ap traffic", server_fin_hash)
    s_ap = derive_secret(master, "s ap traffic", server_fin_hash)
    exp = derive_secret(master, "exp master", server_fin_hash)
    res = derive_secret(master, "res master", client_fin_hash)

    def finished(base, th):
        return hmac_sm3(expand_label(base, "finished", b"", 32), th)

    v = {
        "id": "tls13-sm3-gen-full-handshake",
        "source": "generated: RFC 8446 section 7.1 key schedule with HKDF over HMAC-SM3 (RFC 8998); no PSK; inputs are SHA-256 of ASCII labels",
        "generated": True,
        "shared_secret_hex": h(shared),
        "hello_hash_hex": h(hello_hash),
        "server_cert_verify_hash_hex": h(cert_verify_hash),
        "server_finished_hash_hex": h(server_fin_hash),
        "client_finished_hash_hex": h(client_fin_hash),
        "early_secret_hex": h(early),
        "handshake_secret_hex": h(hs),
        "client_handshake_traffic_secret_hex": h(c_hs),
        "server_handshake_traffic_secret_hex": h(s_hs),
        "master_secret_hex": h(master),
        "client_application_traffic_secret_hex": h(c_ap),
        "server_application_traffic_secret_hex": h(s_ap),
        "exporter_master_secret_hex": h(exp),
        "resumption_master_secret_hex": h(res),
        "server_finished_verify_data_hex": h(finished(s_hs, cert_verify_hash)),
        "client_finished_verify_data_hex": h(finished(c_hs, server_fin_hash)),
        "server_handshake_key_hex": h(expand_label(s_hs, "key", b"", 16)),
        "server_handshake_iv_hex": h(expand_label(s_hs, "iv", b"", 12)),
        "client_application_key_hex": h(expand_label(c_ap, "key", b"", 16)),
        "client_application_iv_hex": h(expand_label(c_ap, "iv", b"", 12)),
        "client_application_traffic_secret_1_hex": h(expand_label(c_ap, "traffic upd", b"", 32)),
        "exporter_label_ascii": "EXPORTER-shangmi-kat",
        "exporter_context_hex": h(b"context"),
        "exporter_length": 42,
    }
    sec = derive_secret(exp, v["exporter_label_ascii"], empty)
    v["exporter_output_hex"] = h(expand_label(sec, "exporter", sm3(b"context"), 42))
    return v, res, s_ap

def resumption_vector(res_master):
    nonce = bytes(8)
    psk = expand_label(res_master, "resumption", nonce, 32)
    early = hkdf_extract(b"\x00" * 32, psk)
    binder_key = derive_secret(early, "res binder", sm3(b""))
    truncated_hash = label_bytes("shangmi tls13-sm kat: truncated ClientHello")
    ch_hash = label_bytes("shangmi tls13-sm kat: ClientHello with binders")
    shared = label_bytes("shangmi tls13-sm kat: resumed ecdhe shared secret")
    hs = hkdf_extract(derive_secret(early, "derived", sm3(b"")), shared)
    return {
        "id": "tls13-sm3-gen-resumption",
        "source": "generated: RFC 8446 sections 4.2.11.2, 4.6.1 and 7.1 with HKDF over HMAC-SM3; the resumption master secret of tls13-sm3-gen-full-handshake",
        "generated": True,
        "resumption_master_secret_hex": h(res_master),
        "ticket_nonce_hex": h(nonce),
        "psk_hex": h(psk),
        "early_secret_hex": h(early),
        "binder_key_hex": h(binder_key),
        "truncated_client_hello_hash_hex": h(truncated_hash),
        "binder_hex": h(hmac_sm3(expand_label(binder_key, "finished", b"", 32), truncated_hash)),
        "client_hello_hash_hex": h(ch_hash),
        "client_early_traffic_secret_hex": h(derive_secret(early, "c e traffic", ch_hash)),
        "shared_secret_hex": h(shared),
        "handshake_secret_hex": h(hs),
    }

def record_vectors(secret):
    out = []
    key = expand_label(secret, "key", b"", 16)
    iv = expand_label(secret, "iv", b"", 12)
    for name, seal in (("TLS_SM4_GCM_SM3", sm4_gcm_seal), ("TLS_SM4_CCM_SM3", sm4_ccm_seal)):
        for seq, typ, pt in ((0, 23, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"),
                             (1, 22, bytes.fromhex("1800000100")),  # KeyUpdate(update_not_requested)
                             (2, 21, bytes.fromhex("0100"))):        # close_notify
            nonce = _xor(iv, bytes(4) + struct.pack(">Q", seq))
            inner = pt + bytes([typ])
            hdr = bytes([23, 3, 3]) + struct.pack(">H", len(inner) + 16)
            frag = seal(key, nonce, inner, hdr)
            out.append({
                "id": "tls13-sm3-gen-record-%s-seq%d" % (name.split("_")[2].lower(), seq),
                "source": "generated: RFC 8446 section 5.2 record of %s (RFC 8998), key and iv from the server application traffic secret of tls13-sm3-gen-full-handshake" % name,
                "generated": True,
                "suite": name,
                "traffic_secret_hex": h(secret),
                "sequence_number": seq,
                "content_type": typ,
                "plaintext_hex": h(pt),
                "record_hex": h(hdr + frag),
            })
    return out

# ---------------------------------------------------------------- cross-checks

def _openssl(args):
    exe = shutil.which("openssl")
    if exe is None:
        return None
    r = subprocess.run([exe] + args, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout.strip().replace(":", "").lower()

def cross_check(full, resumption, records):
    """Recompute what other implementations can, and return their labels."""
    labels = {}
    # hashlib SM3 (OpenSSL's) against ours, with Python's hmac module.
    import hmac as pyhmac
    if "sm3" in hashlib.algorithms_available:
        new = lambda d=b"": hashlib.new("sm3", d)
        k = bytes.fromhex(full["shared_secret_hex"])
        assert pyhmac.new(k, b"abc", lambda: hashlib.new("sm3")).digest() == hmac_sm3(k, b"abc")
        assert new(b"x" * 1000).digest() == sm3(b"x" * 1000)
        labels["python-hashlib-hmac-sm3"] = ("Python hashlib SM3 (OpenSSL) with the hmac module: the SM3 and HMAC-SM3 underneath, spot-checked", [])
    # openssl kdf: HKDF-Extract and TLS13-KDF expand-label with SM3.
    got = _openssl(["kdf", "-keylen", "32", "-kdfopt", "digest:SM3", "-kdfopt", "mode:EXTRACT_ONLY",
                    "-kdfopt", "hexkey:" + full["shared_secret_hex"],
                    "-kdfopt", "hexsalt:" + h(derive_secret(bytes.fromhex(full["early_secret_hex"]), "derived", sm3(b""))),
                    "HKDF"])
    if got is not None:
        assert got == full["handshake_secret_hex"], ("HKDF extract", got)
        for secret_field, label, ctx_field, want in (
                ("handshake_secret_hex", "c hs traffic", "hello_hash_hex", "client_handshake_traffic_secret_hex"),
                ("handshake_secret_hex", "s hs traffic", "hello_hash_hex", "server_handshake_traffic_secret_hex"),
                ("master_secret_hex", "s ap traffic", "server_finished_hash_hex", "server_application_traffic_secret_hex"),
                ("master_secret_hex", "res master", "client_finished_hash_hex", "resumption_master_secret_hex")):
            got = _openssl(["kdf", "-keylen", "32", "-kdfopt", "digest:SM3", "-kdfopt", "mode:EXPAND_ONLY",
                            "-kdfopt", "hexkey:" + full[secret_field], "-kdfopt", "hexprefix:" + b"tls13 ".hex(),
                            "-kdfopt", "hexlabel:" + label.encode().hex(), "-kdfopt", "hexdata:" + full[ctx_field],
                            "TLS13-KDF"])
            assert got == full[want], (label, got)
        got = _openssl(["kdf", "-keylen", "32", "-kdfopt", "digest:SM3", "-kdfopt", "mode:EXPAND_ONLY",
                        "-kdfopt", "hexkey:" + resumption["resumption_master_secret_hex"],
                        "-kdfopt", "hexprefix:" + b"tls13 ".hex(), "-kdfopt", "hexlabel:" + b"resumption".hex(),
                        "-kdfopt", "hexdata:" + resumption["ticket_nonce_hex"], "TLS13-KDF"])
        assert got == resumption["psk_hex"], ("resumption", got)
        labels["openssl-cli-kdf"] = ("openssl 3.x CLI: kdf HKDF (EXTRACT_ONLY) and kdf TLS13-KDF (EXPAND_ONLY) with digest SM3; checks the handshake secret, the handshake and application traffic secrets, the resumption master secret and the resumption PSK",
                                     [full["id"], resumption["id"]])
    # pyca/cryptography SM4-GCM for the GCM records.
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        for r in records:
            if r["suite"] != "TLS_SM4_GCM_SM3":
                continue
            secret = bytes.fromhex(r["traffic_secret_hex"])
            key = expand_label(secret, "key", b"", 16)
            iv = expand_label(secret, "iv", b"", 12)
            nonce = _xor(iv, bytes(4) + struct.pack(">Q", r["sequence_number"]))
            rec = bytes.fromhex(r["record_hex"])
            enc = Cipher(algorithms.SM4(key), modes.GCM(nonce)).encryptor()
            enc.authenticate_additional_data(rec[:5])
            ct = enc.update(bytes.fromhex(r["plaintext_hex"]) + bytes([r["content_type"]])) + enc.finalize()
            assert ct + enc.tag == rec[5:], r["id"]
        labels["pyca-cryptography-sm4-gcm"] = ("pyca/cryptography SM4-GCM (its bundled OpenSSL): the GCM records, given key and nonce from this script",
                                               [r["id"] for r in records if r["suite"] == "TLS_SM4_GCM_SM3"])
    except ImportError:
        pass
    # GmSSL's sm4_gcm and sm4_ccm commands, if SHANGMI_GMSSL names the binary.
    gmssl = os.environ.get("SHANGMI_GMSSL")
    if gmssl:
        ids = []
        for r in records:
            secret = bytes.fromhex(r["traffic_secret_hex"])
            key = expand_label(secret, "key", b"", 16)
            iv = expand_label(secret, "iv", b"", 12)
            nonce = _xor(iv, bytes(4) + struct.pack(">Q", r["sequence_number"]))
            rec = bytes.fromhex(r["record_hex"])
            cmd = "sm4_gcm" if r["suite"] == "TLS_SM4_GCM_SM3" else "sm4_ccm"
            out = subprocess.run([gmssl, cmd, "-encrypt", "-key", key.hex(), "-iv", nonce.hex(), "-aad_hex", rec[:5].hex(),
                                  "-taglen", "16"], input=bytes.fromhex(r["plaintext_hex"]) + bytes([r["content_type"]]),
                                 capture_output=True)
            assert out.returncode == 0 and out.stdout == rec[5:], (r["id"], out.stderr)
            ids.append(r["id"])
        labels["gmssl-cli-sm4-gcm-ccm"] = ("GmSSL 3.3.0-dev command line: sm4_gcm and sm4_ccm -encrypt (run when SHANGMI_GMSSL names the binary), the records given key and nonce from this script", ids)
    return labels

def main():
    _self_checks()
    full, res, s_ap = key_schedule_vector()
    resumption = resumption_vector(res)
    records = record_vectors(s_ap)
    others = cross_check(full, resumption, records)
    impls = {"kat.py": "testdata/tls13/kat.py: SM3, HMAC, HKDF, HKDF-Expand-Label, SM4, GCM and CCM written from the specifications in Python, self-checked against GB/T 32905, GB/T 32907 and RFC 8998 Appendix A"}
    for v in [full, resumption] + records:
        v["verified_with"] = ["kat.py"] + sorted(l for l, (_, ids) in others.items() if v["id"] in ids)
    impls.update({l: d for l, (d, _) in others.items()})
    doc = {
        "algorithm": "TLS 1.3 key schedule with HKDF over HMAC-SM3, and TLS 1.3 record protection with TLS_SM4_GCM_SM3 / TLS_SM4_CCM_SM3 (RFC 8446, RFC 8998)",
        "format_version": 1,
        "encoding": "all byte strings are lowercase hex (fields ending in _hex); *_ascii fields are text",
        "source": "no public known-answer values exist for RFC 8998's key schedule; all vectors are generated by testdata/tls13/kat.py",
        "conventions": {
            "hashes": "*_hash_hex are SM3 transcript hashes taken as given (inputs), not recomputed from messages",
            "finished": "server_finished_verify_data uses the server handshake traffic secret and server_cert_verify_hash; client_finished_verify_data the client handshake traffic secret and server_finished_hash",
            "record": "record_hex is the whole TLS 1.3 record: header 17 03 03 len, then AEAD(inner plaintext = plaintext || content_type, no padding) with nonce = iv XOR seq",
        },
        "implementations": impls,
        "vectors": [full, resumption] + records,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")

if __name__ == "__main__":
    main()
