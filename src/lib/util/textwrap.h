/*
 * Word-wrapping for the text reports (the campaign report, the pairs of
 * stats and compare): one place that decides where a line breaks.
 */
#ifndef NETAB_UTIL_TEXTWRAP_H
#define NETAB_UTIL_TEXTWRAP_H

#include <stddef.h>
#include <stdio.h>

/*
 * Prints text word-wrapped at width columns: the first line after first,
 * the others after rest (both count towards the width). A word longer than
 * a line is broken.
 */
void text_wrap(FILE *f, size_t width, const char *first, const char *rest, const char *text);

#endif
