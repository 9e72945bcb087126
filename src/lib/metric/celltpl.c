/* The report's cell template parsed (celltpl.h). */
#include "metric/celltpl.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The test kinds' names a placeholder may give, as `netab run --test` spells them. */
static const char *const tests[] = {"tcp_stream", "udp_stream", "tcp_rr",
                                    "udp_rr",     "tcp_crr",    "rrul"};
#define NTESTS (sizeof(tests) / sizeof(*tests))

static bool known_test(const char *t)
{
    for (size_t i = 0; i < NTESTS; i++)
        if (!strcmp(t, tests[i]))
            return true;
    return false;
}

void celltpl_free(struct celltpl *t)
{
    for (size_t i = 0; t->parts && i < t->nparts; i++) {
        free(t->parts[i].text);
        free(t->parts[i].test);
        free(t->parts[i].source);
    }
    free(t->parts);
    memset(t, 0, sizeof(*t));
}

/* Appends the literal s[0..n), with "{{" and "}}" made single; 0 or -ENOMEM. */
static int add_text(struct celltpl *t, const char *s, size_t n)
{
    char *x = malloc(n + 1);
    size_t k = 0;
    if (!x)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        x[k++] = s[i];
        i += (s[i] == '{' || s[i] == '}') && i + 1 < n && s[i + 1] == s[i];
    }
    x[k] = '\0';
    t->parts[t->nparts++] = (struct celltpl_part){.text = x};
    return 0;
}

/*
 * Appends the placeholder body s[0..n) (between the braces): METRIC or
 * TEST:METRIC, each checked. -EINVAL with a sentence naming it, -ENOMEM.
 */
static int add_placeholder(struct celltpl *t, const char *s, size_t n, char *err, size_t errlen)
{
    char src[160], body[128];
    snprintf(src, sizeof(src), "{%.*s}", (int)(n < 150 ? n : 150), s);
    if (!n)
        return err_set(err, errlen, EINVAL, "cell template: '{}' names no metric");
    if (n >= sizeof(body))
        return err_set(err, errlen, EINVAL, "cell template: placeholder %.40s... is too long", src);
    memcpy(body, s, n);
    body[n] = '\0';
    char *colon = strchr(body, ':'), *name = colon ? colon + 1 : body;
    if (colon)
        *colon = '\0';
    if (colon && !known_test(body))
        return err_set(err, errlen, EINVAL,
                       "cell template: %s: unknown test '%s' (tests: tcp_stream, udp_stream, "
                       "tcp_rr, udp_rr, tcp_crr, rrul)",
                       src, body);
    const struct metric *m = metric_find(name);
    if (!m || !(m->flags & METRIC_REPORT))
        return err_set(err, errlen, EINVAL,
                       "cell template: %s: unknown metric '%s' ('netab report --help' lists "
                       "them)",
                       src, name);
    if (colon && !(m->kinds & metric_kind_of(body)))
        return err_set(err, errlen, EINVAL, "cell template: %s: %s is not measured in %s runs", src,
                       m->name, body);
    if (t->nph == CELLTPL_MAX_PH)
        return err_set(err, errlen, EINVAL, "cell template: more than %d placeholders",
                       CELLTPL_MAX_PH);
    struct celltpl_part *p = &t->parts[t->nparts];
    *p = (struct celltpl_part){.metric = m};
    p->source = strdup(src);
    p->test = colon ? strdup(body) : NULL;
    if (!p->source || (colon && !p->test)) {
        free(p->source);
        free(p->test);
        return -ENOMEM;
    }
    t->nparts++;
    t->nph++;
    return 0;
}

/* Checks what may not appear in s at all: length and control characters. */
static int check_chars(const char *s, char *err, size_t errlen)
{
    size_t n = strlen(s);
    if (n > CELLTPL_MAX_LEN)
        return err_set(err, errlen, EINVAL, "cell template: %zu bytes, at most %d", n,
                       CELLTPL_MAX_LEN);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return err_set(err, errlen, EINVAL,
                           "cell template: a control character (\\x%02x) at byte %zu: a cell "
                           "is one line of text",
                           (unsigned)(unsigned char)s[i], i + 1);
    return 0;
}

/* Walks s into t: text up to each '{', the placeholder up to its '}'. */
static int walk(const char *s, struct celltpl *t, char *err, size_t errlen)
{
    const char *p = s, *lit = s;
    int e = 0;
    while (!e && *p) {
        if ((p[0] == '{' || p[0] == '}') && p[1] == p[0]) {
            p += 2; /* an escaped brace stays in the literal */
            continue;
        }
        if (*p == '}')
            return err_set(err, errlen, EINVAL,
                           "cell template: a '}' at byte %zu closes no '{' (write '}}' for a "
                           "brace)",
                           (size_t)(p - s) + 1);
        if (*p != '{') {
            p++;
            continue;
        }
        const char *close = p + 1 + strcspn(p + 1, "{}");
        if (*close != '}')
            return err_set(err, errlen, EINVAL,
                           "cell template: '%.*s' at byte %zu is never closed with '}'",
                           (int)(close - p < 60 ? close - p : 60), p, (size_t)(p - s) + 1);
        if (p > lit)
            e = add_text(t, lit, (size_t)(p - lit));
        if (!e)
            e = add_placeholder(t, p + 1, (size_t)(close - p - 1), err, errlen);
        p = lit = close + 1;
    }
    if (!e && p > lit)
        e = add_text(t, lit, (size_t)(p - lit));
    return e;
}

int celltpl_parse(const char *s, struct celltpl *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    int e = check_chars(s, err, errlen);
    if (e)
        return e;
    /* Each '{' starts at most one placeholder and one text before it, plus a tail. */
    size_t cap = 2;
    for (const char *p = s; *p; p++)
        cap += *p == '{' ? 2 : 0;
    if (!(out->parts = calloc(cap, sizeof(*out->parts))))
        return err_set(err, errlen, ENOMEM, "out of memory");
    e = walk(s, out, err, errlen);
    if (!e && !out->nph)
        e = err_set(err, errlen, EINVAL,
                    "cell template: no placeholder: name a figure as {METRIC} or {TEST:METRIC}, "
                    "e.g. {tcp_stream:throughput}");
    if (e == -ENOMEM)
        err_set(err, errlen, ENOMEM, "out of memory");
    if (e)
        celltpl_free(out);
    return e;
}
