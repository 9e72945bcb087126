/*
 * The server's front door: one event loop (epoll) accepts every connection
 * and holds it, without a thread, until its first message is whole. A data
 * connection is then handed to its waiting test at once; a control
 * connection gets a session thread. Connections that have not proven
 * themselves are bounded per source host and in all; when a bound is hit
 * the oldest such connection is shed with a message that says why, so a
 * flood of idle connections cannot lock a real client out.
 */
#include "proto/server.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto/datahdr.h"
#include "proto/frame.h"
#include "proto/iperf3_door.h"
#include "proto/msg.h"
#include "proto/server_internal.h"
#include "util/clock.h"
#include "util/io.h"
#include "util/sock.h"

/* Connection threads alive at once (handshakes after their first message, and tests). */
#define SERVER_MAX_CONN_THREADS 1024
/* How long a stop waits for session threads before server_run returns anyway. */
#define SERVER_STOP_GRACE_NS 1500000000ull
/*
 * How long the listeners rest when the process is out of file descriptors:
 * no event says one was freed, so this one wait is a back-off, a deadline
 * of the front door, which serves its other connections meanwhile.
 */
#define SERVER_ACCEPT_BACKOFF_NS 100000000ull

void server_config_defaults(struct server_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->port = SERVER_DEFAULT_PORT;
    cfg->iperf3_port = IPERF3_DEFAULT_PORT;
    cfg->family = AF_UNSPEC;
    cfg->max_clients = 4;
    cfg->max_duration = 3600;
    cfg->max_streams = 128;
    cfg->max_flows = 10000;
    cfg->idle_timeout_ms = 10000;
    cfg->liveness_timeout_ms = 5000;
    cfg->max_conn_per_addr = 8;
    cfg->max_pending = 256;
    cfg->log_burst = 10;
    cfg->max_test_memory = 256ull << 20;
    cfg->max_memory = 1024ull << 20;
    cfg->log = stderr;
}

/* Has the front door watch fd for input (its data: the fd). Returns 0 or -1 (errno set). */
static int watch(struct server *s, int fd)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    return epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * The front door's epoll, watching the listeners, the stop and its wake.
 * Returns 0, or -1 with errno set (the fds made so far are s's to close).
 */
static int open_loop(struct server *s)
{
    /* The loop accepts in bursts until the queue is empty. */
    int fl = fcntl(s->listen_fd, F_GETFL);
    if (fl >= 0)
        fcntl(s->listen_fd, F_SETFL, fl | O_NONBLOCK);
    if (s->listen_fd2 >= 0 && (fl = fcntl(s->listen_fd2, F_GETFL)) >= 0)
        fcntl(s->listen_fd2, F_SETFL, fl | O_NONBLOCK);
    s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    s->quit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->door_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->epoll_fd < 0 || s->quit_fd < 0 || s->door_fd < 0)
        return -1;
    if (watch(s, s->listen_fd) || (s->listen_fd2 >= 0 && watch(s, s->listen_fd2)) ||
        watch(s, s->quit_fd) || watch(s, s->door_fd))
        return -1;
    return 0;
}

