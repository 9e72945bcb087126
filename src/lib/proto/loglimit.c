#include "proto/loglimit.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "engine/udp_wire.h"
#include "util/sock.h"

void loglimit_init(struct loglimit *l, int burst)
{
    memset(l, 0, sizeof(*l));
    l->burst = burst;
    l->global_burst = burst > INT_MAX / 4 ? INT_MAX : 4 * burst;
    pthread_mutex_init(&l->lock, NULL);
    l->others.any_host = true;
}

void loglimit_destroy(struct loglimit *l)
{
    pthread_mutex_destroy(&l->lock);
}

/* n with thousands separators: 2998 -> "2,998". */
static void grouped(uint64_t n, char *buf, size_t cap)
{
    char digits[32];
    int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

/* The host part of addr: "127.0.0.1", "fd00::1"; the port and brackets go. */
static void host_name(const struct loglimit_host *h, char *buf, size_t cap)
{
    if (h->any_host) {
        snprintf(buf, cap, "other addresses");
        return;
    }
    char full[96];
    sock_addr_name((const struct sockaddr *)&h->addr, full, sizeof(full));
    char *colon = strrchr(full, ':');
    if (colon)
        *colon = '\0';
    size_t n = strlen(full);
    if (full[0] == '[' && n >= 2 && full[n - 1] == ']') {
        full[n - 1] = '\0';
        snprintf(buf, cap, "%s", full + 1);
    } else {
        snprintf(buf, cap, "%s", full);
    }
}

/* Writes h's summary into buf ("" when nothing was folded) and starts its next window at now. */
static void close_window(struct loglimit_host *h, uint64_t now_ns, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (h->quiet) {
        char host[96], n[32];
        host_name(h, host, sizeof(host));
        grouped(h->quiet, n, sizeof(n));
        size_t o = (size_t)snprintf(buf, cap,
                                    "refused or closed %s more connections from %s in "
                                    "the last %.0f s:",
                                    n, host, (double)(now_ns - h->start_ns) / 1e9);
        for (int k = 0; k < LOGLIMIT_KINDS && h->kind[k] && o < cap; k++) {
            grouped(h->count[k], n, sizeof(n));
            o += (size_t)snprintf(buf + o, cap - o, "%s %s \u00d7%s", k ? "," : "", h->kind[k], n);
        }
    }
    h->start_ns = now_ns;
    h->lines = 0;
    h->quiet = 0;
    memset(h->kind, 0, sizeof(h->kind));
    memset(h->count, 0, sizeof(h->count));
}

/* addr's entry: its own, a new one, or the shared one when the table is full. */
static struct loglimit_host *find_host(struct loglimit *l, const struct sockaddr_storage *addr,
                                       uint64_t now_ns)
{
    if (!addr)
        return &l->others;
    struct loglimit_host *free_slot = NULL;
    for (int i = 0; i < LOGLIMIT_HOSTS; i++) {
        struct loglimit_host *h = &l->hosts[i];
        if (h->used && udp_wire_same_host(&h->addr, addr))
            return h;
        if (!h->used && !free_slot)
            free_slot = h;
    }
    if (!free_slot)
        return &l->others;
    *free_slot = (struct loglimit_host){.used = true, .addr = *addr, .start_ns = now_ns};
    return free_slot;
}

/* Counts one folded event of kind in h. */
static void fold(struct loglimit_host *h, const char *kind)
{
    int k = 0;
    while (k < LOGLIMIT_KINDS - 1 && h->kind[k] && strcmp(h->kind[k], kind))
        k++;
    if (h->kind[k] && strcmp(h->kind[k], kind))
        kind = "other reasons"; /* the last slot takes every kind past the table */
    h->kind[k] = kind;
    h->count[k]++;
    h->quiet++;
}

bool loglimit_event(struct loglimit *l, const struct sockaddr_storage *addr, const char *kind,
                    uint64_t now_ns, char *summary, size_t cap)
{
    pthread_mutex_lock(&l->lock);
    struct loglimit_host *h = find_host(l, addr, now_ns);
    summary[0] = '\0';
    if (!h->used) { /* the shared entry's first event */
        h->used = true;
        h->start_ns = now_ns;
    }
    if (now_ns - h->start_ns >= LOGLIMIT_WINDOW_NS)
        close_window(h, now_ns, summary, cap);
    if (now_ns - l->global_start_ns >= LOGLIMIT_WINDOW_NS) {
        l->global_start_ns = now_ns;
        l->global_lines = 0;
    }
    bool full = h->lines < l->burst && l->global_lines < l->global_burst;
    if (full) {
        h->lines++;
        l->global_lines++;
    } else {
        fold(h, kind);
    }
    pthread_mutex_unlock(&l->lock);
    return full;
}

uint64_t loglimit_next_due(struct loglimit *l)
{
    uint64_t next = UINT64_MAX;
    pthread_mutex_lock(&l->lock);
    for (int i = 0; i <= LOGLIMIT_HOSTS; i++) {
        const struct loglimit_host *h = i < LOGLIMIT_HOSTS ? &l->hosts[i] : &l->others;
        if (h->used && h->start_ns + LOGLIMIT_WINDOW_NS < next)
            next = h->start_ns + LOGLIMIT_WINDOW_NS;
    }
    pthread_mutex_unlock(&l->lock);
    return next;
}

bool loglimit_due(struct loglimit *l, uint64_t now_ns, bool all, char *summary, size_t cap)
{
    bool found = false;
    pthread_mutex_lock(&l->lock);
    for (int i = 0; i <= LOGLIMIT_HOSTS && !found; i++) {
        struct loglimit_host *h = i < LOGLIMIT_HOSTS ? &l->hosts[i] : &l->others;
        if (!h->used || (!all && now_ns - h->start_ns < LOGLIMIT_WINDOW_NS))
            continue;
        found = h->quiet > 0;
        close_window(h, now_ns, summary, cap);
        /* A host whose window passed gives its entry back; a new event starts a new one. */
        h->used = false;
    }
    pthread_mutex_unlock(&l->lock);
    return found;
}
