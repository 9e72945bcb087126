/* The error list of experiment loading, and "did you mean" suggestions. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/experiment.h"
#include "experiment/exp_priv.h"

void exp_errors_free(struct exp_errors *errs)
{
    if (!errs)
        return;
    free(errs->v);
    *errs = (struct exp_errors){0};
}

int exp_errors_add(struct exp_errors *errs, int line, int col, const char *fmt, ...)
{
    if (errs->n >= EXP_ERRORS_MAX) {
        errs->dropped++;
        return 0;
    }
    if (errs->n == errs->cap) {
        size_t cap = errs->cap ? errs->cap * 2 : 8;
        struct exp_error *v = realloc(errs->v, cap * sizeof(*v));
        if (!v) {
            errs->dropped++;
            return -ENOMEM;
        }
        errs->v = v;
        errs->cap = cap;
    }
    struct exp_error *e = &errs->v[errs->n++];
    e->line = line;
    e->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return 0;
}

static int by_position(const void *a, const void *b)
{
    const struct exp_error *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    /* qsort is not stable; the message text keeps the order deterministic. */
    return strcmp(x->msg, y->msg);
}

void exp_errors_sort(struct exp_errors *errs, size_t from)
{
    if (errs->n > from)
        qsort(errs->v + from, errs->n - from, sizeof(errs->v[0]), by_position);
}

/* Levenshtein distance, capped: strings longer than 63 characters never match. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof(size_t));
    }
    return prev[lb];
}

const char *exp_suggest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3; /* more than two edits away is not a typo */
    size_t len = strlen(word);
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, candidates[i]);
        if (d < best_d && d < len) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}
