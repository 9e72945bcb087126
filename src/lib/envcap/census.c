/*
 * The competing-process census of a snapshot: which benchmark programs run
 * beside a measurement, leaving out those of the test itself. The rule
 * (docs/environment.md, "Competing processes"):
 *
 *   a process is of this test when it is this process, one of its
 *   ancestors (the campaign's controller: netab compare, a wrapper), a
 *   descendant of this process, of the nearest netab-like ancestor (the
 *   controller's servers and workers) or of the run's server on this host,
 *   or that server.
 *
 * The run's server is found by its listening socket, in whatever network
 * namespace it lives: a netab-like process that owns (an fd in
 * /proc/PID/fd) a TCP socket listening on the run's port (per
 * /proc/PID/net/tcp{,6}, which show that process's namespace), bound to the
 * run's address, or bound to a wildcard address in a namespace where the
 * run's address is local (/proc/PID/net/fib_trie, /proc/PID/net/if_inet6;
 * for a loopback address: the census's own namespace). Everything else named
 * like a benchmark is competition, named with its command line.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "envcap/envcap.h"
#include "envcap/envcap_priv.h"
#include "envcap/fsread.h"
#include "util/redact.h"

/* Programs whose presence during a run means the numbers are shared with someone else. */
const char *const envcap_noise_comms[] = {"netab",     "iperf",    "iperf3", "netperf",
                                          "netserver", "sockperf", NULL};

/* A command line is cut at this many bytes in the snapshot (then "..." is appended). */
#define CMDLINE_MAX 300
/* At most this many processes are looked at; a bigger table is cut (counted as unknown). */
#define PROCS_MAX 65536
/* Listening sockets of the run's port remembered per process (a server has one or two). */
#define INODES_MAX 16

enum mark { NOT_OURS, OURS_TREE, OURS_ANCESTOR };

struct pinfo {
    long pid, ppid;
    char comm[64];
    bool noise;      /* comm is in envcap_noise_comms */
    enum mark mark;  /* OURS_TREE propagates to children, OURS_ANCESTOR does not */
    const char *why; /* why it is of this test; NULL if not */
};

/* The run's target as bytes, for comparison with /proc/net/tcp{,6}. */
struct target {
    int family; /* AF_INET or AF_INET6 */
    unsigned char addr[16];
    bool loopback;
    int port;
    char text[64];
};

static bool is_noise(const char *comm)
{
    for (const char *const *n = envcap_noise_comms; *n; n++)
        if (!strcmp(comm, *n))
            return true;
    return false;
}

/* The parent pid from root/<pid>/stat, or -1. The comm field may contain spaces and ')'. */
static long parent_of(const char *proc, long pid)
{
    char rel[64], buf[1024];
    snprintf(rel, sizeof(rel), "%ld/stat", pid);
    if (fs_read(proc, rel, buf, sizeof(buf)) <= 0)
        return -1;
    char *p = strrchr(buf, ')');
    char state;
    long ppid;
    if (!p || sscanf(p + 1, " %c %ld", &state, &ppid) != 2)
        return -1;
    return ppid;
}

/* Every process of root (pid, parent, comm) into *out; NULL when root cannot be listed. */
static struct pinfo *read_table(const char *proc, size_t *n)
{
    DIR *d = opendir(proc);
    struct dirent *e;
    struct pinfo *t = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d)
        return NULL;
    while ((e = readdir(d)) && *n < PROCS_MAX) {
        char *end, rel[300];
        long pid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end || pid <= 0)
            continue;
        if (*n == cap) {
            struct pinfo *m = realloc(t, (cap = cap ? cap * 2 : 256) * sizeof(*t));
            if (!m)
                break;
            t = m;
        }
        struct pinfo *p = &t[*n];
        memset(p, 0, sizeof(*p));
        snprintf(rel, sizeof(rel), "%ld/comm", pid);
        if (fs_read(proc, rel, p->comm, sizeof(p->comm)) <= 0)
            continue; /* gone meanwhile */
        p->pid = pid;
        p->ppid = parent_of(proc, pid);
        p->noise = is_noise(p->comm);
        (*n)++;
    }
    closedir(d);
    if (!t)
        t = calloc(1, sizeof(*t)); /* an empty table, not "impossible" */
    return t;
}

