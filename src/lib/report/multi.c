/*
 * Several experiments in one report (multi.h): their plans
 * and runs are put together as one plan, each plan row's variant replaced
 * by its group's label and its seq moved past the experiments before it,
 * and handed to creport_build_docs() with the runs' documents parsed once,
 * so that every statistic, figure and printer works on them unchanged.
 */
#include "report/multi.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/codelayout.h"
#include "report/hotplace.h"
#include "report/rundoc.h"
#include "metric/spec.h"
#include "util/optval.h"
#include "util/jsonout.h"

/* One experiment as read from the store. */
struct source {
    struct store_experiment x;
    char *spec;
    struct store_plan_row *plan;
    size_t nplan;
    struct store_run *runs;
    size_t nruns;
    struct creport_rundoc *docs; /* [nruns]: the runs' documents, parsed once */
    size_t nvariants;            /* distinct variants in its plan */
    char **labels;               /* [nplan]: the label of each plan row */
    char **builds;               /* [nplan]: --label kernel: each row's build ID prefix, or NULL */
};

const struct opt_choice creport_label_choices[] = {
    {"variant", CREPORT_LABEL_VARIANT},
    {"experiment", CREPORT_LABEL_EXPERIMENT},
    {"kernel", CREPORT_LABEL_KERNEL},
    {NULL, 0},
};

static void source_free(struct source *s)
{
    for (size_t i = 0; s->labels && i < s->nplan; i++)
        free(s->labels[i]);
    free(s->labels);
    for (size_t i = 0; s->builds && i < s->nplan; i++)
        free(s->builds[i]);
    free(s->builds);
    creport_rundocs_free(s->docs, s->nruns);
    store_run_list_free(s->runs, s->nruns);
    store_plan_list_free(s->plan, s->nplan);
    store_experiment_free(&s->x);
    free(s->spec);
}

static int source_load(struct store *db, int64_t id, struct source *s, char *err, size_t errlen)
{
    int e = store_experiment_get(db, id, &s->x, &s->spec, NULL, err, errlen);
    if (!e)
        e = store_plan_list(db, id, &s->plan, &s->nplan, err, errlen);
    if (!e)
        e = store_run_list(db, id, true, &s->runs, &s->nruns, err, errlen);
    if (!e && creport_rundocs_parse(s->runs, s->nruns, &s->docs))
        e = err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; !e && i < s->nplan; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(s->plan[i].variant, s->plan[j].variant);
        s->nvariants += !seen;
    }
    return e;
}

/* The label of plan row pr of s before clashes are resolved; NULL when out of memory. */
static char *raw_label(const struct source *s, const struct store_plan_row *pr,
                       enum creport_label label)
{
    char *base = NULL, *out = NULL;
    if (label == CREPORT_LABEL_VARIANT)
        return strdup(pr->variant);
    if (label == CREPORT_LABEL_EXPERIMENT)
        base = strdup(s->x.name && *s->x.name ? s->x.name : "experiment");
    for (size_t k = 0; label == CREPORT_LABEL_KERNEL && !base && k < s->nruns; k++)
        if (s->runs[k].seq == pr->seq && s->docs[k].kernel)
            base = strdup(s->docs[k].kernel);
    if (!base)
        return strdup(pr->variant);
    if (s->nvariants < 2)
        return base;
    if (asprintf(&out, "%s/%s", base, pr->variant) < 0)
        out = NULL;
    free(base);
    return out;
}

/* True when another experiment than src[i] gives some row the label l. */
static bool clashes(const struct source *src, size_t n, size_t i, const char *l)
{
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; j != i && k < src[j].nplan; k++)
            if (!strcmp(src[j].labels[k], l))
                return true;
    return false;
}

/*
 * The first 12 hex digits of the kernel build ID in the environment capture
 * of the run of plan row k of s, or NULL.
 */
static char *row_build_id(const struct source *s, size_t k)
{
    for (size_t j = 0; j < s->nruns; j++)
        if (s->runs[j].seq == s->plan[k].seq)
            return s->docs[j].build_id ? strndup(s->docs[j].build_id, 12) : NULL;
    return NULL;
}

/* True when every plan row labelled l, in any experiment, has a known build ID. */
static bool builds_known(const struct source *src, size_t n, const char *l)
{
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < src[j].nplan; k++) {
            if (strcmp(src[j].labels[k], l))
                continue;
            if (!src[j].builds[k])
                return false;
        }
    return true;
}

/*
 * Appends a suffix to every label that another experiment shares: with
 * `kernel` labels first the build ID ("6.1.0@3f2a9c01d4e5", since one
 * release often hides several builds) where every row of that label has
 * one, then, where labels still clash, "#ID". Clashes are decided on the labels before each round.
 */
