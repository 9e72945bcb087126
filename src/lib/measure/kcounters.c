#include "measure/kcounters.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "measure/procfile.h"

int kc_set_add(struct kc_set *s, const char *group, const char *name, int64_t value)
{
    if (strlen(group) + 1 + strlen(name) >= KC_NAME_MAX)
        return 0;
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        struct kc_entry *e = realloc(s->e, nc * sizeof(*e));
        if (!e)
            return -ENOMEM;
        s->e = e;
        s->cap = nc;
    }
    snprintf(s->e[s->n].name, KC_NAME_MAX, "%s.%s", group, name);
    s->e[s->n].value = value;
    s->n++;
    return 0;
}

const struct kc_entry *kc_set_find(const struct kc_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->e[i].name, name))
            return &s->e[i];
    return NULL;
}

void kc_set_free(struct kc_set *s)
{
    free(s->e);
    memset(s, 0, sizeof(*s));
}

/* Copies the next whitespace-separated word of [*p, end) into w; false at the end. */
static bool next_word(const char **p, const char *end, char *w, size_t len)
{
    const char *q = *p;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    const char *start = q;
    while (q < end && *q != ' ' && *q != '\t')
        q++;
    *p = q;
    if (q == start)
        return false;
    size_t n = (size_t)(q - start) < len - 1 ? (size_t)(q - start) : len - 1;
    memcpy(w, start, n);
    w[n] = '\0';
    return true;
}

static int parse_int64(const char *w, int64_t *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(w, &e, 10);
    if (errno || e == w || *e)
        return -EINVAL;
    *out = v;
    return 0;
}

/* The end of the line starting at p (its '\n' or the final NUL). */
static const char *line_end(const char *p)
{
    const char *e = strchr(p, '\n');
    return e ? e : p + strlen(p);
}

/* One header line and its value line: "Grp: A B" / "Grp: 1 2". */
static int parse_pair(const char *h, const char *he, const char *v, const char *ve,
                      struct kc_set *s)
{
    char hg[KC_NAME_MAX], vg[KC_NAME_MAX], name[KC_NAME_MAX], val[32];
    if (!next_word(&h, he, hg, sizeof(hg)) || !next_word(&v, ve, vg, sizeof(vg)) ||
        strcmp(hg, vg) || hg[strlen(hg) - 1] != ':')
        return -EINVAL;
    hg[strlen(hg) - 1] = '\0';
    for (;;) {
        bool hn = next_word(&h, he, name, sizeof(name));
        bool vn = next_word(&v, ve, val, sizeof(val));
        if (hn != vn)
            return -EINVAL;
        if (!hn)
            return 0;
        int64_t x;
        if (parse_int64(val, &x))
            return -EINVAL;
        int rc = kc_set_add(s, hg, name, x);
        if (rc)
            return rc;
    }
}

int kc_parse_pairs(const char *text, struct kc_set *s)
{
    const char *p = text;
    while (*p) {
        const char *he = line_end(p);
        if (he == p) {
            p = *he ? he + 1 : he;
            continue;
        }
        if (!*he)
            return -EINVAL; /* a header without its value line */
        const char *v = he + 1, *ve = line_end(v);
        int rc = parse_pair(p, he, v, ve, s);
        if (rc)
            return rc;
        p = *ve ? ve + 1 : ve;
    }
    return 0;
}

int kc_parse_snmp6(const char *text, struct kc_set *s)
{
    const char *p = text;
    while (*p) {
        const char *e = line_end(p), *q = p;
        char name[KC_NAME_MAX], val[32], extra[8];
        if (next_word(&q, e, name, sizeof(name))) {
            int64_t x;
            if (!next_word(&q, e, val, sizeof(val)) || next_word(&q, e, extra, sizeof(extra)) ||
                parse_int64(val, &x))
                return -EINVAL;
            char group[KC_NAME_MAX] = "Snmp6";
            const char *counter = name;
            const char *six = strchr(name, '6');
            if (six && six[1]) {
                size_t gl = (size_t)(six - name) + 1;
                memcpy(group, name, gl);
                group[gl] = '\0';
                counter = six + 1;
            }
            int rc = kc_set_add(s, group, counter, x);
            if (rc)
                return rc;
        }
        p = *e ? e + 1 : e;
    }
    return 0;
}

