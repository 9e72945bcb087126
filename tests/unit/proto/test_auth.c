/*
 * Unit tests for proto/auth: the --auth-key exchange without sockets (right
 * key, wrong key, no key on either end, replayed and tampered proofs) and
 * the key file rules (permissions, length, line endings).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proto/auth.h"
#include "proto/msg.h"

static struct auth_key *key_of(const char *secret)
{
    struct auth_key *k = NULL;
    char err[NB_ERRLEN];
    assert_int_equal(auth_key_from_bytes(secret, strlen(secret), &k, err, sizeof(err)), 0);
    return k;
}

/* One exchange's messages, each a new reference (or NULL where not reached). */
struct exchange {
    struct auth_session client, server;
    json_t *hello, *welcome, *reply;
    int welcome_rc, check_rc, proof_rc;
    char err[NB_ERRLEN];
};

/* Runs the exchange as client.c and server_session.c do, stopping at the first refusal. */
static void exchange(struct exchange *x, const struct auth_key *ck, const struct auth_key *sk)
{
    memset(x, 0, sizeof(*x));
    x->hello = msg_hello();
    assert_int_equal(auth_client_hello(&x->client, ck, x->hello, x->err, sizeof(x->err)), 0);
    x->welcome = msg_welcome();
    x->welcome_rc =
        auth_server_welcome(&x->server, sk, x->hello, x->welcome, x->err, sizeof(x->err));
    if (x->welcome_rc)
        return;
    x->check_rc =
        auth_client_check_welcome(&x->client, x->welcome, &x->reply, x->err, sizeof(x->err));
    if (x->check_rc || !sk)
        return;
    x->proof_rc = auth_server_check_proof(&x->server, x->reply, x->err, sizeof(x->err));
}

static void exchange_free(struct exchange *x)
{
    json_decref(x->hello);
    json_decref(x->welcome);
    json_decref(x->reply);
}

static void test_right_key(void **state)
{
    (void)state;
    struct auth_key *k = key_of("0123456789abcdef-shared-secret");
    struct exchange x;
    exchange(&x, k, k);
    assert_int_equal(x.welcome_rc, 0);
    assert_int_equal(x.check_rc, 0);
    assert_int_equal(x.proof_rc, 0);
    assert_true(x.client.authenticated);
    assert_true(x.server.authenticated);
    assert_string_equal(msg_type(x.reply), "auth");
    /* Both ends derive the same cookie, and it is not all zeros. */
    uint8_t cc[TEST_COOKIE_LEN], sc[TEST_COOKIE_LEN], zero[TEST_COOKIE_LEN] = {0};
    auth_session_cookie(&x.client, cc);
    auth_session_cookie(&x.server, sc);
    assert_memory_equal(cc, sc, TEST_COOKIE_LEN);
    assert_memory_not_equal(cc, zero, TEST_COOKIE_LEN);

    /* A second session has fresh nonces both ways, hence another cookie. */
    struct exchange y;
    exchange(&y, k, k);
    assert_int_equal(y.proof_rc, 0);
    assert_memory_not_equal(x.client.client_nonce, y.client.client_nonce, AUTH_NONCE_LEN);
    assert_memory_not_equal(x.server.server_nonce, y.server.server_nonce, AUTH_NONCE_LEN);
    uint8_t yc[TEST_COOKIE_LEN];
    auth_session_cookie(&y.client, yc);
    assert_memory_not_equal(cc, yc, TEST_COOKIE_LEN);
    exchange_free(&x);
    exchange_free(&y);
    auth_key_free(k);
}

static void test_wrong_key_client_refuses(void **state)
{
    (void)state;
    struct auth_key *a = key_of("key-A-0123456789abcdef"), *b = key_of("key-B-0123456789abcdef");
    struct exchange x;
    exchange(&x, a, b);
    assert_int_equal(x.welcome_rc, 0);
    assert_int_equal(x.check_rc, -EACCES);
    assert_null(x.reply);
    assert_false(x.client.authenticated);
    assert_non_null(strstr(x.err, "authentication failed"));
    assert_non_null(strstr(x.err, "another key"));
    exchange_free(&x);
    auth_key_free(a);
    auth_key_free(b);
}

