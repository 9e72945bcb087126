/*
 * The hot set of `netab layout`: the functions whose placement matters for a
 * measured difference. Given as names and globs (a comma list or a file with
 * one per line), as a perf profile (`perf report --stdio` or `perf script`
 * output, from which the symbol column is taken), or by default as the
 * built-in list of the kernel's IPv4/TCP/UDP/netfilter/NAT/NAPI receive and
 * transmit paths.
 *
 * Ownership: a struct layout_hot belongs to the caller and is released with
 * layout_hot_free(). Errors: 0 or a negative errno with a sentence in err.
 */
#ifndef NETAB_LAYOUT_LAYOUT_HOT_H
#define NETAB_LAYOUT_LAYOUT_HOT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/err.h"

struct opt;

enum layout_hot_kind {
    LAYOUT_HOT_BUILTIN,     /* the built-in network path list */
    LAYOUT_HOT_LIST,        /* a comma list on the command line */
    LAYOUT_HOT_NAMES,       /* a file of names or globs, one per line */
    LAYOUT_HOT_PERF_REPORT, /* perf report --stdio output */
    LAYOUT_HOT_PERF_SCRIPT, /* perf script output */
    LAYOUT_HOT_PROFILE,     /* sampled profiles of netab runs (--hot-from) */
    LAYOUT_HOT_EXPERIMENT,  /* an experiment file's `layout: {hot: [...]}` */
};

struct layout_hot {
    enum layout_hot_kind kind;
    char **exact; /* names without glob characters, sorted, unique (owned) */
    size_t nexact;
    char **globs; /* fnmatch patterns, unique (owned) */
    size_t nglobs;
};

/* The built-in patterns, NULL-terminated, in documentation order. */
const char *const *layout_hot_builtin_patterns(void);

/* Fills hot with the built-in patterns. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int layout_hot_builtin(struct layout_hot *hot);

/*
 * Parses a comma-separated list of names or globs ("ip_rcv,nf_nat_*").
 * Returns 0, -EINVAL for an empty list or an empty or blank-containing item
 * (explained in err), or -ENOMEM.
 */
NB_MUST_CHECK int layout_hot_parse_list(const char *list, struct layout_hot *hot, char *err,
                                        size_t errlen);

/*
 * Parses the contents of a hot-set file called `name` (for messages). When
 * any line looks like perf output (a "[k]"/"[.]" symbol column of perf
 * report, or perf script's "ADDR SYMBOL+0xOFF (DSO)"), only such lines
 * count and every other line is skipped (headers, call graphs). Otherwise
 * each line that is not blank or a '#' comment must be one name or glob;
 * anything else is an error naming the line. Unresolved perf symbols (hex
 * addresses, "[unknown]") are skipped; perf's "+0x54" offsets are dropped.
 * Returns 0, -EINVAL (err says why, e.g. no function name at all) or -ENOMEM.
 */
NB_MUST_CHECK int layout_hot_parse_text(const char *name, const char *text, size_t len,
                                        struct layout_hot *hot, char *err, size_t errlen);

/*
 * Checks one name or glob (fnmatch(3) syntax, as in the shell): it must not
 * be empty, hold a blank or control character, leave a '[' class unclosed
 * or end in a lone '\\'. Returns 0, or -EINVAL with why naming the pattern.
 */
NB_MUST_CHECK int layout_hot_check_pattern(const char *p, char *why, size_t whylen);

/*
 * The hot set of the n patterns pats (names or globs, each checked by
 * layout_hot_check_pattern), of the given kind. Returns 0, -EINVAL naming
 * the first bad pattern (or saying the list is empty) or -ENOMEM.
 */
NB_MUST_CHECK int layout_hot_from_patterns(const char *const *pats, size_t n,
                                           enum layout_hot_kind kind, struct layout_hot *hot,
                                           char *err, size_t errlen);

/*
 * The opttable setter of a repeatable `--hot FILE|LIST` (netab layout and
 * netab report give it one meaning): field is a struct layout_hot, zeroed
 * before parsing; each value is read as layout_hot_load() reads it and its
 * patterns are added to those of earlier --hot values (a union; two
 * different sources read as "command line"). A bad value is -EINVAL naming
 * it. The caller frees the set with layout_hot_free().
 */
int layout_hot_opt_add(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen);

/* Whether hot holds any pattern (a set given by --hot or a file, not a zeroed one). */
static inline bool layout_hot_given(const struct layout_hot *hot)
{
    return hot->nexact + hot->nglobs > 0;
}

/*
 * What --hot ARG means: "-" reads standard input, the name of an existing
 * file reads that file, anything else is a comma list.
 */
NB_MUST_CHECK int layout_hot_load(const char *arg, struct layout_hot *hot, char *err,
                                  size_t errlen);

/*
 * Whether `name` is hot: it, or its part before GCC's clone suffix (the
 * first '.', as in "ip_rcv_core.isra.0"), equals one of the names or
 * matches one of the globs. A ".cold" part (the unlikely branches GCC moves
 * to .text.unlikely) is hot only when named or matched as itself.
 */
bool layout_hot_match(const struct layout_hot *hot, const char *name);

/*
 * Marks in hits ([nexact + nglobs], exact names first, then globs, as in
 * hot) every pattern that `name` matches as layout_hot_match() matches, so
 * that a caller can name the patterns that matched no function at all.
 */
void layout_hot_mark(const struct layout_hot *hot, const char *name, bool *hits);

/* Pattern i of hot in layout_hot_mark()'s order. */
const char *layout_hot_pattern(const struct layout_hot *hot, size_t i);

/* The share of all samples (percent) from which a profiled function is hot (docs/layout.md). */
#define LAYOUT_HOT_MIN_SHARE 0.5

/*
 * The hot set from run documents with sampled profiles (end.profile.local
 * and .remote of `netab run --profile`): every function, clone suffixes
 * removed, with at least min_share percent of all their samples added up.
 * A profile's full list is read where it has one, else its top functions.
 * Returns 0; -EINVAL when no document holds a profile or no function
 * reaches the share (err says which); -ENOMEM.
 */
NB_MUST_CHECK int layout_hot_from_profiles(const json_t *const *docs, size_t n, double min_share,
                                           struct layout_hot *hot, char *err, size_t errlen);

/*
 * layout_hot_from_profiles() of the one run document in the file at path
 * (`netab layout --hot-from RUN.json`); -EINVAL naming the file when it is
 * not JSON.
 */
NB_MUST_CHECK int layout_hot_from_file(const char *path, double min_share, struct layout_hot *hot,
                                       char *err, size_t errlen);

/*
 * `--hot-from ref`: layout_hot_from_file() where ref is a file that exists,
 * else layout_hot_from_profiles() of the ok runs of ref as
 * EXPERIMENT[:VARIANT] in the store store_open_default() opens for db_path
 * (layout_hot_stored.c). -EINVAL saying so for a ref that is neither;
 * -ENODATA naming ref for an experiment with no such run; the store's
 * errors.
 */
NB_MUST_CHECK int layout_hot_from(const char *ref, const char *db_path, double min_share,
                                  struct layout_hot *hot, char *err, size_t errlen);

/* A short phrase for the source ("built-in network paths", "perf report", ...). */
const char *layout_hot_kind_name(enum layout_hot_kind kind);

void layout_hot_free(struct layout_hot *hot);

#endif
