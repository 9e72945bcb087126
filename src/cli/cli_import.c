/*
 * `netab import`: iperf3 -J documents, iperf2 text reports and plain
 * numbers recorded in the results store as runs of a named variant (docs/store.md "Imported
 * runs"), so that `netab report` compares old numbers with netab's own.
 * Every file is read and checked before anything is written, and all runs
 * go into the store in one transaction: a bad file imports nothing.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "import/import.h"
#include "input/input_docs.h"
#include "store/store.h"
#include "store/store_import.h"

struct import_args {
    const char *db;
    struct store_import_target t;
    enum input_format format;
    int order; /* enum input_docs_order; 0: each format's default */
    char **files;
    int nfiles;
};

#define FIELD(f) offsetof(struct import_args, f)

static const struct opt options[] = {
    {"variant", 0, "NAME", "the variant the runs belong to (required)", opt_set_name,
     FIELD(t.variant), 0, 0, NULL},
    {"experiment", 0, "X",
     "add them to experiment X (an id, or a name); a name no\nexperiment has creates an import "
     "experiment of that\nname. Default: a new experiment called 'import'",
     opt_set_name, FIELD(t.experiment), 0, 0, NULL},
    {"cell", 0, "NAME",
     "the matrix cell (default: the experiment's only cell,\n'default' in a new experiment)",
     opt_set_cell_name, FIELD(t.cell), 0, 0, NULL},
    {"format", 0, "F",
     "auto (JSON iperf3's, text iperf2's), iperf3, iperf2,\nplain (-EINTR: failed)", opt_set_choice,
     FIELD(format), 0, 0, input_docs_format_choices},
    {"order", 0, "O", "run, or unknown (plain's default): no drift judged", opt_set_choice,
     FIELD(order), 0, 0, input_docs_order_choices},
    CLI_DB_OPT(FIELD(db)),
    {0},
};

static const struct opt_table import_cmd = {
    .name = "import",
    .usage = "usage: netab import --variant NAME [--db PATH] [--experiment NAME|ID]\n"
             "                    [--cell NAME] [--format auto|iperf3|iperf2|plain]\n"
             "                    [--order run|unknown] FILE...\n"
             "\n"
             "Records the runs of other tools in the results store as runs of variant\n"
             "NAME: every iperf3 -J document, iperf2 run or plain number (-EINTR: a\n"
             "failed run), with the throughput netab stats reads from them, the file,\n"
             "the run's place in it and the original. `netab report` then compares\n"
             "them with netab's runs like any others (docs/store.md).\n"
             "\n"
             "options:\n",
    .tail = "\nPrints the experiment's id on standard output. exit status: 0 imported;\n"
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
        return cli_usage_error("import", "which files? (iperf3 -J, iperf2 logs, plain numbers)");
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
        if (input_docs_read(a->files[i], a->format, d, &n, &tool, err, sizeof(err)))
            return cli_fail(-1, "import", "%s", err);
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
    struct input_docs d = {.order = (enum input_docs_order)a.order};
    if (read_all(&a, &d)) {
        input_docs_free(&d);
        return cli_fail(EXIT_USAGE, "import", "nothing imported");
    }
    char err[NB_ERRLEN * 2];
    struct store *db = NULL;
    int64_t id = 0;
    int seq = 0;
    int e = store_open_default(a.db, STORE_OPEN_CREATE, &db, err, sizeof(err));
    if (!e)
        e = import_docs(db, &a.t, &d, &id, &seq, err, sizeof(err));
    if (e) {
        rc = cli_fail(EXIT_ERROR, "import", "%s; nothing imported", err);
    } else {
        fprintf(stderr,
                "netab import: %zu run%s recorded as variant %s in experiment %lld (seq %d-%d); "
                "store %s\n",
                d.n, d.n == 1 ? "" : "s", a.t.variant, (long long)id, seq, seq + (int)d.n - 1,
                store_path(db));
        printf("%lld\n", (long long)id);
        rc = fflush(stdout) ? EXIT_ERROR : EXIT_OK;
    }
    store_close(db);
    input_docs_free(&d);
    return rc;
}