void kc_softirqs_free(struct kc_softirqs *s)
{
    free(s->cpu);
    free(s->net_rx);
    free(s->net_tx);
    memset(s, 0, sizeof(*s));
}

/* Reads n counts from the row after its label into out. */
static int softirq_row(const char *p, const char *e, int n, uint64_t *out)
{
    char w[32];
    for (int i = 0; i < n; i++) {
        int64_t x;
        if (!next_word(&p, e, w, sizeof(w)) || parse_int64(w, &x) || x < 0)
            return -EINVAL;
        out[i] = (uint64_t)x;
    }
    return 0;
}

static int softirq_header(const char *p, const char *e, struct kc_softirqs *s)
{
    char w[32];
    int cap = 0;
    while (next_word(&p, e, w, sizeof(w))) {
        char *end;
        long c = strtol(w + 3, &end, 10);
        if (strncmp(w, "CPU", 3) || end == w + 3 || *end || c < 0 || c >= 4096)
            return -EINVAL;
        if (s->n == cap) {
            cap = cap ? cap * 2 : 16;
            int *nc = realloc(s->cpu, (size_t)cap * sizeof(int));
            if (!nc)
                return -ENOMEM;
            s->cpu = nc;
        }
        s->cpu[s->n++] = (int)c;
    }
    return s->n ? 0 : -EINVAL;
}

int kc_parse_softirqs(const char *text, struct kc_softirqs *s)
{
    memset(s, 0, sizeof(*s));
    const char *e = line_end(text);
    int rc = softirq_header(text, e, s);
    if (!rc) {
        s->net_rx = calloc((size_t)s->n, sizeof(uint64_t));
        s->net_tx = calloc((size_t)s->n, sizeof(uint64_t));
        rc = s->net_rx && s->net_tx ? 0 : -ENOMEM;
    }
    bool rx = false, tx = false;
    for (const char *p = *e ? e + 1 : e; !rc && *p;) {
        const char *le = line_end(p), *q = p;
        char label[32];
        if (next_word(&q, le, label, sizeof(label))) {
            if (!strcmp(label, "NET_RX:")) {
                rc = softirq_row(q, le, s->n, s->net_rx);
                rx = true;
            } else if (!strcmp(label, "NET_TX:")) {
                rc = softirq_row(q, le, s->n, s->net_tx);
                tx = true;
            }
        }
        p = *le ? le + 1 : le;
    }
    if (!rc && (!rx || !tx))
        rc = -EINVAL;
    if (rc)
        kc_softirqs_free(s);
    return rc;
}

static bool same_addr(const struct sockaddr *a, const struct sockaddr_storage *b)
{
    if (a->sa_family != b->ss_family)
        return false;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->sa_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
    return false;
}

int kc_iface_of_fd(int fd, char *name, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    struct ifaddrs *ifa = NULL;
    if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) || getifaddrs(&ifa))
        return -ENODEV;
    /* IPv4 loopback addresses other than 127.0.0.1 (the whole /8) are on "lo" too. */
    bool lo4 = ss.ss_family == AF_INET &&
               (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
    int rc = -ENODEV;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || !i->ifa_name)
            continue;
        if (same_addr(i->ifa_addr, &ss) || (lo4 && !strcmp(i->ifa_name, "lo"))) {
            snprintf(name, len, "%s", i->ifa_name);
            rc = 0;
            break;
        }
    }
    freeifaddrs(ifa);
    return rc;
}

static const char *const iface_stats[] = {"rx_packets", "tx_packets", "rx_bytes",   "tx_bytes",
                                          "rx_errors",  "tx_errors",  "rx_dropped", "tx_dropped"};

static bool read_iface(const char *dev, struct kc_set *s)
{
    for (size_t i = 0; i < sizeof(iface_stats) / sizeof(iface_stats[0]); i++) {
        char path[128], *text;
        int64_t v;
        snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", dev, iface_stats[i]);
        if (procfile_read(path, &text))
            return false;
        text[strcspn(text, "\n")] = '\0';
        int rc = parse_int64(text, &v);
        free(text);
        if (rc || kc_set_add(s, "iface", iface_stats[i], v))
            return false;
    }
    return true;
}

/* Reads path and parses it with parse into s; false when either fails. */
static bool read_into(const char *path, int (*parse)(const char *, struct kc_set *),
                      struct kc_set *s)
{
    char *text;
    if (procfile_read(path, &text))
        return false;
    int rc = parse(text, s);
    free(text);
    return rc == 0;
}

