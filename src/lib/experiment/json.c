/* Releasing an experiment and turning it into JSON for the results store. */
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"
#include "metric/spec.h"

void experiment_free(struct experiment *e)
{
    if (!e)
        return;
    free(e->name);
    free(e->prepare);
    for (size_t i = 0; i < e->nlayout_hot; i++)
        free(e->layout_hot[i]);
    free(e->layout_hot);
    free(e->report_cell);
    free(e->report_columns);
    for (size_t i = 0; i < e->ntest; i++)
        free(e->test[i].value);
    free(e->test);
    for (size_t i = 0; i < e->nvariants; i++) {
        struct exp_variant *v = &e->variants[i];
        free(v->name);
        free(v->opts);
        free(v->cmd);
        free(v->setup);
        free(v->teardown);
        free(v->layout);
        free(v->boot);
        free(v->expect);
        exp_factors_free(v);
    }
    for (size_t i = 0; i < e->nduts; i++)
        exp_dut_clear(&e->duts[i]);
    free(e->duts);
    free(e->variants);
    for (size_t a = 0; a < e->naxes; a++) {
        for (size_t i = 0; i < e->axes[a].nvalues; i++)
            free(e->axes[a].values[i]);
        free(e->axes[a].values);
    }
    free(e->axes);
    free(e);
}

/* Integers and booleans become JSON numbers and booleans; the rest stay strings. */
static json_t *value_json(const struct exp_key *k, const char *v)
{
    if (k->kind == EXP_BOOL)
        return json_boolean(!strcmp(v, "true"));
    if (k->kind == EXP_INT)
        return json_integer(strtol(v, NULL, 10));
    return json_string(v);
}

