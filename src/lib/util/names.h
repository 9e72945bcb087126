/*
 * The rules of names: experiments, variants and DUTs in an experiment file
 * (experiment/), and the names `netab import` is given on its command line
 * (--experiment, --variant, --cell). Names end up in file names, database
 * keys, report columns and terminals, so they stay simple: one rule, here.
 */
#ifndef NETAB_UTIL_NAMES_H
#define NETAB_UTIL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* The longest name, and the longest cell name (several key=value pairs). */
#define NAME_MAX_LEN 64
#define NAME_CELL_MAX_LEN 256

/* What name_valid() allows, for messages. */
#define NAME_RULE "may only use letters, digits, '.', '_' and '-' (at most 64)"

/* True if name is 1 to NAME_MAX_LEN letters, digits, '.', '_' and '-'. */
bool name_valid(const char *name);

/*
 * True if name is a matrix cell's name as an experiment makes it
 * ("streams=4,test=tcp_rr", "default"): 1 to NAME_CELL_MAX_LEN of what a
 * name allows, '=' and ','.
 */
bool name_cell_valid(const char *name);

/*
 * 0 if name is valid (name_cell_valid() with cell), else -EINVAL with a
 * message naming what ("--variant") and the name, made printable
 * (util/printable), and the rule.
 */
NB_MUST_CHECK int name_check(const char *what, const char *name, bool cell, char *err,
                             size_t errlen);

#endif
