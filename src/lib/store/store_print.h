/*
 * The store's runs as `netab runs list` and `netab runs show` print them
 * (store_print.c): one aligned line per run, and one run's fields, its
 * intervals and its stored documents. Text only; the JSON forms are
 * store_run_to_json()'s.
 */
#ifndef NETAB_STORE_STORE_PRINT_H
#define NETAB_STORE_STORE_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "store/store.h"
#include "util/err.h"

/*
 * The header line and one line per run of runs[0..n) to f, or "(no runs
 * recorded)"; a dash where the store holds no value. 0 or -EIO.
 */
NB_MUST_CHECK int store_print_run_list(FILE *f, const struct store_run *runs, size_t n);

/*
 * Run r to f: each column as "name value", its intervals as a table and
 * its parameters, environment and result documents indented (a document
 * that is not JSON as stored). 0, -ENOMEM or -EIO.
 */
NB_MUST_CHECK int store_print_run(FILE *f, const struct store_run *r);

#endif
