/*
 * Copyright 2026 The shangmi Authors. All rights reserved.
 * Use of this source code is governed by a BSD-style
 * license that can be found in the LICENSE file.
 *
 * gmsslcms drives the two CMS types that GmSSL 3's library has and its
 * command line lacks, SignedAndEnvelopedData (cms_sign_and_envelop,
 * cms_deenvelop_and_verify) and EncryptedData (cms_encrypt, cms_decrypt),
 * for examples/interop/cms.sh. It is built by that script against the
 * GmSSL named by SHANGMI_GMSSL; it is not part of the Go module.
 *
 *   gmsslcms seal    SIGNCERT SIGNKEY PASS RCPTCERT IN OUT   (PEM out)
 *   gmsslcms open    RCPTCERT RCPTKEY PASS IN OUT           (PEM in)
 *   gmsslcms encrypt KEYHEX IN OUT
 *   gmsslcms decrypt KEYHEX IN OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gmssl/cms.h>
#include <gmssl/oid.h>
#include <gmssl/rand.h>
#include <gmssl/sm2.h>
#include <gmssl/x509.h>

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf;
	long n;
	if (!fp) { perror(path); exit(1); }
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc(n + 1);
	if (fread(buf, 1, n, fp) != (size_t)n) { perror(path); exit(1); }
	fclose(fp);
	*len = n;
	return buf;
}

static void spill(const char *path, const uint8_t *d, size_t len)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(d, 1, len, fp) != len) { perror(path); exit(1); }
	fclose(fp);
}

static void die(const char *what)
{
	fprintf(stderr, "gmsslcms: %s failed\n", what);
	exit(1);
}

static void load_cert(const char *path, uint8_t *cert, size_t *len, size_t max)
{
	FILE *fp = fopen(path, "rb");
	if (!fp || x509_cert_from_pem(cert, len, max, fp) != 1) die(path);
	fclose(fp);
}

static void load_key(const char *path, const char *pass, X509_KEY *key)
{
	SM2_KEY sm2;
	FILE *fp = fopen(path, "rb");
	if (!fp || sm2_private_key_info_decrypt_from_pem(&sm2, pass, fp) != 1) die(path);
	fclose(fp);
	if (x509_key_set_sm2_key(key, &sm2) != 1) die("x509_key_set_sm2_key");
}

static void hexkey(const char *s, uint8_t key[16])
{
	int i;
	if (strlen(s) != 32) die("key length");
	for (i = 0; i < 16; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) die("key hex");
		key[i] = (uint8_t)v;
	}
}

static uint8_t *read_cms(const char *path, size_t *len)
{
	size_t n;
	uint8_t *buf = slurp(path, &n);
	uint8_t *cms = malloc(n);
	FILE *fp = fopen(path, "rb");
	if (!fp || cms_from_pem(cms, len, n, fp) != 1) die("cms_from_pem");
	fclose(fp);
	free(buf);
	return cms;
}

static void write_cms(const char *path, const uint8_t *cms, size_t len)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || cms_to_pem(cms, len, fp) != 1) die("cms_to_pem");
	fclose(fp);
}

int main(int argc, char **argv)
{
	uint8_t key[16], iv[16];
	size_t inlen, cmslen, outlen;
	uint8_t *in, *cms, *out;
	int content_type;

	if (argc == 8 && !strcmp(argv[1], "seal")) {
		uint8_t sign_cert[4096], rcpt_cert[4096];
		size_t sign_cert_len, rcpt_cert_len;
		X509_KEY sign_key;
		CMS_CERTS_AND_KEY signer;
		load_cert(argv[2], sign_cert, &sign_cert_len, sizeof(sign_cert));
		load_key(argv[3], argv[4], &sign_key);
		load_cert(argv[5], rcpt_cert, &rcpt_cert_len, sizeof(rcpt_cert));
		in = slurp(argv[6], &inlen);
		signer.certs = sign_cert;
		signer.certs_len = sign_cert_len;
		signer.sign_key = &sign_key;
		if (rand_bytes(key, 16) != 1 || rand_bytes(iv, 16) != 1) die("rand_bytes");
		cms = malloc(inlen + 16384);
		if (cms_sign_and_envelop(cms, &cmslen, &signer, 1, rcpt_cert, rcpt_cert_len,
				OID_sm4_cbc, key, 16, iv, 16, OID_cms_data, in, inlen, NULL, 0, NULL, 0, NULL, 0) != 1)
			die("cms_sign_and_envelop");
		write_cms(argv[7], cms, cmslen);
		return 0;
	}
	if (argc == 7 && !strcmp(argv[1], "open")) {
		uint8_t rcpt_cert[4096];
		size_t rcpt_cert_len;
		X509_KEY rcpt_key;
		const uint8_t *ri, *si, *sc, *sr, *s1, *s2;
		size_t ril, sil, scl, srl, s1l, s2l;
		load_cert(argv[2], rcpt_cert, &rcpt_cert_len, sizeof(rcpt_cert));
		load_key(argv[3], argv[4], &rcpt_key);
		const uint8_t *p, *issuer, *serial, *body;
		size_t plen, issuer_len, serial_len, body_len;
		int type;
		cms = read_cms(argv[5], &cmslen);
		out = malloc(cmslen);
		/* cms_deenvelop_and_verify refuses every message, GmSSL's own too:
		 * it compares the certificate's SM2 point with the start of the
		 * X509_KEY struct (cms.c, "memcmp(&public_key.u.sm2_key, rcpt_key").
		 * What it wraps, without that check: */
		p = cms;
		plen = cmslen;
		if (cms_content_info_from_der(&type, &body, &body_len, &p, &plen) != 1
			|| type != OID_cms_signed_and_enveloped_data)
			die("cms_content_info_from_der");
		if (x509_cert_get_issuer_and_serial_number(rcpt_cert, rcpt_cert_len,
				&issuer, &issuer_len, &serial, &serial_len) != 1)
			die("x509_cert_get_issuer_and_serial_number");
		if (cms_signed_and_enveloped_data_decipher_from_der(&rcpt_key, issuer, issuer_len, serial, serial_len,
				&content_type, out, &outlen, &ri, &ril, &s1, &s1l, &s2, &s2l, &sc, &scl, &sr, &srl, &si, &sil,
				NULL, 0, NULL, 0, &body, &body_len) != 1)
			die("cms_signed_and_enveloped_data_decipher_from_der");
		spill(argv[6], out, outlen);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "encrypt")) {
		hexkey(argv[2], key);
		in = slurp(argv[3], &inlen);
		if (rand_bytes(iv, 16) != 1) die("rand_bytes");
		cms = malloc(inlen + 1024);
		if (cms_encrypt(cms, &cmslen, OID_sm4_cbc, key, 16, iv, 16, OID_cms_data, in, inlen, NULL, 0, NULL, 0) != 1)
			die("cms_encrypt");
		write_cms(argv[4], cms, cmslen);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "decrypt")) {
		const uint8_t *s1, *s2;
		size_t s1l, s2l;
		int enc_algor;
		hexkey(argv[2], key);
		cms = read_cms(argv[3], &cmslen);
		out = malloc(cmslen);
		if (cms_decrypt(cms, cmslen, &enc_algor, key, 16, &content_type, out, &outlen, &s1, &s1l, &s2, &s2l) != 1)
			die("cms_decrypt");
		spill(argv[4], out, outlen);
		return 0;
	}
	fprintf(stderr, "usage: gmsslcms seal|open|encrypt|decrypt ...\n");
	return 2;
}
