#include "compare/metrics.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/json_path.h"
#include "metric/metric.h"
#include "util/pattern.h"

/* The figures metric/metric.h marks METRIC_COMPARE, in its order; filled once. */
static struct compare_metric builtins[64];
static size_t nbuiltins;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;

static void builtins_fill(void)
{
    size_t n;
    const struct metric *t = metric_all(&n);
    for (size_t i = 0; i < n && nbuiltins < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (t[i].flags & METRIC_COMPARE)
            builtins[nbuiltins++] =
                (struct compare_metric){t[i].name,
                                        t[i].path,
                                        t[i].unit,
                                        t[i].lower_is_better,
                                        (t[i].flags & METRIC_ALWAYS) != 0,
                                        (t[i].flags & METRIC_WHERE_PRESENT) != 0};
}

const struct compare_metric *compare_builtin_metrics(size_t *n)
{
    pthread_once(&builtins_once, builtins_fill);
    *n = nbuiltins;
    return builtins;
}

const struct compare_metric *compare_metric_find(const char *name)
{
    size_t n;
    const struct compare_metric *b = compare_builtin_metrics(&n);
    const struct metric *m = metric_find(name);
    for (size_t i = 0; m && i < n; i++)
        if (!strcmp(m->name, b[i].name))
            return &b[i];
    return NULL;
}

int compare_metric_from_doc(json_t *doc, const char *path, double *out, char *err, size_t errlen)
{
    json_t *v = input_json_path(doc, path);
    if (!v || json_is_null(v))
        return err_set(err, errlen, ENOENT, "the output has no '%s'", path);
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return err_set(err, errlen, EINVAL, "'%s' is not a finite number", path);
    *out = json_number_value(v);
    return 0;
}

int compare_metric_from_json(const char *text, const char *path, double *out, char *err,
                             size_t errlen)
{
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    if (!doc)
        return err_set(err, errlen, EINVAL, "output is not one JSON document: %s (line %d)",
                       je.text, je.line);
    int rc = compare_metric_from_doc(doc, path, out, err, errlen);
    json_decref(doc);
    return rc;
}

int compare_regex_check(const char *re, char *err, size_t errlen)
{
    struct pattern *p;
    int rc = pattern_compile(&p, re, 0, err, errlen);
    if (rc)
        return rc;
    size_t groups = pattern_groups(p);
    pattern_free(p);
    if (groups != 1)
        return err_set(err, errlen, EINVAL,
                       "'%s' has %zu capture groups; it needs exactly one around the number", re,
                       groups);
    return 0;
}

int compare_metric_from_regex(const char *text, const char *re, double *out, char *err,
                              size_t errlen)
{
    struct pattern *p;
    int rc = pattern_compile(&p, re, 0, err, errlen);
    if (rc)
        return rc;
    size_t m[4], so = 0, eo = 0, from = 0, end = strlen(text);
    bool found = false;
    while (from <= end && (rc = pattern_find(p, text, end, from, m, err, errlen)) == 1) {
        if (m[2] != SIZE_MAX) {
            found = true;
            so = m[2];
            eo = m[3];
        }
        from = pattern_next_from(m);
    }
    pattern_free(p);
    if (rc < 0)
        return rc;
    if (!found)
        return err_set(err, errlen, ENOENT, "no match for /%s/ in the output", re);
    char num[64];
    size_t len = eo - so;
    if (len == 0 || len >= sizeof(num))
        return err_set(err, errlen, EINVAL, "/%s/ captured %s", re,
                       len ? "a value too long to be a number" : "an empty string");
    memcpy(num, text + so, len);
    num[len] = '\0';
    char *e;
    errno = 0;
    double v = strtod(num, &e);
    if (e == num || *e || errno || !isfinite(v))
        return err_set(err, errlen, EINVAL, "/%s/ captured '%s', which is not a number", re, num);
    *out = v;
    return 0;
}
