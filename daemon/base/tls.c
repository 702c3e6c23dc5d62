/* tls.c: OpenSSL for the rest of profd (tls.h), which includes none of
 * it: the contexts, the bufferevents libevent runs TLS in, and errors in
 * words.  TLS 1.2 is the oldest spoken either way. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "alloc.h"
#include "tls.h"

struct tls_ctx {
	SSL_CTX *ctx;
	struct tls_cert_info info;
};

/* Where a client connection's first verification failure is kept: libevent
 * resets the SSL (SSL_clear) before the request's callback runs, and the
 * verify result with it. */
static int tls_verify_idx = -1;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void
tls_init(void)
{
	tls_verify_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

/* OpenSSL's first queued error in words (the cause; what follows it are
 * its consequences), the queue emptied. */
static void
tls_reason(char *buf, size_t size)
{
	unsigned long e = ERR_get_error();
	const char *r;

	if (e == 0)
		snprintf(buf, size, "unknown error");
	else if (ERR_SYSTEM_ERROR(e))
		snprintf(buf, size, "%s", strerror(ERR_GET_REASON(e)));
	else if ((r = ERR_reason_error_string(e)) != NULL)
		snprintf(buf, size, "%s", r);
	else
		ERR_error_string_n(e, buf, size);
	ERR_clear_error();
}

/* Readable at all?  OpenSSL's own word for a missing file is less clear
 * than errno's. */
static int
tls_readable(const char *what, const char *path, struct error *err)
{
	FILE *f = fopen(path, "r");

	if (f != NULL) {
		fclose(f);
		return 0;
	}
	return error_set(err, ERR_INPUT, "%s %s: cannot read it: %s", what,
	    path, strerror(errno));
}

static void
tls_info(struct tls_ctx *t)
{
	X509 *x = SSL_CTX_get0_certificate(t->ctx);
	BIO *b;
	BIGNUM *bn;
	char *hex;
	struct tm tm;
	int n;

	if (x == NULL)
		return;
	if ((b = BIO_new(BIO_s_mem())) != NULL) {
		X509_NAME_print_ex(b, X509_get_subject_name(x), 0,
		    XN_FLAG_RFC2253);
		n = BIO_read(b, t->info.subject, sizeof t->info.subject - 1);
		t->info.subject[n > 0 ? n : 0] = '\0';
		BIO_free(b);
	}
	if (ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm) == 1)
		strftime(t->info.not_after, sizeof t->info.not_after,
		    "%Y-%m-%dT%H:%M:%SZ", &tm);
	if ((bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), NULL)) !=
	    NULL) {
		if ((hex = BN_bn2hex(bn)) != NULL) {
			snprintf(t->info.serial, sizeof t->info.serial, "%s",
			    hex);
			OPENSSL_free(hex);
		}
		BN_free(bn);
	}
}

static struct tls_ctx *
tls_ctx_new(const SSL_METHOD *method)
{
	struct tls_ctx *t = xcalloc(1, sizeof *t);

	pthread_once(&tls_once, tls_init);
	ERR_clear_error();
	if ((t->ctx = SSL_CTX_new(method)) == NULL ||
	    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION) != 1) {
		SSL_CTX_free(t->ctx);
		free(t);
		return NULL;
	}
	SSL_CTX_set_options(t->ctx, SSL_OP_NO_RENEGOTIATION |
	    SSL_OP_NO_COMPRESSION);
	/* An idle kept-alive connection holds no 34 kB of buffers. */
	SSL_CTX_set_mode(t->ctx, SSL_MODE_RELEASE_BUFFERS);
	return t;
}

struct tls_ctx *
tls_server_new(const char *cert, const char *key, struct error *err)
{
	struct tls_ctx *t;
	char why[256];

	if (tls_readable("tls-cert", cert, err) == -1 ||
	    tls_readable("tls-key", key, err) == -1)
		return NULL;
	if ((t = tls_ctx_new(TLS_server_method())) == NULL) {
		tls_reason(why, sizeof why);
		error_set(err, ERR_INTERNAL, "OpenSSL cannot make a server "
		    "context: %s", why);
		return NULL;
	}
	SSL_CTX_set_options(t->ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
	if (SSL_CTX_use_certificate_chain_file(t->ctx, cert) != 1) {
		tls_reason(why, sizeof why);
		error_set(err, ERR_INPUT, "tls-cert %s is not a PEM "
		    "certificate (chain) OpenSSL takes: %s", cert, why);
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(t->ctx, key, SSL_FILETYPE_PEM) != 1) {
		tls_reason(why, sizeof why);
		if (strstr(why, "mismatch") != NULL)
			error_set(err, ERR_INPUT, "tls-key %s is not the key of "
			    "the certificate in tls-cert %s (%s)", key, cert,
			    why);
		else
			error_set(err, ERR_INPUT, "tls-key %s is not a PEM "
			    "private key OpenSSL takes (unencrypted): %s", key,
			    why);
		goto fail;
	}
	if (SSL_CTX_check_private_key(t->ctx) != 1) {
		tls_reason(why, sizeof why);
		error_set(err, ERR_INPUT, "tls-key %s is not the key of the "
		    "certificate in tls-cert %s (%s)", key, cert, why);
		goto fail;
	}
	tls_info(t);
	return t;
fail:
	tls_ctx_free(t);
	return NULL;
}

/* Keep the first failure of a chain (the cause), for tls_bev_error. */
static int
tls_verify_cb(int ok, X509_STORE_CTX *x)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(x,
	    SSL_get_ex_data_X509_STORE_CTX_idx());

	if (!ok && ssl != NULL && SSL_get_ex_data(ssl, tls_verify_idx) == NULL)
		SSL_set_ex_data(ssl, tls_verify_idx,
		    (void *)(intptr_t)(X509_STORE_CTX_get_error(x) + 1));
	return ok;
}