static json_t *string_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* A DUT section as docs/experiment.md shows it; NULL on ENOMEM. */
static json_t *dut_json(const struct experiment *e, const struct exp_dut *d)
{
    json_t *o =
        json_pack("{s:s, s:o, s:o, s:I, s:b, s:o, s:o, s:f, s:b}", "ssh", d->ssh, "ssh_opts",
                  string_or_null(d->ssh_opts), "server", string_or_null(d->server), "port",
                  (json_int_t)d->port, "start_server", d->start_server, "netab",
                  string_or_null(d->netab), "identity", string_or_null(d->identity), "boot_timeout",
                  d->boot_timeout, "prepare_on_dut", e->prepare_on_dut);
    if (o && d->name && json_object_set_new(o, SPEC_NAME, json_string(d->name))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* duts: as a list in file order, and parallel: (only when set, so older specs read the same). */
static int duts_json(const struct experiment *e, json_t *root)
{
    json_t *list = json_array();
    int err = json_object_set_new(root, SPEC_DUTS, list);
    for (size_t i = 0; !err && i < e->nduts; i++)
        err = json_array_append_new(list, dut_json(e, &e->duts[i]));
    if (!err && e->parallel_duts)
        err = json_object_set_new(root, SPEC_PARALLEL, json_string(SPEC_PARALLEL_DUTS));
    return err;
}

/*
 * factors: each variant's {"NAME": "LEVEL"} and, at the top, the factors'
 * names in file order (a reader need not trust an object's key order).
 * Nothing without factors, so that older specs read the same.
 */
static int factors_json(const struct experiment *e, json_t *root, json_t *variants)
{
    if (!e->nvariants || !e->variants[0].nfactors)
        return 0;
    json_t *names = json_array();
    int err = json_object_set_new(root, SPEC_FACTORS, names);
    for (size_t k = 0; !err && k < e->variants[0].nfactors; k++)
        err = json_array_append_new(names, json_string(e->variants[0].factors[k].name));
    for (size_t i = 0; !err && i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        json_t *o = json_object();
        err = json_object_set_new(json_array_get(variants, i), SPEC_FACTORS, o);
        for (size_t k = 0; !err && k < v->nfactors; k++)
            err = json_object_set_new(o, v->factors[k].name, json_string(v->factors[k].level));
    }
    return err;
}

/* layout: {hot: [...]} (only when set, so older specs read the same). */
static int layout_json(const struct experiment *e, json_t *root)
{
    json_t *hot = json_array();
    int err = json_object_set_new(root, SPEC_LAYOUT, json_pack("{s:o}", SPEC_LAYOUT_HOT, hot));
    for (size_t i = 0; !err && i < e->nlayout_hot; i++)
        err = json_array_append_new(hot, json_string(e->layout_hot[i]));
    return err;
}

json_t *experiment_to_json(const struct experiment *e)
{
    json_t *test = json_object(), *variants = json_array(), *matrix = json_array();
    json_t *root = json_pack("{s:s, s:I, s:I, s:o, s:f, s:o, s:s, s:o, s:o, s:o}", "name", e->name,
                             "runs", (json_int_t)e->runs, "warmup", (json_int_t)e->warmup, "seed",
                             e->has_seed ? json_integer((json_int_t)e->seed) : json_null(),
                             "cooldown", e->cooldown, "prepare", string_or_null(e->prepare),
                             "reset", e->reset == EXP_RESET_REBOOT ? "reboot" : "none", "test",
                             test, SPEC_VARIANTS, variants, SPEC_MATRIX, matrix);
    if (!root)
        return NULL;
    int err = 0;
    for (size_t i = 0; i < e->ntest; i++)
        err |= json_object_set_new(test, e->test[i].key->name,
                                   value_json(e->test[i].key, e->test[i].value));
    for (size_t i = 0; i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        json_t *jv =
            json_pack("{s:s, s:o, s:o, s:o, s:i, s:i, s:o}", SPEC_NAME, v->name, "opts",
                      string_or_null(v->opts), "setup", string_or_null(v->setup), "teardown",
                      string_or_null(v->teardown), "cpus", v->cpus, "max_freq_mhz", v->max_freq_mhz,
                      SPEC_LAYOUT, string_or_null(v->layout));
        if (jv && v->cmd)
            err |= json_object_set_new(jv, "cmd", json_string(v->cmd));
        if (jv && v->dut > 0 && (size_t)v->dut <= e->nduts)
            err |= json_object_set_new(jv, "dut_name", json_string(e->duts[v->dut - 1].name));
        if (jv && e->nduts)
            err |= json_object_set_new(
                jv, "dut",
                json_pack("{s:o, s:o, s:b, s:b}", "boot", string_or_null(v->boot), "expect",
                          string_or_null(v->expect), "setup_on_dut", v->setup_on_dut,
                          "teardown_on_dut", v->teardown_on_dut));
        err |= json_array_append_new(variants, jv);
    }
    for (size_t a = 0; a < e->naxes; a++) {
        json_t *values = json_array();
        for (size_t i = 0; i < e->axes[a].nvalues; i++)
            err |= json_array_append_new(values, value_json(e->axes[a].key, e->axes[a].values[i]));
        err |= json_array_append_new(
            matrix, json_pack("{s:s, s:o}", SPEC_KEY, e->axes[a].key->name, SPEC_VALUES, values));
    }
    err |= factors_json(e, root, variants);
    err |= json_object_set_new(
        root, SPEC_ORDER, json_string(e->order == EXP_ORDER_BLOCKED ? SPEC_BLOCKED : "randomized"));
    if (e->nlayout_hot)
        err |= layout_json(e, root);
    /* report: {cell, columns} (only when set, so older specs read the same). */
    if (e->report_cell)
        err |= json_object_set_new(root, SPEC_REPORT,
                                   json_pack("{s:s, s:s?}", SPEC_REPORT_CELL, e->report_cell,
                                             SPEC_REPORT_COLUMNS, e->report_columns));
    if (e->nduts && !e->named_duts)
        err |= json_object_set_new(root, "dut", dut_json(e, &e->duts[0]));
    else if (e->nduts)
        err |= duts_json(e, root);
    if (err) {
        json_decref(root);
        return NULL;
    }
    return root;
}
