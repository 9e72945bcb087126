/*
 * Loading an experiment file: libyaml's document API builds the node tree
 * (each node keeps its position), and the walkers here and in sections.c
 * check it against the format, reporting every problem rather than the first.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment/exp_priv.h"
#include "util/names.h"

/* Experiment files are small; a bigger file is a mistake, not a campaign. */
#define EXP_MAX_FILE (1024 * 1024)

void exp_err(struct exp_ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    /* Past the cap an error is only counted: no time spent on its text (aliases repeat them). */
    if (c->errs->n >= EXP_ERRORS_MAX) {
        c->errs->dropped++;
        return;
    }
    char msg[NB_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    int line = n ? (int)n->start_mark.line + 1 : 0;
    int col = n ? (int)n->start_mark.column + 1 : 0;
    if (exp_errors_add(c->errs, line, col, "%s", msg))
        c->oom = true;
}

char *exp_strdup(struct exp_ctx *c, const char *s)
{
    char *d = strdup(s);
    if (!d)
        c->oom = true;
    return d;
}

yaml_node_t *exp_node(struct exp_ctx *c, int index)
{
    return yaml_document_get_node(c->doc, index);
}

bool exp_is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return false;
    const char *v = (const char *)n->data.scalar.value;
    if (n->tag && !strcmp((const char *)n->tag, YAML_NULL_TAG))
        return true;
    return exp_is_plain(n) && (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
                               !strcmp(v, "NULL"));
}

const char *exp_scalar(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || is_null(n))
        return NULL;
    const char *v = (const char *)n->data.scalar.value;
    return strlen(v) == n->data.scalar.length ? v : NULL;
}

const char *exp_describe(const yaml_node_t *n, char *buf, size_t len)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (is_null(n))
        return "nothing";
    const char *v = exp_scalar(n);
    if (!v)
        return "text with a NUL byte";
    snprintf(buf, len, "%s'%.40s%s'", exp_is_plain(n) ? "" : "the string ", v,
             strlen(v) > 40 ? "..." : "");
    return buf;
}

bool exp_map_fields(struct exp_ctx *c, yaml_node_t *map, const char *where,
                    const char *const *names, size_t n, yaml_node_t **vals)
{
    char buf[64];
    for (size_t i = 0; i < n; i++)
        vals[i] = NULL;
    if (map->type != YAML_MAPPING_NODE) {
        exp_err(c, map, "%s must be a mapping, not %s", where, exp_describe(map, buf, sizeof(buf)));
        return false;
    }
    yaml_node_t **keys = calloc(n ? n : 1, sizeof(*keys));
    if (!keys) {
        c->oom = true;
        return false;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = exp_node(c, p->key), *v = exp_node(c, p->value);
        const char *name = k ? exp_scalar(k) : NULL;
        if (!k || !v)
            continue;
        if (!name) {
            exp_err(c, k, "%s: a key must be a name, not %s", where,
                    exp_describe(k, buf, sizeof(buf)));
            continue;
        }
        size_t i = 0;
        while (i < n && strcmp(names[i], name))
            i++;
        if (i == n && c->errs->n >= EXP_ERRORS_MAX) {
            c->errs->dropped++; /* as exp_err() would, without the suggestion's cost */
        } else if (i == n) {
            const char *s = exp_suggest(name, names, n);
            char hint[96] = "";
            if (s)
                snprintf(hint, sizeof(hint), " (did you mean '%s'?)", s);
            exp_err(c, k, "unknown key '%.60s' in %s%s", name, where, hint);
        } else if (vals[i]) {
            exp_err(c, k, "duplicate key '%s' in %s (first at line %zu)", name, where,
                    keys[i]->start_mark.line + 1);
        } else {
            keys[i] = k;
            vals[i] = v;
        }
    }
    free(keys);
    return true;
}

