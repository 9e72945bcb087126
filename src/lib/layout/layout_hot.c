/* Hot-set parsing and matching for netab layout (see layout_hot.h). */
#include "layout/layout_hot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/opttable.h"
#include "util/textfile.h"

/*
 * The kernel's packet paths that NAT, forwarding and socket throughput run
 * through: NAPI and GRO, the IPv4 receive/forward/output path, TCP and UDP
 * over IPv4, netfilter, conntrack and NAT, and the transmit path through the
 * qdisc to the driver. docs/layout.md lists the same patterns.
 */
static const char *const builtin[] = {
    /* NAPI, GRO and the core receive path */
    "net_rx_action", "__napi_poll", "napi_poll", "napi_complete_done", "napi_gro_receive",
    "napi_gro_*", "dev_gro_receive", "gro_*", "inet_gro_receive", "tcp4_gro_receive",
    "tcp_gro_receive", "udp4_gro_receive", "udp_gro_receive", "__netif_receive_skb*",
    "netif_receive_skb*", "__netif_receive_skb_core", "netif_rx*", "process_backlog",
    "eth_type_trans", "napi_alloc_skb", "__napi_alloc_skb", "napi_build_skb", "build_skb",
    "__alloc_skb", "napi_consume_skb", "consume_skb", "kfree_skb*", "__kfree_skb",
    "skb_release_data",
    /* IPv4 receive, forward and output */
    "ip_rcv", "ip_rcv_core", "ip_rcv_finish*", "ip_list_rcv*", "ip_sublist_rcv*", "ip_route_input*",
    "ip_route_output*", "fib_table_lookup", "fib_lookup*", "ip_forward", "ip_forward_finish",
    "ip_local_deliver*", "ip_output", "ip_finish_output*", "ip_local_out", "__ip_local_out",
    "ip_queue_xmit", "__ip_queue_xmit", "neigh_resolve_output", "neigh_output", "ip_send_check",
    /* TCP over IPv4 */
    "tcp_v4_rcv", "tcp_v4_do_rcv", "tcp_rcv_established", "tcp_ack", "tcp_data_queue",
    "tcp_clean_rtx_queue*", "tcp_sendmsg*", "tcp_recvmsg*", "tcp_write_xmit", "__tcp_transmit_skb",
    "tcp_transmit_skb", "tcp_v4_send_check", "tcp_event_new_data_sent",
    /* UDP over IPv4 */
    "udp_rcv", "__udp4_lib_rcv", "__udp4_lib_lookup*", "udp4_lib_lookup*", "udp_queue_rcv_skb",
    "udp_queue_rcv_one_skb", "udp_unicast_rcv_skb", "__udp_enqueue_schedule_skb", "udp_sendmsg",
    "udp_send_skb", "udp_recvmsg",
    /* netfilter, conntrack and NAT */
    "nf_hook_slow*", "nf_conntrack_in", "nf_conntrack_*", "__nf_conntrack_*", "nf_ct_*",
    "__nf_ct_*", "resolve_normal_ct", "hash_conntrack_raw", "nf_confirm", "ipv4_confirm",
    "nf_nat_*", "__nf_nat_*", "nf_nat_ipv4_*", "nf_nat_inet_fn", "ipt_do_table", "nft_do_chain*",
    "nf_ct_get_tuple*", "nf_ct_seq_adjust", "nf_ct_deliver_cached_events",
    /* transmit: qdisc to driver */
    "dev_queue_xmit", "__dev_queue_xmit", "dev_hard_start_xmit", "sch_direct_xmit", "__qdisc_run",
    "__dev_xmit_skb", "validate_xmit_skb*", "netdev_core_pick_tx", "netdev_pick_tx", "pfifo_fast_*",
    "fq_codel_*", "dev_qdisc_enqueue", NULL};

const char *const *layout_hot_builtin_patterns(void)
{
    return builtin;
}

