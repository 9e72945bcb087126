/*
 * Admitting a test on the server, or refusing it. A test is admitted in
 * one step once its client sent a valid "start": a --max-clients slot, its
 * stream memory from --max-memory, then conntab_prove(), after which its
 * connection is never shed. Refused sessions take nothing, so "busy" names
 * the tests really running. A refused or shed session is told why before
 * its connection closes, and logged within the rate limits.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/flows.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/server_internal.h"
#include "util/clock.h"
#include "util/sock.h"

/*
 * Takes one of --max-clients' test slots, only while fewer than the maximum
 * run. Returns 0, or -EBUSY with the number running in *running.
 */
static int take_slot(struct server *s, int *running)
{
    int n = atomic_load(&s->active_tests);
    do {
        *running = n;
        if (n >= s->cfg.max_clients)
            return -EBUSY;
    } while (!atomic_compare_exchange_weak(&s->active_tests, &n, n + 1));
    return 0;
}

/* Takes need bytes of --max-memory, or refuses with a sentence (the budget is left as it was). */
static int reserve_memory(struct server *s, uint64_t need, char *err, size_t errlen)
{
    uint64_t held = atomic_fetch_add(&s->memory, need);
    if (held + need <= s->cfg.max_memory)
        return 0;
    atomic_fetch_sub(&s->memory, need);
    return err_set(err, errlen, EBUSY,
                   "server is busy: running tests hold %llu MiB of its %llu MiB of memory "
                   "(--max-memory) and this one needs %llu MiB; try again later",
                   (unsigned long long)(held >> 20), (unsigned long long)(s->cfg.max_memory >> 20),
                   (unsigned long long)((need + (1 << 20) - 1) >> 20));
}

int server_admit(struct server *s, int fd, uint64_t need, const char **kind, char *err,
                 size_t errlen)
{
    int running;
    if (take_slot(s, &running)) {
        *kind = "busy";
        return err_set(err, errlen, EBUSY,
                       "server is busy: %d tests running, its maximum (--max-clients %d); try "
                       "again later",
                       running, s->cfg.max_clients);
    }
    int rc = reserve_memory(s, need, err, errlen);
    if (!rc && (rc = conntab_prove(&s->conns, fd)))
        atomic_fetch_sub(&s->memory, need); /* shed meanwhile: server_refuse() says why */
    if (rc) {
        *kind = "busy";
        atomic_fetch_sub(&s->active_tests, 1);
    }
    return rc;
}

void server_release(struct server *s, uint64_t need)
{
    atomic_fetch_sub(&s->memory, need);
    atomic_fetch_sub(&s->active_tests, 1);
}

/* Sends an error message within 2 s. Returns whether it was sent. */
static bool tell(int fd, const char *text)
{
    json_t *m = msg_error("%s", text);
    char ignored[NB_ERRLEN];
    bool sent = m && !frame_send(fd, m, clock_now_ns() + 2000000000ull, ignored, sizeof(ignored));
    json_decref(m);
    return sent;
}

void server_refuse(struct server *s, int fd, const struct sockaddr_storage *addr, int rc,
                   const char *kind, char *err, size_t errlen)
{
    const char *shed = conntab_shed_reason(&s->conns, fd);
    if (shed) {
        snprintf(err, errlen, "%s", shed);
        kind = !strcmp(shed, SERVER_SHED_PER_ADDR) ? "shed (--max-conn-per-addr)"
                                                   : "shed (--max-pending)";
    } else if (!kind || (rc == -ECONNRESET && strcmp(kind, "authentication failed"))) {
        kind =
            rc == -ECONNRESET || rc == -EPIPE ? "closed before its test started" : "bad greeting";
    }
    bool told = tell(fd, err);
    char peer[80];
    sock_addr_name((const struct sockaddr *)addr, peer, sizeof(peer));
    server_log_peer(s, addr, kind, "peer=%s %s: %s%s", peer, shed ? "closed" : "refused", err,
                    told ? "" : " (the peer could not be told)");
    server_conn_close(s, fd);
}

int session_check_flows(const struct test_params *p, const struct server_config *cfg, char *err,
                        size_t errlen)
{
    if (!p->flows)
        return 0;
    int n = params_connections(p);
    if (n > cfg->max_flows)
        return err_set(err, errlen, EPERM,
                       "test asks for %d flows, this server allows %d (--max-flows)", n,
                       cfg->max_flows);
    /* A tcp_crr flow holds the shared listener's copy and its connection. */
    return flows_reserve_fds(n, p->kind == TEST_TCP_CRR ? 2 : 1, err, errlen);
}
