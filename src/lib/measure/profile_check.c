/* A peer's profile member (from the network), checked member by member. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "measure/profile.h"

#define MAX_NAME 512

static bool is_str(const json_t *v, size_t max)
{
    return json_is_string(v) && strlen(json_string_value(v)) <= max;
}

static bool is_count(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0;
}

static bool is_num(const json_t *v, double lo, double hi)
{
    double x = json_number_value(v);
    return json_is_number(v) && isfinite(x) && x >= lo && x <= hi;
}

/* Exactly the first n keys of the list, no other. */
static bool only_n(const json_t *o, const char *const *keys, size_t n)
{
    const char *k;
    json_t *v;
    if (!json_is_object(o) || json_object_size(o) != n)
        return false;
    json_object_foreach((json_t *)o, k, v)
    {
        bool known = false;
        for (size_t i = 0; i < n && !known; i++)
            known = !strcmp(k, keys[i]);
        if (!known)
            return false;
    }
    return true;
}

/* Exactly the keys named (a NULL-terminated list), no other. */
static bool only(const json_t *o, const char *const *keys)
{
    size_t n = 0;
    while (keys[n])
        n++;
    return only_n(o, keys, n);
}

/* An array of n counts (shares: n numbers within 0..100). */
static bool counts_ok(const json_t *a, size_t n, bool shares)
{
    size_t i;
    json_t *v;
    if (!json_is_array(a) || json_array_size(a) != n)
        return false;
    json_array_foreach(a, i, v)
    {
        if (shares ? !is_num(v, 0, 100) : !is_count(v))
            return false;
    }
    return true;
}

/* A ratio of a group's counts: a finite non-negative number, or null. */
static bool ratio_ok(const json_t *v)
{
    return json_is_null(v) || is_num(v, 0, 1e12);
}

/* A function of a profile with a group of nev events (0: none). */
static bool function_ok(const json_t *f, size_t nev)
{
    static const char *const keys[] = {"symbol", "module",     "samples", "share_pct", "callers",
                                       "counts", "shares_pct", "ipc",     "l1i_mpki",  NULL};
    static const char *const ckeys[] = {"symbol", "samples", NULL};
    json_t *callers = json_object_get(f, "callers");
    if (nev && (!counts_ok(json_object_get(f, "counts"), nev, false) ||
                !counts_ok(json_object_get(f, "shares_pct"), nev, true) ||
                !ratio_ok(json_object_get(f, "ipc")) || !ratio_ok(json_object_get(f, "l1i_mpki"))))
        return false;
    if (!only_n(f, keys, nev ? 9 : 5) || !is_str(json_object_get(f, "symbol"), MAX_NAME) ||
        !is_str(json_object_get(f, "module"), MAX_NAME) ||
        !is_count(json_object_get(f, "samples")) ||
        !is_num(json_object_get(f, "share_pct"), 0, 100) || !json_is_array(callers) ||
        json_array_size(callers) > 3)
        return false;
    size_t i;
    json_t *c;
    json_array_foreach(callers, i, c)
    {
        if (!only(c, ckeys) || !is_str(json_object_get(c, "symbol"), MAX_NAME) ||
            !is_count(json_object_get(c, "samples")))
            return false;
    }
    return true;
}

/*
 * The optional full list: exactly "functions" ({module: {symbol: count}}),
 * "omitted_functions" and "omitted_samples". Every row costs at least 24
 * bytes of the sender's budget, so more than PROFILE_FULL_BYTES / 24 rows
 * (modules included) cannot come from a netab.
 */
static bool full_ok(const json_t *f)
{
    static const char *const keys[] = {"functions", "omitted_functions", "omitted_samples", NULL};
    json_t *mods = json_object_get(f, "functions");
    if (!only(f, keys) || !json_is_object(mods) ||
        !is_count(json_object_get(f, "omitted_functions")) ||
        !is_count(json_object_get(f, "omitted_samples")))
        return false;
    size_t rows = 0;
    const char *mod, *sym;
    json_t *m, *n;
    json_object_foreach(mods, mod, m)
    {
        if (strlen(mod) > MAX_NAME || !json_is_object(m))
            return false;
        rows += 1 + json_object_size(m);
        if (rows > PROFILE_FULL_BYTES / 24)
            return false;
        json_object_foreach(m, sym, n)
        {
            if (strlen(sym) > MAX_NAME || !is_count(n))
                return false;
        }
    }
    return true;
}

static bool head_ok(const json_t *p)
{
    json_t *ev = json_object_get(p, "event"), *cpus = json_object_get(p, "cpus");
    enum profile_event e;
    if (!json_is_string(ev) || profile_event_from_name(json_string_value(ev), &e) ||
        !json_is_integer(json_object_get(p, "frequency")) ||
        !is_num(json_object_get(p, "frequency"), 1, 100000) || !json_is_array(cpus) ||
        json_array_size(cpus) > PROFILE_MAX_CPUS)
        return false;
    size_t i;
    json_t *c;
    json_array_foreach(cpus, i, c)
    {
        if (!json_is_integer(c) || !is_num(c, 0, 4095))
            return false;
    }
    return true;
}

