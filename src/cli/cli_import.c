/*
 * `netab import`: iperf3 -J documents and iperf2 text reports recorded in
 * the results store as runs of a named variant (docs/store.md "Imported
 * runs"), so that `netab report` compares old numbers with netab's own.
 * Every file is read and checked before anything is written, and all runs
 * go into the store in one transaction: a bad file imports nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "input/input_runs.h"
#include "store/store.h"
#include "store/store_import.h"
#include "util/textfile.h"

struct import_args {
    const char *db;
    struct store_import_target t;
    enum input_format format;
    char **files;
    int nfiles;
};

static int set_format(void *field, const char *value, const struct cli_opt *o, char *err,
                      size_t errlen)
{
    enum input_format *f = field;
    (void)o;
    if (input_parse_format(value, f) ||
        (*f != INPUT_AUTO && *f != INPUT_IPERF3 && *f != INPUT_IPERF2))
        return err_set(err, errlen, EINVAL, "--format: '%s' is not auto, iperf3 or iperf2", value);
    return 0;
}

#define FIELD(f) offsetof(struct import_args, f)

static const struct cli_opt options[] = {
    {"variant", 0, "NAME", "the variant the runs belong to (required)", cli_set_nonempty,
     FIELD(t.variant), 0, 0},
    {"experiment", 0, "X",
     "add them to experiment X (an id, or a name); a name no\nexperiment has creates an import "
     "experiment of that\nname. Default: a new experiment called 'import'",
     cli_set_string, FIELD(t.experiment), 0, 0},
    {"cell", 0, "NAME",
     "the matrix cell (default: the experiment's only cell,\n'default' in a new experiment)",
     cli_set_string, FIELD(t.cell), 0, 0},
    {"format", 0, "F", "auto (default: JSON is iperf3's, text iperf2's),\niperf3 or iperf2",
     set_format, FIELD(format), 0, 0},
    {"db", 0, "PATH", "the database (default: $NETAB_DB, else\n$XDG_DATA_HOME/netab/results.db)",
     cli_set_string, FIELD(db), 0, 0},
    {0},
};

static const struct cli_cmd import_cmd = {
    .name = "import",
    .usage = "usage: netab import --variant NAME [--db PATH] [--experiment NAME|ID]\n"
             "                    [--cell NAME] [--format auto|iperf3|iperf2] FILE...\n"
             "\n"
             "Records the runs of other tools in the results store as runs of variant\n"
             "NAME: every iperf3 -J document (one per file, several concatenated, or an\n"
             "array) and every iperf2 run (its [SUM] line or its one stream's final line,\n"
             "for UDP the server report), with the throughput netab stats reads from\n"
             "them (iperf3: the receiver's view, end.sum_received), the file, the run's\n"
             "place in it and the original document or text. `netab report` then\n"
             "compares them with netab's runs like any others (docs/store.md).\n"
             "\n"
             "options:\n",
    .tail = "\n"
            "Prints the experiment's id on standard output. exit status: 0 imported;\n"
            "2 bad command line, a file that cannot be read or holds no run, an unknown\n"
            "experiment, or a store that cannot be written (nothing is imported).\n",
    .opts = options,
};

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct import_args *a)
{
    memset(a, 0, sizeof(*a));
    int rc = cli_opts_parse(&import_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
    if (!a->t.variant)
        return cli_usage_error("import", "which variant are the runs? (--variant NAME)");
    if (optind >= argc)
        return cli_usage_error("import", "which files? (iperf3 -J output or iperf2 logs)");
    a->files = argv + optind;
    a->nfiles = argc - optind;
    return -1;
}

/* Every run to record, with the strings the store borrows. */
struct pending {
    struct store_import_run *runs;
    char **texts; /* [n * 3]: result, params, argv of each run */
    size_t n;
};

static void pending_free(struct pending *p)
{
    for (size_t i = 0; p->texts && i < p->n * 3; i++)
        free(p->texts[i]);
    free(p->texts);
    free(p->runs);
}