int server_open(struct server **out, const struct server_config *cfg, char *err, size_t errlen)
{
    struct server *s = calloc(1, sizeof(*s));
    if (!s)
        return err_set(err, errlen, ENOMEM, "out of memory");
    s->cfg = *cfg;
    /* Room for every unproven connection, the shed ones not yet gone and every test. */
    if (conntab_init(&s->conns, 2 * cfg->max_pending + cfg->max_clients + 16)) {
        free(s);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    int fd = sock_listen(cfg->bind_addr, cfg->port, cfg->family, &s->port, err, errlen);
    if (fd < 0) {
        conntab_destroy(&s->conns);
        free(s);
        return fd;
    }
    s->listen_fd = fd;
    s->listen_fd2 = cfg->iperf3_port_on ? sock_listen(cfg->bind_addr, cfg->iperf3_port, cfg->family,
                                                      &s->port2, err, errlen)
                                        : -1;
    if (cfg->iperf3_port_on && s->listen_fd2 < 0) {
        int rc = s->listen_fd2;
        close(fd);
        conntab_destroy(&s->conns);
        free(s);
        return rc;
    }
    if (open_loop(s)) {
        int e = errno;
        if (s->epoll_fd >= 0)
            close(s->epoll_fd);
        if (s->quit_fd >= 0)
            close(s->quit_fd);
        if (s->door_fd >= 0)
            close(s->door_fd);
        if (s->listen_fd2 >= 0)
            close(s->listen_fd2);
        close(fd);
        conntab_destroy(&s->conns);
        free(s);
        return err_set(err, errlen, e, "cannot set up the event loop: %s", strerror(e));
    }
    atomic_init(&s->quit, false);
    atomic_init(&s->door_until, 0);
    atomic_init(&s->active_tests, 0);
    atomic_init(&s->threads, 0);
    atomic_init(&s->tests_finished, 0);
    atomic_init(&s->last_status, 0);
    atomic_init(&s->memory, 0);
    registry_init(&s->registry);
    pthread_mutex_init(&s->log_lock, NULL);
    pthread_mutex_init(&s->threads_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* server_wait_threads()' deadline */
    pthread_cond_init(&s->threads_done, &ca);
    pthread_condattr_destroy(&ca);
    loglimit_init(&s->loglimit, cfg->log_burst);
    *out = s;
    return 0;
}

uint16_t server_port(const struct server *s)
{
    return s->port;
}

uint16_t server_iperf3_port(const struct server *s)
{
    return s->listen_fd2 >= 0 ? s->port2 : 0;
}

void server_listening_text(const struct server *s, const struct server_config *cfg, char *buf,
                           size_t len)
{
    char iperf3[40] = "";
    if (server_iperf3_port(s))
        snprintf(iperf3, sizeof(iperf3), " and iperf3 port %u", server_iperf3_port(s));
    snprintf(buf, len, "netab server %s listening on port %u%s%s", NETAB_VERSION, server_port(s),
             iperf3, cfg->auth_key ? " (clients must prove the --auth-key)" : "");
}

/* Writes the summaries of the rate limits whose window ended (all of them when all). */
static void log_summaries(struct server *s, bool all)
{
    char summary[1024];
    while (loglimit_due(&s->loglimit, clock_now_ns(), all, summary, sizeof(summary)))
        server_log(s, "%s", summary);
}

void server_conn_close(struct server *s, int fd)
{
    conntab_remove(&s->conns, fd);
    /*
     * Unread input would make close() send a reset, which can destroy the
     * error message just sent before the peer reads it: take what is there.
     */
    char sink[4096];
    for (int i = 0; i < 16 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
        ;
    close(fd);
}

/*
 * Best effort: an error frame to a connection about to be closed (never
 * blocks). A connection that began a data header gets nothing: data
 * connections carry no control frames. Returns whether the frame was sent
 * whole.
 */
static bool say_error(int fd, const char *text)
{
    uint8_t first[4];
    if (recv(fd, first, sizeof(first), MSG_PEEK | MSG_DONTWAIT) == (ssize_t)sizeof(first) &&
        datahdr_is_data(first))
        return false;
    json_t *m = msg_error("%s", text);
    uint8_t *buf = NULL;
    size_t len = 0;
    bool sent = false;
    if (m && frame_encode(m, &buf, &len) == 0)
        sent = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len;
    free(buf);
    json_decref(m);
    return sent;
}

/*
 * fd's peer for the log: its address from the table (it may have reset, so
 * getpeername() could fail) and its name. Returns the address, or NULL.
 */
static const struct sockaddr_storage *peer_of(struct server *s, int fd,
                                              struct sockaddr_storage *addr, char *name, size_t len)
{
    if (conntab_addr(&s->conns, fd, addr)) {
        snprintf(name, len, "?");
        return NULL;
    }
    sock_addr_name((const struct sockaddr *)addr, name, len);
    return addr;
}

/* Closes a connection the event loop owns. */
static void loop_close(struct server *s, int fd)
{
    epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
    server_conn_close(s, fd);
}

/*
 * Sheds one connection chosen by conntab (kind: its label in the log's
 * summaries): a loop-owned one is told why, logged and closed here; a
 * thread-owned one was woken by conntab_shed_oldest(), and its thread tells,
 * logs and closes it.
 */
static void shed(struct server *s, const struct conn_slot *c, const char *kind)
{
    if (c->in_thread)
        return;
    bool told = say_error(c->fd, c->why);
    char peer[80];
    sock_addr_name((const struct sockaddr *)&c->addr, peer, sizeof(peer));
    server_log_peer(s, &c->addr, kind, "peer=%s closed: %s%s", peer, c->why,
                    told ? "" : " (the peer could not be told)");
    loop_close(s, c->fd);
}

/* Reads the data header (known whole) and hands the connection to its test. */
static void serve_data(struct server *s, int fd)
{
    uint8_t buf[DATAHDR_LEN];
    char peer[80];
    struct sockaddr_storage addr;
    socklen_t alen = sizeof(addr);
    if (getpeername(fd, (struct sockaddr *)&addr, &alen))
        addr.ss_family = AF_UNSPEC;
    sock_addr_name((const struct sockaddr *)&addr, peer, sizeof(peer));
    struct datahdr h;
    ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n != (ssize_t)sizeof(buf) || datahdr_decode(buf, &h)) {
        server_log_peer(s, &addr, "rejected data connection",
                        "peer=%s rejected data connection: incomplete or malformed header", peer);
        loop_close(s, fd);
        return;
    }
    epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
    conntab_remove(&s->conns, fd);
    int rc = registry_attach(&s->registry, &h, fd);
    if (rc) {
        server_log_peer(s, &addr, "rejected data connection",
                        "peer=%s rejected data connection: %s", peer,
                        rc == -ENOENT   ? "unknown cookie"
                        : rc == -EEXIST ? "stream already connected"
                                        : "bad stream index or direction");
        close(fd);
    }
}

struct conn {
    struct server *server;
    int fd;
};

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    struct server *s = c->server;
    int fd = c->fd;
    free(c);
    uint8_t prefix[4];
    /* The event loop saw the whole first message: this read does not wait. */
    int rc = io_read_full(fd, prefix, sizeof(prefix), clock_now_ns() + 1000000000ull, NULL);
    if (rc)
        server_conn_close(s, fd);
    else
        server_session_run(s, fd, prefix);
    server_thread_done(s);
    return NULL;
}

/* Gives a control connection whose first message is whole its own session thread. */
static void spawn_session(struct server *s, int fd)
{
    epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
    if (atomic_load(&s->threads) >= SERVER_MAX_CONN_THREADS) {
        bool told = say_error(fd, "server is busy: too many connections at once; try again later");
        struct sockaddr_storage a;
        char peer[80];
        server_log_peer(s, peer_of(s, fd, &a, peer, sizeof(peer)), "no thread for it",
                        "peer=%s closed: no thread for a new connection: %d running%s", peer,
                        SERVER_MAX_CONN_THREADS, told ? "" : " (the peer could not be told)");
        server_conn_close(s, fd);
        return;
    }
    struct conn *arg = malloc(sizeof(*arg));
    if (!arg) {
        server_conn_close(s, fd);
        return;
    }
    arg->server = s;
    arg->fd = fd;
    conntab_to_thread(&s->conns, fd);
    if (server_spawn(s, conn_main, arg)) {
        server_log(s, "cannot start a thread for a new connection");
        server_conn_close(s, fd);
        free(arg);
    }
}

/*
 * Looks at what a loop-owned connection has sent so far, without consuming
 * it, and moves it on once its first message is whole: a data header to its
 * test, a control frame (or a length that can only earn an error reply) to
 * a session thread. A peer that closed first is dropped.
 */
static void progress(struct server *s, int fd)
{
    /* An event may name a connection shed or handed on earlier in the same batch. */
    if (!conntab_loop_owned(&s->conns, fd))
        return;
    uint8_t first[4];
    ssize_t n = recv(fd, first, sizeof(first), MSG_PEEK | MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        struct sockaddr_storage a;
        char peer[80];
        server_log_peer(s, peer_of(s, fd, &a, peer, sizeof(peer)),
                        "disconnected before its first message",
                        "peer=%s closed: disconnected before its first message", peer);
        loop_close(s, fd);
        return;
    }
    if (n < (ssize_t)sizeof(first))
        return;
    int avail = 0;
    if (ioctl(fd, FIONREAD, &avail))
        avail = 0;
    if (datahdr_is_data(first)) {
        if (avail >= DATAHDR_LEN)
            serve_data(s, fd);
        return;
    }
    /* iperf3's 37-byte cookie: its control or data connection (proto/iperf3_door.h). */
    if (iperf3_cookie_prefix(first, sizeof(first))) {
        if (avail >= IPERF3_COOKIE_LEN)
            iperf3_door_take(s, fd);
        return;
    }
    uint32_t len =
        (uint32_t)first[0] << 24 | (uint32_t)first[1] << 16 | (uint32_t)first[2] << 8 | first[3];
    char ignored[NB_ERRLEN];
    if (frame_check_length(len, ignored, sizeof(ignored)) ||
        (uint64_t)avail >= FRAME_HEADER + (uint64_t)len)
        spawn_session(s, fd);
}

/* Makes room for one more connection from addr: sheds the oldest unproven ones over a limit. */
static void make_room(struct server *s, const struct sockaddr_storage *addr)
{
    struct conn_slot victim;
    /*
     * First move on those of addr's connections whose first message has
     * arrived meanwhile (a client opening many data connections sends each
     * header before the next connect): only the ones still silent are shed.
     */
    if (conntab_count(&s->conns, addr) >= s->cfg.max_conn_per_addr) {
        int fds[64];
        int n = conntab_loop_fds(&s->conns, addr, fds, 64);
        for (int i = 0; i < n; i++)
            progress(s, fds[i]);
    }
    while (conntab_count(&s->conns, addr) >= s->cfg.max_conn_per_addr &&
           conntab_shed_oldest(&s->conns, addr, SERVER_SHED_PER_ADDR, &victim) == 0)
        shed(s, &victim, "shed (--max-conn-per-addr)");
    while (conntab_count(&s->conns, NULL) >= s->cfg.max_pending &&
           conntab_shed_oldest(&s->conns, NULL, SERVER_SHED_PENDING, &victim) == 0)
        shed(s, &victim, "shed (--max-pending)");
}

/*
 * Out of file descriptors, the pending connection stays queued and its
 * listener readable: the listeners rest for SERVER_ACCEPT_BACKOFF_NS rather
 * than spin, while the loop goes on serving (and freeing) the others.
 */
static void pause_accepts(struct server *s)
{
    epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, s->listen_fd, NULL);
    if (s->listen_fd2 >= 0)
        epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, s->listen_fd2, NULL);
    s->accept_resume_ns = clock_now_ns() + SERVER_ACCEPT_BACKOFF_NS;
}