/*
 * The group of events, when the peer sends one: "events" (2 to
 * PROFILE_MAX_EVENTS known names), "counted", "sampled", "attributed" (a
 * count each). Returns the number of events, 0 without a group, -1 when
 * malformed.
 */
static int group_ok(const json_t *g)
{
    static const char *const keys[] = {"events", "counted", "sampled", "attributed", NULL};
    json_t *evs = json_object_get(g, "events");
    if (!g)
        return 0;
    size_t n = json_array_size(evs);
    if (!only(g, keys) || !json_is_array(evs) || n < 2 || n > PROFILE_MAX_EVENTS ||
        !counts_ok(json_object_get(g, "counted"), n, false) ||
        !counts_ok(json_object_get(g, "sampled"), n, false) ||
        !counts_ok(json_object_get(g, "attributed"), n, false))
        return -1;
    size_t i;
    json_t *e;
    enum profile_event pe;
    json_array_foreach(evs, i, e)
    {
        if (!json_is_string(e) || profile_event_from_name(json_string_value(e), &pe))
            return -1;
    }
    return (int)n;
}

/* A key of list (NULL-terminated). */
static bool in_list(const char *k, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(k, *list))
            return true;
    return false;
}

static const char *const why_keys[] = {"event", "frequency", "cpus", "why", NULL};
static const char *const base_keys[] = {"event",
                                        "frequency",
                                        "cpus",
                                        "seconds",
                                        "monotonic_start",
                                        "samples",
                                        "expected_samples",
                                        "lost",
                                        "unattributed",
                                        "distinct_functions",
                                        "functions",
                                        NULL};
static const char *const scope_keys[] = {
    "scope", "idle_samples", "idle_pct", "kernel_work_samples", "other_samples", "note", NULL};

/*
 * Exactly the members of a profile (or of one that says why there is
 * none): "full" is optional (a peer before it sends none), and so is the
 * scope with its figures (a peer before scopes sampled the system); each
 * comes whole or not at all.
 */
static bool keys_ok(const json_t *p, bool why)
{
    const char *const *base = why ? why_keys : base_keys;
    bool scoped = json_object_get(p, "scope") != NULL;
    bool full = !why && json_object_get(p, "full") != NULL;
    bool group = !why && json_object_get(p, "group") != NULL;
    size_t n = 0;
    while (base[n])
        n++;
    n += full + group + (scoped ? (why ? 1 : sizeof(scope_keys) / sizeof(scope_keys[0]) - 1) : 0);
    const char *k;
    json_t *v;
    if (json_object_size(p) != n)
        return false;
    json_object_foreach((json_t *)p, k, v)
    {
        bool scope_key = why ? !strcmp(k, "scope") : in_list(k, scope_keys);
        if (!in_list(k, base) && !(full && !strcmp(k, "full")) && !(group && !strcmp(k, "group")) &&
            !(scoped && scope_key))
            return false;
    }
    return true;
}

/* The scope and its figures, when the peer sends them. */
static bool scope_ok(const json_t *p, bool why)
{
    json_t *s = json_object_get(p, "scope"), *idle = json_object_get(p, "idle_pct");
    json_t *note = json_object_get(p, "note");
    enum profile_scope sc;
    if (!s)
        return true;
    if (!json_is_string(s) || profile_scope_from_name(json_string_value(s), &sc))
        return false;
    return why || (is_count(json_object_get(p, "idle_samples")) &&
                   (json_is_null(idle) || is_num(idle, 0, 100)) &&
                   is_count(json_object_get(p, "kernel_work_samples")) &&
                   is_count(json_object_get(p, "other_samples")) &&
                   (json_is_null(note) || is_str(note, 255)));
}

int profile_check(const json_t *p, char *err, size_t errlen)
{
    bool ok = json_is_object(p) && head_ok(p);
    bool why = ok && json_object_get(p, "why");
    ok = ok && keys_ok(p, why) && scope_ok(p, why);
    if (ok && why) {
        ok = is_str(json_object_get(p, "why"), 255);
    } else if (ok) {
        json_t *fns = json_object_get(p, "functions");
        json_t *all = json_object_get(p, "full");
        int nev = group_ok(json_object_get(p, "group"));
        ok = nev >= 0 && (!all || full_ok(all)) && is_num(json_object_get(p, "seconds"), 0, 1e7) &&
             is_num(json_object_get(p, "monotonic_start"), 0, 1e12) &&
             is_count(json_object_get(p, "samples")) &&
             is_num(json_object_get(p, "expected_samples"), 0, 1e15) &&
             is_count(json_object_get(p, "lost")) && is_count(json_object_get(p, "unattributed")) &&
             is_count(json_object_get(p, "distinct_functions")) && json_is_array(fns) &&
             json_array_size(fns) <= PROFILE_TOP;
        size_t i;
        json_t *f;
        json_array_foreach(fns, i, f)
        {
            if (ok && !function_ok(f, (size_t)nev))
                ok = false;
        }
    }
    if (!ok)
        return err_set(err, errlen, EPROTO, "peer's profile is malformed");
    return 0;
}