bool exp_get_string(struct exp_ctx *c, yaml_node_t *n, const char *key, char **out)
{
    char buf[64];
    const char *v = exp_scalar(n);
    if (!v || !*v) {
        exp_err(c, n, "'%s' must be a non-empty string, not %s", key,
                v ? "an empty string" : exp_describe(n, buf, sizeof(buf)));
        return false;
    }
    free(*out);
    *out = exp_strdup(c, v);
    return *out != NULL;
}

bool exp_get_int(struct exp_ctx *c, yaml_node_t *n, const char *key, long min, long max, long *out)
{
    char buf[64];
    const char *v = exp_scalar(n);
    char *end;
    if (!v || !exp_is_plain(n) || !*v) {
        exp_err(c, n, "'%s' must be an integer, not %s", key, exp_describe(n, buf, sizeof(buf)));
        return false;
    }
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (*end) {
        exp_err(c, n, "'%s' must be an integer, not '%.40s'", key, v);
        return false;
    }
    if (errno == ERANGE || x < min || x > max) {
        exp_err(c, n, "'%s' must be between %ld and %ld, not %.40s", key, min, max, v);
        return false;
    }
    *out = (long)x;
    return true;
}

static bool get_seconds(struct exp_ctx *c, yaml_node_t *n, const char *key, double max, double *out)
{
    char buf[64];
    const char *v = exp_scalar(n);
    char *end;
    if (!v || !exp_is_plain(n) || !*v) {
        exp_err(c, n, "'%s' must be a number of seconds, not %s", key,
                exp_describe(n, buf, sizeof(buf)));
        return false;
    }
    double x = strtod(v, &end);
    if (*end || !isfinite(x)) {
        exp_err(c, n, "'%s' must be a number of seconds, not '%.40s'", key, v);
        return false;
    }
    if (x < 0 || x > max) {
        exp_err(c, n, "'%s' must be between 0 and %.0f seconds, not %.40s", key, max, v);
        return false;
    }
    *out = x;
    return true;
}

/* Names end up in file names and database keys, so they stay simple. */
static bool check_name(struct exp_ctx *c, yaml_node_t *n, const char *what, const char *name)
{
    if (!name_valid(name)) {
        exp_err(c, n, "%s '%.40s' " NAME_RULE, what, name);
        return false;
    }
    return true;
}

enum {
    K_NAME,
    K_RUNS,
    K_WARMUP,
    K_SEED,
    K_COOLDOWN,
    K_PREPARE,
    K_RESET,
    K_TEST,
    K_VARIANTS,
    K_MATRIX,
    K_ORDER,
    K_DUT,
    K_DUTS,
    K_PARALLEL,
    K_LAYOUT,
    K_REPORT,
    K_COUNT
};
static const char *const top_keys[K_COUNT] = {
    "name",     "runs",   "warmup", "seed", "cooldown", "prepare",  "reset",  "test",
    "variants", "matrix", "order",  "dut",  "duts",     "parallel", "layout", "report"};

static void parse_order(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    const char *r = exp_scalar(n);
    char buf[64];
    if (r && !strcmp(r, "randomized"))
        e->order = EXP_ORDER_RANDOMIZED;
    else if (r && !strcmp(r, "blocked"))
        e->order = EXP_ORDER_BLOCKED;
    else
        exp_err(c, n, "'order' must be 'randomized' or 'blocked', not %s",
                exp_describe(n, buf, sizeof(buf)));
}