struct tls_ctx *
tls_client_new(const char *ca_file, struct error *err)
{
	struct tls_ctx *t;
	char why[256];

	if (ca_file != NULL &&
	    tls_readable("fleet-ca-file", ca_file, err) == -1)
		return NULL;
	if ((t = tls_ctx_new(TLS_client_method())) == NULL) {
		tls_reason(why, sizeof why);
		error_set(err, ERR_INTERNAL, "OpenSSL cannot make a client "
		    "context: %s", why);
		return NULL;
	}
	SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, tls_verify_cb);
	if (ca_file != NULL ?
	    SSL_CTX_load_verify_locations(t->ctx, ca_file, NULL) != 1 :
	    SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
		tls_reason(why, sizeof why);
		if (ca_file != NULL)
			error_set(err, ERR_INPUT, "fleet-ca-file %s holds no "
			    "PEM certificate OpenSSL takes: %s", ca_file, why);
		else
			error_set(err, ERR_INPUT, "the system's CA "
			    "certificates cannot be read: %s (set "
			    "fleet-ca-file)", why);
		tls_ctx_free(t);
		return NULL;
	}
	return t;
}

void
tls_ctx_free(struct tls_ctx *t)
{
	if (t == NULL)
		return;
	SSL_CTX_free(t->ctx);	/* its connections hold references */
	free(t);
}

const struct tls_cert_info *
tls_cert(const struct tls_ctx *t)
{
	return &t->info;
}

struct bufferevent *
tls_bev_accept(struct tls_ctx *t, struct event_base *base)
{
	struct bufferevent *bev;
	SSL *ssl;

	if ((ssl = SSL_new(t->ctx)) == NULL)
		return NULL;
	/* Freed with the bufferevent, or by libevent if it fails. */
	if ((bev = bufferevent_openssl_socket_new(base, -1, ssl,
	    BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE)) == NULL)
		return NULL;
	/* A client that closes without close_notify after its last reply
	 * read has done nothing wrong: an end of file, not an error. */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

struct bufferevent *
tls_bev_connect(struct tls_ctx *t, struct event_base *base,
    const char *host)
{
	struct bufferevent *bev;
	struct in6_addr a;
	char name[256];
	size_t n = strlen(host);
	SSL *ssl;
	int ok;

	/* [::1] as a URL writes it. */
	if (host[0] == '[' && n >= 2 && host[n - 1] == ']')
		snprintf(name, sizeof name, "%.*s", (int)(n - 2), host + 1);
	else
		snprintf(name, sizeof name, "%s", host);
	if ((ssl = SSL_new(t->ctx)) == NULL)
		return NULL;
	if (inet_pton(AF_INET, name, &a) == 1 ||
	    inet_pton(AF_INET6, name, &a) == 1)
		ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl),
		    name) == 1;
	else
		ok = SSL_set_tlsext_host_name(ssl, name) == 1 &&
		    SSL_set1_host(ssl, name) == 1;
	if (!ok) {
		SSL_free(ssl);
		return NULL;
	}
	if ((bev = bufferevent_openssl_socket_new(base, -1, ssl,
	    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE |
	    BEV_OPT_DEFER_CALLBACKS)) == NULL)
		return NULL;
	/* Answers end by their length or chunks, never by the close. */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

int
tls_bev_error(struct bufferevent *bev, char *buf, size_t size)
{
	SSL *ssl = bev != NULL ? bufferevent_openssl_get_ssl(bev) : NULL;
	unsigned long e, first = 0;
	intptr_t v;
	const char *r;

	if (ssl == NULL)
		return 0;
	while ((e = bufferevent_get_openssl_error(bev)) != 0)
		if (first == 0)
			first = e;
	v = (intptr_t)SSL_get_ex_data(ssl, tls_verify_idx);
	SSL_set_ex_data(ssl, tls_verify_idx, NULL);
	if (v != 0) {
		snprintf(buf, size, "the server's certificate did not verify: "
		    "%s", X509_verify_cert_error_string((long)(v - 1)));
		return 1;
	}
	if (first == 0)
		return 0;
	if (ERR_SYSTEM_ERROR(first))
		snprintf(buf, size, "TLS: %s", strerror(ERR_GET_REASON(first)));
	else if ((r = ERR_reason_error_string(first)) != NULL)
		snprintf(buf, size, "TLS: %s", r);
	else {
		snprintf(buf, size, "TLS: ");
		ERR_error_string_n(first, buf + strlen(buf), size - strlen(buf));
	}
	return 1;
}