const char *layout_hot_kind_name(enum layout_hot_kind kind)
{
    switch (kind) {
    case LAYOUT_HOT_BUILTIN:
        return "built-in network paths";
    case LAYOUT_HOT_LIST:
        return "command line";
    case LAYOUT_HOT_NAMES:
        return "names file";
    case LAYOUT_HOT_PERF_REPORT:
        return "perf report";
    case LAYOUT_HOT_PERF_SCRIPT:
        return "perf script";
    case LAYOUT_HOT_PROFILE:
        return "netab profile";
    case LAYOUT_HOT_EXPERIMENT:
        return "experiment file";
    }
    return "?";
}

/* A growing array of owned strings. */
struct strv {
    char **v;
    size_t n, cap;
};

static int strv_push(struct strv *s, const char *p, size_t len)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char **v = realloc(s->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    if (!(s->v[s->n] = strndup(p, len)))
        return -ENOMEM;
    s->n++;
    return 0;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts s and frees its duplicates. */
static void strv_unique(struct strv *s)
{
    if (s->n < 2)
        return;
    qsort(s->v, s->n, sizeof(s->v[0]), str_cmp);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++) {
        if (strcmp(s->v[i], s->v[k - 1]))
            s->v[k++] = s->v[i];
        else
            free(s->v[i]);
    }
    s->n = k;
}

/* Adds one pattern to the exact or the glob list. */
static int hot_add(struct strv *exact, struct strv *globs, const char *p, size_t len)
{
    bool glob = false;
    for (size_t i = 0; i < len; i++)
        glob |= p[i] == '*' || p[i] == '?' || p[i] == '[';
    return strv_push(glob ? globs : exact, p, len);
}

/* Moves the collected patterns into hot (sorted, unique). */
static void hot_take(struct layout_hot *hot, enum layout_hot_kind kind, struct strv *exact,
                     struct strv *globs)
{
    strv_unique(exact);
    strv_unique(globs);
    *hot = (struct layout_hot){kind, exact->v, exact->n, globs->v, globs->n};
}

static void strv_free(struct strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

/* rc 0: exact and globs become hot's set (hot_take()); otherwise they are released. Returns rc. */
static int hot_finish(int rc, struct layout_hot *hot, enum layout_hot_kind kind, struct strv *exact,
                      struct strv *globs)
{
    if (!rc) {
        hot_take(hot, kind, exact, globs);
        return 0;
    }
    strv_free(exact);
    strv_free(globs);
    return rc;
}

int layout_hot_builtin(struct layout_hot *hot)
{
    struct strv exact = {0}, globs = {0};
    int rc = 0;
    for (size_t i = 0; !rc && builtin[i]; i++)
        rc = hot_add(&exact, &globs, builtin[i], strlen(builtin[i])) ? -ENOMEM : 0;
    return hot_finish(rc, hot, LAYOUT_HOT_BUILTIN, &exact, &globs);
}

int layout_hot_parse_list(const char *list, struct layout_hot *hot, char *err, size_t errlen)
{
    struct strv exact = {0}, globs = {0};
    int rc = 0;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        bool blank = len == 0;
        for (size_t i = 0; i < len; i++)
            blank |= isspace((unsigned char)p[i]) != 0;
        if (blank) {
            rc = err_set(err, errlen, EINVAL,
                         "--hot '%s': item %zu is empty or holds a blank; give names or globs "
                         "separated by commas",
                         list, exact.n + globs.n + 1);
            break;
        }
        char item[256], why[NB_ERRLEN];
        snprintf(item, sizeof(item), "%.*s", (int)(len < 255 ? len : 255), p);
        if (len > 255 || layout_hot_check_pattern(item, why, sizeof(why))) {
            rc = err_set(err, errlen, EINVAL, "--hot '%s': %s", list,
                         len > 255 ? "a pattern longer than 255 characters" : why);
            break;
        }
        if ((rc = hot_add(&exact, &globs, p, len)))
            break;
        if (!comma)
            break;
        p = comma + 1;
    }
    return hot_finish(rc, hot, LAYOUT_HOT_LIST, &exact, &globs);
}