static void parse_top(struct exp_ctx *c, yaml_node_t *root, struct experiment *e)
{
    yaml_node_t *v[K_COUNT];
    long l;
    if (!exp_map_fields(c, root, "experiment", top_keys, K_COUNT, v))
        return;
    if (!v[K_NAME])
        exp_err(c, root, "experiment has no 'name'");
    else if (exp_get_string(c, v[K_NAME], "name", &e->name))
        check_name(c, v[K_NAME], "experiment name", e->name);
    if (v[K_RUNS])
        exp_get_int(c, v[K_RUNS], "runs", 1, 100000, &e->runs);
    if (v[K_WARMUP])
        exp_get_int(c, v[K_WARMUP], "warmup", 0, 100000, &e->warmup);
    if (v[K_SEED] && exp_get_int(c, v[K_SEED], "seed", 0, LONG_MAX, &l)) {
        e->seed = (uint64_t)l;
        e->has_seed = true;
    }
    if (v[K_COOLDOWN])
        get_seconds(c, v[K_COOLDOWN], "cooldown", 86400, &e->cooldown);
    if (v[K_PREPARE])
        exp_get_hook(c, v[K_PREPARE], "prepare", &e->prepare, &e->prepare_on_dut);
    if (v[K_ORDER])
        parse_order(c, v[K_ORDER], e);
    /* With both, duts: is the one checked further (the references name its DUTs). */
    if (v[K_DUT] && v[K_DUTS])
        exp_err(c, v[K_DUTS],
                "the experiment has both 'dut' (line %zu) and 'duts': use 'duts' for several "
                "named DUTs, 'dut' for one",
                v[K_DUT]->start_mark.line + 1);
    if (v[K_DUTS])
        exp_parse_duts(c, v[K_DUTS], e);
    else if (v[K_DUT])
        exp_parse_dut(c, v[K_DUT], e);
    if (v[K_PARALLEL])
        exp_parse_parallel(c, v[K_PARALLEL], e);
    if (v[K_RESET]) {
        const char *r = exp_scalar(v[K_RESET]);
        if (r && !strcmp(r, "none"))
            e->reset = EXP_RESET_NONE;
        else if (r && !strcmp(r, "reboot"))
            e->reset = EXP_RESET_REBOOT;
        else {
            char buf[64];
            exp_err(c, v[K_RESET], "'reset' must be 'none' or 'reboot', not %s",
                    exp_describe(v[K_RESET], buf, sizeof(buf)));
        }
    }
    if (v[K_TEST])
        exp_parse_test(c, v[K_TEST], e);
    if (!v[K_VARIANTS])
        exp_err(c, root, "experiment has no 'variants'");
    else
        exp_parse_variants(c, v[K_VARIANTS], e);
    if (v[K_MATRIX])
        exp_parse_matrix(c, v[K_MATRIX], e);
    if (v[K_LAYOUT])
        exp_parse_layout(c, v[K_LAYOUT], e);
    if (v[K_REPORT])
        exp_parse_report(c, v[K_REPORT], e);
    struct exp_dut_marks marks = {.root = root,
                                  .prepare = v[K_PREPARE],
                                  .matrix = v[K_MATRIX],
                                  .parallel = v[K_PARALLEL],
                                  .duts = v[K_DUTS]};
    exp_check_dut(c, &marks, e);
    exp_check_duts(c, &marks, e);
    exp_check_factors(c, e);
}

/* Line and column of a byte offset, for reader errors that carry no mark. */
static void offset_position(const char *buf, size_t len, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (buf[i] == '\n') {
            ++*line;
            *col = 1;
        } else if (((unsigned char)buf[i] & 0xc0) != 0x80) {
            ++*col;
        }
    }
}

/* Reports libyaml's error; returns -ENOMEM or -EINVAL. */
static int yaml_failure(struct exp_ctx *c, yaml_parser_t *p, const char *buf, size_t len)
{
    int line, col;
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->error == YAML_MEMORY_ERROR)
        return -ENOMEM;
    if (p->error == YAML_READER_ERROR) {
        offset_position(buf, len, p->problem_offset, &line, &col);
        exp_errors_add(c->errs, line, col, "invalid text: %s", problem);
    } else if (p->context) {
        exp_errors_add(c->errs, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
                       "YAML syntax error: %s (%s that starts at %zu:%zu)", problem, p->context,
                       p->context_mark.line + 1, p->context_mark.column + 1);
    } else {
        exp_errors_add(c->errs, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
                       "YAML syntax error: %s", problem);
    }
    return -EINVAL;
}

int experiment_load_buffer(const char *buf, size_t len, struct experiment **out,
                           struct exp_errors *errs)
{
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    struct exp_ctx c = {.doc = &doc, .errs = errs};
    size_t first = errs->n;
    struct experiment *e = NULL;
    int err = 0;

