/*
 * The result documents of an experiment's ok runs, parsed (store_docs.c):
 * what `netab layout --hot-from EXPERIMENT[:VARIANT]` reads the profiles
 * from. Conventions as in store.h.
 */
#ifndef NETAB_STORE_STORE_DOCS_H
#define NETAB_STORE_STORE_DOCS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * The parsed result documents of experiment's runs with status ok (of
 * variant; NULL: every variant) into *docs[0..*n) (free with
 * store_docs_free()); a document that is not JSON is left out. -ENODATA
 * when there is none, saying so; -ENOMEM; the store's errors.
 */
NB_MUST_CHECK int store_docs_ok_runs(struct store *db, int64_t experiment, const char *variant,
                                     json_t ***docs, size_t *n, char *err, size_t errlen);

/*
 * store_docs_ok_runs() of the store store_open_default() opens for db_path
 * (read only), closed again before returning.
 */
NB_MUST_CHECK int store_docs_ok_runs_at(const char *db_path, int64_t experiment,
                                        const char *variant, json_t ***docs, size_t *n, char *err,
                                        size_t errlen);

/*
 * "12" or "12:patched" (EXPERIMENT[:VARIANT]) into an experiment id and a
 * variant (*variant points into ref; NULL: every variant). Returns 0, or
 * -EINVAL when ref is not of that form.
 */
NB_MUST_CHECK int store_docs_parse_ref(const char *ref, int64_t *id, const char **variant);

void store_docs_free(json_t **docs, size_t n);

#endif
