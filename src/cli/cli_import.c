/*
 * `netab import`: iperf3 -J documents and iperf2 text reports recorded in
 * the results store as runs of a named variant (docs/store.md "Imported
 * runs"), so that `netab report` compares old numbers with netab's own.
 * Every file is read and checked before anything is written, and all runs
 * go into the store in one transaction: a bad file imports nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "input/input_docs.h"
#include "store/store.h"
#include "store/store_import.h"

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

/*
 * Reads every file into d, saying on stderr what each held; prints why not
 * and returns -1 for the first that cannot be read or parsed.
 */
static int read_all(const struct import_args *a, struct input_docs *d)
{
    for (int i = 0; i < a->nfiles; i++) {
        char err[NB_ERRLEN * 2];
        size_t n = 0;
        const char *tool = NULL;
        if (input_docs_read(a->files[i], a->format, d, &n, &tool, err, sizeof(err))) {
            fprintf(stderr, "netab import: %s\n", err);
            return -1;
        }
        fprintf(stderr, "netab import: %s: %zu %s run%s\n", a->files[i], n, tool,
                n == 1 ? "" : "s");
    }
    return 0;
}

int cli_import(int argc, char **argv)
{
    struct import_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    struct input_docs d = {0};
    struct store_import_run *runs = NULL;
    if (read_all(&a, &d) || !(runs = calloc(d.n, sizeof(*runs)))) {
        if (d.n && !runs)
            fprintf(stderr, "netab import: out of memory\n");
        input_docs_free(&d);
        fprintf(stderr, "netab import: nothing imported\n");
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < d.n; i++)
        runs[i] = (struct store_import_run){d.docs[i].result_json, d.docs[i].params_json,
                                            d.docs[i].argv_text};
    char path[4096], err[NB_ERRLEN * 2];
    struct store *db = NULL;
    int64_t id = 0;
    int seq = 0;
    int e = store_default_path(a.db, path, sizeof(path), err, sizeof(err));
    if (!e)
        e = store_open(path, STORE_OPEN_CREATE, &db, err, sizeof(err));
    if (!e)
        e = store_import(db, &a.t, runs, d.n, &id, &seq, err, sizeof(err));
    store_close(db);
    if (e) {
        fprintf(stderr, "netab import: %s; nothing imported\n", err);
        free(runs);
        input_docs_free(&d);
        return EXIT_ERROR;
    }
    fprintf(stderr,
            "netab import: %zu run%s recorded as variant %s in experiment %lld (seq %d-%d); "
            "store %s\n",
            d.n, d.n == 1 ? "" : "s", a.t.variant, (long long)id, seq, seq + (int)d.n - 1, path);
    printf("%lld\n", (long long)id);
    free(runs);
    input_docs_free(&d);
    return fflush(stdout) ? EXIT_ERROR : EXIT_OK;
}
