/*
 * Optional authentication of the control connection (--auth-key FILE on
 * both ends): a mutual challenge-response over a shared secret, HMAC-SHA-256
 * from libsodium, in the hello/welcome exchange. docs/protocol.md describes
 * the messages, docs/server.md what it protects and what it does not.
 *
 *   client: hello   + auth {method, nonce Nc}
 *   server: welcome + auth {method, nonce Ns, proof HMAC(K, "server" Nc Ns)}
 *   client: auth {proof HMAC(K, "client" Nc Ns)}
 *
 * Both nonces are 32 fresh random bytes, so no proof is valid in another
 * session; the labels make a server's proof useless as a client's. The
 * test's cookie (data connections, UDP registrations) is derived from the
 * same key and nonces, HMAC(K, "cookie" Nc Ns), and never sent in "accept".
 *
 * These functions only build and check messages; the callers do the I/O,
 * so the whole exchange can be tested and fuzzed without sockets. Errors
 * follow libnetab's convention; every refusal is -EACCES with a sentence
 * that starts "authentication failed".
 */
#ifndef NETAB_PROTO_AUTH_H
#define NETAB_PROTO_AUTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/test_cookie.h"
#include "util/err.h"

#define AUTH_METHOD "hmac-sha256"
#define AUTH_NONCE_LEN 32
#define AUTH_PROOF_LEN 32
#define AUTH_KEY_MIN 16   /* bytes of secret; shorter keys are refused */
#define AUTH_KEY_MAX 4096 /* a larger file is not a key file */

/* A shared secret, kept in guarded memory that is wiped when freed. */
struct auth_key;

/*
 * Reads the key file at path: the file's bytes, without trailing line
 * endings, are the secret. Refuses (-EPERM) a file that its group or others
 * may read or write, a file that is not a regular file (-EINVAL), one
 * larger than AUTH_KEY_MAX or with fewer than AUTH_KEY_MIN bytes of secret
 * (-EINVAL), each with a sentence naming the file. On success *out is the
 * caller's (auth_key_free()).
 */
NB_MUST_CHECK int auth_key_load(const char *path, struct auth_key **out, char *err, size_t errlen);

/* A key from len bytes in memory (tests, fuzzing); the same length rules. */
NB_MUST_CHECK int auth_key_from_bytes(const void *bytes, size_t len, struct auth_key **out,
                                      char *err, size_t errlen);

/* Wipes and frees k; NULL is allowed. */
void auth_key_free(struct auth_key *k);

/* One end's state of the exchange; zero-initialise it. */
struct auth_session {
    const struct auth_key *key; /* NULL: this end does not authenticate */
    uint8_t client_nonce[AUTH_NONCE_LEN];
    uint8_t server_nonce[AUTH_NONCE_LEN];
    bool authenticated; /* both nonces known and the peer's proof checked */
};

/*
 * Client, before sending hello: with a key, adds the auth member with a
 * fresh nonce to hello. Without a key (key NULL) does nothing. Returns 0,
 * or -EIO/-ENOMEM.
 */
NB_MUST_CHECK int auth_client_hello(struct auth_session *as, const struct auth_key *key,
                                    json_t *hello, char *err, size_t errlen);

/*
 * Client, on the server's welcome (already checked with msg_check_welcome):
 * with a key, checks the server's proof in constant time and sets *reply to
 * the "auth" message to send (caller owns it); -EACCES when the server sent
 * no proof (it runs without --auth-key) or a wrong one (another key).
 * Without a key sets *reply to NULL and returns 0.
 */
NB_MUST_CHECK int auth_client_check_welcome(struct auth_session *as, const json_t *welcome,
                                            json_t **reply, char *err, size_t errlen);

/*
 * Server, on a hello (already checked with msg_check_hello), before sending
 * welcome: with a key, requires the client's auth member (-EACCES if it is
 * missing or malformed: the client has no key) and adds the server's nonce
 * and proof to welcome. Without a key does nothing: the client's auth
 * member is ignored, and the client refuses the welcome that lacks a proof.
 */
NB_MUST_CHECK int auth_server_welcome(struct auth_session *as, const struct auth_key *key,
                                      const json_t *hello, json_t *welcome, char *err,
                                      size_t errlen);

/*
 * Server, on the message after welcome (only when it has a key): checks
 * that it is an "auth" message whose proof matches, in constant time.
 * Returns 0 (the session is authenticated) or -EACCES.
 */
NB_MUST_CHECK int auth_server_check_proof(struct auth_session *as, const json_t *msg, char *err,
                                          size_t errlen);

/* Whose proof: the server's (in welcome) or the client's (in auth). */
enum auth_role { AUTH_SERVER, AUTH_CLIENT };

/*
 * The proof that role's end computes from as's key and both nonces. The
 * exchange above uses it; tests and harnesses use it to forge proofs under
 * a wrong key or for other nonces.
 */
void auth_session_proof(const struct auth_session *as, enum auth_role role,
                        uint8_t proof[AUTH_PROOF_LEN]);

/* The test cookie of an authenticated session (both ends derive the same). */
void auth_session_cookie(const struct auth_session *as, uint8_t cookie[TEST_COOKIE_LEN]);

#endif
