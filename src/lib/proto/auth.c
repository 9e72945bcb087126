/*
 * The --auth-key exchange (auth.h): key files, nonces, proofs and the
 * session's cookie. The cryptography is libsodium's: HMAC-SHA-256
 * (crypto_auth_hmacsha256), randombytes_buf for nonces and sodium_memcmp
 * for comparisons whose time does not depend on where the bytes differ.
 */
#include "proto/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct auth_key {
    size_t len;
    uint8_t bytes[];
};

/* Domain separation: a proof made for one purpose is worth nothing for another. */
static const char LABEL_SERVER[] = "netab auth v1 server";
static const char LABEL_CLIENT[] = "netab auth v1 client";
static const char LABEL_COOKIE[] = "netab auth v1 cookie";

static int sodium_ready(char *err, size_t errlen)
{
    if (sodium_init() < 0)
        return err_set(err, errlen, EIO, "cannot initialise libsodium");
    return 0;
}

int auth_key_from_bytes(const void *bytes, size_t len, struct auth_key **out, char *err,
                        size_t errlen)
{
    *out = NULL;
    int rc = sodium_ready(err, errlen);
    if (rc)
        return rc;
    if (len < AUTH_KEY_MIN)
        return err_set(err, errlen, EINVAL,
                       "the key has %zu bytes; a key needs at least %d (for example: head -c 32 "
                       "/dev/urandom | base64 > FILE)",
                       len, AUTH_KEY_MIN);
    if (len > AUTH_KEY_MAX)
        return err_set(err, errlen, EINVAL, "the key has %zu bytes; at most %d are allowed", len,
                       AUTH_KEY_MAX);
    /*
     * Guarded, locked memory: the secret never reaches swap and is wiped by
     * sodium_free. sodium_malloc puts the block's end at a guard page, so
     * the block is aligned only when its size is a multiple of the alignment.
     */
    size_t size = (sizeof(struct auth_key) + len + 15) & ~(size_t)15;
    struct auth_key *k = sodium_malloc(size);
    if (!k)
        return err_set(err, errlen, ENOMEM, "out of memory for the key");
    k->len = len;
    memcpy(k->bytes, bytes, len);
    *out = k;
    return 0;
}

void auth_key_free(struct auth_key *k)
{
    if (k)
        sodium_free(k);
}

/* Checks what the open key file is; its mode is read from the descriptor, not the path. */
static int check_key_file(int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st))
        return err_set(err, errlen, errno, "cannot stat key file %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return err_set(err, errlen, EINVAL, "key file %s is not a regular file", path);
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        return err_set(err, errlen, EPERM,
                       "key file %s may be read or written by its group or others (mode %04o); "
                       "make it private: chmod 600 %s",
                       path, (unsigned)(st.st_mode & 07777), path);
    if (st.st_size > AUTH_KEY_MAX + 2)
        return err_set(err, errlen, EINVAL,
                       "key file %s has %lld bytes; a key file holds one secret of at most %d "
                       "bytes",
                       path, (long long)st.st_size, AUTH_KEY_MAX);
    return 0;
}

int auth_key_load(const char *path, struct auth_key **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = sodium_ready(err, errlen); /* before sodium_malloc */
    if (rc)
        return rc;
    /* O_NONBLOCK: a FIFO given as key file must not hang the start; it is refused below. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return err_set(err, errlen, errno, "cannot open key file %s: %s", path, strerror(errno));
    /* One byte more than allowed, to notice a file that grew after fstat. */
    uint8_t *buf = sodium_malloc(AUTH_KEY_MAX + 3);
    size_t len = 0;
    rc = buf ? check_key_file(fd, path, err, errlen)
             : err_set(err, errlen, ENOMEM, "out of memory for the key");
    while (!rc && len < AUTH_KEY_MAX + 3) {
        ssize_t n = read(fd, buf + len, AUTH_KEY_MAX + 3 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = err_set(err, errlen, errno, "cannot read key file %s: %s", path, strerror(errno));
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    /* "echo SECRET > FILE" and "printf SECRET > FILE" give the same key. */
    while (!rc && len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    if (!rc) {
        char why[NB_ERRLEN];
        rc = auth_key_from_bytes(buf, len, out, why, sizeof(why));
        if (rc)
            err_set(err, errlen, rc, "key file %s: %s", path, why);
    }
    if (buf)
        sodium_free(buf);
    return rc;
}

/* HMAC-SHA-256 of label, then the two nonces, under the session's key. */
static void hmac_nonces(const struct auth_session *as, const char *label,
                        uint8_t out[crypto_auth_hmacsha256_BYTES])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, as->key->bytes, as->key->len);
    crypto_auth_hmacsha256_update(&st, (const uint8_t *)label, strlen(label) + 1);
    crypto_auth_hmacsha256_update(&st, as->client_nonce, AUTH_NONCE_LEN);
    crypto_auth_hmacsha256_update(&st, as->server_nonce, AUTH_NONCE_LEN);
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof(st));
}

/* Adds n bytes as lowercase hex under name to obj. Returns 0 or -ENOMEM. */
static int set_hex(json_t *obj, const char *name, const uint8_t *bin, size_t n)
{
    char hex[2 * 64 + 1];
    sodium_bin2hex(hex, sizeof(hex), bin, n);
    return json_object_set_new(obj, name, json_string(hex)) ? -ENOMEM : 0;
}

/* Decodes exactly n bytes of hex from obj's member name. Returns 0 or -EINVAL. */
static int get_hex(const json_t *obj, const char *name, uint8_t *bin, size_t n)
{
    const char *hex = json_string_value(json_object_get(obj, name));
    size_t got = 0;
    const char *end = NULL;
    if (!hex || strlen(hex) != 2 * n || sodium_hex2bin(bin, n, hex, 2 * n, NULL, &got, &end) != 0 ||
        got != n || *end != '\0')
        return -EINVAL;
    return 0;
}

