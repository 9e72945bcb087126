/*
 * What `netab experiment validate` prints of a valid file: the campaign it
 * plans (variants, cells, runs, duration, seed, order, DUTs), and the
 * errors of one that is not.
 */
#include <stdio.h>
#include <string.h>

#include "experiment/summary.h"

void experiment_errors_print(FILE *out, const char *path, const struct exp_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        const struct exp_error *e = &errs->v[i];
        if (e->line > 0)
            fprintf(out, "%s:%d:%d: %s\n", path, e->line, e->col, e->msg);
        else
            fprintf(out, "%s: %s\n", path, e->msg);
    }
    if (errs->dropped)
        fprintf(out, "%s: ... and %zu more errors\n", path, errs->dropped);
}

int experiment_load_print(const char *path, struct experiment **e, FILE *out)
{
    struct exp_errors errs = {0};
    int rc = experiment_load(path, e, &errs);
    if (rc) {
        experiment_errors_print(out, path, &errs);
        if (!errs.n)
            fprintf(out, "%s: %s\n", path, strerror(-rc));
    }
    exp_errors_free(&errs);
    return rc;
}

/* "1h 02m 03s", "2m 03s" or "3s": the campaign's estimated length. */
static void format_duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh %02ldm %02lds", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm %02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

/*
 * factors: the design the report will analyse, "2 x 2: pick (without, with)
 * x align (default, 64)": each factor's levels in variant order, so the
 * first is the baseline's (loading ensured two factors of two levels).
 */
static void print_design(FILE *out, const struct experiment *e)
{
    const struct exp_variant *v0 = &e->variants[0];
    fprintf(out, "design:       2 x 2:");
    for (size_t k = 0; k < v0->nfactors; k++) {
        const char *first = v0->factors[k].level, *second = NULL;
        for (size_t i = 1; i < e->nvariants && !second; i++)
            for (size_t j = 0; j < e->variants[i].nfactors; j++)
                if (!strcmp(e->variants[i].factors[j].name, v0->factors[k].name) &&
                    strcmp(e->variants[i].factors[j].level, first))
                    second = e->variants[i].factors[j].level;
        fprintf(out, "%s %s (%s, %s)", k ? " x" : "", v0->factors[k].name, first,
                second ? second : "?");
    }
    fprintf(out, " over the variants; main effects and interaction in the report\n");
}

void experiment_summary_print(FILE *out, const char *path, const struct experiment *e)
{
    struct exp_plan plan;
    char dur[64];
    experiment_plan(e, &plan);
    format_duration(plan.seconds, dur, sizeof(dur));
    fprintf(out, "%s: valid\n", path);
    fprintf(out, "experiment:   %s\n", e->name);
    fprintf(out, "variants:     %zu (", e->nvariants);
    for (size_t i = 0; i < e->nvariants; i++)
        fprintf(out, "%s%s", i ? ", " : "", e->variants[i].name);
    fprintf(out, ")\n");
    fprintf(out, "matrix cells: %zu", plan.cells);
    for (size_t a = 0; a < e->naxes; a++)
        fprintf(out, "%s%s[%zu]", a ? " x " : " (", e->axes[a].key->name, e->axes[a].nvalues);
    fprintf(out, "%s\n", e->naxes ? ")" : "");
    if (e->nvariants && e->variants[0].nfactors)
        print_design(out, e);
    fprintf(out, "runs:         %zu = (%ld runs + %ld warm-up) x %zu variants x %zu cells\n",
            plan.runs, e->runs, e->warmup, e->nvariants, plan.cells);
    fprintf(out, "duration:     %s%s (time + omit + cooldown %.3g s per run)\n",
            plan.lower_bound ? "at least " : "about ", dur, e->cooldown);
    if (e->has_seed)
        fprintf(out, "seed:         %llu\n", (unsigned long long)e->seed);
    else
        fprintf(out, "seed:         none (a run picks one and records it)\n");
    if (e->order == EXP_ORDER_BLOCKED)
        fprintf(
            out,
            "order:        blocked (warning: drift over time is confounded with the variant)\n");
    if (e->named_duts) {
        fprintf(out, "duts:         %zu (", e->nduts);
        for (size_t i = 0; i < e->nduts; i++)
            fprintf(out, "%s%s = %s", i ? ", " : "", e->duts[i].name, e->duts[i].ssh);
        fprintf(out, ") over ssh; each run's identity checked on its own DUT; %s\n",
                e->parallel_duts ? "parallel: the DUTs' runs at the same time"
                                 : "one run at a time");
    } else if (e->dut)
        fprintf(out,
                "dut:          %s over ssh; runs target %s; its identity is checked before each "
                "run and it boots the run's variant when it does not match%s\n",
                e->dut->ssh, e->dut->server ? e->dut->server : "its ssh host",
                e->reset == EXP_RESET_REBOOT ? " (reset: reboot: a boot before every run)" : "");
}