    *out = NULL;
    if ((err = exp_check_shape(buf, len, errs)))
        return err;
    if (!yaml_parser_initialize(&parser))
        return -ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&parser, &doc)) {
        err = yaml_failure(&c, &parser, buf, len);
        goto out_parser;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        exp_errors_add(errs, 1, 1, "the file is empty: an experiment needs 'name' and 'variants'");
        err = -EINVAL;
        goto out_doc;
    }
    if (!yaml_parser_load(&parser, &extra)) {
        yaml_failure(&c, &parser, buf, len);
    } else {
        yaml_node_t *r2 = yaml_document_get_root_node(&extra);
        if (r2)
            exp_err(&c, r2, "a second YAML document; an experiment file holds exactly one");
        yaml_document_delete(&extra);
    }
    e = calloc(1, sizeof(*e));
    if (!e) {
        err = -ENOMEM;
        goto out_doc;
    }
    e->runs = 5;
    e->warmup = 1;
    parse_top(&c, root, e);
    if (c.oom)
        err = -ENOMEM;
    else if (errs->n > first || errs->dropped)
        err = -EINVAL;
    else
        err = exp_check_runs(e, errs); /* only a well-formed file has runs to check */
out_doc:
    yaml_document_delete(&doc);
out_parser:
    yaml_parser_delete(&parser);
    exp_errors_sort(errs, first);
    if (err)
        experiment_free(e);
    else
        *out = e;
    return err;
}

/*
 * Makes each variant's relative layout path relative to the experiment
 * file's directory (so a campaign does not depend on where it was started)
 * and checks that the file can be read. Returns 0, -EINVAL (errors added)
 * or -ENOMEM.
 */
static int resolve_layouts(const char *path, struct experiment *e, struct exp_errors *errs)
{
    char *file = realpath(path, NULL);
    if (!file) {
        exp_errors_add(errs, 0, 0, "cannot resolve the file's directory: %s", strerror(errno));
        return errno == ENOMEM ? -ENOMEM : -EINVAL;
    }
    char *slash = strrchr(file, '/');
    *slash = '\0'; /* realpath is absolute: there is a slash, and "" stands for "/" */
    int err = 0;
    for (size_t i = 0; i < e->nvariants; i++) {
        struct exp_variant *v = &e->variants[i];
        if (!v->layout)
            continue;
        if (v->layout[0] != '/') {
            char *abs = NULL;
            if (asprintf(&abs, "%s/%s", file, v->layout) < 0) {
                err = -ENOMEM;
                break;
            }
            free(v->layout);
            v->layout = abs;
        }
        if (access(v->layout, R_OK)) {
            exp_errors_add(errs, v->line, 0, "variant '%s': layout: cannot read %s: %s", v->name,
                           v->layout, strerror(errno));
            err = -EINVAL;
        }
    }
    free(file);
    return err;
}

int experiment_load(const char *path, struct experiment **out, struct exp_errors *errs)
{
    struct stat st;
    int err;
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        err = -errno;
        exp_errors_add(errs, 0, 0, "cannot open: %s", strerror(-err));
        return err;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        exp_errors_add(errs, 0, 0, "cannot read: it is a directory");
        return -EISDIR;
    }
    char *buf = malloc(EXP_MAX_FILE + 1);
    if (!buf) {
        fclose(f);
        return -ENOMEM;
    }
    size_t len = fread(buf, 1, EXP_MAX_FILE + 1, f);
    if (ferror(f)) {
        err = errno ? -errno : -EIO;
        exp_errors_add(errs, 0, 0, "cannot read: %s", strerror(-err));
    } else if (len > EXP_MAX_FILE) {
        err = -EFBIG;
        exp_errors_add(errs, 0, 0, "the file is larger than %d bytes; is it an experiment file?",
                       EXP_MAX_FILE);
    } else {
        err = experiment_load_buffer(buf, len, out, errs);
    }
    free(buf);
    fclose(f);
    if (!err && (err = resolve_layouts(path, *out, errs))) {
        experiment_free(*out);
        *out = NULL;
    }
    return err;
}
