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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "layout/layout_diff.h"
#include "layout/layout_hot.h"
#include "layout/layout_report.h"
#include "store/store.h"
#include "store/store_docs.h"
#include "symbols/symtab.h"

struct layout_args {
    const char *old_path, *new_path, *hot, *hot_from, *db;
    long line, top;
    bool json, all, show_hot;
};

static int set_line(void *field, const char *value, const struct cli_opt *o, char *err,
                    size_t errlen)
{
    long *line = field;
    (void)o;
    if (!optval_int("--line", value, 8, 4096, line, err, errlen))
        return -EINVAL;
    if (*line & (*line - 1))
        return err_set(err, errlen, EINVAL, "--line: %ld is not a power of two", *line);
    return 0;
}

static int set_top(void *field, const char *value, const struct cli_opt *o, char *err,
                   size_t errlen)
{
    (void)o;
    return optval_int("--top", value, 0, 1000000, field, err, errlen) ? 0 : -EINVAL;
}

#define FIELD(f) offsetof(struct layout_args, f)

static const struct cli_opt options[] = {
    {"hot", 0, "FILE|LIST",
     "the hot functions: a file of names or globs (one a\nline), perf report --stdio or perf "
     "script output,\n'-' for stdin, or a comma list (ip_rcv,nf_nat_*);\ndefault: the built-in "
     "network paths (--show-hot)",
     cli_set_string, FIELD(hot), 0, 0},
    {"line", 0, "BYTES", "cache line size, a power of two 8..4096 (default 64)", set_line,
     FIELD(line), 0, 0},
    {"top", 0, "N", "size changes shown in text (default 10, 0 = all)", set_top, FIELD(top), 0, 0},
    {"all", 0, NULL, "also list every function in the text report", cli_set_true, FIELD(all), 0, 0},
    {"json", 0, NULL, "one JSON document with every function", cli_set_true, FIELD(json), 0, 0},
    {"hot-from", 0, "RUN.json|EXPERIMENT[:VARIANT]",
     "the hot functions from sampled profiles (netab run\n--profile): a run's JSON document, or "
     "an experiment's\nstored runs (--db PATH); those with >= 0.5% of samples",
     cli_set_string, FIELD(hot_from), 0, 0},
    {"db", 0, "PATH", "the results store for --hot-from EXPERIMENT", cli_set_string, FIELD(db), 0,
     0},
    {"show-hot", 0, NULL, "print the built-in hot patterns and exit", cli_set_true, FIELD(show_hot),
     0, 0},
    {0},
};

