/*
 * The --auth-key messages as each end reads them (auth.h): a JSON object
 * from the network given to the server as a hello, to a client that sent
 * its hello as the server's welcome, and to a server that sent its welcome
 * as the client's proof. Whatever the bytes, a forged welcome or proof must
 * never authenticate: the nonces are fresh and the key is not in the input.
 */
#include "fuzz.h"

#include <jansson.h>

#include "proto/auth.h"
#include "proto/msg.h"

static struct auth_key *fuzz_key(void)
{
    static struct auth_key *k;
    char err[NB_ERRLEN];
    if (!k && auth_key_from_bytes("fuzzing-key-0123456789", 22, &k, err, sizeof(err)))
        abort();
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t jerr;
    json_t *in = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!in)
        return 0;
    struct auth_key *k = fuzz_key();
    char err[NB_ERRLEN] = "";

    /* As a hello: the server either refuses or adds a complete auth member. */
    struct auth_session srv;
    json_t *w = msg_welcome();
    int rc = auth_server_welcome(&srv, k, in, w, err, sizeof(err));
    FUZZ_CHECK(rc ? err[0] != '\0' : json_is_object(json_object_get(w, "auth")),
               "a hello is refused with a reason or answered with a proof");
    /* As the proof that follows: never accepted, the server's nonce was fresh. */
    if (rc == 0)
        FUZZ_CHECK(auth_server_check_proof(&srv, in, err, sizeof(err)) == -EACCES,
                   "a forged client proof is refused");
    json_decref(w);

    /* As the welcome to a client that sent a fresh nonce: never accepted. */
    struct auth_session cli;
    json_t *h = msg_hello(), *reply = NULL;
    if (auth_client_hello(&cli, k, h, err, sizeof(err)))
        abort();
    FUZZ_CHECK(auth_client_check_welcome(&cli, in, &reply, err, sizeof(err)) == -EACCES,
               "a forged welcome is refused");
    FUZZ_CHECK(reply == NULL && !cli.authenticated, "a refused welcome leaves no reply");
    json_decref(h);
    json_decref(in);
    return 0;
}
