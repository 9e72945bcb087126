/*
 * Runs made outside a netab experiment, recorded in the results store
 * (import.c): other tools' runs as read by input/input_docs (`netab
 * import`, docs/store.md "Imported runs") and one `netab run --json`
 * document (`netab runs import`). Conventions as in util/err.h: 0 or a
 * negative errno with a sentence in err.
 */
#ifndef NETAB_IMPORT_IMPORT_H
#define NETAB_IMPORT_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "input/input_docs.h"
#include "store/store.h"
#include "store/store_import.h"
#include "util/err.h"

/*
 * Records d's runs (d->n >= 1), in order, as runs of the experiment and
 * variant t names: each run's result document, parameters and line, all
 * in one transaction (store_import()), or nothing. *experiment_id and
 * *first_seq (either may be NULL) receive where they went. -ENOMEM; the
 * store's errors.
 */
NB_MUST_CHECK int import_docs(struct store *db, const struct store_import_target *t,
                              const struct input_docs *d, int64_t *experiment_id, int *first_seq,
                              char *err, size_t errlen);

/*
 * Records the `netab run --json` document in the file at path ("-":
 * standard input) as a single run with the exit status the document
 * implies, under argv_text (NULL: "imported from PATH"); *run_id receives
 * its id. The file's errors (util/textfile.h); -EINVAL with "PATH:WHY" for
 * a text that is not such a document; the store's errors.
 */
NB_MUST_CHECK int import_run_doc(struct store *db, const char *path, const char *argv_text,
                                 int64_t *run_id, char *err, size_t errlen);

#endif
