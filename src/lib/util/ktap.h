/*
 * KTAP version 1, the test output kernel CI reads (the kernel's
 * Documentation/dev-tools/ktap.rst): the version line, the plan "1..N", one
 * "ok N name" or "not ok N name" per test, "# SKIP reason" as the directive
 * of a test that could not run, and "# " diagnostic lines in between. The
 * writers only format; what passes is the caller's judgement. A write error
 * is left in f's error flag.
 */
#ifndef NETAB_UTIL_KTAP_H
#define NETAB_UTIL_KTAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* "KTAP version 1" and the plan "1..ntests". */
void ktap_header(FILE *f, size_t ntests);

/*
 * Test n (1-based): "ok n name", "not ok n name", or with skip (not NULL)
 * "ok n name # SKIP skip". A '#' or control byte in name or skip becomes a
 * space-free stand-in ('_', ' ') so that the line keeps KTAP's shape.
 */
void ktap_result(FILE *f, size_t n, bool ok, const char *name, const char *skip);

/* A diagnostic line "# ..." (printf format); a newline in the text starts another "# " line. */
void ktap_diag(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* kselftest's closing count: "# Totals: pass:P fail:F xfail:0 xpass:0 skip:S error:0". */
void ktap_totals(FILE *f, size_t pass, size_t fail, size_t skip);

#endif
