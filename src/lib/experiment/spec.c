/*
 * Every run of an experiment as a parsed run specification: the check that
 * each variant's options make a valid `netab run` in every cell, and the
 * campaign's size and duration computed from the parsed values.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiment/exp_priv.h"
#include "runspec/run_spec.h"

/* True when the test: mapping or cell c sets a rate key (bitrate:). */
static bool exp_has_rate(const struct experiment *e, const struct exp_cell *c)
{
    for (size_t i = 0; i < e->ntest; i++)
        if (e->test[i].key->kind == EXP_RATE)
            return true;
    for (size_t i = 0; c && i < c->nkv; i++)
        if (c->kv[i].key->kind == EXP_RATE)
            return true;
    return false;
}

int experiment_run_spec(const struct experiment *e, const struct exp_variant *v,
                        const struct exp_cell *c, struct run_spec *spec, char ***argv, char *err,
                        size_t errlen)
{
    int argc;
    *argv = NULL;
    /*
     * First without bitrate: (the kind may come from the cell or the variant's
     * opts); a udp_stream run then gets it, any other kind never sees it.
     */
    int rc = exp_run_args(e, v, c, false, argv, &argc);
    char why[NB_ERRLEN];
    if (!rc && !run_spec_parse(argc, *argv, spec, why, sizeof(why)) &&
        spec->params.kind == TEST_UDP_STREAM && exp_has_rate(e, c)) {
        exp_argv_free(*argv);
        *argv = NULL;
        rc = exp_run_args(e, v, c, true, argv, &argc);
    }
    if (rc)
        return err_set(err, errlen, -rc, "variant '%s': %s", v->name,
                       rc == -ENOMEM ? "out of memory" : "its opts do not split into words");
    rc = run_spec_parse(argc, *argv, spec, why, sizeof(why));
    if (!rc && spec->help)
        rc = err_set(why, sizeof(why), EINVAL, "-h/--help is not a test option");
    if (rc) {
        exp_argv_free(*argv);
        *argv = NULL;
        if (c && c->nkv)
            return err_set(err, errlen, -rc, "variant '%s' in cell %s: %s", v->name, c->name, why);
        return err_set(err, errlen, -rc, "variant '%s': %s", v->name, why);
    }
    return 0;
}

int exp_check_runs(const struct experiment *e, struct exp_errors *errs)
{
    struct exp_cell *cells;
    size_t n;
    if (experiment_cells(e, &cells, &n))
        return -ENOMEM;
    int rc = 0;
    bool rate = false, udp = false; /* bitrate: somewhere; a udp_stream run that takes it */
    for (size_t j = 0; j < n; j++)
        rate = rate || exp_has_rate(e, &cells[j]);
    for (size_t i = 0; i < e->nvariants && rc != -ENOMEM; i++) {
        const struct exp_variant *v = &e->variants[i];
        /* One error per variant: the first cell it fails in says what is wrong. */
        for (size_t j = 0; j < n && !v->cmd; j++) {
            struct run_spec spec;
            char **argv, why[NB_ERRLEN];
            int e2 = experiment_run_spec(e, v, &cells[j], &spec, &argv, why, sizeof(why));
            exp_argv_free(argv);
            udp = udp || (!e2 && spec.params.kind == TEST_UDP_STREAM);
            if (e2 == -ENOMEM) {
                rc = e2;
                break;
            }
            if (e2) {
                exp_errors_add(errs, v->line, v->col, "%s", why);
                rc = -EINVAL;
                break;
            }
        }
    }
    /* A rate no run takes would be silently ignored: say so instead. */
    if (!rc && rate && !udp) {
        exp_errors_add(errs, 0, 0,
                       "bitrate: paces udp_stream runs only, and no run here is one (TCP sends "
                       "as fast as it can: limit it with tc, or window)");
        rc = -EINVAL;
    }
    exp_cells_free(cells, n);
    return rc;
}

void experiment_plan(const struct experiment *e, struct exp_plan *plan)
{
    struct exp_cell *cells = NULL;
    size_t n = 0;
    *plan = (struct exp_plan){.lower_bound = e->reset == EXP_RESET_REBOOT || e->nduts};
    if (experiment_cells(e, &cells, &n)) {
        plan->lower_bound = true;
        return;
    }
    plan->cells = n;
    plan->runs = (size_t)(e->runs + e->warmup) * e->nvariants * n;
    /* parallel: duts: the DUTs' runs overlap, so the campaign lasts as long as its longest DUT. */
    double *per_dut = e->parallel_duts ? calloc(e->nduts, sizeof(*per_dut)) : NULL;
    for (size_t i = 0; i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        if (v->setup || v->teardown)
            plan->lower_bound = true;
        for (size_t j = 0; j < n; j++) {
            struct run_spec spec;
            char **argv;
            double t = NAN;
            argv = NULL;
            if (!v->cmd && !experiment_run_spec(e, v, &cells[j], &spec, &argv, NULL, 0))
                t = run_spec_expected_seconds(&spec);
            exp_argv_free(argv);
            if (isnan(t)) { /* byte-bounded (or not a valid run): its time is unknown */
                plan->lower_bound = true;
                t = 0;
            }
            double s = (double)(e->runs + e->warmup) * (t + e->cooldown);
            int d = per_dut ? experiment_run_dut(e, v, &cells[j]) : -1;
            if (d >= 0)
                per_dut[d] += s;
            else
                plan->seconds += s;
        }
    }
    for (size_t d = 0; per_dut && d < e->nduts; d++)
        plan->seconds = per_dut[d] > plan->seconds ? per_dut[d] : plan->seconds;
    free(per_dut);
    exp_cells_free(cells, n);
}
