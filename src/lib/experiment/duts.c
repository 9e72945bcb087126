/*
 * Several devices under test in one experiment (docs/experiment.md, "Several
 * DUTs"): the duts: section (a list of named DUT sections, or a mapping by
 * name), a variant's dut: and the matrix axis dut that say which DUT a run
 * runs on, and parallel: duts. Every reference is checked against the
 * section here, with the file's positions, so a campaign never meets a run
 * without a machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"
#include "util/names.h"

const struct exp_key experiment_dut_key = {"dut", NULL, EXP_DUT, 0, 0};

/* The index of the DUT called name, or -1. */
static int dut_index(const struct experiment *e, const char *name)
{
    for (size_t i = 0; i < e->nduts; i++)
        if (e->duts[i].name && !strcmp(e->duts[i].name, name))
            return (int)i;
    return -1;
}

int experiment_run_dut(const struct experiment *e, const struct exp_variant *v,
                       const struct exp_cell *c)
{
    if (v && v->dut > 0 && (size_t)v->dut <= e->nduts)
        return v->dut - 1;
    for (size_t i = 0; c && i < c->nkv; i++)
        if (c->kv[i].key->kind == EXP_DUT)
            return dut_index(e, c->kv[i].value);
    return e->nduts == 1 ? 0 : -1;
}

/* "486, p3, pe": the DUTs' names for "unknown DUT" messages. */
static void dut_names(const struct experiment *e, char *buf, size_t len)
{
    size_t off = 0;
    *buf = '\0';
    for (size_t i = 0; i < e->nduts && off < len; i++)
        if (e->duts[i].name)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", e->duts[i].name);
}

/*
 * The DUT called by the scalar n (a variant's dut: or a value of the axis),
 * or -1 after reporting what is wrong: not a name, no duts: section, or no
 * such DUT (with the known names).
 */
static int dut_ref(struct exp_ctx *c, yaml_node_t *n, const struct experiment *e, const char *where)
{
    char buf[64], names[256];
    const char *name = exp_scalar(n);
    if (!name || !*name) {
        exp_err(c, n, "%s: 'dut' must be the name of a DUT, not %s", where,
                exp_describe(n, buf, sizeof(buf)));
        return -1;
    }
    if (!e->named_duts) {
        exp_err(c, n, "%s: 'dut: %.40s' needs a 'duts' section that names the experiment's DUTs",
                where, name);
        return -1;
    }
    int i = dut_index(e, name);
    if (i < 0) {
        dut_names(e, names, sizeof(names));
        exp_err(c, n, "%s: unknown DUT '%.40s' (the experiment's DUTs: %s)", where, name, names);
    }
    return i;
}

/* Names end up in the store and in report columns, so they stay simple (as variants' do). */
static bool check_dut_name(struct exp_ctx *c, yaml_node_t *n, const char *name)
{
    if (!name_valid(name)) {
        exp_err(c, n, "DUT name '%.40s' " NAME_RULE, name);
        return false;
    }
    return true;
}

/* One entry of duts: (idx 0-based); key is the mapping form's key node, NULL in a list. */
static void parse_entry(struct exp_ctx *c, yaml_node_t *key, yaml_node_t *n, struct experiment *e,
                        size_t idx)
{
    struct exp_dut *d = &e->duts[e->nduts++];
    yaml_node_t *name = NULL, *at = key ? key : n;
    char where[96];
    const char *kname = key ? exp_scalar(key) : NULL;
    if (key && kname)
        snprintf(where, sizeof(where), "dut '%.40s'", kname);
    else
        snprintf(where, sizeof(where), "duts entry %zu", idx + 1);
    if (!exp_dut_fields(c, n, where, d, key ? NULL : &name))
        return;
    if (key) {
        name = key;
    } else if (!name) {
        exp_err(c, n, "%s has no 'name' (each of several DUTs is named, e.g. name: p3)", where);
        return;
    }
    if (!exp_get_string(c, name, "name", &d->name))
        return;
    if (!check_dut_name(c, name, d->name)) {
        free(d->name); /* reported once here, not again in every reference's list */
        d->name = NULL;
        return;
    }
    for (size_t i = 0; i + 1 < e->nduts; i++)
        if (e->duts[i].name && !strcmp(e->duts[i].name, d->name)) {
            exp_err(c, at, "duplicate DUT name '%s' (DUT %zu has it too)", d->name, i + 1);
            free(d->name); /* the first one keeps the name; references resolve to it */
            d->name = NULL;
            return;
        }
}

void exp_parse_duts(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    char buf[64];
    size_t count = 0;
    if (n->type == YAML_SEQUENCE_NODE)
        count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    else if (n->type == YAML_MAPPING_NODE)
        count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    else {
        exp_err(c, n, "'duts' must be a list of DUT sections or a mapping of names to them, not %s",
                exp_describe(n, buf, sizeof(buf)));
        return;
    }
    if (!count) {
        exp_err(c, n, "'duts' is empty: name at least one DUT");
        return;
    }
    e->duts = calloc(count, sizeof(*e->duts));
    if (!e->duts) {
        c->oom = true;
        return;
    }
    e->named_duts = true;
    for (size_t i = 0; i < count; i++) {
        if (n->type == YAML_SEQUENCE_NODE) {
            yaml_node_t *item = exp_node(c, n->data.sequence.items.start[i]);
            if (item)
                parse_entry(c, NULL, item, e, i);
        } else {
            yaml_node_pair_t *p = &n->data.mapping.pairs.start[i];
            yaml_node_t *k = exp_node(c, p->key), *v = exp_node(c, p->value);
            if (k && v)
                parse_entry(c, k, v, e, i);
        }
    }
    e->dut = e->nduts == 1 ? &e->duts[0] : NULL;
}

