/* Expanding an experiment into matrix cells and the netab run arguments of each run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/words.h"
#include "experiment/exp_priv.h"

void exp_cells_free(struct exp_cell *cells, size_t n)
{
    if (!cells)
        return;
    for (size_t i = 0; i < n; i++) {
        free(cells[i].name);
        free(cells[i].kv);
    }
    free(cells);
}

static size_t cell_count(const struct experiment *e)
{
    size_t n = 1;
    for (size_t a = 0; a < e->naxes; a++)
        n *= e->axes[a].nvalues;
    return n;
}

int experiment_cells(const struct experiment *e, struct exp_cell **cells, size_t *n)
{
    size_t count = cell_count(e);
    *cells = NULL;
    *n = 0;
    struct exp_cell *v = calloc(count, sizeof(*v));
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < count; i++) {
        struct exp_cell *c = &v[i];
        size_t namelen = 1;
        if (e->naxes) {
            c->kv = calloc(e->naxes, sizeof(*c->kv));
            if (!c->kv)
                goto nomem;
        }
        c->nkv = e->naxes;
        /* Mixed-radix decoding of i: the last axis is the fastest digit. */
        size_t rest = i;
        for (size_t a = e->naxes; a-- > 0;) {
            const struct exp_axis *ax = &e->axes[a];
            c->kv[a] = (struct exp_kv){ax->key, ax->values[rest % ax->nvalues]};
            rest /= ax->nvalues;
        }
        for (size_t a = 0; a < e->naxes; a++)
            namelen += strlen(c->kv[a].key->name) + strlen(c->kv[a].value) + 2;
        c->name = malloc(namelen < 8 ? 8 : namelen);
        if (!c->name)
            goto nomem;
        strcpy(c->name, e->naxes ? "" : "default");
        for (size_t a = 0; a < e->naxes; a++) {
            if (a)
                strcat(c->name, ",");
            strcat(c->name, c->kv[a].key->name);
            strcat(c->name, "=");
            strcat(c->name, c->kv[a].value);
        }
    }
    *cells = v;
    *n = count;
    return 0;
nomem:
    exp_cells_free(v, count);
    return -ENOMEM;
}

void exp_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

/* A NULL-terminated vector of strings that grows; `failed` sticks after ENOMEM. */
struct strvec {
    char **v;
    size_t n, cap;
    bool failed;
};

static void vec_push(struct strvec *s, const char *str, size_t len)
{
    if (s->failed)
        return;
    if (s->n + 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        char **v = realloc(s->v, cap * sizeof(*v));
        if (!v) {
            s->failed = true;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    char *d = strndup(str, len);
    if (!d) {
        s->failed = true;
        return;
    }
    s->v[s->n++] = d;
    s->v[s->n] = NULL;
}

static int vec_finish(struct strvec *s, char ***out)
{
    if (!s->failed && !s->v) {
        s->v = calloc(1, sizeof(char *));
        s->failed = !s->v;
    }
    if (s->failed) {
        exp_argv_free(s->v);
        return -ENOMEM;
    }
    *out = s->v;
    return 0;
}

int exp_split_words(const char *s, char ***words, size_t *n, char *err, size_t errlen)
{
    /* One splitter for every place netab takes options as text (util/words.c). */
    struct words ws;
    int rc = words_split(s, &ws, err, errlen);
    if (rc)
        return rc;
    *words = ws.w;
    *n = ws.n;
    return 0;
}

/*
 * Appends the option for kv: "--test tcp_stream", "-R" for true, nothing for
 * false; "--iperf3" for protocol iperf3, nothing for netab.
 */
static void push_kv(struct strvec *s, const struct exp_kv *kv)
{
    if (kv->key->kind == EXP_DUT)
        return; /* which machine, not an option of netab run */
    if (kv->key->kind == EXP_BOOL || kv->key->kind == EXP_PROTOCOL) {
        if (!strcmp(kv->value, "true") || !strcmp(kv->value, "iperf3"))
            vec_push(s, kv->key->opt, strlen(kv->key->opt));
        return;
    }
    vec_push(s, kv->key->opt, strlen(kv->key->opt));
    vec_push(s, kv->value, strlen(kv->value));
}

/* The cell's value for key k, or NULL. */
static const struct exp_kv *cell_value(const struct exp_cell *c, const struct exp_key *k)
{
    for (size_t i = 0; c && i < c->nkv; i++)
        if (c->kv[i].key == k)
            return &c->kv[i];
    return NULL;
}

int experiment_run_args(const struct experiment *e, const struct exp_variant *v,
                        const struct exp_cell *c, char ***argv, int *argc)
{
    return exp_run_args(e, v, c, true, argv, argc);
}

int exp_run_args(const struct experiment *e, const struct exp_variant *v, const struct exp_cell *c,
                 bool with_rate, char ***argv, int *argc)
{
    struct strvec s = {0};
    char **words = NULL;
    size_t nwords = 0;
    char why[NB_ERRLEN];
    *argv = NULL;
    *argc = 0;
    if (v->opts) {
        int err = exp_split_words(v->opts, &words, &nwords, why, sizeof(why));
        if (err)
            return err;
    }
    vec_push(&s, "run", 3);
    for (size_t i = 0; i < e->ntest; i++) {
        const struct exp_kv *over = cell_value(c, e->test[i].key);
        if (with_rate || e->test[i].key->kind != EXP_RATE)
            push_kv(&s, over ? over : &e->test[i]);
    }
    for (size_t i = 0; c && i < c->nkv; i++) {
        bool in_test = false;
        for (size_t j = 0; j < e->ntest && !in_test; j++)
            in_test = e->test[j].key == c->kv[i].key;
        if (!in_test && (with_rate || c->kv[i].key->kind != EXP_RATE))
            push_kv(&s, &c->kv[i]);
    }
    if (v->iperf3)
        vec_push(&s, "--iperf3", 8);
    for (size_t i = 0; i < nwords; i++)
        vec_push(&s, words[i], strlen(words[i]));
    vec_push(&s, "--json", 6);
    exp_argv_free(words);
    int err = vec_finish(&s, argv);
    if (!err)
        *argc = (int)s.n;
    return err;
}
