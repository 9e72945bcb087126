/*
 * Other tools' run files as the documents `netab import` records
 * (input_docs.c): each run of each file read, parsed (input_runs.h) and
 * turned into its result document, its parameters and a line saying where
 * it came from, as text the store takes as it is. Conventions as in
 * util/err.h: 0 or a negative errno with a sentence in err.
 */
#ifndef NETAB_INPUT_INPUT_DOCS_H
#define NETAB_INPUT_INPUT_DOCS_H

#include <stddef.h>

#include "input/input.h"
#include "util/err.h"

/* One run's texts (each owned). */
struct input_doc {
    char *result_json; /* shaped like `netab run --json` */
    char *params_json; /* {"import": {tool, file, index, line}} */
    char *argv_text;   /* "imported: iperf3 -J output FILE, run N" */
    char *error; /* a failed run's failure word ("-EINTR"); NULL for a run that gave a value */
};

/* The runs of every file read so far, in order. */
struct input_docs {
    struct input_doc *docs;
    size_t n;
    /*
     * How the order of the runs read next is recorded (docs/store.md,
     * "Run order"): INPUT_ORDER_DEFAULT is run order for iperf3 and iperf2
     * output, unknown for plain numbers.
     */
    enum input_docs_order { INPUT_ORDER_DEFAULT, INPUT_ORDER_RUN, INPUT_ORDER_UNKNOWN } order;
};

void input_docs_free(struct input_docs *d);

/*
 * Reads the run file path (format: INPUT_IPERF3, INPUT_IPERF2, INPUT_PLAIN
 * or INPUT_AUTO, which never means plain) and appends its runs to d, each
 * with d->order; *nruns and *tool ("iperf3", "iperf2", "plain") say what
 * it held. Every iperf2 run keeps the whole log unless
 * that would pass 16 MiB for the file; then only its first run does. A
 * file that cannot be read or parsed adds nothing: -ENOENT etc., -EFBIG,
 * -EILSEQ (binary), -EINVAL (not a run file) or -ENOMEM.
 */
NB_MUST_CHECK int input_docs_read(const char *path, enum input_format format, struct input_docs *d,
                                  size_t *nruns, const char **tool, char *err, size_t errlen);

/* The words of the formats input_docs_read() takes: "auto", "iperf3", "iperf2", "plain". */
extern const struct opt_choice input_docs_format_choices[];

/* The words of struct input_docs' order: "run", "unknown". */
extern const struct opt_choice input_docs_order_choices[];

#endif