/* A client that holds another key and sends its proof anyway is refused by the server. */
static void test_wrong_key_server_refuses(void **state)
{
    (void)state;
    struct auth_key *a = key_of("key-A-0123456789abcdef"), *b = key_of("key-B-0123456789abcdef");
    struct exchange x;
    exchange(&x, a, b);
    struct auth_session forged = x.server;
    forged.key = a;
    uint8_t proof[AUTH_PROOF_LEN];
    auth_session_proof(&forged, AUTH_CLIENT, proof);
    char hex[2 * AUTH_PROOF_LEN + 1];
    for (int i = 0; i < AUTH_PROOF_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", proof[i]);
    json_t *m = json_pack("{s:s, s:s}", "type", "auth", "proof", hex);
    char err[NB_ERRLEN] = "";
    assert_int_equal(auth_server_check_proof(&x.server, m, err, sizeof(err)), -EACCES);
    assert_false(x.server.authenticated);
    assert_non_null(strstr(err, "authentication failed: the client's proof does not match"));
    /* The same proof under the server's own key is accepted: the test above is not vacuous. */
    forged.key = b;
    auth_session_proof(&forged, AUTH_CLIENT, proof);
    for (int i = 0; i < AUTH_PROOF_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", proof[i]);
    json_object_set_new(m, "proof", json_string(hex));
    assert_int_equal(auth_server_check_proof(&x.server, m, err, sizeof(err)), 0);
    json_decref(m);
    exchange_free(&x);
    auth_key_free(a);
    auth_key_free(b);
}

static void test_client_without_key(void **state)
{
    (void)state;
    struct auth_key *k = key_of("0123456789abcdef-shared-secret");
    struct exchange x;
    exchange(&x, NULL, k);
    assert_null(json_object_get(x.hello, "auth"));
    assert_int_equal(x.welcome_rc, -EACCES);
    assert_non_null(strstr(x.err, "authentication failed: this server requires a key"));
    assert_null(json_object_get(x.welcome, "auth"));
    exchange_free(&x);
    auth_key_free(k);
}

static void test_server_without_key(void **state)
{
    (void)state;
    struct auth_key *k = key_of("0123456789abcdef-shared-secret");
    struct exchange x;
    exchange(&x, k, NULL);
    /* The keyless server ignores the client's auth member and proves nothing... */
    assert_non_null(json_object_get(x.hello, "auth"));
    assert_int_equal(x.welcome_rc, 0);
    assert_null(json_object_get(x.welcome, "auth"));
    /* ...so the client refuses it. */
    assert_int_equal(x.check_rc, -EACCES);
    assert_null(x.reply);
    assert_non_null(strstr(x.err, "authentication failed: the server did not prove"));
    exchange_free(&x);
    auth_key_free(k);
}

static void test_no_key_either_end(void **state)
{
    (void)state;
    struct exchange x;
    exchange(&x, NULL, NULL);
    assert_null(json_object_get(x.hello, "auth"));
    assert_null(json_object_get(x.welcome, "auth"));
    assert_int_equal(x.welcome_rc, 0);
    assert_int_equal(x.check_rc, 0);
    assert_null(x.reply);
    assert_false(x.client.authenticated);
    assert_false(x.server.authenticated);
    exchange_free(&x);
}

static void test_replayed_client_proof(void **state)
{
    (void)state;
    struct auth_key *k = key_of("0123456789abcdef-shared-secret");
    struct exchange old, now;
    exchange(&old, k, k);
    assert_int_equal(old.proof_rc, 0);
    exchange(&now, k, k);
    /* A proof recorded in an earlier session does not open a new one. */
    char err[NB_ERRLEN] = "";
    struct auth_session fresh = now.server;
    fresh.authenticated = false;
    assert_int_equal(auth_server_check_proof(&fresh, old.reply, err, sizeof(err)), -EACCES);
    assert_false(fresh.authenticated);
    /* Nor does replaying the server's old welcome fool a new client. */
    struct auth_session client = now.client;
    client.authenticated = false;
    json_t *reply = NULL;
    assert_int_equal(auth_client_check_welcome(&client, old.welcome, &reply, err, sizeof(err)),
                     -EACCES);
    assert_null(reply);
    exchange_free(&old);
    exchange_free(&now);
    auth_key_free(k);
}

/* Replaces character i of obj's string member name by one that differs. */
static void flip(json_t *obj, const char *name, size_t i)
{
    char s[256];
    snprintf(s, sizeof(s), "%s", json_string_value(json_object_get(obj, name)));
    s[i] = s[i] == '0' ? '1' : '0';
    json_object_set_new(obj, name, json_string(s));
}

static void test_tampered_messages(void **state)
{
    (void)state;
    struct auth_key *k = key_of("0123456789abcdef-shared-secret");
    char err[NB_ERRLEN];
    /* A flipped digit in the server's proof or nonce, or in the client's proof. */
    for (int what = 0; what < 3; what++) {
        for (size_t pos = 0; pos < 64; pos += 21) {
            struct exchange x;
            memset(&x, 0, sizeof(x));
            x.hello = msg_hello();
            assert_int_equal(auth_client_hello(&x.client, k, x.hello, err, sizeof(err)), 0);
            x.welcome = msg_welcome();
            assert_int_equal(
                auth_server_welcome(&x.server, k, x.hello, x.welcome, err, sizeof(err)), 0);
            json_t *a = json_object_get(x.welcome, "auth");
            if (what < 2) {
                flip(a, what == 0 ? "proof" : "nonce", pos);
                assert_int_equal(
                    auth_client_check_welcome(&x.client, x.welcome, &x.reply, err, sizeof(err)),
                    -EACCES);
            } else {
                assert_int_equal(
                    auth_client_check_welcome(&x.client, x.welcome, &x.reply, err, sizeof(err)), 0);
                flip(x.reply, "proof", pos);
                assert_int_equal(auth_server_check_proof(&x.server, x.reply, err, sizeof(err)),
                                 -EACCES);
                assert_false(x.server.authenticated);
            }
            exchange_free(&x);
        }
    }
    auth_key_free(k);
}

static void test_malformed_messages(void **state)
{
    (void)state;
    struct auth_key *k = key_of("0123456789abcdef-shared-secret");
    char err[NB_ERRLEN];
    struct exchange x;
    exchange(&x, k, k);
    assert_int_equal(x.check_rc, 0);
    const char *bad[] = {"", "00", "zz", "not hex at all"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct auth_session s = x.server;
        s.authenticated = false;
        json_t *m = json_pack("{s:s, s:s}", "type", "auth", "proof", bad[i]);
        assert_int_equal(auth_server_check_proof(&s, m, err, sizeof(err)), -EACCES);
        json_decref(m);
    }
    /* The right proof in a message of another type, or without a type, is refused. */
    struct auth_session s = x.server;
    s.authenticated = false;
    json_object_set_new(x.reply, "type", json_string("start"));
    assert_int_equal(auth_server_check_proof(&s, x.reply, err, sizeof(err)), -EACCES);
    json_object_del(x.reply, "type");
    assert_int_equal(auth_server_check_proof(&s, x.reply, err, sizeof(err)), -EACCES);
    /* A hello whose method is unknown, or whose nonce is short, counts as no key. */
    struct auth_session srv;
    json_t *h = msg_hello(), *w = msg_welcome();
    json_object_set_new(h, "auth", json_pack("{s:s, s:s}", "method", "md5", "nonce", "00"));
    assert_int_equal(auth_server_welcome(&srv, k, h, w, err, sizeof(err)), -EACCES);
    json_object_set_new(h, "auth", json_pack("{s:s, s:s}", "method", AUTH_METHOD, "nonce", "00"));
    assert_int_equal(auth_server_welcome(&srv, k, h, w, err, sizeof(err)), -EACCES);
    json_object_set_new(h, "auth", json_string("yes"));
    assert_int_equal(auth_server_welcome(&srv, k, h, w, err, sizeof(err)), -EACCES);
    json_decref(h);
    json_decref(w);
    exchange_free(&x);
    auth_key_free(k);
}

/* Writes content to a new file in dir with the given mode; returns its path (static buffer). */
static const char *key_file(const char *dir, const char *name, const void *content, size_t len,
                            mode_t mode)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
    return path;
}

static void test_key_file_permissions(void **state)
{
    (void)state;
    char dir[] = "/tmp/netab-auth-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *secret = "0123456789abcdef0123456789abcdef\n";
    char err[NB_ERRLEN];
    struct auth_key *k = NULL;
    const mode_t open_modes[] = {0644, 0640, 0604, 0620, 0602, 0610, 0666};
    for (size_t i = 0; i < sizeof(open_modes) / sizeof(open_modes[0]); i++) {
        const char *p = key_file(dir, "key", secret, strlen(secret), open_modes[i]);
        err[0] = '\0';
        assert_int_equal(auth_key_load(p, &k, err, sizeof(err)), -EPERM);
        assert_null(k);
        assert_non_null(strstr(err, "group or others"));
        assert_non_null(strstr(err, "chmod 600"));
        unlink(p);
    }
    const mode_t private_modes[] = {0600, 0400};
    for (size_t i = 0; i < 2; i++) {
        const char *p = key_file(dir, "key", secret, strlen(secret), private_modes[i]);
        assert_int_equal(auth_key_load(p, &k, err, sizeof(err)), 0);
        assert_non_null(k);
        auth_key_free(k);
        k = NULL;
        unlink(p);
    }
    /* A directory and a missing file are refused with their own reasons. */
    assert_int_equal(auth_key_load(dir, &k, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "not a regular file"));
    /* A FIFO is refused at once, not waited on. */
    char fifo[600];
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(auth_key_load(fifo, &k, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "not a regular file"));
    unlink(fifo);
    char missing[600];
    snprintf(missing, sizeof(missing), "%s/none", dir);
    assert_int_equal(auth_key_load(missing, &k, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, missing));
    rmdir(dir);
}

static void test_key_file_length(void **state)
{
    (void)state;
    char dir[] = "/tmp/netab-auth-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char err[NB_ERRLEN];
    struct auth_key *k = NULL;
    /* 15 bytes, also with a line ending that does not count, are too short; 16 are enough. */
    const char *p = key_file(dir, "k", "0123456789abcde\r\n", 17, 0600);
    assert_int_equal(auth_key_load(p, &k, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "15 bytes"));
    assert_non_null(strstr(err, "at least 16"));
    p = key_file(dir, "k", "", 0, 0600);
    assert_int_equal(auth_key_load(p, &k, err, sizeof(err)), -EINVAL);
    p = key_file(dir, "k", "0123456789abcdef", 16, 0600);
    assert_int_equal(auth_key_load(p, &k, err, sizeof(err)), 0);
    auth_key_free(k);
    /* A file far larger than a key is not a key file. */
    char *big = malloc(AUTH_KEY_MAX + 100);
    assert_non_null(big);
    memset(big, 'x', AUTH_KEY_MAX + 100);
    p = key_file(dir, "k", big, AUTH_KEY_MAX + 100, 0600);
    assert_int_equal(auth_key_load(p, &k, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "at most"));
    free(big);
    unlink(p);
    rmdir(dir);
}

/* "echo SECRET > FILE" on one host and "printf SECRET > FILE" on the other agree. */
static void test_key_file_line_endings(void **state)
{
    (void)state;
    char dir[] = "/tmp/netab-auth-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char err[NB_ERRLEN], p1[600];
    struct auth_key *a = NULL, *b = NULL, *c = NULL;
    snprintf(p1, sizeof(p1), "%s", key_file(dir, "a", "shared-secret-0123\n", 19, 0600));
    const char *p2 = key_file(dir, "b", "shared-secret-0123", 18, 0600);
    assert_int_equal(auth_key_load(p1, &a, err, sizeof(err)), 0);
    assert_int_equal(auth_key_load(p2, &b, err, sizeof(err)), 0);
    c = key_of("shared-secret-0124");
    struct exchange x;
    exchange(&x, a, b);
    assert_int_equal(x.proof_rc, 0);
    assert_true(x.server.authenticated);
    exchange_free(&x);
    /* One character apart is another key. */
    exchange(&x, a, c);
    assert_int_equal(x.check_rc, -EACCES);
    exchange_free(&x);
    auth_key_free(a);
    auth_key_free(b);
    auth_key_free(c);
    unlink(p1);
    unlink(p2);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_right_key),
        cmocka_unit_test(test_wrong_key_client_refuses),
        cmocka_unit_test(test_wrong_key_server_refuses),
        cmocka_unit_test(test_client_without_key),
        cmocka_unit_test(test_server_without_key),
        cmocka_unit_test(test_no_key_either_end),
        cmocka_unit_test(test_replayed_client_proof),
        cmocka_unit_test(test_tampered_messages),
        cmocka_unit_test(test_malformed_messages),
        cmocka_unit_test(test_key_file_permissions),
        cmocka_unit_test(test_key_file_length),
        cmocka_unit_test(test_key_file_line_endings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
