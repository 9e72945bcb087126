/* The computation of a differential profile (profdiff.h); profdiff_render.c prints it. */
#include "profdiff/profdiff.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sample.h"

/* All functions seen in either group: "module\tsymbol" -> index; shares per run. */
struct table {
    json_t *index;
    struct fn {
        char *symbol, *module;
        double *share; /* [nb + no], 0 where the run does not list it */
        size_t seen_base, seen_other;
        /* A group's figures from the runs' top functions, per side (0 base, 1 other). */
        double counts[2][PROFDIFF_MAX_EVENTS], shares[2][PROFDIFF_MAX_EVENTS];
        size_t listed[2];
    } * fns;
    size_t n;
    size_t nruns;
    int nev; /* the group's events (0: none, -1: the runs' groups differ) */
    char ev[PROFDIFF_MAX_EVENTS][32];
};

static bool usable(const json_t *p)
{
    return json_is_object(p) && json_is_array(json_object_get(p, "functions"));
}

static struct fn *fn_of(struct table *t, const char *sym, const char *mod)
{
    char key[1100];
    snprintf(key, sizeof(key), "%s\t%s", mod, sym);
    json_t *at = json_object_get(t->index, key);
    if (at)
        return &t->fns[json_integer_value(at)];
    struct fn *n = realloc(t->fns, (t->n + 1) * sizeof(*n));
    if (!n)
        return NULL;
    t->fns = n;
    struct fn *f = &t->fns[t->n];
    *f = (struct fn){
        .symbol = strdup(sym), .module = strdup(mod), .share = calloc(t->nruns, sizeof(double))};
    if (!f->symbol || !f->module || !f->share) {
        free(f->symbol);
        free(f->module);
        free(f->share);
        return NULL;
    }
    json_object_set_new(t->index, key, json_integer((json_int_t)t->n++));
    return f;
}

/* Counts one listed share of run i for (sym, mod). Returns 0 or -ENOMEM. */
static int add_share(struct table *t, const char *sym, const char *mod, double share, size_t i,
                     bool is_base)
{
    struct fn *x = fn_of(t, sym, mod);
    if (!x)
        return -ENOMEM;
    x->share[i] += share;
    if (is_base)
        x->seen_base++;
    else
        x->seen_other++;
    return 0;
}

/*
 * Adds a run's full list ("full": {module: {symbol: samples}}): every
 * function with its exact share. Only what the list's byte budget left out
 * is unknown, each below the smallest share listed; *least gets that share
 * then, and 0 when nothing was left out.
 */
static int add_full(struct table *t, const json_t *p, size_t i, bool is_base, double *least)
{
    const json_t *full = json_object_get(p, "full");
    double total = (double)json_integer_value(json_object_get(p, "samples"));
    const char *mod, *sym;
    json_t *m, *n;
    double low = INFINITY;
    json_object_foreach((json_t *)json_object_get(full, "functions"), mod, m){json_object_foreach(
        m, sym, n){double share = total > 0 ? 100.0 * (double)json_integer_value(n) / total : 0;
    int rc = add_share(t, sym, mod, share, i, is_base);
    if (rc)
        return rc;
    if (share < low)
        low = share;
}
}
*least = json_integer_value(json_object_get(full, "omitted_functions")) > 0 ? low : 0;
return 0;
}

/*
 * Adds run number i (in base when is_base) to the table, from its full list
 * when it has one, else from its top functions; raises *floor_pct to the
 * largest share a function could have and still be missing from the run.
 */
static int add_run(struct table *t, const json_t *p, size_t i, bool is_base, double *floor_pct)
{
    double least = 0;
    if (json_is_object(json_object_get(json_object_get(p, "full"), "functions"))) {
        int rc = add_full(t, p, i, is_base, &least);
        if (rc)
            return rc;
    } else {
        const json_t *fns = json_object_get(p, "functions");
        size_t k;
        json_t *f;
        double low = INFINITY;
        json_array_foreach(fns, k, f)
        {
            const char *sym = json_string_value(json_object_get(f, "symbol"));
            const char *mod = json_string_value(json_object_get(f, "module"));
            double share = json_number_value(json_object_get(f, "share_pct"));
            if (!sym || !mod)
                continue;
            int rc = add_share(t, sym, mod, share, i, is_base);
            if (rc)
                return rc;
            if (share < low)
                low = share;
        }
        /* A full top list's last entry bounds what was left out; a short one left nothing out. */
        least = json_array_size(fns) >= 30 ? low : 0;
    }
    if (isfinite(least) && least > *floor_pct)
        *floor_pct = least;
    return 0;
}