/* The peer's auth member, if it names our method. */
static const json_t *auth_member(const json_t *msg)
{
    const json_t *a = json_object_get(msg, "auth");
    const char *method = json_string_value(json_object_get(a, "method"));
    return json_is_object(a) && method && !strcmp(method, AUTH_METHOD) ? a : NULL;
}

int auth_client_hello(struct auth_session *as, const struct auth_key *key, json_t *hello, char *err,
                      size_t errlen)
{
    *as = (struct auth_session){.key = key};
    if (!key)
        return 0;
    int rc = sodium_ready(err, errlen);
    if (rc)
        return rc;
    randombytes_buf(as->client_nonce, AUTH_NONCE_LEN);
    json_t *a = json_pack("{s:s}", "method", AUTH_METHOD);
    if (a && set_hex(a, "nonce", as->client_nonce, AUTH_NONCE_LEN)) {
        json_decref(a);
        a = NULL;
    }
    /* json_object_set_new takes a, also when it fails. */
    if (!a || json_object_set_new(hello, "auth", a))
        return err_set(err, errlen, ENOMEM, "out of memory");
    return 0;
}

int auth_client_check_welcome(struct auth_session *as, const json_t *welcome, json_t **reply,
                              char *err, size_t errlen)
{
    *reply = NULL;
    if (!as->key)
        return 0;
    const json_t *a = auth_member(welcome);
    uint8_t proof[AUTH_PROOF_LEN], want[AUTH_PROOF_LEN];
    if (!a || get_hex(a, "nonce", as->server_nonce, AUTH_NONCE_LEN) ||
        get_hex(a, "proof", proof, AUTH_PROOF_LEN))
        return err_set(err, errlen, EACCES,
                       "authentication failed: the server did not prove that it holds the key "
                       "(it runs without --auth-key, or is not the server you meant)");
    hmac_nonces(as, LABEL_SERVER, want);
    int same = sodium_memcmp(proof, want, AUTH_PROOF_LEN) == 0;
    sodium_memzero(want, sizeof(want));
    if (!same)
        return err_set(err, errlen, EACCES,
                       "authentication failed: the server's proof does not match this key (the "
                       "server has another key)");
    uint8_t mine[AUTH_PROOF_LEN];
    hmac_nonces(as, LABEL_CLIENT, mine);
    json_t *m = json_pack("{s:s}", "type", "auth");
    if (!m || set_hex(m, "proof", mine, AUTH_PROOF_LEN)) {
        json_decref(m);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    /* The client trusts the server now; the server decides about the client on "auth". */
    as->authenticated = true;
    *reply = m;
    return 0;
}

int auth_server_welcome(struct auth_session *as, const struct auth_key *key, const json_t *hello,
                        json_t *welcome, char *err, size_t errlen)
{
    *as = (struct auth_session){.key = key};
    if (!key)
        return 0;
    const json_t *a = auth_member(hello);
    if (!a || get_hex(a, "nonce", as->client_nonce, AUTH_NONCE_LEN))
        return err_set(err, errlen, EACCES,
                       "authentication failed: this server requires a key (netab run --auth-key "
                       "FILE)");
    int rc = sodium_ready(err, errlen);
    if (rc)
        return rc;
    randombytes_buf(as->server_nonce, AUTH_NONCE_LEN);
    uint8_t proof[AUTH_PROOF_LEN];
    hmac_nonces(as, LABEL_SERVER, proof);
    json_t *w = json_pack("{s:s}", "method", AUTH_METHOD);
    if (w && (set_hex(w, "nonce", as->server_nonce, AUTH_NONCE_LEN) ||
              set_hex(w, "proof", proof, AUTH_PROOF_LEN))) {
        json_decref(w);
        w = NULL;
    }
    if (!w || json_object_set_new(welcome, "auth", w))
        return err_set(err, errlen, ENOMEM, "out of memory");
    return 0;
}

int auth_server_check_proof(struct auth_session *as, const json_t *msg, char *err, size_t errlen)
{
    const char *type = json_string_value(json_object_get(msg, "type"));
    uint8_t proof[AUTH_PROOF_LEN], want[AUTH_PROOF_LEN];
    if (!as->key || !type || strcmp(type, "auth") || get_hex(msg, "proof", proof, AUTH_PROOF_LEN))
        return err_set(err, errlen, EACCES,
                       "authentication failed: the client sent no proof that it holds the key");
    hmac_nonces(as, LABEL_CLIENT, want);
    int same = sodium_memcmp(proof, want, AUTH_PROOF_LEN) == 0;
    sodium_memzero(want, sizeof(want));
    if (!same)
        return err_set(err, errlen, EACCES,
                       "authentication failed: the client's proof does not match this server's "
                       "key");
    as->authenticated = true;
    return 0;
}

void auth_session_proof(const struct auth_session *as, enum auth_role role,
                        uint8_t proof[AUTH_PROOF_LEN])
{
    hmac_nonces(as, role == AUTH_SERVER ? LABEL_SERVER : LABEL_CLIENT, proof);
}

void auth_session_cookie(const struct auth_session *as, uint8_t cookie[TEST_COOKIE_LEN])
{
    uint8_t mac[crypto_auth_hmacsha256_BYTES];
    hmac_nonces(as, LABEL_COOKIE, mac);
    memcpy(cookie, mac, TEST_COOKIE_LEN);
    sodium_memzero(mac, sizeof(mac));
}