void exp_parse_parallel(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    char buf[64];
    const char *v = exp_scalar(n);
    if (v && !strcmp(v, "duts"))
        e->parallel_duts = true;
    else if (!v || strcmp(v, "none"))
        exp_err(c, n,
                "'parallel' must be 'duts' (several DUTs' runs at the same time) or 'none', "
                "not %s",
                exp_describe(n, buf, sizeof(buf)));
}

void exp_parse_variant_dut(struct exp_ctx *c, yaml_node_t *n, struct experiment *e,
                           struct exp_variant *v)
{
    char where[96];
    snprintf(where, sizeof(where), "variant '%.40s'", v->name ? v->name : "?");
    v->dut = dut_ref(c, n, e, where) + 1;
}

void exp_parse_dut_axis(struct exp_ctx *c, yaml_node_t *n, struct experiment *e,
                        struct exp_axis *axis)
{
    char buf[64];
    axis->key = &experiment_dut_key;
    if (n->type != YAML_SEQUENCE_NODE) {
        exp_err(c, n, "matrix axis 'dut' must be a list of DUT names, not %s",
                exp_describe(n, buf, sizeof(buf)));
        return;
    }
    size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (!count) {
        exp_err(c, n, "matrix axis 'dut' is empty: it needs at least one DUT");
        return;
    }
    axis->values = calloc(count, sizeof(char *));
    if (!axis->values) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *item = exp_node(c, n->data.sequence.items.start[i]);
        int d = item ? dut_ref(c, item, e, "matrix axis 'dut'") : -1;
        if (d < 0)
            continue;
        bool dup = false;
        for (size_t j = 0; j < axis->nvalues && !dup; j++)
            dup = !strcmp(axis->values[j], e->duts[d].name);
        if (dup) {
            exp_err(c, item, "matrix axis 'dut': duplicate value '%s'", e->duts[d].name);
            continue;
        }
        if (!(axis->values[axis->nvalues] = exp_strdup(c, e->duts[d].name)))
            return;
        axis->nvalues++;
    }
}

/* Reports a problem of variant v at its position. */
static void variant_err(struct exp_ctx *c, const struct exp_variant *v, const char *why)
{
    if (exp_errors_add(c->errs, v->line, v->col, "variant '%s' %s", v->name ? v->name : "?", why))
        c->oom = true;
}

/* Two DUTs that are one machine would measure each other's runs: the same destination and port. */
static void check_distinct(struct exp_ctx *c, yaml_node_t *at, const struct experiment *e)
{
    for (size_t i = 0; i < e->nduts; i++)
        for (size_t j = i + 1; j < e->nduts; j++) {
            const struct exp_dut *a = &e->duts[i], *b = &e->duts[j];
            if (a->ssh && b->ssh && a->name && b->name && !strcmp(a->ssh, b->ssh) &&
                a->port == b->port &&
                !strcmp(a->server ? a->server : "", b->server ? b->server : ""))
                exp_err(c, at,
                        "duts '%s' and '%s' are the same machine (ssh %s, the same server and "
                        "port); give each DUT its own",
                        a->name, b->name, a->ssh);
        }
}

void exp_check_duts(struct exp_ctx *c, const struct exp_dut_marks *m, struct experiment *e)
{
    bool axis = false;
    for (size_t a = 0; a < e->naxes; a++)
        axis |= e->axes[a].key == &experiment_dut_key;
    if (e->named_duts)
        check_distinct(c, m->duts ? m->duts : m->root, e);
    for (size_t i = 0; e->named_duts && i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        if (v->dut > 0 && axis)
            variant_err(c, v,
                        "has 'dut' and the matrix has an axis 'dut': say the DUT of a run in one "
                        "place");
        else if (!v->dut && !axis && e->nduts > 1)
            variant_err(c, v,
                        "has no 'dut' and the matrix no axis 'dut': with several DUTs each run "
                        "needs one (dut: NAME in the variant, or matrix: {dut: [...]})");
        else if (e->parallel_duts && (v->cpus || v->max_freq_mhz))
            variant_err(c, v,
                        "sets this machine's CPUs (cpus, max_freq_mhz), which parallel: duts "
                        "would change under the other DUTs' runs");
    }
    if (!e->parallel_duts)
        return;
    size_t used = 0;
    for (size_t i = 0; i < e->nduts; i++) {
        bool found = false;
        for (size_t j = 0; j < e->nvariants && !found; j++)
            found = e->variants[j].dut == (int)i + 1;
        for (size_t a = 0; a < e->naxes && !found; a++)
            for (size_t k = 0; e->axes[a].key == &experiment_dut_key && k < e->axes[a].nvalues; k++)
                found |= e->duts[i].name && !strcmp(e->axes[a].values[k], e->duts[i].name);
        used += found;
    }
    if (used < 2)
        exp_err(c, m->parallel,
                "parallel: duts runs several DUTs' runs at the same time, but the runs of this "
                "experiment use %zu DUT%s",
                used, used == 1 ? "" : "s");
}
