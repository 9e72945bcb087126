/*
 * Rate limits for the server's log lines that a remote peer can cause
 * (refusals, sheds, closes, rejected data connections, failed tests), so
 * that anyone who reaches the port cannot fill the disk of an unattended
 * server (docs/server.md, "Log lines").
 *
 * Events are grouped by the peer's host (port ignored) in windows of
 * LOGLIMIT_WINDOW_NS starting at a host's first event. In a window the
 * first `burst` events of a host are logged one line each, and at most
 * 4 x burst of all hosts together; the others are only
 * counted, by a short label of their kind. When the window ends (seen at
 * the host's next event, by loglimit_due() on the server's timer, or at
 * shutdown) one summary line gives the count of each kind, so no event is
 * ever lost from the log, only folded. Hosts beyond LOGLIMIT_HOSTS share
 * one entry, "other addresses". Thread-safe.
 */
#ifndef NETAB_PROTO_LOGLIMIT_H
#define NETAB_PROTO_LOGLIMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#define LOGLIMIT_WINDOW_NS 10000000000ull
#define LOGLIMIT_HOSTS 16
#define LOGLIMIT_KINDS 8 /* distinct labels counted per host; more go into the last */

struct loglimit_host {
    bool used;
    bool any_host; /* the shared entry of hosts beyond the table, or of no address */
    struct sockaddr_storage addr;
    uint64_t start_ns;
    int lines;      /* events logged in full in this window */
    uint64_t quiet; /* events only counted */
    const char *kind[LOGLIMIT_KINDS];
    uint64_t count[LOGLIMIT_KINDS];
};

struct loglimit {
    pthread_mutex_t lock;
    int burst, global_burst;
    uint64_t global_start_ns;
    int global_lines;
    struct loglimit_host hosts[LOGLIMIT_HOSTS];
    struct loglimit_host others;
};

/* Prepares l for `burst` (>= 1) full lines per host and window. */
void loglimit_init(struct loglimit *l, int burst);
void loglimit_destroy(struct loglimit *l);

/*
 * One event of kind `kind` (a label that outlives the server: a string
 * literal) caused by a peer at addr (NULL: unknown) at now_ns. Returns true
 * when it is to be logged in full. When the host's previous window ended
 * with events only counted, its summary line is written into summary
 * (else summary is ""): the caller logs it first.
 */
bool loglimit_event(struct loglimit *l, const struct sockaddr_storage *addr, const char *kind,
                    uint64_t now_ns, char *summary, size_t cap);

/*
 * The summary of one host whose window ended by now_ns (every host when
 * all), into summary; that host starts afresh. Returns false when there is
 * none. Call until it returns false.
 */
bool loglimit_due(struct loglimit *l, uint64_t now_ns, bool all, char *summary, size_t cap);

/*
 * When loglimit_due() next has a window to close: the end of the earliest
 * window still open (UINT64_MAX: none), for the server's timer.
 */
uint64_t loglimit_next_due(struct loglimit *l);

#endif