/* Appends run r of file (text: the file's content) to p. Returns 0 or -ENOMEM. */
static int pending_add(struct pending *p, const struct input_run *r, const char *file,
                       const char *text)
{
    struct store_import_run *nr = realloc(p->runs, (p->n + 1) * sizeof(*nr));
    if (nr)
        p->runs = nr;
    char **nt = nr ? realloc(p->texts, (p->n + 1) * 3 * sizeof(*nt)) : NULL;
    if (!nt)
        return -ENOMEM;
    p->texts = nt;
    char **t = &nt[p->n * 3];
    json_t *doc = input_run_document(r, file, r->original ? NULL : text);
    json_t *params = doc ? json_pack("{s:O}", "import", json_object_get(doc, "import")) : NULL;
    t[0] = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    t[1] = params ? json_dumps(params, JSON_COMPACT) : NULL;
    t[2] = NULL;
    const char *tool = r->tool == INPUT_IPERF3 ? "iperf3 -J" : "iperf2";
    if (asprintf(&t[2], "imported: %s output %s, run %zu", tool, file, r->index + 1) < 0)
        t[2] = NULL;
    json_decref(doc);
    json_decref(params);
    p->runs[p->n] = (struct store_import_run){t[0], t[1], t[2]};
    p->n++;
    return t[0] && t[1] && t[2] ? 0 : -ENOMEM;
}

/* Reads and parses one file into p; prints why not and returns -1 on failure. */
static int read_one(const char *path, enum input_format format, struct pending *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "netab import: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *buf = NULL, err[NB_ERRLEN * 2];
    size_t len = 0, n = 0;
    int rc = textfile_read(f, TEXTFILE_MAX, &buf, &len);
    fclose(f);
    if (rc) {
        fprintf(stderr, "netab import: cannot read %s: %s\n", path,
                rc == -EFBIG    ? "larger than 64 MiB, the most one input may hold"
                : rc == -EILSEQ ? "a binary file (it holds a NUL byte)"
                                : strerror(-rc));
        return -1;
    }
    struct input_run *runs = NULL;
    rc = input_runs_parse(path, buf, len, format, &runs, &n, err, sizeof(err));
    if (rc)
        fprintf(stderr, "netab import: %s\n", err);
    char abs[PATH_MAX];
    const char *file = realpath(path, abs) ? abs : path;
    /*
     * Every iperf2 run keeps the whole log (the parser does not cut it into
     * runs) unless that would pass 16 MiB for the file; then only its
     * first run does and the others point to it.
     */
    bool each = n <= 1 || len <= ((size_t)16 << 20) / n;
    for (size_t i = 0; !rc && i < n; i++)
        if ((rc = pending_add(p, &runs[i], file, each || i == 0 ? buf : NULL)))
            fprintf(stderr, "netab import: out of memory\n");
    if (!rc)
        fprintf(stderr, "netab import: %s: %zu %s run%s\n", path, n,
                runs[0].tool == INPUT_IPERF3 ? "iperf3" : "iperf2", n == 1 ? "" : "s");
    input_runs_free(runs, n);
    free(buf);
    return rc ? -1 : 0;
}

int cli_import(int argc, char **argv)
{
    struct import_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    struct pending p = {0};
    for (int i = 0; i < a.nfiles; i++)
        if (read_one(a.files[i], a.format, &p)) {
            pending_free(&p);
            fprintf(stderr, "netab import: nothing imported\n");
            return EXIT_USAGE;
        }
    char path[4096], err[NB_ERRLEN * 2];
    struct store *db = NULL;
    int64_t id = 0;
    int seq = 0;
    int e = store_default_path(a.db, path, sizeof(path), err, sizeof(err));
    if (!e)
        e = store_open(path, STORE_OPEN_CREATE, &db, err, sizeof(err));
    if (!e)
        e = store_import(db, &a.t, p.runs, p.n, &id, &seq, err, sizeof(err));
    store_close(db);
    if (e) {
        fprintf(stderr, "netab import: %s; nothing imported\n", err);
        pending_free(&p);
        return EXIT_ERROR;
    }
    fprintf(stderr,
            "netab import: %zu run%s recorded as variant %s in experiment %lld (seq %d-%d); "
            "store %s\n",
            p.n, p.n == 1 ? "" : "s", a.t.variant, (long long)id, seq, seq + (int)p.n - 1, path);
    printf("%lld\n", (long long)id);
    pending_free(&p);
    return fflush(stdout) ? EXIT_ERROR : EXIT_OK;
}