static int by_pid(const void *a, const void *b)
{
    const struct pinfo *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The entry of pid in t (sorted by pid), or NULL. */
static struct pinfo *find(struct pinfo *t, size_t n, long pid)
{
    struct pinfo key = {.pid = pid};
    return n ? bsearch(&key, t, n, sizeof(*t), by_pid) : NULL;
}

/* Parses the run's address; false when there is none or it is not a numeric address. */
static bool target_parse(const struct env_run_peer *peer, struct target *t)
{
    memset(t, 0, sizeof(*t));
    if (!peer || !peer->addr || peer->port <= 0 || peer->port > 65535)
        return false;
    t->port = peer->port;
    snprintf(t->text, sizeof(t->text), "%s", peer->addr);
    if (inet_pton(AF_INET, peer->addr, t->addr) == 1) {
        t->family = AF_INET;
        t->loopback = t->addr[0] == 127;
        return true;
    }
    if (inet_pton(AF_INET6, peer->addr, t->addr) == 1) {
        static const unsigned char lo6[16] = {[15] = 1};
        t->family = AF_INET6;
        t->loopback = !memcmp(t->addr, lo6, 16);
        return true;
    }
    return false;
}

/* The address of a /proc/net/tcp{,6} line ("0100007F" or 32 hex digits) as raw bytes. */
static bool parse_hexaddr(const char *hex, size_t len, unsigned char *out)
{
    if (len != 8 && len != 32)
        return false;
    for (size_t w = 0; w < len / 8; w++) {
        char word[9];
        memcpy(word, hex + w * 8, 8);
        word[8] = '\0';
        char *end;
        /* The kernel prints each 32-bit word of the address as a host-order integer. */
        uint32_t v = (uint32_t)strtoul(word, &end, 16);
        if (*end)
            return false;
        memcpy(out + w * 4, &v, 4);
    }
    return true;
}

/* Is addr (len bytes) all zero (a wildcard bind)? */
static bool all_zero(const unsigned char *a, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (a[i])
            return false;
    return true;
}

/*
 * Collects the inodes of sockets in pid's namespace that listen on t's port
 * (file: "net/tcp" or "net/tcp6"), with whether the bind was a wildcard.
 */
static void listening(const char *proc, long pid, const char *file, const struct target *t,
                      unsigned long *inodes, bool *wild, size_t *n)
{
    char path[4096], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof(path), "%s/%ld/%s", proc, pid, file);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    bool v6 = !strcmp(file, "net/tcp6");
    while (getline(&line, &cap, f) > 0 && *n < INODES_MAX) {
        char local[64], remote[64];
        unsigned st, uid;
        unsigned long inode;
        unsigned char a[16];
        /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
        if (sscanf(line, " %*s %63s %63s %x %*s %*s %*s %u %*s %lu", local, remote, &st, &uid,
                   &inode) != 5 ||
            st != 0x0A)
            continue;
        char *colon = strchr(local, ':');
        if (!colon || strtol(colon + 1, NULL, 16) != t->port)
            continue;
        size_t alen = (size_t)(colon - local);
        if (!parse_hexaddr(local, alen, a))
            continue;
        bool wildcard = all_zero(a, alen / 2);
        bool same = (!v6 && t->family == AF_INET && !memcmp(a, t->addr, 4)) ||
                    (v6 && t->family == AF_INET6 && !memcmp(a, t->addr, 16));
        /* A v6 wildcard socket also takes IPv4 connections (unless IPV6_V6ONLY). */
        if (same || wildcard) {
            inodes[*n] = inode;
            wild[(*n)++] = !same;
        }
    }
    free(line);
    fclose(f);
}

/* Does pid hold an fd on one of the socket inodes? */
static bool owns_socket(const char *proc, long pid, const unsigned long *inodes, size_t n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%ld/fd", proc, pid);
    DIR *d = opendir(path);
    struct dirent *e;
    bool found = false;
    if (!d)
        return false; /* another user's process, when not root: not proven ours */
    while (!found && (e = readdir(d))) {
        char target[128];
        ssize_t len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
        unsigned long ino;
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (sscanf(target, "socket:[%lu]", &ino) != 1)
            continue;
        for (size_t i = 0; i < n && !found; i++)
            found = inodes[i] == ino;
    }
    closedir(d);
    return found;
}

/* Is pid in the same network namespace as this process? */
static bool same_netns(const char *proc, long pid)
{
    char a[4096], b[4096], la[128], lb[128];
    snprintf(a, sizeof(a), "%s/%ld/ns/net", proc, pid);
    snprintf(b, sizeof(b), "%s/self/ns/net", proc);
    ssize_t na = readlink(a, la, sizeof(la) - 1), nb = readlink(b, lb, sizeof(lb) - 1);
    return na > 0 && na == nb && !memcmp(la, lb, (size_t)na);
}

/* Is t's address one of the local addresses of pid's network namespace? */
static bool addr_local(const char *proc, long pid, const struct target *t)
{
    if (t->loopback)
        return same_netns(proc, pid); /* a loopback address reaches only its own namespace */
    char path[4096], *line = NULL, want[64] = "", last[64] = "";
    size_t cap = 0;
    bool v6 = t->family == AF_INET6, found = false;
    snprintf(path, sizeof(path), "%s/%ld/net/%s", proc, pid, v6 ? "if_inet6" : "fib_trie");
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    if (v6)
        for (int i = 0; i < 16; i++)
            snprintf(want + 2 * i, 3, "%02x", t->addr[i]);
    else
        snprintf(want, sizeof(want), "%s", t->text);
    while (!found && getline(&line, &cap, f) > 0) {
        char word[64];
        if (v6) {
            found = sscanf(line, "%63s", word) == 1 && !strcmp(word, want);
        } else if (sscanf(line, " |-- %63s", word) == 1) {
            snprintf(last, sizeof(last), "%s", word);
        } else {
            /* fib_trie: a leaf "|-- A.B.C.D" followed by "/32 host LOCAL" is a local address. */
            found = strstr(line, "/32 host LOCAL") && !strcmp(last, want);
        }
    }
    free(line);
    fclose(f);
    return found;
}

