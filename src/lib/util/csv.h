/*
 * The one CSV writer of netab (`netab stats --csv`, `netab report --format
 * csv`, `netab runs export --format csv`), so that every CSV the program
 * writes follows the same rules:
 *
 *  - Fields are separated by commas. A text field is quoted only when it
 *    holds a comma, a double quote, CR or LF; inside quotes a double quote is
 *    doubled (RFC 4180). A NULL text is an empty field.
 *  - Numbers are written in the shortest of %.15g, %.16g and %.17g that reads
 *    back (strtod) as exactly the same double: 57.471 stays "57.471" and
 *    0.1 + 0.2 becomes "0.30000000000000004", so no digit is lost and none is
 *    invented. NaN and infinities are empty fields.
 *  - A text field that a spreadsheet would evaluate as a formula (one
 *    starting with =, +, @, tab, CR, or - when the field is not a number or
 *    a ';'-separated list of numbers)
 *    is written with a leading single quote: '=HYPERLINK(...) is shown as
 *    text, never run (CSV injection). Numbers are never changed.
 *  - Records end in LF or, for consumers that insist on RFC 4180's CRLF, in
 *    CRLF; the writer's owner chooses once.
 *
 * The writer counts the fields of the current record and puts the commas in
 * itself. Errors of the stream are sticky in FILE; csv_status() reports them.
 */
#ifndef NETAB_UTIL_CSV_H
#define NETAB_UTIL_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

enum csv_eol { CSV_LF, CSV_CRLF };

struct csv {
    FILE *f;         /* borrowed */
    const char *eol; /* "\n" or "\r\n" */
    size_t fields;   /* fields written in the current record */
};

/* The longest text csv_format_number() writes, with its NUL. */
#define CSV_NUMBER_LEN 32

/* Starts a writer on f, which stays the caller's. */
void csv_init(struct csv *w, FILE *f, enum csv_eol eol);

/*
 * True if a spreadsheet would take text s as a formula: it starts with =, +,
 * @, tab or CR, or with - and is neither a number nor a ';'-separated list
 * of numbers.
 */
bool csv_formula_like(const char *s);

/*
 * One text field, quoted if it needs to be, with a leading ' when
 * csv_formula_like(); NULL writes an empty field.
 */
void csv_text(struct csv *w, const char *s);

/* One number field in the format above; NaN and infinities write an empty field. */
void csv_number(struct csv *w, double v);

/* One integer field. */
void csv_integer(struct csv *w, long long v);

/* One empty field. */
void csv_empty(struct csv *w);

/* A record of text fields names[0..n-1], ended: a header row. */
void csv_header(struct csv *w, const char *const *names, size_t n);

/* Ends the current record; with no field written, this writes an empty line. */
void csv_end(struct csv *w);

/* 0, or -EIO when writing to the stream failed at any point. */
NB_MUST_CHECK int csv_status(const struct csv *w);

/*
 * Writes v as csv_number() would into buf (at least CSV_NUMBER_LEN bytes):
 * "" for NaN and infinities. Returns the length written.
 */
size_t csv_format_number(char *buf, size_t len, double v);

#endif
