/* The nested sections of an experiment file: test:, variants: and matrix:. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"
#include "util/names.h"

/*
 * Checks one value for key k, reporting a problem at n. On success returns
 * a new string with the canonical value; NULL otherwise.
 */
static char *key_value(struct exp_ctx *c, const struct exp_key *k, yaml_node_t *n,
                       const char *where)
{
    char buf[64], canon[300], why[NB_ERRLEN];
    const char *v = exp_scalar(n);
    if (!v) {
        exp_err(c, n, "%s: '%s' must be a single value, not %s", where, k->name,
                exp_describe(n, buf, sizeof(buf)));
        return NULL;
    }
    if (k->kind == EXP_BOOL) {
        /* YAML 1.2 booleans; a quoted "true" is a string and therefore wrong. */
        bool t = !strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE");
        bool f = !strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE");
        if (!exp_is_plain(n) || (!t && !f)) {
            exp_err(c, n, "%s: '%s' must be true or false, not %s", where, k->name,
                    exp_describe(n, buf, sizeof(buf)));
            return NULL;
        }
        v = t ? "true" : "false";
    }
    if (exp_key_check(k, v, canon, sizeof(canon), why, sizeof(why))) {
        exp_err(c, n, "%s: %s", where, why);
        return NULL;
    }
    return exp_strdup(c, canon);
}

void exp_parse_test(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    size_t nk;
    const char *const *names = exp_key_names(&nk);
    yaml_node_t *vals[EXP_NKEYS_MAX];
    if (!exp_map_fields(c, n, "test", names, nk, vals))
        return;
    e->test = calloc(nk, sizeof(*e->test));
    if (!e->test) {
        c->oom = true;
        return;
    }
    /* Walk the pairs again so that the options keep the file's order. */
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = exp_node(c, p->key), *v = exp_node(c, p->value);
        const char *name = k ? exp_scalar(k) : NULL;
        const struct exp_key *key = name ? experiment_key_find(name) : NULL;
        if (!key || vals[key - experiment_keys(&nk)] != v)
            continue;
        vals[key - experiment_keys(&nk)] = NULL; /* a duplicate pair sharing an alias */
        char *value = key_value(c, key, v, "test");
        if (value)
            e->test[e->ntest++] = (struct exp_kv){key, value};
    }
}

enum {
    V_NAME,
    V_OPTS,
    V_SETUP,
    V_TEARDOWN,
    V_CPUS,
    V_FREQ,
    V_LAYOUT,
    V_BOOT,
    V_EXPECT,
    V_PROTOCOL,
    V_DUT,
    V_FACTORS,
    V_COUNT
};
static const char *const variant_keys[V_COUNT] = {"name",   "opts",         "setup",  "teardown",
                                                  "cpus",   "max_freq_mhz", "layout", "boot",
                                                  "expect", "protocol",     "dut",    "factors"};

static void parse_variant(struct exp_ctx *c, yaml_node_t *n, struct experiment *e, size_t idx)
{
    yaml_node_t *v[V_COUNT];
    char where[48], why[NB_ERRLEN];
    long l;
    snprintf(where, sizeof(where), "variant %zu", idx + 1);
    if (!exp_map_fields(c, n, where, variant_keys, V_COUNT, v))
        return;
    struct exp_variant *var = &e->variants[e->nvariants];
    *var = (struct exp_variant){.line = (int)n->start_mark.line + 1,
                                .col = (int)n->start_mark.column + 1};
    e->nvariants++;
    if (!v[V_NAME]) {
        exp_err(c, n, "%s has no 'name'", where);
    } else if (exp_get_string(c, v[V_NAME], "name", &var->name)) {
        if (!name_valid(var->name))
            exp_err(c, v[V_NAME], "variant name '%.40s' " NAME_RULE, var->name);
        for (size_t i = 0; i + 1 < e->nvariants; i++)
            if (e->variants[i].name && !strcmp(e->variants[i].name, var->name)) {
                exp_err(c, v[V_NAME], "duplicate variant name '%.64s' (first at line %d)",
                        var->name, e->variants[i].line);
                break;
            }
    }
    /* opts: "" (or an empty value) is a variant with no options of its own, as omitting it is. */
    const char *opts = v[V_OPTS] ? exp_scalar(v[V_OPTS]) : NULL;
    if (v[V_OPTS] && !(opts && !*opts) && exp_get_string(c, v[V_OPTS], "opts", &var->opts)) {
        char **words;
        size_t nw;
        int err = exp_split_words(var->opts, &words, &nw, why, sizeof(why));
        if (err == -ENOMEM)
            c->oom = true;
        else if (err)
            exp_err(c, v[V_OPTS], "'opts': %s", why);
        else
            exp_argv_free(words);
    }
    if (v[V_SETUP])
        exp_get_hook(c, v[V_SETUP], "setup", &var->setup, &var->setup_on_dut);
    if (v[V_TEARDOWN])
        exp_get_hook(c, v[V_TEARDOWN], "teardown", &var->teardown, &var->teardown_on_dut);
    bool boot_on_dut; /* the boot always runs on the DUT, whatever its form says */
    if (v[V_BOOT])
        exp_get_hook(c, v[V_BOOT], "boot", &var->boot, &boot_on_dut);
    if (v[V_EXPECT])
        exp_get_regex(c, v[V_EXPECT], "expect", &var->expect);
    if (v[V_CPUS] && exp_get_int(c, v[V_CPUS], "cpus", 1, 4096, &l))
        var->cpus = (int)l;
    if (v[V_FREQ] && exp_get_int(c, v[V_FREQ], "max_freq_mhz", 1, 100000, &l))
        var->max_freq_mhz = (int)l;
    if (v[V_LAYOUT])
        exp_get_string(c, v[V_LAYOUT], "layout", &var->layout);
    char *proto = NULL;
    if (v[V_PROTOCOL] && exp_get_string(c, v[V_PROTOCOL], "protocol", &proto)) {
        if (strcmp(proto, "netab") && strcmp(proto, "iperf3"))
            exp_err(c, v[V_PROTOCOL], "%s: 'protocol' must be netab or iperf3, not '%.40s'", where,
                    proto);
        var->iperf3 = !strcmp(proto, "iperf3");
    }
    free(proto);
    if (v[V_DUT])
        exp_parse_variant_dut(c, v[V_DUT], e, var);
    if (v[V_FACTORS])
        exp_parse_variant_factors(c, v[V_FACTORS], where, var);
}