void kc_snapshot_take(struct kc_snapshot *snap, const char *ifname)
{
    memset(snap, 0, sizeof(*snap));
    /* snmp6 is absent on kernels without IPv6: the other two still count. */
    snap->have_mib = read_into("/proc/net/snmp", kc_parse_pairs, &snap->mib) &&
                     read_into("/proc/net/netstat", kc_parse_pairs, &snap->mib);
    if (snap->have_mib)
        (void)read_into("/proc/net/snmp6", kc_parse_snmp6, &snap->mib);
    char *text;
    if (!procfile_read("/proc/softirqs", &text)) {
        snap->have_softirqs = kc_parse_softirqs(text, &snap->softirqs) == 0;
        free(text);
    }
    if (ifname && *ifname && strlen(ifname) < KC_IFNAME_MAX && !strchr(ifname, '/')) {
        snprintf(snap->ifname, sizeof(snap->ifname), "%s", ifname);
        snap->have_iface = read_iface(ifname, &snap->iface);
    }
}

void kc_snapshot_free(struct kc_snapshot *snap)
{
    kc_set_free(&snap->mib);
    kc_set_free(&snap->iface);
    kc_softirqs_free(&snap->softirqs);
}

/* Appends b's changes against a (all of them when every_one) to out. */
static int set_delta(const struct kc_set *a, const struct kc_set *b, bool every_one,
                     struct kc_set *out)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct kc_entry *y = &b->e[i], *x = NULL;
        /* Both snapshots list the counters in the same order: try the same index first. */
        if (i < a->n && !strcmp(a->e[i].name, y->name))
            x = &a->e[i];
        else
            x = kc_set_find(a, y->name);
        int64_t d = y->value - (x ? x->value : 0);
        if (!d && !every_one)
            continue;
        const char *dot = strchr(y->name, '.');
        char group[KC_NAME_MAX];
        memcpy(group, y->name, (size_t)(dot - y->name));
        group[dot - y->name] = '\0';
        int rc = kc_set_add(out, group, dot + 1, d);
        if (rc)
            return rc;
    }
    return 0;
}

static int softirq_delta(const struct kc_softirqs *a, const struct kc_softirqs *b,
                         struct kc_softirqs *out)
{
    memset(out, 0, sizeof(*out));
    out->cpu = calloc((size_t)b->n + 1, sizeof(int));
    out->net_rx = calloc((size_t)b->n + 1, sizeof(uint64_t));
    out->net_tx = calloc((size_t)b->n + 1, sizeof(uint64_t));
    if (!out->cpu || !out->net_rx || !out->net_tx) {
        kc_softirqs_free(out);
        return -ENOMEM;
    }
    for (int i = 0; i < b->n; i++)
        for (int j = 0; j < a->n; j++) {
            if (a->cpu[j] != b->cpu[i])
                continue;
            out->cpu[out->n] = b->cpu[i];
            out->net_rx[out->n] = b->net_rx[i] > a->net_rx[j] ? b->net_rx[i] - a->net_rx[j] : 0;
            out->net_tx[out->n] = b->net_tx[i] > a->net_tx[j] ? b->net_tx[i] - a->net_tx[j] : 0;
            out->n++;
            break;
        }
    return 0;
}

int kc_snapshot_delta(const struct kc_snapshot *a, const struct kc_snapshot *b,
                      struct kc_snapshot *out)
{
    memset(out, 0, sizeof(*out));
    int rc = 0;
    if (a->have_mib && b->have_mib) {
        rc = set_delta(&a->mib, &b->mib, false, &out->mib);
        out->have_mib = true;
    }
    if (!rc && a->have_iface && b->have_iface && !strcmp(a->ifname, b->ifname)) {
        rc = set_delta(&a->iface, &b->iface, true, &out->iface);
        out->have_iface = true;
        snprintf(out->ifname, sizeof(out->ifname), "%s", b->ifname);
    }
    if (!rc && a->have_softirqs && b->have_softirqs) {
        rc = softirq_delta(&a->softirqs, &b->softirqs, &out->softirqs);
        out->have_softirqs = rc == 0;
    }
    if (rc)
        kc_snapshot_free(out);
    return rc;
}