#define MAX_TOKENS 24

/* Splits [s, e) at blanks into at most max tokens; returns how many it found. */
static int tokenize(const char *s, const char *e, const char **tok, size_t *len, int max)
{
    int n = 0;
    while (s < e && n < max) {
        while (s < e && isspace((unsigned char)*s))
            s++;
        if (s == e)
            break;
        tok[n] = s;
        while (s < e && !isspace((unsigned char)*s))
            s++;
        len[n] = (size_t)(s - tok[n]);
        n++;
    }
    return n;
}

static bool all_hex(const char *s, size_t len)
{
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        len -= 2;
    }
    for (size_t i = 0; i < len; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return len > 0;
}

/* The symbol of a perf report line ("... [k] SYMBOL"), or NULL; *len receives its length. */
static const char *perf_report_symbol(const char *s, const char *e, size_t *len)
{
    static const char *const marks[] = {"[k] ", "[.] ", "[g] ", "[u] "};
    for (const char *p = s; p + 4 <= e; p++) {
        for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
            if (memcmp(p, marks[m], 4))
                continue;
            const char *q = p + 4;
            while (q < e && isspace((unsigned char)*q))
                q++;
            const char *r = e;
            while (r > q && isspace((unsigned char)r[-1]))
                r--;
            *len = (size_t)(r - q);
            return q;
        }
    }
    return NULL;
}

/* The symbol of a perf script line ("ADDR SYMBOL[+0xOFF] (DSO)"), or NULL. */
static const char *perf_script_symbol(const char *s, const char *e, size_t *len)
{
    const char *tok[MAX_TOKENS];
    size_t tl[MAX_TOKENS];
    int n = tokenize(s, e, tok, tl, MAX_TOKENS);
    for (int i = 0; i + 2 < n; i++) {
        if (tl[i] < 4 || !all_hex(tok[i], tl[i]))
            continue;
        if (tok[i + 2][0] != '(' || tok[i + 2][tl[i + 2] - 1] != ')')
            continue;
        const char *plus = memchr(tok[i + 1], '+', tl[i + 1]);
        *len = plus && plus > tok[i + 1] ? (size_t)(plus - tok[i + 1]) : tl[i + 1];
        return tok[i + 1];
    }
    return NULL;
}

/* Whether a perf symbol names a function (perf prints unresolved ones as addresses). */
static bool resolved(const char *sym, size_t len)
{
    return len > 0 && !all_hex(sym, len) && !(len == 9 && !memcmp(sym, "[unknown]", 9));
}

/* Yields the next line [*s, *e) of [*p, end) and advances *p; false at the end. */
static bool next_line(const char **p, const char *end, const char **s, const char **e)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    *s = *p;
    *e = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    return true;
}