/* Watches the listeners again once their rest is over. */
static void resume_accepts(struct server *s)
{
    if (!s->accept_resume_ns || clock_now_ns() < s->accept_resume_ns)
        return;
    s->accept_resume_ns = 0;
    if (watch(s, s->listen_fd) || (s->listen_fd2 >= 0 && watch(s, s->listen_fd2)))
        server_log(s, "cannot watch the listening socket again: %s", strerror(errno));
}

/* Accepts one connection on listener lfd. Returns false when none was waiting. */
static bool accept_one(struct server *s, int lfd)
{
    struct sockaddr_storage addr;
    socklen_t alen = sizeof(addr);
    int fd = accept4(lfd, (struct sockaddr *)&addr, &alen, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
            server_log_peer(s, NULL, "out of file descriptors", "out of file descriptors: %s",
                            strerror(errno));
            pause_accepts(s);
        }
        return false;
    }
    /* Sessions use blocking calls with deadlines; only the loop peeks without blocking. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    make_room(s, &addr);
    uint64_t now = clock_now_ns();
    /*
     * Edge-triggered: the loop only peeks, so a connection holding part of
     * its first message would stay readable and spin a level-triggered loop;
     * each new segment is an edge, and that is all the loop needs.
     */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.fd = fd};
    if (conntab_add(&s->conns, fd, &addr, now, now + (uint64_t)s->cfg.idle_timeout_ms * 1000000)) {
        bool told = say_error(fd, "server is busy: too many connections at once; try again later");
        char peer[80];
        sock_addr_name((const struct sockaddr *)&addr, peer, sizeof(peer));
        server_log_peer(s, &addr, "connection table full",
                        "peer=%s closed: the connection table is full%s", peer,
                        told ? "" : " (the peer could not be told)");
        close(fd);
        return true;
    }
    if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
        server_conn_close(s, fd);
        return true;
    }
    progress(s, fd);
    return true;
}