static int resolve_clashes(struct source *src, size_t n, bool by_build)
{
    bool **mark = calloc(n, sizeof(*mark));
    int e = mark ? 0 : -ENOMEM;
    for (size_t i = 0; !e && i < n; i++) {
        if (!(mark[i] = calloc(src[i].nplan ? src[i].nplan : 1, sizeof(bool))))
            e = -ENOMEM;
        for (size_t k = 0; !e && k < src[i].nplan; k++)
            mark[i][k] = clashes(src, n, i, src[i].labels[k]) &&
                         (!by_build || builds_known(src, n, src[i].labels[k]));
    }
    for (size_t i = 0; !e && i < n; i++)
        for (size_t k = 0; !e && k < src[i].nplan; k++) {
            char *l = NULL;
            const char *b = by_build ? src[i].builds[k] : NULL;
            if (!mark[i][k])
                continue;
            if ((b ? asprintf(&l, "%s@%s", src[i].labels[k], b)
                   : asprintf(&l, "%s#%lld", src[i].labels[k], (long long)src[i].x.id)) < 0)
                e = -ENOMEM;
            else {
                free(src[i].labels[k]);
                src[i].labels[k] = l;
            }
        }
    for (size_t i = 0; mark && i < n; i++)
        free(mark[i]);
    free(mark);
    return e;
}

/* Every plan row's label, made unique across experiments (resolve_clashes()). */
static int label_rows(struct source *src, size_t n, enum creport_label label)
{
    for (size_t i = 0; i < n; i++) {
        if (!(src[i].labels = calloc(src[i].nplan ? src[i].nplan : 1, sizeof(char *))))
            return -ENOMEM;
        for (size_t k = 0; k < src[i].nplan; k++)
            if (!(src[i].labels[k] = raw_label(&src[i], &src[i].plan[k], label)))
                return -ENOMEM;
        if (label != CREPORT_LABEL_KERNEL)
            continue;
        /* Read once: resolve_clashes() asks for them for every pair of rows. */
        if (!(src[i].builds = calloc(src[i].nplan ? src[i].nplan : 1, sizeof(char *))))
            return -ENOMEM;
        for (size_t k = 0; k < src[i].nplan; k++)
            src[i].builds[k] = row_build_id(&src[i], k);
    }
    int e = label == CREPORT_LABEL_KERNEL ? resolve_clashes(src, n, true) : 0;
    return e ? e : resolve_clashes(src, n, false);
}

/* Appends {"name": name} to vs unless it is there. Returns 0 or -1. */
static int add_group(json_t *vs, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(
        vs, i, v) if (!strcmp(json_string_value(json_object_get(v, SPEC_NAME)), name)) return 0;
    return json_array_append_new(vs, json_pack("{s:s}", SPEC_NAME, name));
}

/* The labels of s's rows of variant name, in plan order, added to vs. */
static int add_variant_groups(json_t *vs, const struct source *s, const char *name)
{
    int e = 0;
    for (size_t k = 0; !e && k < s->nplan; k++)
        if (!strcmp(s->plan[k].variant, name))
            e = add_group(vs, s->labels[k]);
    return e;
}

/*
 * The order of the groups as a spec ({"variants": [{"name": label}]}): the
 * experiments in the order given, in each its spec's variants, then the
 * rest in plan order. The first group is the baseline. NULL when out of
 * memory; caller has ownership.
 */
static char *groups_spec(const struct source *src, size_t n)
{
    json_t *vs = json_array();
    int e = vs ? 0 : -1;
    for (size_t i = 0; !e && i < n; i++) {
        json_t *spec = spec_parse(src[i].spec);
        for (size_t j = 0; j < spec_variant_count(spec); j++) {
            const char *name = spec_variant_name(spec, j);
            if (name && !e)
                e = add_variant_groups(vs, &src[i], name);
        }
        json_decref(spec);
        for (size_t k = 0; !e && k < src[i].nplan; k++)
            e = add_group(vs, src[i].labels[k]);
    }
    json_t *doc = e ? NULL : json_pack("{s:O}", SPEC_VARIANTS, vs);
    char *s = doc ? jsonout_compact(doc) : NULL;
    json_decref(doc);
    json_decref(vs);
    return s;
}

/*
 * The merged plan and runs: seqs moved past the experiments before,
 * variants = labels; docs[k] is runs[k] with the documents src parsed.
 */
static int merge(const struct source *src, size_t n, struct store_plan_row **plan, size_t *nplan,
                 struct store_run **runs, struct creport_rundoc **docs, size_t *nruns)
{
    size_t np = 0, nr = 0;
    for (size_t i = 0; i < n; i++) {
        np += src[i].nplan;
        nr += src[i].nruns;
    }
    *plan = calloc(np ? np : 1, sizeof(**plan));
    *runs = calloc(nr ? nr : 1, sizeof(**runs));
    *docs = calloc(nr ? nr : 1, sizeof(**docs));
    if (!*plan || !*runs || !*docs)
        return -ENOMEM;
    int offset = 0;
    for (size_t i = 0; i < n; i++) {
        int top = 0;
        for (size_t k = 0; k < src[i].nplan; k++) {
            const struct store_plan_row *p = &src[i].plan[k];
            struct store_plan_row *q = &(*plan)[(*nplan)++];
            *q = (struct store_plan_row){p->seq + offset, strdup(src[i].labels[k]),
                                         p->cell ? strdup(p->cell) : NULL, p->warmup, p->round};
            if (!q->variant || (p->cell && !q->cell))
                return -ENOMEM;
            top = p->seq > top ? p->seq : top;
        }
        /* Shallow copies: the strings stay owned by src. */
        for (size_t k = 0; k < src[i].nruns; k++) {
            struct store_run *r = &(*runs)[*nruns];
            struct creport_rundoc *d = &(*docs)[(*nruns)++];
            *r = src[i].runs[k];
            r->seq += offset;
            *d = src[i].docs[k];
            d->run = r;
            top = src[i].runs[k].seq > top ? src[i].runs[k].seq : top;
        }
        offset += top;
    }
    return 0;
}