void exp_parse_variants(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    char buf[64];
    if (n->type != YAML_SEQUENCE_NODE) {
        exp_err(c, n, "'variants' must be a list of variants, not %s",
                exp_describe(n, buf, sizeof(buf)));
        return;
    }
    size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (!count) {
        exp_err(c, n, "'variants' is empty: an experiment needs at least one variant");
        return;
    }
    e->variants = calloc(count, sizeof(*e->variants));
    if (!e->variants) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *item = exp_node(c, n->data.sequence.items.start[i]);
        if (item)
            parse_variant(c, item, e, i);
    }
}

static void parse_axis(struct exp_ctx *c, const struct exp_key *key, yaml_node_t *n,
                       struct exp_axis *axis)
{
    char buf[64], where[80];
    snprintf(where, sizeof(where), "matrix axis '%s'", key->name);
    axis->key = key;
    if (n->type != YAML_SEQUENCE_NODE) {
        exp_err(c, n, "%s must be a list of values, not %s", where,
                exp_describe(n, buf, sizeof(buf)));
        return;
    }
    size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (!count) {
        exp_err(c, n, "%s is empty: it needs at least one value", where);
        return;
    }
    axis->values = calloc(count, sizeof(char *));
    if (!axis->values) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *item = exp_node(c, n->data.sequence.items.start[i]);
        char *value = item ? key_value(c, key, item, "matrix") : NULL;
        if (!value)
            continue;
        bool dup = false;
        for (size_t j = 0; j < axis->nvalues && !dup; j++)
            dup = !strcmp(axis->values[j], value);
        if (dup) {
            exp_err(c, item, "%s: duplicate value '%.60s'", where, value);
            free(value);
            continue;
        }
        axis->values[axis->nvalues++] = value;
    }
}

void exp_parse_matrix(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    size_t nk;
    const char *const *keys = exp_key_names(&nk);
    /* The test keys and, last, the axis dut (which DUT a cell runs on). */
    const char *names[EXP_NKEYS_MAX + 1];
    yaml_node_t *vals[EXP_NKEYS_MAX + 1];
    memcpy(names, keys, nk * sizeof(*names));
    names[nk] = experiment_dut_key.name;
    if (!exp_map_fields(c, n, "matrix", names, nk + 1, vals))
        return;
    size_t npairs = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (!npairs) {
        exp_err(c, n, "'matrix' has no axes; leave it out for a single cell");
        return;
    }
    e->axes = calloc(npairs, sizeof(*e->axes));
    if (!e->axes) {
        c->oom = true;
        return;
    }
    size_t cells = 1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = exp_node(c, p->key), *v = exp_node(c, p->value);
        const char *name = k ? exp_scalar(k) : NULL;
        const struct exp_key *key = name ? experiment_key_find(name) : NULL;
        if (name && !key && !strcmp(name, experiment_dut_key.name) && vals[nk] == v) {
            vals[nk] = NULL;
            struct exp_axis *axis = &e->axes[e->naxes++];
            exp_parse_dut_axis(c, v, e, axis);
            if (axis->nvalues && cells <= EXP_MAX_CELLS)
                cells *= axis->nvalues;
            continue;
        }
        if (!key || vals[key - experiment_keys(&nk)] != v)
            continue;
        vals[key - experiment_keys(&nk)] = NULL;
        struct exp_axis *axis = &e->axes[e->naxes++];
        parse_axis(c, key, v, axis);
        if (axis->nvalues && cells <= EXP_MAX_CELLS)
            cells *= axis->nvalues;
    }
    if (cells > EXP_MAX_CELLS)
        exp_err(c, n, "the matrix has more than %d cells", EXP_MAX_CELLS);
}