/* Drops loop-owned connections whose first message did not arrive in one idle timeout. */
static void expire(struct server *s)
{
    int fds[64];
    int n = conntab_expired(&s->conns, clock_now_ns(), fds, 64);
    for (int i = 0; i < n; i++) {
        struct sockaddr_storage a;
        char peer[80];
        bool told =
            say_error(fds[i], "no complete first message within the idle timeout (--idle-timeout)");
        server_log_peer(s, peer_of(s, fds[i], &a, peer, sizeof(peer)),
                        "silent before its first message",
                        "peer=%s closed: silent before its first message%s", peer,
                        told ? "" : " (the peer could not be told)");
        loop_close(s, fds[i]);
    }
}

/* Ends the loop: closes what it owns, wakes every session thread, waits a bounded time. */
static void drain(struct server *s)
{
    int fds[64];
    int n;
    while ((n = conntab_expired(&s->conns, UINT64_MAX, fds, 64)) > 0)
        for (int i = 0; i < n; i++)
            loop_close(s, fds[i]);
    atomic_store(&s->quit, true);
    /* Woken by each thread's end (server_thread_done()), not on a period. */
    (void)server_wait_threads(s, clock_now_ns() + SERVER_STOP_GRACE_NS);
}

/* The front door's nearest deadline: an expiry, a log window's end, the accept back-off's end. */
static uint64_t door_deadline(struct server *s)
{
    uint64_t until = conntab_next_deadline(&s->conns);
    uint64_t log = loglimit_next_due(&s->loglimit);
    if (log < until)
        until = log;
    if (s->accept_resume_ns && s->accept_resume_ns < until)
        until = s->accept_resume_ns;
    return until;
}