/*
 * Whether run p's group of events is the table's: the first run with a
 * group sets it, a run with another one (or none, when others have one)
 * leaves the comparison without group figures.
 */
static bool same_group(struct table *t, const json_t *p)
{
    const json_t *evs = json_object_get(json_object_get(p, "group"), "events");
    size_t n = json_array_size(evs);
    if (t->nev < 0 || n < 2 || n > PROFDIFF_MAX_EVENTS) {
        t->nev = -1;
        return false;
    }
    for (size_t k = 0; k < n; k++) {
        const char *name = json_string_value(json_array_get(evs, k));
        if (!name || (t->nev && strcmp(t->ev[k], name)))
            break;
        if (!t->nev)
            snprintf(t->ev[k], sizeof(t->ev[k]), "%s", name);
        if (k + 1 == n && (!t->nev || t->nev == (int)n)) {
            t->nev = (int)n;
            return true;
        }
    }
    t->nev = -1;
    return false;
}

/* Adds the group figures of run p's top functions (side 0 base, 1 other). */
static int add_group(struct table *t, const json_t *p, int side)
{
    if (!same_group(t, p))
        return 0;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(p, "functions"), i, f)
    {
        const char *sym = json_string_value(json_object_get(f, "symbol"));
        const char *mod = json_string_value(json_object_get(f, "module"));
        const json_t *c = json_object_get(f, "counts"), *sh = json_object_get(f, "shares_pct");
        if (!sym || !mod || json_array_size(c) != (size_t)t->nev)
            continue;
        struct fn *x = fn_of(t, sym, mod);
        if (!x)
            return -ENOMEM;
        x->listed[side]++;
        for (int k = 0; k < t->nev; k++) {
            x->counts[side][k] += json_number_value(json_array_get(c, (size_t)k));
            x->shares[side][k] += json_number_value(json_array_get(sh, (size_t)k));
        }
    }
    return 0;
}

/* The position of event name in the table's group, or -1. */
static int ev_pos(const struct table *t, const char *name)
{
    for (int k = 0; k < t->nev; k++)
        if (!strcmp(t->ev[k], name))
            return k;
    return -1;
}

/* num / den of side's summed counts times scale; NaN without either event or a count. */
static double count_ratio(const struct fn *f, int side, int num, int den, double scale)
{
    if (num < 0 || den < 0 || !f->listed[side] || f->counts[side][den] <= 0)
        return NAN;
    return scale * f->counts[side][num] / f->counts[side][den];
}

static void group_of(const struct table *t, const struct fn *f, struct profdiff_group *g)
{
    int cyc = ev_pos(t, "cycles"), ins = ev_pos(t, "instructions");
    int l1i = ev_pos(t, "L1-icache-load-misses");
    for (int side = 0; side < 2; side++) {
        for (int k = 0; k < PROFDIFF_MAX_EVENTS; k++)
            g->share[side][k] =
                f->listed[side] && k < t->nev ? f->shares[side][k] / (double)f->listed[side] : NAN;
        g->ipc[side] = count_ratio(f, side, ins, cyc, 1);
        g->l1i_mpki[side] = count_ratio(f, side, l1i, ins, 1000);
    }
}

static void welch_of(const double *a, size_t na, const double *b, size_t nb, double conf,
                     struct profdiff_row *r)
{
    struct stats_sample sa, sb;
    r->have_interval = false;
    if (na < 2 || nb < 2 || stats_sample_init(&sa, a, na))
        return;
    if (stats_sample_init(&sb, b, nb)) {
        stats_sample_free(&sa);
        return;
    }
    stats_welch(&sa, &sb, conf, &r->w);
    r->have_interval = isfinite(r->w.ci_low) && isfinite(r->w.ci_high);
    stats_sample_free(&sa);
    stats_sample_free(&sb);
}

static double mean(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return n ? s / (double)n : 0;
}

