/* A profile's run-document member: its raw counts symbolised and summed per function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/profile.h"
#include "measure/profile_priv.h"
#include "measure/profile_sym.h"

#define TOP_CALLERS 3
#define FULL_NAME_MAX 255 /* bytes of a name in the full list; longer ones are cut */

struct fntab {
    json_t *index; /* "module\tsymbol" -> position in fns */
    struct profile_fn *fns;
    size_t n;
};

static struct profile_fn *fn_of(struct fntab *t, const char *symbol, const char *module)
{
    char key[512];
    snprintf(key, sizeof(key), "%s\t%s", module, symbol);
    json_t *at = json_object_get(t->index, key);
    if (at)
        return &t->fns[json_integer_value(at)];
    struct profile_fn *n = realloc(t->fns, (t->n + 1) * sizeof(*n));
    if (!n)
        return NULL;
    t->fns = n;
    t->fns[t->n] = (struct profile_fn){symbol, module, 0, {0}, json_object()};
    json_object_set_new(t->index, key, json_integer((json_int_t)t->n));
    return &t->fns[t->n++];
}

static int by_self(const void *a, const void *b)
{
    const struct profile_fn *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    return strcmp(x->symbol, y->symbol);
}

/* The callers with the most samples, at most TOP_CALLERS. New reference. */
static json_t *top_callers(json_t *callers)
{
    json_t *out = json_array();
    for (int k = 0; k < TOP_CALLERS; k++) {
        const char *best = NULL, *name;
        json_int_t most = 0;
        json_t *v;
        json_object_foreach(callers, name, v)
        {
            if (json_integer_value(v) > most) {
                most = json_integer_value(v);
                best = name;
            }
        }
        if (!best)
            break;
        json_array_append_new(out, json_pack("{s:s, s:I}", "symbol", best, "samples", most));
        json_object_set_new(callers, best, json_integer(0));
    }
    return out;
}

/* Sums the counts per function (and per caller of each). */
static void sum_functions(const struct pagg *a, struct psym *s, struct fntab *t)
{
    for (size_t i = 0; i < a->cap; i++) {
        const struct pagg_entry *e = &a->slots[i];
        if (!e->count)
            continue;
        const char *sym, *mod, *csym, *cmod;
        psym_lookup(s, e->ip, e->pid, &sym, &mod);
        struct profile_fn *f = fn_of(t, sym, mod);
        if (!f)
            continue;
        f->self += e->count;
        const uint64_t *v = pagg_vals(a, i);
        for (int k = 0; v && k < a->nval; k++)
            f->counts[k] += v[k];
        if (!e->caller)
            continue;
        psym_lookup(s, e->caller, e->pid, &csym, &cmod);
        json_t *c = json_object_get(f->callers, csym);
        json_object_set_new(f->callers, csym,
                            json_integer((c ? json_integer_value(c) : 0) + e->count));
    }
}

/*
 * A name as the full list keys it: at most FULL_NAME_MAX bytes, cut on a
 * UTF-8 character boundary so that the key stays valid JSON text.
 */