/*
 * The front door's wait: until an event or its nearest deadline, published
 * in door_until first so that a thread opening an earlier log window wakes
 * it (server_log_peer()); the second look sees any window opened before.
 */
static int door_wait(struct server *s, struct epoll_event *evs, int max)
{
    uint64_t until = door_deadline(s);
    atomic_store(&s->door_until, until);
    uint64_t again = door_deadline(s);
    if (again < until)
        atomic_store(&s->door_until, until = again);
    int ms = until == UINT64_MAX ? -1 : clock_ms_until(until);
    int n = epoll_wait(s->epoll_fd, evs, max, ms);
    atomic_store(&s->door_until, 0); /* awake: it looks at every deadline again before waiting */
    return n;
}

int server_run(struct server *s)
{
    struct epoll_event evs[64];
    while (!atomic_load(&s->quit)) {
        if (s->cfg.one_off && atomic_load(&s->tests_finished) > 0)
            break;
        int n = door_wait(s, evs, 64);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            uint64_t woken;
            if (fd == s->door_fd) {
                (void)!read(fd, &woken, sizeof(woken));
            } else if (fd == s->quit_fd) {
                continue; /* server_stop() set quit before it wrote */
            } else if (fd == s->listen_fd || fd == s->listen_fd2) {
                /* A burst, not forever; none while the listeners rest (pause_accepts()). */
                for (int k = 0; k < 64 && !s->accept_resume_ns && accept_one(s, fd); k++)
                    ;
            } else {
                progress(s, evs[i].data.fd);
            }
        }
        expire(s);
        log_summaries(s, false);
        resume_accepts(s);
    }
    drain(s);
    log_summaries(s, true);
    return s->cfg.one_off ? atomic_load(&s->last_status) : 0;
}

void server_free(struct server *s)
{
    if (!s)
        return;
    close(s->listen_fd);
    if (s->listen_fd2 >= 0)
        close(s->listen_fd2);
    close(s->epoll_fd);
    /* A session thread that outlived the stop grace still uses s: leave it to the exit. */
    if (server_wait_threads(s, 0))
        return;
    close(s->quit_fd);
    close(s->door_fd);
    pthread_cond_destroy(&s->threads_done);
    pthread_mutex_destroy(&s->threads_lock);
    registry_destroy(&s->registry);
    conntab_destroy(&s->conns);
    loglimit_destroy(&s->loglimit);
    pthread_mutex_destroy(&s->log_lock);
    free(s);
}