/* The merged experiment's name, e.g. "experiments 3, 5 by kernel". */
static char *merged_name(const struct source *src, size_t n, enum creport_label label)
{
    static const char *const names[] = {"variant", "experiment", "kernel"};
    size_t cap = 64 + n * 24;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t u = (size_t)snprintf(s, cap, "experiments ");
    for (size_t i = 0; i < n; i++)
        u += (size_t)snprintf(s + u, cap - u, "%s%lld", i ? ", " : "", (long long)src[i].x.id);
    snprintf(s + u, cap - u, " by %s", names[label]);
    return s;
}

/* Builds the report of the loaded sources. */
static int build(const struct source *src, size_t n, enum creport_label label,
                 const struct creport_opts *o, struct creport **out, char *err, size_t errlen)
{
    struct store_plan_row *plan = NULL;
    struct store_run *runs = NULL;
    struct creport_rundoc *docs = NULL;
    size_t nplan = 0, nruns = 0;
    char *spec = groups_spec(src, n), *name = merged_name(src, n, label);
    int e = spec && name ? merge(src, n, &plan, &nplan, &runs, &docs, &nruns) : -ENOMEM;
    bool done = true;
    for (size_t i = 0; i < n; i++)
        done &= src[i].x.status && !strcmp(src[i].x.status, "done");
    struct store_experiment x = src[0].x;
    x.name = name;
    x.status = done ? "done" : "unfinished";
    if (!e)
        e = creport_build_docs(&x, spec, plan, nplan, docs, nruns, o, out, err, errlen);
    else
        err_set(err, errlen, ENOMEM, "out of memory building the report");
    store_plan_list_free(plan, nplan);
    free(runs);
    free(docs);
    free(spec);
    free(name);
    return e;
}

int creport_load_many(struct store *db, const int64_t *ids, size_t n, enum creport_label label,
                      const struct creport_opts *o, struct creport **out, char *err, size_t errlen)
{
    *out = NULL;
    if (n == 0)
        return err_set(err, errlen, EINVAL, "which experiments?");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (ids[i] == ids[j])
                return err_set(err, errlen, EINVAL, "experiment %lld is listed twice",
                               (long long)ids[i]);
    struct source *src = calloc(n, sizeof(*src));
    if (!src)
        return err_set(err, errlen, ENOMEM, "out of memory");
    int e = 0;
    for (size_t i = 0; !e && i < n; i++)
        e = source_load(db, ids[i], &src[i], err, errlen);
    if (!e && (e = label_rows(src, n, label)))
        err_set(err, errlen, ENOMEM, "out of memory labelling the runs");
    if (!e)
        e = build(src, n, label, o, out, err, errlen);
    for (size_t i = 0; i < n; i++)
        source_free(&src[i]);
    free(src);
    return e;
}

int creport_ids_parse(const char *list, int64_t *ids, size_t max, size_t *n, char *err,
                      size_t errlen)
{
    char buf[1024], *save = NULL;
    if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
        return err_set(err, errlen, EINVAL, "--experiments: the list is too long");
    *n = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long id;
        if (!optval_int("--experiments", t, 1, INT64_MAX, &id, err, errlen))
            return -EINVAL;
        if (*n == max)
            return err_set(err, errlen, EINVAL, "--experiments: at most %zu experiments", max);
        ids[(*n)++] = id;
    }
    if (!*n)
        return err_set(err, errlen, EINVAL, "--experiments: no experiment id in '%s'", list);
    return 0;
}

int creport_open(const char *db, int64_t id, const int64_t *ids, size_t nids,
                 enum creport_label label, const struct creport_opts *o, struct creport **out,
                 char *err, size_t errlen)
{
    struct store *s = NULL;
    *out = NULL;
    int e = store_open_default(db, STORE_OPEN_READONLY, &s, err, errlen);
    if (!e && nids)
        e = creport_load_many(s, ids, nids, label, o, out, err, errlen);
    else if (!e)
        e = creport_load(s, id, o, out, err, errlen);
    store_close(s);
    if (!e && (creport_code_layout(*out) || creport_placement(*out, 64))) {
        creport_free(*out);
        *out = NULL;
        e = err_set(err, errlen, ENOMEM, "out of memory");
    }
    return e;
}
