/*
 * `netab layout OLD NEW [--hot FILE|LIST] [--line BYTES] [--json]`: compares
 * the code layout of two builds (docs/layout.md). Argument parsing and
 * printing only; the symbol readers, the comparison and the report are
 * libnetab's layout module.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "layout/layout_files.h"
#include "layout/layout_hot.h"
#include "layout/layout_report.h"

struct layout_args {
    const char *old_path, *new_path, *hot_from, *db;
    struct layout_hot hot; /* --hot, repeatable: the union of every value's patterns */
    long line, top;
    bool json, all, show_hot;
};

/* --line: a whole number in the row's range that is also a power of two. */
static int set_line(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    long *line = field;
    int rc = opt_set_long(field, value, o, err, errlen);
    if (!rc && (*line & (*line - 1)))
        return err_set(err, errlen, EINVAL, "--line: %ld is not a power of two", *line);
    return rc;
}

#define FIELD(f) offsetof(struct layout_args, f)

static const struct opt options[] = {
    {"hot", 0, "FILE|LIST",
     "the hot functions: a file of names or globs (one a\nline), perf report --stdio or perf "
     "script output,\n'-' for stdin, or a comma list (ip_rcv,nf_nat_*);\nrepeatable; default: the "
     "built-in network paths\n(--show-hot)",
     layout_hot_opt_add, FIELD(hot), 0, 0, NULL},
    {"line", 0, "BYTES", "cache line size, a power of two 8..4096 (default 64)", set_line,
     FIELD(line), 8, 4096, NULL},
    {"top", 0, "N", "size changes shown in text (default 10, 0 = all)", opt_set_long, FIELD(top), 0,
     1000000, NULL},
    {"all", 0, NULL, "also list every function in the text report", opt_set_true, FIELD(all), 0, 0,
     NULL},
    {"json", 0, NULL, "one JSON document with every function", opt_set_true, FIELD(json), 0, 0,
     NULL},
    {"hot-from", 0, "RUN.json|EXPERIMENT[:VARIANT]",
     "the hot functions from sampled profiles (netab run\n--profile): a run's JSON document, or "
     "an experiment's\nstored runs (--db PATH); those with >= 0.5% of samples",
     opt_set_string, FIELD(hot_from), 0, 0, NULL},
    {"db", 0, "PATH", "the results store for --hot-from EXPERIMENT", opt_set_string, FIELD(db), 0,
     0, NULL},
    {"show-hot", 0, NULL, "print the built-in hot patterns and exit", opt_set_true, FIELD(show_hot),
     0, 0, NULL},
    {0},
};

static const struct opt_table layout_cmd = {
    .name = "layout",
    .usage = "usage: netab layout OLD NEW [--hot FILE|LIST | --hot-from RUN|EXP[:VARIANT]]\n"
             "                    [--line BYTES] [--json] [--all] [--top N]\n"
             "       netab layout --show-hot\n"
             "\n"
             "Compares where the functions of two builds lie in memory: for each\n"
             "function in both, its offset within a cache line and the number of\n"
             "lines it spans; functions only in one build as added or removed; size\n"
             "changes as bloat-o-meter shows them; and whether the hot functions\n"
             "moved within their lines, so a throughput change can be told from an\n"
             "alignment accident. OLD and NEW are ELF files (vmlinux, a .ko, a shared\n"
             "object, an executable; .symtab, else .dynsym) or System.map,\n"
             "/proc/kallsyms or `nm -n [-S]` text. See docs/layout.md.\n"
             "\n",
    .tail = "\n"
            "Exit status: 0 when compared, 2 for a bad command line or input file.\n",
    .opts = options,
};

/* Parses argv into a; returns -1 to go on (also for --show-hot), else the exit status. */
static int parse_args(int argc, char **argv, struct layout_args *a)
{
    *a = (struct layout_args){.line = 64, .top = 10};
    int rc = cli_opts_parse(&layout_cmd, argc, argv, a);
    if (rc >= 0 || a->show_hot)
        return rc;
    if (layout_hot_given(&a->hot) && a->hot_from)
        return cli_usage_error("layout", "--hot and --hot-from are two sources: give one");
    if (argc - optind != 2)
        return cli_usage_error("layout", "give two files, OLD and NEW (got %d)", argc - optind);
    a->old_path = argv[optind];
    a->new_path = argv[optind + 1];
    return -1;
}

/* Reports a bad input: on stderr, and for --json also as the document on stdout. */
static int input_error(const struct layout_args *a, const char *msg)
{
    fprintf(stderr, "netab layout: %s\n", msg);
    if (a->json)
        cli_json_print("layout", json_pack("{s:s}", "error", msg));
    return EXIT_USAGE;
}

int cli_layout(int argc, char **argv)
{
    struct layout_args a;
    int rc = parse_args(argc, argv, &a);
    struct layout_files f = {0};
    if (rc >= 0 || a.show_hot) {
        for (const char *const *p = layout_hot_builtin_patterns(); a.show_hot && *p; p++)
            printf("%s\n", *p);
        rc = rc >= 0 ? rc : EXIT_OK;
        goto out;
    }
    char err[NB_ERRLEN * 2] = "out of memory"; /* the one way layout_hot_builtin() fails */
    int lrc = layout_hot_given(&a.hot) ? 0
              : a.hot_from ? layout_hot_from(a.hot_from, a.db, LAYOUT_HOT_MIN_SHARE, &a.hot, err,
                                             sizeof(err))
                           : layout_hot_builtin(&a.hot);
    if (!lrc)
        lrc = layout_files_compare(a.old_path, a.new_path, &a.hot, (unsigned)a.line, &f, err,
                                   sizeof(err));
    /* Out of memory is no fault of the input: no error document blames it. */
    if (lrc) {
        rc = lrc == -ENOMEM ? cli_fail(EXIT_ERROR, "layout", "%s", err) : input_error(&a, err);
        goto out;
    }
    struct layout_input in = {a.old_path, a.new_path, &f.old, &f.new, &a.hot};
    rc = EXIT_OK;
    if (a.json)
        rc = cli_json_print("layout", layout_report_json(&f.diff, &in)) ? EXIT_ERROR : EXIT_OK;
    else
        layout_report_text(stdout, &f.diff, &in, (size_t)a.top, a.all);
out:
    layout_files_free(&f);
    layout_hot_free(&a.hot);
    return rc;
}
