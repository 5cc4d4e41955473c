#ifndef PUSHLAB_CIPHERTEXT_SOURCE_H
#define PUSHLAB_CIPHERTEXT_SOURCE_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bio.h>

// The read side of a TLS connection: a BIO that OpenSSL reads ciphertext from straight out of
// the socket's buffer, which the caller lends for the duration of one call. A memory BIO would
// first zero-fill and copy every byte read from the network. Bytes OpenSSL has not taken when
// the loan ends (a read that stopped early) are copied and served first by the next loan.

typedef struct {
    const unsigned char *lent;
    size_t lent_length;
    size_t lent_offset;
    unsigned char *kept;
    size_t kept_length;
    size_t kept_offset;
    size_t kept_capacity;
} pushlab_ciphertext_source;

static int pushlab_source_read(BIO *bio, char *out, size_t wanted, size_t *read) {
    pushlab_ciphertext_source *source = (pushlab_ciphertext_source *)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    size_t done = 0;
    if (source->kept_offset < source->kept_length) {
        size_t count = source->kept_length - source->kept_offset;
        if (count > wanted) count = wanted;
        memcpy(out, source->kept + source->kept_offset, count);
        source->kept_offset += count;
        done = count;
    }
    if (done < wanted && source->lent_offset < source->lent_length) {
        size_t count = source->lent_length - source->lent_offset;
        if (count > wanted - done) count = wanted - done;
        memcpy(out + done, source->lent + source->lent_offset, count);
        source->lent_offset += count;
        done += count;
    }
    *read = done;
    if (done == 0) {
        // Empty means "not yet", never end of file: the caller lends more when the socket has it.
        BIO_set_retry_read(bio);
        return 0;
    }
    return 1;
}

static long pushlab_source_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number; (void)pointer;
    pushlab_ciphertext_source *source = (pushlab_ciphertext_source *)BIO_get_data(bio);
    switch (command) {
    case BIO_CTRL_PENDING:
        return (long)((source->kept_length - source->kept_offset) + (source->lent_length - source->lent_offset));
    case BIO_CTRL_FLUSH:
        return 1;
    default:
        return 0;
    }
}

static int pushlab_source_create(BIO *bio) {
    pushlab_ciphertext_source *source = (pushlab_ciphertext_source *)calloc(1, sizeof(pushlab_ciphertext_source));
    if (source == NULL) return 0;
    BIO_set_data(bio, source);
    BIO_set_init(bio, 1);
    return 1;
}

static int pushlab_source_destroy(BIO *bio) {
    pushlab_ciphertext_source *source = (pushlab_ciphertext_source *)BIO_get_data(bio);
    if (source != NULL) {
        free(source->kept);
        free(source);
    }
    BIO_set_data(bio, NULL);
    return 1;
}

static BIO_METHOD *pushlab_source_method_instance = NULL;

static void pushlab_source_method_make(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "pushlab ciphertext source");
    if (method == NULL) return;
    BIO_meth_set_read_ex(method, pushlab_source_read);
    BIO_meth_set_ctrl(method, pushlab_source_ctrl);
    BIO_meth_set_create(method, pushlab_source_create);
    BIO_meth_set_destroy(method, pushlab_source_destroy);
    pushlab_source_method_instance = method;
}

/// A new source BIO, or NULL when out of memory.
static inline BIO *pushlab_ciphertext_source_new(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, pushlab_source_method_make);
    if (pushlab_source_method_instance == NULL) return NULL;
    return BIO_new(pushlab_source_method_instance);
}

/// Lends `bytes` until `pushlab_ciphertext_source_end_loan`; they must stay valid until then.
static inline void pushlab_ciphertext_source_lend(BIO *bio, const void *bytes, size_t length) {
    pushlab_ciphertext_source *source = (pushlab_ciphertext_source *)BIO_get_data(bio);
    source->lent = (const unsigned char *)bytes;
    source->lent_length = length;
    source->lent_offset = 0;
}

/// Ends the loan, keeping a copy of what OpenSSL did not read; returns 0 when out of memory.
static inline int pushlab_ciphertext_source_end_loan(BIO *bio) {
    pushlab_ciphertext_source *source = (pushlab_ciphertext_source *)BIO_get_data(bio);
    size_t left = source->lent_length - source->lent_offset;
    const unsigned char *rest = source->lent + source->lent_offset;
    source->lent = NULL;
    source->lent_length = 0;
    source->lent_offset = 0;
    if (source->kept_offset == source->kept_length) {
        source->kept_offset = 0;
        source->kept_length = 0;
    }
    if (left == 0) return 1;
    size_t needed = source->kept_length - source->kept_offset + left;
    if (source->kept_offset > 0) {
        memmove(source->kept, source->kept + source->kept_offset, source->kept_length - source->kept_offset);
        source->kept_length -= source->kept_offset;
        source->kept_offset = 0;
    }
    if (needed > source->kept_capacity) {
        unsigned char *grown = (unsigned char *)realloc(source->kept, needed);
        if (grown == NULL) return 0;
        source->kept = grown;
        source->kept_capacity = needed;
    }
    memcpy(source->kept + source->kept_length, rest, left);
    source->kept_length += left;
    return 1;
}

#endif