/* Largest change first: appeared/vanished by the share they have, changed by |diff|. */
static int by_size(const void *a, const void *b)
{
    const struct profdiff_row *x = a, *y = b;
    double dx = fabs(x->other_pct - x->base_pct), dy = fabs(y->other_pct - y->base_pct);
    if (x->verdict != 0 && y->verdict == 0)
        return -1;
    if (y->verdict != 0 && x->verdict == 0)
        return 1;
    return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->symbol, y->symbol);
}

static void row_of(const struct fn *f, size_t nb, size_t no, double conf, struct profdiff_row *r)
{
    r->symbol = f->symbol;
    r->module = f->module;
    r->base_pct = mean(f->share, nb);
    r->other_pct = mean(f->share + nb, no);
    welch_of(f->share, nb, f->share + nb, no, conf, r);
    if (!f->seen_base && 2 * f->seen_other >= no) {
        r->kind = PROFDIFF_APPEARED;
        r->verdict = 1;
    } else if (!f->seen_other && 2 * f->seen_base >= nb) {
        r->kind = PROFDIFF_VANISHED;
        r->verdict = -1;
    } else {
        r->kind = PROFDIFF_CHANGED;
        r->verdict = !r->have_interval ? 0 : r->w.ci_low > 0 ? 1 : r->w.ci_high < 0 ? -1 : 0;
    }
}

int profdiff_compute(const json_t *const *base, size_t nb, const json_t *const *other, size_t no,
                     double conf, size_t top, struct profdiff *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->conf = conf;
    const json_t **runs = calloc(nb + no + 1, sizeof(*runs));
    if (!runs)
        return -ENOMEM;
    for (size_t i = 0; i < nb; i++)
        if (usable(base[i]))
            runs[out->base_runs++] = base[i];
    for (size_t i = 0; i < no; i++)
        if (usable(other[i]))
            runs[out->base_runs + out->other_runs++] = other[i];
    if (!out->base_runs || !out->other_runs) {
        free(runs);
        return err_set(err, errlen, EINVAL, "no profiled run in the %s",
                       out->base_runs ? "other variant" : "baseline");
    }
    struct table t = {.index = json_object(), .nruns = out->base_runs + out->other_runs};
    int rc = t.index ? 0 : -ENOMEM;
    for (size_t i = 0; !rc && i < t.nruns; i++) {
        rc = add_run(&t, runs[i], i, i < out->base_runs, &out->floor_pct);
        if (!rc && json_object_get(runs[i], "group"))
            rc = add_group(&t, runs[i], i >= out->base_runs);
    }
    /* A run without the group beside runs with it: no group figures, as with another group. */
    for (size_t i = 0; t.nev > 0 && i < t.nruns; i++)
        if (!json_object_get(runs[i], "group"))
            t.nev = -1;
    if (t.nev > 1) {
        out->nev = t.nev;
        memcpy(out->ev, t.ev, sizeof(out->ev));
    }
    struct profdiff_row *rows = rc ? NULL : calloc(t.n ? t.n : 1, sizeof(*rows));
    if (!rc && !rows)
        rc = -ENOMEM;
    for (size_t i = 0; !rc && i < t.n; i++) {
        row_of(&t.fns[i], out->base_runs, out->other_runs, conf, &rows[i]);
        if (out->nev)
            group_of(&t, &t.fns[i], &rows[i].g);
    }
    if (!rc) {
        qsort(rows, t.n, sizeof(*rows), by_size);
        out->n = t.n < top ? t.n : top;
        /* The rows own their names from here on; the rest are freed with the table. */
        for (size_t i = 0; i < t.n; i++) {
            bool kept = false;
            for (size_t k = 0; k < out->n && !kept; k++)
                kept = rows[k].symbol == t.fns[i].symbol;
            if (!kept) {
                free(t.fns[i].symbol);
                free(t.fns[i].module);
            }
        }
        out->rows = rows;
    } else {
        for (size_t i = 0; i < t.n; i++) {
            free(t.fns[i].symbol);
            free(t.fns[i].module);
        }
        free(rows);
    }
    for (size_t i = 0; i < t.n; i++)
        free(t.fns[i].share);
    free(t.fns);
    json_decref(t.index);
    free(runs);
    return rc;
}

void profdiff_free(struct profdiff *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->rows[i].symbol);
        free(d->rows[i].module);
    }
    free(d->rows);
    memset(d, 0, sizeof(*d));
}
