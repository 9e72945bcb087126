/* Each stored run's documents parsed once for the report builder (rundoc.h). */
#include "report/rundoc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metric/steal.h"

/* A stored document parsed, or NULL when absent or not JSON. */
static json_t *load(const char *text)
{
    return text ? json_loads(text, 0, NULL) : NULL;
}

/* The string at doc's object path a[.b[.c]], or NULL when absent or empty. */
static const char *text_at(json_t *doc, const char *a, const char *b, const char *c)
{
    json_t *v = json_object_get(doc, a);
    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    const char *s = json_string_value(v);
    return s && *s ? s : NULL;
}

static void parse_one(struct creport_rundoc *d, const struct store_run *run)
{
    *d = (struct creport_rundoc){.run = run};
    d->params = load(run->params_json);
    d->result = load(run->result_json);
    d->env = load(run->env_json);
    d->test = json_string_value(json_object_get(json_object_get(d->result, "test"), "test"));
    d->kernel = text_at(d->env, "kernel", NULL, NULL);
    if (!d->kernel)
        d->kernel = text_at(d->result, "host", "local", "kernel");
    d->build_id = text_at(d->env, "identity", "build_id", NULL);
    const char *o = text_at(d->params, "import", "order", NULL);
    d->order_unknown = o && !strcmp(o, "unknown");
    d->steal_pct = metric_steal_pct(d->result);
}

int creport_rundocs_parse(const struct store_run *runs, size_t n, struct creport_rundoc **out)
{
    *out = calloc(n ? n : 1, sizeof(**out));
    if (!*out)
        return -ENOMEM;
    for (size_t k = 0; k < n; k++)
        parse_one(&(*out)[k], &runs[k]);
    return 0;
}

void creport_rundocs_free(struct creport_rundoc *docs, size_t n)
{
    for (size_t k = 0; docs && k < n; k++) {
        json_decref(docs[k].params);
        json_decref(docs[k].result);
        json_decref(docs[k].env);
    }
    free(docs);
}

const struct creport_rundoc *creport_rundoc_find(const struct creport_rundoc *docs, size_t n,
                                                 int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (docs[i].run->id == id)
            return &docs[i];
    return NULL;
}

int creport_build(const struct store_experiment *x, const char *spec_json,
                  const struct store_plan_row *plan, size_t nplan, const struct store_run *runs,
                  size_t nruns, const struct creport_opts *o, struct creport **out, char *err,
                  size_t errlen)
{
    struct creport_rundoc *docs = NULL;
    *out = NULL;
    if (creport_rundocs_parse(runs, nruns, &docs))
        return err_set(err, errlen, ENOMEM, "out of memory building the report");
    int e = creport_build_docs(x, spec_json, plan, nplan, docs, nruns, o, out, err, errlen);
    creport_rundocs_free(docs, nruns);
    return e;
}
