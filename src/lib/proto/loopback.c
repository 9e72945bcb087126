#include "proto/loopback.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto/server.h"

static void *server_thread(void *arg)
{
    server_run(arg);
    return NULL;
}

int loopback_run(const struct client_config *cfg, const struct test_params *p,
                 struct run_result *res)
{
    struct server_config sc;
    server_config_defaults(&sc);
    sc.bind_addr = cfg->family == AF_INET6 ? "::1" : "127.0.0.1";
    sc.port = 0;
    sc.one_off = true;
    sc.log = NULL;
    sc.max_duration = PARAMS_MAX_DURATION;
    sc.max_streams = 2 * PARAMS_MAX_STREAMS;
    sc.max_flows = PARAMS_MAX_FLOWS;
    sc.idle_timeout_ms = cfg->idle_timeout_ms;
    /* Client and server share this process: neither can vanish while the other runs. */
    sc.liveness_timeout_ms = 3600000;
    sc.max_test_memory = UINT64_MAX;
    sc.max_memory = UINT64_MAX;
    sc.no_counters = cfg->no_counters;
    sc.in_process = true;
    sc.auth_key = cfg->auth_key; /* --auth-key also exercises the exchange on loopback */
    struct server *srv;
    int rc = server_open(&srv, &sc, res->error, sizeof(res->error));
    if (rc)
        return rc;
    pthread_t t;
    if (pthread_create(&t, NULL, server_thread, srv)) {
        server_free(srv);
        return err_set(res->error, sizeof(res->error), EAGAIN, "cannot start the server thread");
    }
    struct client_config c = *cfg;
    c.host = sc.bind_addr;
    c.in_process = true;
    c.port = server_port(srv);
    res->in_process = true;
    rc = client_run(&c, p, res);
    server_stop(srv);
    pthread_join(t, NULL);
    server_free(srv);
    return rc;
}
