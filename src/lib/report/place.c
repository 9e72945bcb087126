/*
 * Which stored runs the campaign report counts and where
 * (place.h), and the command line each variant ran.
 */
#include "report/place.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/metric.h"
#include "util/redact.h"

/* Index of name in list[0..n-1], or -1. */
long creport_find_name(char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], name))
            return (long)i;
    return -1;
}

/* The plan row with this seq (plan is ordered by seq), or NULL. */
static const struct store_plan_row *plan_find(const struct store_plan_row *plan, size_t n, int seq)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (plan[mid].seq == seq)
            return &plan[mid];
        if (plan[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/*
 * The command line run ran: its argv_text when the store has one, else the
 * "argv" its step recorded in params_json, words single-quoted where a shell
 * would split them; passwords of database URLs removed (util/redact). NULL
 * when neither is there or out of memory; caller has ownership.
 */
static char *run_command(const struct creport_rundoc *d)
{
    const struct store_run *run = d->run;
    /* Stores older than redaction may hold a --db URL's password: it never reaches a report. */
    if (run->argv_text && run->argv_text[0])
        return redact_text(run->argv_text);
    json_t *argv = json_object_get(d->params, "argv");
    size_t n = json_array_size(argv);
    const char **words = n ? calloc(n, sizeof(*words)) : NULL;
    char *out = NULL;
    if (words) {
        for (size_t i = 0; i < n; i++)
            words[i] = json_string_value(json_array_get(argv, i));
        out = redact_command(words, n);
    }
    free(words);
    return out;
}

/*
 * Adds run (variant v, cell c) to r's run list with every metric's value,
 * and keeps the argv of each variant's first measured run for the
 * commands to reproduce. Returns 0 or -ENOMEM.
 */
static int list_run(struct creport *r, const struct creport_rundoc *d, size_t v, size_t c,
                    bool warmup)
{
    const struct store_run *run = d->run;
    struct creport_run *x = &r->runlist[r->nrunlist];
    if (!(x->values = malloc(r->nmetrics * sizeof(double))))
        return -ENOMEM;
    r->nrunlist++;
    *x = (struct creport_run){run->seq, v, c, warmup, x->values};
    for (size_t m = 0; m < r->nmetrics; m++)
        x->values[m] = creport_metric_value(&r->metrics[m], run, d->result);
    if (!warmup && !r->commands[v])
        r->commands[v] = run_command(d);
    return 0;
}

/* The variant and cell of plan row pr, or false when the report does not know them. */
static bool locate(const struct creport *r, const struct store_plan_row *pr, size_t *v, size_t *c)
{
    long vi = creport_find_name(r->variants, r->nvariants, pr->variant ? pr->variant : "");
    long ci = -1;
    for (size_t i = 0; i < r->ncells; i++)
        if (!strcmp(r->cells[i].name, pr->cell ? pr->cell : ""))
            ci = (long)i;
    if (vi < 0 || ci < 0)
        return false;
    *v = (size_t)vi;
    *c = (size_t)ci;
    return true;
}

/*
 * A failed run of a measured slot into its variant's and cell's failure
 * record (the latest one's reason is kept: runs are listed in run order).
 */
static void count_failure(struct creport *r, const struct store_plan_row *plan, size_t nplan,
                          const struct store_run *run)
{
    const struct store_plan_row *pr = plan_find(plan, nplan, run->seq);
    size_t v, c;
    if (!pr || pr->warmup || !locate(r, pr, &v, &c))
        return;
    struct creport_fail *f = &r->fails[v * r->ncells + c];
    f->failed++;
    creport_fail_reason(run->error, f->reason, sizeof(f->reason), f->short_reason,
                        sizeof(f->short_reason));
}

/*
 * Which runs count, where: every ok run of the plan goes to r's run list
 * (warm-ups too) and, when measured and in a known variant and cell, to
 * *out (caller frees); failed, interrupted and running attempts are
 * counted in r->runs. Returns 0 or -ENOMEM.
 */
int creport_place_runs(struct creport *r, const struct store_plan_row *plan, size_t nplan,
                       const struct creport_rundoc *runs, size_t nruns, struct creport_placed **out,
                       size_t *nout)
{
    struct creport_placed *p = calloc(nruns ? nruns : 1, sizeof(*p));
    bool *taken = calloc(nplan ? nplan : 1, sizeof(*taken));
    size_t nvc = r->nvariants * r->ncells;
    r->fails = calloc(nvc ? nvc : 1, sizeof(*r->fails));
    r->runlist = calloc(nruns ? nruns : 1, sizeof(*r->runlist));
    r->commands = calloc(r->nvariants ? r->nvariants : 1, sizeof(char *));
    size_t n = 0, v, c;
    int e = (p && taken && r->runlist && r->commands && r->fails) ? 0 : -ENOMEM;
    for (size_t k = 0; !e && k < nruns; k++) {
        const struct store_run *run = runs[k].run;
        switch (run->status) {
        case STORE_RUN_FAILED:
            r->runs.failed++;
            count_failure(r, plan, nplan, run);
            continue;
        case STORE_RUN_INTERRUPTED:
            r->runs.interrupted++;
            continue;
        case STORE_RUN_RUNNING:
            r->runs.running++;
            continue;
        case STORE_RUN_OK:
            break;
        }
        const struct store_plan_row *pr = plan_find(plan, nplan, run->seq);
        if (!pr || taken[pr - plan])
            continue;
        taken[pr - plan] = true;
        bool known = locate(r, pr, &v, &c);
        if (known)
            e = list_run(r, &runs[k], v, c, pr->warmup);
        if (pr->warmup) {
            r->runs.warmup++;
            continue;
        }
        if (!known)
            continue;
        p[n++] = (struct creport_placed){&runs[k], v, c, r->nrunlist - 1};
        r->fails[v * r->ncells + c].ok++;
        r->runs.measured++;
    }
    free(taken);
    if (e) {
        free(p);
        return e;
    }
    *out = p;
    *nout = n;
    return 0;
}

/* Fills each cell's test from its first measured run that names one. */
int creport_find_tests(struct creport *r, const struct creport_placed *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        struct creport_cell *cell = &r->cells[p[k].c];
        if (cell->test || !p[k].doc->test)
            continue;
        if (!(cell->test = strdup(p[k].doc->test)))
            return -ENOMEM;
    }
    for (size_t c = 0; c < r->ncells; c++) {
        if (!r->cells[c].test && !(r->cells[c].test = strdup("")))
            return -ENOMEM;
        r->cells[c].test_kind = creport_test_kind(r->cells[c].test[0] ? r->cells[c].test : NULL);
    }
    return 0;
}
