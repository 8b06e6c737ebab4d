/*
 * Copyright 2026 The shangmi Authors. All rights reserved.
 * Use of this source code is governed by a BSD-style
 * license that can be found in the LICENSE file.
 *
 * encap: the server's half of a curveSM2MLKEM768 key exchange, done by
 * Tongsuo's libcrypto (its provider's hybrid KEM, the code its TLS stack
 * runs): it reads a client key share in hex on the command line, and
 * prints the server's key share (the ciphertext) and the shared secret in
 * hex, a line each. For testdata/tls13/hybrid/kat.sh only.
 *
 *   cc -o encap encap.c -I$TONGSUO/include -L$TONGSUO/lib64 -lcrypto
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

static void die(const char *what)
{
    fprintf(stderr, "encap: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static void hex(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: encap CLIENT_SHARE_HEX");
    long n = 0;
    unsigned char *share = OPENSSL_hexstr2buf(argv[1], &n);
    if (share == NULL)
        die("the client share is not hex");

    /* The group's key from the client's share, as a TLS server makes it. */
    EVP_PKEY_CTX *kctx = EVP_PKEY_CTX_new_from_name(NULL, "curveSM2MLKEM768", NULL);
    if (kctx == NULL || EVP_PKEY_fromdata_init(kctx) <= 0)
        die("no curveSM2MLKEM768 key management");
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, share, (size_t)n),
        OSSL_PARAM_construct_end(),
    };
    EVP_PKEY *pkey = NULL;
    if (EVP_PKEY_fromdata(kctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        die("the client share does not load as a curveSM2MLKEM768 public key");

    EVP_PKEY_CTX *ectx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    size_t ctlen = 0, sslen = 0;
    if (ectx == NULL || EVP_PKEY_encapsulate_init(ectx, NULL) <= 0 ||
        EVP_PKEY_encapsulate(ectx, NULL, &ctlen, NULL, &sslen) <= 0)
        die("encapsulate init");
    unsigned char *ct = OPENSSL_malloc(ctlen), *ss = OPENSSL_malloc(sslen);
    if (EVP_PKEY_encapsulate(ectx, ct, &ctlen, ss, &sslen) <= 0)
        die("encapsulate");
    hex(ct, ctlen);
    hex(ss, sslen);
    return 0;
}
