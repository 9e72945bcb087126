/*
 * history_from_stores(): every successful measured run of the stores as a
 * record (when, experiment, variant, label, value), sorted by the
 * experiment's creation, then merged into one point per label run of each
 * variant.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/metrics.h"
#include "history/history.h"
#include "history/history_priv.h"
#include "judge/judge.h"
#include "store/store.h"

struct record {
    const char *when; /* borrowed from the experiment list */
    size_t db, order; /* store index, position of the run in its store */
    char *variant, *label;
    double value;
};

struct records {
    struct record *v;
    size_t n, cap;
};

int history_add_series(struct history *h, const char *variant, struct history_series **out)
{
    struct history_series *s = realloc(h->series, (h->n + 1) * sizeof(*s));
    if (!s)
        return -ENOMEM;
    h->series = s;
    s = &h->series[h->n];
    memset(s, 0, sizeof(*s));
    if (variant && !(s->variant = strdup(variant)))
        return -ENOMEM;
    h->n++;
    *out = s;
    return 0;
}

int history_add_point(struct history_series *s, const char *label, const char *when, double value,
                      size_t nruns)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct history_point *p = realloc(s->pts, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        s->pts = p;
        s->cap = cap;
    }
    struct history_point *p = &s->pts[s->n];
    p->label = strdup(label);
    p->when = when ? strdup(when) : NULL;
    p->value = value;
    p->nruns = nruns;
    if (!p->label || (when && !p->when)) {
        free(p->label);
        free(p->when);
        return -ENOMEM;
    }
    s->n++;
    return 0;
}

void history_free(struct history *h)
{
    for (size_t i = 0; i < h->n; i++) {
        for (size_t k = 0; k < h->series[i].n; k++) {
            free(h->series[i].pts[k].label);
            free(h->series[i].pts[k].when);
        }
        free(h->series[i].pts);
        free(h->series[i].variant);
    }
    free(h->series);
    h->series = NULL;
    h->n = 0;
}

/* The kernel a run measured: the remote end's (a DUT) when recorded, else the local one. */
static void kernel_of(const struct store_run *r, char *buf, size_t len)
{
    json_t *id = r->identity_remote ? json_loads(r->identity_remote, 0, NULL) : NULL;
    json_t *env = !id && r->env_json ? json_loads(r->env_json, 0, NULL) : NULL;
    const char *k = id ? json_string_value(json_object_get(id, "release"))
                       : json_string_value(json_object_get(env, "kernel"));
    snprintf(buf, len, "%s", k ? k : "unknown kernel");
    json_decref(id);
    json_decref(env);
}

/* A point's label for run r of experiment x in store db (of ndb). */
static void label_of(const struct store_experiment *x, const struct store_run *r, size_t db,
                     size_t ndb, enum history_by by, char *buf, size_t len)
{
    char hash[41];
    int64_t s;
    int k;
    if (by == HISTORY_BY_KERNEL) {
        kernel_of(r, buf, len);
    } else if (by == HISTORY_BY_COMMIT) {
        /* A bisection's step names its commit; any other experiment is its own name. */
        if (sscanf(x->name, "bisect %" SCNd64 " step %d %40s", &s, &k, hash) == 3)
            snprintf(buf, len, "%.12s", hash);
        else
            snprintf(buf, len, "%s", x->name);
    } else if (ndb > 1) {
        snprintf(buf, len, "db%zu#%" PRId64 " %s", db + 1, x->id, x->name);
    } else {
        snprintf(buf, len, "#%" PRId64 " %s", x->id, x->name);
    }
}

static int add_record(struct records *rs, const struct record *r)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 256;
        struct record *v = realloc(rs->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        rs->v = v;
        rs->cap = cap;
    }
    rs->v[rs->n++] = *r;
    return 0;
}

/*
 * Records of every successful measured run of experiment x that has the
 * metric at path; with path NULL, the deciding figure of each run's test kind
 * (judge_decider()), which must be the same for every run: *decider holds it
 * (NULL before the first run), and -EINVAL says when two differ.
 */
static int experiment_records(struct store *st, const struct store_experiment *x, size_t db,
                              size_t ndb, enum history_by by, const char *path, const char *variant,
                              const struct metric **decider, struct records *rs, char *err,
                              size_t errlen)
{
    struct store_run *runs = NULL;
    size_t n = 0;
    int rc = store_run_list(st, x->id, true, &runs, &n, err, errlen);
    for (size_t i = 0; !rc && i < n; i++) {
        const struct store_run *r = &runs[i];
        char why[NB_ERRLEN], label[256];
        double v;
        if (r->status != STORE_RUN_OK || (r->has_plan && r->warmup) || !r->variant ||
            (variant && strcmp(variant, r->variant)) || !r->result_json)
            continue;
        json_t *doc = json_loads(r->result_json, 0, NULL);
        const struct metric *d = NULL;
        if (!path) {
            /* No --metric: the judgement's deciding figure of the run's test kind. */
            d = judge_decider_of_test(
                json_string_value(json_object_get(json_object_get(doc, "test"), "test")));
            if (*decider && *decider != d)
                rc = err_set(err, errlen, EINVAL,
                             "the runs are judged on different figures (%s, %s): name one with "
                             "--metric",
                             (*decider)->name, d->name);
            *decider = d;
        }
        int mrc = rc || !doc
                      ? -EINVAL
                      : compare_metric_from_doc(doc, path ? path : d->path, &v, why, sizeof(why));
        json_decref(doc);
        if (mrc)
            continue;
        label_of(x, r, db, ndb, by, label, sizeof(label));
        struct record rec = {.when = x->created,
                             .db = db,
                             .order = rs->n,
                             .variant = strdup(r->variant),
                             .label = strdup(label),
                             .value = v};
        if (!rec.variant || !rec.label || add_record(rs, &rec)) {
            free(rec.variant);
            free(rec.label);
            rc = err_set(err, errlen, ENOMEM, "out of memory");
        }
    }
    store_run_list_free(runs, n);
    return rc;
}

