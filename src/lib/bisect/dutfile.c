/* The experiment file of a bisection on a device under test (bisect/dutfile.h). */
#include "bisect/dutfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bisect_dutfile_expand(const char *s, const char *hash)
{
    static const char commit[] = "{commit}", shrt[] = "{short}";
    size_t hl = strlen(hash), n = 1;
    for (const char *p = s; *p; p++)
        n +=
            !strncmp(p, commit, sizeof(commit) - 1) || !strncmp(p, shrt, sizeof(shrt) - 1) ? hl : 1;
    char *out = malloc(n), *o = out;
    if (!out)
        return NULL;
    while (*s) {
        if (!strncmp(s, commit, sizeof(commit) - 1)) {
            o += sprintf(o, "%s", hash);
            s += sizeof(commit) - 1;
        } else if (!strncmp(s, shrt, sizeof(shrt) - 1)) {
            o += sprintf(o, "%.12s", hash);
            s += sizeof(shrt) - 1;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

static bool names_commit(const char *s)
{
    return s && (strstr(s, "{commit}") || strstr(s, "{short}"));
}

/*
 * What of e netab bisect cannot use, as a sentence into why; false when
 * nothing. Runs, warm-ups and seed are compared with the loader's defaults:
 * a value equal to the default changes nothing.
 */
static bool unusable(const struct experiment *e, char *why, size_t len)
{
    const struct exp_variant *v = e->nvariants == 1 ? &e->variants[0] : NULL;
    const char *key = e->naxes                           ? "matrix"
                      : e->prepare                       ? "prepare"
                      : e->runs != 5 || e->warmup != 1   ? "runs/warmup (use --runs, --warmup)"
                      : e->has_seed                      ? "seed (use --seed)"
                      : e->cooldown > 0                  ? "cooldown"
                      : e->timeout > 0                   ? "timeout (use --timeout)"
                      : e->order != EXP_ORDER_RANDOMIZED ? "order"
                      : !v                               ? NULL
                      : v->cmd                           ? "cmd"
                      : v->setup || v->teardown    ? "a variant's setup/teardown (use --setup)"
                      : v->cpus || v->max_freq_mhz ? "cpus/max_freq_mhz"
                      : v->layout                  ? "layout"
                                                   : NULL;
    if (key) {
        snprintf(why, len, "%s: netab bisect does not use it; remove it from the file", key);
        return true;
    }
    if (!e->dut) {
        snprintf(why, len,
                 "no dut: section (netab bisect --experiment boots a device under test "
                 "into each side's build)");
        return true;
    }
    if (!v) {
        snprintf(why, len,
                 "%zu variants: netab bisect needs exactly one, the template of every side's boot "
                 "and expect",
                 e->nvariants);
        return true;
    }
    if (!names_commit(v->boot) || !names_commit(v->expect)) {
        snprintf(why, len,
                 "variant '%s': its %s must name {commit} or {short}, so that each side boots "
                 "its own build and the DUT's identity shows which build it runs",
                 v->name, !names_commit(v->boot) ? "boot" : "expect");
        return true;
    }
    return false;
}

int bisect_dutfile_load(const char *name, const char *text, size_t len, struct bisect_dutfile *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct exp_errors errs = {0};
    int rc = experiment_load_buffer(text, len, &out->e, &errs);
    if (rc == -ENOMEM)
        err_set(err, errlen, ENOMEM, "out of memory");
    else if (rc)
        err_set(err, errlen, -rc, "%s:%d:%d: %s", name, errs.n ? errs.v[0].line : 0,
                errs.n ? errs.v[0].col : 0, errs.n ? errs.v[0].msg : strerror(-rc));
    exp_errors_free(&errs);
    char why[NB_ERRLEN];
    if (!rc && unusable(out->e, why, sizeof(why)))
        rc = err_set(err, errlen, EINVAL, "%s: %s", name, why);
    int argc = 0;
    if (!rc && (rc = experiment_run_args(out->e, &out->e->variants[0], NULL, &out->words, &argc)))
        err_set(err, errlen, -rc, "%s: the run options: %s", name, strerror(-rc));
    if (!rc) {
        /* "run" first and "--json" last are the campaign engine's own. */
        free(out->words[0]);
        memmove(out->words, out->words + 1, (size_t)(argc - 1) * sizeof(*out->words));
        out->nwords = (size_t)(argc - 2);
        free(out->words[out->nwords]);
        out->words[out->nwords] = NULL;
    }
    if (rc)
        bisect_dutfile_free(out);
    return rc;
}

void bisect_dutfile_free(struct bisect_dutfile *f)
{
    exp_argv_free(f->words);
    experiment_free(f->e);
    memset(f, 0, sizeof(*f));
}
