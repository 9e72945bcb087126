/*
 * netab bisect --experiment FILE (docs/bisect.md, "A device under test"):
 * the experiment file's dut: section and its one variant, the template of
 * every side's boot and expect, in which {commit} stands for the side's
 * commit (40 hex digits) and {short} for its first 12. The file's test:
 * options and the variant's opts come before the words after --.
 *
 * What else an experiment file can say (runs, a matrix, hooks, CPU modes)
 * is netab bisect's own options or has no meaning per commit, and is
 * refused with the key named rather than ignored.
 */
#ifndef NETAB_BISECT_DUTFILE_H
#define NETAB_BISECT_DUTFILE_H

#include <stddef.h>

#include "experiment/experiment.h"
#include "util/err.h"

struct bisect_dutfile {
    struct experiment *e; /* owned; e->dut and e->variants[0] hold the templates */
    char **words;         /* its run options (exp_argv_free()); NULL-terminated */
    size_t nwords;
};

/*
 * Loads the file's text (len bytes; name is the file's name for messages)
 * and checks it for netab bisect: a dut: section, exactly one variant with
 * a boot and an expect that each name {commit} or {short}, nothing netab
 * bisect would have to ignore. Returns 0, -EINVAL with "NAME: <what is
 * wrong>" in err, or -ENOMEM. Free with bisect_dutfile_free().
 */
NB_MUST_CHECK int bisect_dutfile_load(const char *name, const char *text, size_t len,
                                      struct bisect_dutfile *out, char *err, size_t errlen);

/*
 * The template s with {commit} replaced by hash and {short} by its first 12
 * characters (other braces are kept: a regular expression's {2,3}). Caller
 * has ownership; NULL on ENOMEM.
 */
char *bisect_dutfile_expand(const char *s, const char *hash);

void bisect_dutfile_free(struct bisect_dutfile *f);

#endif