int layout_hot_parse_text(const char *name, const char *text, size_t len, struct layout_hot *hot,
                          char *err, size_t errlen)
{
    enum layout_hot_kind kind = LAYOUT_HOT_NAMES;
    const char *p = text, *end = text + len, *s, *e;
    size_t lineno = 0, sl;
    while (next_line(&p, end, &s, &e)) {
        if (perf_report_symbol(s, e, &sl)) {
            kind = LAYOUT_HOT_PERF_REPORT;
            break;
        }
        if (perf_script_symbol(s, e, &sl))
            kind = LAYOUT_HOT_PERF_SCRIPT;
    }
    struct strv exact = {0}, globs = {0};
    int rc = 0;
    p = text;
    while (next_line(&p, end, &s, &e)) {
        lineno++;
        const char *sym = NULL;
        if (kind == LAYOUT_HOT_PERF_REPORT)
            sym = perf_report_symbol(s, e, &sl);
        else if (kind == LAYOUT_HOT_PERF_SCRIPT)
            sym = perf_script_symbol(s, e, &sl);
        if (kind != LAYOUT_HOT_NAMES) {
            if (sym && resolved(sym, sl) && (rc = hot_add(&exact, &globs, sym, sl)))
                break;
            continue;
        }
        const char *tok[2];
        size_t tl[2];
        int n = tokenize(s, e, tok, tl, 2);
        if (n == 0 || tok[0][0] == '#')
            continue;
        if (n > 1) {
            int shown = (int)(e - tok[0] > 60 ? 60 : e - tok[0]);
            rc = err_set(err, errlen, EINVAL,
                         "%s line %zu is not one function name or glob, nor perf report or "
                         "perf script output: '%.*s'",
                         name, lineno, shown, tok[0]);
            break;
        }
        char item[256], why[NB_ERRLEN];
        snprintf(item, sizeof(item), "%.*s", (int)(tl[0] < 255 ? tl[0] : 255), tok[0]);
        if (tl[0] > 255 || layout_hot_check_pattern(item, why, sizeof(why))) {
            rc = err_set(err, errlen, EINVAL, "%s line %zu: %s", name, lineno,
                         tl[0] > 255 ? "a pattern longer than 255 characters" : why);
            break;
        }
        if ((rc = hot_add(&exact, &globs, tok[0], tl[0])))
            break;
    }
    if (!rc && exact.n + globs.n == 0)
        rc = err_set(err, errlen, EINVAL, "%s names no function (read as %s)", name,
                     layout_hot_kind_name(kind));
    if (rc == -ENOMEM)
        err_set(err, errlen, ENOMEM, "out of memory reading %s", name);
    return hot_finish(rc, hot, kind, &exact, &globs);
}

/* A hot list is small; a larger input is a mistake (a binary, a device), refused early. */
#define HOT_MAX_BYTES ((size_t)256 << 20)

int layout_hot_load(const char *arg, struct layout_hot *hot, char *err, size_t errlen)
{
    memset(hot, 0, sizeof(*hot));
    bool is_stdin = !strcmp(arg, "-");
    if (!is_stdin && access(arg, F_OK) != 0)
        return layout_hot_parse_list(arg, hot, err, errlen);
    FILE *f = is_stdin ? stdin : fopen(arg, "r");
    if (!f)
        return err_set(err, errlen, errno, "--hot: cannot open %s: %s", arg, strerror(errno));
    char *text = NULL;
    size_t len = 0;
    int rc = textfile_read(f, HOT_MAX_BYTES, &text, &len);
    if (!is_stdin)
        fclose(f);
    if (rc)
        return err_set(err, errlen, rc, "--hot: cannot read %s: %s", is_stdin ? "stdin" : arg,
                       rc == -EILSEQ ? "it holds binary data" : strerror(-rc));
    rc = layout_hot_parse_text(is_stdin ? "stdin" : arg, text, len, hot, err, errlen);
    free(text);
    return rc;
}

int layout_hot_check_pattern(const char *p, char *why, size_t whylen)
{
    if (!*p)
        return err_set(why, whylen, EINVAL, "an empty pattern names no function");
    for (const char *q = p; *q; q++) {
        if (isspace((unsigned char)*q) || iscntrl((unsigned char)*q))
            return err_set(why, whylen, EINVAL,
                           "pattern '%s' holds a blank or control character: a function name "
                           "has none",
                           p);
        if (*q == '\\' && !q[1])
            return err_set(why, whylen, EINVAL, "pattern '%s' ends in a lone '\\'", p);
        if (*q == '\\') {
            q++;
            continue;
        }
        if (*q != '[')
            continue;
        /* fnmatch(3) takes an unclosed '[' literally; that is never what was meant. */
        const char *c = q + 1;
        if (*c == '!' || *c == '^')
            c++;
        if (*c == ']')
            c++;
        c = strchr(c, ']');
        if (!c)
            return err_set(why, whylen, EINVAL,
                           "pattern '%s' opens a '[' class that is never closed with ']'", p);
        q = c;
    }
    return 0;
}

