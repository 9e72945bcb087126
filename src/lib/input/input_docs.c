/*
 * Run files of other tools into the texts `netab import` records: moved
 * from the CLI (cli_import.c), which keeps the argument handling.
 */
#include "input/input_docs.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_runs.h"
#include "util/textfile.h"
#include "util/jsonout.h"

void input_docs_free(struct input_docs *d)
{
    for (size_t i = 0; d->docs && i < d->n; i++) {
        free(d->docs[i].result_json);
        free(d->docs[i].params_json);
        free(d->docs[i].argv_text);
        free(d->docs[i].error);
    }
    free(d->docs);
    *d = (struct input_docs){0};
}

/* Appends run r of file (text: the file's content, or NULL) to d. Returns 0 or -ENOMEM. */
static int docs_add(struct input_docs *d, const struct input_run *r, const char *file,
                    const char *text)
{
    struct input_doc *nd = realloc(d->docs, (d->n + 1) * sizeof(*nd));
    if (!nd)
        return -ENOMEM;
    d->docs = nd;
    struct input_doc *t = &nd[d->n++];
    *t = (struct input_doc){0};
    json_t *doc = input_run_document(r, file, r->original ? NULL : text);
    json_t *params = doc ? json_pack("{s:O}", "import", json_object_get(doc, "import")) : NULL;
    t->result_json = doc ? jsonout_compact(doc) : NULL;
    t->params_json = params ? jsonout_compact(params) : NULL;
    const char *tool = r->tool == INPUT_IPERF3  ? "iperf3 -J output"
                       : r->tool == INPUT_PLAIN ? "plain numbers"
                                                : "iperf2 output";
    if (asprintf(&t->argv_text, "imported: %s %s, run %zu", tool, file, r->index + 1) < 0)
        t->argv_text = NULL;
    if (r->failed[0])
        t->error = strdup(r->failed);
    json_decref(doc);
    json_decref(params);
    bool whole = t->result_json && t->params_json && t->argv_text && (t->error || !r->failed[0]);
    return whole ? 0 : -ENOMEM;
}

/* The file's content into *buf (owned), with the reason in err when it cannot be read. */
static int read_text(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(err, errlen, errno, "cannot open %s: %s", path, strerror(errno));
    int rc = textfile_read(f, TEXTFILE_MAX, buf, len);
    fclose(f);
    if (rc)
        return err_set(err, errlen, rc, "cannot read %s: %s", path,
                       rc == -EFBIG    ? "larger than 64 MiB, the most one input may hold"
                       : rc == -EILSEQ ? "a binary file (it holds a NUL byte)"
                                       : strerror(-rc));
    return 0;
}

const struct opt_choice input_docs_format_choices[] = {
    {"auto", INPUT_AUTO},
    {"iperf3", INPUT_IPERF3},
    {"iperf2", INPUT_IPERF2},
    {"plain", INPUT_PLAIN},
    {NULL, 0},
};

const struct opt_choice input_docs_order_choices[] = {
    {"run", INPUT_ORDER_RUN},
    {"unknown", INPUT_ORDER_UNKNOWN},
    {NULL, 0},
};

int input_docs_read(const char *path, enum input_format format, struct input_docs *d, size_t *nruns,
                    const char **tool, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0, n = 0, before = d->n;
    int rc = read_text(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    struct input_run *runs = NULL;
    rc = input_runs_parse(path, buf, len, format, &runs, &n, err, errlen);
    char abs[PATH_MAX];
    const char *file = realpath(path, abs) ? abs : path;
    /* The parser does not cut an iperf2 log into runs: each keeps all of it, up to 16 MiB. */
    bool each = n <= 1 || len <= ((size_t)16 << 20) / n;
    for (size_t i = 0; !rc && i < n; i++) {
        /* A list of numbers says nothing of the order the runs were made in, unless told. */
        runs[i].order_unknown = d->order == INPUT_ORDER_UNKNOWN ||
                                (d->order == INPUT_ORDER_DEFAULT && runs[i].tool == INPUT_PLAIN);
        if ((rc = docs_add(d, &runs[i], file, each || i == 0 ? buf : NULL)))
            err_set(err, errlen, rc, "out of memory");
    }
    if (!rc) {
        *nruns = n;
        *tool = input_format_name(runs[0].tool);
    }
    /* Nothing of a failed file stays. */
    while (rc && d->n > before) {
        struct input_doc *t = &d->docs[--d->n];
        free(t->result_json);
        free(t->params_json);
        free(t->argv_text);
        free(t->error);
    }
    input_runs_free(runs, n);
    free(buf);
    return rc;
}