/* Time order: the experiment's creation, then the store, then the order read. */
static int cmp_record(const void *pa, const void *pb)
{
    const struct record *a = pa, *b = pb;
    int c = strcmp(a->when, b->when);
    if (c)
        return c;
    if (a->db != b->db)
        return a->db < b->db ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* One series per variant (in order of first appearance), a point per run of equal labels. */
static int build_series(struct history *h, struct records *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        struct history_series *s = NULL;
        for (size_t k = 0; k < h->n && !s; k++)
            if (!strcmp(h->series[k].variant, rs->v[i].variant))
                s = &h->series[k];
        if (!s && history_add_series(h, rs->v[i].variant, &s))
            return -ENOMEM;
        struct history_point *last = s->n ? &s->pts[s->n - 1] : NULL;
        if (last && !strcmp(last->label, rs->v[i].label)) {
            /* A running mean keeps the point's value the mean of its runs. */
            last->nruns++;
            last->value += (rs->v[i].value - last->value) / (double)last->nruns;
        } else if (history_add_point(s, rs->v[i].label, rs->v[i].when, rs->v[i].value, 1)) {
            return -ENOMEM;
        }
    }
    return 0;
}

int history_from_stores(const char *const *dbs, size_t ndb, const char *metric, const char *variant,
                        enum history_by by, struct history *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    char def[PATH_MAX];
    const char *one[] = {def};
    if (!ndb) {
        int drc = store_default_path(NULL, def, sizeof(def), err, errlen);
        if (drc)
            return drc;
        dbs = one;
        ndb = 1;
    }
    const struct compare_metric *m = metric ? compare_metric_find(metric) : NULL;
    const struct metric *decider = NULL;
    const char *path = m ? m->path : metric;
    struct records rs = {0};
    struct store **st = calloc(ndb, sizeof(*st));
    struct store_experiment **xs = calloc(ndb, sizeof(*xs));
    size_t *nx = calloc(ndb, sizeof(*nx));
    int rc = st && xs && nx ? 0 : err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t d = 0; !rc && d < ndb; d++) {
        rc = store_open(dbs[d], STORE_OPEN_READONLY, &st[d], err, errlen);
        if (!rc)
            rc = store_experiment_list(st[d], &xs[d], &nx[d], err, errlen);
        for (size_t i = 0; !rc && i < nx[d]; i++)
            rc = experiment_records(st[d], &xs[d][i], d, ndb, by, path, variant, &decider, &rs, err,
                                    errlen);
    }
    /* Without --metric, the deciding figure the runs share (throughput when there are none). */
    if (!metric && !decider)
        decider = judge_decider(METRIC_UNKNOWN);
    snprintf(out->metric, sizeof(out->metric), "%s",
             decider ? decider->name
             : m     ? m->name
                     : metric);
    snprintf(out->unit, sizeof(out->unit), "%s", decider ? decider->unit : m ? m->unit : "");
    out->lower_is_better = decider ? decider->lower_is_better : m && m->lower_is_better;
    if (!rc) {
        if (rs.n)
            qsort(rs.v, rs.n, sizeof(*rs.v), cmp_record);
        if (build_series(out, &rs))
            rc = err_set(err, errlen, ENOMEM, "out of memory");
    }
    if (!rc && !out->n)
        rc = err_set(err, errlen, ENOENT, "no successful run%s%s%s has %s", variant ? " of '" : "",
                     variant ? variant : "", variant ? "'" : "", out->metric);
    for (size_t i = 0; i < rs.n; i++) {
        free(rs.v[i].variant);
        free(rs.v[i].label);
    }
    free(rs.v);
    for (size_t d = 0; d < ndb && st && xs && nx; d++) {
        store_experiment_list_free(xs[d], nx[d]);
        store_close(st[d]);
    }
    free(st);
    free(xs);
    free(nx);
    return rc;
}

const struct opt_choice history_by_choices[] = {
    {"experiment", HISTORY_BY_EXPERIMENT},
    {"commit", HISTORY_BY_COMMIT},
    {"kernel", HISTORY_BY_KERNEL},
    {NULL, 0},
};
