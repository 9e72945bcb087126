/*
 * Reading benchmark results for `netab stats`: plain numbers, netab JSON,
 * iperf3 -J output and iperf2 text reports, with format autodetection.
 *
 * Every error message names the file and, where there is one, the line:
 * "data/a.txt:7: '1.5x' is not a number". Values are never dropped or
 * changed silently: a value that is not a finite number is an error.
 *
 * Failures are data: in plain numbers, a word where a value is expected
 * (`-EINTR`, `FAILED`, `timeout`: see input_is_failure_word()) is a failed
 * run. It is counted by its word (struct input_failures), never read as a
 * number, and the report shows it beside the statistics.
 */
#ifndef NETAB_INPUT_INPUT_H
#define NETAB_INPUT_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/opttable.h"

enum input_format {
    INPUT_AUTO = 0,
    INPUT_PLAIN,  /* one number per line; '#' starts a comment */
    INPUT_NETAB,  /* `netab run --json` documents */
    INPUT_IPERF3, /* `iperf3 -J` documents */
    INPUT_IPERF2, /* iperf2 text reports: the final 0.0-N line of each run */
};

/*
 * Caps on the values read, so that memory stays bounded whatever the input
 * (docs/stats.md): at most INPUT_VALUES_MAX from one input and, over the
 * inputs of one command (struct input_opts.values_before counts those
 * already read), INPUT_VALUES_TOTAL_MAX. A value costs 8 bytes here and,
 * in `netab stats`, about 24 (a copy, its frame, its sorted copy) plus 8
 * while its set is sorted, so the caps hold it to about 460 MB.
 */
#define INPUT_VALUES_MAX ((size_t)10000000)
#define INPUT_VALUES_TOTAL_MAX ((size_t)16000000)

struct input_opts {
    enum input_format format; /* INPUT_AUTO detects it from the content */
    const char *metric;       /* dotted JSON path, or iperf2 field; NULL for the default */
    unsigned column;          /* plain: 1-based whitespace-separated column; 0 means 1 */
    size_t values_before;     /* values already read from other inputs (the total cap) */
};

/*
 * A failure word is at most INPUT_FAIL_WORD_MAX bytes; one input may hold at
 * most INPUT_FAIL_WORDS_MAX different ones (more are not failures but a
 * file of words, which is refused).
 */
#define INPUT_FAIL_WORD_MAX 32
#define INPUT_FAIL_WORDS_MAX 16

/* The failed runs of one input, counted by their word in order of first appearance. */
struct input_failures {
    size_t n;      /* failed runs in all */
    size_t nwords; /* different words, at most INPUT_FAIL_WORDS_MAX */
    size_t last;   /* the index in words of the latest failed run's word */
    struct {
        char word[INPUT_FAIL_WORD_MAX + 1];
        size_t count;
    } words[INPUT_FAIL_WORDS_MAX];
};

/*
 * True if tok[0..len-1] is a failure word: 1 to INPUT_FAIL_WORD_MAX bytes
 * of letters, digits, '_', '-', '.' and ':' that start with a letter, or
 * with '-' or '_' and a letter ("-EINTR", "FAILED", "timeout",
 * "E_TIMEOUT"). What starts like a number ("1.5x", ".28-rc2") or holds
 * other characters ("GSO/TSO") is not one.
 */
bool input_is_failure_word(const char *tok, size_t len);

struct input_values {
    double *v; /* the values in file order; owned, free with input_values_free() */
    size_t n, cap;
    size_t
        limit; /* input_push() refuses values past this many; 0 and !at_total: INPUT_VALUES_MAX */
    bool at_total;               /* the limit is that of all inputs together, not of one */
    enum input_format format;    /* the format read (detected or forced) */
    char metric[128];            /* the metric read, e.g. "end.receiver.bits_per_second" */
    struct input_failures fails; /* plain numbers: the failed runs, not among v */
};

/* The formats' words: "plain", "netab", "iperf3", "iperf2", "auto" (`netab stats --format`). */
extern const struct opt_choice input_format_choices[];

/* The lower-case name of f (static string). */
const char *input_format_name(enum input_format f);

/*
 * Reads every value of the file at path ("-" reads standard input) into out,
 * which must be zeroed or freshly freed. Returns 0, -ENOENT/-EACCES/-EIO
 * (cannot read), -EINVAL (bad content), -EFBIG (more than TEXTFILE_MAX
 * bytes), -E2BIG (more values than the caps above) or -ENOMEM, with a
 * sentence in err naming the file. An empty result is not an error here;
 * the caller decides how many values it needs. Plain numbers are parsed as
 * they are read, so memory holds 8 bytes per value, the longest line and a
 * 64 KiB buffer; the other formats hold the text (at most TEXTFILE_MAX) and,
 * for JSON, the parsed form of one document (or array of documents).
 */
NB_MUST_CHECK int input_read_path(const char *path, const struct input_opts *o,
                                  struct input_values *out, char *err, size_t errlen);

/*
 * Like input_read_path() on an in-memory buffer buf[0..len-1], which must be
 * followed by a NUL byte (buf[len] == 0); name is used in messages.
 */
NB_MUST_CHECK int input_parse_buffer(const char *name, const char *buf, size_t len,
                                     const struct input_opts *o, struct input_values *out,
                                     char *err, size_t errlen);

/*
 * input_read_path() for one set of `netab stats`, which needs at least two
 * values: -EINVAL with "NAME: only one value; ..." (name: how the set is
 * shown) when it has fewer. out is freed on failure.
 */
NB_MUST_CHECK int input_read_set(const char *path, const char *name, const struct input_opts *o,
                                 struct input_values *out, char *err, size_t errlen);

/*
 * The unit in which the values of metric (input_values.metric) read as
 * format (input_format_name()) are best shown, and the factor *scale from
 * the input's own unit: "Mbit/s" and 1e-6 for bits per second (iperf3's
 * and netab's bits_per_second, iperf2's bandwidth), "ms" for jitter, "%"
 * for loss, "bytes" for a transfer; "" and 1 when it is not known (plain
 * numbers, another JSON path). A static string.
 */
const char *input_display_unit(const char *format, const char *metric, double *scale);

/* Frees out's values and zeroes it. */
void input_values_free(struct input_values *out);

#endif
