#include "report/identity.h"

#include <errno.h>
#include <stdlib.h>

#include "report/env.h"
#include "envcap/envcap.h"

/*
 * The two identities of a run (new references; JSON null when unknown):
 * local from its environment snapshot, else from its result's host.local;
 * remote from its result's host.remote.
 */
static void identities(const struct creport_rundoc *run, json_t **local, json_t **remote)
{
    json_t *env = run ? run->env : NULL, *res = run ? run->result : NULL;
    json_t *host = json_object_get(res, "host");
    json_t *l = json_object_get(env, "identity");
    if (!json_is_object(l))
        l = json_object_get(json_object_get(host, "local"), "identity");
    json_t *rm = json_object_get(json_object_get(host, "remote"), "identity");
    *local = json_is_object(l) ? json_incref(l) : json_null();
    *remote = json_is_object(rm) ? json_incref(rm) : json_null();
}

/* Appends b's array elements to a. Returns 0 or -ENOMEM. */
static int extend(json_t *a, json_t *b)
{
    int e = a && b ? json_array_extend(a, b) : -1;
    json_decref(b);
    return e ? -ENOMEM : 0;
}

/* The notes and remote rows of one env_diffs entry d. */
static int one(struct creport_env_diff *d, const struct creport_rundoc *runs, size_t nruns)
{
    const struct creport_rundoc *base = creport_rundoc_find(runs, nruns, d->baseline_run);
    const struct creport_rundoc *run = creport_rundoc_find(runs, nruns, d->run);
    json_t *la, *ra, *lb, *rb;
    identities(base, &la, &ra);
    identities(run, &lb, &rb);
    json_t *notes = env_identity_notes(la, lb, "local");
    int e = notes ? extend(notes, env_identity_notes(ra, rb, "remote")) : -ENOMEM;
    if (!e)
        e = creport_env_add_strings(&d->identity_notes, &d->nidentity_notes, notes);
    json_decref(notes);
    if (!e && (json_is_object(ra) || json_is_object(rb))) {
        json_t *wa = json_pack("{s:O}", "remote_identity", ra);
        json_t *wb = json_pack("{s:O}", "remote_identity", rb);
        json_t *rows = wa && wb ? env_diff(wa, wb) : NULL;
        e = rows ? creport_env_add_facts(d, rows) : -ENOMEM;
        json_decref(rows);
        json_decref(wa);
        json_decref(wb);
    }
    json_decref(la);
    json_decref(ra);
    json_decref(lb);
    json_decref(rb);
    return e;
}

int creport_identity_notes(struct creport *r, const struct creport_rundoc *runs, size_t nruns)
{
    for (size_t i = 0; i < r->nenv_diffs; i++) {
        int e = one(&r->env_diffs[i], runs, nruns);
        if (e)
            return e;
    }
    return 0;
}