/* Is pid the run's server: does it own a socket listening on t (see the file comment)? */
static bool is_server(const char *proc, long pid, const struct target *t)
{
    unsigned long inodes[INODES_MAX];
    bool wild[INODES_MAX];
    size_t n = 0;
    listening(proc, pid, "net/tcp", t, inodes, wild, &n);
    listening(proc, pid, "net/tcp6", t, inodes, wild, &n);
    size_t keep = 0;
    bool local = false, local_known = false;
    for (size_t i = 0; i < n; i++) {
        if (wild[i] && !local_known) {
            local = addr_local(proc, pid, t);
            local_known = true;
        }
        if (!wild[i] || local)
            inodes[keep++] = inodes[i];
    }
    return keep && owns_socket(proc, pid, inodes, keep);
}

/* Marks this process's ancestors, itself, the run's servers, and every descendant of those. */
static void mark_ours(const char *proc, struct pinfo *t, size_t n, const struct target *tgt,
                      bool have_target)
{
    long self = (long)getpid();
    struct pinfo *p = find(t, n, self);
    if (p) {
        p->mark = OURS_TREE;
        p->why = "this process";
        /*
         * Bounded: a cycle cannot happen in a real table, but a fake one could
         * have one. The nearest netab-like ancestor is the campaign's
         * controller (netab experiment run, compare): what it started beside
         * this run (its servers, workers of other DUTs, their children) is
         * the campaign's own, not competition; ancestors above it are not.
         */
        bool controller = false;
        for (size_t hops = 0; hops < n && (p = find(t, n, p->ppid)) && !p->mark; hops++) {
            p->mark = OURS_ANCESTOR;
            p->why = "an ancestor of this process";
            if (!controller && p->noise) {
                p->mark = OURS_TREE;
                p->why = "the campaign's controller (the nearest netab-like ancestor)";
                controller = true;
            }
        }
    }
    for (size_t i = 0; have_target && i < n; i++)
        if (t[i].noise && !t[i].mark && is_server(proc, t[i].pid, tgt)) {
            t[i].mark = OURS_TREE;
            t[i].why = "the run's server (it listens on the run's address and port)";
        }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < n; i++) {
            struct pinfo *parent = t[i].mark ? NULL : find(t, n, t[i].ppid);
            if (parent && parent->mark == OURS_TREE) {
                t[i].mark = OURS_TREE;
                t[i].why = "a descendant of this process, of the campaign's controller or of "
                           "the run's server";
                changed = true;
            }
        }
    }
}

/* root/<pid>/cmdline with its NULs as spaces, non-printable bytes as '?', cut; or null. */
static json_t *cmdline_of(const char *proc, long pid)
{
    char rel[64], buf[CMDLINE_MAX + 1];
    snprintf(rel, sizeof(rel), "%ld/cmdline", pid);
    int n = fs_read(proc, rel, buf, sizeof(buf));
    if (n <= 0)
        return json_null(); /* unreadable, or a kernel thread */
    while (n > 0 && buf[n - 1] == '\0')
        n--;
    for (int i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
        else if (!isprint((unsigned char)buf[i]))
            buf[i] = '?';
    buf[n] = '\0';
    /* Another netab's --db URL may carry a password: never shown or stored. */
    char *clean = redact_text(buf);
    json_t *s = !clean             ? NULL
                : n == CMDLINE_MAX ? json_sprintf("%s...", clean)
                                   : json_string(clean);
    free(clean);
    return s ? s : json_null();
}

static json_t *entry(const char *proc, const struct pinfo *p)
{
    json_t *o = json_pack("{s:I, s:s}", "pid", (json_int_t)p->pid, "comm", p->comm);
    if (o)
        json_object_set_new(o, "cmdline", cmdline_of(proc, p->pid));
    if (o && p->why)
        json_object_set_new(o, "why", json_string(p->why));
    return o;
}

json_t *envcap_census(const char *proc, const struct env_run_peer *peer, int *irqbalance,
                      json_t **ours)
{
    size_t n;
    struct target tgt;
    *irqbalance = -1;
    *ours = json_null();
    struct pinfo *t = read_table(proc, &n);
    if (!t)
        return json_null();
    /* Sorted by pid so that snapshots compare (readdir order is arbitrary). */
    qsort(t, n, sizeof(*t), by_pid);
    mark_ours(proc, t, n, &tgt, target_parse(peer, &tgt));
    json_t *list = json_array();
    json_decref(*ours);
    *ours = json_array();
    *irqbalance = 0;
    for (size_t i = 0; list && *ours && i < n; i++) {
        if (!strcmp(t[i].comm, "irqbalance"))
            *irqbalance = 1;
        if (t[i].noise)
            json_array_append_new(t[i].mark ? *ours : list, entry(proc, &t[i]));
    }
    free(t);
    return list ? list : json_null();
}
