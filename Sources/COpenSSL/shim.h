#ifndef PUSHLAB_COPENSSL_SHIM_H
#define PUSHLAB_COPENSSL_SHIM_H

#include <string.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/pkcs12.h>
#include "ciphertext_source.h"

// Swift cannot call C macros, and a few OpenSSL entry points are macros around *_ctrl.
// Each is wrapped here, once. Besides these, C holds the callbacks OpenSSL calls (ALPN,
// verification, and the ciphertext source BIO in ciphertext_source.h).

static inline int pushlab_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline long pushlab_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline long pushlab_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

static inline int pushlab_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

static inline void pushlab_BIO_set_mem_eof_return(BIO *bio, int value) {
    BIO_set_mem_eof_return(bio, value);
}

static inline void pushlab_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

static inline int pushlab_SSL_CTX_set_ecdh_auto(SSL_CTX *ctx) {
    return (int)SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384");
}

// ALPN: Apple advertises only h2. A client that offers ALPN without h2 gets no protocol
// (and then fails the HTTP/2 preface); a client that offers no ALPN is served h2 anyway.
static int pushlab_alpn_select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                  const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    static const unsigned char h2[] = { 2, 'h', '2' };
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, h2, sizeof(h2), in, inlen) == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

static inline void pushlab_SSL_CTX_select_alpn_h2(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, pushlab_alpn_select_h2, NULL);
}

// The JPush and GeTui stand-ins speak HTTP/1.1 only, as those APIs' clients do.
static int pushlab_alpn_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                      const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    static const unsigned char http11[] = { 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, http11, sizeof(http11), in, inlen) == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

static inline void pushlab_SSL_CTX_select_alpn_http11(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, pushlab_alpn_select_http11, NULL);
}

// Client certificates are requested, never required, and an unverifiable one does not fail
// the handshake: the APNs layer answers BadCertificate itself, as Apple does, from the
// verification result kept on the connection.
static int pushlab_verify_keep_going(int preverified, X509_STORE_CTX *store) {
    (void)preverified; (void)store;
    return 1;
}

static inline void pushlab_SSL_CTX_request_client_certificate(SSL_CTX *ctx) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_CLIENT_ONCE, pushlab_verify_keep_going);
}

// EVP_EC_gen is a macro over a variadic function.
static inline EVP_PKEY *pushlab_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

// EVP_RSA_gen is a macro over the same variadic function (pushlab certs: APNs client keys
// are RSA 2048, like Apple's).
static inline EVP_PKEY *pushlab_generate_rsa_key(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

static inline unsigned long pushlab_XN_FLAG_RFC2253(void) {
    return XN_FLAG_RFC2253;
}

// A client's check of the server's certificate: OpenSSL's own verdict, unchanged, but the
// certificate it refused is kept (one reference, in the SSL's app data) so that a failed
// handshake can say whose certificate it was. TLSConnection frees it with the SSL.
static int pushlab_verify_remember_rejected(int preverified, X509_STORE_CTX *store) {
    if (!preverified) {
        SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
        X509 *leaf = X509_STORE_CTX_get0_cert(store);
        if (ssl != NULL && leaf != NULL && SSL_get_app_data(ssl) == NULL && X509_up_ref(leaf) == 1) {
            SSL_set_app_data(ssl, leaf);
        }
    }
    return preverified;
}

static inline void pushlab_SSL_CTX_verify_server(SSL_CTX *ctx) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, pushlab_verify_remember_rejected);
}

static inline X509 *pushlab_SSL_get0_rejected_certificate(const SSL *ssl) {
    return (X509 *)SSL_get_app_data(ssl);
}

static inline void pushlab_SSL_free_rejected_certificate(SSL *ssl) {
    X509_free((X509 *)SSL_get_app_data(ssl));
    SSL_set_app_data(ssl, NULL);
}

// STACK_OF(X509) functions are macros over OPENSSL_sk_* (PKCS#12's CA certificates).
static inline STACK_OF(X509) *pushlab_sk_X509_new_null(void) {
    return sk_X509_new_null();
}

static inline int pushlab_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}

static inline int pushlab_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *pushlab_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

// Frees the stack and every certificate it holds (one reference each).
static inline void pushlab_sk_X509_pop_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

#endif
