#include "proto/server.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/datahdr.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/server_internal.h"
#include "util/clock.h"
#include "util/io.h"
#include "util/sock.h"

void server_config_defaults(struct server_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->port = SERVER_DEFAULT_PORT;
    cfg->family = AF_UNSPEC;
    cfg->max_clients = 4;
    cfg->max_duration = 3600;
    cfg->max_streams = 128;
    cfg->idle_timeout_ms = 10000;
    cfg->max_send_buffers = 256ull * 1024 * 1024;
    cfg->log = stderr;
}

int server_open(struct server **out, const struct server_config *cfg, char *err, size_t errlen)
{
    struct server *s = calloc(1, sizeof(*s));
    if (!s)
        return err_set(err, errlen, ENOMEM, "out of memory");
    s->cfg = *cfg;
    int fd = sock_listen(cfg->bind_addr, cfg->port, cfg->family, &s->port, err, errlen);
    if (fd < 0) {
        free(s);
        return fd;
    }
    s->listen_fd = fd;
    atomic_init(&s->quit, false);
    atomic_init(&s->active_tests, 0);
    atomic_init(&s->threads, 0);
    atomic_init(&s->tests_finished, 0);
    atomic_init(&s->last_status, 0);
    registry_init(&s->registry);
    pthread_mutex_init(&s->log_lock, NULL);
    *out = s;
    return 0;
}

uint16_t server_port(const struct server *s)
{
    return s->port;
}

void server_stop(struct server *s)
{
    atomic_store(&s->quit, true);
}

void server_log(struct server *s, const char *fmt, ...)
{
    if (!s->cfg.log)
        return;
    char stamp[32];
    clock_iso8601(stamp, sizeof(stamp));
    pthread_mutex_lock(&s->log_lock);
    fprintf(s->cfg.log, "%s netab-server: ", stamp);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->cfg.log, fmt, ap);
    va_end(ap);
    fputc('\n', s->cfg.log);
    fflush(s->cfg.log);
    pthread_mutex_unlock(&s->log_lock);
}

/* Connection threads alive at once (handshakes and running tests). */
#define SERVER_MAX_CONN_THREADS 1024

struct conn {
    struct server *server;
    int fd;
};

/* Reads the data header and hands the connection to its test. */
static void serve_data(struct server *s, int fd, const uint8_t prefix[4])
{
    uint8_t buf[DATAHDR_LEN];
    memcpy(buf, prefix, 4);
    char peer[80];
    sock_peer_name(fd, peer, sizeof(peer));
    int rc = io_read_full(fd, buf + 4, sizeof(buf) - 4,
                          clock_now_ns() + (uint64_t)s->cfg.idle_timeout_ms * 1000000, NULL);
    struct datahdr h;
    if (rc || datahdr_decode(buf, &h)) {
        server_log(s, "peer=%s rejected data connection: incomplete or malformed header", peer);
        close(fd);
        return;
    }
    rc = registry_attach(&s->registry, &h, fd);
    if (rc) {
        server_log(s, "peer=%s rejected data connection: %s", peer,
                   rc == -ENOENT   ? "unknown cookie"
                   : rc == -EEXIST ? "stream already connected"
                                   : "bad stream index or direction");
        close(fd);
    }
}

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    struct server *s = c->server;
    int fd = c->fd;
    free(c);
    uint8_t prefix[4];
    size_t got = 0;
    int rc = io_read_full(fd, prefix, sizeof(prefix),
                          clock_now_ns() + (uint64_t)s->cfg.idle_timeout_ms * 1000000, &got);
    if (rc) {
        char peer[80];
        sock_peer_name(fd, peer, sizeof(peer));
        server_log(s, "peer=%s closed: %s before its first message", peer,
                   rc == -ETIMEDOUT ? "silent" : "disconnected");
        close(fd);
    } else if (datahdr_is_data(prefix)) {
        serve_data(s, fd, prefix);
    } else {
        server_session_run(s, fd, prefix);
    }
    atomic_fetch_sub(&s->threads, 1);
    return NULL;
}

static void spawn_conn(struct server *s, int fd)
{
    struct conn *c = malloc(sizeof(*c));
    pthread_t t;
    pthread_attr_t attr;
    if (!c) {
        close(fd);
        return;
    }
    /* Connections not yet past their first message are bounded: a flood is shed, not served. */
    if (atomic_load(&s->threads) >= SERVER_MAX_CONN_THREADS) {
        close(fd);
        free(c);
        return;
    }
    c->server = s;
    c->fd = fd;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add(&s->threads, 1);
    if (pthread_create(&t, &attr, conn_main, c)) {
        atomic_fetch_sub(&s->threads, 1);
        server_log(s, "cannot start a thread for a new connection");
        close(fd);
        free(c);
    }
    pthread_attr_destroy(&attr);
}

int server_run(struct server *s)
{
    while (!atomic_load(&s->quit)) {
        if (s->cfg.one_off && atomic_load(&s->tests_finished) > 0)
            break;
        struct pollfd p = {.fd = s->listen_fd, .events = POLLIN};
        int n = poll(&p, 1, 100);
        if (n <= 0)
            continue;
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) {
                server_log(s, "out of file descriptors: %s", strerror(errno));
                usleep(100000);
            }
            continue;
        }
        spawn_conn(s, fd);
    }
    /* Sessions end by themselves within their limits; wait for them. */
    while (atomic_load(&s->threads) > 0)
        usleep(10000);
    return s->cfg.one_off ? atomic_load(&s->last_status) : 0;
}

void server_free(struct server *s)
{
    if (!s)
        return;
    close(s->listen_fd);
    registry_destroy(&s->registry);
    pthread_mutex_destroy(&s->log_lock);
    free(s);
}
