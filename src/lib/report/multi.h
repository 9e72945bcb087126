/*
 * One report over several experiments of a store (`netab report
 * --experiments 3,5 --label kernel`, docs/report.md "Several
 * experiments"): the way a kernel bisect or years of imported numbers
 * accumulate experiments. Each experiment's variants become column groups
 * named by the label; cells are matched by name across experiments; the
 * first group is the baseline.
 */
#ifndef NETAB_REPORT_MULTI_H
#define NETAB_REPORT_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "store/store.h"
#include "util/opttable.h"

enum creport_label {
    /* The variant's name; "name#ID" when two of the experiments have a variant of that name. */
    CREPORT_LABEL_VARIANT,
    /* The experiment's name ("name#ID" when two share it), "/variant" added when it has several. */
    CREPORT_LABEL_EXPERIMENT,
    /*
     * The kernel release each run recorded (env_json "kernel", else the
     * result's host.local.kernel, as imported iperf3 runs have it; a run
     * without one keeps its variant's name), "/variant" added when the
     * experiment has several variants, "#ID" when two experiments give the
     * same label.
     */
    CREPORT_LABEL_KERNEL,
};

/* The words of --label: "variant", "experiment", "kernel". */
extern const struct opt_choice creport_label_choices[];

/*
 * Reads experiments ids[0..n-1] from db and builds one report of all their
 * runs, grouped by label. -ENOENT naming an id that does not exist,
 * -EINVAL for an id given twice, else as creport_build(). On success *out
 * is the caller's (creport_free()).
 */
NB_MUST_CHECK int creport_load_many(struct store *db, const int64_t *ids, size_t n,
                                    enum creport_label label, const struct creport_opts *o,
                                    struct creport **out, char *err, size_t errlen);

/*
 * --experiments LIST: comma-separated experiment ids (each from 1) into
 * ids[0..*n), at most max of them. Returns 0 or -EINVAL with
 * "--experiments: ..." in err.
 */
NB_MUST_CHECK int creport_ids_parse(const char *list, int64_t *ids, size_t max, size_t *n,
                                    char *err, size_t errlen);

/*
 * The report `netab report` prints: the store store_open_default() picks
 * for db opened read only, experiment id loaded (creport_load()), or with
 * nids > 0 experiments ids[0..nids) grouped by label (creport_load_many());
 * then its code layout section and the hot functions' placement on 64-byte
 * cache lines added. On success *out is the caller's (creport_free()).
 * Returns 0 or a negative errno with a sentence in err.
 */
NB_MUST_CHECK int creport_open(const char *db, int64_t id, const int64_t *ids, size_t nids,
                               enum creport_label label, const struct creport_opts *o,
                               struct creport **out, char *err, size_t errlen);

#endif