int layout_hot_from_patterns(const char *const *pats, size_t n, enum layout_hot_kind kind,
                             struct layout_hot *hot, char *err, size_t errlen)
{
    struct strv exact = {0}, globs = {0};
    int rc = n ? 0 : err_set(err, errlen, EINVAL, "the hot list is empty: give at least one name");
    for (size_t i = 0; !rc && i < n; i++) {
        rc = layout_hot_check_pattern(pats[i], err, errlen);
        if (!rc && (rc = hot_add(&exact, &globs, pats[i], strlen(pats[i]))))
            err_set(err, errlen, ENOMEM, "out of memory");
    }
    return hot_finish(rc, hot, kind, &exact, &globs);
}

/* Appends copies of the n strings of from to s. */
static int strv_take_all(struct strv *s, char **from, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strv_push(s, from[i], strlen(from[i])))
            return -ENOMEM;
    }
    return 0;
}

int layout_hot_opt_add(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen)
{
    struct layout_hot *acc = field, add;
    (void)o;
    int rc = layout_hot_load(value, &add, err, errlen);
    if (rc)
        return rc;
    if (!layout_hot_given(acc)) {
        *acc = add;
        return 0;
    }
    struct strv exact = {acc->exact, acc->nexact, acc->nexact};
    struct strv globs = {acc->globs, acc->nglobs, acc->nglobs};
    enum layout_hot_kind kind = acc->kind == add.kind ? add.kind : LAYOUT_HOT_LIST;
    rc = strv_take_all(&exact, add.exact, add.nexact);
    if (!rc)
        rc = strv_take_all(&globs, add.globs, add.nglobs);
    layout_hot_free(&add);
    hot_take(acc, kind, &exact, &globs);
    return rc ? err_set(err, errlen, ENOMEM, "--hot: out of memory") : 0;
}

static bool match_one(const struct layout_hot *hot, const char *name)
{
    if (hot->nexact && bsearch(&name, hot->exact, hot->nexact, sizeof(hot->exact[0]), str_cmp))
        return true;
    for (size_t i = 0; i < hot->nglobs; i++)
        if (!fnmatch(hot->globs[i], name, 0))
            return true;
    return false;
}

bool layout_hot_match(const struct layout_hot *hot, const char *name)
{
    if (match_one(hot, name))
        return true;
    /* A .cold part lies in .text.unlikely, away from the hot path: only its own name makes it hot.
     */
    const char *dot = strchr(name, '.');
    if (!dot || dot == name || dot - name > 255 || strstr(dot, ".cold"))
        return false;
    char base[256];
    memcpy(base, name, (size_t)(dot - name));
    base[dot - name] = '\0';
    return match_one(hot, base);
}

/* Marks the patterns that name itself matches. */
static void mark_one(const struct layout_hot *hot, const char *name, bool *hits)
{
    char **e = hot->nexact ? bsearch(&name, hot->exact, hot->nexact, sizeof(hot->exact[0]), str_cmp)
                           : NULL;
    if (e)
        hits[e - hot->exact] = true;
    for (size_t i = 0; i < hot->nglobs; i++)
        if (!fnmatch(hot->globs[i], name, 0))
            hits[hot->nexact + i] = true;
}

void layout_hot_mark(const struct layout_hot *hot, const char *name, bool *hits)
{
    mark_one(hot, name, hits);
    /* The same clone rule as layout_hot_match(): a .cold part counts only under its own name. */
    const char *dot = strchr(name, '.');
    if (!dot || dot == name || dot - name > 255 || strstr(dot, ".cold"))
        return;
    char base[256];
    memcpy(base, name, (size_t)(dot - name));
    base[dot - name] = '\0';
    mark_one(hot, base, hits);
}

const char *layout_hot_pattern(const struct layout_hot *hot, size_t i)
{
    return i < hot->nexact ? hot->exact[i] : hot->globs[i - hot->nexact];
}

void layout_hot_free(struct layout_hot *hot)
{
    struct strv a = {hot->exact, hot->nexact, hot->nexact};
    struct strv b = {hot->globs, hot->nglobs, hot->nglobs};
    strv_free(&a);
    strv_free(&b);
    memset(hot, 0, sizeof(*hot));
}