static void full_key(const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    if (n > FULL_NAME_MAX) {
        n = FULL_NAME_MAX;
        while (n && ((unsigned char)name[n] & 0xC0) == 0x80)
            n--;
    }
    if (n >= len)
        n = len - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

/*
 * Adds n samples of (mod, sym) to mods, creating the module's object.
 * Returns false when jansson refuses (a name that is not UTF-8, or out of
 * memory): the caller counts the function as omitted.
 */
static bool full_add(json_t *mods, const char *mod, const char *sym, json_int_t n)
{
    json_t *m = json_object_get(mods, mod);
    if (!m && (json_object_set_new(mods, mod, json_object()) || !(m = json_object_get(mods, mod))))
        return false;
    json_t *had = json_object_get(m, sym);
    return !json_object_set_new(m, sym, json_integer(n + (had ? json_integer_value(had) : 0)));
}

/* The full list (profile_priv.h). */
json_t *profile_full_json(const struct profile_fn *fns, size_t n)
{
    json_t *mods = json_object();
    size_t bytes = 0, omitted = 0;
    json_int_t omitted_samples = 0;
    bool over = false;
    for (size_t i = 0; mods && i < n; i++) {
        const struct profile_fn *f = &fns[i];
        char sym[FULL_NAME_MAX + 1], mod[FULL_NAME_MAX + 1];
        full_key(f->symbol, sym, sizeof(sym));
        full_key(f->module, mod, sizeof(mod));
        /* Quotes, the colon, a count, indentation and a new line in an indented document. */
        size_t cost = strlen(sym) + 24 + (json_object_get(mods, mod) ? 0 : strlen(mod) + 24);
        over |= bytes + cost > PROFILE_FULL_BYTES;
        if (over || !full_add(mods, mod, sym, (json_int_t)f->self)) {
            omitted_samples += (json_int_t)f->self;
            omitted++;
            continue;
        }
        bytes += cost;
    }
    if (!mods)
        return NULL;
    return json_pack("{s:o, s:I, s:I}", "functions", mods, "omitted_functions", (json_int_t)omitted,
                     "omitted_samples", omitted_samples);
}

/*
 * What the profile's scope sampled: the scope, the idle task's samples and
 * their share of the CPU-wide events' (null without them), and in the
 * test's scope the other tasks' softirq samples kept and other samples left
 * out, and what the scope lacks (note, or null).
 */
static void scope_json(const struct profile *p, json_t *o)
{
    json_object_set_new(o, "idle_samples", json_integer((json_int_t)p->idle));
    json_object_set_new(o, "idle_pct",
                        p->cpu_samples ? json_real(100.0 * (double)p->idle / (double)p->cpu_samples)
                                       : json_null());
    json_object_set_new(o, "kernel_work_samples", json_integer((json_int_t)p->kernel_work));
    json_object_set_new(o, "other_samples", json_integer((json_int_t)p->other));
    json_object_set_new(o, "note", p->note[0] ? json_string(p->note) : json_null());
}

json_t *profile_json(struct profile *p, int top)
{
    json_t *o = json_pack("{s:s, s:i, s:s}", "event", profile_event_name(p->ev), "frequency",
                          (int)p->freq, "scope", profile_scope_name(p->scope));
    json_t *cpus = json_array();
    for (int i = 0; i < p->ncpus; i++)
        json_array_append_new(cpus, json_integer(p->cpu[i]));
    json_object_set_new(o, "cpus", cpus);
    if (p->why[0]) {
        json_object_set_new(o, "why", json_string(p->why));
        return o;
    }
    struct psym *s = &p->sym;
    struct fntab t = {json_object(), NULL, 0};
    sum_functions(&p->agg, s, &t);
    qsort(t.fns, t.n, sizeof(*t.fns), by_self);
    double seconds = (double)p->sampled_ns / 1e9;
    /* The test's threads sample while they run: about frequency x their CPU time. */
    double expected = p->scope == PROFILE_SCOPE_TEST ? (double)p->cpu_time_ns / 1e9 * p->freq
                                                     : seconds * p->freq * p->ncpus;
    json_object_set_new(o, "seconds", json_real(seconds));
    json_object_set_new(o, "monotonic_start", json_real((double)p->enabled_ns / 1e9));
    json_object_set_new(o, "samples", json_integer((json_int_t)p->agg.samples));
    json_object_set_new(o, "expected_samples", json_real(expected));
    json_object_set_new(o, "lost", json_integer((json_int_t)p->lost));
    json_object_set_new(o, "unattributed", json_integer((json_int_t)p->agg.unattributed));
    json_object_set_new(o, "distinct_functions", json_integer((json_int_t)t.n));
    scope_json(p, o);
    /* A group's counts of the profile's samples: what its functions' shares are of. */
    uint64_t attributed[PROFILE_MAX_EVENTS] = {0};
    for (size_t i = 0; i < t.n; i++)
        for (int k = 0; k < p->agg.nval; k++)
            attributed[k] += t.fns[i].counts[k];
    if (p->grp.nev > 1)
        json_object_set_new(o, "group", profile_group_json(p, attributed));
    json_t *fns = json_array();
    for (size_t i = 0; i < t.n && (int)i < top; i++) {
        const struct profile_fn *f = &t.fns[i];
        double share = p->agg.samples ? 100.0 * (double)f->self / (double)p->agg.samples : 0;
        json_t *fo = json_pack("{s:s, s:s, s:I, s:f, s:o}", "symbol", f->symbol, "module",
                               f->module, "samples", (json_int_t)f->self, "share_pct", share,
                               "callers", top_callers(f->callers));
        if (fo && p->grp.nev > 1)
            profile_group_fn_json(p, f->counts, attributed, fo);
        json_array_append_new(fns, fo);
    }
    json_object_set_new(o, "functions", fns);
    json_t *full = profile_full_json(t.fns, t.n);
    if (full)
        json_object_set_new(o, "full", full);
    for (size_t i = 0; i < t.n; i++)
        json_decref(t.fns[i].callers);
    free(t.fns);
    json_decref(t.index);
    return o;
}