static const struct cli_cmd layout_cmd = {
    .name = "layout",
    .usage = "usage: netab layout OLD NEW [--hot FILE|LIST | --hot-from RUN|EXP[:VARIANT]]\n"
             "                    [--line BYTES] [--json]\n"
             "                            [--all] [--top N]\n"
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

/* Parses argv into a; returns EXIT_OK to go on, or the exit status (help, usage error). */
static int parse_args(int argc, char **argv, struct layout_args *a, bool *done)
{
    *a = (struct layout_args){.line = 64, .top = 10};
    *done = false;
    int rc = cli_opts_parse(&layout_cmd, argc, argv, a);
    if (rc >= 0) {
        *done = true;
        return rc;
    }
    if (a->show_hot) {
        *done = true;
        for (const char *const *p = layout_hot_builtin_patterns(); *p; p++)
            printf("%s\n", *p);
        return EXIT_OK;
    }
    if (a->hot && a->hot_from)
        return cli_usage_error("layout", "--hot and --hot-from are two sources: give one");
    if (argc - optind != 2)
        return cli_usage_error("layout", "give two files, OLD and NEW (got %d)", argc - optind);
    a->old_path = argv[optind];
    a->new_path = argv[optind + 1];
    return EXIT_OK;
}

/* Reports a bad input: on stderr, and for --json also as the document on stdout. */
static int input_error(const struct layout_args *a, const char *msg)
{
    fprintf(stderr, "netab layout: %s\n", msg);
    if (a->json)
        cli_json_print("layout", json_pack("{s:s}", "error", msg));
    return EXIT_USAGE;
}

/* Functions with less than this share of all samples are not hot. */
#define MIN_SHARE_PCT 0.5

/* "12" or "12:patched" into an id and a variant (NULL: every variant). */
static int parse_ref(const char *arg, long long *id, const char **variant)
{
    char *end;
    errno = 0;
    *id = strtoll(arg, &end, 10);
    if (errno || end == arg || *id <= 0 || (*end && *end != ':') || (*end == ':' && !end[1]))
        return -EINVAL;
    *variant = *end == ':' ? end + 1 : NULL;
    return 0;
}

/*
 * --hot-from ARG: the profiles of a file that exists (one `netab run
 * --profile --json` document), else of EXPERIMENT[:VARIANT]'s ok runs in
 * the store at a->db. 0 or a negative errno with a sentence in err.
 */
static int hot_from(const struct layout_args *a, struct layout_hot *hot, char *err, size_t errlen)
{
    struct stat st;
    if (stat(a->hot_from, &st) == 0)
        return layout_hot_from_file(a->hot_from, MIN_SHARE_PCT, hot, err, errlen);
    long long id;
    const char *variant;
    if (parse_ref(a->hot_from, &id, &variant))
        return err_set(err, errlen, EINVAL,
                       "--hot-from: '%s' is neither a file nor EXPERIMENT[:VARIANT]", a->hot_from);
    char path[4096], why[NB_ERRLEN * 2];
    struct store *db = NULL;
    json_t **docs = NULL;
    size_t n = 0;
    int rc = store_default_path(a->db, path, sizeof(path), err, errlen);
    if (!rc)
        rc = store_open(path, STORE_OPEN_READONLY, &db, err, errlen);
    if (!rc)
        rc = store_docs_ok_runs(db, id, variant, &docs, &n, err, errlen);
    if (rc == -ENODATA) {
        snprintf(why, sizeof(why), "%s", err);
        err_set(err, errlen, EINVAL, "--hot-from %s: %s", a->hot_from, why);
    } else if (!rc) {
        rc = layout_hot_from_profiles((const json_t *const *)docs, n, MIN_SHARE_PCT, hot, err,
                                      errlen);
    }
    store_docs_free(docs, n);
    store_close(db);
    return rc;
}

int cli_layout(int argc, char **argv)
{
    struct layout_args a;
    bool done;
    int rc = parse_args(argc, argv, &a, &done);
    if (rc != EXIT_OK || done)
        return rc;
    char err[NB_ERRLEN * 2];
    struct symtab old = {0}, new = {0};
    struct layout_hot hot = {0};
    struct layout_diff d = {0};
    int lrc = a.hot        ? layout_hot_load(a.hot, &hot, err, sizeof(err))
              : a.hot_from ? hot_from(&a, &hot, err, sizeof(err))
                           : layout_hot_builtin(&hot);
    if (!a.hot && !a.hot_from && lrc)
        snprintf(err, sizeof(err), "out of memory");
    if (!lrc)
        lrc = symtab_load(a.old_path, &old, err, sizeof(err));
    if (!lrc)
        lrc = symtab_load(a.new_path, &new, err, sizeof(err));
    if (lrc) {
        rc = input_error(&a, err);
        goto out;
    }
    if (layout_diff_build(&old, &new, &hot, (unsigned)a.line, &d)) {
        fprintf(stderr, "netab layout: out of memory\n");
        rc = EXIT_ERROR;
        goto out;
    }
    struct layout_input in = {a.old_path, a.new_path, &old, &new, &hot};
    if (a.json)
        rc = cli_json_print("layout", layout_report_json(&d, &in)) ? EXIT_ERROR : EXIT_OK;
    else
        layout_report_text(stdout, &d, &in, (size_t)a.top, a.all);
out:
    layout_diff_free(&d);
    layout_hot_free(&hot);
    symtab_free(&old);
    symtab_free(&new);
    return rc;
}
