/*
 * Each stored run's documents as the report builder reads them: its
 * params_json, result_json and env_json parsed once, when creport_build()
 * starts, and the fields read from them more than once taken out then.
 * They live while the report is built and are freed before creport_build()
 * returns: nothing of them goes into struct creport.
 */
#ifndef NETAB_REPORT_RUNDOC_H
#define NETAB_REPORT_RUNDOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

struct creport_rundoc {
    const struct store_run *run;
    /* The run's documents; NULL when not stored or not JSON. Owned by the array. */
    json_t *params, *result, *env;
    /* The strings below point into those documents. */
    const char *test;     /* result test.test, or NULL */
    const char *kernel;   /* env "kernel", else result host.local.kernel; NULL or not empty */
    const char *build_id; /* env identity.build_id; NULL or not empty */
    bool order_unknown;   /* imported with its run order unknown (params import.order) */
    double steal_pct;     /* metric_steal_pct() of the result; NaN without one */
};

/* runs[0..n) parsed into *out (free with creport_rundocs_free()). Returns 0 or -ENOMEM. */
NB_MUST_CHECK int creport_rundocs_parse(const struct store_run *runs, size_t n,
                                        struct creport_rundoc **out);
void creport_rundocs_free(struct creport_rundoc *docs, size_t n);

/* The run of docs[0..n) with this id, or NULL. */
const struct creport_rundoc *creport_rundoc_find(const struct creport_rundoc *docs, size_t n,
                                                 int64_t id);

/*
 * creport_build() over runs already parsed (docs[i].run the runs), which
 * it only reads: for callers that read the documents themselves first
 * (multi.c).
 */
NB_MUST_CHECK int creport_build_docs(const struct store_experiment *x, const char *spec_json,
                                     const struct store_plan_row *plan, size_t nplan,
                                     const struct creport_rundoc *docs, size_t ndocs,
                                     const struct creport_opts *o, struct creport **out, char *err,
                                     size_t errlen);

#endif
